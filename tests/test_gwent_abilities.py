"""Gwent Abilities (games/RULES.md §8): every ability on a hand-worked position, the rounds, the deck
rules and deck files, the reference decks, random games to the end, and the rule bot."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import agents
import games
from agents.arena import play_match
from games import IllegalActionError, UserError
from games.gwent_abilities import CARDS, DECOY_CHOICE, MEDIC_CHOICE, NO_CHOICE, GwentAbilitiesState
from games.gwent_abilities_cards import (
    CARD_INDEX,
    ROWS,
    AbilityDeck,
    AbilityDeckRules,
    load_ability_deck,
    provision_cost,
    save_ability_deck,
)

ROOT = Path(__file__).resolve().parents[1]
REFERENCE_DECKS = sorted((ROOT / "decks" / "gwent_abilities").glob("*.toml"))


def position(hands, piles=((), ()), leader=0, **config) -> GwentAbilitiesState:
    """A game with no chance left: seat p holds `hands[p]` (card names; the shorter hand is filled
    up with archers to the size of the longer) and draws `piles[p]` in order (first drawn first);
    `leader` leads round 1."""
    size = max(len(h) for h in hands)
    hands = [list(h) + ["archer"] * (size - len(h)) for h in hands]
    game = games.make("gwent_abilities", hand_size=size, **config)
    orders = [[CARD_INDEX[c] for c in list(hands[p]) + list(piles[p])] for p in (0, 1)]
    return GwentAbilitiesState(game, orders, leader)


def act(name: str) -> int:
    return 0 if name == "pass" else 1 + CARD_INDEX[name]


def play(state, *moves) -> GwentAbilitiesState:
    """Apply `moves` (card names or "pass") in turn, whoever is to move."""
    for move in moves:
        state.apply_action(act(move))
    return state


FILL = ["archer"] * 6  # cards a seat holds and never plays: the round goes on while both have cards


# --- the abilities, each on a small fixed position (§8.2, §8.4) -----------------------------------
def test_a_plain_unit_adds_its_power_to_its_row():
    s = play(position([["champion", "marksman"] + FILL, ["trebuchet"] + FILL[:7]]), "champion", "trebuchet")
    assert s.row_strengths == ((8, 0, 0), (0, 0, 8)) and s.round_totals == (8, 8)
    play(s, "marksman")
    assert s.row_strengths[0] == (8, 7, 0) and s.round_totals == (15, 8)


def test_a_spy_counts_for_the_opponent_and_its_player_draws_two():
    s = position([["informant"] + FILL, FILL + ["archer"]], piles=[["geralt", "eredin", "triss"], []])
    play(s, "informant")
    assert s.round_totals == (0, 2) and s.row_strengths[1] == (2, 0, 0)
    assert s.boards == ((), ("informant",))
    assert s.hand_sizes == (8, 7) and "geralt" in s.hand(0) and "eredin" in s.hand(0)
    assert s.draw_pile(0) == ["triss"]


def test_a_spy_draws_what_is_left_when_the_pile_runs_short():
    s = play(position([["saboteur"] + FILL, FILL + ["archer"]], piles=[["geralt"], []]), "saboteur")
    assert s.hand_sizes[0] == 7 and s.draw_pile(0) == [] and s.round_totals == (0, 3)


def test_tight_bond_multiplies_by_the_copies_on_the_row():
    s = position([["blue_stripes"] * 3 + FILL, ["militia"] * 3 + FILL])
    play(s, "blue_stripes", "militia")
    assert s.round_totals[0] == 3
    play(s, "blue_stripes", "militia")
    assert s.round_totals[0] == 12 and s.strength(0, "blue_stripes") == 6
    play(s, "blue_stripes")
    assert s.round_totals[0] == 27 and s.strength(0, "blue_stripes") == 9


def test_morale_lifts_every_other_unit_of_its_row():
    s = position([["militia", "militia", "standard_bearer", "standard_bearer", "marksman"] + FILL, ["archer"] * 11])
    play(s, "militia", "archer", "militia", "archer", "standard_bearer", "archer")
    # militia 2 + 1 each, the bearer itself 2: 3 + 3 + 2
    assert s.row_strengths[0] == (8, 0, 0)
    play(s, "standard_bearer", "archer", "marksman")
    # two bearers lift each other and give the militia +2; the ranged row is untouched
    assert s.row_strengths[0] == (4 + 4 + 3 + 3, 7, 0)


def test_horn_doubles_every_other_unit_of_its_row_but_not_a_hero():
    s = position([["war_drummer", "champion", "footman", "geralt", "war_drummer"] + FILL, ["archer"] * 11])
    play(s, "champion", "archer", "footman", "archer", "geralt", "archer")
    assert s.round_totals[0] == 8 + 4 + 15
    play(s, "war_drummer", "archer")
    assert s.round_totals[0] == 16 + 8 + 15 + 2
    play(s, "war_drummer")
    # two horns: each doubles the other, the row is doubled once
    assert s.round_totals[0] == 16 + 8 + 15 + 4 + 4


def test_horn_and_morale_stack_with_bond_in_order():
    s = position([["crinfrid_reaver", "crinfrid_reaver", "drill_sergeant", "battle_bard"] + FILL, ["archer"] * 10])
    play(s, "crinfrid_reaver", "archer", "crinfrid_reaver", "archer", "drill_sergeant", "archer", "battle_bard")
    # reaver: 4 x 2 copies = 8, +1 morale = 9, doubled = 18; sergeant (2) doubled = 4; bard 2 + 1 morale = 3
    assert s.strength(0, "crinfrid_reaver") == 18
    assert s.row_strengths[0] == (0, 18 + 18 + 4 + 3, 0)


def test_muster_brings_every_copy_from_hand_and_draw_pile():
    s = position([["arachas", "arachas"] + FILL, ["archer"] * 8], piles=[["geralt", "arachas", "triss"], []])
    play(s, "arachas")
    assert s.boards[0] == ("arachas",) * 3 and s.round_totals[0] == 9
    assert "arachas" not in s.hand(0) and s.hand_sizes[0] == 6
    assert s.draw_pile(0) == ["geralt", "triss"]


def test_scorch_destroys_the_strongest_units_on_both_sides_and_spares_heroes():
    s = position([["champion", "knight", "marksman"] + FILL, ["champion", "geralt", "scorch"] + FILL])
    play(s, "champion", "champion", "knight", "geralt", "marksman")
    assert s.round_totals == (8 + 6 + 7, 8 + 15)
    play(s, "scorch")
    # both champions (8) go, each to the discard pile of its side; the hero (15) stays
    assert s.round_totals == (6 + 7, 15)
    assert s.discard_piles == (("champion",), ("champion", "scorch"))
    assert Counter(s.cards()) == Counter(s.clone().cards())


def test_scorch_takes_a_whole_bond_stack():
    s = position([["blue_stripes"] * 3 + FILL, ["knight", "knight", "archer", "scorch"] + FILL[:5]])
    play(s, "blue_stripes", "knight", "blue_stripes", "knight", "blue_stripes")
    assert s.round_totals == (27, 12)
    play(s, "scorch")
    assert s.round_totals == (0, 12) and s.discard_piles[0] == ("blue_stripes",) * 3


def test_scorch_on_an_empty_board_does_nothing():
    s = play(position([["scorch"] + FILL, ["archer"] * 7]), "scorch")
    assert s.round_totals == (0, 0) and s.discard_piles == (("scorch",), ())


def test_medic_revives_a_unit_from_its_players_discard_pile():
    s = position([["champion", "field_medic"] + FILL, ["scorch"] + FILL + ["archer"]])
    play(s, "champion", "scorch")
    assert s.discard_piles[0] == ("champion",)
    play(s, "field_medic")
    assert s.pending == MEDIC_CHOICE and s.current_player == 0
    assert s.legal_actions() == [act("champion")]  # no pass while a choice is owed
    assert s.action_name(act("champion")) == "revive champion"
    with pytest.raises(IllegalActionError):
        s.apply_action(0)
    play(s, "champion")
    assert s.pending == NO_CHOICE and s.current_player == 1
    assert s.round_totals == (3 + 8, 0) and s.discard_piles[0] == ()


def test_a_medic_with_nothing_to_revive_is_a_plain_unit():
    s = play(position([["healer"] + FILL, ["archer"] * 7]), "healer")
    assert s.pending == NO_CHOICE and s.current_player == 1 and s.round_totals == (2, 0)


def test_a_medic_cannot_revive_a_hero():
    s = position([["geralt", "champion", "healer"] + FILL, ["scorch", "scorch"] + FILL + ["archer"]])
    play(s, "champion", "scorch")
    s._discards[0][CARD_INDEX["geralt"]] = 1  # a hero in the discard pile (as after a round)
    s._hands[0][CARD_INDEX["geralt"]] = 0
    play(s, "healer")
    assert s.legal_actions() == [act("champion")]


def test_a_medic_revives_an_opponents_spy_for_itself():
    """The opponent's spy lay on my side, so it ends the round in my discard pile; my medic plays
    it as mine: it goes back to them and I draw two."""
    s = position(
        [["field_medic", "archer"], ["informant", "archer"]],
        piles=[["geralt", "triss", "eredin"], ["militia", "militia"]],
        leader=1,
        round_draw=0,
    )
    play(s, "informant")  # player 1's spy lies on my side: 2 for me
    assert s.round_totals == (2, 0) and s.hand_sizes == (2, 3)
    play(s, "pass", "pass")  # round 1: 2 to 0, I win it
    assert s.round == 2 and s.discard_piles[0] == ("informant",)
    play(s, "field_medic")
    assert s.legal_actions() == [act("informant")]
    play(s, "informant")
    assert s.round_totals == (3, 2) and s.boards == (("field_medic",), ("informant",))
    assert s.hand_sizes[0] == 3  # archer + the two cards the spy drew


def test_a_medic_revives_a_medic_which_revives_again():
    s = position(
        [["champion", "healer", "field_medic"] + FILL, ["scorch", "scorch", "scorch"] + FILL],
        round_draw=0,
    )
    play(s, "champion", "scorch", "healer")  # the healer revives the champion
    play(s, "champion", "scorch")  # champion burnt again
    assert s.discard_piles[0] == ("champion",) and s.round_totals == (2, 0)
    play(s, "field_medic", "champion")
    assert s.round_totals == (2 + 3 + 8, 0)


def test_decoy_takes_a_unit_back_into_the_hand_and_it_is_known_there():
    s = position([["decoy", "archer", "archer"] + FILL, ["informant", "archer", "archer"] + FILL], leader=1)
    play(s, "informant")  # on my side: 2 for me, player 1 draws
    assert act("decoy") in s.legal_actions()
    play(s, "decoy")
    assert s.pending == DECOY_CHOICE and s.legal_actions() == [act("informant")]
    assert s.action_name(act("informant")) == "take back informant"
    play(s, "informant")
    assert s.round_totals == (0, 0) and "informant" in s.hand(0) and "decoy" not in s.hand(0)
    assert s.known_in_hand == (("informant",), ()) and s.discard_piles[0] == ("decoy",)
    play(s, "archer", "informant")  # player 1 plays an archer; the spy is mine now: it goes to them
    assert s.known_in_hand == ((), ()) and s.round_totals == (0, 3 + 2)


def test_a_decoy_needs_a_target_that_is_not_a_hero():
    s = position([["decoy", "geralt"] + FILL, ["archer"] * 8])
    assert act("decoy") not in s.legal_actions()
    play(s, "geralt", "archer")
    assert act("decoy") not in s.legal_actions()  # a hero is not a target


def test_weather_sets_its_row_to_one_on_both_sides_and_clear_weather_ends_it():
    s = position(
        [
            ["champion", "geralt", "frost", "clear_weather"] + FILL,
            ["knight", "blue_stripes", "blue_stripes"] + FILL[:5] + ["archer"],
        ]
    )
    play(s, "champion", "knight", "geralt", "blue_stripes", "frost")
    assert s.weather == (True, False, False)
    # champion 1, geralt (hero) 15; knight 1, a stripe 1
    assert s.round_totals == (1 + 15, 1 + 1)
    play(s, "blue_stripes")  # two bonded stripes: 1 x 2 each
    assert s.round_totals == (1 + 15, 1 + 2 + 2)
    play(s, "clear_weather")
    assert s.weather == (False, False, False) and s.round_totals == (8 + 15, 6 + 6 + 6)
    assert s.discard_piles[0] == ("frost", "clear_weather")


def test_weather_then_horn():
    s = position([["catapult", "siege_master", "rain"] + FILL, ["archer"] * 9])
    play(s, "catapult", "archer", "rain", "archer", "siege_master")
    assert s.row_strengths[0] == (0, 0, 2 + 1)  # catapult 1, doubled; the master 1
    assert s.weather_in_play == (("rain",), ())


# --- rounds, turns and the end (§8.3, §8.5, §8.6) --------------------------------------------------
def test_a_round_ends_when_both_pass_and_the_board_is_cleared():
    s = position(
        [["champion", "knight", "frost"], ["trebuchet", "archer", "militia"]],
        piles=[["marksman", "ballista", "footman"], ["catapult", "geralt", "archer"]],
    )
    play(s, "champion", "archer", "frost", "pass")  # player 1 passes at 3 against a frozen champion, 1
    assert s.passed == (False, True) and s.current_player == 0
    play(s, "pass")
    assert s.round == 2 and s.round_wins == (0, 1) and s.last_round_totals == (1, 3)
    assert s.round_totals == (0, 0) and s.weather == (False, False, False)
    assert s.discard_piles == (("champion", "frost"), ("archer",))
    assert s.hand_sizes == (3, 3) and s.leader == 1 and s.current_player == 1  # draws stop at hand_size 3
    assert s.hand(0) == ["knight", "marksman", "ballista"]


def test_a_tie_gives_both_a_round_win_and_the_other_player_leads():
    s = position([["champion"] * 2, ["trebuchet"] * 2], leader=0, round_draw=0)
    play(s, "champion", "trebuchet", "pass", "pass")
    assert s.round_wins == (1, 1) and s.leader == 1  # player 0 led round 1


def test_the_first_to_two_round_wins_wins_and_an_empty_hand_passes():
    s = position([["champion", "archer"], ["militia", "militia"]], round_draw=0)
    play(s, "champion", "militia", "pass", "militia")
    assert s.round == 2 and s.round_wins == (1, 0)
    # player 1's hand is empty: they have passed, player 0 plays on alone
    assert s.passed == (False, True) and s.current_player == 0
    play(s, "archer")
    assert s.is_terminal() and s.returns().tolist() == [1.0, -1.0]


def test_both_players_out_of_cards_end_the_game_without_a_move():
    s = position([["militia"], ["militia"]], round_draw=0)
    play(s, "militia", "militia")
    # 2 to 2: both win round 1; rounds 2 start with empty hands: 0 to 0, both win: a draw
    assert s.is_terminal() and s.returns().tolist() == [0.0, 0.0] and s.round == 2


# --- what a player knows (§8.9) ---------------------------------------------------------------------
def test_resampling_keeps_known_hand_cards_and_sizes():
    s = position(
        [["decoy"] + FILL, ["informant", "geralt"] + FILL[:5]],
        piles=[["triss"], ["eredin", "champion", "triss", "marksman"]],
    )
    s = play(s, "archer", "informant", "decoy", "informant")
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(30):
        r = s.resample_hidden(1, rng)
        assert r.known_in_hand[0] == ("informant",) and "informant" in r.hand(0)
        assert r.hand_sizes == s.hand_sizes and Counter(r.unplayed(0)) == Counter(s.unplayed(0))
        assert np.array_equal(r.observation(1), s.observation(1))
        r2 = s.resample_hidden(0, rng)
        seen.add(tuple(r2.hand(1)))
    assert len(seen) > 1  # the opponent's hand is re-dealt


def test_observations_hide_the_opponents_hand_and_pile_order():
    game = games.make("gwent_abilities")
    s = game.new_initial_state(np.random.default_rng(3))
    obs = s.observation(0)
    assert obs.shape == (8 * len(CARDS) + 22,) and obs.min() >= 0 and obs.max() <= 1
    swapped = s.clone()
    swapped._piles[1] = swapped._piles[1][::-1]
    assert np.array_equal(swapped.observation(0), obs)


# --- deck rules and files (§8.1, §8.10) -------------------------------------------------------------
LEGAL = ["militia"] * 3 + ["footman"] * 3 + ["archer"] * 3 + ["ballista"] * 3 + ["knight"] * 3
LEGAL += ["champion"] * 3 + ["catapult"] * 3 + ["crossbowman"] * 3 + ["geralt"]


def test_default_rules_and_a_legal_deck():
    r = AbilityDeckRules()
    assert (r.min_cards, r.max_cards, r.copy_limit, r.gold_copy_limit, r.provision_budget) == (25, 40, 3, 1, 150)
    assert len(LEGAL) == 25 and provision_cost(LEGAL) <= 150 and r.problems(LEGAL) == []
    assert r.validate(list(reversed(LEGAL))) == sorted(LEGAL, key=CARD_INDEX.__getitem__)


@pytest.mark.parametrize(
    "cards, needle",
    [
        (LEGAL[:24], "has 24 cards, needs at least 25"),
        (LEGAL + ["militia"] * 16, "has 41 cards, at most 40 allowed"),
        (LEGAL[:-1] + ["militia"], "too many copies of militia x4"),
        (LEGAL[:-1] + ["triss", "triss"], "too many copies of triss x2"),
        (LEGAL + ["trebuchet", "marksman"], "costs 158 provisions, over the budget of 150"),
        (LEGAL[:-1] + ["dragon"], "unknown card(s) ['dragon']"),
        (LEGAL[:-1] + [7], "unknown card(s) ['7']"),
        ("militia", "must be a list of card names"),
    ],
)
def test_validate_names_the_problem(cards, needle):
    with pytest.raises(UserError, match=re.escape(needle)):
        AbilityDeckRules().validate(cards)


@pytest.mark.parametrize(
    "settings, needle",
    [
        ({"min_cards": 30, "max_cards": 20}, "min_cards (30) exceeds max_cards (20)"),
        ({"provision_budget": 40}, "no legal deck: the 25 cheapest cards cost"),
        ({"copy_limit": 1, "gold_copy_limit": 2}, "gold_copy_limit (2) exceeds copy_limit (1)"),
        ({"copy_limit": 1, "min_cards": 38, "max_cards": 40}, "the pool allows only 37 cards"),
        ({"min_cards": 0}, "min_cards must be a whole number >= 1"),
        ({"max_cards": 1000}, "max_cards must be at most 200"),
    ],
)
def test_impossible_rules_are_refused(settings, needle):
    with pytest.raises(UserError, match=re.escape(needle)):
        AbilityDeckRules(**settings)


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"min_cards": 30, "provision_budget": 110},
        {"min_cards": 10, "max_cards": 12, "copy_limit": 1, "provision_budget": 40},
        {"min_cards": 40, "max_cards": 40, "copy_limit": 2, "provision_budget": 300},
        {"copy_limit": 2, "gold_copy_limit": 2, "provision_budget": 100},
    ],
)
def test_random_decks_are_legal_and_vary(settings):
    rules = AbilityDeckRules(**settings)
    rng = np.random.default_rng(0)
    decks = [rules.random_deck(rng) for _ in range(200)]
    assert all(rules.problems(d) == [] for d in decks)
    assert len({tuple(d) for d in decks}) > 150
    assert {len(d) for d in decks} >= {rules.min_cards}


def test_the_budget_binds_random_decks():
    rng = np.random.default_rng(1)
    costs = [provision_cost(AbilityDeckRules().random_deck(rng)) for _ in range(100)]
    assert max(costs) <= 150 and np.mean(costs) > 130


def test_a_deck_file_round_trips(tmp_path):
    rules = AbilityDeckRules(min_cards=20, provision_budget=140)
    deck = AbilityDeck(cards=LEGAL[:20], rules=rules, name="plain twenty")
    for name in ("d.toml", "d.json"):
        save_ability_deck(deck, tmp_path / name, comment="a test deck")
        again = load_ability_deck(tmp_path / name)
        assert again == deck and again.rules == rules
    assert (tmp_path / "d.toml").read_text().startswith("# a test deck\nname = ")


@pytest.mark.parametrize(
    "text, needle",
    [
        ('cards = ["militia"]\n', "has 1 cards, needs at least 25"),
        ('cards = ["dragon"]\n', "unknown card(s)"),
        ('name = "x"\n', "has no 'cards' list"),
        ('cards = ["militia"]\ncolour = "red"\n', "unknown setting(s) colour"),
        ('cards = ["militia"]\n[rules]\nmin_cards = 0\n', "min_cards must be a whole number >= 1"),
        ("cards = [\n", "not valid TOML"),
    ],
)
def test_bad_deck_files_are_refused_in_one_line(tmp_path, text, needle):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(UserError, match=re.escape(needle)) as err:
        load_ability_deck(path)
    assert "\n" not in str(err.value)


def test_the_reference_decks_are_legal_and_play():
    assert len(REFERENCE_DECKS) >= 5
    for path in REFERENCE_DECKS:
        deck = load_ability_deck(path)
        assert deck.rules == AbilityDeckRules()
        game = games.make("gwent_abilities", decks=[deck.cards, deck.cards])
        s = game.new_initial_state(np.random.default_rng(0))
        while not s.is_terminal():
            s.apply_action(s.legal_actions()[-1])


def test_given_decks_are_validated_by_the_game():
    with pytest.raises(UserError, match="seat 1's deck is illegal.*has 3 cards"):
        games.make("gwent_abilities", decks=[LEGAL, ["militia"] * 3])
    game = games.make("gwent_abilities", decks=[LEGAL, LEGAL])
    s = game.new_initial_state(np.random.default_rng(0))
    assert Counter(s.cards()) == Counter(LEGAL + LEGAL)


def test_the_card_table_of_the_rules_is_the_pool():
    text = (ROOT / "games" / "RULES.md").read_text()
    section = text[text.index("## 8. Gwent Abilities") :]
    rows = re.findall(r"^\| `(\w+)` \| (\S+) \| (\S+) \| (\d+) \| (\S+) \| ?(hero)? ?\|$", section, re.M)
    assert len(rows) == len(CARDS)
    for (name, row, power, provision, ability, hero), card in zip(rows, CARDS):
        assert name == card.name and int(provision) == card.provision and bool(hero) == card.hero
        assert row == (ROWS[card.row] if card.row >= 0 else "-")
        assert power == (str(card.power) if card.unit else "-")
        assert ability == (card.ability if card.ability != "plain" else "-")


# --- whole games -----------------------------------------------------------------------------------
def test_random_games_from_random_decks_end_with_a_result():
    game = games.make("gwent_abilities")
    rng = np.random.default_rng(0)
    results = Counter()
    for g in range(60):
        s = game.new_initial_state(np.random.default_rng(g))
        moves = 0
        while not s.is_terminal():
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])
            moves += 1
        assert moves < 200 and s.round <= game.max_rounds
        results[tuple(s.returns().tolist())] += 1
    assert set(results) <= {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)} and len(results) >= 2


def test_the_same_seed_deals_the_same_random_decks():
    game = games.make("gwent_abilities")
    a, b = game.new_initial_state(5), game.new_initial_state(5)
    assert a.cards() == b.cards() and a.hand(0) == b.hand(0) and a.leader == b.leader
    assert game.new_initial_state(6).cards() != a.cards()


def test_a_deck_pool_deals_its_decks_the_same_way_per_seed():
    pool = [load_ability_deck(f).cards for f in REFERENCE_DECKS[:2]]
    game = games.make("gwent_abilities", deck_pool=pool)
    dealt = [game.new_initial_state(seed) for seed in range(12)]
    pooled = [Counter(d) for d in pool]
    assert all(s.cards() in ([a + b for a in pooled for b in pooled]) for s in dealt)
    assert [s.cards() for s in dealt] == [game.new_initial_state(seed).cards() for seed in range(12)]
    assert len({tuple(sorted(s.unplayed(0))) for s in dealt}) == 2  # both pool decks deal to seat 0
    mixed = games.make("gwent_abilities", deck_pool=pool, pool_share=0.5)
    outside = [s for s in (mixed.new_initial_state(seed) for seed in range(40)) if Counter(s.unplayed(0)) not in pooled]
    assert 5 <= len(outside) <= 35  # about half the seats get a random legal deck
    with pytest.raises(UserError, match="pool_share") as bad_share:
        games.make("gwent_abilities", deck_pool=pool, pool_share=2)
    with pytest.raises(UserError, match=r"deck_pool\[0\] is illegal") as bad_deck:
        games.make("gwent_abilities", deck_pool=[["geralt"]])
    assert all("\n" not in str(e.value) for e in (bad_share, bad_deck))


def test_words_show_the_board_and_hide_the_opponents_hand():
    s = position([["champion", "frost"] + FILL, ["geralt", "informant"] + FILL])
    before = s.clone()
    play(s, "champion")
    assert (
        s.describe_move(before, act("champion"), 1) == "player 0 plays champion (melee 8) (totals: you 0, player 0 8)"
    )
    view = s.view(0)
    assert (
        "melee    8: champion 8" in view and "your hand (7 cards): archer (ranged 3) x6, frost (special, melee)" in view
    )
    assert "geralt" in view  # among player 1's unplayed cards
    assert "informant (melee 2, spy)" not in view
    assert "informant (melee 2, spy)" in s.view(1)


def test_the_heuristic_beats_random_clearly():
    game = games.make("gwent_abilities")
    bots = [agents.make("heuristic", game, seed=0), agents.make("random", game, seed=1)]
    result = play_match(game, bots, num_games=100, seed=3)
    heuristic = result.agents[0]
    assert (heuristic.wins - heuristic.losses) / result.games > 0.5


# --- the rule bot on fixed positions -----------------------------------------------------------------
def bot_move(state) -> str:
    bot = agents.make("heuristic", state.game, seed=0)
    action = int(bot.act([state])[0])
    return "pass" if action == 0 else CARDS[action - 1].name


def test_the_bot_passes_once_the_opponent_has_passed_behind_it():
    s = play(position([["champion", "knight"] + FILL, ["footman"] + FILL]), "champion", "footman", "knight", "pass")
    assert s.current_player == 0 and s.passed == (False, True)
    assert bot_move(s) == "pass"


def test_the_bot_plays_a_spy_first_in_an_open_round():
    s = position([["champion", "informant", "footman"] + FILL, ["archer"] * 9], piles=[["militia", "militia"], []])
    assert bot_move(s) == "informant"


def test_the_bot_scorches_the_opponents_strongest_card():
    s = position([["scorch", "footman", "militia"] + FILL, ["champion", "archer"] + FILL + ["archer"]], leader=1)
    play(s, "champion")
    assert bot_move(s) == "scorch"


def test_the_bot_gets_ahead_with_its_least_worthy_card_and_keeps_its_hero():
    s = position([["geralt", "footman", "militia", "knight"], ["archer"] * 4], leader=1)
    play(s, "archer", "militia", "pass")  # 3 against 2: I am behind and the opponent has passed
    assert bot_move(s) == "footman"


def test_the_bot_revives_its_best_card():
    s = position([["champion", "militia", "field_medic"] + FILL, ["scorch", "scorch"] + FILL + ["archer"]])
    play(s, "champion", "scorch", "militia", "scorch", "field_medic")  # both scorched; medic owes a choice
    assert s.pending == MEDIC_CHOICE and bot_move(s) == "champion"
