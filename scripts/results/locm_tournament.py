"""The drafting tournament of Vieira, Tavares and Chaimowicz (Entertainment Computing 2022; gym-locm's
`gym_locm/experiments/papers/entcom-2022/README.md`, section 4.3, and `gym_locm/experiments/tournament.py`)
played in deckopt's LOCM engine: every drafter of the field against every other and itself, the first
named always the first player, 1 000 games a matchup for each seed, both seats battled by one scripted
battler (max-attack, then greedy, gym-locm's `ma` and `osl`).

As in gym-locm's tournament, the games of seed s are gym-locm's games of seeds s, s + 1, ..., s + 999:
their offers and each deck's shuffle come from gym-locm itself (scripts/locm_gym_driver.py --chance
under the oracle environment, `make oracle`), so every matchup of a seed drafts from the very same
offers and shuffles its decks as gym-locm would. The drafters random and uji2 draw their picks from
deckopt's generator, seeded by (seed, first drafter, second drafter): the same decks under both
battlers. All the matchups of one first drafter and one seed are played together on the vectorised
engine (games/locm_batch.py, the field's batch forms).

Each (battler, seed, first drafter) is written to `--out` as soon as it is played; a run started
again skips what is there. Progress goes to stderr; the tables (Markdown) to stdout:

    nice -n 10 .venv/bin/python scripts/results/locm_tournament.py --out runs/locm_tournament
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import games
from agents.heuristics.locm_field import BATTLERS_BATCH, DRAFTERS_BATCH
from agents.stats import wilson_ci
from games.locm import BATTLE, DRAFT
from games.locm_batch import LocmBatch

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


def play_first_drafter(
    first: str, seconds: list[str], battler: str, seed: int, offers: np.ndarray, shuffles: np.ndarray
) -> list[int]:
    """The first player's wins in each matchup `first` (seat 0) against `seconds[i]` (seat 1), each on
    every game of `offers`/`shuffles`, all played together."""
    n = len(offers)
    batch = LocmBatch.from_chance(
        games.make("locm"), np.tile(offers, (len(seconds), 1, 1)), np.tile(shuffles, (len(seconds), 1, 1))
    )
    groups = [np.arange(i * n, (i + 1) * n) for i in range(len(seconds))]
    rngs = [np.random.default_rng([seed, FIELD.index(first), FIELD.index(second)]) for second in seconds]
    actions = np.empty(batch.size, dtype=np.int64)
    while (batch.phase == DRAFT).any():
        for group, second, rng in zip(groups, seconds, rngs):
            seat = int(batch.player[group[0]])  # every game of the batch drafts in step
            actions[group] = DRAFTERS_BATCH[(first, second)[seat]](batch, group, rng)
        batch.apply_actions(np.arange(batch.size), actions)
    act = BATTLERS_BATCH[battler]
    live = np.flatnonzero(batch.phase == BATTLE)
    while len(live):
        batch.apply_actions(live, act(batch, live, None))
        live = np.flatnonzero(batch.phase == BATTLE)
    return [int((batch.winner[group] == 0).sum()) for group in groups]


def cell(wins: np.ndarray, games_count: int) -> str:
    """Mean over seeds, spread (the seeds' lowest and highest) and the 95 % interval of all the games, in %."""
    rates = 100 * wins / games_count
    lo, hi = wilson_ci(int(wins.sum()), games_count * len(wins))
    return f"{rates.mean():.1f} ({rates.min():.1f}-{rates.max():.1f}; {100 * lo:.1f}-{100 * hi:.1f})"


def tables(results: dict, drafters: list[str], seeds: list[int], games_count: int) -> str:
    """The Markdown tables of one battler: the first player's win rate of every matchup and each
    drafter's average over both seats (gym-locm's `average`: its mean as first player and its mean as
    second player, averaged)."""
    wins = np.array([[[results[str(s)][a][b] for s in seeds] for b in drafters] for a in drafters])  # (a, b, seed)
    lines = ["| 1st \\ 2nd | " + " | ".join(drafters) + " |", "|---" * (len(drafters) + 1) + "|"]
    for i, a in enumerate(drafters):
        lines.append(f"| {a} | " + " | ".join(cell(wins[i, j], games_count) for j in range(len(drafters))) + " |")
    lines += [
        "",
        "| drafter | average win rate | as 1st | as 2nd | seeds' lowest-highest | 95 % CI |",
        "|---|---|---|---|---|---|",
    ]
    per_seed_total = games_count * len(drafters)
    rows = []
    for i, a in enumerate(drafters):
        first = wins[i].sum(axis=0)  # (seed,) wins as first player
        second = per_seed_total - wins[:, i].sum(axis=0)  # wins as second player
        by_seed = 100 * (first + second) / (2 * per_seed_total)
        lo, hi = wilson_ci(int(first.sum() + second.sum()), 2 * per_seed_total * len(seeds))
        rows.append(
            (
                by_seed.mean(),
                a,
                100 * first.sum() / (per_seed_total * len(seeds)),
                100 * second.sum() / (per_seed_total * len(seeds)),
                by_seed,
                lo,
                hi,
            )
        )
    for mean, a, as_first, as_second, by_seed, lo, hi in sorted(rows, reverse=True):
        spread = f"{by_seed.min():.1f}-{by_seed.max():.1f}"
        lines.append(
            f"| {a} | **{mean:.1f}** | {as_first:.1f} | {as_second:.1f} | {spread} | {100 * lo:.1f}-{100 * hi:.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--battlers", nargs="+", default=["max-attack", "greedy"], choices=sorted(BATTLERS_BATCH))
    parser.add_argument("--drafters", nargs="+", default=list(FIELD), choices=FIELD)
    parser.add_argument("--seeds", nargs="+", type=int, default=list(SEEDS))
    parser.add_argument("--games", type=int, default=1000, help="games a matchup for each seed")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "locm_tournament", help="checkpoint folder")
    parser.add_argument("--oracle-python", type=Path, default=ORACLE_PYTHON)
    args = parser.parse_args(argv)
    if not args.oracle_python.exists():
        raise SystemExit(f"no oracle environment at {args.oracle_python}: `make oracle` builds it")
    args.out.mkdir(parents=True, exist_ok=True)
    total = len(args.battlers) * len(args.seeds) * len(args.drafters)
    done = 0
    for battler in args.battlers:
        for seed in args.seeds:
            offers, shuffles = chance(seed, args.games, args.out, args.oracle_python)
            for first in args.drafters:
                done += 1
                path = args.out / battler / str(seed) / f"{first}-{args.games}.json"
                if path.exists() and set(json.loads(path.read_text())) >= set(args.drafters):
                    continue
                start = time.perf_counter()
                wins = play_first_drafter(first, args.drafters, battler, seed, offers, shuffles)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.with_suffix(".tmp").write_text(json.dumps(dict(zip(args.drafters, wins))))
                path.with_suffix(".tmp").replace(path)
                print(
                    f"[tournament] {done}/{total} {battler} seed {seed} {first} first: {len(args.drafters)} matchups x "
                    f"{args.games} games in {time.perf_counter() - start:.1f} s",
                    file=sys.stderr,
                    flush=True,
                )
    for battler in args.battlers:
        results = {
            str(seed): {
                first: json.loads((args.out / battler / str(seed) / f"{first}-{args.games}.json").read_text())
                for first in args.drafters
            }
            for seed in args.seeds
        }
        print(f"\n### Battler {battler}: {args.games} games a matchup for each of {len(args.seeds)} seeds\n")
        print(tables(results, args.drafters, args.seeds, args.games))


if __name__ == "__main__":
    main()
