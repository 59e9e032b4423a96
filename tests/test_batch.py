"""The batch form of the game interface (games/batch.py) and lock-step play over it. Every
vectorised engine is held to its game step by step by the conformance check "vectorised engine"
(games/conformance.py, run for every game in tests/test_conformance.py); here, what that check does
not reach: the engines' own deals, the words of their refusals, batches made mid-game, and the
lock-step users (play_batch, self-play, matches, fitness tasks) whose results must not depend on
which engine ran them."""

import dataclasses
import functools

import numpy as np
import pytest

import agents
import games
from agents import dqn
from agents.arena import lockstep_batch, play_batch, play_match, play_states
from agents.base import Agent, RandomAgent
from agents.learned import PRETRAINED_DIR, LearnedAgent, NumpyNetwork, load_agent
from evolution.scoring import fitness
from evolution.spaces.gwent import GwentDeal
from games.batch import StateBatch, batch_of
from games.conformance import PASSED, assert_batch_views, assert_same_state, run_check, state_fields
from games.connect_four import DRAWN_GAME, ConnectFour
from games.connect_four_batch import ConnectFourBatch
from games.decks import DeckRules
from games.errors import IllegalActionError
from games.gwent_lite_batch import GwentLiteBatch
from games.locm import PASS, PICK
from games.locm_batch import LocmBatch
from games.registry import game_names

CONNECT_FOUR = games.make("connect_four")


def assert_same(batch, states) -> None:
    """Everything the batch says about every game equals what the states say, field for field."""
    assert_batch_views(batch, states)
    for g, s in enumerate(states):
        assert_same_state(batch.state(g), s)


@pytest.mark.parametrize("name", games.GAME_NAMES)
def test_random_agent_draws_the_same_actions_from_states_and_from_a_batch(name):
    game = games.make(name)
    chance = np.random.default_rng(1)
    states = [game.new_initial_state(chance) for _ in range(40)]
    for _ in range(6):  # a few plies in, so the masks differ between games
        live = [s for s in states if not s.is_terminal()]
        if not live:
            break
        batch = StateBatch(live)
        by_states = RandomAgent(np.random.default_rng(7)).act(live)
        by_batch = RandomAgent(np.random.default_rng(7)).act_batch(batch, np.arange(len(live)))
        assert by_batch.tolist() == by_states.tolist()
        for s, a in zip(live, by_states.tolist()):
            s.apply_action(a)


def test_play_batch_on_copies_leaves_the_states_alone_and_matches_play_states():
    game = games.make("gwent_lite")
    states = [game.new_initial_state(s) for s in range(30)]
    batch = batch_of(states)
    steps = play_batch(
        batch, [(0, 1)] * 30, [RandomAgent(np.random.default_rng(3)), RandomAgent(np.random.default_rng(4))]
    )
    assert all(not s.is_terminal() for s in states)
    assert batch.is_terminal().all()
    play_states(states, [(0, 1)] * 30, [RandomAgent(np.random.default_rng(3)), RandomAgent(np.random.default_rng(4))])
    assert np.array_equal(batch.returns(), np.array([s.returns() for s in states]))
    assert steps > 30


@pytest.mark.cross_cpu
@pytest.mark.parametrize("mode", ["sample", "greedy"])
def test_a_policy_agent_acts_the_same_on_states_and_on_a_vectorised_batch(mode):
    from agents.learned import NumpyNetwork
    from agents.policy import PolicyAgent

    game = games.make("connect_four")
    rng = np.random.default_rng(0)
    weights = [rng.normal(size=(84, 32)), np.zeros(32), rng.normal(size=(32, 7)), np.zeros(7)]
    net = NumpyNetwork(weights, ["relu", "linear"])
    states = [game.new_initial_state(None) for _ in range(50)]
    for _ in range(8):
        by_states = PolicyAgent(game, net, mode, np.random.default_rng(5)).act(states)
        batch = batch_of(states)
        by_batch = PolicyAgent(game, net, mode, np.random.default_rng(5)).act_batch(batch, np.arange(len(states)))
        assert by_batch.tolist() == by_states.tolist()
        for s, a in zip(states, by_states.tolist()):
            s.apply_action(a)
        states = [s for s in states if not s.is_terminal()]


