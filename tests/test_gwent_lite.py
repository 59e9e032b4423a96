"""Gwent Lite (games/RULES.md §5): hand-worked scenarios, properties over seeded random games beyond
the conformance suite's (cards conserved), config and deck files, and the heuristic agent."""

from pathlib import Path

import numpy as np
import pytest
from conftest import gwent_state

import games
from agents.arena import play_match
from agents.base import RandomAgent
from agents.heuristics.gwent_lite import HeuristicAgent, card_towards, cheapest_reaching
from games import IllegalActionError, UserError
from games.decks import MAX_TOTAL, Deck, DeckRules, load_deck, save_deck
from games.gwent_lite import MAX_ROUNDS_TO_WIN


def gwent(**config):
    return games.make("gwent_lite", **config)


FLAT = [4] * 25
DECKS_DIR = Path(__file__).resolve().parent.parent / "decks"


def play(state, *moves):
    """Apply (player, action) pairs, checking that each player is indeed the one to move."""
    for player, action in moves:
        assert state.current_player == player, (player, action, str(state))
        state.apply_action(action)
    return state


def flat_state(leader):
    return gwent_state(gwent(), [FLAT, FLAT], leader=leader)


# --- hand-worked scenarios -------------------------------------------------------------------
@pytest.mark.parametrize("first_leader", [0, 1])
def test_tied_round_gives_both_a_win_and_the_non_leader_leads_next(first_leader):
    a, b = first_leader, 1 - first_leader
    s = play(flat_state(first_leader), (a, 4), (b, 4), (a, 0), (b, 0))
    assert s.round_wins == (1, 1)
    assert s.round == 2 and s.round_totals == (0, 0) and s.passed == (False, False)
    assert s.leader == b and s.current_player == b  # the player who did NOT lead round 1
    assert s.hand_sizes == (10, 10) and s.draw_pile_sizes == (14, 14)  # drew 1: capped at 10 in hand


def test_round_winner_leads_next_round():
    s = play(flat_state(0), (0, 4), (1, 0), (0, 0))  # 0 wins 4-0, and 0 led round 1
    assert s.round_wins == (1, 0) and s.round == 2 and s.leader == 0 and s.current_player == 0
    s = play(flat_state(0), (0, 0), (1, 4), (1, 4), (1, 0))  # 1 keeps playing after 0 passed
    assert s.round_wins == (0, 1) and s.leader == 1 and s.current_player == 1
    # draws capped by the hand limit: 0 kept all 10 cards and draws none, 1 played 2 and draws 2
    assert s.hand_sizes == (10, 10) and s.draw_pile_sizes == (15, 13)


def test_draws_capped_by_the_draw_pile():
    game = gwent(rules=DeckRules(min_cards=11))
    s = gwent_state(game, [list(range(1, 12)), [1] * 11], leader=0)
    assert s.hand(0) == list(range(1, 11)) and s.draw_pile_sizes == (1, 1)
    play(s, (0, 10), (1, 1), (0, 9), (1, 1), (0, 8), (1, 0), (0, 0))
    assert s.round_wins == (1, 0)
    assert s.hand(0) == [1, 2, 3, 4, 5, 6, 7, 11]  # room for 3, but only 1 card left to draw
    assert s.hand_sizes == (8, 9) and s.draw_pile_sizes == (0, 0)


def test_both_reaching_two_wins_in_one_round_is_a_draw():
    s = play(flat_state(0), (0, 4), (1, 4), (0, 0), (1, 0))  # tie: 1-1, then 1 leads
    play(s, (1, 4), (0, 4), (1, 4), (0, 4), (1, 0), (0, 0))  # tie again: 2-2
    assert s.is_terminal() and s.round_wins == (2, 2) and s.round == 2
    assert s.returns().tolist() == [0.0, 0.0]
    assert not s.legal_mask().any() and s.current_player == games.TERMINAL


def test_first_to_two_round_wins_wins_at_most_three_rounds():
    s = play(flat_state(1), (1, 4), (0, 4), (1, 4), (0, 0), (1, 0))  # 1 wins round 1 8-4
    play(s, (1, 0), (0, 4), (0, 0))  # 1 concedes round 2; 0 wins it 4-0 and leads round 3
    assert s.round == 3 and s.round_wins == (1, 1) and s.leader == 0
    play(s, (0, 4), (1, 4), (0, 4), (1, 0), (0, 0))
    assert s.is_terminal() and s.round == 3 and s.returns().tolist() == [1.0, -1.0]
    with pytest.raises(IllegalActionError, match="after the game has ended"):
        s.apply_action(0)


