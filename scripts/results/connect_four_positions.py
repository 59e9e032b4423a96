"""Several agents checked against perfect play on the same solved Connect Four positions.

    python scripts/results/connect_four_positions.py az:pretrained mcts:1000 --seeds 1 3 5

For each seed S the positions are those of `deckopt eval connect_four SPEC --perfect 200 --seed S`
(agents/perfect_play.py: seeded `mcts:100` self-play cut at ply 14-26, solved exactly); they are solved
once and every agent moves on each of them, seeded as `deckopt eval` seeds it (a deterministic agent, such
as `az:` on Connect Four, gives the command's figures; `mcts:` agents draw other random numbers there,
since the command plays its games first). Prints one Markdown row per agent: the share of positions
whose game-theoretic outcome its move keeps on each seed, the share of the critical ones (where some
move changes the outcome) in brackets, and the share over all seeds. An agent spec is anything
`deckopt` accepts (`az:FILE.npz,sims=N,solve=0`, `mcts:1000`, `pretrained`, ...); an earlier network of
the repository is a file written by `git show COMMIT:agents/pretrained/az_connect_four.npz > FILE.npz`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's packages, whatever is installed

import agents  # noqa: E402
import games  # noqa: E402
from agents.perfect_play import kept_outcomes, solved_connect_four_positions  # noqa: E402


def kept_by_seed(specs: list[str], seeds: list[int], num_positions: int) -> tuple[dict, dict]:
    """{spec: {seed: kept_outcomes report}} and {seed: (critical positions, skipped as too hard)}."""
    game = games.make("connect_four")
    reports: dict[str, dict[int, dict]] = {spec: {} for spec in specs}
    sets = {}
    for seed in seeds:
        positions = solved_connect_four_positions(game, num_positions, seed)
        for spec in specs:
            agent = agents.make(spec, game, seed=np.random.default_rng([seed, 0]))  # as `deckopt eval` seeds it
            reports[spec][seed] = kept_outcomes(agent, positions)
        sets[seed] = (reports[specs[0]][seed]["critical"], positions.skipped_too_hard)
    return reports, sets


def _share(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def table_lines(reports: dict, sets: dict, num_positions: int) -> list[str]:
    """The Markdown table: one row per agent, one column per seed, then all seeds together."""
    seeds = list(sets)
    head = [f"seed {s} ({sets[s][0]} critical, {sets[s][1]} skipped)" for s in seeds]
    lines = [
        f"| agent | {' | '.join(head)} | all {num_positions * len(seeds)} |",
        "|---" * (len(seeds) + 2) + "|",
    ]
    for spec, by_seed in reports.items():
        cells = [f"{r['kept']:.3f} ({_share(r['kept_critical'])})" for r in by_seed.values()]
        kept = sum(r["kept"] * r["positions"] for r in by_seed.values())
        critical = sum(r["critical"] for r in by_seed.values())
        kept_critical = sum(r["kept_critical"] * r["critical"] for r in by_seed.values() if r["critical"])
        total = f"{kept / (num_positions * len(seeds)):.3f} ({_share(kept_critical / critical if critical else None)})"
        lines.append(f"| `{spec}` | {' | '.join(cells)} | {total} |")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", metavar="SPEC", help="the agents checked")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 3, 5, 7, 9, 11, 13, 15])
    parser.add_argument("--positions", type=int, default=200, help="solved positions per seed")
    args = parser.parse_args(argv)
    reports, sets = kept_by_seed(args.specs, args.seeds, args.positions)
    print("\n".join(table_lines(reports, sets, args.positions)))


if __name__ == "__main__":
    main()
