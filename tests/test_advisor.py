"""The swap advisor: the neighbourhood of a small deck listed exactly, every candidate of random
decks legal and one card away, the race seeded and stopping the changes that are clearly out,
contributions measured on paired deals, and bad inputs in one line."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from agents.parallel import Mapper
from deckopt.cli import main
from evolution.config import load_config
from evolution.decks.genome import random_deck
from evolution.designer.advisor import AdviceConfig, advise, remeasure
from evolution.designer.neighbourhoods import PowerNeighbourhood, neighbours, without_card
from evolution.scoring import fitness as fit
from evolution.spaces.gwent import GwentDeal, build_agent
from evolution.spaces.gwent_abilities import GwentAbilitiesSpace
from games.decks import DeckConstraints, DeckRules


def test_the_neighbourhood_of_a_small_deck_is_listed_exactly():
    rules = DeckRules(min_cards=3, max_total=10, min_power=1)
    got = [(c.kind, list(c.cards)) for c in neighbours([3, 1, 2], rules)]
    assert got == [
        ("move", [1, 1, 4]),  # a 2 gives a unit to the 3
        ("move", [2, 2, 2]),  # the 3 gives a unit to the 1
        ("raise", [2, 2, 3]),
        ("raise", [1, 3, 3]),
        ("raise", [1, 2, 4]),
        ("lower", [1, 1, 3]),
        ("lower", [1, 2, 2]),
        ("add", [1, 1, 2, 3]),
        ("add", [1, 2, 2, 3]),
        ("add", [1, 2, 3, 3]),
        ("add", [1, 2, 3, 4]),
    ]  # no removes: the deck holds min_cards
    more = DeckRules(min_cards=2, max_total=10, min_power=1)
    assert [c.cards for c in neighbours([1, 2, 3], more) if c.kind == "remove"] == [(2, 3), (1, 3), (1, 2)]
    # a full deck at its floor count: moves and lowers only; a pair of equal cards can split
    full = DeckRules(min_cards=2, max_total=4, min_power=1)
    assert [(c.kind, c.cards) for c in neighbours([2, 2], full)] == [("move", (1, 3)), ("lower", (1, 2))]
    assert neighbours([4, 4], DeckRules(min_cards=2, max_total=8, min_power=4)) == []
    # up to 2 units on a full deck: moving 2 from the 3 to a 2 gives the deck 2->1, 3->4 gave already
    two = [(c.kind, c.cards) for c in neighbours([2, 2, 3], DeckRules(min_cards=3, max_total=7, min_power=1), 2)]
    assert two == [
        ("move", (1, 3, 3)),
        ("move", (1, 2, 4)),
        ("lower", (1, 2, 3)),
        ("lower", (2, 2, 2)),
        ("lower", (1, 2, 2)),  # the 3 lowered by 2
    ]


@pytest.mark.parametrize("rules", [DeckRules(), DeckRules(min_cards=6, max_total=30, min_power=2)])
def test_every_candidate_is_legal_new_and_one_card_away(rules):
    rng = np.random.default_rng(5)
    for t in range(25):
        deck = random_deck(rules, rng)
        step = (1, 3, 100)[t % 3]
        changes = neighbours(deck, rules, step)
        decks = [c.cards for c in changes]
        assert len(set(decks)) == len(decks) and tuple(deck) not in decks and changes
        for c in changes:
            assert not rules.problems(c.cards) and list(c.cards) == sorted(c.cards)
            gone, came = Counter(deck) - Counter(c.cards), Counter(c.cards) - Counter(deck)
            assert sorted(gone.elements()) == sorted(c.out) and sorted(came.elements()) == sorted(c.into)
            dn, dt = len(c.cards) - len(deck), sum(c.cards) - sum(deck)
            k = max(abs(a - b) for a, b in zip(c.out, c.into)) if c.kind in ("move", "raise", "lower") else 1
            assert 1 <= k <= step
            expected = {
                "move": (0, 0),
                "raise": (0, k),
                "lower": (0, -k),
                "add": (1, sum(c.into)),
                "remove": (-1, -sum(c.out)),
            }
            assert (dn, dt) == expected[c.kind], c


def test_without_a_card_removes_replaces_or_leaves_alone():
    rules = DeckRules(min_cards=3, max_total=10, min_power=1)
    assert without_card([1, 2, 3, 4], 3, rules) == (1, 2, 4)
    assert without_card([1, 2, 3], 3, rules) == (1, 1, 2)
    assert without_card([1, 2, 3], 1, rules) is None


RULES = DeckRules(min_cards=6, max_total=30, min_power=1)
WEAK = [1, 1, 1, 1, 1, 1]  # far under budget: adding a big card is clearly better than adding a 1
FIELD = [(2,) * 6, (1, 1, 1, 1, 4, 4)]
SMALL = AdviceConfig(games=16, rounds=4, z=2.0, contribution_games=8)


def play_of(agent, pmap):
    """Gwent Lite matches under RULES by `agent` (evolution.scoring.yardstick.Play)."""

    def play(pairings, prefix, progress, what):
        return fit.play_pairings(pairings, agent, GwentDeal(RULES), pmap, 200, prefix, progress, what)

    return play


def run_advice(seed=0, jobs=1):
    agent = build_agent("heuristic", RULES, seed=seed)
    with Mapper(jobs) as pmap:
        return advise(WEAK, FIELD, PowerNeighbourhood(RULES), play_of(agent, pmap), seed, SMALL)


@pytest.fixture(scope="module")
def advice():
    return run_advice()


def test_the_race_stops_the_changes_clearly_out_and_is_seeded(advice):
    cands = advice["candidates"]
    assert len(cands) == len(neighbours(WEAK, RULES, SMALL.step))
    rounds = [c["rounds"] for c in cands]
    assert min(rounds) < SMALL.rounds  # games went elsewhere
    for c in cands:  # paired games: a candidate plays exactly the base's deals of its rounds
        assert c["games"] == c["rounds"] * (SMALL.games // SMALL.rounds) * len(FIELD)
        lo, hi = c["delta_ci95"]
        assert lo <= c["delta"] <= hi
    deltas = [c["delta"] for c in cands]
    assert deltas == sorted(deltas, reverse=True)
    assert cands[0]["delta_ci95"][0] > 0  # some change of a 6-power deck clearly helps
    assert advice["base"]["games"] == SMALL.games * len(FIELD)
    assert run_advice(jobs=2) == advice  # same seed, same advice, whatever the workers
    assert run_advice(seed=1) != advice


def test_only_changes_that_keep_the_decks_constraints_are_advised(advice):
    """The deck's own limits (a forbidden power, a locked card) bound the advice: no candidate breaks them."""
    assert any(9 in c["cards"] for c in advice["candidates"])  # without limits a 9 is offered
    limits = DeckConstraints(locked=(1, 1, 1, 1, 1, 1), forbidden=(9,))
    agent = build_agent("heuristic", RULES, seed=0)
    with Mapper(1) as pmap:
        out = advise(WEAK, FIELD, PowerNeighbourhood(RULES, limits), play_of(agent, pmap), 0, SMALL)
    assert out["candidates"] and all(not limits.problems(c["cards"]) for c in out["candidates"])
    assert len(out["candidates"]) < len(advice["candidates"])