def test_empty_hand_passes_automatically():
    game = gwent(rules=DeckRules(min_cards=3, max_total=30))
    s = gwent_state(game, [[1, 2, 3], [5, 5, 5]], leader=0)  # 3-card decks: whole deck in hand
    play(s, (0, 1), (1, 5), (0, 2), (1, 0), (0, 3))  # 0 plays its last card: passes with it, 6-5
    assert s.round_wins == (1, 0) and s.round == 2
    # 0 leads round 2 but has no card: it passes automatically and never gets a turn
    assert s.leader == 0 and s.passed == (True, False) and s.current_player == 1
    play(s, (1, 5), (1, 0))  # 1 wins round 2 5-0, leads round 3
    assert s.round_wins == (1, 1) and s.current_player == 1
    play(s, (1, 5))  # 1's last card: the round ends at once
    assert s.is_terminal() and s.returns().tolist() == [-1.0, 1.0]


def test_both_hands_empty_at_round_start_is_a_tied_round():
    game = gwent(rules=DeckRules(min_cards=2, max_total=10))
    s = gwent_state(game, [[1, 1], [1, 1]], leader=0)
    play(s, (0, 1), (1, 1), (0, 1), (1, 1))  # 2-2, both hands empty
    assert s.is_terminal() and s.round_wins == (2, 2) and s.returns().tolist() == [0.0, 0.0]


def test_legal_mask_is_pass_plus_the_powers_in_hand():
    order = [7, 1, 3, 3, 1, 9, 2, 2, 2, 5] + [1] * 15 + [6]
    s = gwent_state(gwent(), [order, FLAT], leader=0)
    assert s.hand(0) == [1, 1, 2, 2, 2, 3, 3, 5, 7, 9]
    assert np.flatnonzero(s.legal_mask()).tolist() == [0, 1, 2, 3, 5, 7, 9]
    assert s.legal_mask().shape == (77,) and s.game.num_actions == 77
    s.apply_action(9)
    assert np.flatnonzero(s.legal_mask()).tolist() == [0, 4]
    s.apply_action(4)
    assert np.flatnonzero(s.legal_mask()).tolist() == [0, 1, 2, 3, 5, 7]  # the 9 is gone


@pytest.mark.parametrize("action", [4, 6, 76, 77, 1000, -1, 2.5, 3.0, True, "3", None, float("nan")])
def test_illegal_actions_raise_and_change_nothing(action):
    s = gwent_state(gwent(), [[3] * 25, FLAT], leader=0)
    before = str(s)
    with pytest.raises(IllegalActionError, match="not legal for player 0"):
        s.apply_action(action)
    assert str(s) == before
    s.apply_action(np.int64(3))  # numpy integers are fine
    assert s.round_totals == (3, 0)


# --- config and decks ------------------------------------------------------------------------
def test_make_with_decks_and_rules():
    rules = DeckRules(min_cards=10, max_total=40, min_power=2)
    game = games.make("gwent_lite", decks=[[4] * 10, Deck([2] * 15, rules).cards], rules=rules)
    assert game.num_actions == rules.max_power + 1 == 23
    assert game.config.decks == [[4] * 10, [2] * 15]
    s = game.new_initial_state(np.random.default_rng(0))
    assert s.deck(0) == [4] * 10 and s.deck(1) == [2] * 15 and s.observation(0).shape == (game.observation_size,)


@pytest.mark.parametrize(
    "decks, needle",
    [
        ([[4] * 24, FLAT], "seat 0's deck .* has 24 cards, needs at least 25"),
        ([FLAT, [5] * 25], "seat 1's deck .* totals 125 power, over the budget of 100"),
        ([[0] + [4] * 24, FLAT], r"below the minimum power 1: \[0\]"),
        ([FLAT], "list of 2 decks"),
    ],
)
def test_illegal_decks_refused_with_the_problem(decks, needle):
    with pytest.raises(UserError, match=needle):
        games.make("gwent_lite", decks=decks)


