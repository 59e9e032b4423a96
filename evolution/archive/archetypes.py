"""The archetypes of a quality-diversity run: a few elites far apart in descriptor space, each the
best of its region, measured against the run's yardstick with fresh seeds and against each other.

    chosen = choose_archetypes(entries, names, ranges, k, distance)  # greedy, best first by "score"
    report = archetypes_report(archive_json, space, config, k, distance, games, screen, progress)
    text = archetypes_table(report)

An elite's pooled fitness is relative to the opponents of the generations it was measured in, and
noisy where an elite met few of them; the yardstick is fixed. So every elite is first screened
against the yardstick (`screen` games per yardstick deck, seeds of their own), the archetypes are
chosen best first by that screening, and then measured again with fresh seeds (`games` per yardstick
deck), so that the luck that ranked a deck high does not also score it. Their scores against the
yardstick (and their interval's lower bound against 0.5) say which styles of deck hold up, and the
round robin says which beats which. With `screen` 0 the archetypes are chosen by pooled fitness.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from evolution.scoring import fitness as fit
from evolution.scoring import yardstick
from games.errors import UserError

#: the least distance between two archetypes' descriptors, each scaled to 0..1 over its range
DEFAULT_DISTANCE = 0.25
#: games per yardstick deck of every elite's screening
DEFAULT_SCREEN = 40
#: the seed-key generations of the stage's games: the archetypes on the yardstick, their round
#: robin, the screening of every elite
_YARDSTICK, _MATCHUPS, _SCREEN = 0, 1, 2


def normalised(entry: dict, names, ranges) -> np.ndarray:
    """An elite's descriptors scaled to 0..1 by the deck space's descriptor ranges."""
    return np.array([(entry[n] - lo) / (hi - lo) for n, (lo, hi) in zip(names, ranges)], dtype=np.float64)


def choose_archetypes(entries: list[dict], names, ranges, k: int, distance: float) -> list[dict]:
    """Up to `k` elites, greedily best first by their `score` (ties in cell order): an elite is taken
    only if its normalised descriptors are at least `distance` (Euclidean) from every elite already
    taken, so each archetype is the best of its region of the descriptor space."""
    if k < 1:
        raise UserError(f"--archetypes takes a number of archetypes >= 1, got {k}")
    if not distance >= 0:
        raise UserError(f"--archetype-distance takes a distance >= 0, got {distance}")
    taken: list[dict] = []
    points: list[np.ndarray] = []
    for e in sorted(entries, key=lambda e: -e["score"]):
        x = normalised(e, names, ranges)
        if all(np.linalg.norm(x - p) >= distance for p in points):
            taken.append(e)
            points.append(x)
            if len(taken) == k:
                break
    return taken


def archetypes_report(
    data: dict,
    space,
    config,
    k: int,
    distance: float,
    games: int,
    pmap,
    screen: int = DEFAULT_SCREEN,
    progress: Callable | None = None,
) -> dict:
    """The archetypes of an archive.json's elites (`choose_archetypes`, best first by every elite's
    screening against the yardstick, `screen` games per yardstick deck; by pooled fitness with
    `screen` 0) against the run's yardstick (`games` mirrored games per yardstick deck, fresh seeds
    of fit.STAGE_ARCHETYPES) and in a round robin among themselves (`games` per pair, on mirrored
    deals), played with `config`'s agent and seed through the caller's worker pool `pmap`; UserError
    if the run has no yardstick or `k` < 1. The report: each archetype (descriptors, pooled archive
    score, yardstick score with its 95 % interval and whether that interval is above 0.5, the deck)
    and the matrix of row-deck scores."""
    if not config.settings.yardstick:
        raise UserError(f"archetypes are measured against the run's yardstick, and this {space.name} run has none")
    if screen < 0 or screen % 2:
        raise UserError(f"--screen-games takes an even number of games >= 0, got {screen}")
    names, ranges = space.descriptor_space()
    choose_archetypes([], names, ranges, k, distance)  # k and distance checked before any game
    yardstick_decks = space.references(config.settings.yardstick)
    agent = space.build_agent(config.agent, config.seed)
    play = space.matches(agent, pmap, config.games_per_task)
    entries = data["entries"]
    if screen:
        screened = yardstick.measure(
            [tuple(e["cards"]) for e in entries], yardstick_decks, play, config, _SCREEN, screen,
            fit.STAGE_ARCHETYPES, progress, "elites on the yardstick",
        )  # fmt: skip
        entries = [{**e, "archive_score": e["score"], "screen": s.as_dict()} for e, s in zip(entries, screened)]
        entries = [{**e, "score": e["screen"]["score"]} for e in entries]
    chosen = choose_archetypes(entries, names, ranges, k, distance)
    decks = [tuple(e["cards"]) for e in chosen]
    what = "archetypes on the yardstick"
    scores = yardstick.measure(
        decks, yardstick_decks, play, config, _YARDSTICK, games, fit.STAGE_ARCHETYPES, progress, what
    )
    matrix = _round_robin(decks, play, config, games, progress)
    archetypes = []
    for e, s in zip(chosen, scores):
        measured = s.as_dict()
        archetypes.append(
            {
                "cards": e["cards"],
                "cell": e["cell"],
                **{n: e[n] for n in names},
                "normalised": [round(float(v), 6) for v in normalised(e, names, ranges)],
                "archive_score": e.get("archive_score", e["score"]),
                **({"screen": e["screen"]} if "screen" in e else {}),
                "archive_ci95": e["ci95"],
                "archive_games": e["games"],
                "yardstick": measured,
                "above_half": bool(measured["ci95"][0] > 0.5),
                "deck": space.words(e["cards"]),
            }
        )
    return {
        "game": space.name,
        "generation": data["generation"],
        "elites": len(data["entries"]),
        "k": k,
        "distance": distance,
        "descriptors": list(names),
        "ranges": [list(r) for r in ranges],
        "agent": config.agent,
        "seed": config.seed,
        "games": games,
        "screen_games": screen,
        "yardstick": [r.name for r in yardstick_decks],
        "archetypes": archetypes,
        "matchups": matrix,
    }


def _round_robin(decks: list[tuple], play, config, games: int, progress) -> dict:
    """Every pair of `decks` once, `games` games on mirrored deals: score[i][j] is deck i's score
    against deck j (score[i][j] + score[j][i] = 1; the diagonal None), with its 95 % interval."""
    n = len(decks)
    score = [[None] * n for _ in range(n)]
    ci95 = [[None] * n for _ in range(n)]
    pairings, who = fit.round_robin(decks, games // 2, config.seed, fit.STAGE_ARCHETYPES, _MATCHUPS)
    if pairings:
        results = play(pairings, (config.seed, fit.STAGE_ARCHETYPES, _MATCHUPS), progress, "archetype matchups")
        for outcomes, (i, j) in zip(results, who):
            for row, col, flip in ((i, j, False), (j, i, True)):
                s = fit.Score()
                s.add(outcomes, flip=flip)
                score[row][col], ci95[row][col] = s.score, list(s.ci95)
    return {"games_per_pair": games, "score": score, "ci95": ci95}


def archetypes_table(report: dict) -> str:
    """The archetypes (descriptors, archive score, yardstick score with its interval, whether its
    lower bound is above 0.5, the deck) and their matchups as text."""
    names = report["descriptors"]
    a = report["archetypes"]
    lines = [
        f"{len(a)} archetypes of {report['elites']} elites (descriptors at least {report['distance']:g} apart, "
        f"each scaled to 0..1), best first by "
        + (
            f"every elite's screening on the yardstick ({report['screen_games']} games per yardstick deck)"
            if report.get("screen_games")
            else "pooled fitness"
        )
        + f"; against the yardstick ({len(report['yardstick'])} decks, {report['games']} games each, fresh seeds, "
        f"seed {report['seed']}, agent {report['agent']})",
        "  #  "
        + "  ".join(f"{n:>{max(len(n), 6)}}" for n in names)
        + "  archive  yardstick [95% CI]      games  LB>0.5  deck",
    ]
    for i, e in enumerate(a, 1):
        y = e["yardstick"]
        niche = "  ".join(f"{e[n]:>{max(len(n), 6)}.2f}" for n in names)
        lines.append(
            f"{i:>3}  {niche}  {e['archive_score']:7.3f}  {y['score']:.3f} [{y['ci95'][0]:.3f}, {y['ci95'][1]:.3f}]"
            f"  {y['games']:>6}  {'yes' if e['above_half'] else 'no':>6}  {e['deck']}"
        )
    m = report["matchups"]
    lines.append(f"matchups: the row deck's score against the column deck, {m['games_per_pair']} games per pair")
    lines.append("     " + "".join(f"{'#' + str(j):>7}" for j in range(1, len(a) + 1)))
    for i, row in enumerate(m["score"], 1):
        lines.append(f"{'#' + str(i):>4} " + "".join(f"{'-' if s is None else f'{s:.3f}':>7}" for s in row))
    return "\n".join(lines)
