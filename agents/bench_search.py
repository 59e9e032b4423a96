"""`deckopt bench search`: MCTS simulations per second, ours and OpenSpiel's, in the same run.

Connect Four, the same positions and the same budget for both: 8 positions reached by random
openings of 0 to 7 moves (seeded), 1 000 simulations per search, UCT with c = 1.4, one random
rollout per leaf, solver on (OpenSpiel's MCTSBot default; ours too). Ours is `agents.mcts` on our
engine; OpenSpiel's is its Python `open_spiel.python.algorithms.mcts.MCTSBot` with
`RandomRolloutEvaluator` on its C++ `connect_four` (where `pyspiel` imports). A rate is the
simulations actually run (the roots stay unproven this early) over the wall time of all searches;
each is the median of 3 repeats, alternating ours and theirs so load changes hit both.
`mcts_vs_open_spiel` = ours / theirs (above 1: ours is faster).

Also measured (no yardstick): the determinized search on Gwent Lite and Incan Gold, whose
simulations each start with `resample_hidden`.
"""
from __future__ import annotations

import statistics
import time
from typing import Callable

import numpy as np

import games
from agents.mcts import MCTSAgent, MCTSConfig

POSITIONS = 8
SIMULATIONS = 1000
UCT_C = 1.4
REPEATS = 3
HIDDEN_SIMULATIONS = 300


def opening_moves(seed: int = 0, count: int = POSITIONS) -> list[list[int]]:
    """Random Connect Four openings of 0..count-1 moves (none of them finished)."""
    game = games.make("connect_four")
    rng = np.random.default_rng(seed)
    out = []
    for n in range(count):
        while True:
            s = game.new_initial_state()
            moves = []
            for _ in range(n):
                a = int(rng.choice(s.legal_actions()))
                s.apply_action(a)
                moves.append(a)
            if not s.is_terminal():
                break
        out.append(moves)
    return out


def _positions(game, openings: list[list[int]]) -> list:
    """The start positions: each opening's moves played from the initial state (either engine)."""
    states = []
    for moves in openings:
        s = game.new_initial_state()
        for a in moves:
            s.apply_action(a)
        states.append(s)
    return states


def ours_rate(openings: list[list[int]], simulations: int = SIMULATIONS, seed: int = 0) -> float:
    game = games.make("connect_four")
    agent = MCTSAgent(game, np.random.default_rng(seed), MCTSConfig(simulations=simulations, c=UCT_C))
    states = _positions(game, openings)
    sims = 0
    t0 = time.perf_counter()
    for s in states:
        sims += agent.search(s).simulations
    return sims / (time.perf_counter() - t0)


def open_spiel_rate(openings: list[list[int]], simulations: int = SIMULATIONS, seed: int = 0) -> float | None:
    try:
        import pyspiel
        from open_spiel.python.algorithms import mcts as os_mcts
    except ImportError:
        return None
    game = pyspiel.load_game("connect_four")
    random_state = np.random.RandomState(seed)
    evaluator = os_mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state)
    bot = os_mcts.MCTSBot(game, UCT_C, simulations, evaluator, solve=True, random_state=random_state)
    states = _positions(game, openings)
    sims = 0
    t0 = time.perf_counter()
    for s in states:
        sims += bot.mcts_search(s).explore_count
    return sims / (time.perf_counter() - t0)


def hidden_rate(name: str, simulations: int = 300, positions: int = 4, seed: int = 0) -> float:
    """Determinized search from the first decision of a few seeded games."""
    game = games.make(name)
    agent = MCTSAgent(game, np.random.default_rng(seed), MCTSConfig(simulations=simulations, c=UCT_C))
    states = [game.new_initial_state(np.random.default_rng([seed, i])) for i in range(positions)]
    sims = 0
    t0 = time.perf_counter()
    for s in states:
        sims += agent.search(s).simulations
    return sims / (time.perf_counter() - t0)


def run(progress: Callable[[str], None] | None = None) -> dict:
    say = progress or (lambda message: None)
    openings = opening_moves(count=POSITIONS)
    ours: list[float] = []
    theirs: list[float] = []
    for r in range(REPEATS):
        say(f"connect_four mcts:{SIMULATIONS} x {len(openings)} positions, ours (repeat {r + 1}/{REPEATS})")
        ours.append(ours_rate(openings, SIMULATIONS, seed=r))
        say(f"connect_four, OpenSpiel MCTSBot (repeat {r + 1}/{REPEATS})")
        rate = open_spiel_rate(openings, SIMULATIONS, seed=r)
        if rate is not None:
            theirs.append(rate)
    results = [{"name": "mcts_connect_four", "value": statistics.median(ours), "unit": "simulations/s"}]
    ratios = {}
    if theirs:
        results.append({"name": "open_spiel_mcts_connect_four", "value": statistics.median(theirs), "unit": "simulations/s"})
        ratios["mcts_vs_open_spiel"] = statistics.median(o / t for o, t in zip(ours, theirs))
    else:
        say("open_spiel is not installed: no yardstick (pip install open_spiel)")
    for name in ("gwent_lite", "incan_gold"):
        say(f"{name}: determinized mcts:{HIDDEN_SIMULATIONS}")
        rates = [hidden_rate(name, HIDDEN_SIMULATIONS, seed=r) for r in range(REPEATS)]
        results.append({"name": f"mcts_{name}", "value": statistics.median(rates), "unit": "simulations/s"})
    return {"bench": "search", "results": results, "ratios": ratios}