@pytest.mark.parametrize(
    "config, needle",
    [
        (dict(hand_size=0), "hand_size"),
        (dict(round_draw=-1), "round_draw"),
        (dict(rounds_to_win=1.5), "rounds_to_win"),
        (
            dict(rounds_to_win=MAX_ROUNDS_TO_WIN + 1),
            f"rounds_to_win must be a whole number from 1 to {MAX_ROUNDS_TO_WIN}",
        ),
        (dict(rules=DeckRules(), decks=[[1] * 25, [1] * 25], bogus=1), "unknown setting.*bogus"),
        (dict(rules="default"), "rules must be a table of min_cards, max_total, min_power"),
        (dict(rules={"min_cards": 10, "max_total": 10**12}), f"max_total must be at most {MAX_TOTAL}"),
        (dict(decks=[[4] * 24 + [4.5], FLAT]), "decks must be a whole number, got 4.5"),
    ],
)
def test_bad_config_refused(config, needle):
    with pytest.raises(UserError, match=needle):
        games.make("gwent_lite", **config)


def test_deck_rules_validation():
    with pytest.raises(UserError, match="min_cards must be >= 1"):
        DeckRules(min_cards=0)
    with pytest.raises(UserError, match="no legal deck"):
        DeckRules(min_cards=25, max_total=100, min_power=5)
    with pytest.raises(UserError, match=r"below the minimum power 2: \[1\]"):
        gwent(rules={"min_cards": 10, "max_total": 40, "min_power": 2}, decks=[[1] * 25, [4] * 10])


def test_deck_file_round_trip(tmp_path):
    deck = Deck([1] * 20 + [8, 12, 16, 20, 24], DeckRules(), "hv")
    save_deck(deck, tmp_path / "hv.toml", comment="a comment\non two lines")
    back = load_deck(tmp_path / "hv.toml")
    assert back.cards == deck.cards and back.rules == deck.rules and back.name == "hv"
    save_deck(deck, tmp_path / "hv.json")
    assert load_deck(tmp_path / "hv.json").cards == deck.cards
    (tmp_path / "plain.toml").write_text(f"cards = {FLAT}\n")  # name and rules may be left out
    plain = load_deck(tmp_path / "plain.toml")
    assert plain.name == "plain" and plain.rules == DeckRules()


@pytest.mark.parametrize(
    "name, content, needle",
    [
        ("malformed.toml", "cards = [1, 2", "is not valid TOML"),
        ("malformed.json", '{"cards": [1, 2', "is not valid JSON"),
        ("empty.toml", "", "has no 'cards' list"),
        ("empty.json", "", "is not valid JSON"),
        ("latin1.toml", "name = 'caf\xe9'\n".encode("latin-1"), "is not UTF-8 text"),
        ("nocards.toml", 'name = "x"\n', "has no 'cards' list"),
        ("words.toml", 'cards = ["a"]\n', "cards must be a whole number, got 'a'"),
        ("fraction.toml", f"cards = {[4] * 24 + [4.5]}\n", "cards must be a whole number, got 4.5"),
        ("unknown.toml", f"cards = {[4] * 24}\ncards_extra = true\n", "unknown setting"),
        ("illegal.toml", "cards = [4, 4, 4]\n", "has 3 cards, needs at least 25"),
        ("overbudget.toml", f"cards = {[10] * 25}\n", "over the budget"),
        ("rulekey.toml", f"cards = {FLAT}\n[rules]\nmax_cards = 3\n", "rules: unknown setting"),
        ("huge.toml", f"cards = {FLAT}\n[rules]\nmax_total = {10**12}\n", f"max_total must be at most {MAX_TOTAL}"),
        ("table.json", "[1, 2]", "expected a table of settings"),
    ],
)
def test_bad_deck_files_refused_in_one_line(tmp_path, name, content, needle):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.raises(UserError, match=needle) as info:
        load_deck(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_missing_deck_file_and_folder_refused(tmp_path):
    with pytest.raises(UserError, match="not found"):
        load_deck(tmp_path / "missing.toml")
    (tmp_path / "folder.toml").mkdir()
    with pytest.raises(UserError, match="is a folder, not a file"):
        load_deck(tmp_path / "folder.toml")


def test_the_largest_budget_plays():
    """max_total at its bound gives a big but finite game (10 001 actions), and it plays."""
    rules = DeckRules(min_cards=25, max_total=MAX_TOTAL)
    game = gwent(rules=rules)
    assert game.num_actions == MAX_TOTAL - 24 + 1 and game.observation_size == 2 * (MAX_TOTAL - 24) + 11
    s = game.new_initial_state(np.random.default_rng(0))
    while not s.is_terminal():
        s.apply_action(int(s.legal_actions()[-1]))
    assert s.returns().tolist() in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])


