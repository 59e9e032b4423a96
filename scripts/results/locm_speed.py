"""LOCM 1.2 games per second in one process: gym-locm 2.0.0b1 (under the oracle environment, `make
oracle`), games/locm.py one game at a time, and games/locm_batch.py with many games stepped together;
whole games (a uniform draft, then the max-attack battler on both sides), timed alternately in the
same run. It plays the field's max-attack battler (agents/heuristics/locm_field.py) on states and a
batch form of it written for the measurement, and first checks that the battler chooses gym-locm's
action on every battle state of recorded gym-locm games, and that the batch form chooses as it
does. Prints one Markdown row per repeat.

    .venv/bin/python scripts/results/locm_speed.py --games 2000 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

import numpy as np

import games
from agents.heuristics.locm_field import battle_max_attack as max_attack
from games.locm import (
    ATK,
    ATTACK,
    ATTACKED,
    CHARGE,
    CREATURE,
    GUARD,
    KW,
    LANE_LIMIT,
    PASS,
    PICK,
    READY,
    SUMMON,
)
from games.locm_batch import CARD_ATK, COST, TYPE, LocmBatch

ROOT = Path(__file__).resolve().parent.parent.parent
ORACLE_PYTHON = ROOT / ".venv-oracle" / "bin" / "python"
DRIVER = ROOT / "scripts" / "locm_gym_driver.py"


def max_attack_batch(batch: LocmBatch, g: np.ndarray) -> np.ndarray:
    """`max_attack` for games `g` of a batch (all in the battle), in array operations."""
    k = np.arange(len(g))
    p = batch.player[g]
    o = 1 - p
    place = np.arange(LANE_LIMIT)
    own = batch.lane_sizes[g[:, None], 2 * p[:, None] + np.arange(2)]
    enemy = batch.lane_sizes[g[:, None], 2 * o[:, None] + np.arange(2)]
    mine = batch.board[g[:, None], 2 * p[:, None] + np.arange(2)]  # (k, 2, 3, F)
    able = (
        (place[None, None, :] < own[:, :, None])
        & (mine[..., ATTACKED] == 0)
        & ((mine[..., READY] != 0) | ((mine[..., KW] & CHARGE) != 0))
    )
    lane = np.where(able[:, 0].any(axis=1), 0, 1)
    can_attack = able.any(axis=(1, 2))
    power = np.where(able[k, lane], mine[k, lane, :, ATK], -1)
    strongest = power.argmax(axis=1)
    foes = batch.board[g, 2 * o + lane]  # (k, 3, F)
    guards = (place[None, :] < enemy[k, lane][:, None]) & ((foes[..., KW] & GUARD) != 0)
    target = np.where(guards.any(axis=1), 1 + guards.argmax(axis=1), 0)
    attack = ATTACK + 4 * (3 * lane + strongest) + target
    hand = batch.hands[g, p]
    cards = batch.card_of[g[:, None], hand]
    ok = np.arange(hand.shape[1])[None, :] < batch.hand_len[g, p][:, None]
    ok &= (TYPE[cards] == CREATURE) & (COST[cards] <= batch.mana[g, p][:, None])
    best = np.where(ok, CARD_ATK[cards], -1).argmax(axis=1)
    room = own < LANE_LIMIT
    summon = SUMMON + 2 * best + np.where(room[:, 0], 0, 1)
    can_summon = ok.any(axis=1) & room.any(axis=1)
    return np.where(can_attack, attack, np.where(can_summon, summon, PASS))


def same_choices(games_count: int, oracle: Path) -> tuple[int, int]:
    """(battle states where max_attack chose gym-locm's action, battle states) over recorded games."""
    command = [str(oracle), str(DRIVER), "--games", str(games_count), "--seed", "7000000", "--battler", "max-attack"]
    records = subprocess.run(command, capture_output=True, text=True, check=True).stdout.splitlines()
    game = games.make("locm")
    same = total = 0
    for line in records:
        record = json.loads(line)
        state = game.state_from_chance(record["offers"], record["shuffles"])
        for action, _ in record["steps"]:
            if state.phase == "battle":
                total += 1
                same += max_attack(state) == action
            state.apply_action(action)
    return same, total


def ours(games_count: int, seed: int) -> float:
    """Games per second of games/locm.py: uniform picks, max-attack on both sides."""
    game = games.make("locm")
    start = time.perf_counter()
    for g in range(games_count):
        rng = np.random.default_rng(seed + g)
        state = game.new_initial_state(rng)
        picks = rng.integers(3, size=60).tolist()
        for k in picks:
            state.apply_action(PICK + k)
        while not state.is_terminal():
            state.apply_action(max_attack(state))
    return games_count / (time.perf_counter() - start)


def play_batched(games_count: int, seed: int, check_states: bool = False) -> bool:
    """Whole games on games/locm_batch.py, all stepped together: uniform picks, then max_attack_batch
    on both sides. With `check_states`, whether it chose max_attack's action on every battle state."""
    rng = np.random.default_rng(seed)
    batch = LocmBatch.deal(games.make("locm"), rng, games_count)
    every = np.arange(games_count)
    for _ in range(60):
        batch.apply_actions(every, PICK + rng.integers(3, size=games_count))
    live = every
    while len(live):
        chosen = max_attack_batch(batch, live)
        if check_states and any(max_attack(batch.state(int(g))) != a for g, a in zip(live, chosen)):
            return False
        batch.apply_actions(live, chosen)
        live = np.flatnonzero(batch.phase == 1)
    return True


def ours_batched(games_count: int, seed: int) -> float:
    """Games per second of play_batched."""
    start = time.perf_counter()
    play_batched(games_count, seed)
    return games_count / (time.perf_counter() - start)


def theirs(games_count: int, seed: int, oracle: Path) -> float:
    command = [str(oracle), str(DRIVER), "--games", str(games_count), "--seed", str(seed)]
    out = subprocess.run(command + ["--battler", "max-attack", "--time"], capture_output=True, text=True, check=True)
    timing = json.loads(out.stdout)
    return timing["games"] / timing["seconds"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games per engine and repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch", type=int, default=4096, help="games stepped together by the batch engine")
    parser.add_argument("--check-games", type=int, default=200, help="recorded games for the battler's check")
    parser.add_argument("--oracle-python", type=Path, default=ORACLE_PYTHON)
    args = parser.parse_args(argv)
    if not args.oracle_python.exists():
        raise SystemExit(f"no oracle environment at {args.oracle_python}: `make oracle` builds it")
    same, total = same_choices(args.check_games, args.oracle_python)
    print(f"max-attack: gym-locm's action on {same} of {total} battle states of {args.check_games} recorded games")
    agrees = play_batched(min(args.check_games, 64), 9_000_000, check_states=True)
    print(f"max-attack on a batch: {'the same' if agrees else 'NOT the same'} choices as on states")
    print()
    print(f"| repeat | gym-locm games/s | deckopt games/s | ratio | deckopt batch of {args.batch} games/s | ratio |")
    print("|---|---|---|---|---|---|")
    for r in range(args.repeats):
        gym = theirs(args.games, 8_000_000, args.oracle_python)
        our = ours(args.games, 8_000_000)
        batched = ours_batched(args.batch, 8_000_000 + r)
        print(f"| {r + 1} | {gym:.0f} | {our:.0f} | {our / gym:.2f}x | {batched:.0f} | {batched / gym:.1f}x |")


if __name__ == "__main__":
    main()