def test_contributions_are_paired_on_their_own_deals(advice):
    contrib = {c["power"]: c for c in advice["contributions"]}
    assert set(contrib) == {1}
    c = contrib[1]
    assert c["without"] is None and c["contribution"] is None  # a 1 at min_cards: nothing to take away
    deck = [1, 1, 1, 1, 1, 1, 9]
    agent = build_agent("heuristic", RULES, seed=0)
    with Mapper(1) as pmap:
        out = advise(deck, FIELD, PowerNeighbourhood(RULES), play_of(agent, pmap), 0, SMALL)
    nine = next(c for c in out["contributions"] if c["power"] == 9)
    assert nine["without"] == [1] * 6 and nine["games"] == SMALL.contribution_games * len(FIELD)
    assert nine["contribution"] == pytest.approx(nine["score_with"] - nine["score_without"])
    assert nine["contribution"] > 0  # a 9 on top of six 1s is worth having


def test_remeasure_uses_fresh_deals_and_says_whether_the_gain_clears_its_interval():
    agent = build_agent("heuristic", RULES, seed=0)
    with Mapper(1) as pmap:
        same = remeasure(WEAK, WEAK, FIELD, play_of(agent, pmap), 7, 10)
        better = remeasure(WEAK, [1] * 5 + [20], FIELD, play_of(agent, pmap), 7, 10)
    assert same["delta"] == 0 and not same["improvement_clears_ci"]
    assert better["delta"] > 0 and better["improvement_clears_ci"] == (better["delta_ci95"][0] > 0)
    assert better["base"] == same["base"]  # the same deals for the deck in both calls


