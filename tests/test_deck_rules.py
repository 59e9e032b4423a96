"""DeckRules (games/RULES.md §5.1): validation says exactly what is wrong; random decks are legal;
the budget is bounded; atomic writes."""

import numpy as np
import pytest

from games import UserError
from games.decks import MAX_TOTAL, DeckRules
from games.fileio import atomic_write_json


def test_default_rules():
    r = DeckRules()
    assert (r.min_cards, r.max_total, r.min_power, r.max_power) == (25, 100, 1, 76)
    assert r.problems([4] * 25) == r.problems([1] * 24 + [76]) == r.problems([1] * 100) == []


@pytest.mark.parametrize(
    "cards, needle",
    [
        ([4] * 24, "has 24 cards, needs at least 25"),
        ([5] * 25, "totals 125 power, over the budget of 100"),
        ([0] + [4] * 24, "below the minimum power 1: [0]"),
        ([1.5] + [1] * 24, "whole numbers"),
    ],
)
def test_validate_names_the_problem(cards, needle):
    with pytest.raises(UserError, match=needle.replace("[", r"\[").replace("]", r"\]")):
        DeckRules().validate(cards)


def test_impossible_rules_refused():
    with pytest.raises(UserError, match="no legal deck"):
        DeckRules(min_cards=30, max_total=20)


@pytest.mark.parametrize(
    "settings, needle",
    [
        (dict(max_total=10**12), f"max_total must be at most {MAX_TOTAL}, got 1000000000000"),
        (dict(min_cards=0), "min_cards must be >= 1"),
        (dict(min_power=0), "min_power must be >= 1"),
        (dict(min_cards=2.5), "min_cards must be a whole number, got 2.5"),
        (dict(max_total=True), "max_total must be a whole number, got True"),
    ],
)
def test_rules_out_of_bounds_refused_in_one_line(settings, needle):
    with pytest.raises(UserError, match=needle) as info:
        DeckRules(**settings)
    assert "\n" not in str(info.value)


def test_numpy_integers_become_plain_ints():
    rules = DeckRules(np.int64(10), np.int32(40), np.int64(2))
    assert rules == DeckRules(10, 40, 2) and all(type(v) is int for v in (rules.min_cards, rules.max_total))
    assert DeckRules(max_total=MAX_TOTAL).max_power == MAX_TOTAL - 24


@pytest.mark.parametrize("rules", [DeckRules(), DeckRules(10, 40, 2), DeckRules(5, 5, 1), DeckRules(25, 300, 3)])
def test_random_decks_are_legal(rules):
    rng = np.random.default_rng(0)
    for _ in range(300):
        assert rules.problems(rules.random_deck(rng)) == []


def test_atomic_write_leaves_no_temp(tmp_path):
    atomic_write_json(tmp_path / "a" / "x.json", {"k": 1})
    assert (tmp_path / "a" / "x.json").read_text().strip().startswith("{")
    assert [p.name for p in (tmp_path / "a").iterdir()] == ["x.json"]
    # not mkstemp's private 0600: others may read run outputs as with any new file
    import os

    mask = os.umask(0)
    os.umask(mask)
    assert (tmp_path / "a" / "x.json").stat().st_mode & 0o777 == 0o666 & ~mask
