"""The end of an Exploding Kittens composition run: the champion and its exact validation.

Champion: the last generation's `playoff_top` best decks and the hall of fame, each measured again
with `playoff_games_per_deck` fresh games of the run's objective (evolution/spaces/kittens_objectives.py); the best of
that look wins. Validation (reporting only, never fitness): each deck's exact first-player value of
the open-hands game (games.exploding_kittens_exact) beside the agent's estimate, the champion's rank among
every deck of the space by exact fairness, and the fairness target (|exact - 0.5| <= 0.005).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from evolution.scoring import fitness as fit
from evolution.spaces.kittens_objectives import ObjectiveEvaluator, build_agent, measure
from games.exploding_kittens_exact import game_value


def choose_champion(folder, config, agent, pmap, space, progress=None) -> dict:
    """The last generation's `playoff_top` best decks and the hall of fame, each measured again with
    `playoff_games_per_deck` fresh games; the best of that look is the champion."""
    last = folder.read_last_generation()
    gen = last["generation"]
    candidates = []
    for d in last["decks"]:
        if tuple(d["cards"]) not in candidates and len(candidates) < max(1, config.playoff_top):
            candidates.append(tuple(d["cards"]))
    candidates += [
        c for c in dict.fromkeys(tuple(d["cards"]) for d in folder.read_hall_of_fame()) if c not in candidates
    ]
    scored = measure(
        candidates, config, agent, pmap, config.settings.playoff_games_per_deck, fit.STAGE_PLAYOFF, gen, progress
    )
    entries = [
        {
            "cards": list(c),
            "deck": space.deck(c),
            "score": v,
            "ci95": list(ci),
            "rate": s.score,
            "rate_ci95": list(s.ci95),
            "games": s.games,
        }
        for c, (v, ci, s) in zip(candidates, scored)
    ]
    entries.sort(key=lambda e: -e["score"])
    how = (
        f"best {config.objective} of generation {gen}'s top {min(len(candidates), config.playoff_top)} and the hall of "
        f"fame ({len(candidates)} decks), each measured again with {config.settings.playoff_games_per_deck} fresh games"
    )
    return {"cards": entries[0]["cards"], "deck": entries[0]["deck"], "generation": gen, "how": how, "playoff": entries}


def exact_value(space, cards) -> float:
    """The exact first-player value of the open-hands game on this deck (games.exploding_kittens_exact)."""
    settings = {k: v for k, v in space.game_settings(cards).items() if k != "open_hands"}
    return float(game_value({**settings, "open_hands": True}))


def exact_rows(space, entries: list[dict], objective: str) -> list[dict]:
    """Each deck entry (cards, score, ci95, and the rate behind the score) beside its exact value."""
    rows = []
    for e in entries:
        v = exact_value(space, e["cards"])
        row = {
            "cards": list(e["cards"]),
            "deck": space.deck(e["cards"]),
            "exact_first_player": v,
            "exact_distance_from_half": abs(v - 0.5),
            "score": e.get("score"),
            "ci95": e.get("ci95"),
        }
        if objective == "fairness":
            row["agent_first_player"] = e.get("rate")
            row["agent_first_player_ci95"] = e.get("rate_ci95")
        rows.append(row)
    return rows


def validation_report(champion: dict, best: list[dict], space, config) -> dict:
    """The champion's and the best decks' exact first-player values next to the agent's estimates."""
    rows = exact_rows(space, champion["playoff"], config.objective)
    best_rows = exact_rows(space, best, config.objective)
    everything = [exact_value(space, c) for c in space.all_decks()] if len(space.types) <= 4 else []
    distances = np.sort(np.abs(np.array(everything) - 0.5)) if everything else np.empty(0)
    c = rows[0]
    report = {
        "game": space.name,
        "objective": config.objective,
        "agent": config.agent,
        "open_hands": bool(config.settings.game_config.get("open_hands")),
        "champion": c,
        "candidates": rows,
        "best_per_generation": best_rows,
    }
    if distances.size:
        report["space"] = {
            "decks": int(distances.size),
            "median_exact_distance_from_half": float(np.median(distances)),
            "decks_within_0.005": int(np.sum(distances <= 0.005)),
            "champion_rank_by_exact_fairness": int(np.searchsorted(distances, c["exact_distance_from_half"], "left"))
            + 1,
        }
    if config.objective == "fairness":
        report["targets"] = {"champion_exact_within_0.005_of_half": c["exact_distance_from_half"] <= 0.005}
    return report


