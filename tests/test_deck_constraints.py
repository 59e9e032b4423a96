"""Deck constraints (games.decks.DeckConstraints) in deck files, and their repair (evolution.decks.constraints)."""

from __future__ import annotations

import numpy as np
import pytest

from evolution.config import load_config
from evolution.decks import genome
from evolution.decks.constraints import check_feasible, enforce, random_constrained
from games.decks import CountBound, Deck, DeckConstraints, DeckRules, load_deck, save_deck
from games.errors import UserError

RULES = DeckRules()
CONSTRAINTS = DeckConstraints(locked=(9, 9), forbidden=(7, 8), count=(CountBound(low=11, at_most=3),))


def deck_text(cards, constraints: str) -> str:
    return f"name = 'mine'\ncards = {list(cards)}\n[rules]\nmin_cards = 25\n{constraints}"


def test_a_deck_file_keeps_its_constraints_through_save_and_load(tmp_path):
    cards = [1] * 20 + [9, 9, 12, 20, 20]
    deck = Deck(cards, RULES, "mine", CONSTRAINTS)
    save_deck(deck, tmp_path / "mine.toml")
    again = load_deck(tmp_path / "mine.toml")
    assert again.constraints == CONSTRAINTS and again.cards == sorted(cards)
    save_deck(deck, tmp_path / "mine.json")
    assert load_deck(tmp_path / "mine.json").constraints == CONSTRAINTS


@pytest.mark.parametrize(
    "cards, constraints, message",
    [
        ([1] * 21 + [12, 12, 12, 41], "[[constraints.count]]\nlow = 11\nat_most = 2", "at most 2 cards of power 11"),
        ([1] * 24 + [7], "[constraints]\nforbidden = [7]", r"power\(s\) \[7\] are forbidden"),
        ([1] * 24 + [9], "[constraints]\nlocked = [9, 9]", "needs 2 locked card"),
        ([1] * 25, "[constraints]\nlocked = [3]\nforbidden = [3]", "both locked and forbidden"),
        ([1] * 25, "[[constraints.count]]\nlow = 5\nhigh = 2", "high 2 is below low 5"),
        ([1] * 25, "[constraints]\nlocked = [0]", "whole powers >= 1"),
        ([1] * 25, "[constraints]\nshape = 1", "unknown setting"),
    ],
)
def test_a_deck_file_breaking_a_constraint_is_refused_in_one_line(tmp_path, cards, constraints, message):
    path = tmp_path / "bad.toml"
    path.write_text(deck_text(cards, constraints))
    with pytest.raises(UserError, match=message) as info:
        load_deck(path)
    assert "\n" not in str(info.value)


def test_enforce_leaves_a_deck_inside_the_constraints_unchanged():
    cards = [1] * 20 + [9, 9, 12, 20, 20]
    assert enforce(cards, RULES, CONSTRAINTS, np.random.default_rng(0)) == sorted(cards)


def test_enforce_puts_every_random_deck_inside_rules_and_constraints_at_its_own_total():
    rng = np.random.default_rng(1)
    same_total = 0
    for _ in range(300):
        cards = genome.random_deck(RULES, rng)
        fixed = enforce(cards, RULES, CONSTRAINTS, rng)
        assert fixed is not None
        assert RULES.problems(fixed) == [] and CONSTRAINTS.problems(fixed) == []
        same_total += sum(fixed) == sum(cards)
        if sum(fixed) != sum(cards):  # only a deck too small for the locked cards grows (two 9s need 41)
            assert sum(cards) < 41 and sum(fixed) == 41
    assert same_total >= 270


def test_enforce_honours_at_least_and_a_closed_range():
    constraints = DeckConstraints(count=(CountBound(low=4, high=6, at_least=5, at_most=8),))
    rng = np.random.default_rng(2)
    for _ in range(100):
        fixed = enforce(genome.random_deck(RULES, rng), RULES, constraints, rng)
        assert fixed is not None and constraints.problems(fixed) == [] and RULES.problems(fixed) == []


