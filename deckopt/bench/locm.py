"""`deckopt bench locm`: Legends of Code and Magic 1.2 in deckopt's engine and in gym-locm, side by side.

gym-locm 2.0.0b1 runs in its own environment (`make oracle`: `.venv-oracle`, Python 3.12) as a
subprocess, scripts/locm_gym_driver.py. Both engines play the very same games: the driver gives
each seed's chance (the draft's offers, each deck's shuffle) and the uniform picks its draft makes,
deckopt replays them, so both sides build the same decks and battle them with the same battler on
both seats, gym-locm's own or the field's port of it (agents/heuristics/locm_field.py). Per battler
(max-attack, greedy), timed in turn within each repeat:
- gym-locm, one game at a time (the seconds the driver measures around its games, no start-up);
- deckopt, games/locm.py one game at a time;
- deckopt, games/locm_batch.py with all the games of a batch stepped together (greedy's one-ply
  search as one batch of copies per step).
The ratios are deckopt's games/s over gym-locm's, medians of the repeats; `*_same_winner` counts
the games gym-locm played whose winner deckopt matched (gym-locm's greedy scores copies
made by its `State.clone()`, which plays 1.5 rules, so a few greedy games may part).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import games
from agents.heuristics.locm_field import BATTLERS, BATTLERS_BATCH
from deckopt.bench.timing import Timing
from games.errors import UserError
from games.locm import PICK
from games.locm_batch import LocmBatch

ROOT = Path(__file__).resolve().parents[2]
ORACLE_PYTHON = ROOT / ".venv-oracle" / "bin" / "python"
DRIVER = ROOT / "scripts" / "locm_gym_driver.py"
FIRST_SEED = 1_000_000
# per battler: games gym-locm and deckopt's single-game engine play per repeat, games in deckopt's batch
SIZES = {"max-attack": (1000, 8192), "greedy": (30, 2048)}


def driver(args: list[str], oracle_python: Path) -> str:
    command = [str(oracle_python), str(DRIVER), *args]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def chance_of(games_count: int, seed: int, oracle_python: Path) -> dict[str, np.ndarray]:
    """Offers (n, 30, 3), shuffles (n, 2, 30) and uniform picks (n, 60) of gym-locm's games of seeds
    seed, seed + 1, ..."""
    records = [
        json.loads(line)
        for line in driver(["--chance", "--games", str(games_count), "--seed", str(seed)], oracle_python).splitlines()
    ]
    return {key: np.array([r[key] for r in records]) for key in ("offers", "shuffles", "picks")}


def gym_locm(games_count: int, seed: int, battler: str, oracle_python: Path) -> tuple[float, list[int]]:
    """(seconds, winners) of gym-locm playing the games of seeds seed, seed + 1, ..."""
    out = json.loads(
        driver(["--time", "--games", str(games_count), "--seed", str(seed), "--battler", battler], oracle_python)
    )
    return out["seconds"], out["winners"]


def one_at_a_time(chance: dict[str, np.ndarray], battler: str) -> tuple[float, list[int]]:
    """(seconds, winners) of games/locm.py playing the games of `chance` one after another."""
    game = games.make("locm")
    act = BATTLERS[battler]
    winners = []
    start = time.perf_counter()
    for offers, shuffles, picks in zip(
        chance["offers"].tolist(), chance["shuffles"].tolist(), chance["picks"].tolist()
    ):
        state = game.state_from_chance(offers, shuffles)
        for k in picks:
            state.apply_action(PICK + k)
        while not state.is_terminal():
            state.apply_action(act(state, None))
        winners.append(int(np.argmax(state.returns())))
    return time.perf_counter() - start, winners


def together(chance: dict[str, np.ndarray], battler: str) -> tuple[float, list[int]]:
    """(seconds, winners) of games/locm_batch.py playing all the games of `chance` in lock-step."""
    act = BATTLERS_BATCH[battler]
    start = time.perf_counter()
    batch = LocmBatch.from_chance(games.make("locm"), chance["offers"], chance["shuffles"])
    every = np.arange(batch.size)
    for turn in range(chance["picks"].shape[1]):
        batch.apply_actions(every, PICK + chance["picks"][:, turn])
    live = every
    while len(live):
        batch.apply_actions(live, act(batch, live, None))
        live = np.flatnonzero(batch.phase == 1)
    return time.perf_counter() - start, batch.winner.tolist()


def run(
    progress: Callable[[int, int, str], None] | None = None,
    log: Callable[[str], None] | None = None,
    repeats: int = 3,
    sizes: dict[str, tuple[int, int]] | None = None,
    oracle_python: Path = ORACLE_PYTHON,
) -> dict:
    """The bench JSON: `{"bench": "locm", "results": [...], "ratios": {...}}`."""
    say = log or (lambda line: None)
    if not Path(oracle_python).exists():
        raise UserError(f"bench locm needs gym-locm's environment at {oracle_python}: run `make oracle`")
    sizes = sizes or SIZES
    results: list[dict] = [{"name": "cpu_count", "value": float(os.cpu_count() or 0), "unit": "cores"}]
    ratios: dict[str, float] = {}
    done, total = 0, repeats * 3 * len(sizes)
    for battler, (few, many) in sizes.items():
        chance = chance_of(max(few, many), FIRST_SEED, oracle_python)
        first = {key: value[:few] for key, value in chance.items()}
        timings = {side: Timing() for side in ("gym_locm", "deckopt", "deckopt_batch")}
        same = {}
        for r in range(repeats):
            for side, play, args, n in (
                ("gym_locm", gym_locm, (few, FIRST_SEED, battler, oracle_python), few),
                ("deckopt", one_at_a_time, (first, battler), few),
                ("deckopt_batch", together, (chance, battler), many),
            ):
                seconds, winners = play(*args)
                timings[side].seconds.append(seconds)
                timings[side].counts.append({"games": float(n)})
                if side == "gym_locm":
                    theirs = winners
                else:
                    same[side] = sum(a == b for a, b in zip(theirs, winners[:few]))
                say(f"{battler}: {side} repeat {r + 1}/{repeats}: {n} games in {seconds:.2f} s")
                done += 1
                if progress is not None:
                    progress(done, total, battler)
        for side, timing in timings.items():
            results.append({"name": f"{side}_{battler}_games_per_s", "value": timing.rate("games"), "unit": "games/s"})
        for side, count in same.items():
            results.append({"name": f"{side}_{battler}_same_winner", "value": float(count), "unit": f"of {few} games"})
        gym = timings["gym_locm"].rate("games")
        ratios[f"deckopt_vs_gym_locm_{battler}"] = timings["deckopt"].rate("games") / gym
        ratios[f"deckopt_batch_vs_gym_locm_{battler}"] = timings["deckopt_batch"].rate("games") / gym
    return {"bench": "locm", "results": results, "ratios": ratios}