# --- Connect Four -----------------------------------------------------------------------------
def play(moves) -> ConnectFourBatch:
    """One game of `moves` (columns, or their digits) on the vectorised engine."""
    batch = ConnectFourBatch(CONNECT_FOUR, 1)
    for c in moves:
        batch.apply_actions(np.array([0]), np.array([int(c)]))
    return batch


def test_illegal_actions_name_the_game_and_the_action_and_change_nothing():
    batch = play("000000")  # column 0 full, player 0 to move
    before = state_fields(batch.state(0))
    for bad in (np.array([0]), np.array([7]), np.array([-1]), np.array([2.0]), np.array([True])):
        with pytest.raises(IllegalActionError, match=r"connect_four: action .* \(game 0 of the batch\)"):
            batch.apply_actions(np.array([0]), bad)
        assert state_fields(batch.state(0)) == before
    with pytest.raises(IllegalActionError, match="connect_four: action 0 is not legal for player 0"):
        batch.apply_actions(np.array([0]), np.array([0]))
    # many games, one illegal action: refused before anything moves
    many = ConnectFourBatch.from_states([batch.state(0)] * 3)
    snapshot = [state_fields(many.state(g)) for g in range(3)]
    with pytest.raises(IllegalActionError, match="action 0 is not legal.*game 2 of the batch"):
        many.apply_actions(np.array([0, 1, 2]), np.array([3, 4, 0]))
    assert [state_fields(many.state(g)) for g in range(3)] == snapshot
    won = play("0101010")
    with pytest.raises(IllegalActionError, match="connect_four: action 3 after the game has ended"):
        won.apply_actions(np.array([0]), np.array([3]))


def test_from_states_of_mid_game_and_finished_positions_then_played_on():
    rng = np.random.default_rng(5)
    states = []
    for _ in range(60):
        s = CONNECT_FOUR.new_initial_state(None)
        for _ in range(int(rng.integers(0, 43))):
            if s.is_terminal():
                break
            s.apply_action(int(rng.choice(s.legal_actions())))
        states.append(s)
    states.append(play(DRAWN_GAME).state(0))
    assert any(s.is_terminal() for s in states) and any(not s.is_terminal() for s in states)
    batch = ConnectFourBatch.from_states(states)
    assert_same(batch, states)
    copies = [s.clone() for s in states]
    play_batch(
        batch, [(0, 1)] * len(states), [RandomAgent(np.random.default_rng(1)), RandomAgent(np.random.default_rng(2))]
    )
    play_states(
        copies, [(0, 1)] * len(states), [RandomAgent(np.random.default_rng(1)), RandomAgent(np.random.default_rng(2))]
    )
    assert_same(batch, copies)
    assert [state_fields(s) for s in states] != [state_fields(s) for s in copies]  # from_states copied the states


class Logged(Agent):
    """Wraps an agent and logs every action it returns (through whichever path it is asked)."""

    def __init__(self, inner: Agent):
        self.inner, self.log = inner, []

    def act(self, states):
        actions = self.inner.act(states)
        self.log.append(actions.tolist())
        return actions

    def act_batch(self, batch, games_):
        actions = self.inner.act_batch(batch, games_)
        self.log.append(actions.tolist())
        return actions


def shipped_or_random_agent() -> LearnedAgent:
    if (PRETRAINED_DIR / "connect_four.npz").is_file():
        agent = load_agent("pretrained", CONNECT_FOUR)
        assert isinstance(agent, LearnedAgent)
        return agent
    rng = np.random.default_rng(3)
    sizes = [CONNECT_FOUR.observation_size, 64, CONNECT_FOUR.num_actions]
    weights = [w for a, b in zip(sizes, sizes[1:]) for w in (rng.normal(size=(a, b)), rng.normal(size=b))]
    return LearnedAgent(CONNECT_FOUR, NumpyNetwork(weights, ["relu", "tanh"]))


