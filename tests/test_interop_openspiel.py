"""Every registered game as an OpenSpiel Python game: OpenSpiel's own random_sim_test, random games
ending with our engine's returns for the same moves, information states that never show hidden cards,
Exploding Kittens' explicit chance against the engine's, OpenSpiel's MCTS bot and CFR on our games."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import random_playout

import games
from games.interop import missing_extra

SKIP_REASON = "the interop extra is not installed (pip install 'deckopt[interop]')"


@pytest.fixture(scope="module")
def spiel():
    """pyspiel with our games registered (the tests that need it skip without the extra)."""
    pyspiel = pytest.importorskip("pyspiel", reason=SKIP_REASON)
    from games.interop.openspiel_game import register_all

    register_all()
    return pyspiel


def load(name: str, seed: int = 0, **config):
    from games.interop.openspiel_game import load as load_game

    return load_game(name, seed=seed, **config)


TINY_KITTENS = {"deck": {"skip": 1, "attack": 1}}  # 71 information states: CFR in seconds


def test_a_missing_extra_is_one_clear_line():
    try:
        import no_such_module_for_deckopt  # noqa: F401
    except ImportError as exc:
        error = missing_extra("games.interop.something", exc)
    assert "no_such_module_for_deckopt" in str(error) and "\n" not in str(error)
    with pytest.raises(ImportError, match=r"interop extra .*pip install 'deckopt\[interop\]'"):
        raise error


@pytest.mark.parametrize("name", games.GAME_NAMES)
def test_openspiel_random_sim_test_passes_on_every_game(spiel, name):
    game = spiel.load_game(f"python_deckopt_{name}")
    assert game.num_distinct_actions() == games.make(name).num_actions
    spiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def play_random(spiel, state, rng, num_players):
    """Random play to the end (chance by its probabilities); returns the moves as our engine plays
    them: one action per decision, a simultaneous step's actions in seat order of those choosing."""
    moves = []
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            assert all(p > 0 for p in probs) and abs(sum(probs) - 1) < 1e-9
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        elif state.is_simultaneous_node():
            inside = state.engine_state.in_temple
            joint = [int(rng.choice(state.legal_actions(p))) for p in range(num_players)]
            assert all(state.legal_actions(p) == ([0, 1] if inside[p] else [0]) for p in range(num_players))
            moves += [a for p, a in enumerate(joint) if inside[p]]
            state.apply_actions(joint)
        else:
            legal = state.legal_actions()
            assert legal == state.engine_state.legal_actions()
            moves.append(int(rng.choice(legal)))
            state.apply_action(moves[-1])
    return moves


@pytest.mark.parametrize(
    ("name", "config"),
    [(name, {}) for name in games.GAME_NAMES if name != "exploding_kittens"] + [("incan_gold", {"num_players": 5})],
)
def test_random_games_end_with_the_engines_returns_for_the_same_moves(spiel, name, config):
    from games.interop.openspiel_game import ZERO_SUM

    game = load(name, seed=11, **config)
    engine_game = games.make(name, **config)
    stream = np.random.default_rng(11)  # the OpenSpiel game's seed stream: one seed per new game
    rng = np.random.default_rng(0)
    for _ in range(3):
        state = game.new_initial_state()
        moves = play_random(spiel, state, rng, engine_game.num_players)
        engine = engine_game.new_initial_state(np.random.default_rng(int(stream.integers(2**63))))
        for a in moves:
            engine.apply_action(a)
        assert engine.is_terminal()
        assert state.returns() == engine.returns().tolist()
        if name in ZERO_SUM:  # what the GameType declares
            assert abs(sum(state.returns())) < 1e-9


def test_exploding_kittens_random_games_keep_every_card(spiel):
    config = {"deck": {"shuffle": 2, "cat1": 2, "favor": 1, "skip": 1}, "deal": 1, "hand_defuses": 2}
    game = load("exploding_kittens", **config)
    rng = np.random.default_rng(1)
    for _ in range(20):
        state = game.new_initial_state()
        play_random(spiel, state, rng, 2)
        s = state.engine_state
        cards = [
            sum(h[t] for h in (s.hand(0), s.hand(1))) + s.discard[n] + s.deck_counts()[t]
            for t, n in enumerate(s.discard)
        ]
        assert cards == [4, 1, 0, 1, 2, 2, 0, 0, 0, 0]  # 2 Defuses per hand; the rest of the deck
        assert sorted(state.returns()) == [-1.0, 1.0]


@pytest.mark.parametrize(
    "config",
    [
        {"deck": {"shuffle": 1, "cat1": 2, "skip": 1}},  # a Shuffle's new order and a cat pair's steal
        {"deck": {"shuffle": 1, "cat1": 2, "favor": 1}, "deal": 1, "composition": "random"},  # counts, deal
    ],
)
def test_explicit_kitten_chance_is_the_engines_chance(spiel, config):
    """The exact value of uniformly random play over OpenSpiel's chance tree equals the engine's
    average over random games (within 4 standard errors of 3000 games)."""
    from open_spiel.python import policy
    from open_spiel.python.algorithms import expected_game_score

    game = load("exploding_kittens", **config)
    exact = expected_game_score.policy_value(game.new_initial_state(), [policy.UniformRandomPolicy(game)] * 2)[0]
    engine_game = games.make("exploding_kittens", **config)
    rng = np.random.default_rng(0)
    results = []
    for seed in range(3000):
        state = engine_game.new_initial_state(np.random.default_rng(seed))
        random_playout(state, rng)
        results.append(state.returns()[0])
    mean, se = np.mean(results), np.std(results) / np.sqrt(len(results))
    assert abs(exact - mean) < 4 * se, (exact, mean, se)


