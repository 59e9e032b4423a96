"""The vectorised Gwent Lite engine (games/gwent_lite_batch.py) plays exactly as the scalar one."""

import dataclasses
import functools

import numpy as np
import pytest

import agents
import games
from agents.arena import play_batch, play_states
from agents.base import RandomAgent
from evolution.scoring import fitness
from evolution.spaces.gwent import GwentDeal
from games.batch import StateBatch, batch_of
from games.decks import DeckRules
from games.errors import IllegalActionError
from games.gwent_lite_batch import GwentLiteBatch


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


def assert_same(batch, states):
    """Every public fact of the batch equals the scalar states', for both viewers."""
    n = len(states)
    idx = np.arange(n)
    players = np.array([s.current_player for s in states])
    assert batch.current_players().tolist() == players.tolist()
    game = states[0].game
    assert np.array_equal(batch.legal_masks(idx), game.legal_masks(states))
    for viewer in (0, 1):
        seen = np.full(n, viewer)
        expected = game.observations(states, seen.tolist())
        got = batch.observations(idx, seen)
        assert got.dtype == np.float32 and np.array_equal(got.view(np.int32), expected.view(np.int32))
    live = np.flatnonzero(players >= 0)
    if live.size:
        assert np.array_equal(batch.observations(live), game.observations([states[g] for g in live]))
    assert np.array_equal(batch.returns(), np.array([s.returns() for s in states]))


def same_fields(a, b) -> bool:
    names = [n for n in a.__slots__ if n != "game"]
    return all(getattr(a, n) == getattr(b, n) for n in names)


@pytest.mark.parametrize("seed", range(24))
def test_every_ply_equals_the_scalar_engine(seed):
    rng = np.random.default_rng(seed)
    game = games.make("gwent_lite", **random_config(rng))
    # integer seeds (some repeated, as mirrored deals repeat them) and a Generator
    seeds = [int(s) for s in rng.integers(2**63, size=20)] * 2 + [np.random.default_rng(seed)]
    states = [
        game.new_initial_state(s if not isinstance(s, np.random.Generator) else np.random.default_rng(seed))
        for s in seeds
    ]
    dealt = GwentLiteBatch.deal(game, seeds)
    copied = batch_of(states)
    assert isinstance(copied, GwentLiteBatch)
    chooser = np.random.default_rng(seed + 100)
    for _ply in range(400):
        for batch in (dealt, copied):
            assert_same(batch, states)
        g = int(chooser.integers(len(states)))
        assert same_fields(dealt.state(g), states[g]) and same_fields(copied.state(g), states[g])
        live = np.flatnonzero([not s.is_terminal() for s in states])
        if not live.size:
            break
        actions = np.array([chooser.choice(states[i].legal_actions()) for i in live], dtype=np.int64)
        for i, a in zip(live, actions):
            states[i].apply_action(int(a))
        dealt.apply_actions(live, actions)
        copied.apply_actions(live[::-1].copy(), actions[::-1].copy())  # any order of games
    assert all(s.is_terminal() for s in states)


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
    assert_same(dealt, fresh)
    for g, s in enumerate(fresh):
        assert same_fields(dealt.state(g), s) and dealt.state(g).game.config == s.game.config
    batch = GwentLiteBatch.from_states(states)
    assert_same(batch, states)
    agent = RandomAgent(np.random.default_rng(1))
    play_batch(batch, [(0, 0)] * len(states), [agent])
    play_states(states, [(0, 0)] * len(states), [RandomAgent(np.random.default_rng(1))])
    assert_same(batch, states)
    for g, s in enumerate(states):
        assert same_fields(batch.state(g), s) and str(batch.state(g)) == str(s)


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
