"""Time per move of mcts specs on the same positions (the pruning table's last column).

    time_per_move(game, ["mcts:300", "mcts:300,prune=uniform"], positions=40, seed=0)

Positions are the decisions (two or more legal actions) of random self-play games, drawn from
`seed`; every spec searches every position with the same search seed. Returns, per spec, the
median and mean CPU seconds per move (the process's time, which other jobs on a shared machine do not
inflate as they do wall time) and the mean number of root actions pruned.
"""

from __future__ import annotations

import time

import numpy as np

import agents


def sample_positions(game, count: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        state = game.new_initial_state(np.random.default_rng(int(rng.integers(2**63))))
        while not state.is_terminal() and len(positions) < count:
            legal = state.legal_actions()
            if len(legal) > 1 and rng.random() < 0.3:
                positions.append(state.clone())
            state.apply_action(legal[int(rng.integers(len(legal)))])
    return positions


def time_per_move(game, specs, positions: int, seed: int) -> dict[str, dict[str, float]]:
    states = sample_positions(game, positions, seed)
    out = {}
    for spec in specs:
        agent = agents.make(spec, game, seed)
        agent.search(states[0], np.random.default_rng(0))  # warm-up (the networks' tables)
        seconds, pruned = [], []
        for i, s in enumerate(states):
            t0 = time.process_time()
            result = agent.search(s, np.random.default_rng(seed + i))
            seconds.append(time.process_time() - t0)
            pruned.append(len(result.pruned))
        out[spec] = {
            "median_s": float(np.median(seconds)),
            "mean_s": float(np.mean(seconds)),
            "mean_pruned": float(np.mean(pruned)),
            "mean_actions": float(np.mean([len(s.legal_actions()) for s in states])),
        }
    return out
