"""Durak (games/RULES.md §6): hand-worked positions (beating, throw-ins, the bout limits, taking, drawing
order, the next attacker, leaving, the end and its returns), the deal (redeal, first attacker) and
properties over seeded random games beyond the conformance suite's (every card accounted for)."""

from __future__ import annotations

import numpy as np
import pytest

import games
from games.durak import (
    HAND_SIZE,
    NUM_CARDS,
    PASS,
    SUITS,
    TAKE,
    Card,
    DurakState,
    bits_of,
    card_id,
    cards_of,
)
from games.errors import IllegalActionError, UserError


def c(name: str) -> int:
    return card_id(name)


def position(hands, deck=(), attacker=0, fixed_trump=None, **config) -> DurakState:
    """The first bout of a game with these hands (card names per seat) and deck (top card first). With a
    deck, its last card is the face-up trump (unless `fixed_trump`); an empty deck means hearts are
    trump (fixed_trump). Every other card is in the discard pile, so all 36 are accounted for."""
    fixed = not deck if fixed_trump is None else fixed_trump
    game = games.make("durak", num_players=len(hands), fixed_trump=fixed, **config)
    s = game.new_initial_state(np.random.default_rng(0))
    s._hands = [bits_of(c(x) for x in h) for h in hands]
    s._deck = [c(x) for x in reversed(deck)]  # the deck's top is the list's end
    if not fixed:
        s._trump_card = s._deck[0]
        s._trump = s._trump_card // 9
    used = 0
    for h in s._hands:
        assert not used & h, "a card dealt twice"
        used |= h
    used |= bits_of(s._deck)
    assert len(s._deck) + sum(h.bit_count() for h in s._hands) == used.bit_count()
    s._discard = ((1 << NUM_CARDS) - 1) & ~used
    s._known = [0] * len(hands)
    s._start_bout(attacker)
    return s


def play(s: DurakState, *moves) -> None:
    """Apply moves given as card names, "pass" or "take", each by whoever is to move."""
    for m in moves:
        s.apply_action(PASS if m in ("pass", "take") else c(m))


def names(cards) -> set[str]:
    return {str(x) for x in cards}


def legal_names(s: DurakState) -> set[str]:
    return {"pass/take" if a == PASS else str(Card(*_card(a))) for a in s.legal_actions()}


