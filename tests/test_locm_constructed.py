"""The LOCM constructed deck space (evolution/spaces/locm_constructed.py): its deck rule and operators,
its battles dealt by the batch engine as the scalar engine deals them, its reference decks drafted by
the field, a tiny run through the command line (same seed, same run; resumed, the same run), the
decks command with the designer's card question, and deck files that `deckopt match locm` plays."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import games
from agents.heuristics.locm_field import DRAFTERS
from deckopt.cli import main
from evolution.config import EvolveConfig, load_config
from evolution.decks.locm_constructed_settings import FIELD_DRAFTERS, LocmConstructedRules
from evolution.loop import evolve
from evolution.spaces.check import check_deck_space
from evolution.spaces.locm_constructed import LocmConstructedSpace, curve_shares
from evolution.spaces.registry import SPACES
from games.errors import UserError
from games.locm import CARDS, CREATURE
from games.locm_batch import LocmBatch

TINY = dict(game="locm_constructed", generations=2, pool=6, games_per_pair=4, jobs=1, validation_games=2)
TINY |= dict(hof_size=3, hof_opponents=3, yardstick_games=2, playoff_games_per_pair=2)
FLAGS = ["--game", "locm_constructed", "--generations", "2", "--pool", "6", "--games-per-pair", "4"]
FLAGS += ["--jobs", "2", "--validation-games", "2", "--hof-size", "3", "--hof-opponents", "3"]
FLAGS += ["--yardstick-games", "2", "--playoff-games-per-pair", "2"]


def make_space(copy_limit: int = 2) -> LocmConstructedSpace:
    return LocmConstructedSpace(load_config(game="locm_constructed", rules={"copy_limit": copy_limit}))


@pytest.fixture(scope="module")
def space() -> LocmConstructedSpace:
    return make_space()


def test_the_space_is_registered_with_its_battler_and_the_fields_decks():
    assert SPACES["locm_constructed"] is LocmConstructedSpace
    config = EvolveConfig(game="locm_constructed")
    assert config.agent == "locm_league3_scorer_panel" and config.settings.rules == LocmConstructedRules(copy_limit=2)
    assert config.settings.yardstick == [f"decks/locm/yardstick/{d}" for d in DRAFTERS]
    assert config.settings.validation_panel == [f"decks/locm/field/{d}" for d in DRAFTERS]
    assert FIELD_DRAFTERS == tuple(DRAFTERS)
    assert EvolveConfig(game="locm_constructed", agent="greedy").agent == "greedy"


@pytest.mark.parametrize("limit", [1, 2, 3, 30])
def test_every_operator_returns_a_legal_deck_under_the_copy_limit(limit):
    space = make_space(limit)
    assert check_deck_space(space, 100).status == "passed"
    rng = np.random.default_rng(limit)
    for _ in range(100):
        deck = space.random_deck(rng)
        assert max(Counter(deck).values()) <= limit and len(deck) == 30
        child = space.mutate(deck, rng)
        assert child != deck and sum((Counter(deck) - Counter(child)).values()) <= 3
    junk = [[], [7] * 40, list(range(-3, 200)), rng.integers(1, 161, size=29).tolist()]
    for cards in junk:
        assert space.problems(space.repair(cards, rng)) == []


def test_the_copy_limit_is_the_rule_and_a_bad_one_is_one_line(space):
    deck = [1, 1, 1] + list(range(2, 29))
    assert space.problems(deck) == ["3 copies of card 1, more than the rules' 2"]
    assert make_space(3).problems(deck) == []
    assert space.problems(deck[:-1]) == ["29 cards, not 30"]
    assert "card numbers 1..160" in space.problems([0] + deck[1:])[0]
    with pytest.raises(UserError, match="copy_limit must be 1..30"):
        load_config(game="locm_constructed", rules={"copy_limit": 31})
    config = load_config(game="locm_constructed", deck_rules={"copy_limit": 4})
    assert config.settings.rules.copy_limit == 4


def test_the_row_and_descriptors(space):
    deck = [1, 1, 2, 3] + list(range(120, 146))  # three cheap creatures, 26 items and creatures of 120..145
    row = space.row(deck)
    assert row["deck"]["1 Slimer"] == 2 and sum(row["deck"].values()) == 30 and sum(row["curve"]) == 30
    creatures = sum(CARDS[c].type == CREATURE for c in deck)
    assert row["items"] == 30 - creatures
    mean, share = space.descriptors(deck)
    assert mean == pytest.approx(np.mean([CARDS[c].cost for c in deck])) and share == creatures / 30
    assert (mean, share) == curve_shares(deck)
    (names, ranges) = space.descriptor_space()
    assert names == ("mean_cost", "creature_share") and ranges[0][0] < mean < ranges[0][1]
    assert space.words([1, 1] + list(range(2, 30))).startswith("2x1 1x2 1x3")


def test_a_deal_is_the_scalar_engines_battle_of_the_same_decks_and_orders(space):
    rng = np.random.default_rng(3)
    a, b = space.random_deck(rng), space.random_deck(rng)
    batch = space.deal([11, 11, 12], [(tuple(a), tuple(b)), (tuple(b), tuple(a)), (tuple(a), tuple(b))])
    assert (batch.shuffles[0] == batch.shuffles[1]).all()  # the seat's order stays with the seat
    assert not (batch.shuffles[0] == batch.shuffles[2]).all()
    for g, (x, y) in enumerate([(a, b), (b, a)]):
        state = games.make("locm", decks=[x, y]).state_from_chance(None, batch.shuffles[g].tolist())
        scalar = LocmBatch.from_states([state])
        for name, value in vars(scalar).items():
            if isinstance(value, np.ndarray):
                assert (value[0] == getattr(batch, name)[g]).all(), name


def test_the_fields_drafted_decks_are_reference_decks_beyond_the_copy_limit(space):
    yardstick = space.references(space.config.settings.yardstick)
    field = space.references(space.config.settings.validation_panel)
    assert len(yardstick) == 18 and len(field) == 36
    assert {r.group for r in field} == set(DRAFTERS)
    assert not {r.cards for r in yardstick} & {r.cards for r in field}
    assert any(space.problems(r.cards) for r in field)  # drafts keep no copy limit
    assert all(space.reference_problems(r.cards) == [] for r in yardstick + field)


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("constructed") / "run"
    assert main(["evolve", *FLAGS, "--out", str(run)]) == 0
    return run


def test_matchups_of_a_run_take_the_game_and_rules_from_the_run(cli_run, capsys):
    capsys.readouterr()
    assert main(["matchups", str(cli_run), "--games", "2", "--agent", "greedy", "--json"]) == 0  # no --game
    table = json.loads(capsys.readouterr().out)
    assert table["decks"][0]["name"] == "run/champion" and len(table["decks"]) >= 2
    assert all(c["games"] == 2 for c in table["cells"])


def test_a_tiny_run_through_the_command_line(cli_run, space):
    for name in ("config.json", "generations/gen_0001.json", "champion.toml", "validation.json", "report.html"):
        assert (cli_run / name).is_file(), name
    decks = json.loads((cli_run / "generations/gen_0001.json").read_text())["decks"]
    assert len(decks) == 6 and all(space.problems(d["cards"]) == [] for d in decks)
    assert all(sum(d["deck"].values()) == 30 and sum(d["curve"]) == 30 for d in decks)
    validation = json.loads((cli_run / "validation.json").read_text())
    assert [g["group"] for g in validation["groups"]] == list(DRAFTERS)
    assert validation["games"] == 36 * 2
    champion = json.loads((cli_run / "champion.json").read_text())
    assert champion["how"].startswith("best against the yardstick (18 decks)")
    assert "Cards of the strong decks" in (cli_run / "report.html").read_text()


def test_the_same_seed_gives_the_same_run_and_a_resumed_run_ends_alike(cli_run, tmp_path):
    run = tmp_path / "resumed"
    evolve(load_config(**{**TINY, "generations": 1}), run, finish=False, log=None)
    evolve(None, run, resume=True, overrides={"generations": 2}, log=None)
    for name in ("generations/gen_0000.json", "generations/gen_0001.json"):
        a, b = (json.loads((r / name).read_text()) for r in (cli_run, run))
        a.pop("seconds"), b.pop("seconds")
        assert a == b


def test_the_cards_of_the_strong_decks_beside_random_decks(cli_run, capsys):
    assert main(["decks", str(cli_run), "--cards", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    hof = [tuple(h["cards"]) for h in json.loads((cli_run / "hall_of_fame.json").read_text())]
    strong = list(dict.fromkeys(tuple(sorted(d)) for d in hof))
    assert report["strong_decks"] == len(strong) == 3 and report["random_decks"] == 1000
    rows = {r["card"]: r for r in report["cards"]}
    for card, row in rows.items():
        held = [d for d in strong if card in d]
        assert row["strong_decks"] == len(held) and row["least"] == row["share"] == len(held) / 3
        if held:
            assert row["copies"] == pytest.approx(np.mean([d.count(card) for d in held]))
    every = set.intersection(*(set(d) for d in strong))
    assert set(report["in_every_strong_deck"]) == every
    assert 0.1 < np.mean([r["random_share"] for r in rows.values()]) < 0.3  # 30 of 160: about 0.17 each
    assert main(["decks", str(cli_run), "--cards", str(cli_run)]) == 0
    out = capsys.readouterr().out
    assert "6 strong decks of 2 runs, run + run (3 + 3: " in out and "least of a run" in out
    assert f"{len(every)} cards in every one of them" in out


def test_a_champion_file_plays_with_deckopt_match(cli_run, capsys):
    champion = str(cli_run / "champion.toml")
    argv = ["match", "locm", "max-attack", "max-attack", "--deck", champion, "--deck", "decks/locm/field/coac/1.toml"]
    assert main([*argv, "--games", "4"]) == 0
    assert "4 games" in capsys.readouterr().out
    assert main(["match", "locm", "random", "random", "--games", "2", "--deck", "decks/gwent_abilities/bond.toml"]) == 2
    assert "deck file" in capsys.readouterr().err


def test_every_field_agent_travels_to_worker_processes():
    """The run's battler plays in worker processes: every field agent pickles (fitness.sendable)."""
    space = make_space()
    for spec in [*DRAFTERS, "greedy", "max-attack,greedy"]:
        assert space.build_agent(spec, 0) is not None