@pytest.mark.parametrize("opponent", ["random", "learned", "heuristic", "mcts:12"])
def test_play_batch_on_the_engine_plays_as_play_states(opponent):
    def lineup():
        other = {
            "random": lambda: RandomAgent(np.random.default_rng(8)),
            "learned": shipped_or_random_agent,
        }.get(opponent, lambda: agents.make(opponent, CONNECT_FOUR, seed=4))()  # the others decide on states(g)
        return [Logged(RandomAgent(np.random.default_rng(7))), Logged(other)]

    n = 12 if opponent.startswith("mcts") else 80
    seats = [(0, 1) if g % 2 == 0 else (1, 0) for g in range(n)]
    states = [CONNECT_FOUR.new_initial_state(None) for _ in range(n)]
    batch = ConnectFourBatch.from_states(states)
    by_batch, by_states = lineup(), lineup()
    steps = play_batch(batch, seats, by_batch)
    assert play_states(states, seats, by_states) == steps
    assert [a.log for a in by_batch] == [a.log for a in by_states]
    assert_same(batch, states)


def random_network(seed: int) -> NumpyNetwork:
    rng = np.random.default_rng(seed)
    sizes = [CONNECT_FOUR.observation_size, 48, 48, CONNECT_FOUR.num_actions]
    weights = [w for a, b in zip(sizes, sizes[1:]) for w in (rng.normal(size=(a, b)) * 0.3, rng.normal(size=b) * 0.1)]
    return NumpyNetwork(weights, ["relu", "relu", "tanh"])


def run_self_play(seed: int, **kwargs):
    rng = np.random.default_rng(seed)
    recorder = dqn.SelfPlayRecorder(random_network(seed), rng)
    results = [dqn.self_play(CONNECT_FOUR, recorder, 40, eps, 0.85, rng, **kwargs) for eps in (0.3, 0.05)]
    return results, recorder.decisions, rng.random(4)  # and where the generator ended


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"random_opening_moves": 6, "opponents": "mix"},
    ],
)
def test_self_play_on_the_engine_is_self_play_on_states(monkeypatch, kwargs):
    def opponents():
        if kwargs.get("opponents") != "mix":
            return {}
        return {
            "opponents": [
                (agents.make("heuristic", CONNECT_FOUR, seed=5), 0.2),
                (agents.make("random", CONNECT_FOUR, seed=6), 0.4),
            ]
        }

    settings = {k: v for k, v in kwargs.items() if k != "opponents"}
    fast = run_self_play(3, **settings, **opponents())
    monkeypatch.setattr(ConnectFour, "batch_class", None)  # every game a plain State
    slow = run_self_play(3, **settings, **opponents())
    (fast_results, fast_decisions, fast_next), (slow_results, slow_decisions, slow_next) = fast, slow
    for a, b in zip(fast_results, slow_results):
        for x, y in zip(a, b):  # observations, actions, targets, returns
            assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y)
    assert fast_decisions == slow_decisions
    assert np.array_equal(fast_next, slow_next)


def test_self_play_targets_equal_episode_targets():
    rng = np.random.default_rng(11)
    recorder = dqn.SelfPlayRecorder(random_network(11), rng)
    obs, actions, targets, returns = dqn.self_play(CONNECT_FOUR, recorder, 30, 0.5, 0.9, rng)
    expected = np.empty(len(obs), dtype=np.float32)
    for g, decisions in enumerate(recorder.decisions):
        players, rows = zip(*decisions)
        expected[list(rows)] = dqn.episode_targets(players, returns[g].tolist(), 0.9)
    assert np.array_equal(targets, expected)


