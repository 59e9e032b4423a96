"""AlphaZero-style search and self-play: PUCT tactics with a tiny budget, the targets (policy over
legal actions, value = the mover's final return, 3-player Incan Gold too), searches that never read
hidden information, the az: spec, exact resume, and a tiny Tic Tac Toe run that learns."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from conftest import gwent_state, random_states

import agents
import games
from agents.alphazero import agent as az_agent
from agents.alphazero import config as az_config
from agents.alphazero import trainer as az
from agents.learned import NumpyNetwork, model_metadata, npz_bytes, read_npz
from agents.search.evaluators import network_evaluator
from agents.search.puct import best_action, puct_search, search_roots
from games import UserError
from games.config import config_from_dict
from games.connect_four import threats

TINY = {
    "hidden_layers": [32, 32],
    "games_per_batch": 16,
    "simulations": 8,
    "updates_per_batch": 4,
    "batch_size": 32,
    "min_replay": 1,
    "eval_every": 0,
    "eval_games": 4,
    "eval_simulations": 4,
    "eval_opponents": ["random"],
    "checkpoint_minutes": 100.0,
}
TIMING = {"seconds", "selfplay_games_per_s", "simulations_per_s"}


def tiny(**settings) -> az_config.AlphaZeroConfig:
    return config_from_dict(az_config.AlphaZeroConfig, {**TINY, **settings})


def random_network(game, seed=0, hidden=32) -> NumpyNetwork:
    rng = np.random.default_rng(seed)
    sizes = [game.observation_size, hidden, game.num_actions + 1]
    weights = []
    for a, b in zip(sizes, sizes[1:]):
        weights += [rng.normal(0, 1 / np.sqrt(a), (a, b)).astype(np.float32), rng.normal(0, 0.1, b).astype(np.float32)]
    return NumpyNetwork(weights, ["relu", "linear"])


def uninformed(game):
    """Priors all equal, every value 0: whatever the search finds, it found by searching."""

    def evaluate(states):
        return np.ones((len(states), game.num_actions)), np.zeros((len(states), game.num_players))

    return evaluate


def after(game_name, moves):
    s = games.make(game_name).new_initial_state(np.random.default_rng(0))
    for a in moves:
        s.apply_action(a)
    return s


def best(state, evaluate, sims, seed=0):
    return int(puct_search([state], evaluate, sims, 1.5, [np.random.default_rng(seed)])[0].argmax())


# --- tactics with a tiny budget -----------------------------------------------------------------
@pytest.mark.parametrize("seed", range(3))
def test_puct_takes_a_forced_win_and_blocks_a_forced_loss(seed):
    ttt = games.make("tic_tac_toe")
    assert best(after("tic_tac_toe", [0, 3, 1, 4]), uninformed(ttt), 20, seed) == 2  # X wins at 2
    assert best(after("tic_tac_toe", [0, 4, 1]), uninformed(ttt), 40, seed) == 2  # O must block 2
    c4 = games.make("connect_four")
    assert best(after("connect_four", [0, 0, 1, 1, 2, 2]), uninformed(c4), 20, seed) == 3  # X wins at 3
    assert best(after("connect_four", [0, 6, 1, 6, 2]), uninformed(c4), 60, seed) == 3  # O must block 3


def misleading(game, favoured):
    """Every prior on `favoured` (the others near 0), every value 0: a network that is wrong."""

    def evaluate(states):
        p = np.full((len(states), game.num_actions), 1e-6)
        p[:, favoured] = 1.0
        return p, np.zeros((len(states), game.num_players))

    return evaluate


def solved_move(state, evaluate, sims, solve=True):
    root = search_roots([state], evaluate, sims, 1.5, [np.random.default_rng(0)], solve=solve)[0]
    return best_action(root, state.legal_mask(), state.current_player), root


def test_proven_values_overrule_a_wrong_network():
    """The prior says column 6 (or cell 8) whatever the position: with proofs, one simulation takes
    the win and blocks the loss the prior ignores; without them the search follows the prior."""
    c4, ttt = games.make("connect_four"), games.make("tic_tac_toe")
    win = after("connect_four", [0, 0, 1, 1, 2, 2])  # X wins at 3
    assert solved_move(win, misleading(c4, 6), 1)[0] == 3
    assert solved_move(win, misleading(c4, 6), 1, solve=False)[0] == 6
    block = after("connect_four", [0, 6, 1, 6, 2])  # O must block 3
    assert solved_move(block, misleading(c4, 5), 8)[0] == 3
    assert solved_move(block, misleading(c4, 5), 8, solve=False)[0] == 5
    fork = after("tic_tac_toe", [0, 4, 8, 2])  # X must block 6 (O threatens 2-4-6)
    move, root = solved_move(fork, misleading(ttt, 5), 30)
    assert move == 6
    assert all(root.proven()[a][fork.current_player] == -1 for a in (1, 3, 5, 7))  # each lets O win at 6


def test_a_proven_root_stops_searching_and_its_proof_is_exact():
    """Proofs agree with minimax on random Tic Tac Toe positions, and a proven root spends no more
    simulations."""
    from agents.minimax import position_value

    game = games.make("tic_tac_toe")
    rng = np.random.default_rng(5)
    proofs = 0
    for _ in range(40):
        s = game.new_initial_state(rng)
        for _ in range(int(rng.integers(2, 7))):
            if not s.is_terminal():
                s.apply_action(int(rng.choice(s.legal_actions())))
        if s.is_terminal():
            continue
        root = search_roots([s], uninformed(game), 400, 1.5, [np.random.default_rng(0)], solve=True)[0]
        if root.outcome is not None:
            proofs += 1
            assert root.outcome[s.current_player] == position_value(s, s.current_player)
            assert root.visits().sum() < 400
    assert proofs >= 10


def test_proofs_stay_out_of_hidden_information_games():
    game, s, _ = _gwent_pair()
    evaluate = network_evaluator(game, random_network(game))
    a = search_roots([s], evaluate, 30, 1.5, [np.random.default_rng(1)], solve=True)[0]
    b = search_roots([s], evaluate, 30, 1.5, [np.random.default_rng(1)], solve=False)[0]
    np.testing.assert_array_equal(a.visits(), b.visits())
    assert not a.proven() and a.outcome is None


@pytest.mark.cross_cpu
def test_batched_and_per_leaf_evaluation_give_the_same_search():
    game = games.make("connect_four")
    evaluate = network_evaluator(game, random_network(game))
    states = [after("connect_four", m) for m in ([], [3], [3, 3, 2], [0, 6, 1])]
    rngs = lambda: [np.random.default_rng(i) for i in range(len(states))]  # noqa: E731
    a = puct_search(states, evaluate, 30, 1.5, rngs(), batched=True)
    b = puct_search(states, evaluate, 30, 1.5, rngs(), batched=False)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
        assert x.sum() == 30


# --- self-play targets ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "game_name, game_config",
    [("tic_tac_toe", {}), ("incan_gold", {"num_players": 3}), ("exploding_kittens", {})],
)
def test_self_play_targets(game_name, game_config):
    game = games.make(game_name, **game_config)
    config = tiny(game_config=game_config, games_per_batch=6, simulations=6)
    b = az.self_play(game, network_evaluator(game, random_network(game)), config, np.random.default_rng(1))
    assert len(b.zs) > 0 and len(b.obs) == len(b.masks) == len(b.pis) == len(b.zs)
    # policy: a distribution over the legal actions only
    np.testing.assert_allclose(b.pis.sum(axis=1), 1.0, rtol=1e-6)
    assert np.all(b.pis[~b.masks] == 0) and np.all(b.masks.sum(axis=1) >= 2)
    # value: the final return of the player who decided, read from each game's end
    np.testing.assert_array_equal(b.zs, b.returns[b.games, b.movers].astype(np.float32))
    for g in range(config.games_per_batch):
        assert np.all(b.returns[g] != 0) or game_name == "tic_tac_toe"  # finished games (ttt may draw)
    if game.num_players == 3:
        assert set(b.movers.tolist()) == {0, 1, 2}
        # within one game, players who finished differently get different targets
        g = int(b.games[0])
        rows = b.games == g
        assert len({(int(p), float(z)) for p, z in zip(b.movers[rows], b.zs[rows])}) == len(
            set(b.movers[rows].tolist())
        )
    # the observations are the mover's own view
    assert b.obs.shape == (len(b.zs), game.observation_size)


# --- hidden information -----------------------------------------------------------------------------
def _kittens_pair():
    """Two Exploding Kittens states equal in everything seat 0 knows (its hand, the discards, what it
    has seen): `b` is a re-drawn world of `a`, in which the opponent's hand and the deck differ."""
    game = games.make("exploding_kittens")
    a = game.new_initial_state(np.random.default_rng(4))
    rng = np.random.default_rng(0)
    while a.current_player != 0 or len(a.legal_actions()) < 2:
        a.apply_action(int(rng.choice(a.legal_actions())))
    for seed in range(100):
        b = a.resample_hidden(0, np.random.default_rng(seed))
        if b._hands[1] != a._hands[1] and b._deck != a._deck:
            return game, a, b
    raise AssertionError("no re-drawn world differs from the real one")


