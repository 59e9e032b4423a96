"""`deckopt bench engines`: random-playout speed of every game engine, and OpenSpiel's as a yardstick.

For each game (a game whose module is not there yet is skipped):
- lock-step: `arena.play_states` on 256 games at once with `RandomAgent`;
- vectorised (games with a vectorised engine, `Game.batch_class`): the same 256 games through
  `arena.play_batch` on that engine (building it from the fresh states included);
- one at a time: a plain loop of `legal_actions` / `apply_action` with a uniform choice;
- one at a time on the vectorised engine (games with one): the same loop on a batch of one game
  (`legal_masks` / `apply_actions`), what the scalar engine would cost if it were the vectorised
  engine's rules run on one game (the ratio `..._batch_of_one_vs_single`).
Where OpenSpiel (`pyspiel`) imports, the same one-at-a-time loop runs on its tic_tac_toe and
connect_four, and the ratios compare ours to it (above 1: ours is faster).

Every measure is time-boxed and repeated, interleaved with the others; the medians are reported.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

import games
from agents.arena import play_batch, play_states
from agents.base import RandomAgent
from deckopt.bench.timing import interleaved, ratio_of_rates
from games.registry import GAMES

OPEN_SPIEL_GAMES = ("tic_tac_toe", "connect_four")
LOCKSTEP_GAMES = 256


def single_work(new_state: Callable[[], object], rng: np.random.Generator, batch: int = 16):
    """`batch` random games one at a time: the loop a user would write around any State API."""

    def work() -> dict[str, int]:
        steps = 0
        for _ in range(batch):
            s = new_state()
            while not s.is_terminal():
                legal = s.legal_actions()
                s.apply_action(legal[int(rng.random() * len(legal))])
                steps += 1
        return {"games": batch, "steps": steps}

    return work


def lockstep_work(game: games.Game, rng: np.random.Generator, num_games: int):
    """`num_games` random games played together by the lock-step arena."""
    agent = RandomAgent(rng)

    def work() -> dict[str, int]:
        states = [game.new_initial_state(rng) for _ in range(num_games)]
        steps = play_states(states, [[0] * game.num_players] * num_games, [agent])
        return {"games": num_games, "steps": steps}

    return work


def vectorised_work(game: games.Game, rng: np.random.Generator, num_games: int):
    """The same random games as `lockstep_work`, on the game's vectorised engine."""
    agent = RandomAgent(rng)

    def work() -> dict[str, int]:
        batch = game.batch_class.from_states([game.new_initial_state(rng) for _ in range(num_games)])
        steps = play_batch(batch, [[0] * game.num_players] * num_games, [agent])
        return {"games": num_games, "steps": steps}

    return work


def batch_of_one_work(game: games.Game, rng: np.random.Generator, batch: int = 16):
    """`batch` random games one at a time on the game's vectorised engine, each a batch of one game."""
    one = np.zeros(1, dtype=np.int64)

    def work() -> dict[str, int]:
        steps = 0
        for _ in range(batch):
            b = game.batch_class.from_states([game.new_initial_state(rng)])
            while not b.is_terminal()[0]:
                legal = np.flatnonzero(b.legal_masks(one)[0])
                b.apply_actions(one, legal[int(rng.random() * len(legal))][None])
                steps += 1
        return {"games": batch, "steps": steps}

    return work


def open_spiel():
    """The `pyspiel` module, or None where OpenSpiel is not installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel


def run(
    progress: Callable[[int, int, str], None] | None = None,
    log: Callable[[str], None] | None = None,
    seconds: float = 0.5,
    repeats: int = 3,
    seed: int = 0,
    game_names: tuple[str, ...] | None = None,
    lockstep_games: int = LOCKSTEP_GAMES,
) -> dict:
    """The bench JSON: `{"bench": "engines", "results": [...], "ratios": {...}}`. Each measure runs
    `repeats` times for `seconds` each."""
    say = log or (lambda line: None)
    rng = np.random.default_rng(seed)
    results: list[dict] = [{"name": "cpu_count", "value": float(os.cpu_count() or 0), "unit": "cores"}]
    ratios: dict[str, float] = {}
    pyspiel = open_spiel()
    if pyspiel is None:
        say("open_spiel not importable: no OpenSpiel comparison")
    for name in game_names or tuple(GAMES):  # our engines (a plug-in game is not benchmarked)
        game = games.make(name)
        works = {
            name + "_lockstep": lockstep_work(game, rng, lockstep_games),
            name + "_single": single_work(lambda game=game: game.new_initial_state(rng), rng),
        }
        if game.batch_class is not None:
            works[name + "_vectorised"] = vectorised_work(game, rng, lockstep_games)
            works[name + "_batch_of_one"] = batch_of_one_work(game, rng)
        if pyspiel is not None and name in OPEN_SPIEL_GAMES:
            works[f"open_spiel_{name}_single"] = single_work(pyspiel.load_game(name).new_initial_state, rng)
        say(f"{name}: {', '.join(works)} ({repeats} x {seconds:g} s each)")
        timings = interleaved(works, repeats, min_seconds=seconds, progress=progress, what=name)
        for key, timing in timings.items():
            results.append({"name": f"{key}_games_per_s", "value": timing.rate("games"), "unit": "games/s"})
            results.append({"name": f"{key}_steps_per_s", "value": timing.rate("steps"), "unit": "steps/s"})
        if name + "_vectorised" in timings:
            ratios[f"{name}_vectorised_vs_lockstep"] = ratio_of_rates(
                timings, name + "_vectorised", name + "_lockstep", "games"
            )
        if name + "_batch_of_one" in timings:
            ratios[f"{name}_batch_of_one_vs_single"] = ratio_of_rates(
                timings, name + "_batch_of_one", name + "_single", "games"
            )
        theirs = f"open_spiel_{name}_single"
        if theirs in timings:
            ratios[f"{name}_vs_open_spiel"] = ratio_of_rates(timings, name + "_single", theirs, "games")
            ratios[f"{name}_lockstep_vs_open_spiel"] = ratio_of_rates(timings, name + "_lockstep", theirs, "games")
    return {"bench": "engines", "results": results, "ratios": ratios}