def test_reference_deck_files_load_and_are_legal():
    others = {"gwent_abilities", "locm"}  # other games' decks
    files = sorted(f for f in DECKS_DIR.rglob("*.toml") if not others & set(f.parts))
    names = {f.relative_to(DECKS_DIR).as_posix() for f in files}
    assert {"flat.toml", "high_variance.toml", "random_1.toml", "random_2.toml", "random_3.toml"} <= names
    assert {f"ancestor/gen{g}_best.toml" for g in (100, 420, 840)} <= names
    assert len([n for n in names if n.startswith("ancestor/")]) == 30
    for f in files:
        deck = load_deck(f)
        assert not DeckRules().problems(deck.cards) and deck.rules == DeckRules()
    assert load_deck(DECKS_DIR / "flat.toml").cards == FLAT
    assert load_deck(DECKS_DIR / "random_2.toml").cards == DeckRules().random_deck(np.random.default_rng(2))


# --- properties over seeded random games ------------------------------------------------------
def random_game(seed, check_hidden=False):
    """A random-vs-random game with random legal decks; checks the invariants at every step (and,
    with `check_hidden`, that resampling hidden information changes nothing `player` sees)."""
    rng = np.random.default_rng([seed, 99])
    rules = DeckRules()
    decks = [rules.random_deck(rng), rules.random_deck(rng)]
    game = gwent(decks=decks)
    s = game.new_initial_state(np.random.default_rng(seed))
    bound = len(decks[0]) + len(decks[1]) + 2 * game.max_rounds
    actions = []
    while True:
        check_invariants(s, decks)
        if check_hidden:
            check_hidden_information(s, rng)
        if s.is_terminal():
            return s, actions
        mask = s.legal_mask()
        # the player to move always has a real choice: pass and at least one card
        assert mask[0] and mask.sum() >= 2
        assert np.flatnonzero(mask).tolist() == [0] + sorted(set(s.hand(s.current_player)))
        legal = np.flatnonzero(mask)
        a = int(legal[rng.integers(len(legal))])
        actions.append(a)
        s.apply_action(a)
        assert len(actions) <= bound


def check_invariants(s, decks):
    for p in (0, 1):
        hand = s.hand(p)
        pile = s.draw_pile(p)
        assert sorted(pile + hand + s.played(p)) == decks[p]  # cards conserved
        assert s.remaining_power[p] == sum(pile) + sum(hand)
        assert s.hand_sizes[p] == len(hand) <= 10 and s.draw_pile_sizes[p] == len(pile)
    for p in (0, 1) if s.is_terminal() else (s.current_player,):
        obs = s.observation(p)
        assert obs.shape == (s.game.observation_size,) and obs.dtype == np.float32
        assert np.isfinite(obs).all() and obs.min() >= 0 and obs.max() <= 1
    assert 1 <= s.round <= 3


def check_hidden_information(s, rng):
    for p in (0, 1):
        hidden = s.resample_hidden(p, rng)  # only what p cannot see changes
        np.testing.assert_array_equal(hidden.observation(p), s.observation(p))
        assert hidden.view(p) == s.view(p)
        assert hidden.hand(p) == s.hand(p) and hidden.hand_sizes == s.hand_sizes
        assert hidden.current_player == s.current_player
        if s.current_player == p:  # p's own choices are p's to know
            assert np.array_equal(hidden.legal_mask(), s.legal_mask())
        for q in (0, 1):
            assert sorted(hidden.draw_pile(q) + hidden.hand(q)) == sorted(s.draw_pile(q) + s.hand(q))


def test_properties_over_random_games():
    results = set()
    for seed in range(500):
        s, _ = random_game(seed, check_hidden=seed < 50)
        r = tuple(s.returns().tolist())
        assert r in {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}
        w = s.round_wins
        assert max(w) >= 2 and s.round <= 3
        assert r == (0.0, 0.0) if w[0] == w[1] else r[0 if w[0] > w[1] else 1] == 1.0
        results.add(r)
    assert len(results) == 3  # wins, losses and draws all occur