def finish_run(folder, config, agent, pmap, space, log=None, progress=None) -> dict:
    """Champion (re-measured candidates) and, with `config.validate`, its exact value (reporting only)."""
    log = log or (lambda line: None)
    champion = choose_champion(folder, config, agent, pmap, space, progress)
    folder.write_champion(champion, space, champion["how"])
    e = champion["playoff"][0]
    log(
        f"champion: {space.words(champion['cards'])}, {config.objective} {e['score']:.4f} "
        f"[{e['ci95'][0]:.4f}, {e['ci95'][1]:.4f}], {champion['how']}"
    )
    out = {"champion": champion}
    if config.validate:
        best = [b["best"] for b in folder.read_best_decks()]
        report = validation_report(champion, best, space, config)
        report["generation"] = champion["generation"]  # which champion it validates (a stale file is redone)
        folder.write_validation(report)
        c = report["champion"]
        log(
            f"validation: the champion's exact first-player value {c['exact_first_player']:.4f} "
            f"(|value - 0.5| = {c['exact_distance_from_half']:.4f})"
        )
        out["validation"] = report
    return out


class KittensScorer(ObjectiveEvaluator):
    """The Scorer (evolution.decks.base) of the kittens space: each deck's own games (ObjectiveEvaluator),
    no yardstick, the champion re-measured and validated against exact values."""

    def __init__(self, space, config):
        super().__init__(space, config)
        self.header = {"objective": config.objective, "games_per_deck": config.settings.games_per_deck}

    def measure_yardstick(self, pool: list, gen: int, pmap, progress: Callable | None = None) -> int:
        return 0

    def remeasure(self, decks: list, gen: int, stage: int, pmap, progress: Callable | None = None):
        c = self.config
        games_per_deck = c.settings.playoff_games_per_deck
        scored = measure(decks, c, self.agent, pmap, games_per_deck, stage, gen, progress, "elites")
        again = [{"score": v, "ci95": list(ci), "games": s.games} for v, ci, s in scored]
        how = (
            f"best {c.objective} of the archive's {len(decks)} best elites, each measured again with "
            f"{games_per_deck} fresh games"
        )
        return again, sum(a["games"] for a in again), how

    def finish(self, folder, pmap, log: Callable | None = None, progress: Callable | None = None) -> dict:
        return finish_run(folder, self.config, self.agent, pmap, self.space, log=log, progress=progress)

    def validate(self, cards, pmap, *, seed: int, games: int | None = None, panel=None, baseline=None,
                 progress: Callable | None = None, best=()) -> dict:  # fmt: skip
        """The deck and the decks `best` (a run's best of every generation), measured again with fresh
        seeds `seed` (`games` each, default the run's playoff_games_per_deck), beside their exact
        first-player values. A kittens deck is judged alone: no reference decks, no baseline."""
        c = self.config.replace(seed=seed)
        decks = [tuple(cards)] + [t for t in dict.fromkeys(tuple(b) for b in best) if t != tuple(cards)]
        games_per_deck = games or c.settings.playoff_games_per_deck
        agent = build_agent(c, seed=seed)
        scored = measure(decks, c, agent, pmap, games_per_deck, fit.STAGE_VALIDATE, 0, progress, "validation")
        entries = [
            {
                "cards": list(d),
                "score": v,
                "ci95": list(ci),
                "rate": s.score,
                "rate_ci95": list(s.ci95),
                "games": s.games,
            }
            for d, (v, ci, s) in zip(decks, scored)
        ]
        report = validation_report({"playoff": entries}, [], self.space, c)
        report.update({"seed": seed, "games_per_deck": games_per_deck})
        return report