def deal(spiel, game, outcomes):
    """A new Exploding Kittens game with its chance outcomes given, up to the first decision."""
    state = game.new_initial_state()
    for o in outcomes:
        assert state.is_chance_node()
        state.apply_action(o)
    assert not state.is_chance_node()
    return state


def test_information_states_show_what_the_player_saw_and_no_hidden_card(spiel):
    from games.exploding_kittens import ATTACK, FAVOR, KITTEN, SKIP

    game = load("exploding_kittens", deck={"skip": 1, "attack": 1, "favor": 1}, hand_defuses=0, deal=1)
    # seat 0 is dealt a Skip in both; seat 1 an Attack or a Favor; the deck: the Kitten on top
    a = deal(spiel, game, [SKIP, ATTACK, KITTEN, FAVOR])
    b = deal(spiel, game, [SKIP, FAVOR, KITTEN, ATTACK])
    assert a.information_state_string(0) == b.information_state_string(0)
    assert a.observation_string(0) == b.observation_string(0)
    assert a.information_state_string(1) != b.information_state_string(1)
    # seat 0 plays its Skip: seat 1 sees the Skip in its string, and nothing of seat 0's view changes
    for s in (a, b):
        s.apply_action(1)  # skip
    assert a.information_state_string(0) == b.information_state_string(0)
    assert "skip" in a.information_state_string(1) and "you skip" in a.information_state_string(0)
    # perfect recall: the string grows with every decision, the earlier one its prefix
    before = a.information_state_string(1)
    a.apply_action(0)  # seat 1 draws the Kitten and explodes
    assert a.is_terminal() and a.returns() == [1.0, -1.0]
    assert a.information_state_string(1).startswith(before)


def test_information_states_have_perfect_recall_on_tiny_exploding_kittens(spiel):
    """Every decision of the whole game tree: the histories sharing an information state string have
    the same legal actions and the same earlier (information state, own action) sequence."""
    from open_spiel.python.algorithms import get_all_states

    game = load("exploding_kittens", **TINY_KITTENS)
    groups = {}
    for state in get_all_states.get_all_states(game, include_terminals=False, include_chance_states=False).values():
        player = state.current_player()
        own, replay = [], game.new_initial_state()
        for action in state.history():
            if replay.current_player() == player:
                own.append((replay.information_state_string(player), action))
            replay.apply_action(action)
        groups.setdefault(state.information_state_string(player), set()).add((tuple(state.legal_actions()), tuple(own)))
    assert len(groups) == 71  # the information states CFR tabulates
    assert all(len(seen) == 1 for seen in groups.values())
    assert any("drew a card" in key for key in groups)  # the opponent's draw: seen, its card not


def test_mcts_bot_beats_random_on_tic_tac_toe_and_finishes_connect_four(spiel):
    from open_spiel.python.algorithms import mcts

    rng = np.random.default_rng(0)

    def play(game, sims, seat, k):
        bot = mcts.MCTSBot(
            game,
            uct_c=2.0,
            max_simulations=sims,
            evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(k)),
            random_state=np.random.RandomState(k),
        )
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() == seat:
                state.apply_action(bot.step(state))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
        return state.returns()[seat]

    tic_tac_toe = [play(load("tic_tac_toe"), 100, k % 2, k) for k in range(6)]
    assert min(tic_tac_toe) >= 0 and sum(tic_tac_toe) >= 4, tic_tac_toe  # never loses, wins most
    assert play(load("connect_four"), 50, 0, 0) in (1.0, 0.0, -1.0)


def test_cfr_on_tiny_exploding_kittens_converges(spiel):
    from open_spiel.python.algorithms import cfr, exploitability

    game = load("exploding_kittens", **TINY_KITTENS)
    assert game.get_type().chance_mode == spiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    solver = cfr.CFRSolver(game)
    gaps = []
    for i in range(1, 21):
        solver.evaluate_and_update_policy()
        if i in (1, 5, 20):
            gaps.append(exploitability.exploitability(game, solver.average_policy()))
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 0.02, gaps


def test_game_parameters_are_the_config_and_the_seed(spiel):
    game = spiel.load_game("python_deckopt_incan_gold", {"config": json.dumps({"num_players": 4}), "seed": 3})
    assert game.num_players() == 4
    assert game.get_type().dynamics == spiel.GameType.Dynamics.SIMULTANEOUS
    assert (game.get_type().min_num_players, game.get_type().max_num_players) == (3, 8)
    again = spiel.load_game("python_deckopt_incan_gold", {"config": json.dumps({"num_players": 4}), "seed": 3})
    assert str(game.new_initial_state()) == str(again.new_initial_state())
    with pytest.raises(games.UserError, match="num_players"):
        spiel.load_game("python_deckopt_incan_gold", {"config": json.dumps({"num_players": 2})})
