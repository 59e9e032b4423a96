"""Incan Gold (games/RULES.md §4): hand-worked scenarios on stacked decks, and properties over seeded
random games beyond the conformance suite's (cards conserved, gems accounted for)."""

from collections import Counter

import numpy as np
import pytest
from conftest import stack_incan_gold_round

import agents
import games
from agents.arena import play_match
from games.errors import IllegalActionError, UserError
from games.incan_gold import (
    ARTIFACT_VALUES,
    HAZARD_COPIES,
    HAZARD_KINDS,
    LEAVE,
    MAX_DECK,
    STAY,
    TREASURES,
    Card,
)

L, S = LEAVE, STAY


def stacked(cards, num_players=3, num_rounds=5, rank_returns=False, seed=0):
    """A fresh game whose first round turns `cards` first, in order."""
    game = games.make("incan_gold", num_players=num_players, num_rounds=num_rounds, rank_returns=rank_returns)
    state = game.new_initial_state(np.random.default_rng(seed))
    stack_incan_gold_round(state, cards)
    return state


def step(state, *choices):
    """One decision step: `choices` for the players in the temple, in seat order."""
    inside = [p for p, i in enumerate(state.in_temple) if i]
    assert len(choices) == len(inside), (choices, inside)
    for p, c in zip(inside, choices):
        assert state.current_player == p
        state.apply_action(c)


# --- hand-worked scenarios -----------------------------------------------------------------------
def test_treasure_split_leaves_remainder_on_path():
    s = stacked([17])
    assert s.path == (Card("treasure", 17),)
    assert s.round_gems == (5, 5, 5)
    assert s.gems_on_path == 2
    assert s.current_player == 0 and s.round == 1


def test_joint_leavers_split_path_and_take_no_artifact_then_lone_leaver_does():
    s = stacked([17, "artifact", 1, 2])
    step(s, S, S, S)  # artifact
    assert s.artifacts_on_path == 1
    step(s, S, S, S)  # 1 gem among 3: all of it stays on the path -> 3 on the path
    assert s.gems_on_path == 3 and s.round_gems == (5, 5, 5)
    step(s, L, L, S)  # two leave: 3 // 2 = 1 each, 1 stays; the artifact stays too
    assert s.banked == (6, 6, 0)
    assert s.artifacts_claimed == (0, 0, 0)
    assert s.artifacts_on_path == 1
    assert s.in_temple == (False, False, True)
    # the card turned after that step: 2 gems, all to the one player left inside
    assert s.path[-1] == Card("treasure", 2)
    assert s.round_gems == (0, 0, 7) and s.gems_on_path == 1
    step(s, L)  # alone: path gems and the artifact (the first claimed: 5)
    assert s.banked == (6, 6, 7 + 1 + 5)
    assert s.artifacts_claimed == (0, 0, 1) and s.artifact_gems == (0, 0, 5)
    assert s.round == 2 and s.in_temple == (True, True, True)


def test_lone_leaver_takes_the_artifact_off_the_path():
    s = stacked(["artifact", 3])
    assert s.artifact_worth == 5
    step(s, L, S, S)
    assert s.banked == (5, 0, 0)
    assert s.artifacts_claimed == (1, 0, 0)
    assert all(c.kind != "artifact" for c in s.path)
    assert s.artifacts_on_path == 0


def test_fourth_artifact_claimed_is_worth_ten():
    s = stacked(["artifact", "fire", "fire"])
    for r in range(4):
        kind = HAZARD_KINDS[r]
        if r:
            stack_incan_gold_round(s, ["artifact", kind, kind])
        assert s.round == r + 1
        assert s.artifact_worth == ARTIFACT_VALUES[r]
        step(s, L, S, S)  # player 0 grabs the artifact alone
        step(s, S, S)  # first hazard of the kind turned above; the next is its second
        assert s.round == r + 2
    assert s.banked == (5 + 5 + 5 + 10, 0, 0)
    assert s.artifacts_claimed == (4, 0, 0)
    assert s.removed_hazards == HAZARD_KINDS[:4]


