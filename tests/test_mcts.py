"""UCT search: tactics, strength against minimax, reproducibility, determinization that never
reads hidden information, spec grammar."""

import numpy as np
import pytest
from conftest import gwent_state

import agents
import games
from agents.arena import play_match
from agents.search.mcts_spec import MCTSConfig, parse_spec
from agents.search.uct import MCTSAgent
from deckopt.cli import main as cli_main
from games import UserError


def c4_after(moves):
    s = games.make("connect_four").new_initial_state()
    for a in moves:
        s.apply_action(a)
    return s


def mcts(game, spec="mcts:300", seed=0):
    return agents.make(spec, game, seed=seed)


# --- tactics ----------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(3))
def test_connect_four_takes_the_immediate_win(seed):
    # X: bottom row 0,1,2 (O stacked on top): X wins at column 3
    s = c4_after([0, 0, 1, 1, 2, 2])
    assert mcts(s.game, "mcts:200", seed).act([s])[0] == 3
    # O to move with a vertical three in column 6 (X elsewhere, no X threat): O wins at 6
    s = c4_after([0, 6, 1, 6, 0, 6, 4])
    assert mcts(s.game, "mcts:200", seed).act([s])[0] == 6


@pytest.mark.parametrize("seed", range(3))
def test_connect_four_blocks_the_forced_threat(seed):
    # X threatens column 3 on the bottom row; O has nothing: O must block
    s = c4_after([0, 6, 1, 6, 2])
    assert s.current_player == 1
    assert mcts(s.game, "mcts:300", seed).act([s])[0] == 3
    # X threatens a vertical four in column 2 (X at 2,2,2; O scattered)
    s = c4_after([2, 0, 2, 6, 2])
    assert mcts(s.game, "mcts:300", seed).act([s])[0] == 2


def test_tic_tac_toe_wins_and_blocks():
    game = games.make("tic_tac_toe")
    s = game.new_initial_state()
    for a in [0, 3, 1, 4]:  # X: 0,1 -> wins at 2
        s.apply_action(a)
    assert mcts(game, "mcts:200").act([s])[0] == 2
    s = game.new_initial_state()
    for a in [0, 4, 1]:  # X threatens 2, O must block
        s.apply_action(a)
    assert mcts(game, "mcts:300").act([s])[0] == 2


def test_tic_tac_toe_never_loses_to_minimax():
    game = games.make("tic_tac_toe")
    players = [agents.make("mcts:3000", game, seed=1), agents.make("minimax", game, seed=2)]
    result = play_match(game, players, num_games=12, seed=3)
    assert result.agents[0].losses == 0
    assert result.agents[0].games == 12


# --- reproducibility, budgets, batches --------------------------------------------------------
@pytest.mark.cross_cpu
def test_same_seed_same_search_and_batches_are_independent():
    s = c4_after([3, 3])
    a, b = mcts(s.game, "mcts:150", 7), mcts(s.game, "mcts:150", 7)
    assert a.search(s).visits == b.search(s).visits
    # act on a batch: each search has its own generator drawn from the agent's
    a, b = mcts(s.game, "mcts:150", 7), mcts(s.game, "mcts:150", 7)
    batch = a.act([s, s.clone(), s.clone()])
    assert batch.tolist() == b.act([s, s.clone(), s.clone()]).tolist()
    r = a.search(s)
    assert r.simulations == 150 and sum(r.visits.values()) == 150
    assert set(r.visits) == set(s.legal_actions())


def test_time_budget_and_single_legal_action():
    s = c4_after([3, 3])
    r = mcts(s.game, "mcts:30ms").search(s)
    assert r.simulations > 0 and r.seconds < 1.0
    # one legal move: no search at all
    game = games.make("tic_tac_toe")
    s = game.new_initial_state()
    for a in [0, 1, 2, 4, 3, 5, 7, 6]:
        s.apply_action(a)
    assert s.legal_actions() == [8]
    assert mcts(game).search(s).simulations == 0


def test_heuristic_rollouts_and_every_game_plays_legal_moves():
    for name in games.GAME_NAMES:
        game = games.make(name)
        rollout = "heuristic" if name in ("connect_four", "gwent_lite") else "random"
        players = [agents.make(f"mcts:20,rollout={rollout}", game, seed=p) for p in range(game.num_players)]
        result = play_match(game, players, num_games=game.num_players, seed=0)
        assert result.games == game.num_players  # no IllegalActionError on the way