def test_matches_give_the_same_results_on_either_engine(monkeypatch):
    def matches():
        lineups = [("random", "random"), ("pretrained", "random"), ("heuristic", "random")]
        if not (PRETRAINED_DIR / "connect_four.npz").is_file():
            lineups = lineups[::2]
        return [
            play_match(
                CONNECT_FOUR,
                [agents.make(spec, CONNECT_FOUR, seed=i + 3) for i, spec in enumerate(specs)],
                60,
                seed=7,
                batch_size=24,
            ).as_dict()
            for specs in lineups
        ]

    fast = matches()
    monkeypatch.setattr(ConnectFour, "batch_class", None)
    assert matches() == fast


def test_lockstep_batch_uses_the_engine_only_for_batch_agents():
    states = [CONNECT_FOUR.new_initial_state(None) for _ in range(4)]
    assert isinstance(lockstep_batch(states), ConnectFourBatch)
    assert isinstance(
        lockstep_batch(states, [RandomAgent(np.random.default_rng(0)), shipped_or_random_agent()]), ConnectFourBatch
    )
    in_place = lockstep_batch(states, [agents.make("heuristic", CONNECT_FOUR, seed=0)])
    assert isinstance(in_place, StateBatch) and in_place.states[0] is states[0]
    ttt = games.make("tic_tac_toe")
    assert isinstance(lockstep_batch([ttt.new_initial_state(None)]), StateBatch)


def test_nfsp_ppo_rollouts_on_the_engine_are_rollouts_on_states(monkeypatch):
    from agents.rollout import Recorder, play_recorded

    def rollout():
        noise = np.random.default_rng(4)

        def choose(obs, masks, games_, players):  # a stand-in learner: random legal, obs-dependent extra
            return np.where(masks, noise.random(masks.shape), -1.0).argmax(axis=1), {"seen": obs.sum(axis=1)}

        rng = np.random.default_rng(3)
        opponents = [
            (agents.make("heuristic", CONNECT_FOUR, seed=5), 0.25),
            (agents.make("random", CONNECT_FOUR, seed=6), 0.25),
        ]
        b = play_recorded(CONNECT_FOUR, Recorder(choose), 40, rng, opponents)
        return [b.obs, b.masks, b.actions, b.games, b.players, b.returns, b.extras["seen"], rng.random(2)]

    fast = rollout()
    monkeypatch.setattr(ConnectFour, "batch_class", None)
    for x, y in zip(fast, rollout()):
        assert x.dtype == y.dtype and np.array_equal(x, y)


# --- Gwent Lite -------------------------------------------------------------------------------
def big_card_deck(rules: DeckRules, rng) -> list[int]:
    """min_cards - 1 cards of the minimum power and one card as big as the budget allows."""
    return [rules.min_power] * (rules.min_cards - 1) + [rules.max_power - int(rng.integers(0, 3))]


