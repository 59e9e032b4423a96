"""`deckopt bench evolution`: one ancestor-sized generation, ours against the ancestor's way.

The generation: 30 random legal decks, population round robin, 10 games per pair (5 mirrored
deals), 4350 games, played by the shipped Gwent Lite agent (the heuristic if none is installed),
each task one batch of Gwent Lite's vectorised engine as in a run,
timed with 1 and 2 worker processes, interleaved (medians of repeats; the worker pools are warmed
up first, as they are in a run where they serve every generation). On a shared machine the
wall-clock efficiency only means something next to `machine_speedup_2_processes` (what two
processes of plain Python get here at the same moment); `parallel_cpu_efficiency` is the share of
the 2-job CPU time that is useful.

The ancestor's way (`bench.ancestor`: one game at a time, one eager Keras call per move, as its
genetic_algorithm.py did) plays a sample of the same deals; its seconds per move times the moves our
agent needs for the generation extrapolate to the whole generation. The Keras model carries the
shipped agent's weights when there is one (so it plays the very same moves), else the ancestor's
architecture (3 x 200 relu, tanh output) with random weights.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

import games
from agents.arena import play_batch
from agents.parallel import Mapper
from deckopt.bench import ancestor
from deckopt.bench.timing import interleaved
from evolution.config import EvolveConfig
from evolution.decks import genome
from evolution.decks.gwent_settings import GwentSettings
from evolution.scoring import fitness
from evolution.spaces.gwent import GwentDeal
from evolution.spaces.gwent import build_agent as gwent_agent
from games.batch import batch_of
from games.decks import DeckRules
from games.errors import UserError

POOL = 30
GAMES_PER_PAIR = 10
ANCESTOR_SAMPLE_PAIRINGS = 6  # x 5 deals x 2 games = 60 games the ancestor's way
REPEATS = 3


# --- the one place this bench reaches into evolution's internals (update here when they move) ------
def generation(pool: int, games_per_pair: int, seed: int = 0):
    """(pairings, rules) of one round-robin generation of `pool` random legal decks."""

    rules = DeckRules()
    rng = np.random.default_rng(seed)
    decks = [tuple(genome.random_deck(rules, rng)) for _ in range(pool)]
    pairings, _ = fitness.round_robin(decks, games_per_pair // 2, seed, fitness.STAGE_EVOLVE, 0)
    return pairings, rules


def build_agent(rules) -> tuple[object, str]:
    """(the agent, its spec): the shipped Gwent Lite agent, else the heuristic."""

    try:
        return gwent_agent("pretrained", rules), "pretrained"
    except UserError:
        return gwent_agent("heuristic", rules), "heuristic"


def generation_tasks(pairings, agent, rules) -> list[tuple]:
    """The (agent, task) arguments of `timed_task` for the generation, grouped as in a default run."""

    return fitness.make_tasks(
        pairings, agent, GwentDeal(rules), EvolveConfig().games_per_task, (0, fitness.STAGE_EVOLVE, 0)
    )


def timed_task(agent, task) -> tuple[float, object]:
    """A worker's task, also returning its CPU seconds (to separate overhead from contention)."""

    t0 = time.process_time()
    out = fitness.play_task(agent, task)
    return time.process_time() - t0, out


def mapper(jobs: int):

    return Mapper(jobs)


def pairing_games(pairings) -> int:
    return sum(p.games for p in pairings)


def deal_states(pairings, rules) -> list:
    """Every game of the pairings at its start: each deal, then its mirror (decks swapped)."""

    states = []
    for p in pairings:
        g_ab = games.make(GwentSettings.game, decks=[p.a, p.b], rules=rules)
        g_ba = games.make(GwentSettings.game, decks=[p.b, p.a], rules=rules)
        for s in fitness.deal_seeds(p.key, p.deals):
            states += [g_ab.new_initial_state(s), g_ba.new_initial_state(s)]
    return states


# --- end of evolution internals ---------------------------------------------------------------------


def our_moves(states: list, agent) -> int:
    """The moves `agent` needs to play `states` (on copies, through the vectorised engine)."""

    return play_batch(batch_of(states), [(0, 0)] * len(states), [agent])


def _burn(n: int) -> float:
    t0 = time.process_time()
    s = 0
    for i in range(n):
        s += i
    return time.process_time() - t0


def machine_speedup(pmap1, pmap2) -> float:
    """Speedup of 2 worker processes over 1 on pure CPU work, now: 2.0 on two free cores, about
    1.0 when other jobs hold one of them. Our speedup can only be judged against it."""
    items = [(2_000_000,)] * 8
    t0 = time.perf_counter()
    pmap1(_burn, items)
    t1 = time.perf_counter() - t0
    t0 = time.perf_counter()
    pmap2(_burn, items)
    return t1 / (time.perf_counter() - t0)