def refused(argv, capsys, *words):
    code = main(argv)
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err


def test_bad_inputs_are_one_line(tmp_path, capsys):
    refused(["advise", str(tmp_path / "nope.toml")], capsys, "not found")
    illegal = tmp_path / "illegal.toml"
    illegal.write_text("cards = [50, 50, 50]\n")
    refused(["advise", str(illegal)], capsys, "illegal")
    empty = tmp_path / "empty"
    empty.mkdir()
    refused(["advise", "decks/flat.toml", "--vs", str(empty)], capsys, "no deck files")
    small = tmp_path / "small.toml"
    small.write_text("cards = [2, 2, 2, 2, 2, 2]\n[rules]\nmin_cards = 6\nmax_total = 30\nmin_power = 2\n")
    refused(["advise", str(small)], capsys, "differ")
    refused(["advise", "decks/flat.toml", "--games", "10"], capsys, "multiple of 2 x --rounds")


def test_the_command_prints_json_with_a_check(capsys, tmp_path):
    deck = tmp_path / "weak.toml"
    deck.write_text("cards = [1, 1, 1, 1, 1, 1]\n[rules]\nmin_cards = 6\nmax_total = 30\nmin_power = 1\n")
    field = tmp_path / "field.toml"
    field.write_text("cards = [5, 5, 5, 5, 5, 5]\n[rules]\nmin_cards = 6\nmax_total = 30\nmin_power = 1\n")
    argv = ["advise", str(deck), "--vs", str(field), "--agent", "heuristic", "--games", "8", "--rounds", "4"]
    assert main(argv + ["--contribution-games", "0", "--check", "10", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["check"]["cards"] == data["candidates"][0]["cards"] and data["contributions"] == []
    assert data["check"]["games"] == 10 and data["agent"] == "heuristic"


def test_gwent_abilities_advice_offers_legal_single_card_changes(capsys):
    argv = ["advise", "--game", "gwent_abilities", "decks/gwent_abilities/bond.toml", "--agent", "heuristic"]
    sizes = ["--games", "2", "--rounds", "1", "--top", "3", "--contribution-games", "2", "--json"]
    assert main(argv + sizes) == 0
    data = json.loads(capsys.readouterr().out)
    space = GwentAbilitiesSpace(load_config(game="gwent_abilities"))
    deck = Counter(data["deck"])
    assert data["field_decks"] == 5 and data["agent"] == "heuristic"  # default field: decks/gwent_abilities
    assert {c["kind"] for c in data["candidates"]} == {"swap", "add", "remove"}
    for c in data["candidates"]:
        assert space.problems(c["cards"]) == []
        changed = Counter(c["cards"])
        assert sum(((deck - changed) + (changed - deck)).values()) == {"swap": 2, "add": 1, "remove": 1}[c["kind"]]
    contributions = {c["card"]: c for c in data["contributions"]}
    assert contributions["geralt"]["copies"] == 1 and len(contributions["geralt"]["without"]) == len(data["deck"]) - 1


def test_gwent_abilities_bad_inputs_are_one_line(capsys):
    abilities = ["advise", "--game", "gwent_abilities"]
    refused(abilities + ["decks/flat.toml"], capsys, "read as gwent_abilities decks")
    refused(["advise", "decks/gwent_abilities/bond.toml"], capsys, "read as gwent_lite decks")
    refused(abilities + ["decks/gwent_abilities"], capsys, "folder")
    refused(abilities + ["decks/gwent_abilities/bond.toml", "--step", "2"], capsys, "--step")
    refused(["advise", "--game", "exploding_kittens", "decks/flat.toml"], capsys, "no reference decks")