def test_second_hazard_ends_round_zeroes_round_gems_and_is_removed():
    s = stacked([5, "snakes", "snakes"])
    assert s.round_gems == (1, 1, 1) and s.gems_on_path == 2
    step(s, L, S, S)  # player 0 banks 1 + the 2 on the path
    assert s.banked == (3, 0, 0)
    assert s.path[-1] == Card("hazard", "snakes") and s.repeat_hazard_chance > 0
    step(s, S, S)  # second snakes
    assert s.round == 2
    assert s.banked == (3, 0, 0)  # who left keeps it; who stayed lost 1 each
    first = s.path[0]  # the new round starts fresh: round gems come from its first card only
    assert s.round_gems == ((first.value // 3,) * 3 if first.kind == "treasure" else (0, 0, 0))
    assert s.removed_hazards == ("snakes",)
    snakes = Card("hazard", "snakes")
    on_path = sum(c == snakes for c in s.path)
    assert s.deck_composition.get(snakes, 0) + on_path == HAZARD_COPIES - 1
    assert "second snakes" in str(s)


def test_tie_broken_by_artifacts_and_rank_returns_average_ties():
    for rank in (False, True):
        s = stacked(["artifact", 11], num_rounds=1, rank_returns=rank)
        step(s, L, S, S)  # player 0: the artifact, 5
        step(s, L, L)  # players 1 and 2: 5 each, the 1 left on the path cannot be shared
        assert s.is_terminal()
        assert s.banked == (5, 5, 5) and s.artifacts_claimed == (1, 0, 0)
        expected = [1.0, -0.5, -0.5] if rank else [1.0, -1.0, -1.0]
        assert s.returns().tolist() == expected
        assert s.current_player == games.TERMINAL
        assert not s.legal_mask().any()


def test_tied_first_places_return_zero():
    for rank, expected in ((False, [0.0, 0.0, -1.0]), (True, [0.5, 0.5, -1.0])):
        s = stacked([14, "fire"], num_rounds=1, rank_returns=rank)
        step(s, L, L, S)  # 4 each + 2 // 2 from the path
        step(s, L)
        assert s.banked == (5, 5, 4)
        assert s.returns().tolist() == expected


def test_rank_returns_evenly_spaced():
    s = stacked([4, 3, 2, 1], num_players=4, num_rounds=1, rank_returns=True)
    step(s, L, S, S, S)  # p0: 1
    step(s, L, S, S)  # p1: 1 + 1
    step(s, L, S)  # p2: 1 + 1 + 1
    step(s, L)  # p3: 1 + 1 + 1 + 1
    assert s.banked == (1, 2, 3, 4)
    np.testing.assert_allclose(s.returns(), [-1.0, -1 / 3, 1 / 3, 1.0])
    # the default: only the sole winner gets +1
    s = stacked([4, 3, 2, 1], num_players=4, num_rounds=1)
    step(s, L, S, S, S)
    step(s, L, S, S)
    step(s, L, S)
    step(s, L)
    assert s.returns().tolist() == [-1.0, -1.0, -1.0, 1.0]


def test_later_player_sees_nothing_of_earlier_choices_in_the_step():
    base = stacked([9, "artifact"])
    after = {}
    for choice in (L, S):
        s = base.clone()
        s.apply_action(choice)
        assert s.current_player == 1
        after[choice] = s
    for p in range(3):
        np.testing.assert_array_equal(after[L].observation(p), after[S].observation(p))
    assert after[L].view(1) == after[S].view(1)
    assert after[L].view(0) != after[S].view(0)  # the chooser sees their own choice
    assert str(after[L]) != str(after[S])  # str shows everything


def test_resample_hidden_redraws_deck_and_others_pending_choices():
    s = stacked([9])
    s.apply_action(L)  # player 0
    s.apply_action(S)  # player 1; player 2 to choose
    rng = np.random.default_rng(0)
    seen_p0, seen_order = set(), set()
    for _ in range(40):
        r = s.resample_hidden(2, rng)
        seen_p0.add(r._pending[0])
        assert r._pending[1] in (L, S) and r._pending[2] == -1
        assert Counter(r._deck) == Counter(s._deck)
        seen_order.add(tuple(r._deck))
        np.testing.assert_array_equal(r.observation(2), s.observation(2))
    assert seen_p0 == {L, S} and len(seen_order) > 30
    # player 1's own choice is kept when resampling for player 1
    assert all(s.resample_hidden(1, rng)._pending[1] == S for _ in range(20))


def test_player_counts_and_bad_config():
    for n in range(3, 9):
        game = games.make("incan_gold", num_players=n)
        s = game.new_initial_state(np.random.default_rng(n))
        assert game.num_players == n and len(s.returns()) == n
        assert s.observation(0).shape == (game.observation_size,)
    for bad in (2, 9, 0, 3.0, "4", True):
        with pytest.raises(UserError, match="num_players"):
            games.make("incan_gold", num_players=bad)
    for bad in (0, 11):
        with pytest.raises(UserError, match="num_rounds"):
            games.make("incan_gold", num_rounds=bad)
    with pytest.raises(UserError, match="unknown setting"):
        games.make("incan_gold", players=3)
    with pytest.raises(UserError, match="rank_returns must be true or false"):
        games.make("incan_gold", rank_returns=1)
    assert games.make("incan_gold").num_players == 3


def test_the_generator_is_required():
    """No silent unseeded default: a game's shuffles always come from a seed the caller chose."""
    game = games.make("incan_gold")
    with pytest.raises(TypeError):
        game.new_initial_state()
    with pytest.raises(TypeError, match="random generator"):
        game.new_initial_state(None)
    assert str(game.new_initial_state(7)) == str(game.new_initial_state(np.random.default_rng(7)))


def test_illegal_actions_raise():
    s = stacked([9], num_rounds=1)
    for bad in (2, -1, 1.5, 1.0, "1", None, True):
        with pytest.raises(IllegalActionError):
            s.apply_action(bad)
    s.apply_action(np.int64(1))  # numpy ints are fine
    assert s.current_player == 1
    while not s.is_terminal():
        s.apply_action(L)
    with pytest.raises(IllegalActionError, match="ended"):
        s.apply_action(0)


# --- properties over seeded random games --------------------------------------------------------
FULL_SET = {("treasure", v): TREASURES.count(v) for v in set(TREASURES)}
FULL_SET.update({("hazard", k): HAZARD_COPIES for k in HAZARD_KINDS})


def card_counts(s):
    """Every card the game started with: deck + path + removed hazards (+ artifacts, counted apart:
    deck + path + claimed + lost)."""
    counts = {(c.kind, c.value): k for c, k in s.deck_composition.items()}
    for c in s.path:
        counts[c.kind, c.value] = counts.get((c.kind, c.value), 0) + 1
    for k in s.removed_hazards:
        counts["hazard", k] = counts.get(("hazard", k), 0) + 1
    artifacts = counts.pop(("artifact", None), 0) + sum(s.artifacts_claimed) + s.artifacts_lost
    return counts, artifacts


def play_checked(game, seed):
    """Play one random game (stay-biased by a per-game amount), checking invariants every step."""
    rng = np.random.default_rng([seed, 99])
    p_stay = rng.uniform(0.3, 0.9)
    s = game.new_initial_state(np.random.default_rng(seed))
    n = game.num_players
    bound = n * MAX_DECK * game.num_rounds
    prev = None
    base = 0  # banked treasure gems (artifacts excluded) at the start of the current round
    actions = []
    while True:
        # cards conserved
        cards, artifacts = card_counts(s)
        assert cards == FULL_SET
        assert artifacts == min(s.round, len(ARTIFACT_VALUES))
        # the observation of one player per step, in turn (NaN fails both comparisons)
        obs = s.observation(len(actions) % n)
        assert obs.shape == (game.observation_size,) and obs.dtype == np.float32
        assert obs.min() >= 0.0 and obs.max() <= 1.5
        # gems: within a round, what was dealt from treasure cards is in round gems, on the path,
        # or banked this round; leaving never loses gems and staying never banks any
        banked = [b - a for b, a in zip(s.banked, s.artifact_gems)]
        if prev is not None:
            pb, prg, ppath, pround = prev
            assert all(0 <= b - b0 <= g0 + ppath for b, b0, g0 in zip(banked, pb, prg))
            if s.round != pround:
                base = sum(banked)
        if not s.is_terminal():
            dealt = sum(c.value for c in s.path if c.kind == "treasure")
            assert sum(banked) - base + sum(s.round_gems) + s.gems_on_path == dealt
        prev = (banked, s.round_gems, s.gems_on_path, s.round)
        if s.is_terminal():
            break
        mask = s.legal_mask()
        assert mask.any()
        a = STAY if rng.random() < p_stay else LEAVE
        s.apply_action(a)
        actions.append(a)
        assert len(actions) <= bound
    assert s.round == game.num_rounds
    r = s.returns()
    assert r.max() in (0.0, 1.0) and set(r.tolist()) <= {-1.0, 0.0, 1.0}
    return actions, s


def test_invariants_over_random_games():
    for seed in range(300):
        n = 3 + seed % 6
        game = games.make("incan_gold", num_players=n, num_rounds=10 if seed % 10 == 0 else 5)
        play_checked(game, seed)


def test_same_seed_replays_same_game():
    game = games.make("incan_gold", num_players=4)
    for seed in range(20):
        a1, s1 = play_checked(game, seed)
        a2, s2 = play_checked(game, seed)
        assert a1 == a2 and s1.banked == s2.banked and str(s1) == str(s2)
    # different seeds give different games
    assert len({play_checked(game, seed)[1].banked for seed in range(20)}) > 10


def test_observation_ignores_hidden_information():
    game = games.make("incan_gold", num_players=5)
    rng = np.random.default_rng(1)
    for seed in range(60):
        s = game.new_initial_state(np.random.default_rng(seed))
        for _ in range(int(rng.integers(0, 40))):
            if s.is_terminal():
                break
            s.apply_action(int(rng.integers(2)))
        for p in range(5):
            r = s.resample_hidden(p, rng)
            for q in range(5):
                np.testing.assert_array_equal(s.observation(q), r.observation(q))
            assert r.view(p) == s.view(p)


def test_heuristic_beats_random():
    game = games.make("incan_gold")
    players = [
        agents.make("heuristic", game, seed=0),
        agents.make("random", game, seed=1),
        agents.make("random", game, seed=2),
    ]
    result = play_match(game, players, 300, seed=11)
    assert result.agents[0].win_rate > 0.75