def test_multiplayer_values_use_each_movers_return():
    """Incan Gold, 3 players: the root's values are the searching player's mean return."""
    game = games.make("incan_gold")
    s = game.new_initial_state(np.random.default_rng(0))
    r = mcts(game, "mcts:100").search(s)
    assert r.simulations == 100
    assert all(-1.0 <= v <= 1.0 for v in r.values.values())
    assert set(r.visits) <= {0, 1}


# --- determinization never reads hidden information -------------------------------------------
def _gwent_pair():
    """Two Gwent Lite states equal in everything seat 0 may know: its hand, the cards played,
    both decks as multisets, the sizes; they differ in seat 0's own draw order and in how seat
    1's unplayed cards split between hand and draw pile (and in their order)."""
    game = games.make("gwent_lite")
    rng = np.random.default_rng(5)
    deck1 = [1] * 10 + [2] * 10 + [3] * 3 + [4] * 2  # 25 cards, total 10+20+9+8 = 47
    # seat 0's deck: [2] * 10 + [3] * 5 + [5] * 5 + [7] * 5 (25 cards, total 95), split into hand and pile
    hand0 = [2, 2, 2, 3, 3, 5, 5, 7, 7, 7]
    own_pile_a = rng.permutation([2] * 7 + [3] * 3 + [5] * 3 + [7] * 2).tolist()
    own_pile_b = rng.permutation(own_pile_a).tolist()
    opp_a = rng.permutation(deck1).tolist()
    opp_b = rng.permutation(deck1).tolist()
    assert sorted(opp_a[:10]) != sorted(opp_b[:10])  # different opponent hands
    a = gwent_state(game, [hand0 + own_pile_a, opp_a], leader=0)
    b = gwent_state(game, [hand0 + own_pile_b, opp_b], leader=0)
    return game, a, b


def test_gwent_lite_search_sees_only_what_its_player_knows():
    game, a, b = _gwent_pair()
    assert a.observation(0).tolist() == b.observation(0).tolist()
    assert a.hand(1) != b.hand(1)
    ra = MCTSAgent(game, np.random.default_rng(0), parse_spec("mcts:200")).search(a, np.random.default_rng(11))
    rb = MCTSAgent(game, np.random.default_rng(0), parse_spec("mcts:200")).search(b, np.random.default_rng(11))
    assert ra.visits == rb.visits
    assert ra.values == pytest.approx(rb.values)
    assert ra.action == rb.action


def test_gwent_lite_determinizations_keep_the_known_and_redraw_the_unknown():
    game, a, _ = _gwent_pair()
    rng = np.random.default_rng(0)
    hands = set()
    for _ in range(20):
        d = a.resample_hidden(0, rng)
        assert d.hand(0) == a.hand(0)  # own hand kept
        assert sorted(d.hand(1) + d.draw_pile(1)) == sorted(a.hand(1) + a.draw_pile(1))
        assert d.hand_sizes == a.hand_sizes and d.draw_pile_sizes == a.draw_pile_sizes
        hands.add(tuple(sorted(d.hand(1))))
    assert len(hands) > 5  # the opponent's hand really is re-drawn


def _incan_pair():
    """Two Incan Gold states equal in everything seat 1 knows, mid decision step: seat 0 has
    chosen (leave in one, stay in the other), and the deck order and future shuffles differ."""
    game = games.make("incan_gold")
    a = game.new_initial_state(np.random.default_rng(1))
    b = a.clone()
    rng = np.random.default_rng(2)
    rng.shuffle(b._deck)
    b._uniforms = rng.random((game.num_rounds, len(a._uniforms[0]))).tolist()
    a.apply_action(0)
    b.apply_action(1)
    assert a.current_player == b.current_player == 1
    assert a._deck != b._deck
    return game, a, b


def test_incan_gold_search_sees_only_what_its_player_knows():
    game, a, b = _incan_pair()
    assert a.observation(1).tolist() == b.observation(1).tolist()
    ra = MCTSAgent(game, np.random.default_rng(0), parse_spec("mcts:150")).search(a, np.random.default_rng(3))
    rb = MCTSAgent(game, np.random.default_rng(0), parse_spec("mcts:150")).search(b, np.random.default_rng(3))
    assert ra.visits == rb.visits
    assert ra.values == pytest.approx(rb.values)