def _gwent_pair():
    game = games.make("gwent_lite")
    rng = np.random.default_rng(5)
    deck1 = [1] * 10 + [2] * 10 + [3] * 3 + [4] * 2
    hand0 = [2, 2, 2, 3, 3, 5, 5, 7, 7, 7]
    own_pile = rng.permutation([2] * 7 + [3] * 3 + [5] * 3 + [7] * 2).tolist()
    opp_a, opp_b = rng.permutation(deck1).tolist(), rng.permutation(deck1).tolist()
    a = gwent_state(game, [hand0 + own_pile, opp_a], leader=0)
    b = gwent_state(game, [hand0 + rng.permutation(own_pile).tolist(), opp_b], leader=0)
    assert a.hand(1) != b.hand(1)
    return game, a, b


def _incan_pair():
    """Seat 0 has chosen (leave in one, stay in the other) and the deck order differs: seat 1 cannot
    see either."""
    game = games.make("incan_gold")
    a = game.new_initial_state(np.random.default_rng(1))
    b = a.clone()
    rng = np.random.default_rng(2)
    rng.shuffle(b._deck)
    b._uniforms = rng.random((game.num_rounds, len(a._uniforms[0]))).tolist()
    a.apply_action(0)
    b.apply_action(1)
    assert a._deck != b._deck
    return game, a, b


