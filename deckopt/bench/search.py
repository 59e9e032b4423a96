"""`deckopt bench search`: MCTS simulations per second, ours and OpenSpiel's, in the same run.

Connect Four, the same positions and the same budget for both: 8 positions reached by random
openings of 0 to 7 moves (seeded), 1 000 simulations per search, UCT with c = 1.4, one random
rollout per leaf, solver on (OpenSpiel's MCTSBot default; ours too). Ours is `agents.search.uct` on our
engine; OpenSpiel's is its Python `open_spiel.python.algorithms.mcts.MCTSBot` with
`RandomRolloutEvaluator` on its C++ `connect_four` (where `pyspiel` imports). A rate is the
simulations actually run (the roots stay unproven this early) over the wall time of all searches;
each is the median of 3 interleaved repeats (ours, theirs, ours, ...), so load changes hit both.
`mcts_vs_open_spiel` = ours / theirs (above 1: ours is faster).

Also measured (no yardstick): the determinized search on the default game of deck evolution (Gwent
Lite) and on Incan Gold, whose simulations each start with `resample_hidden`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

import games
from agents.search.mcts_spec import MCTSConfig
from agents.search.uct import MCTSAgent
from deckopt.bench.timing import interleaved, ratio_of_rates
from evolution.decks.settings_registry import DEFAULT_GAME

POSITIONS = 8
SIMULATIONS = 1000
UCT_C = 1.4
REPEATS = 3
HIDDEN_SIMULATIONS = 300
HIDDEN_POSITIONS = 4
#: the hidden-information games of the determinized search (the default deck game and Incan Gold)
HIDDEN_GAMES = (DEFAULT_GAME, "incan_gold")


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


def positions(game, openings: list[list[int]]) -> list:
    """The start positions: each opening's moves played from the initial state (either engine)."""
    states = []
    for moves in openings:
        s = game.new_initial_state()
        for a in moves:
            s.apply_action(a)
        states.append(s)
    return states


def our_searches(game, states: list, simulations: int) -> Callable[[], int]:
    """A work that searches every state once with a fresh agent (seeded by the repeat), counting
    the simulations run."""
    seeds = itertools.count()

    def work() -> int:
        agent = MCTSAgent(game, np.random.default_rng(next(seeds)), MCTSConfig(simulations=simulations, c=UCT_C))
        return sum(agent.search(s).simulations for s in states)

    return work


def open_spiel_searches(openings: list[list[int]], simulations: int) -> Callable[[], int] | None:
    """The same for OpenSpiel's MCTSBot on its own engine; None where OpenSpiel is not installed."""
    try:
        import pyspiel
        from open_spiel.python.algorithms import mcts as os_mcts
    except ImportError:
        return None
    game = pyspiel.load_game("connect_four")
    states = positions(game, openings)
    seeds = itertools.count()

    def work() -> int:
        random_state = np.random.RandomState(next(seeds))
        evaluator = os_mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state)
        bot = os_mcts.MCTSBot(game, UCT_C, simulations, evaluator, solve=True, random_state=random_state)
        return sum(bot.mcts_search(s).explore_count for s in states)

    return work


def run(progress: Callable[[int, int, str], None] | None = None, log: Callable[[str], None] | None = None) -> dict:
    say = log or (lambda line: None)
    connect_four = games.make("connect_four")
    openings = opening_moves(count=POSITIONS)
    works = {"ours": our_searches(connect_four, positions(connect_four, openings), SIMULATIONS)}
    theirs = open_spiel_searches(openings, SIMULATIONS)
    if theirs is None:
        say("open_spiel is not installed: no yardstick (pip install open_spiel)")
    else:
        works["open_spiel"] = theirs
    say(f"connect_four mcts:{SIMULATIONS} x {len(openings)} positions: {', '.join(works)}, {REPEATS} repeats")
    timings = interleaved(works, REPEATS, progress=progress, what="connect_four mcts")
    results = [{"name": "mcts_connect_four", "value": timings["ours"].rate(), "unit": "simulations/s"}]
    ratios = {}
    if "open_spiel" in timings:
        results.append(
            {"name": "open_spiel_mcts_connect_four", "value": timings["open_spiel"].rate(), "unit": "simulations/s"}
        )
        ratios["mcts_vs_open_spiel"] = ratio_of_rates(timings, "ours", "open_spiel")
    hidden = {}
    for name in HIDDEN_GAMES:
        game = games.make(name)
        starts = [game.new_initial_state(np.random.default_rng([0, i])) for i in range(HIDDEN_POSITIONS)]
        hidden[name] = our_searches(game, starts, HIDDEN_SIMULATIONS)
    say(f"{', '.join(HIDDEN_GAMES)}: determinized mcts:{HIDDEN_SIMULATIONS}, {REPEATS} repeats")
    timings = interleaved(hidden, REPEATS, progress=progress, what="determinized mcts")
    for name, timing in timings.items():
        results.append({"name": f"mcts_{name}", "value": timing.rate(), "unit": "simulations/s"})
    return {"bench": "search", "results": results, "ratios": ratios}
