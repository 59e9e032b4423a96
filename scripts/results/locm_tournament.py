"""The drafting tournament of Vieira, Tavares and Chaimowicz (Entertainment Computing 2022; gym-locm's
`gym_locm/experiments/papers/entcom-2022/README.md`, section 4.3, and `gym_locm/experiments/tournament.py`)
played in deckopt's LOCM engine: every drafter of the field against every other and itself, the first
named always the first player, 1 000 games a matchup for each seed, both seats battled by one scripted
battler (max-attack, then greedy, gym-locm's `ma` and `osl`). `--battlers` also takes a learned LOCM
battler (agents.locm_battlers: a model file, or a named panel such as `locm_panel`, whose member
i mod n battles game i of a seed), played in lock-step on the same batch.

As in gym-locm's tournament, the games of seed s are gym-locm's games of seeds s, s + 1, ..., s + 999:
their offers and each deck's shuffle come from gym-locm itself (scripts/locm_gym_driver.py --chance
under the oracle environment, `make oracle`), so every matchup of a seed drafts from the very same
offers and shuffles its decks as gym-locm would. The drafters random and uji2 draw their picks from
deckopt's generator, seeded by (seed, first drafter, second drafter): the same decks under both
battlers. All the matchups of one first drafter and one seed are played together on the vectorised
engine (games/locm_batch.py, the field's batch forms).

`--drafter FILE.toml` (repeatable) enters a drafter file (agents/heuristics/locm_drafter_file.py: a
drafter that picks the best-scored card offered) as one more row and column, on the same games; the
output then also names each file drafter's win rate against the field (the nine, both seats, every
field member's own beside it) and head to head against coac and against chad, with 95 % intervals.

Each (battler, seed, first drafter) is written to `--out` as soon as it is played (a drafter file under
its name and the digest of its scores); a run started again plays only what is missing. Progress goes
to stderr; the tables (Markdown) to stdout:

    nice -n 10 .venv/bin/python scripts/results/locm_tournament.py --out runs/locm_tournament
    nice -n 10 .venv/bin/python scripts/results/locm_tournament.py --out runs/locm_tournament --drafter evolved.toml
    nice -n 10 .venv/bin/python scripts/results/locm_tournament.py --out runs/locm_tournament --battlers locm_panel

`--matchups FILE` sets a `deckopt matchups --game locm_drafter` table of the drafters by name (its
matchups.json) beside the tournament under the same battler: each drafter's score against the others
there (deckopt's own drafts) and its win rate against the same others here, and whether it lies inside
the matchups' interval.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

import games
from agents.heuristics.locm_drafter_file import read_drafter
from agents.heuristics.locm_field import DRAFTERS_BATCH, play_from_chance
from agents.locm_battlers import BATTLERS_HELP, battle_actions, check_battler
from agents.stats import wilson_ci
from games.errors import UserError

ROOT = Path(__file__).resolve().parent.parent.parent
ORACLE_PYTHON = ROOT / ".venv-oracle" / "bin" / "python"
DRIVER = ROOT / "scripts" / "locm_gym_driver.py"
SEEDS = (32359627, 91615349, 88803987, 83140551, 50731732)
FIELD = ("random", "max-attack", "rule-based", "icebox", "closet-ai", "uji1", "uji2", "coac", "chad")


def chance(seed: int, games_count: int, out: Path, oracle: Path) -> tuple[np.ndarray, np.ndarray]:
    """Offers and shuffles of gym-locm's games of seeds seed .. seed + games_count - 1 (kept in `out`)."""
    path = out / f"chance-{seed}-{games_count}.npz"
    if not path.exists():
        command = [str(oracle), str(DRIVER), "--chance", "--games", str(games_count), "--seed", str(seed)]
        records = [
            json.loads(line)
            for line in subprocess.run(command, capture_output=True, text=True, check=True).stdout.splitlines()
        ]
        offers = np.array([r["offers"] for r in records])
        shuffles = np.array([r["shuffles"] for r in records])
        np.savez(path.with_suffix(".tmp.npz"), offers=offers, shuffles=shuffles)
        path.with_suffix(".tmp.npz").replace(path)
    data = np.load(path)
    return data["offers"], data["shuffles"]


class Entrant(NamedTuple):
    """A drafter of the tournament: its name in the tables, its name in the checkpoint files, its part
    of each matchup's seed and its batch form."""

    name: str
    key: str
    number: int
    pick: Callable


