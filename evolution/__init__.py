"""Deck evolution for Gwent Lite: DEAP loop, fitness by mirrored matches, parallel evaluation.

    from evolution import EvolveConfig, evolve
    evolve(EvolveConfig(generations=20, agent="heuristic"), "runs/my_run")

Modules: `genome` (random decks, mutation, unbiased repair, crossover), `fitness` (mirrored
pairings played in lock-step work units, scores with intervals), `parallel` (the joblib map: loky
processes or a Dask cluster), `loop` (toolbox, selection, the generation loop, checkpoints),
`validation` (champion playoff, held-out reference panel), `report` (tables, JSON, plots),
`bench` (`deckopt bench evolution`). No TensorFlow is imported here or in any worker.
"""
from evolution.config import EvolveConfig, load_config


def evolve(*args, **kwargs):
    """See evolution.loop.evolve (imported lazily: DEAP is only needed to run)."""
    from evolution.loop import evolve as _evolve

    return _evolve(*args, **kwargs)


__all__ = ["EvolveConfig", "load_config", "evolve"]
