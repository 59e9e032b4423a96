"""`deckopt bench selfplay`: how fast the DQN's self-play and training loop are.

1. Connect Four self-play games/s, the project's way (lock-step games, one numpy forward pass of
   the whole batch per step, epsilon-greedy with legal masks, recording the targets: exactly the
   training's self-play phase) against the ancestor's way (one game at a time, one eager Keras call
   per move), same untrained 3 x 200 network, same engine, in the same run: "selfplay_vs_ancestor".
2. Train-step samples/s of the training loop (replay sampling in numpy + the compiled phase of
   `updates_per_batch` steps) against a bare `tf.function` step of the same network and batch size
   called on tensors already in memory: "train_loop_vs_bare_step".
Each figure is the median of repeats (the machine is shared and noisy).
"""
from __future__ import annotations

import statistics
import time
from typing import Callable

import numpy as np

LOCKSTEP_GAMES = 256
LOCKSTEP_REPEATS = 5
ANCESTOR_GAMES = 5
TRAIN_REPEATS = 5
TRAIN_PHASES_PER_REPEAT = 4
EPSILON = 0.1  # the ancestor's constant epsilon


def _median_rate(work: Callable[[], float], repeats: int) -> float:
    """Median over `repeats` of units/s, where `work()` returns the units it did."""
    rates = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        units = work()
        rates.append(units / (time.perf_counter() - t0))
    return statistics.median(rates)


def run(progress: Callable[[str], None] | None = None) -> dict:
    say = progress or (lambda message: None)
    import tensorflow as tf

    from agents import dqn

    game_name = "connect_four"
    config = dqn.make_config({**dqn.GAME_DEFAULTS[game_name], "seed": 0, "replay_size": 50_000})
    say("building the network (untrained 3 x 200, tanh output)")
    trainer = dqn.Trainer(game_name, config)
    game, model, rng = trainer.game, trainer.model, np.random.default_rng(0)

    # 1a. the project's way: the training's own self-play phase
    say(f"self-play, lock-step: {LOCKSTEP_REPEATS} x {LOCKSTEP_GAMES} games")
    recorder = dqn.SelfPlayRecorder(trainer.network, rng)
    dqn.self_play(game, recorder, 16, EPSILON, config.gamma, rng)  # warm-up
    moves = []

    def lockstep() -> float:
        obs, _, _, _ = dqn.self_play(game, recorder, LOCKSTEP_GAMES, EPSILON, config.gamma, rng)
        moves.append(len(obs) / LOCKSTEP_GAMES)
        return LOCKSTEP_GAMES

    lockstep_rate = _median_rate(lockstep, LOCKSTEP_REPEATS)

    # 1b. the ancestor's way: one game at a time, one eager Keras call per move
    say(f"self-play, ancestor's way: {ANCESTOR_GAMES} games, one eager Keras call per move")

    def ancestor_game() -> float:
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            if rng.random() < EPSILON:
                action = rng.choice(state.legal_actions())
            else:
                q = model(state.observation(state.current_player)[None, :])[0].numpy()
                action = int(np.argmax(np.where(state.legal_mask(), q, -np.inf)))
            state.apply_action(int(action))
        return 1.0

    ancestor_game()  # warm-up (first eager call builds things)
    ancestor_rate = _median_rate(ancestor_game, ANCESTOR_GAMES)

    # 2. training: the loop's phase vs a bare compiled step on resident tensors
    batch, updates = config.batch_size, config.updates_per_batch
    say(f"train steps: batch {batch}, {updates} updates per phase")
    while trainer.replay.size < 4 * batch:
        obs, actions, targets, _ = dqn.self_play(game, recorder, LOCKSTEP_GAMES, 1.0, config.gamma, rng)
        trainer.replay.add(obs, actions, targets)
    bare_step = dqn.make_train_step(model, trainer.optimizer)
    o, a, t = trainer.replay.sample(rng, (batch,))
    o, a, t = tf.constant(o), tf.constant(a), tf.constant(t)
    bare_step(o, a, t)
    trainer.train(updates)  # warm-up: traces both functions

    def loop() -> float:
        for _ in range(TRAIN_PHASES_PER_REPEAT):
            trainer.train(updates)
        return TRAIN_PHASES_PER_REPEAT * updates * batch

    def bare() -> float:
        for _ in range(TRAIN_PHASES_PER_REPEAT * updates):
            loss = bare_step(o, a, t)
        float(loss)  # wait for the last step
        return TRAIN_PHASES_PER_REPEAT * updates * batch

    # interleave the two so that load changes on the machine hit both alike
    loop_rates, bare_rates = [], []
    for _ in range(TRAIN_REPEATS):
        loop_rates.append(_median_rate(loop, 1))
        bare_rates.append(_median_rate(bare, 1))
    loop_rate, bare_rate = statistics.median(loop_rates), statistics.median(bare_rates)

    return {
        "bench": "selfplay",
        "results": [
            {"name": "connect_four_selfplay_lockstep_numpy", "value": lockstep_rate, "unit": "games/s"},
            {"name": "connect_four_selfplay_ancestor_eager_keras", "value": ancestor_rate, "unit": "games/s"},
            {"name": "connect_four_selfplay_moves_per_game", "value": float(np.mean(moves)), "unit": "moves/game"},
            {"name": "train_loop", "value": loop_rate, "unit": "samples/s"},
            {"name": "train_bare_tf_function_step", "value": bare_rate, "unit": "samples/s"},
        ],
        "ratios": {
            "selfplay_vs_ancestor": lockstep_rate / ancestor_rate,
            "train_loop_vs_bare_step": loop_rate / bare_rate,
        },
        "settings": {
            "network": "3 x 200 ReLU, tanh output (untrained)",
            "lockstep_games": LOCKSTEP_GAMES,
            "ancestor_games": ANCESTOR_GAMES,
            "epsilon": EPSILON,
            "batch_size": batch,
            "updates_per_phase": updates,
        },
    }