@pytest.mark.parametrize("pair", [_kittens_pair, _gwent_pair, _incan_pair])
def test_search_results_depend_only_on_what_the_player_knows(pair):
    game, a, b = pair()
    p = a.current_player
    assert p == b.current_player and a.observation(p).tolist() == b.observation(p).tolist()
    evaluate = network_evaluator(game, random_network(game, seed=3))
    va = puct_search([a], evaluate, 60, 1.5, [np.random.default_rng(7)], 0.5, 0.25)[0]
    vb = puct_search([b], evaluate, 60, 1.5, [np.random.default_rng(7)], 0.5, 0.25)[0]
    np.testing.assert_array_equal(va, vb)
    assert va.sum() == 60 and np.count_nonzero(va) >= 2


def test_the_real_hidden_state_is_never_stepped():
    game, a, _ = _kittens_pair()

    class Spy(type(a)):
        __slots__ = ()

        def apply_action(self, action):
            raise AssertionError("the search stepped the real state")

        def returns(self):
            raise AssertionError("the search read the real state's returns")

        def observation(self, player):
            raise AssertionError("the search evaluated the real state")

    real_resample = type(a).resample_hidden

    def resample(self, player, rng):
        d = real_resample(self, player, rng)
        d.__class__ = type(a)
        return d

    Spy.resample_hidden = resample
    spy = a.clone()
    spy.__class__ = Spy
    evaluate = network_evaluator(game, random_network(game))
    assert puct_search([spy], evaluate, 20, 1.5, [np.random.default_rng(0)])[0].sum() == 20


