"""Two agents, one game at a time, with each agent's thinking time per move measured on its own.

    python scripts/match_timing.py connect_four az:pretrained mcts:1000 --games 200 --seed 0

`deckopt match` plays many games in lock-step batches, so it cannot tell how long one agent thinks
about one position. This script plays the games one after another, the first agent in seat 0 in the
even games and in seat 1 in the odd ones, game g's chance from `numpy.random.default_rng([seed, g])`,
and times every call of an agent's `act` on its one state. It prints the first agent's wins, draws and
losses, its win rate and score with 95 % Wilson intervals, and the mean wall seconds per move of each
agent. Two-player games only.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages, whatever is installed

import agents  # noqa: E402
import games  # noqa: E402
from agents.stats import Record  # noqa: E402


def play(game_name: str, spec_a: str, spec_b: str, num_games: int, seed: int) -> dict:
    """The first agent's record and both agents' mean seconds per move over `num_games` games."""
    game = games.make(game_name)
    if game.num_players != 2:
        raise SystemExit(f"match_timing: {game_name} has {game.num_players} players; this script takes two")
    pair = [agents.make(spec_a, game, seed=seed), agents.make(spec_b, game, seed=seed + 1)]
    record, seconds, moves = Record(), [0.0, 0.0], [0, 0]
    for g in range(num_games):
        seat_of_a = g % 2
        state = game.new_initial_state(np.random.default_rng([seed, g]))
        while not state.is_terminal():
            who = 0 if state.current_player == seat_of_a else 1
            start = time.perf_counter()
            action = int(pair[who].act([state])[0])
            seconds[who] += time.perf_counter() - start
            moves[who] += 1
            state.apply_action(action)
        record.add(int(np.sign(state.returns()[seat_of_a])))
    return {
        "record": record,
        "seconds_per_move": [s / m if m else 0.0 for s, m in zip(seconds, moves)],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("spec_a", metavar="SPEC_A")
    parser.add_argument("spec_b", metavar="SPEC_B")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    out = play(args.game, args.spec_a, args.spec_b, args.games, args.seed)
    r, (sa, sb) = out["record"], out["seconds_per_move"]
    print(
        f"{args.spec_a} vs {args.spec_b}, {r.games} games: {r.wins}-{r.draws}-{r.losses}, "
        f"win rate {r.win_rate:.3f} [{r.ci95[0]:.3f}, {r.ci95[1]:.3f}], "
        f"score {r.score:.3f} [{r.score_ci95[0]:.3f}, {r.score_ci95[1]:.3f}]; "
        f"s/move {sa:.3f} / {sb:.3f}"
    )


if __name__ == "__main__":
    main()
