"""`deckopt bench alphazero`: PUCT simulations per second with the leaves of many searches scored in
one network call, against one network call per leaf, in the same run.

Connect Four, 32 positions reached by random openings of 0 to 7 moves (seeded, as `bench search`),
100 simulations per search, c = 1.5, a network of the Connect Four default shape (3 x 256 ReLU,
seeded random weights: the speed does not depend on what it learned). Batched: the 32 searches run
in lock-step (agents.search.puct), so each round is one forward pass of 32 leaves. Per leaf:
the same searches, one forward pass of one leaf at a time. Each rate is the median of 3 interleaved
repeats. `az_batched_vs_per_leaf` = batched / per leaf (above 1: batching is faster).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import games
from agents.learned import NumpyNetwork
from agents.search.evaluators import network_evaluator
from agents.search.puct import puct_search
from deckopt.bench.search import opening_moves, positions
from deckopt.bench.timing import interleaved, ratio_of_rates

POSITIONS = 32
OPENING_MOVES = 8
SIMULATIONS = 100
C_PUCT = 1.5
HIDDEN = (256, 256, 256)
REPEATS = 3


def random_network(game, hidden=HIDDEN, seed: int = 0) -> NumpyNetwork:
    rng = np.random.default_rng(seed)
    sizes = [game.observation_size, *hidden, game.num_actions + 1]
    weights = []
    for a, b in zip(sizes, sizes[1:]):
        weights += [rng.normal(0, np.sqrt(2 / a), (a, b)).astype(np.float32), np.zeros(b, np.float32)]
    return NumpyNetwork(weights, ["relu"] * len(hidden) + ["linear"])


def searches(states: list, evaluate, batched: bool) -> Callable[[], int]:
    def work() -> int:
        rngs = [np.random.default_rng(i) for i in range(len(states))]
        visits = puct_search(states, evaluate, SIMULATIONS, C_PUCT, rngs, batched=batched)
        return int(sum(v.sum() for v in visits))

    return work


def run(progress: Callable[[int, int, str], None] | None = None, log: Callable[[str], None] | None = None) -> dict:
    say = log or (lambda line: None)
    game = games.make("connect_four")
    openings = [m for i in range(POSITIONS // OPENING_MOVES) for m in opening_moves(seed=i, count=OPENING_MOVES)]
    states = positions(game, openings[:POSITIONS])
    evaluate = network_evaluator(game, random_network(game))
    works = {"batched": searches(states, evaluate, True), "per_leaf": searches(states, evaluate, False)}
    say(f"connect_four puct {SIMULATIONS} simulations x {len(states)} positions, {REPEATS} repeats")
    timings = interleaved(works, REPEATS, progress=progress, what="alphazero search")
    results = [
        {"name": f"az_{key}_connect_four", "value": timing.rate(), "unit": "simulations/s"}
        for key, timing in timings.items()
    ]
    return {
        "bench": "alphazero",
        "results": results,
        "ratios": {"az_batched_vs_per_leaf": ratio_of_rates(timings, "batched", "per_leaf")},
    }
