"""The yardstick: a fixed panel of decks that the best decks of every generation are measured against.

The fitness is relative (the population, the hall of fame and fresh random decks all move or are
redrawn), so a run's fitness curve cannot show whether it improves at all. The yardstick is fixed for
the whole run and is never part of the fitness (nor of the validation decks): every generation its
`yardstick_top` best decks play each yardstick deck `yardstick_games` mirrored games with seeds of
their own; the logbook and the fitness plot show the best of them, and the champion is chosen on it
(`choose_on_yardstick`): a deck's yardstick games of every generation are pooled, the `playoff_top`
best are measured again with `playoff_games_per_pair` games against each yardstick deck (fresh
seeds, so the luck that put a deck on top does not choose it), and the best of that look wins.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.stats import Record
from evolution.individuals import score_of
from evolution.scoring import fitness as fit
from evolution.scoring.panel import ReferenceDeck

#: play(pairings, key_prefix, progress, what) -> the (deals, 2) outcomes of every pairing, in order
#: (a deck space's matches: evolution.scoring.evaluation.Evaluator.play)
Play = Callable[[list, tuple, Callable | None, str], list[np.ndarray]]


def measure(
    decks: list[tuple[int, ...]],
    references: list[ReferenceDeck],
    play: Play,
    config,
    gen: int,
    games: int,
    stage: int,
    progress: Callable | None = None,
    what: str | None = None,
) -> list[fit.Score]:
    """Each deck's Score against all `references` together, `games` mirrored games per reference deck."""
    pairings, who = fit.against(decks, [r.cards for r in references], games // 2, config.seed, stage, gen)
    what = what or (f"gen {gen} yardstick" if stage == fit.STAGE_YARDSTICK else "champion on the yardstick")
    results = play(pairings, (config.seed, stage, gen), progress, what)
    scores = [fit.Score() for _ in decks]
    for outcomes, (i, _) in zip(results, who):
        scores[i].add(outcomes)
    return scores


def measure_generation(pool: list, references, play: Play, config, gen: int, progress=None) -> int:
    """The pool's `yardstick_top` best distinct decks (by fitness) against the yardstick, recorded in
    their `stats.yardstick`; returns the number of games played."""
    if not references or config.settings.yardstick_top == 0:
        return 0
    order = np.argsort([-score_of(ind) for ind in pool], kind="stable")
    chosen, seen = [], set()
    for i in order:
        if tuple(pool[i]) not in seen and len(chosen) < config.settings.yardstick_top:
            seen.add(tuple(pool[i]))
            chosen.append(int(i))
    scores = measure(
        [tuple(pool[i]) for i in chosen],
        references,
        play,
        config,
        gen,
        config.settings.yardstick_games,
        fit.STAGE_YARDSTICK,
        progress,
    )
    for i, s in zip(chosen, scores):
        pool[i].stats.yardstick = s.as_dict()
    return sum(s.games for s in scores)


def remeasure_elites(decks, references, play: Play, config, gen: int, stage: int, progress=None):
    """(each deck's Score.as_dict(), games played, how) of an archive's best elites measured again
    against the yardstick, `playoff_games_per_pair` games per yardstick deck."""
    games = config.settings.playoff_games_per_pair
    scores = measure(decks, references, play, config, gen, games, stage, progress, "elites")
    again = [s.as_dict() for s in scores]
    how = (
        f"best against the yardstick ({len(references)} decks) of the archive's {len(decks)} best elites on it "
        f"(their yardstick games of the run, then pooled fitness), measured again with {games} games per "
        "yardstick deck"
    )
    return again, sum(a["games"] for a in again), how


def generation_fields(pool: list) -> dict:
    """Logbook fields: the best yardstick score of the generation with its interval (nan if none)."""
    measured = [ind.stats.yardstick for ind in pool if ind.stats.yardstick]
    if not measured:
        return {"yardstick": float("nan"), "yardstick_lo": float("nan"), "yardstick_hi": float("nan")}
    best = max(measured, key=lambda d: d["score"])
    return {"yardstick": best["score"], "yardstick_lo": best["ci95"][0], "yardstick_hi": best["ci95"][1]}


def pooled_records(generations: list[dict]) -> dict[tuple[int, ...], Record]:
    """Every measured deck's yardstick games of all generations together, by cards."""
    out: dict[tuple[int, ...], Record] = {}
    for g in generations:
        for d in g["decks"]:
            y = d.get("yardstick")
            if y:
                key = tuple(d["cards"])
                out[key] = out.get(key, Record()) + Record.from_dict(y)
    return out


def choose_on_yardstick(generations: list[dict], references, play: Play, config, progress=None):
    """(champion cards, the re-measured candidates best first, how) from the run's generation files."""
    records = pooled_records(generations)
    ranked = sorted(records, key=lambda k: -records[k].score)
    candidates = ranked[: max(1, config.playoff_top)]
    last = generations[-1]["generation"]
    scores = measure(
        candidates,
        references,
        play,
        config,
        last,
        config.settings.playoff_games_per_pair,
        fit.STAGE_YARDSTICK_FINAL,
        progress,
    )
    entries = [
        {"cards": list(c), "pooled_yardstick": records[c].score, "pooled_games": records[c].games, **s.as_dict()}
        for c, s in zip(candidates, scores)
    ]
    entries.sort(key=lambda e: -e["score"])
    how = (
        f"best against the yardstick ({len(references)} decks) of the run's {len(candidates)} best decks on it, "
        f"measured again with {config.settings.playoff_games_per_pair} games per yardstick deck"
    )
    return entries[0]["cards"], entries, how
