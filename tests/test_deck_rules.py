"""DeckRules: validation says exactly what is wrong; random decks are legal; atomic writes."""
import numpy as np
import pytest

from games import UserError
from games.decks import DeckRules
from games.fileio import atomic_write_json


def test_default_rules():
    r = DeckRules()
    assert (r.min_cards, r.max_total, r.min_power, r.max_power) == (25, 100, 1, 76)
    assert r.is_legal([4] * 25) and r.is_legal([1] * 24 + [76]) and r.is_legal([1] * 100)


@pytest.mark.parametrize(
    "cards, needle",
    [([4] * 24, "has 24 cards, needs at least 25"), ([5] * 25, "totals 125 power, over the budget of 100"),
     ([0] + [4] * 24, "below the minimum power 1: [0]"), ([1.5] + [1] * 24, "whole numbers")],
)
def test_validate_names_the_problem(cards, needle):
    with pytest.raises(UserError, match=needle.replace("[", r"\[").replace("]", r"\]")):
        DeckRules().validate(cards)


def test_impossible_rules_refused():
    with pytest.raises(UserError, match="no legal deck"):
        DeckRules(min_cards=30, max_total=20)


@pytest.mark.parametrize("rules", [DeckRules(), DeckRules(10, 40, 2), DeckRules(5, 5, 1), DeckRules(25, 300, 3)])
def test_random_decks_are_legal(rules):
    rng = np.random.default_rng(0)
    for _ in range(300):
        assert rules.is_legal(rules.random_deck(rng))


def test_atomic_write_leaves_no_temp(tmp_path):
    atomic_write_json(tmp_path / "a" / "x.json", {"k": 1})
    assert (tmp_path / "a" / "x.json").read_text().strip().startswith("{")
    assert [p.name for p in (tmp_path / "a").iterdir()] == ["x.json"]
    # not mkstemp's private 0600: others may read run outputs as with any new file
    import os
    mask = os.umask(0)
    os.umask(mask)
    assert (tmp_path / "a" / "x.json").stat().st_mode & 0o777 == 0o666 & ~mask
