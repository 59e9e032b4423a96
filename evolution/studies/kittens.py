"""How well the agent's self-play judges Exploding Kittens compositions, checked against exact values.

- `estimates_vs_exact`: `compositions` decks drawn without replacement from the deck space (seeded),
  each played `games` self-play games by the agent (the fairness objective's games, fresh seeds);
  the Spearman rank correlation between the agent's first-player win rate and the exact
  first-player value (open hands, by dynamic programming), and the errors.
- `runs_vs_exact`: the champions of finished kittens evolution runs (fixed or racing fitness,
  evolution or `selection = "random"`) judged by their exact |value - 0.5|, with each run's games.

The exact values are the yardstick here only; no fitness ever sees them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.stats import spearman
from evolution.config import EvolveConfig
from evolution.runfolder import Run
from evolution.spaces import kittens_objectives, kittens_validation
from evolution.spaces.kittens import KittensSpace
from evolution.spaces.registry import space_for
from games.errors import UserError, with_article

STAGE_STUDY = 11


def estimates_vs_exact(
    config: EvolveConfig,
    agent,
    pmap,
    compositions: int = 80,
    games: int = 2000,
    progress: Callable | None = None,
) -> dict:
    """The agent's self-play first-player rate of `compositions` decks against their exact values."""
    space = space_for(config)
    every = space.all_decks()
    rng = np.random.default_rng([config.seed, STAGE_STUDY])
    chosen = [every[i] for i in sorted(rng.choice(len(every), size=min(compositions, len(every)), replace=False))]
    fair = config.replace(objective="fairness")
    scored = kittens_objectives.measure(chosen, fair, agent, pmap, games, STAGE_STUDY, 0, progress, "self-play")
    rate = np.array([s.score for _, _, s in scored])
    exact = np.array([kittens_validation.exact_value(space, d) for d in chosen])
    se = np.sqrt(np.clip(rate * (1 - rate), 1e-9, None) / games)
    err = rate - exact
    # the correlation that sampling noise alone would leave (the same decks, exact values + noise of this size)
    noise = np.random.default_rng([config.seed, STAGE_STUDY, 1]).normal(0.0, 1.0, (200, len(exact)))
    ceiling = float(np.median([spearman(exact + se * z, exact) for z in noise]))
    return {
        "compositions": len(chosen),
        "space_decks": len(every),
        "games_per_composition": games,
        "agent": config.agent,
        "spearman": spearman(rate, exact),
        "spearman_with_sampling_noise_only": ceiling,
        "mean_abs_error": float(np.mean(np.abs(err))),
        "max_abs_error": float(np.max(np.abs(err))),
        "mean_error": float(np.mean(err)),
        "errors_beyond_2se": int(np.sum(np.abs(err) > 2 * se)),
        "decks": [
            {"deck": space.deck(d), "agent_first_player": float(r), "se": float(s), "exact_first_player": float(e)}
            for d, r, s, e in zip(chosen, rate, se, exact)
        ],
    }


def finished_kittens_run(path) -> Run:
    """The finished Exploding Kittens evolution run at `path`; UserError in one line if it is not one."""
    run = Run(path)
    if not isinstance(space_for(run.config), KittensSpace):
        raise UserError(
            f"run {str(path)!r} is {with_article(run.config.game)} run, not {with_article(KittensSpace.name)} run"
        )
    if not run.folder.champion.is_file():
        raise UserError(f"run {str(path)!r} has no champion yet (unfinished)")
    return run


def runs_vs_exact(paths) -> list[dict]:
    """Each finished kittens run's champion: its exact |value - 0.5|, its rank in the space by exact
    fairness, and what the run spent (games of the evolution, of the champion's re-measurement)."""

    out = []
    for path in paths:
        run = finished_kittens_run(path)
        c = run.config
        space = space_for(c)
        champion = run.folder.read_champion()
        v = kittens_validation.exact_value(space, champion["cards"])
        rows = run.folder.read_logbook()
        every = np.sort(np.abs(np.array([kittens_validation.exact_value(space, d) for d in space.all_decks()]) - 0.5))
        out.append(
            {
                "run": str(path),
                "seed": c.seed,
                "selection": c.selection,
                "fitness": c.fitness,
                "objective": c.objective,
                "generations": len(rows),
                "evolution_games": int(sum(r["games"] for r in rows)),
                "champion": space.deck(champion["cards"]),
                "agent_first_player": champion["playoff"][0].get("rate"),
                "exact_first_player": v,
                "exact_distance_from_half": abs(v - 0.5),
                "rank_in_space": int(np.searchsorted(every, abs(v - 0.5), "left")) + 1,
                "space_decks": int(every.size),
            }
        )
    return out