# --- the agent spec ---------------------------------------------------------------------------------
def _write_model(path: Path, game, network) -> None:
    path.write_bytes(npz_bytes(network, model_metadata(game, network, alphazero=True)))


def test_spec_grammar_and_errors(tmp_path):
    assert az_agent.parse_spec("az") == ("pretrained", None, None, True)
    assert az_agent.parse_spec("az:runs/x,sims=20,c=2,solve=0") == ("runs/x", 20, 2.0, False)
    assert az_agent.parse_spec("az:sims=5") == ("pretrained", 5, None, True)
    for bad in ("az:m,sims=0", "az:m,sims=x", "az:m,foo=1", "az:a,b", "az:m,c=-1", "az:m,,sims=3", "az:m,solve=2"):
        with pytest.raises(UserError):
            az_agent.parse_spec(bad)
    with pytest.raises(UserError, match="solve must be 0 or 1"):
        az_agent.parse_spec("az:m,solve=2")
    with pytest.raises(UserError, match="unknown option 'foo'"):
        az_agent.parse_spec("az:m,foo=1")
    game = games.make("tic_tac_toe")
    model = tmp_path / "m.npz"
    _write_model(model, game, random_network(game))
    agent = agents.make(f"az:{model},sims=12", game, seed=0)
    assert agent.simulations == 12
    s = after("tic_tac_toe", [0, 3, 1, 4])
    assert agent.act([s])[0] == 2
    dqn = agents.make("az:dqn,sims=30", game, seed=0)  # the shipped DQN's Q as prior and value
    assert dqn.act([s])[0] == 2
    with pytest.raises(UserError, match="neither an az"):  # a PPO policy has no value
        agents.make("az:dqn", games.make("incan_gold"))
    with pytest.raises(UserError, match="for tic_tac_toe"):
        agents.make(f"az:{model}", games.make("connect_four"))


def test_az_agents_pickle_for_worker_processes():
    import pickle

    game = games.make("gwent_lite")
    for spec in ("az:dqn,sims=3",):
        agent = pickle.loads(pickle.dumps(agents.make(spec, game, seed=0)))
        s = game.new_initial_state(np.random.default_rng(0))
        assert s.legal_mask()[agent.act([s])[0]]
    ttt = games.make("tic_tac_toe")
    agent = pickle.loads(pickle.dumps(agents.make("az:pretrained", ttt, seed=0)))
    assert agent.act([after("tic_tac_toe", [0, 3, 1, 4])])[0] == 2


def test_the_agent_plays_legal_moves_in_lock_step_in_every_game():
    for name, config in [("incan_gold", {"num_players": 3}), ("gwent_lite", {}), ("exploding_kittens", {})]:
        game = games.make(name, **config)
        agent = az_agent.AlphaZeroAgent(game, random_network(game), np.random.default_rng(0), simulations=4)
        rng = np.random.default_rng(1)
        states = [game.new_initial_state(rng) for _ in range(3)]
        while states:
            for s, a in zip(states, agent.act(states)):
                assert s.legal_mask()[a]
                s.apply_action(int(a))
            states = [s for s in states if not s.is_terminal()]


# --- training -----------------------------------------------------------------------------------------
def weights_of(path: Path) -> list[np.ndarray]:
    return read_npz(path)[0].weights


def metrics_without_timing(run_dir: Path) -> list[dict]:
    with open(run_dir / "metrics.csv") as f:
        return [{k: v for k, v in row.items() if k not in TIMING} for row in csv.DictReader(f)]


