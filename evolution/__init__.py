"""Deck evolution: the decks of a deck space (Gwent Lite's power multisets, Gwent Abilities' card
pool, Exploding Kittens' compositions, a plug-in's) evolved by a DEAP loop, scored through the
caller's worker pool.

    from evolution.config import EvolveConfig
    from evolution.loop import evolve
    evolve(EvolveConfig(generations=20, agent="heuristic"), "runs/my_run")

From the bottom up (the layers contract of pyproject.toml, by folder): `decks/`: the deck-space
protocol (`decks.base`), each game's settings (`decks/*_settings.py`, found by name in
`decks.settings_registry`) and the deck operators they share (`decks.genome`, `decks.constraints`);
the run config (`config`); a deck as a DEAP individual (`individuals`) and the run files' schemas
(`runfiles`); `scoring/`: playing decks and scoring them (`fitness`: pairings in lock-step tasks
dealt by a space, `evaluation`: the scorer of decks that play each other, `racing`, `yardstick`,
`validation`, `panel`); `spaces/`: the deck spaces (`spaces.head_to_head` for decks that play each
other, `spaces.kittens_objectives` and `spaces.kittens_validation` for Exploding Kittens
compositions judged alone, one module per game, listed in `spaces.registry`); the checkpointed state
(`state`) and the active-genes selection (`active_genes`), the run folder (`runfolder`) and
selection and variation (`toolbox`); `designer/`: everything people
read, drawn from the spaces' plain rows (tables, plots, the HTML report, matchups, the advisor);
`archive/`: MAP-Elites; `loop`: the generation loop; `studies/`: studies over runs.

No TensorFlow is imported here or in any worker.
"""
