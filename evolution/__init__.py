"""Deck evolution for Gwent Lite (fitness by mirrored matches) and Exploding Kittens compositions
(fairness or skill from the agent's self-play): DEAP loop, parallel evaluation.

    from evolution import EvolveConfig, evolve
    evolve(EvolveConfig(generations=20, agent="heuristic"), "runs/my_run")

Modules: `config` (EvolveConfig), `genome` (random decks, mutation, unbiased repair, crossover),
`fitness` (mirrored pairings played in lock-step tasks, scores with intervals), `parallel` (the map:
loky processes or a Dask cluster), `individuals` (DEAP individuals and their DeckStats), `toolbox`
(selection and variation), `evaluation` (a pool's fitness), `state` (the checkpointed
EvolutionState), `runfolder` (every file of a run), `loop` (the generation loop), `validation`
(champion playoff, held-out reference panel), `report` (tables, deck export), `plots`, `panel`
(reference deck files), `space` (each game's deck space: Gwent Lite power multisets, Exploding Kittens
card counts), `space_check` (the deck space's operators in `deckopt check`), `objectives` (the
kittens objectives, champion and exact-value validation), `kittens_study` (the agent's estimates
against exact values). No TensorFlow is imported here or in any worker.
"""

from evolution.config import EvolveConfig, load_config


def evolve(*args, **kwargs):
    """See evolution.loop.evolve (imported lazily: DEAP is only needed to run)."""
    from evolution.loop import evolve as _evolve

    return _evolve(*args, **kwargs)


__all__ = ["EvolveConfig", "load_config", "evolve"]
