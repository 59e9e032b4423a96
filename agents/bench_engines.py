"""`deckopt bench engines`: random-playout speed of every game engine, and OpenSpiel's as a yardstick.

For each game (a game whose module is not there yet is skipped):
- lock-step: `arena.play_states` on 256 games at once with `RandomAgent`;
- one at a time: a plain loop of `legal_actions` / `apply_action` with a uniform choice.
Where OpenSpiel (`pyspiel`) imports, the same one-at-a-time loop runs on its tic_tac_toe and
connect_four, and the ratios compare ours to it (above 1: ours is faster).

Every measure is time-boxed and repeated; the median is reported (the machine is shared and noisy).
"""
from __future__ import annotations

import importlib
import os
import statistics
import time
from typing import Callable

import numpy as np

import games
from agents.arena import play_states
from agents.base import RandomAgent

OPEN_SPIEL_GAMES = ("tic_tac_toe", "connect_four")
LOCKSTEP_GAMES = 256


def _timed(one_round: Callable[[], tuple[int, int]], seconds: float) -> tuple[float, float]:
    """Run `one_round() -> (games, steps)` until `seconds` have passed (at least once);
    returns (games/s, steps/s)."""
    n_games = n_steps = 0
    t0 = time.perf_counter()
    while True:
        g, s = one_round()
        n_games += g
        n_steps += s
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return n_games / elapsed, n_steps / elapsed


def _median_rates(rounds: dict[str, Callable[[], tuple[int, int]]], seconds: float, repeats: int) -> dict:
    """Median (games/s, steps/s) of each round function; the repeats are interleaved (a, b, a, b...)
    so that a change in the machine's load hits every measure alike and ratios stay fair."""
    runs: dict[str, list[tuple[float, float]]] = {key: [] for key in rounds}
    for _ in range(repeats):
        for key, one_round in rounds.items():
            runs[key].append(_timed(one_round, seconds))
    return {
        key: (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs)) for key, rs in runs.items()
    }


def _single_round(new_state: Callable[[], object], rng: np.random.Generator, batch: int = 16):
    """`batch` random games one at a time: the loop a user would write around any State API."""

    def one_round() -> tuple[int, int]:
        steps = 0
        for _ in range(batch):
            s = new_state()
            while not s.is_terminal():
                legal = s.legal_actions()
                s.apply_action(legal[int(rng.random() * len(legal))])
                steps += 1
        return batch, steps

    return one_round


def _lockstep_round(game: games.Game, rng: np.random.Generator, num_games: int):
    agent = RandomAgent(rng)

    def one_round() -> tuple[int, int]:
        states = [game.new_initial_state(rng) for _ in range(num_games)]
        steps = play_states(states, [[0] * game.num_players] * num_games, [agent])
        return num_games, steps

    return one_round


def _make_game(name: str) -> games.Game | None:
    """The game with its default config, or None while its engine is not written yet."""
    module = games._REGISTRY[name].split(":")[0]
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return None
        raise
    return games.make(name)


def _open_spiel():
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel


def run(
    progress: Callable[[str], None] | None = None,
    seconds: float = 0.5,
    repeats: int = 3,
    seed: int = 0,
    game_names: tuple[str, ...] | None = None,
    lockstep_games: int = LOCKSTEP_GAMES,
) -> dict:
    """The bench JSON: `{"bench": "engines", "results": [...], "ratios": {...}}`. Each measure runs
    `repeats` times for `seconds` each; `progress(message)` hears about each step."""
    say = progress or (lambda message: None)
    rng = np.random.default_rng(seed)
    results: list[dict] = [{"name": "cpu_count", "value": float(os.cpu_count() or 0), "unit": "cores"}]
    ratios: dict[str, float] = {}

    def record(name: str, games_per_s: float, steps_per_s: float) -> None:
        results.append({"name": f"{name}_games_per_s", "value": games_per_s, "unit": "games/s"})
        results.append({"name": f"{name}_steps_per_s", "value": steps_per_s, "unit": "steps/s"})

    pyspiel = _open_spiel()
    if pyspiel is None:
        say("open_spiel not importable: no OpenSpiel comparison")
    for name in game_names or games.GAME_NAMES:
        game = _make_game(name)
        if game is None:
            say(f"{name}: engine not available yet, skipped")
            continue
        rounds = {
            "lockstep": _lockstep_round(game, rng, lockstep_games),
            "single": _single_round(lambda game=game: game.new_initial_state(rng), rng),
        }
        if pyspiel is not None and name in OPEN_SPIEL_GAMES:
            rounds["open_spiel"] = _single_round(pyspiel.load_game(name).new_initial_state, rng)
        say(f"{name}: {', '.join(rounds)} ({repeats} x {seconds:g} s each)")
        rates = _median_rates(rounds, seconds, repeats)
        record(f"{name}_lockstep", *rates["lockstep"])
        record(f"{name}_single", *rates["single"])
        if "open_spiel" in rates:
            record(f"open_spiel_{name}_single", *rates["open_spiel"])
            ratios[f"{name}_vs_open_spiel"] = rates["single"][0] / rates["open_spiel"][0]
            ratios[f"{name}_lockstep_vs_open_spiel"] = rates["lockstep"][0] / rates["open_spiel"][0]

    return {"bench": "engines", "results": results, "ratios": ratios}