def test_mutants_and_children_repaired_by_enforce_stay_inside():
    rng = np.random.default_rng(3)
    a = random_constrained(RULES, CONSTRAINTS, rng)
    b = random_constrained(RULES, CONSTRAINTS, rng)
    for _ in range(100):
        for child in (genome.mutate(a, RULES, rng), *genome.crossover(a, b, RULES, rng)):
            fixed = enforce(child, RULES, CONSTRAINTS, rng)
            assert fixed is not None and CONSTRAINTS.problems(fixed) == [] and RULES.problems(fixed) == []


def test_the_same_seed_gives_the_same_constrained_deck():
    one = random_constrained(RULES, CONSTRAINTS, np.random.default_rng(5))
    two = random_constrained(RULES, CONSTRAINTS, np.random.default_rng(5))
    assert one == two


@pytest.mark.parametrize(
    "constraints, message",
    [
        (DeckConstraints(locked=(60, 50)), "total 110, over the budget"),
        (DeckConstraints(count=(CountBound(low=5, at_least=25),)), "no deck found inside the constraints"),
    ],
)
def test_constraints_that_admit_no_deck_are_refused_in_one_line(constraints, message):
    with pytest.raises(UserError, match=message):
        check_feasible(RULES, constraints)


# --- evolution runs keep the constraints --------------------------------------------------------------
def test_an_evolution_run_keeps_every_deck_inside_its_constraints(tmp_path):
    import json

    from evolution.loop import evolve
    from tests.test_evolution import tiny

    config = tiny(
        generations=3, constraints={"locked": [9, 9], "forbidden": [7, 8], "count": [{"low": 11, "at_most": 2}]}
    )
    evolve(config, tmp_path / "run", log=None)
    constraints = config.settings.constraints
    seen = 0
    for f in sorted((tmp_path / "run" / "generations").glob("gen_*.json")):
        for d in json.loads(f.read_text())["decks"]:
            assert constraints.problems(d["cards"]) == [] and RULES.problems(d["cards"]) == []
            seen += 1
    assert seen == 18
    saved = json.loads((tmp_path / "run" / "config.json").read_text())
    assert saved["gwent"]["constraints"]["locked"] == [9, 9]  # in the Gwent Lite table
    assert load_deck(tmp_path / "run" / "champion.toml").constraints == constraints  # the deck file keeps them


def test_evolve_refuses_constraints_that_admit_no_deck_and_constraints_on_kittens(tmp_path):
    from evolution.loop import evolve
    from tests.test_evolution import tiny

    with pytest.raises(UserError, match="over the budget"):
        evolve(tiny(constraints={"locked": [60, 50]}), tmp_path / "run", log=None)
    assert not (tmp_path / "run" / "config.json").exists()
    with pytest.raises(UserError, match="constraints.*: not a setting of a run of exploding_kittens"):
        tiny(game="exploding_kittens", agent="exact", constraints={"locked": [1]})


def test_evolve_reads_constraints_from_a_file_and_names_a_missing_table(tmp_path):
    import subprocess
    import sys

    bad = tmp_path / "none.toml"
    bad.write_text("x = 1\n")
    out = subprocess.run(
        [sys.executable, "-m", "deckopt", "evolve", "--constraints", str(bad), "--out", str(tmp_path / "r")],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and "has no [constraints] table" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize(
    "constraints, message",
    [
        ({"count": [{"low": -1}]}, "constraints: count: low must be a whole number >= 0, got -1"),
        ({"count": [{"low": 5, "high": 1}]}, "constraints: count: high 1 is below low 5"),
        (
            {"locked": list(range(1, 100_000)) + [0]},
            "constraints: locked must be a list of whole powers >= 1, got a list",
        ),
    ],
)
def test_a_bad_constraint_is_one_short_line_naming_it_once(constraints, message):
    with pytest.raises(UserError) as caught:
        load_config(constraints=constraints)
    assert str(caught.value).startswith(message) and len(str(caught.value)) < 200