def _card(a: int):
    from games.durak import RANKS

    return RANKS[a % 9], SUITS[a // 9]


def check_cards(s: DurakState) -> None:
    """Every card is in exactly one place: a hand, the deck, the table or the discard pile; the known
    cards of a hand are in it."""
    places = [*s._hands, bits_of(s._deck), s._table, s._discard]
    total = 0
    for bits in places:
        assert not total & bits, "a card in two places"
        total |= bits
    assert total == (1 << NUM_CARDS) - 1 and sum(b.bit_count() for b in places) == NUM_CARDS
    assert len(set(s._deck)) == len(s._deck)
    assert bits_of(s._attacks) | bits_of(s._defences) == s._table
    for h, k in zip(s._hands, s._known):
        assert k & ~h == 0
    assert s.hand_sizes == tuple(len(s.hand(p)) for p in range(s._n))


# --- config --------------------------------------------------------------------------------------
def test_config_and_sizes():
    for n, size in ((2, 304), (3, 344), (4, 384)):
        game = games.make("durak", num_players=n)
        assert game.num_players == n and game.num_actions == 37 and game.observation_size == size
    for bad in ({"num_players": 1}, {"num_players": 5}, {"max_bouts": 0}, {"fixed_trump": 1}):
        with pytest.raises(UserError, match="durak: "):
            games.make("durak", **bad)
    assert TAKE == PASS == 36 and games.make("durak").action_name(PASS) == "pass/take"
    assert [card_id(x) for x in ("6c", "Ac", "6d", "10h", "as")] == [0, 8, 9, 22, 35]


# --- beating (§6.3) ------------------------------------------------------------------------------
def test_beat_with_a_higher_card_of_the_suit_or_any_trump():
    s = position([["7s", "7h", "9c"], ["6s", "8s", "As", "6h", "9d", "Kc"]])  # hearts trump
    assert s.trump_suit == "h" and s.trump_card is None
    play(s, "7s")
    assert s.current_player == 1 and s.defender == 1
    assert legal_names(s) == {"8s", "As", "6h", "pass/take"}  # not 6s (lower), 9d, Kc (other suits)
    with pytest.raises(IllegalActionError):
        play(s, "9d")
    play(s, "6h")
    assert s.table == ((Card("7", "s"), Card("6", "h")),)


def test_a_trump_is_beaten_only_by_a_higher_trump():
    s = position([["7h", "9c"], ["6h", "8h", "As", "Kc", "9d", "Ad"]])
    play(s, "7h")
    assert legal_names(s) == {"8h", "pass/take"}


def test_a_defender_who_cannot_beat_takes_without_being_asked():
    s = position([["Ah", "9c", "10c"], ["6h", "8s", "As", "Kc", "9d", "Ad"]])
    play(s, "Ah")
    assert s.defender == 1 and s.bout == 2
    assert s.hand_sizes == (2, 7) and "Ah" in names(s.known_cards[1])
    assert s.attacker == 0 and s.current_player == 0  # two players: the attacker attacks again


# --- throw-ins (§6.4) ----------------------------------------------------------------------------
def test_throw_in_only_with_ranks_on_the_table():
    s = position([["7s", "7c", "8d", "9c", "Qd"], ["8s", "10c", "Jc", "Kd", "Kh", "6d"]])
    play(s, "7s", "8s")
    assert s.current_player == 0
    assert legal_names(s) == {"7c", "8d", "pass/take"}  # a 7 or an 8; not 9c, Qd
    with pytest.raises(IllegalActionError):
        play(s, "9c")
    play(s, "7c", "Jc")  # J on the table now
    assert legal_names(s) == {"8d", "pass/take"}
    play(s, "pass")
    assert s.bout == 2 and s.attacker == 1 and s.defender == 0  # defended: the defender attacks next
    assert names(s.discard) >= {"7s", "8s", "7c", "Jc"}


def test_the_chance_to_add_goes_round_from_the_last_adder_skipping_the_defender():
    s = position(
        [["7s", "7c", "Qd"], ["8s", "9c", "Jh", "Kd", "Ks", "Ac"], ["7d", "Qc", "6d"], ["7h", "10c", "Qh"]],
    )
    play(s, "7s", "8s")
    assert s.current_player == 0  # the opener first
    play(s, "pass")
    assert s.current_player == 2  # then clockwise, the defender skipped
    play(s, "7d", "Kd")
    # 2 added last: 2 first again, but it holds no 7, 8 or K, so it passes without being asked
    assert s.current_player == 3 and legal_names(s) == {"7h", "pass/take"}
    play(s, "pass")
    assert s.current_player == 0  # 0 holds 7c
    play(s, "pass")
    assert s.bout == 2 and s.attacker == 1  # everyone passed in a row: the defence held


def test_at_most_six_attacks():
    attacker = ["6c", "6d", "6s", "Jc", "Qd", "Ks", "10s"]
    defender = ["10c", "10d", "Js", "Qc", "Kd", "As", "9h"]
    s = position([attacker, defender], deck=["Ah", "Kh", "Qh", "Jh", "10h"])  # hearts trump
    pairs = [("6c", "10c"), ("6d", "10d"), ("6s", "Js"), ("Jc", "Qc"), ("Qd", "Kd"), ("Ks", "As")]
    for a, d in pairs[:-1]:
        play(s, a, d)
        assert s.current_player == 0
    play(s, *pairs[-1])
    # six beaten: the bout is over although 0 could add 10s and 1 could beat it with 9h
    assert s.bout == 2 and s.attacker == 1 and s.last_bout[3] is False and len(s.last_bout[4]) == 12


def test_never_more_attacks_than_the_defender_can_answer():
    s = position([["6c", "6d", "6s", "6h"], ["9c", "9d"]], fixed_trump=True)
    play(s, "6c", "9c", "6d", "9d")
    # the defender's hand is empty: the defence has succeeded although 6s, 6h could be added
    assert s.is_terminal() and s.durak == 0 and s.returns().tolist() == [-1.0, 1.0]


# --- taking, drawing, the next bout (§6.5, §6.6) -------------------------------------------------
def test_taking_picks_up_the_table_and_makes_it_known():
    s = position([["7s", "7c", "Qd"], ["8s", "9c", "Jh", "Kd", "Ks", "Ac"], ["7d", "Qc", "6d"]])
    play(s, "7s", "8s", "7c", "take")
    assert s.hand_sizes == (1, 8, 3) and s.bout == 2
    assert names(s.known_cards[1]) == {"7s", "8s", "7c"}
    assert s.attacker == 2 and s.defender == 0  # after taking: the player after the defender attacks
    play(s, "Qc")  # 0 holds only Qd: cannot beat Qc, takes it without being asked
    assert s.attacker == 1 and s.defender == 2 and s.hand_sizes == (2, 8, 2)
    play(s, "7s")
    assert names(s.known_cards[1]) == {"8s", "7c"}  # played: no longer known to be in the hand


def test_drawing_order_attacker_then_throwers_clockwise_then_defender():
    # 4 players, 2 attacks 3; everyone is short of cards and the deck runs out during the draw
    hands = [["6c", "7c"], ["6d", "7d", "8d"], ["Jc", "Qc", "Kc", "Ac", "6s"], ["8c", "9c", "10c", "7s", "8s"]]
    deck = ["Js", "Qs", "Ks", "As", "9s", "10s", "Jh", "9h"]  # top first; 9h the face-up trump
    s = position(hands, deck=deck, attacker=2)
    assert s.trump_card == Card("9", "h") and s.defender == 3
    play(s, "Jc")  # 3 holds no higher club and no trump: takes without being asked
    # 2 (attacker, 4 cards) draws 2: Js Qs; then 0 (2 cards) draws 4: Ks As 9s 10s; then 1 draws 2:
    # Jh 9h (the face-up trump, known); 3 (defender) gets nothing
    assert set(s.hand(2)) >= {c("Js"), c("Qs")} and s.hand_sizes[2] == 6
    assert {c("Ks"), c("As"), c("9s"), c("10s")} <= set(s.hand(0)) and s.hand_sizes[0] == 6
    assert {c("Jh"), c("9h")} <= set(s.hand(1)) and s.hand_sizes[1] == 5
    assert s.hand_sizes[3] == 6 and s.deck_size == 0
    assert names(s.known_cards[1]) == {"9h"}  # everyone saw who took the face-up trump
    assert s.last_bout[5] == (4, 2, 2, 0)
    assert s.attacker == 0 and s.defender == 1  # after taking: the player after the defender


def test_after_a_successful_defence_the_defender_attacks_next():
    hands = [["6c", "7c"], ["9c", "7d", "8d"], ["Jd", "Qd", "Kd"]]
    s = position(hands, deck=["As", "Ks", "Qs", "Js", "10s", "9s", "8s", "7s", "6s", "6h"])
    play(s, "6c", "9c")  # neither 0 (7c) nor 2 holds a 6 or a 9: both pass without being asked
    assert s.bout == 2 and s.attacker == 1 and s.defender == 2
    assert s.last_bout[3] is False and s.hand_sizes == (6, 4, 6)  # drawn: 0 five, 2 three, 1 the last two


def test_players_leave_once_the_deck_is_empty_and_their_hand_is():
    hands = [["6c", "Kd"], ["9c", "7d", "8d"], ["6d"]]
    s = position(hands)  # no deck
    play(s, "6c", "9c")
    assert s.current_player == 2  # 0 holds no 6 or 9; 2 holds 6d
    play(s, "6d", "7d")
    # 2 added last and has no card left, 0 passes without being asked: the defence holds
    assert s.players_in == (True, True, False) and s.last_bout[6] == (2,)
    assert s.attacker == 1 and s.defender == 0  # 2 is skipped
    assert not s.is_terminal()
    play(s, "8d", "Kd")  # 0's last card: 1 still holds... nothing: both empty
    assert s.is_terminal() and s.durak is None and s.returns().tolist() == [0.0, 0.0, 0.0]


def test_a_draw_when_all_hands_empty_together():
    s = position([["7s"], ["8s"]])
    play(s, "7s", "8s")
    assert s.is_terminal() and s.durak is None and s.returns().tolist() == [0.0, 0.0]
    assert s.current_player == games.TERMINAL and s.legal_actions() == []


def test_returns_durak_minus_one_others_share():
    s = position([["7s", "9d"], ["8s"], ["Kc", "Qc"], ["Ac"]])
    play(s, "7s", "8s")  # 1 is out; 0 holds 9d
    assert s.players_in == (True, False, True, True) and s.attacker == 2 and s.defender == 3
    play(s, "Kc", "Ac")  # 3 is out, the defence held: 3 would attack but is out, so 0 attacks 2
    assert s.players_in == (True, False, True, False) and s.attacker == 0 and s.defender == 2
    play(s, "9d")  # 2 cannot beat it and takes; 0 is out; 2 is the durak
    assert s.is_terminal() and s.durak == 2
    assert s.returns().tolist() == pytest.approx([1 / 3, 1 / 3, -1.0, 1 / 3])


def test_max_bouts_ends_in_a_draw():
    s = position([["7s", "9d"], ["8s", "Qc"]], max_bouts=1)
    play(s, "7s", "take")
    assert s.is_terminal() and s.durak is None and s.bout == 1 and s.returns().tolist() == [0.0, 0.0]
    g = games.make("durak", num_players=4, max_bouts=5)
    rng = np.random.default_rng(0)
    for seed in range(20):
        s = g.new_initial_state(np.random.default_rng(seed))
        while not s.is_terminal():
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])
        assert s.bout <= 5 and s.durak is None and not s.returns().any()


