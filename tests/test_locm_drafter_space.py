"""The locm_drafter deck space (evolution/spaces/locm_drafter.py): its games are the scalar engine's
games between the same drafters and battlers, seat by seat; its drafts are fixed by the run's seed and
generation; its operators keep drafters legal; a tiny run evolves, resumes to the same result, writes
its champion as a drafter file that plays as an agent, and shows a drafter in `deckopt decks`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import agents
import games
from agents.heuristics.locm_drafter_file import write_drafter
from agents.heuristics.locm_field import BATTLERS_BATCH, CLOSET_AI_SCORE, DRAFTERS, FieldAgent, ScoreDrafter
from deckopt.cli import main
from evolution.config import load_config
from evolution.decks.locm_drafter_settings import BATTLERS
from evolution.decks.locm_drafter_settings import DRAFTERS as SETTINGS_DRAFTERS
from evolution.loop import evolve
from evolution.spaces import locm_drafter_games as ld
from evolution.spaces.check import check_deck_space
from evolution.spaces.registry import space_for, spaces_of_game
from games import UserError
from games.conformance import PASSED
from games.locm import PICK
from games.locm_batch import LocmBatch

TINY = dict(game="locm_drafter", generations=2, pool=4, selection="mu+lambda", mu=2, hof_size=2, playoff_top=2)
TINY |= dict(jobs=1, plot_every=1, validate=True)
SMALL = {"field": ["coac", "uji2", "random"], "games_per_opponent": 4, "playoff_games_per_opponent": 4}
SMALL |= {"validation_games": 4}
SHIPPED = Path(__file__).resolve().parents[1] / "decks" / "locm" / "drafters"


def space(**settings):
    return space_for(load_config(game="locm_drafter", **settings))


def serial(func, items, on_result=None, scatter=None):
    out = []
    for i, item in enumerate(items):
        out.append(func(*item))
        if on_result is not None:
            on_result(i, out[-1])
    return out


def test_the_settings_name_the_fields_drafters_and_batch_battlers():
    assert SETTINGS_DRAFTERS == tuple(DRAFTERS) and BATTLERS == tuple(BATTLERS_BATCH)


@pytest.mark.parametrize("per_seat", [False, True])
def test_its_games_are_the_scalar_engines_seat_by_seat(per_seat):
    s = space(per_seat=per_seat)
    rng = np.random.default_rng(4)
    genomes = [s.random_deck(rng) for _ in range(2)]
    field = ld.Field(("coac", "icebox", "max-attack"), ("max-attack", "greedy"))
    deals = 3
    offers, shuffles = ld.generation_chance(7, 0, 5, deals)
    task = ld.DraftTask(np.stack([s.tables(g) for g in genomes]), offers, shuffles, (7, 100, 5, 0), len(field.drafters))
    outcomes = ld.play_drafts(field, task)
    assert outcomes.shape == (2, 3, deals, 2)
    game = games.make("locm")
    for i, genome in enumerate(genomes):
        for f, name in enumerate(field.drafters):
            for d in range(deals):
                battler = field.battlers[d % 2]
                mine = FieldAgent(game, None, ScoreDrafter("g", s.tables(genome)), battler)
                theirs = FieldAgent(game, None, name, battler)
                for seat in (0, 1):
                    players = [mine, theirs] if seat == 0 else [theirs, mine]
                    state = game.state_from_chance(offers[d].tolist(), shuffles[d].tolist())
                    while not state.is_terminal():
                        state.apply_action(players[state.current_player].choose(state))
                    assert outcomes[i, f, d, seat] == np.sign(state.returns()[seat]), (i, name, d, seat)


def test_a_copy_of_a_field_drafter_breaks_even_with_it_on_every_draft():
    s = space(field=["closet-ai"])
    scores = CLOSET_AI_SCORE[1:].tolist()
    ranks = {v: r for r, v in enumerate(sorted(set(scores)))}  # the same order and the same ties
    genome = [ranks[v] for v in scores]
    field = ld.Field(("closet-ai",), ("max-attack",))
    (outcomes,) = ld.play_field([genome], s, field, serial, 200, (0, 0, 0), 10, None, "")
    assert (outcomes.sum(axis=2) == 0).all() and (np.abs(outcomes) == 1).all()


def test_a_score_drafter_drafts_the_decks_drafted_decks_says():
    s = space(per_seat=True)
    genome = s.random_deck(np.random.default_rng(1))
    tables = s.tables(genome)
    offers, shuffles = ld.generation_chance(3, 0, 0, 6)
    batch = LocmBatch.from_chance(games.make("locm"), offers, shuffles)
    every = np.arange(6)
    for _ in range(60):
        batch.apply_actions(every, ScoreDrafter("g", tables).pick_batch(batch, every))
    decks = ld.drafted_decks(tables, offers)
    assert (batch.picks.transpose(1, 0, 2) == decks).all()


def test_the_drafts_of_a_generation_follow_from_the_seed_and_generation_alone():
    a = ld.generation_offers(5, 3, 10)
    assert (a == ld.generation_offers(5, 3, 10)).all() and a.shape == (10, 30, 3)
    assert not (a == ld.generation_offers(5, 4, 10)).all() and not (a == ld.generation_offers(6, 3, 10)).all()
    one = ld.generation_offers(5, 3, 1)
    s = space(seed=5, games_per_opponent=2, per_seat=True)
    active = s.active_genes(3)
    assert active.shape == (320,) and (active[:160] == active[160:]).all()
    assert set(np.flatnonzero(active[:160]) + 1) == set(np.unique(one).tolist())


def test_the_operators_keep_drafters_legal_and_follow_the_rng():
    s = space(mutation_rate=0.1, mutation_sigma=50.0)
    assert check_deck_space(s, num_decks=30).status == PASSED
    rng = np.random.default_rng(0)
    a, b = s.random_deck(rng), s.random_deck(rng)
    m = s.mutate(a, np.random.default_rng(1))
    assert m == s.mutate(a, np.random.default_rng(1)) and m != a and all(0 <= x <= 1000 for x in m)
    c, d = s.crossover(a, b, np.random.default_rng(2))
    assert all(x in (p, q) for x, p, q in zip(c, a, b)) and all({x, y} == {p, q} for x, y, p, q in zip(c, d, a, b))
    assert s.repair([-5, 2000.4, 7.6], rng) == [0, 1000, 8] + [500] * 157
    assert s.problems([1] * 159) and s.problems([1] * 159 + [1001]) and not s.problems([0] * 160)


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"field": ["coac", "nobody"]}, "unknown drafter 'nobody'"),
        ({"games_per_opponent": 3}, "games_per_opponent must be even"),
        ({"field": []}, "field must be a non-empty list"),
        ({"fitness": "racing"}, "racing does not apply"),
        ({"mutation_rate": 0.0}, "mutation_rate must lie in (0, 1]"),
    ],
)
def test_bad_settings_are_one_line(settings, words):
    with pytest.raises(UserError, match=words.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        load_config(game="locm_drafter", **settings)


def test_a_tiny_run_evolves_resumes_alike_after_a_stop_and_writes_a_drafter_file(tmp_path, capsys):
    config = load_config(**TINY, **SMALL)
    whole = evolve(config, tmp_path / "whole", log=None, pmap=serial)
    done = []
    stopped = evolve(
        config, tmp_path / "parts", log=None, pmap=serial, on_generation=done.append, should_stop=lambda: bool(done)
    )
    assert stopped["stopped_by"] == "interrupt" and stopped["generations"] == 1  # as Ctrl-C stops a run
    rest = evolve(None, tmp_path / "parts", resume=True, log=None, pmap=serial)
    for name in ("best_decks.json", "hall_of_fame.json", "champion.json", "validation.json"):
        a, b = (json.loads((tmp_path / run / name).read_text()) for run in ("whole", "parts"))
        if isinstance(a, dict):
            a.pop("run", None), b.pop("run", None)
        assert a == b, name
    assert whole["champion"]["cards"] == rest["champion"]["cards"] and len(whole["champion"]["cards"]) == 160
    drafter = tmp_path / "whole" / "champion.toml"
    agent = agents.make(f"{drafter}+max-attack", games.make("locm"))
    assert agent.choose(games.make("locm").new_initial_state(np.random.default_rng(0))) >= PICK
    report = json.loads((tmp_path / "whole" / "validation.json").read_text())
    assert [r["name"] for r in report["references"]] == SMALL["field"] and report["games"] == 3 * 4
    capsys.readouterr()
    assert main(["decks", str(tmp_path / "whole")]) == 0
    table = capsys.readouterr().out
    assert "mean cost" in table and "creatures" in table and "genes" in table and "top " in table
    html = (tmp_path / "whole" / "report.html").read_text()
    assert "mana curve of the decks it drafts" in html and "best-scored cards" in html


def test_a_run_starts_from_drafter_files_and_their_mutants(tmp_path):
    start = np.random.default_rng(7).integers(0, 1001, size=160).tolist()
    write_drafter(tmp_path / "mine.toml", "mine", start)
    config = load_config(**{**TINY, "generations": 1, "validate": False}, **SMALL, start=[str(tmp_path / "mine.toml")])
    evolve(config, tmp_path / "run", log=None, pmap=serial)
    decks = json.loads((tmp_path / "run" / "generations" / "gen_0000.json").read_text())["decks"]
    by_origin = {d["origin"]: [] for d in decks}
    for d in decks:
        by_origin[d["origin"]].append(d["cards"])
    assert by_origin["start"] == [start] and len(by_origin["mutant"]) == TINY["pool"] - 1
    changed = [np.count_nonzero(np.array(c) != start) for c in by_origin["mutant"]]
    assert all(0 < n < len(start) // 2 for n in changed)  # near the start drafter, not random ones


def test_a_run_stopped_before_its_first_generation_resumes_from_the_start_decks_it_began_with(tmp_path):
    rng = np.random.default_rng(8)
    start, edited = (rng.integers(0, 1001, size=160).tolist() for _ in range(2))
    write_drafter(tmp_path / "mine.toml", "mine", start)
    config = load_config(**{**TINY, "generations": 1, "validate": False}, **SMALL, start=[str(tmp_path / "mine.toml")])
    evolve(config, tmp_path / "whole", log=None, pmap=serial)
    stopped = evolve(config, tmp_path / "run", log=None, pmap=serial, should_stop=lambda: True)
    assert stopped["stopped_by"] == "interrupt" and not (tmp_path / "run" / "generations").exists()
    write_drafter(tmp_path / "mine.toml", "mine", edited)  # the start file changed since the run began
    evolve(None, tmp_path / "run", resume=True, log=None, pmap=serial)
    gen_0 = [json.loads((tmp_path / r / "generations" / "gen_0000.json").read_text()) for r in ("whole", "run")]
    assert [d["cards"] for d in gen_0[1]["decks"]] == [d["cards"] for d in gen_0[0]["decks"]]
    assert start in [d["cards"] for d in gen_0[1]["decks"]]


def test_a_per_seat_run_starts_from_the_shipped_coac(tmp_path):
    config = load_config(
        **{**TINY, "generations": 1, "validate": False}, **SMALL, per_seat=True, start=[str(SHIPPED / "coac.toml")]
    )
    evolve(config, tmp_path / "run", log=None, pmap=serial)
    decks = json.loads((tmp_path / "run" / "generations" / "gen_0000.json").read_text())["decks"]
    (start,) = [d["cards"] for d in decks if d["origin"] == "start"]
    assert start == ld.file_genome(SHIPPED / "coac.toml")[1] and len(start) == 320


@pytest.mark.parametrize(
    ("start", "words"),
    [
        (
            ["coac"],
            "start deck 'coac' is not a deck of locm_drafter: the field drafter coac plays but is no genome of "
            r"scores \(as a drafter file: decks/locm/drafters/coac.toml\)",
        ),
        ([str(SHIPPED / "chad.toml")], "a drafter holds 160 scores, got 320; set per_seat = true"),
        (["nowhere.toml"], "drafter 'nowhere.toml' not found"),
    ],
)
def test_a_start_deck_the_space_does_not_hold_is_one_line(tmp_path, start, words):
    config = load_config(**TINY, **SMALL, start=start)
    with pytest.raises(UserError, match=words):
        evolve(config, tmp_path / "run", log=None, pmap=serial)
    assert not (tmp_path / "run" / "config.json").exists()


def test_start_does_not_apply_to_random_search_or_the_archive():
    with pytest.raises(UserError, match="start applies to a run with selection"):
        load_config(game="locm_drafter", selection="random", start=["x.toml"])


def test_deckopt_check_locm_checks_the_drafter_space():
    assert "locm_drafter" in [s.name for s in spaces_of_game(games.make("locm"))]
