"""Deck evolution: Gwent Lite decks (fitness by mirrored matches) and Exploding Kittens compositions
(fairness or skill from the agent's self-play); DEAP loop, parallel evaluation.

    from evolution import EvolveConfig, evolve
    evolve(EvolveConfig(generations=20, agent="heuristic"), "runs/my_run")

At the top, a run: `config` (EvolveConfig), `loop` (the generation loop), `state` (the checkpointed
EvolutionState), `runfolder` (every file of a run), `toolbox` (selection and variation),
`individuals` (DEAP individuals and their DeckStats). By what they do:

- `spaces/`: one module per deck game (`gwent`, `kittens`) behind the protocol of `spaces.base`,
  listed in `spaces.registry`; a space owns its game's decks, operators, scoring set-up, validation
  and report rows. Gwent Lite's operators and constraints: `spaces.genome`, `spaces.constraints`;
  the space check of `deckopt check`: `spaces.check`.
- `scoring/`: playing decks and scoring them (`fitness`: pairings in lock-step tasks, `evaluation`,
  `objectives`, `racing`, `yardstick`, `panel`: reference deck files).
- `archive/`: MAP-Elites (`grid`) and its results (`results`).
- `designer/`: matchups, the deck advisor, the HTML report, tables, plots.
- `studies/`: the champion's validation (`validation`, `kittens_validation`), racing, kittens,
  agreement and exploitability studies.

No TensorFlow is imported here or in any worker.
"""

from evolution.config import EvolveConfig, load_config
from evolution.loop import evolve

__all__ = ["EvolveConfig", "load_config", "evolve"]