def test_hidden_information_search_never_touches_the_real_state():
    """Every state the search plays on comes from resample_hidden: the real one is never
    cloned, stepped or asked for returns."""
    game, a, _ = _gwent_pair()

    calls = []
    real_clone = type(a).clone

    class Spy(type(a)):
        __slots__ = ()

        def clone(self):
            calls.append("clone")
            return real_clone(self)

        def apply_action(self, action):
            calls.append("apply")
            raise AssertionError("the search stepped the real state")

        def returns(self):
            calls.append("returns")
            raise AssertionError("the search read the real state's returns")

    spy = real_clone(a)
    spy.__class__ = Spy
    real_resample = Spy.resample_hidden

    def resample(self, player, rng):
        d = real_resample(self, player, rng)
        d.__class__ = type(a)  # determinizations are plain states
        return d

    Spy.resample_hidden = resample
    r = MCTSAgent(game, np.random.default_rng(0), parse_spec("mcts:50")).search(spy, np.random.default_rng(0))
    assert r.simulations == 50
    # resample_hidden itself clones the real state once per simulation; nothing else does
    assert calls.count("clone") == 50 and "apply" not in calls and "returns" not in calls


# --- spec grammar -----------------------------------------------------------------------------
def test_spec_grammar():
    assert parse_spec("mcts") == MCTSConfig()
    cfg = parse_spec("mcts:400,c=2,rollout=heuristic")
    assert (cfg.simulations, cfg.milliseconds, cfg.c, cfg.rollout) == (400, None, 2.0, "heuristic")
    cfg = parse_spec("mcts:200ms")
    assert (cfg.simulations, cfg.milliseconds) == (None, 200.0)
    assert parse_spec("mcts:1.5s").milliseconds == 1500.0
    cfg = parse_spec("mcts:100,value=pretrained")
    assert (cfg.value, cfg.lam) == ("pretrained", 0.5)
    assert parse_spec("mcts:100,value=x.npz,lambda=0.8").lam == 0.8


@pytest.mark.parametrize(
    "spec",
    [
        "mcts:",
        "mcts:abc",
        "mcts:0",
        "mcts:-5",
        "mcts:100,c=x",
        "mcts:100,c=-1",
        "mcts:100,rollout=smart",
        "mcts:100,foo=1",
        "mcts:100,200",
        "mcts:100,lambda=0.5",
        "mcts:100,value=p,lambda=2",
        "mcts:0ms",
        "mctsx",
        "mcts:100,,c=1",
        "mcts:100,c=1,c=2",
        "mcts:nanms",
    ],
)
def test_bad_specs_fail_with_one_line(spec):
    with pytest.raises(UserError) as exc:
        agents.make(spec, games.make("connect_four"))
    assert "\n" not in str(exc.value) and "mcts" in str(exc.value)


def test_bad_spec_on_the_command_line_exits_2(capsys):
    code = cli_main(["match", "connect_four", "mcts:lots", "random", "--games", "2"])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "bad mcts spec" in err


# --- leaf values from a learned agent ---------------------------------------------------------
def _constant_q_model(tmp_path, game, q):
    """A model file whose network outputs Q = q for every action of every observation."""
    from agents.learned import NumpyNetwork, model_metadata, npz_bytes

    net = NumpyNetwork(
        [
            np.zeros((game.observation_size, 4), np.float32),
            np.zeros(4, np.float32),
            np.zeros((4, game.num_actions), np.float32),
            np.full(game.num_actions, q, np.float32),
        ],
        ["relu", "linear"],
    )
    path = tmp_path / "constant.npz"
    path.write_bytes(npz_bytes(net, model_metadata(game, net)))
    return path


def test_value_estimate_replaces_the_rollout_at_lambda_1(tmp_path):
    game = games.make("connect_four")
    path = _constant_q_model(tmp_path, game, 0.3)
    s = c4_after([3])
    # no leaf is terminal this early, so every leaf is worth +-0.3 (0.3 for the leaf's mover, -0.3
    # for the other): each root value times its visits is a whole multiple of 0.3
    r = agents.make(f"mcts:60,value={path},lambda=1", game, seed=0).search(s)
    assert r.simulations == 60

    def multiples(result):
        return [result.values[a] * result.visits[a] / 0.3 for a in result.visits]

    assert all(abs(m - round(m)) < 1e-4 for m in multiples(r))
    # lambda = 0.5 mixes in rollout results (+-1, 0): the sums are no longer multiples of 0.3
    r = agents.make(f"mcts:60,value={path},lambda=0.5", game, seed=0).search(s)
    assert not all(abs(m - round(m)) < 1e-4 for m in multiples(r))


def test_value_needs_a_learned_agent():
    with pytest.raises(UserError, match="Q-network"):
        agents.make("mcts:10,value=heuristic", games.make("connect_four"))
