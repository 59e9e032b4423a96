"""Exploding Kittens deck evolution (evolution.spaces.kittens and its scorer): the card-count space's
operators stay legal and seeded, the objectives measure what they say on decks whose exact value is
known, a tiny run writes the run folder of a Gwent Lite run whatever the number of workers, and
user mistakes end in one line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from agents.parallel import Mapper
from deckopt.cli import main
from evolution.config import load_config
from evolution.loop import evolve
from evolution.spaces import kittens_objectives, kittens_validation
from evolution.spaces.kittens import KittensBounds, KittensSpace
from games.errors import UserError

SMALL = {"min_cards": 3, "max_cards": 6, "counts": {"skip": [0, 3], "attack": [0, 3], "defuse": [0, 1]}}
TINY = dict(
    game="exploding_kittens",
    agent="exact",
    generations=2,
    pool=4,
    survivors=2,
    offspring_per_survivor=1,
    hof_size=3,
    games_per_deck=20,
    games_per_task=40,
    playoff_top=2,
    playoff_games_per_deck=20,
    plot_every=1,
    jobs=1,
    bounds=SMALL,
)


def space(game_config: dict | None = None, **bounds) -> KittensSpace:
    """The space of a kittens run within `bounds` (default the game's) under `game_config`."""
    config = load_config(game="exploding_kittens", bounds=KittensBounds(**bounds), game_config=game_config or {})
    return KittensSpace(config)


def test_operators_are_legal_within_bounds_and_seeded():
    sp = space()
    rng = np.random.default_rng(1)
    decks = [sp.random_deck(rng) for _ in range(300)]
    sizes = set()
    for d in decks:
        assert sp.problems(d) == [] and d == sorted(d)
        sizes.add(len(d))
    assert sizes == set(range(4, 17))  # every legal size is reached
    for a, b in zip(decks, decks[1:]):
        child = sp.mutate(a, rng)
        assert sp.problems(child) == [] and child != a
        x, y = sp.crossover(a, b, rng)
        assert sp.problems(x) == [] and sp.problems(y) == []
    again = [space().random_deck(np.random.default_rng(1)) for _ in range(1)]
    assert again[0] == decks[0]
    assert sp.mutate(decks[0], np.random.default_rng(5)) == sp.mutate(decks[0], np.random.default_rng(5))


def test_repair_is_identity_on_a_legal_deck_and_brings_others_inside():
    sp = space()
    rng = np.random.default_rng(2)
    for _ in range(100):
        d = sp.random_deck(rng)
        assert sp.repair(d, rng) == d
    too_big = [1] * 12 + [2] * 12  # 12 Skip, 12 Attack: over both count bounds and the size
    fixed = sp.repair(too_big, rng)
    assert sp.problems(sp.problems(too_big) and fixed) == [] and len(fixed) == 16
    assert sp.repair([0], rng) and sp.problems(sp.repair([0], rng)) == []


def test_repair_pushes_no_type_up_or_down_on_average():
    """From a deck over the size limit with equal counts, the cards removed are spread evenly."""
    sp = space(min_cards=4, max_cards=10, counts={"skip": [0, 8], "attack": [0, 8]})
    rng = np.random.default_rng(3)
    left = np.array([sp.counts(sp.repair([1] * 8 + [2] * 8, rng)) for _ in range(2000)])
    assert left.sum(axis=1).tolist() == [10] * 2000
    assert abs(left[:, 0].mean() - 5.0) < 0.1


@pytest.mark.parametrize("skips", [3, 4])
def test_fairness_of_skip_only_decks_matches_floor_n_over_2_over_n(skips):
    """With k Skips, no Defuse and the exact bot, the first player wins floor(n/2)/n (n = k + 1)."""
    sp = space({"hand_defuses": 0}, min_cards=1, max_cards=10, counts={"skip": [0, 10]})
    config = load_config(
        game="exploding_kittens", agent="exact", bounds=sp.bounds.__dict__, game_config={"hand_defuses": 0}
    )
    agent = kittens_objectives.build_agent(config)
    with Mapper(1) as pmap:
        ((value, ci, score),) = kittens_objectives.measure([tuple([1] * skips)], config, agent, pmap, 600, 9, 0)
    n = skips + 1
    exact = (n // 2) / n
    se = math.sqrt(exact * (1 - exact) / 600)
    assert abs(score.score - exact) < 4 * se
    assert value == pytest.approx(-abs(score.score - 0.5)) and ci[0] <= value <= ci[1]
    assert kittens_validation.exact_value(sp, [1] * skips) == pytest.approx(exact, abs=1e-12)


def test_skill_is_the_agents_score_against_random_play_seats_rotated():
    config = load_config(**{**TINY, "objective": "skill"})
    agent = kittens_objectives.build_agent(config)
    with Mapper(1) as pmap:
        ((value, ci, score),) = kittens_objectives.measure([(0, 1, 1, 1, 2, 2)], config, agent, pmap, 200, 9, 0)
    assert score.games == 200 and value == score.score and value > 0.6  # perfect play beats random play


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("ek") / "run"
    evolve(load_config(**TINY), run)
    return run


def test_tiny_run_writes_the_run_folder_and_decks_shows_it(tiny_run, capsys):
    for name in (
        "config.json",
        "generations/gen_0000.json",
        "generations/gen_0001.json",
        "logbook.csv",
        "best_decks.json",
        "hall_of_fame.json",
        "checkpoints/checkpoint.json",
        "fitness.png",
        "best_deck_powers.png",
        "champion.json",
        "champion.toml",
        "validation.json",
    ):
        assert (tiny_run / name).is_file(), name
    v = json.loads((tiny_run / "validation.json").read_text())
    c = v["champion"]
    assert v["space"]["decks"] == len(space(**SMALL).all_decks())
    assert abs(c["exact_first_player"] - 0.5) == pytest.approx(c["exact_distance_from_half"])
    assert main(["decks", str(tiny_run)]) == 0
    out = capsys.readouterr().out
    assert "objective fairness" in out and "first player [95% CI]" in out
    assert main(["decks", str(tiny_run), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["game"] == "exploding_kittens" and len(report["generations"]) == 2
    best = report["generations"][-1]["best"]
    assert sum(best["deck"].values()) == len(best["cards"])


@pytest.mark.parametrize(
    "game, words",
    [(None, "'exploding_kittens' has no reference decks"), ("gwent_lite", "is an exploding_kittens run")],
)
def test_matchups_of_a_kittens_run_end_in_one_line(tiny_run, capsys, game, words):
    capsys.readouterr()
    assert main(["matchups", str(tiny_run), "--games", "2", *(["--game", game] if game else [])]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err, err


def test_same_seed_same_run_whatever_the_jobs(tiny_run, tmp_path):
    other = tmp_path / "two_jobs"
    evolve(load_config(**{**TINY, "jobs": 2, "validate": False}), other)
    for name in ("generations/gen_0000.json", "generations/gen_0001.json", "champion.json"):
        a = json.loads((tiny_run / name).read_text())
        b = json.loads((other / name).read_text())
        a.pop("seconds", None), b.pop("seconds", None)
        assert a == b, name


def test_racing_fitness_runs_and_counts_games(tmp_path):
    summary = evolve(
        load_config(**{**TINY, "fitness": "racing", "racing_rounds": 2, "validate": False, "generations": 1}),
        tmp_path / "r",
    )
    gen = json.loads((Path(summary["run"]) / "generations/gen_0000.json").read_text())
    assert all(d["racing_games"] in (10, 20) for d in gen["decks"])


@pytest.mark.parametrize(
    "settings, words",
    [
        ({"objective": "fairness"}, "not available for gwent_lite"),
        ({"game": "exploding_kittens", "objective": "win"}, "not available for exploding_kittens"),
        ({"game": "exploding_kittens", "bounds": {"min_cards": 21, "max_cards": 30}}, "bounds admit no deck"),
        ({"game": "exploding_kittens", "bounds": {"counts": {"kitten": [0, 1]}}}, "unknown card"),
        ({"game": "exploding_kittens", "bounds": {"counts": {"defuse": [0, 9]}}}, "Defuses"),
        ({"game": "exploding_kittens", "game_config": {"composition": "random"}}, "the deck is what evolves"),
        ({"game": "exploding_kittens", "yardstick": ["decks/other"]}, "yardstick applies to games judged against"),
    ],
)
def test_bad_settings_end_in_one_line(settings, words):
    from evolution.config import config_from_settings

    with pytest.raises(UserError, match=words):
        config_from_settings(settings)


def test_cli_bad_objective_is_one_line(tmp_path, capsys):
    code = main(["evolve", "--game", "exploding_kittens", "--objective", "win", "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "objective" in err
    code = main(["evolve", "--game", "exploding_kittens", "--set", "bogus=1", "--out", str(tmp_path / "y")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "bogus" in err


def test_pretrained_in_a_kittens_run_is_the_composition_agent_and_near_perfect_play():
    """The shipped composition-trained agent against `exact` on a deck it was not tuned to (2 Skip,
    6 Attack, 4 Defuse): perfect play by both would score 0.5 (measured 0.4995 over 2 000 games)."""
    import agents
    import games
    from agents.arena import play_states

    assert kittens_objectives.agent_spec_path("pretrained").endswith("exploding_kittens_compositions.npz")
    game = games.make("exploding_kittens", open_hands=True, deck={"skip": 2, "attack": 6, "defuse": 4})
    me = kittens_objectives.build_agent(load_config(game="exploding_kittens"))
    exact = agents.make("exact", game)
    states = [game.new_initial_state(s) for s in range(200)]
    play_states(states, [(0, 1) if g % 2 == 0 else (1, 0) for g in range(200)], [me, exact])
    score = np.mean([(s.returns()[g % 2] > 0) for g, s in enumerate(states)])
    assert score > 0.4


def test_a_resumed_kittens_run_ends_where_the_uninterrupted_one_does(tiny_run, tmp_path):
    run = tmp_path / "resumed"
    evolve(load_config(**{**TINY, "generations": 1}), run, finish=False)
    evolve(None, run, resume=True, overrides={"generations": 2})
    a = json.loads((tiny_run / "generations/gen_0001.json").read_text())
    b = json.loads((run / "generations/gen_0001.json").read_text())
    a.pop("seconds"), b.pop("seconds")
    assert a == b
    assert json.loads((run / "champion.json").read_text()) == json.loads((tiny_run / "champion.json").read_text())


def test_a_run_of_decks_judged_alone_cannot_start_from_deck_files(tmp_path):
    config = load_config(game="exploding_kittens", generations=1, pool=4, start=["mine.toml"])
    with pytest.raises(UserError, match="start: exploding_kittens reads no deck files"):
        evolve(config, tmp_path / "run", log=None)
    assert not (tmp_path / "run" / "config.json").exists()