def field_entrant(name: str) -> Entrant:
    return Entrant(name, name, FIELD.index(name), DRAFTERS_BATCH[name])


def file_entrant(path: Path) -> Entrant:
    """The drafter of a drafter file, checkpointed under its name and the digest of its scores."""
    try:
        drafter = read_drafter(path)
    except UserError as e:
        raise SystemExit(str(e)) from None
    if drafter.name in FIELD:
        raise SystemExit(f"{path}: the drafter's name {drafter.name!r} is a field drafter's; give it another name")
    digest = hashlib.sha256(drafter.scores.tobytes()).hexdigest()
    return Entrant(drafter.name, f"{drafter.name}-{digest[:12]}", len(FIELD) + int(digest[:8], 16), drafter.pick_batch)


def play_first_drafter(
    first: Entrant, seconds: list[Entrant], battler: str, seed: int, offers: np.ndarray, shuffles: np.ndarray
) -> list[int]:
    """The first player's wins in each matchup `first` (seat 0) against `seconds[i]` (seat 1), each on
    every game of `offers`/`shuffles`, all played together."""
    matchups = [
        (first.pick, second.pick, np.random.default_rng([seed, first.number, second.number])) for second in seconds
    ]
    n = len(offers)

    def act(batch, g: np.ndarray) -> np.ndarray:  # place g of the batch is game g % n of the seed
        return battle_actions((battler,), batch, g, g % n, None)

    winners = play_from_chance(games.make("locm"), offers, shuffles, matchups, act)
    return [int(w) for w in (winners == 0).sum(axis=1)]


def battler_folder(battler: str) -> str:
    """The checkpoint folder's name of a battler (a model path's separators replaced)."""
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", battler)


def cell(wins: np.ndarray, games_count: int) -> str:
    """Mean over seeds, spread (the seeds' lowest and highest) and the 95 % interval of all the games, in %."""
    rates = 100 * wins / games_count
    lo, hi = wilson_ci(int(wins.sum()), games_count * len(wins))
    return f"{rates.mean():.1f} ({rates.min():.1f}-{rates.max():.1f}; {100 * lo:.1f}-{100 * hi:.1f})"


def wins_array(results: dict, drafters: list[str], seeds: list[int]) -> np.ndarray:
    """(first, second, seed) the first player's wins of every matchup."""
    return np.array([[[results[str(s)][a][b] for s in seeds] for b in drafters] for a in drafters])


def tables(results: dict, drafters: list[str], seeds: list[int], games_count: int) -> str:
    """The Markdown tables of one battler: the first player's win rate of every matchup and each
    drafter's average over both seats (gym-locm's `average`: its mean as first player and its mean as
    second player, averaged)."""
    wins = wins_array(results, drafters, seeds)
    lines = ["| 1st \\ 2nd | " + " | ".join(drafters) + " |", "|---" * (len(drafters) + 1) + "|"]
    for i, a in enumerate(drafters):
        lines.append(f"| {a} | " + " | ".join(cell(wins[i, j], games_count) for j in range(len(drafters))) + " |")
    lines += [
        "",
        "| drafter | average win rate | as 1st | as 2nd | seeds' lowest-highest | 95 % CI |",
        "|---|---|---|---|---|---|",
    ]
    rows = []
    for i, a in enumerate(drafters):
        by_seed, first, second, total = against(wins, i, range(len(drafters)), games_count)
        lo, hi = wilson_ci(int(first.sum() + second.sum()), 2 * total)
        rows.append((by_seed.mean(), a, 100 * first.sum() / total, 100 * second.sum() / total, by_seed, lo, hi))
    for mean, a, as_first, as_second, by_seed, lo, hi in sorted(rows, reverse=True):
        spread = f"{by_seed.min():.1f}-{by_seed.max():.1f}"
        lines.append(
            f"| {a} | **{mean:.1f}** | {as_first:.1f} | {as_second:.1f} | {spread} | {100 * lo:.1f}-{100 * hi:.1f} |"
        )
    return "\n".join(lines)