def time_generation(tasks: list, games_total: int, repeats: int, progress=None, log=None) -> tuple[dict, float]:
    """(timings of "jobs1" and "jobs2", interleaved, counting games and CPU seconds; the machine's
    2-process speedup measured right after)."""
    with mapper(1) as pmap1, mapper(2) as pmap2:

        def work(pmap, jobs: int) -> Callable[[], dict]:
            def play() -> dict:
                c0 = time.process_time()
                results = pmap(timed_task, tasks)
                # the parent's CPU counts only when the work runs elsewhere
                cpu = sum(c for c, _ in results) + (time.process_time() - c0 if jobs > 1 else 0.0)
                return {"games": games_total, "cpu_seconds": cpu}

            return play

        works = {"jobs1": work(pmap1, 1), "jobs2": work(pmap2, 2)}
        for pmap in (pmap1, pmap2):
            pmap(timed_task, tasks[:2])  # warm the workers (a run reuses them every generation)
        timings = interleaved(works, repeats, progress=progress, log=log, what="generation")
        return timings, machine_speedup(pmap1, pmap2)


def ancestor_way(sample: list, pairings: list, rules, agent, say: Callable[[str], None]) -> tuple[float, float, int]:
    """(the ancestor's way's seconds per move on the sample, its moves over ours there, our moves
    in the whole generation): its time per move times our moves extrapolates it to the generation."""
    seconds, moves, what = time_ancestor(deal_states(sample, rules), agent)
    our_sample = our_moves(deal_states(sample, rules), agent)
    our_generation = our_moves(deal_states(pairings, rules), agent)
    per_move = seconds / moves
    say(
        f"ancestor way: {per_move * 1000:.2f} ms per move ({what}); {our_generation / pairing_games(pairings):.1f} "
        f"moves per game -> {per_move * our_generation:.0f} s per generation"
    )
    return per_move, moves / our_sample, our_generation


def time_ancestor(states: list, agent) -> tuple[float, int, str]:
    """(seconds, moves, what model) playing `states` the ancestor's way, one game after another."""
    model, what = ancestor.keras_model(states[0].game, getattr(agent, "network", None))
    ancestor.warm_up(model, states[0].clone())
    seconds, moves = 0.0, 0
    for state in states:
        t0 = time.perf_counter()
        moves += ancestor.play_game(model, state)
        seconds += time.perf_counter() - t0
    return seconds, moves, what


def run(
    progress: Callable[[int, int, str], None] | None = None,
    log: Callable[[str], None] | None = None,
    repeats: int = REPEATS,
    pool: int = POOL,
    games_per_pair: int = GAMES_PER_PAIR,
    sample_pairings: int = ANCESTOR_SAMPLE_PAIRINGS,
) -> dict:
    say = log or (lambda line: None)
    pairings, rules = generation(pool, games_per_pair)
    games_total = pairing_games(pairings)
    agent, spec = build_agent(rules)
    say(f"agent: {spec}; one generation = {len(pairings)} pairings, {games_total} games")
    tasks = generation_tasks(pairings, agent, rules)
    timings, machine = time_generation(tasks, games_total, repeats, progress, log)
    say(f"2 processes run pure-Python work {machine:.2f}x as fast as 1 on this machine right now")
    seconds = {jobs: timings[f"jobs{jobs}"].median_seconds for jobs in (1, 2)}
    cpu = {jobs: timings[f"jobs{jobs}"].median("cpu_seconds") for jobs in (1, 2)}

    sample = pairings[:: max(1, len(pairings) // sample_pairings)][:sample_pairings]
    say(f"the ancestor's way: {pairing_games(sample)} games, one eager Keras call per move ...")
    per_move, moves_vs_ours, our_moves_generation = ancestor_way(sample, pairings, rules, agent, say)
    ancestor_generation = per_move * our_moves_generation
    return {
        "bench": "evolution",
        "agent": spec,
        "results": [
            {"name": "generation_games", "value": float(games_total), "unit": "games"},
            {"name": "generation_seconds_jobs1", "value": seconds[1], "unit": "s"},
            {"name": "generation_seconds_jobs2", "value": seconds[2], "unit": "s"},
            {"name": "games_per_second_jobs2", "value": games_total / seconds[2], "unit": "games/s"},
            {"name": "ancestor_way_ms_per_move", "value": per_move * 1000, "unit": "ms"},
            {"name": "ancestor_way_sample_games", "value": float(pairing_games(sample)), "unit": "games"},
            {"name": "ancestor_way_generation_seconds_extrapolated", "value": ancestor_generation, "unit": "s"},
            {"name": "moves_per_game", "value": our_moves_generation / games_total, "unit": "moves"},
            {"name": "generation_cpu_seconds_jobs1", "value": cpu[1], "unit": "s"},
            {"name": "generation_cpu_seconds_jobs2", "value": cpu[2], "unit": "s"},
            {"name": "machine_speedup_2_processes", "value": machine, "unit": "x"},
            # the same network in Keras and in numpy rounds differently, so a rare near-tie goes the
            # other way and a game runs a move longer or shorter: this ratio stays within a percent
            {"name": "ancestor_way_moves_vs_ours", "value": moves_vs_ours, "unit": "x"},
        ],
        "ratios": {
            "evolution_vs_ancestor": ancestor_generation / seconds[2],
            "evolution_jobs1_vs_ancestor": ancestor_generation / seconds[1],
            "parallel_efficiency": seconds[1] / (2 * seconds[2]),
            # the same speedup measured against what two processes get here now (1.0 = as good as
            # the machine allows), and the share of the 2-job CPU time that is useful work
            "parallel_efficiency_of_available_cores": (seconds[1] / seconds[2]) / machine,
            "parallel_cpu_efficiency": cpu[1] / cpu[2],
        },
    }
