"""Datasets + training + the shipped files, in one call (`deckopt train-pruning`).

fit = fit_root_distribution(games=..., spec="mcts:300", per_game=4, seed=0)   # bimodal params
report = build("uniform", out="agents/pretrained/pruning_uniform.npz", seed=0)
"""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import numpy as np

import games
from agents.pruning import bandits, model
from agents.pruning.networks import PruningNetworks, save
from games.config import read_settings
from games.fileio import atomic_write_bytes

#: (name, settings) of the stochastic card games whose MCTS root values shape the bimodal arm distribution
ROOT_GAMES: tuple[tuple[str, dict], ...] = tuple(
    (g["name"], g.get("settings", {}))
    for g in read_settings(Path(__file__).parents[1] / "pretrained" / "pruning_root_games.toml", "root games")["game"]
)


def fit_root_distribution(spec: str, per_game: int, seed: int, progress=None) -> tuple[tuple[float, ...], int]:
    """Self-play of `spec` on each ROOT_GAMES game; the bimodal fit and the number of values."""
    values = []
    for i, (name, config) in enumerate(ROOT_GAMES):
        game = games.make(name, **config)
        values.append(bandits.collect_root_values(game, spec, per_game, seed + i))
        if progress is not None:
            progress(f"root values: {name} {len(values[-1])}")
    x = np.concatenate(values)
    return bandits.fit_bimodal(x), int(x.size)


def build(
    arms: str, out, seed: int, bimodal=(), simulations: int = 1000, epochs: int = 300, datasets=None, progress=None
) -> dict:
    """Simulate the two datasets (saved to `datasets` if given), train both networks, save them
    to `out`; a summary dict."""
    config = bandits.BanditConfig(arms=arms, bimodal=tuple(bimodal), simulations=simulations)
    data = bandits.make_datasets(
        config, seed, None if progress is None else lambda d, n: progress(f"{arms}: K {d}/{n}")
    )
    if datasets is not None:
        buffer = io.BytesIO()
        np.savez_compressed(
            buffer,
            safety_x=data.safety_x,
            safety_y=data.safety_y,
            probability_x=data.probability_x,
            probability_y=data.probability_y,
        )
        atomic_write_bytes(datasets, buffer.getvalue())
    train = model.TrainConfig(epochs=epochs, seed=seed)
    safety, safety_mse = model.train(data.safety_x, data.safety_y, model.SAFETY_LAYERS, train)
    probability, prob_mse = model.train(data.probability_x, data.probability_y, model.PROBABILITY_LAYERS, train)
    meta = {
        "arms": arms,
        "bimodal": list(bimodal),
        "seed": seed,
        "simulations": simulations,
        "epochs": epochs,
        "safety_mse": safety_mse,
        "probability_mse": prob_mse,
        "config": str(dataclasses.asdict(config)),
    }
    nets = PruningNetworks(safety, probability, config.max_iterations, config.max_arms, meta)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    save(out, nets)
    # agreement of the rounded Safety Network with its labels
    keep = np.array([nets.keep(int(i), int(k)) for i, k in data.safety_x])
    exact = float(np.mean(keep == data.safety_y))
    return {
        **meta,
        "safety_rows": len(data.safety_y),
        "probability_rows": len(data.probability_y),
        "safety_exact": exact,
    }