def against(wins: np.ndarray, i: int, opponents, games_count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Drafter i against `opponents` (indices), each met as first and as second player: its win rate in %
    for each seed (both seats averaged), its wins as first and as second player for each seed, and the
    games it played on each seat over all seeds."""
    opponents = list(opponents)
    first = wins[i, opponents].sum(axis=0)
    second = games_count * len(opponents) - wins[opponents, i].sum(axis=0)
    by_seed = 100 * (first + second) / (2 * games_count * len(opponents))
    return by_seed, first, second, games_count * len(opponents) * wins.shape[2]


def rate(wins: np.ndarray, i: int, opponents, games_count: int) -> tuple[float, float, float, np.ndarray]:
    """`against` as (mean over seeds, 95 % interval of all the games (Wilson), in %, and the seeds' rates)."""
    by_seed, first, second, total = against(wins, i, opponents, games_count)
    lo, hi = wilson_ci(int(first.sum() + second.sum()), 2 * total)
    return float(by_seed.mean()), 100 * lo, 100 * hi, by_seed


def entered_tables(results: dict, drafters: list[str], entered: list[str], seeds: list[int], games_count: int) -> str:
    """For drafters entered from files: every drafter's win rate against the field (the nine drafters of
    FIELD, both seats; a field member meets itself too, which counts exactly one half), and each
    entered drafter head to head against coac and against chad, with the verdicts on both."""
    wins = wins_array(results, drafters, seeds)
    field = [drafters.index(name) for name in FIELD if name in drafters]
    lines = [
        f"Against the field ({len(field)} drafters, both seats):",
        "",
        "| drafter | win rate against the field | seeds' lowest-highest | 95 % CI |",
        "|---|---|---|---|",
    ]
    rows = sorted(((rate(wins, i, field, games_count), name) for i, name in enumerate(drafters)), reverse=True)
    for (mean, lo, hi, by_seed), name in rows:
        shown = f"**{name}**" if name in entered else name
        lines.append(f"| {shown} | {mean:.1f} | {by_seed.min():.1f}-{by_seed.max():.1f} | {lo:.1f}-{hi:.1f} |")
    lines += [
        "",
        "| drafter | against | win rate | seeds' lowest-highest | 95 % CI | CI above 50 % |",
        "|---|---|---|---|---|---|",
    ]
    heads = [o for o in ("coac", "chad") if o in drafters]
    for name in entered:
        i = drafters.index(name)
        for opponent in heads:
            mean, lo, hi, by_seed = rate(wins, i, [drafters.index(opponent)], games_count)
            above = "yes" if lo > 50 else "no"
            lines.append(
                f"| {name} | {opponent} | {mean:.1f} | {by_seed.min():.1f}-{by_seed.max():.1f} | {lo:.1f}-{hi:.1f} "
                f"| {above} |"
            )
    lines.append("")
    best_field = max((rate(wins, i, field, games_count)[0], drafters[i]) for i in field)
    for name in entered:
        mean = rate(wins, drafters.index(name), field, games_count)[0]
        verdict = "above" if mean > best_field[0] else "not above"
        lines.append(
            f"- {name}: {mean:.1f} % against the field, {verdict} every field member's own "
            f"(the highest: {best_field[1]} {best_field[0]:.1f} %)"
        )
    return "\n".join(lines)


def matchups_table(results: dict, drafters: list[str], seeds: list[int], games_count: int, matchups: dict) -> str:
    """Each drafter of a `deckopt matchups --game locm_drafter` table (its matchups.json: deckopt's own
    fresh drafts, both seats) beside its win rate in the tournament against the same other drafters,
    both seats, itself left out, and whether the tournament's lies inside the matchups' 95 % interval;
    then the same for every pair of drafters."""
    wins = wins_array(results, drafters, seeds)
    ranked = {r["deck"]: r for r in matchups["ranking"]}
    names = [d for d in drafters if d in ranked]
    lines = [
        f"`deckopt matchups` ({matchups['games_per_pair']} games a pair, battler {matchups['agent']}) beside the "
        f"tournament ({games_count * len(seeds)} games a matchup and seat), each against the other {len(names) - 1}:",
        "",
        "| drafter | deckopt matchups [95 % CI] | tournament | inside |",
        "|---|---|---|---|",
    ]
    for name in names:
        r, i = ranked[name], drafters.index(name)
        others = [drafters.index(n) for n in names if n != name]
        mean = rate(wins, i, others, games_count)[0]
        lo, hi = (100 * x for x in r["ci95"])
        inside = "yes" if lo <= mean <= hi else "no"
        lines.append(f"| {name} | {100 * r['score']:.1f} [{lo:.1f}, {hi:.1f}] | {mean:.1f} | {inside} |")
    cells = {(c["deck"], c["opponent"]): c for c in matchups["cells"]}
    pairs = [(a, b) for a in names for b in names if a < b and (a, b) in cells]
    outside = [
        (a, b)
        for a, b in pairs
        if not 100 * cells[(a, b)]["ci95"][0]
        <= rate(wins, drafters.index(a), [drafters.index(b)], games_count)[0]
        <= 100 * cells[(a, b)]["ci95"][1]
    ]
    lines += [
        "",
        f"pairs whose tournament rate lies outside the matchups cell's interval: {len(outside)} of {len(pairs)}",
    ]
    lines += [f"- {a} against {b}" for a, b in outside]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--battlers", nargs="+", default=["max-attack", "greedy"], metavar="BATTLER", help=f"battlers: {BATTLERS_HELP}"
    )
    parser.add_argument("--drafters", nargs="+", default=list(FIELD), choices=FIELD)
    parser.add_argument(
        "--drafter", type=Path, action="append", default=[], metavar="FILE.toml", help="enter a drafter file"
    )
    parser.add_argument("--seeds", nargs="+", type=int, default=list(SEEDS))
    parser.add_argument("--games", type=int, default=1000, help="games a matchup for each seed")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "locm_tournament", help="checkpoint folder")
    parser.add_argument("--oracle-python", type=Path, default=ORACLE_PYTHON)
    parser.add_argument(
        "--matchups",
        type=Path,
        metavar="FILE",
        help="a matchups.json of `deckopt matchups --game locm_drafter` (drafters by name): each drafter's score "
        "there beside its win rate in the tournament under the same battler",
    )
    args = parser.parse_args(argv)
    for battler in args.battlers:
        try:
            check_battler(battler)
        except UserError as e:
            raise SystemExit(str(e)) from None
    matchups = json.loads(args.matchups.read_text()) if args.matchups else None
    if matchups is not None and matchups["agent"] not in args.battlers:
        raise SystemExit(f"{args.matchups}: battler {matchups['agent']!r} is not among --battlers")
    if not args.oracle_python.exists():
        raise SystemExit(f"no oracle environment at {args.oracle_python}: `make oracle` builds it")
    entrants = [field_entrant(name) for name in args.drafters] + [file_entrant(path) for path in args.drafter]
    names = [e.name for e in entrants]
    if len(set(names)) < len(names):
        raise SystemExit(f"two drafters share a name: {', '.join(sorted(n for n in names if names.count(n) > 1))}")
    args.out.mkdir(parents=True, exist_ok=True)
    total = len(args.battlers) * len(args.seeds) * len(entrants)
    done = 0
    results = {battler: {str(seed): {} for seed in args.seeds} for battler in args.battlers}
    for battler in args.battlers:
        for seed in args.seeds:
            offers, shuffles = chance(seed, args.games, args.out, args.oracle_python)
            for first in entrants:
                done += 1
                path = args.out / battler_folder(battler) / str(seed) / f"{first.key}-{args.games}.json"
                saved = json.loads(path.read_text()) if path.exists() else {}
                missing = [e for e in entrants if e.key not in saved]
                if missing:
                    start = time.perf_counter()
                    wins = play_first_drafter(first, missing, battler, seed, offers, shuffles)
                    saved |= {e.key: w for e, w in zip(missing, wins)}
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.with_suffix(".tmp").write_text(json.dumps(saved))
                    path.with_suffix(".tmp").replace(path)
                    print(
                        f"[tournament] {done}/{total} {battler} seed {seed} {first.name} first: {len(missing)} "
                        f"matchups x {args.games} games in {time.perf_counter() - start:.1f} s",
                        file=sys.stderr,
                        flush=True,
                    )
                results[battler][str(seed)][first.name] = {e.name: saved[e.key] for e in entrants}
    entered = [e.name for e in entrants[len(args.drafters) :]]
    for battler in args.battlers:
        print(f"\n### Battler {battler}: {args.games} games a matchup for each of {len(args.seeds)} seeds\n")
        print(tables(results[battler], names, args.seeds, args.games))
        if entered:
            print()
            print(entered_tables(results[battler], names, entered, args.seeds, args.games))
        if matchups is not None and matchups["agent"] == battler:
            print()
            print(matchups_table(results[battler], names, args.seeds, args.games, matchups))


if __name__ == "__main__":
    main()