@pytest.mark.cross_cpu
@pytest.mark.parametrize("looks", [1, 3, 25])
def test_a_resumed_run_equals_an_uninterrupted_one(tmp_path, looks):
    """Stopped between batches (the first look at should_stop is the loop's) or inside one, whose
    searches look too (abandoned, the state as before it): the resumed run ends as the straight one."""
    straight, split = tmp_path / "straight", tmp_path / "split"
    config = tiny(seed=5)
    az.train("tic_tac_toe", config, straight, episodes=48)
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > looks

    done = az.train("tic_tac_toe", config, split, episodes=48, should_stop=stop)
    assert done["stopped_by"] == "interrupt" and done["episodes"] in (0, 16, 32)
    assert az.train("tic_tac_toe", config, split, episodes=48, resume=True)["episodes"] == 48
    for a, b in zip(weights_of(straight / "model.npz"), weights_of(split / "model.npz"), strict=True):
        np.testing.assert_array_equal(a, b)
    assert metrics_without_timing(straight) == metrics_without_timing(split)
    for name in ("config.json", "model.keras", "learning_curves.png", "checkpoints/checkpoint.npz"):
        assert (straight / name).is_file()


@pytest.mark.faults
def test_sigterm_stops_a_run_of_long_searches_within_its_batch(tmp_path):
    """20 000 simulations a move make a batch of many minutes; SIGTERM ends the run at once
    (exit 130, the checkpoint of the batches done kept) instead of waiting for the batch."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "run"
    argv = ["train", "tic_tac_toe", "--algo", "alphazero", "--episodes", "64", "--simulations", "20000"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "deckopt", *argv, "--quiet", "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    try:
        deadline = time.monotonic() + 120
        while not (out / "checkpoints" / "checkpoint.npz").is_file():  # written before the first batch
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the run did not get going"
            time.sleep(0.05)
        time.sleep(1.0)  # inside the first batch's searches
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted; checkpoint saved" in err and "Traceback" not in err


def test_a_tiny_tic_tac_toe_run_learns(tmp_path):
    """After a few hundred self-play games, the network alone (one simulation: the root's prior
    decides) loses fewer games to minimax than the untrained one, and its value fits better."""
    config = tiny(seed=1, games_per_batch=32, simulations=16, updates_per_batch=16, temperature_moves=4)
    summary = az.train("tic_tac_toe", config, tmp_path / "run", episodes=320)
    assert summary["episodes"] == 320
    game = games.make("tic_tac_toe")
    trained = read_npz(tmp_path / "run" / "model.npz")[0]
    untrained_run = az.AlphaZeroLearner("tic_tac_toe", config)

    def losses_to_minimax(network) -> float:
        from agents.evaluate import evaluate

        agent = az_agent.AlphaZeroAgent(game, network, np.random.default_rng(0), simulations=1, solve=False)
        report = evaluate(game, agent, ["minimax"], 40, seed=3)
        res = report["matches"][0]["agent"]
        return res["losses"] / 40

    before, after_ = losses_to_minimax(untrained_run.network), losses_to_minimax(trained)
    assert after_ < before, (before, after_)
    rows = metrics_without_timing(tmp_path / "run")
    assert float(rows[-1]["value_loss"]) < float(rows[1]["value_loss"])


def test_bench_alphazero_report_shape(monkeypatch):
    from deckopt.bench import alphazero as bench

    monkeypatch.setattr(bench, "SIMULATIONS", 5)
    monkeypatch.setattr(bench, "REPEATS", 1)
    report = bench.run()
    assert report["bench"] == "alphazero" and set(report) == {"bench", "results", "ratios"}
    assert {r["name"] for r in report["results"]} == {"az_batched_connect_four", "az_per_leaf_connect_four"}
    assert all(r["value"] > 0 for r in report["results"]) and report["ratios"]["az_batched_vs_per_leaf"] > 0


def test_the_shipped_tic_tac_toe_search_is_unexploitable():
    from agents.evaluate import exploitability

    game = games.make("tic_tac_toe")
    agent = agents.make("az:pretrained", game, seed=0)
    assert agent.simulations == 32  # the shipped model's own budget
    assert exploitability(game, agent)["exploitability"] <= 0


def test_the_connect_four_solver_agrees_with_exhaustive_search():
    from agents.connect_four_solver import Solver

    def exhaustive(s) -> int:
        if s.is_terminal():
            return 0 if s.returns()[0] == 0 else -1
        best = -1
        for a in s.legal_actions():
            c = s.clone()
            c.apply_action(a)
            best = max(best, -exhaustive(c))
        return best

    game, rng, values = games.make("connect_four"), np.random.default_rng(0), []
    while len(values) < 12:
        s = game.new_initial_state()
        for _ in range(33):
            s.apply_action(int(rng.choice(s.legal_actions())))
            if s.is_terminal():
                break
        if not s.is_terminal():
            v = exhaustive(s)
            assert Solver().value(s) == v, str(s)
            values.append(v)
    assert len(set(values)) >= 2  # not only one kind of position


def test_eval_checks_the_exploitability_of_the_tic_tac_toe_az_agent_and_skips_random_ones():
    from agents.evaluate import evaluate_spec

    game = games.make("tic_tac_toe")
    report = evaluate_spec(game, "az:pretrained", ["random"], 4)
    assert report["exploitability"]["exploitability"] <= 0
    assert "skipped" in evaluate_spec(game, "mcts:20", ["random"], 2)["exploitability"]


# --- convolutional networks ------------------------------------------------------------------------
def test_a_convolutional_network_acts_in_numpy_as_keras_computes_it(tmp_path):
    """conv_channels puts 3 x 3 convolutions over the Connect Four board before the Dense layers:
    the numpy copy that acts (model.npz) computes what the Keras model (model.keras) computes."""
    import keras

    az.train("connect_four", tiny(conv_channels=[4, 3], hidden_layers=[8], simulations=4), tmp_path, episodes=16)
    network, metadata = read_npz(tmp_path / "model.npz")
    assert metadata["planes"] == [2, 6, 7] and metadata["layer_sizes"] == [4, 3, 8, 8]
    game = games.make("connect_four")
    states = [after("connect_four", m) for m in ([], [3], [3, 3, 2, 4], [0, 6, 1, 6, 2, 5, 5])]
    obs = game.observations(states)
    model = keras.saving.load_model(tmp_path / "model.keras", compile=False, safe_mode=True)
    np.testing.assert_allclose(network(obs), model(obs).numpy(), rtol=1e-5, atol=1e-5)
    assert agents.make(f"az:{tmp_path / 'model.npz'},sims=8", game, seed=0).act(states[:1])[0] in range(7)


def test_convolutions_need_board_planes():
    with pytest.raises(ValueError, match="planes"):
        NumpyNetwork([np.zeros((3, 3, 2, 4)), np.zeros(4), np.zeros((168, 8)), np.zeros(8)], ["relu", "linear"])
    with pytest.raises(ValueError, match="chain"):  # the Dense layer after the convolutions must take 6 x 7 x 4
        NumpyNetwork(
            [np.zeros((3, 3, 2, 4)), np.zeros(4), np.zeros((100, 8)), np.zeros(8)], ["relu", "linear"], (2, 6, 7)
        )
    with pytest.raises(UserError, match="not board planes"):
        az.AlphaZeroLearner("gwent_lite", tiny(conv_channels=[4]))


# --- random openings and fine-tuning ------------------------------------------------------------------
def test_random_openings_are_not_learned_from_and_never_end_the_game():
    """With random_opening_moves, self-play starts from positions after 0..N random moves: its first
    recorded decisions are of later plies (the opening moves are not targets), some games start
    deeper than others, and none is over before its first search."""
    game = games.make("connect_four")
    evaluate = network_evaluator(game, random_network(game))
    plain = az.self_play(game, evaluate, tiny(games_per_batch=12, simulations=2), np.random.default_rng(3))
    opened = az.self_play(
        game, evaluate, tiny(games_per_batch=12, simulations=2, random_opening_moves=20), np.random.default_rng(3)
    )
    stones = opened.obs.reshape(len(opened.obs), -1).sum(axis=1)  # both planes: the stones on the board
    first = np.array([stones[opened.games == g].min() for g in range(12)])
    assert set(np.unique(plain.games)) == set(np.unique(opened.games)) == set(range(12))
    assert first.min() < 3 and first.max() >= 6 and len(set(first.tolist())) > 3
    assert plain.obs.reshape(len(plain.obs), -1).sum(axis=1).min() == 0
    np.testing.assert_allclose(opened.pis.sum(axis=1), 1.0, rtol=1e-6)
    # seeded: the same generator gives the same openings
    again = az.self_play(
        game, evaluate, tiny(games_per_batch=12, simulations=2, random_opening_moves=20), np.random.default_rng(3)
    )
    np.testing.assert_array_equal(again.obs, opened.obs)


def test_value_targets_mix_in_the_root_search_value():
    """value_target_search = F: each value target is (1 - F) x the final return + F x the root's
    search value for the mover (a mean of backed-up values, in [-1, 1])."""
    game = games.make("tic_tac_toe")
    evaluate = network_evaluator(game, random_network(game))
    plain = az.self_play(game, evaluate, tiny(games_per_batch=8), np.random.default_rng(4))
    mixed = az.self_play(game, evaluate, tiny(games_per_batch=8, value_target_search=0.5), np.random.default_rng(4))
    np.testing.assert_array_equal(mixed.pis, plain.pis)  # the same games
    root = 2 * mixed.zs - mixed.returns[mixed.games, mixed.movers]
    assert np.all(np.abs(root) <= 1 + 1e-5) and not np.allclose(np.abs(root), 1)
    with pytest.raises(UserError, match="value_target_search"):
        tiny(value_target_search=1.5)


def test_random_opening_stops_before_a_move_that_ends_the_game():
    state = after("tic_tac_toe", [0, 3, 1, 4])  # X to move; 2 wins at once
    for seed in range(30):
        s = az.random_opening(state.clone(), 5, np.random.default_rng(seed))
        assert not s.is_terminal()


def test_init_model_starts_from_its_weights_and_refuses_another_shape(tmp_path):
    az.train("tic_tac_toe", tiny(seed=2), tmp_path / "a", episodes=16)
    start = az.AlphaZeroLearner("tic_tac_toe", tiny(seed=9, init_model=str(tmp_path / "a" / "model.npz")))
    for a, b in zip(weights_of(tmp_path / "a" / "model.npz"), start.network.weights, strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(UserError, match="init_model"):
        az.AlphaZeroLearner("tic_tac_toe", tiny(hidden_layers=[16], init_model=str(tmp_path / "a" / "model.npz")))
    with pytest.raises(UserError, match="init_model"):  # a DQN Q-network is not an az network
        az.AlphaZeroLearner("tic_tac_toe", tiny(init_model="agents/pretrained/tic_tac_toe.npz"))


# --- input features ------------------------------------------------------------------------------------
def board(own=(), other=()) -> np.ndarray:
    """A Connect Four observation from (row, column) cells of the mover's and the other player's stones."""
    obs = np.zeros((1, 84), np.float32)
    for r, c in own:
        obs[0, r * 7 + c] = 1
    for r, c in other:
        obs[0, 42 + r * 7 + c] = 1
    return obs


def threat_cells(obs) -> tuple[set, set]:
    f = threats(obs)[0]
    return ({divmod(int(i), 7) for i in np.flatnonzero(f[:42])}, {divmod(int(i), 7) for i in np.flatnonzero(f[42:])})


def test_threat_features_by_hand():
    """A threat: an empty cell that completes four in a row (three stones of one player, no other stone
    in the line), in every direction, for each player in its own half."""
    assert threat_cells(board()) == (set(), set())
    assert threat_cells(board(own=[(5, 0), (5, 1), (5, 2)])) == ({(5, 3)}, set())
    assert threat_cells(board(own=[(5, 1), (5, 2), (5, 3)])) == ({(5, 0), (5, 4)}, set())
    assert threat_cells(board(own=[(5, 1), (5, 2), (5, 3)], other=[(5, 4)])) == ({(5, 0)}, set())
    assert threat_cells(board(own=[(5, 0), (4, 0), (3, 0)])) == ({(2, 0)}, set())
    assert threat_cells(board(own=[(5, 0), (4, 1), (2, 3)])) == ({(3, 2)}, set())  # a gap inside a diagonal
    assert threat_cells(board(other=[(2, 6), (3, 5), (4, 4)])) == (set(), {(5, 3)})
    assert threat_cells(board(own=[(5, 0), (5, 1)], other=[(4, 0), (4, 1), (4, 2)])) == (set(), {(4, 3)})


def test_threat_features_mirror_with_the_board():
    game = games.make("connect_four")
    states = random_states(game, 40, seed=5)
    obs = game.observations([s for s in states if not s.is_terminal()])

    def mirror(x):
        return x.reshape(len(x), 2, 6, 7)[:, :, :, ::-1].reshape(len(x), 84)

    f = threats(obs)
    assert f.sum() > 0
    np.testing.assert_array_equal(threats(mirror(obs)), mirror(f))
    assert np.all(f * obs == 0)  # only empty cells


def test_input_features_fine_tune_from_a_model_without_them(tmp_path):
    """A network with input features starts from a model without them as that model was (the features'
    input weights begin at zero); its saved model acts through the features wherever an az spec is
    loaded; configs that can't have them are refused in one line."""
    game = games.make("connect_four")
    plain = tiny(hidden_layers=[8], simulations=4)
    az.train("connect_four", plain, tmp_path / "a", episodes=16)
    states = [after("connect_four", m) for m in ([], [3], [3, 3, 2, 4, 2, 4], [0, 6, 1, 6, 2, 5, 5])]
    obs = game.observations(states)
    before, _ = read_npz(tmp_path / "a" / "model.npz")
    start = az.AlphaZeroLearner(
        "connect_four", tiny(hidden_layers=[8], input_features="threats", init_model=str(tmp_path / "a" / "model.npz"))
    )
    assert start.network.input_size == 168 and start.acting.input_size == 84
    np.testing.assert_allclose(start.acting(obs), before(obs), rtol=1e-5, atol=1e-6)

    az.train(
        "connect_four", tiny(hidden_layers=[8], simulations=4, input_features="threats"), tmp_path / "b", episodes=16
    )
    network, metadata = read_npz(tmp_path / "b" / "model.npz")
    assert metadata["input_features"] == "threats" and network.input_size == 168
    agent = agents.make(f"az:{tmp_path / 'b' / 'model.npz'},sims=8", game, seed=0)
    np.testing.assert_allclose(agent.network(obs), network(np.concatenate([obs, threats(obs)], axis=1)))
    assert agent.act(states[:1])[0] in range(7)
    import pickle  # as worker processes get it

    np.testing.assert_array_equal(pickle.loads(pickle.dumps(agent)).network(obs), agent.network(obs))
    with pytest.raises(UserError, match="init_model"):  # a features model into a config without them
        az.AlphaZeroLearner("connect_four", tiny(hidden_layers=[8], init_model=str(tmp_path / "b" / "model.npz")))
    with pytest.raises(UserError, match=r"tic_tac_toe has no features 'threats' \(its features: none\)"):
        az.AlphaZeroLearner("tic_tac_toe", tiny(input_features="threats"))
    with pytest.raises(UserError, match=r"connect_four has no features 'parity' \(its features: threats\)"):
        az.AlphaZeroLearner("connect_four", tiny(input_features="parity"))
    with pytest.raises(UserError, match="conv_channels"):
        tiny(input_features="threats", conv_channels=[4])