def random_config(rng) -> dict:
    """A random game config: small and default rules, hands and draws, 1 to 3 round wins; fixed
    decks (random legal, long, or one big card), a deck pool, or random decks."""
    rules = [DeckRules(), DeckRules(6, 30, 1), DeckRules(4, 40, 2), DeckRules(1, 9, 1)][int(rng.integers(4))]
    config = {
        "rules": rules,
        "hand_size": int(rng.choice([1, 2, 3, 10])),
        "round_draw": int(rng.choice([0, 1, 3, 7])),
        "rounds_to_win": int(rng.choice([1, 2, 3])),
    }
    kind = int(rng.integers(4))
    if kind == 0:
        config["decks"] = [rules.random_deck(rng), rules.random_deck(rng)]
    elif kind == 1:
        long_deck = [rules.min_power] * (rules.max_total // rules.min_power)  # more than min_cards cards
        config["decks"] = [big_card_deck(rules, rng), long_deck]
    elif kind == 2:
        config["deck_pool"] = [rules.random_deck(rng), big_card_deck(rules, rng)]
        config["pool_share"] = 0.5
    return config


@pytest.mark.parametrize("seed", range(8))
def test_random_configs_step_as_their_games_and_deal_their_seeds(seed):
    rng = np.random.default_rng(seed)
    game = games.make("gwent_lite", **random_config(rng))
    assert run_check(game, "vectorised engine", 12).status == PASSED
    # integer seeds (some repeated, as mirrored deals repeat them): dealt as the games of those seeds
    seeds = [int(s) for s in rng.integers(2**63, size=10)] * 2
    states = [game.new_initial_state(s) for s in seeds]
    dealt = GwentLiteBatch.deal(game, seeds)
    assert_same(dealt, states)
    play_batch(dealt, [(0, 1)] * len(seeds), [RandomAgent(np.random.default_rng(seed))] * 2)
    play_states(states, [(0, 1)] * len(seeds), [RandomAgent(np.random.default_rng(seed))] * 2)
    assert_same(dealt, states)


def test_games_with_different_decks_in_one_batch_and_states_mid_game():
    rng = np.random.default_rng(5)
    rules = DeckRules()
    made = [games.make("gwent_lite", decks=[rules.random_deck(rng), big_card_deck(rules, rng)]) for _ in range(6)]
    made.append(games.make("gwent_lite", decks=[[1] * 100, rules.random_deck(rng)]))  # 100 cards
    seeds = [int(s) for s in rng.integers(2**63, size=len(made))]
    states = [g.new_initial_state(s) for g, s in zip(made, seeds)]
    for s in states[:3]:  # some games already under way
        for _ in range(7):
            if not s.is_terminal():
                s.apply_action(s.legal_actions()[-1])
    fresh = [g.new_initial_state(s) for g, s in zip(made, seeds)]
    # decks given in any card order: dealt as the games made with them (which sort them)
    unsorted = [[rng.permutation(d).tolist() for d in g.config.decks] for g in made]
    dealt = GwentLiteBatch.deal(games.make("gwent_lite"), seeds, unsorted)
    assert_same(dealt, fresh)  # the configs too: the games made with the decks
    batch = GwentLiteBatch.from_states(states)
    assert_same(batch, states)
    agent = RandomAgent(np.random.default_rng(1))
    play_batch(batch, [(0, 0)] * len(states), [agent])
    play_states(states, [(0, 0)] * len(states), [RandomAgent(np.random.default_rng(1))])
    assert_same(batch, states)
    assert [str(batch.state(g)) for g in range(len(states))] == [str(s) for s in states]


def test_games_with_different_settings_fall_back_to_a_state_batch():
    states = [games.make("gwent_lite").new_initial_state(1), games.make("gwent_lite", hand_size=3).new_initial_state(1)]
    assert isinstance(batch_of(states), StateBatch)
    with pytest.raises(ValueError, match="2 seeds but 1 pairs"):
        GwentLiteBatch.deal(states[0].game, [1, 1], [[[1] * 25] * 2])


def test_illegal_actions_name_the_game_and_change_nothing():
    game = games.make("gwent_lite", decks=[[4] * 25, [4] * 25])
    batch = GwentLiteBatch.deal(game, [1, 2, 3])
    before = batch.observations(np.arange(3)).copy()
    with pytest.raises(IllegalActionError, match=r"game 2: action 5 is not legal for player \d \(legal: \[0, 4\]\)"):
        batch.apply_actions(np.array([0, 2]), np.array([4, 5]))
    for bad in (np.array([0, 77]), np.array([0, -1])):
        with pytest.raises(IllegalActionError, match="game 1"):
            batch.apply_actions(np.array([0, 1]), bad)
    with pytest.raises(IllegalActionError, match="not an integer"):
        batch.apply_actions(np.array([0]), np.array([4.0]))
    with pytest.raises(IllegalActionError, match="not an integer"):
        batch.apply_actions(np.array([0]), np.array([True]))
    assert np.array_equal(batch.observations(np.arange(3)), before)
    play_batch(batch, [(0, 0)] * 3, [RandomAgent(np.random.default_rng(0))])
    with pytest.raises(IllegalActionError, match="game 1: action 0 after the game has ended"):
        batch.apply_actions(np.array([1]), np.array([0]))


@pytest.mark.parametrize("kind", ["random", "pretrained"])
def test_play_batch_equals_play_states(kind):
    game = games.make("gwent_lite")
    states = [game.new_initial_state(s) for s in range(60)]
    seats = [(g % 2, 1 - g % 2) for g in range(60)]

    def panel():
        if kind == "random":
            return [RandomAgent(np.random.default_rng(3)), RandomAgent(np.random.default_rng(4))]
        return [agents.make("pretrained", game), agents.make("random", game, seed=4)]

    batch = batch_of(states)
    assert isinstance(batch, GwentLiteBatch)
    steps = play_batch(batch, seats, panel())
    assert steps == play_states(states, seats, panel())
    assert_same(batch, states)


def scalar_batch(rules, seeds, decks):
    """A task's deal on the scalar engine: a StateBatch of states of games made with the decks."""
    made = [games.make("gwent_lite", rules=rules, decks=[list(a), list(b)]) for a, b in decks]
    return StateBatch([g.new_initial_state(s) for g, s in zip(made, seeds)])


def test_play_task_outcomes_equal_the_state_batch_path():
    rules = DeckRules()
    rng = np.random.default_rng(2)
    decks = [tuple(rules.random_deck(rng)) for _ in range(4)] + [tuple([1] * 24 + [76])]
    pairings, _ = fitness.round_robin(decks, 3, 7, fitness.STAGE_EVOLVE, 0)
    game = games.make("gwent_lite", rules=rules)
    panel = fitness.AgentPanel((agents.make("pretrained", game), agents.make("random", game, seed=1)), ("p", "r"))
    heuristic = agents.make("heuristic", game, seed=2)  # decides on states: played as states
    for agent in (agents.make("pretrained", game), panel, heuristic):
        (_, task), *_ = fitness.make_tasks(pairings, agent, GwentDeal(rules), 10_000, (7, fitness.STAGE_EVOLVE, 0))
        vectorised = fitness.play_task(agent, task)
        by_states = fitness.play_task(agent, dataclasses.replace(task, deal=functools.partial(scalar_batch, rules)))
        assert len(vectorised) == len(pairings)
        assert all(np.array_equal(a, b) and a.dtype == b.dtype == np.int8 for a, b in zip(vectorised, by_states))


def test_numpy_seeding_replayed_exactly_for_many_seeds():
    from games.numpy_streams import SeedStreams, shuffles

    rng = np.random.default_rng(11)
    edge = [0, 1, 5, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1]
    seeds = np.concatenate([rng.integers(2**64, size=400, dtype=np.uint64), np.array(edge, dtype=np.uint64)])
    leaders, seats = SeedStreams.chance(seeds)
    lengths = rng.integers(1, 120, size=len(seeds))
    perms = shuffles(seats[:, 1], lengths.tolist())
    for k, seed in enumerate(seeds.tolist()):
        numpy_rng = np.random.default_rng(seed)
        assert int(numpy_rng.integers(2)) == leaders[k]
        assert numpy_rng.integers(2**63, size=2).tolist() == seats[k].tolist()
        n = int(lengths[k])
        assert np.random.default_rng(int(seats[k, 1])).permutation(n).tolist() == perms[k, :n].tolist()


def test_deals_fall_back_to_numpy_generators(monkeypatch):
    import games.numpy_streams as streams

    rules = DeckRules()
    rng = np.random.default_rng(3)
    made = [games.make("gwent_lite", decks=[rules.random_deck(rng), [1] * 30]) for _ in range(5)]
    seeds = [int(s) for s in rng.integers(2**63, size=5)]
    monkeypatch.setattr(streams, "_STREAMS_OK", False)
    dealt = GwentLiteBatch.deal(games.make("gwent_lite"), seeds, [g.config.decks for g in made])
    assert_same(dealt, [g.new_initial_state(s) for g, s in zip(made, seeds)])


# --- Legends of Code and Magic ----------------------------------------------------------------
def test_dealt_games_are_legal_games_and_illegal_actions_are_refused():
    game = games.make("locm")
    batch = LocmBatch.deal(game, np.random.default_rng(0), 50)
    offers = np.array([batch.state(g).offers() for g in range(50)])
    assert offers.shape == (50, 3) and all(len(set(row)) == 3 for row in offers.tolist())
    with pytest.raises(IllegalActionError, match="game 7"):
        batch.apply_actions(np.array([3, 7]), np.array([PICK, PASS]))
    every = np.arange(50)
    for _ in range(60):
        batch.apply_actions(every, np.full(50, PICK + 1))
    state = batch.state(4)
    assert state.phase == "battle" and state.hand_sizes == (5, 5)
    assert sorted(state.hand(0) + state.deck(0)) == sorted(state.picks(0))
    given = LocmBatch.deal(games.make("locm", decks=[[3] * 30, [5] * 30]), np.random.default_rng(0), 4)
    assert given.state(0).phase == "battle" and given.state(3).hand(1) == [5] * 5


def test_battles_dealt_from_a_deck_pool_observe_as_their_states_do():
    rng = np.random.default_rng(2)
    game = games.make("locm", deck_pool=[rng.integers(1, 161, size=30).tolist() for _ in range(5)])
    batch = LocmBatch.deal(game, np.random.default_rng(1), 16)
    every = np.arange(16)
    for _ in range(40):
        for seat in (0, 1):
            seen = batch.observations(every, np.full(16, seat))
            assert np.array_equal(seen, np.stack([batch.state(g).observation(seat) for g in range(16)]))
        live = np.flatnonzero(batch.current_players() >= 0)
        masks = batch.legal_masks(live)
        batch.apply_actions(live, np.array([rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64))


def test_the_batch_accepts_exactly_the_actions_of_its_legal_masks():
    game = games.make("locm")
    states = [game.new_initial_state(np.random.default_rng(seed)) for seed in range(12)]
    rng = np.random.default_rng(3)
    for state in states:
        for _ in range(int(rng.integers(60, 160))):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
    batch = LocmBatch.from_states(states)
    every = np.arange(len(states))
    masks = batch.legal_masks(every)
    for action in range(-1, game.num_actions + 1):
        expected = masks[:, action] if 0 <= action < game.num_actions else np.zeros(len(states), bool)
        assert np.array_equal(batch._legal(every, np.full(len(states), action)), expected), action


@pytest.mark.parametrize("name", ["gwent_abilities", "connect_four"])
def test_take_copies_the_chosen_games_in_order_and_leaves_the_batch_alone(name):
    game = games.make(name)
    rng = np.random.default_rng(5)
    states = [game.new_initial_state(rng) for _ in range(3)]
    for s in states[1:]:
        s.apply_action(s.legal_actions()[-1])
    batch = batch_of(states)
    before = [batch.state(g).clone() for g in range(3)]
    chosen = [2, 0, 2]
    taken = batch.take(np.array(chosen))
    assert taken.size == len(chosen)
    for i, g in enumerate(chosen):
        assert_same_state(taken.state(i), before[g])
    taken.apply_actions(np.arange(len(chosen)), np.array([before[g].legal_actions()[0] for g in chosen]))
    for g in range(3):
        assert_same_state(batch.state(g), before[g])


@pytest.mark.parametrize("name", game_names())
def test_a_state_batch_answers_for_no_games_with_empty_arrays(name):
    game = games.make(name)
    batch = StateBatch([game.new_initial_state(np.random.default_rng(0))])
    none = np.array([], dtype=np.int64)
    assert batch.observations(none).shape == (0, game.observation_size)
    assert batch.observations(none, none).dtype == np.float32
    assert batch.legal_masks(none).shape == (0, game.num_actions)
