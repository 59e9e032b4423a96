"""Matchup tables: a round robin's cells and their transposes add up to 1, the CSV reads back what
was written, the same seed gives the same matrix on one worker or two, decks against a field are
ranked by their pooled score, and bad inputs end in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.parallel import Mapper
from deckopt.cli import main
from evolution.designer.matchups import (
    NamedDeck,
    load_decks,
    matchups_csv,
    play_matchups,
    read_matchups_csv,
    write_matchups,
)
from evolution.scoring import fitness as fit
from evolution.spaces.gwent import GwentDeal, build_agent
from games.decks import DeckRules, UserError

RULES = DeckRules()
DECKS = [
    NamedDeck("flat", (4,) * 25),
    NamedDeck("spiky", (1,) * 20 + (8, 12, 16, 20, 24)),
    NamedDeck("mid", (1,) * 5 + (2,) * 5 + (4,) * 5 + (5,) * 5 + (7,) * 5),
    NamedDeck("short", (1,) * 24 + (30,)),
]


def table(jobs=1, seed=3, games=20, field=None):
    agent = build_agent("heuristic", RULES, seed=seed)
    with Mapper(jobs) as pmap:
        play = lambda pairings, prefix, progress, what: fit.play_pairings(  # noqa: E731
            pairings, agent, GwentDeal(RULES), pmap, 30, prefix, progress, what
        )
        return play_matchups(DECKS, play, games, seed, field, "heuristic")


@pytest.fixture(scope="module")
def robin():
    return table()


def test_a_round_robin_cell_and_its_transpose_add_up_to_one(robin):
    m = robin.matrix()
    assert np.isnan(np.diag(m)).all()
    off = ~np.eye(len(DECKS), dtype=bool)
    np.testing.assert_allclose((m + m.T)[off], 1.0, atol=1e-12)
    assert len({round(x, 6) for x in m[off]}) > 2  # real games, not a constant
    for (i, j), s in robin.cells.items():
        t = robin.cells[(j, i)]
        assert s.record.wins == t.record.losses and s.record.draws == t.record.draws
        lo, hi = s.ci95
        assert lo - 1e-9 <= s.score <= hi + 1e-9 and s.games == 20


def test_the_csv_reads_back_every_cell_exactly(robin, tmp_path):
    paths = write_matchups(robin, tmp_path)
    assert [p.name for p in paths] == ["matchups.csv", "matchups.json", "matchups.png"]
    assert paths[2].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    back = read_matchups_csv(paths[0])
    assert back == robin.to_json()["cells"]
    assert len(back) == len(DECKS) * (len(DECKS) - 1)
    assert json.loads(paths[1].read_text())["ranking"][0]["deck"] == DECKS[robin.ranking()[0]].name
    assert paths[0].read_text() == matchups_csv(robin)


def test_same_seed_same_matrix_whatever_the_workers(robin):
    two = table(jobs=2)
    np.testing.assert_array_equal(robin.matrix(), two.matrix())
    other = table(seed=4)
    assert not np.array_equal(np.nan_to_num(robin.matrix()), np.nan_to_num(other.matrix()))


def test_decks_against_a_field_are_ranked_by_their_pooled_score():
    field = [NamedDeck("f1", (4,) * 25), NamedDeck("f2", (1,) * 15 + (6,) * 10 + (0,) * 0)]
    t = table(field=field)
    assert t.matrix().shape == (len(DECKS), 2) and np.isfinite(t.matrix()).all()
    pooled = [t.overall(i) for i in range(len(DECKS))]
    for i, s in enumerate(pooled):
        assert s.games == 40
        assert s.score == pytest.approx(np.mean([t.cells[(i, 0)].score, t.cells[(i, 1)].score]))
    scores = [pooled[i].score for i in t.ranking()]
    assert scores == sorted(scores, reverse=True)


def test_run_folders_folders_and_files_are_all_decks(tmp_path):
    decks, rules = load_decks(["decks/flat.toml", "decks/yardstick"])
    assert rules == RULES and len(decks) == 21 and decks[0].name == "flat"
    assert decks[1].name.startswith("yardstick/")
    with pytest.raises(UserError, match="disagree on the rules"):
        other = tmp_path / "small.toml"
        other.write_text("cards = [2, 2, 2, 2, 2, 2]\n[rules]\nmin_cards = 6\nmax_total = 30\nmin_power = 2\n")
        load_decks(["decks/flat.toml", str(other)])


def refused(argv, capsys, *words):
    code = main(argv)
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err
    return err


def test_bad_inputs_are_one_line(tmp_path, capsys):
    refused(["matchups", str(tmp_path / "nope.toml"), "decks/flat.toml"], capsys, "not found")
    illegal = tmp_path / "illegal.toml"
    illegal.write_text("cards = [50, 50, 50]\n")
    refused(["matchups", str(illegal), "decks/flat.toml"], capsys, "illegal")
    empty = tmp_path / "empty"
    empty.mkdir()
    refused(["matchups", "decks/flat.toml", "--field", str(empty)], capsys, "no deck files")
    refused(["matchups", "decks/flat.toml"], capsys, "at least two decks")
    refused(["matchups", "decks/flat.toml", "decks/random_1.toml", "--games", "3"], capsys, "even")
    refused(["matchups", "decks/flat.toml", "decks/random_1.toml", "--agent", "nonsense"], capsys, "nonsense")


def test_the_command_prints_the_ranking_and_writes_the_files(tmp_path, capsys):
    out = tmp_path / "m"
    argv = ["matchups", "decks/flat.toml", "--field", "decks/random_1.toml", "decks/random_2.toml"]
    code = main(argv + ["--agent", "heuristic", "--games", "10", "--out", str(out), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["ranking"][0]["deck"] == "flat" and data["ranking"][0]["games"] == 20
    assert sorted(p.name for p in out.iterdir()) == ["matchups.csv", "matchups.json", "matchups.png"]


def test_gwent_abilities_decks_in_a_round_robin_and_against_a_field(capsys):
    argv = ["matchups", "--game", "gwent_abilities", "decks/gwent_abilities", "--games", "2", "--agent", "heuristic"]
    assert main(argv + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    names = [d["name"] for d in data["decks"]]
    assert sorted(names) == ["bond", "horn", "morale_swarm", "plain", "spy_medic"]  # the files' deck names
    cells = {(c["deck"], c["opponent"]): c["score"] for c in data["cells"]}
    assert len(cells) == 5 * 4
    assert all(cells[(a, b)] + cells[(b, a)] == 1.0 for a, b in cells)
    field = ["--field", "decks/gwent_abilities/plain.toml", "decks/gwent_abilities/horn.toml"]
    assert main(argv[:3] + ["decks/gwent_abilities/bond.toml"] + argv[4:] + field + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["deck"] for r in data["ranking"]] == ["bond"] and data["ranking"][0]["games"] == 4


def test_decks_of_another_game_or_a_game_without_decks_are_one_line(capsys):
    abilities = ["matchups", "--game", "gwent_abilities"]
    refused(abilities + ["decks/flat.toml", "decks/gwent_abilities"], capsys, "read as gwent_abilities decks")
    refused(["matchups", "decks/gwent_abilities/bond.toml", "decks/flat.toml"], capsys, "read as gwent_lite decks")
    refused(["matchups", "--game", "exploding_kittens", "decks/flat.toml"], capsys, "no reference decks")
    refused(["matchups", "--game", "nosuch", "decks/flat.toml"], capsys, "no deck space")