def test_same_seed_replays_the_same_game():
    for seed in (0, 1, 2):
        s1, a1 = random_game(seed)
        s2, a2 = random_game(seed)
        assert a1 == a2 and str(s1) == str(s2)
    game = gwent()
    first = [str(game.new_initial_state(np.random.default_rng(seed))) for seed in range(20)]
    assert first == [str(game.new_initial_state(np.random.default_rng(seed))) for seed in range(20)]
    assert len(set(first)) == 20


def test_the_generator_is_required():
    with pytest.raises(TypeError, match="random generator"):
        gwent().new_initial_state(None)


def test_resample_hidden_redeals_the_opponent():
    game = gwent()
    changed = 0
    for seed in range(20):
        s = game.new_initial_state(np.random.default_rng(seed))
        h = s.resample_hidden(0, np.random.default_rng(seed + 100))
        changed += h.hand(1) != s.hand(1)
        assert h.hand(0) == s.hand(0) and sorted(h.draw_pile(0)) == sorted(s.draw_pile(0))
        assert str(s) == str(game.new_initial_state(np.random.default_rng(seed)))  # original untouched
    assert changed >= 15


def test_view_hides_the_opponent_hand_and_deck_orders():
    s = gwent_state(gwent(), [[1] * 15 + [2] * 5 + [3] * 5, list(range(1, 11)) + [1] * 15], leader=0)
    assert "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]" in str(s)
    assert "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]" not in s.view(0) and "hand 10 cards" in s.view(0)
    assert "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]" in s.view(1)


# --- heuristic agent -------------------------------------------------------------------------
def test_subset_helpers():
    assert cheapest_reaching([1, 3, 7], 5) == 7
    assert cheapest_reaching([2, 3, 7], 5) == 5
    assert cheapest_reaching([2, 2], 5) is None
    assert card_towards([2, 3, 7], 5) == 3
    assert card_towards([1, 1, 8], 2) == 1


def test_heuristic_scenarios():
    game = gwent()
    agent = HeuristicAgent(game, None)
    # 0 plays 7 and passes; 1 (at 1) needs 7 more: the cheapest is 5 + 1 + 1, never the 9
    s = gwent_state(game, [[7] + [1] * 24, [3, 5, 9, 1, 1, 1, 1, 1, 1, 1] + [1] * 15], leader=0)
    play(s, (0, 7), (1, 1), (0, 0))
    assert s.current_player == 1 and s.passed == (True, False)
    assert agent.act([s])[0] == 5
    play(s, (1, 5), (1, 1))
    assert agent.act([s])[0] == 1  # 7-7: one more 1 wins the round outright
    play(s, (1, 1))
    assert agent.act([s])[0] == 0  # 8-7 ahead and 0 has passed: the round is won
    # behind 4-8 with only 4s: no card gets ahead, so concede the round and keep the cards
    s = play(gwent_state(game, [FLAT, FLAT], leader=0), (0, 4), (1, 4), (0, 4))
    assert agent.act([s])[0] == 0
    s.apply_action(0)
    assert s.current_player == 0 and agent.act([s])[0] == 0  # ahead 8-4, 1 passed: stop
    # a must-win round (0 holds a round win): 1 plays on even when only a tie is in reach
    s = play(gwent_state(game, [FLAT, FLAT], leader=0), (0, 4), (1, 0), (0, 0))
    assert s.round_wins == (1, 0) and s.current_player == 0
    s.apply_action(4)
    assert s.current_player == 1 and agent.act([s])[0] == 4


def test_heuristic_beats_random():
    game = gwent()
    result = play_match(game, [HeuristicAgent(game, None), RandomAgent(np.random.default_rng(1))], 200, seed=3)
    assert result.agents[0].score > 0.8


def test_the_most_round_wins_with_empty_hands_end_in_a_draw():
    """Once both hands are empty every round is a 0-0 tie that starts and ends without a move: at
    the largest rounds_to_win that chain still ends (a draw) well within Python's recursion limit."""
    game = gwent(rules=DeckRules(min_cards=1, max_total=2), decks=[[1], [1]], rounds_to_win=MAX_ROUNDS_TO_WIN)
    s = game.new_initial_state(np.random.default_rng(0))
    s.apply_action(1)
    s.apply_action(1)  # 1-1: both hands empty from here on
    assert s.is_terminal() and s.round_wins == (MAX_ROUNDS_TO_WIN,) * 2 and s.returns().tolist() == [0.0, 0.0]
    assert s.round == MAX_ROUNDS_TO_WIN
