"""How long agents think about one position at a time, on the same positions (CPU seconds).

    python scripts/results/thinking_time.py connect_four mcts:1000 az:dqn,sims=200 --positions 24 --repeats 3

The positions are random openings of 0 to `--max-opening` uniformly random moves (none ending the
game) from `numpy.random.default_rng(seed)`. Each repeat times every agent's `act` on every position,
one state at a time, the agents taking turns position by position. The time is the process's CPU time
(`time.process_time`), which other jobs on a shared machine do not inflate as they do wall time.
Prints one Markdown row per agent: its mean CPU seconds per move in each repeat and the median over the
repeats.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's packages, whatever is installed

import agents  # noqa: E402
import games  # noqa: E402


def random_openings(game, num_positions: int, max_opening: int, seed: int) -> list:
    """`num_positions` states after 0..`max_opening` uniformly random moves, none of them terminal."""
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < num_positions:
        state = game.new_initial_state(rng)
        for _ in range(int(rng.integers(0, max_opening + 1))):
            state.apply_action(int(rng.choice(state.legal_actions())))
            if state.is_terminal():
                break
        if not state.is_terminal():
            states.append(state)
    return states


def seconds_per_move(game_name: str, specs: list[str], num_positions: int, max_opening: int, repeats: int, seed: int):
    """{spec: [mean CPU seconds per move of each repeat]}."""
    game = games.make(game_name)
    states = random_openings(game, num_positions, max_opening, seed)
    players = {spec: agents.make(spec, game, seed=seed) for spec in specs}
    times: dict[str, list[float]] = {spec: [] for spec in specs}
    for _ in range(repeats):
        spent = dict.fromkeys(specs, 0.0)
        for state in states:
            for spec, agent in players.items():
                start = time.process_time()
                agent.act([state])
                spent[spec] += time.process_time() - start
        for spec in specs:
            times[spec].append(spent[spec] / len(states))
    return times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("specs", nargs="+", metavar="SPEC", help="the agents timed")
    parser.add_argument("--positions", type=int, default=24)
    parser.add_argument("--max-opening", type=int, default=7, help="most random moves before a position")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    times = seconds_per_move(args.game, args.specs, args.positions, args.max_opening, args.repeats, args.seed)
    print(f"| agent | CPU s/move in each repeat ({args.positions} positions) | median |")
    print("|---|---|---|")
    for spec, per_repeat in times.items():
        print(f"| `{spec}` | {' / '.join(f'{t:.3f}' for t in per_repeat)} | {statistics.median(per_repeat):.3f} |")


if __name__ == "__main__":
    main()