# --- the deal (§6.2) -----------------------------------------------------------------------------
def _first_deal(seed: int, n: int) -> list[int]:
    """The hands of the first shuffle of `default_rng(seed)` (as games/durak.py deals them)."""
    deck = np.random.default_rng(seed).permutation(NUM_CARDS).tolist()
    return [bits_of(deck.pop() for _ in range(HAND_SIZE)) for _ in range(n)]


def _legal_hand(hand: int) -> bool:
    return all(sum(1 for x in cards_of(hand) if x // 9 == suit) < 5 for suit in range(4))


def test_illegal_opening_hands_are_dealt_again():
    game = games.make("durak", num_players=4)
    redealt = [seed for seed in range(400) if not all(map(_legal_hand, _first_deal(seed, 4)))]
    assert redealt  # about 3 % of 4-player deals hold a hand with 5 of a suit
    for seed in redealt[:5]:
        s = game.new_initial_state(np.random.default_rng(seed))
        assert all(_legal_hand(h) for h in s._hands) and s._hands != _first_deal(seed, 4)
    for seed in range(300):
        s = game.new_initial_state(np.random.default_rng(seed))
        assert all(_legal_hand(h) for h in s._hands)
        if seed not in redealt:
            assert s._hands == _first_deal(seed, 4)


@pytest.mark.parametrize("fixed_trump", [False, True])
def test_the_lowest_trump_attacks_first(fixed_trump):
    game = games.make("durak", num_players=3, fixed_trump=fixed_trump)
    nobody = []
    for seed in range(300):
        s = game.new_initial_state(np.random.default_rng(seed))
        t = s.trump_index
        trumps = [[x for x in s.hand(p) if x // 9 == t] for p in range(3)]
        held = [min(ts) for ts in trumps if ts]
        if held:
            assert min(s.hand(s.attacker), key=lambda x: (x // 9 != t, x)) == min(held)
        else:
            nobody.append(s.attacker)
        assert s.defender == (s.attacker + 1) % 3 and s.current_player == s.attacker and s.bout == 1
        if not fixed_trump:
            assert s.trump_card is not None and s.trump_card.suit == s.trump_suit and s.deck_size == 18
            assert s._deck[0] == s.trump_card.id  # the face-up card is the bottom one, drawn last
    assert all(0 <= p < 3 for p in nobody)


# --- information -----------------------------------------------------------------------------------
def test_resample_keeps_known_cards_sizes_and_the_face_up_trump():
    s = position(
        [["7s", "7c", "Qd", "6c", "6d", "Ad"], ["8s", "9c", "Jh", "Kd", "Ks", "Ac"]],
        deck=["Js", "Qs", "Qc", "As", "9s", "10h"],
    )
    play(s, "7s", "8s", "7c", "take")
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(30):
        r = s.resample_hidden(0, rng)
        assert r.hand(0) == s.hand(0) and r.known_cards == s.known_cards and r.hand_sizes == s.hand_sizes
        assert {c("7s"), c("8s"), c("7c")} <= set(r.hand(1))
        assert r._deck[0] == c("10h") and sorted(r._deck + r.hand(1)) == sorted(s._deck + s.hand(1))
        check_cards(r)
        seen.add(tuple(r.hand(1)))
    assert len(seen) > 5


def test_observation_hides_other_hands_and_shows_known_cards():
    s = position(
        [["7s", "7c", "Qd", "6c", "6d", "Ad"], ["8s", "9c", "Jh", "Kd", "Ks", "Ac"]],
        deck=["Js", "Qs", "Qc", "As", "9s", "10h"],
    )
    play(s, "7s", "8s", "7c", "take")
    obs = s.observation(0)
    assert obs.shape == (304,)
    block = {k: obs[36 * k : 36 * k + 36] for k in range(8)}
    assert set(np.flatnonzero(block[0])) == set(s.hand(0))
    assert set(np.flatnonzero(block[7])) == {c("7s"), c("8s"), c("7c")}  # player 1's known cards
    assert c("9c") in np.flatnonzero(block[1])  # unseen, not known
    assert set(np.flatnonzero(block[6])) == {c("10h")}
    other = s.clone()
    other._hands[1], other._deck[1] = other._hands[1] ^ (1 << c("9c")) | (1 << other._deck[1]), c("9c")
    np.testing.assert_array_equal(other.observation(0), obs)  # what 0 cannot see does not show


# --- random games --------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_card_accounted_for_at_every_step(n):
    game = games.make("durak", num_players=n)
    rng = np.random.default_rng(n)
    for seed in range(60):
        s = game.new_initial_state(np.random.default_rng(seed))
        while True:
            check_cards(s)
            assert len(s._attacks) - len(s._defences) in (0, 1) and len(s._attacks) <= 6
            if s.is_terminal():
                break
            assert sum(s.players_in) >= 2 and s.players_in[s.attacker] and s.players_in[s.defender]
            legal = s.legal_actions()
            assert len(legal) >= 1 and (len(legal) > 1 or legal[0] != PASS)  # never asked without a choice
            s.apply_action(legal[int(rng.integers(len(legal)))])
        assert sum(s.players_in) <= 1 or s.bout == game.max_bouts


def test_str_and_view_show_what_each_sees():
    s = position([["7s", "7c", "Qd"], ["8s", "9c", "Jh", "Kd", "Ks", "Ac"]], deck=["Js", "Qs", "10h"])
    play(s, "7s")
    view = s.view(0)
    assert "7c" in view and "Ks" not in view and "7s/?" in view and "trump hearts" in view
    assert "Ks" in str(s)
    assert s.action_name(PASS) == "take" and s.action_name(c("Ks")) == "Ks"  # by the mover's role
    before = s.clone()
    play(s, "take")
    news = s.describe_move(before, PASS, 0)
    assert news.splitlines()[0] == "player 1 takes 1 card: 7s" and "bout 2" in news
    assert s.action_name(PASS) == "pass"
