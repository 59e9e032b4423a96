"""`deckopt sweep` (evolution/studies/sweep.py, deckopt/commands/sweep.py): one run per rule value
under that value's rules, the held-out measurement, the table and plot files, resuming, one-line
errors."""

from __future__ import annotations

import errno
import json
import shutil
from pathlib import Path

import pytest

from deckopt.cli import main
from deckopt.commands import sweep as sweep_command
from evolution.config import load_config
from evolution.loop import evolve
from evolution.spaces.gwent import GwentSpace
from evolution.spaces.gwent_abilities import GwentAbilitiesSpace
from evolution.studies.sweep import run_folder, sweep_configs
from games.decks import DeckRules
from games.gwent_abilities_cards import AbilityDeckRules

TINY = ["--generations", "2", "--pool", "4", "--games-per-pair", "2", "--jobs", "1", "--hof-size", "2"]
TINY += ["--hof-opponents", "2", "--heldout-decks", "3", "--heldout-games", "2", "--quiet"]
ABILITIES = ["sweep", "--game", "gwent_abilities", "--rule", "copy_limit", "--values", "1,2", *TINY]


def _decks(run: Path) -> list[list[int]]:
    return [
        d["cards"] for f in sorted((run / "generations").glob("gen_*.json")) for d in json.loads(f.read_text())["decks"]
    ]


@pytest.fixture(scope="module")
def swept(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sweep") / "copy"
    assert main([*ABILITIES, "--out", str(out)]) == 0
    return out


def test_one_run_per_value_under_that_values_rules(swept):
    assert sorted(p.name for p in swept.iterdir() if p.is_dir()) == ["copy_limit=1", "copy_limit=2"]
    for value in (1, 2):
        run = swept / f"copy_limit={value}"
        rules = json.loads((run / "config.json").read_text())["gwent_abilities"]["rules"]
        assert rules["copy_limit"] == value
        space = GwentAbilitiesSpace(load_config(game="gwent_abilities", rules=AbilityDeckRules(copy_limit=value)))
        decks = _decks(run)
        assert len(decks) == 8 and all(space.problems(d) == [] for d in decks)
        most = max(max(d.count(k) for k in set(d)) for d in decks)
        assert most <= value
    assert max(max(d.count(k) for k in set(d)) for d in _decks(swept / "copy_limit=1")) == 1


def test_the_report_files_hold_one_row_per_value(swept, capsys):
    report = json.loads((swept / "sweep.json").read_text())
    assert [r["value"] for r in report["rows"]] == [1, 2]
    assert report["descriptors"] == ["advantage_share", "synergy_share"]
    for row in report["rows"]:
        assert row["random"]["games"] == 3 * 2 and 0 <= row["random"]["score"] <= 1
        assert row["rivals"]["games"] <= 3 * 2 and row["dominant"] == (row["rivals"]["ci95"][0] > 0.6)
        champion = json.loads((swept / f"copy_limit={row['value']}" / "champion.json").read_text())["cards"]
        assert row["champion"] == champion
    table = (swept / "sweep.md").read_text()
    assert "| copy_limit | vs random (95% CI) | vs rivals (95% CI) | dominant (> 0.6) |" in table
    assert table.count("\n| 1 |") == 1 and table.count("\n| 2 |") == 1
    csv_lines = (swept / "sweep.csv").read_text().splitlines()
    assert csv_lines[0].startswith("copy_limit,random,random_lo") and len(csv_lines) == 3
    assert (swept / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_second_call_keeps_the_finished_runs(swept, capsys):
    before = {p: p.stat().st_mtime_ns for p in swept.glob("copy_limit=*/generations/*.json")}
    rows = json.loads((swept / "sweep.json").read_text())["rows"]
    assert main([*ABILITIES[:-1], "--out", str(swept)]) == 0  # not quiet: the log says so
    err = capsys.readouterr().err
    assert "copy_limit = 1: finished run kept" in err and "copy_limit = 2: finished run kept" in err
    assert {p: p.stat().st_mtime_ns for p in swept.glob("copy_limit=*/generations/*.json")} == before
    assert json.loads((swept / "sweep.json").read_text())["rows"] == rows


def test_an_unfinished_run_is_resumed(tmp_path, capsys):
    out = tmp_path / "resumed"
    config = load_config(
        None, game="gwent_abilities", generations=2, pool=4, games_per_pair=2, jobs=1, hof_size=2, hof_opponents=2
    )
    (_, first), _ = sweep_configs(config, "copy_limit", [1, 2])

    def stop_after_first(gen):
        if gen == 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evolve(first, run_folder(out, "copy_limit", 1), on_generation=stop_after_first)
    gen0 = (out / "copy_limit=1/generations/gen_0000.json").read_text()
    assert main([*ABILITIES[:-1], "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "copy_limit = 1: resuming" in err and "copy_limit = 2: evolving" in err
    assert (out / "copy_limit=1/generations/gen_0000.json").read_text() == gen0
    assert (out / "copy_limit=1/generations/gen_0001.json").is_file()
    assert (out / "copy_limit=1/champion.json").is_file()


@pytest.mark.parametrize(
    "changed, message",
    [
        (["--generations", "3"], "(generations = 2 there, 3 now)"),
        (["--pool", "6"], "(pool = 4 there, 6 now)"),
        (["--seed", "7"], "(seed = 0 there, 7 now)"),
        (["--agent", "heuristic"], "(agent = "),
        (["--heldout-decks", "4"], "(held-out decks = 3 there, 4 now)"),
        (["--heldout-games", "4"], "(held-out games = 2 there, 4 now)"),
        (["--dominance", "0.7"], "(dominance = 0.6 there, 0.7 now)"),
        (["--set", "rules.max_cards=30"], "(rules.max_cards = "),
        (["--rule", "provision_budget", "--values", "150"], "(rule = 'copy_limit' there, 'provision_budget' now)"),
        (["--game", "gwent_lite", "--rule", "min_cards", "--values", "20"], "(game = 'gwent_abilities' there"),
    ],
)
def test_a_resume_with_other_settings_is_refused_in_one_line(swept, capsys, changed, message):
    before = {p: p.read_bytes() for p in swept.rglob("*") if p.is_file()}
    assert main([*ABILITIES, *changed, "--out", str(swept)]) == 2
    err = capsys.readouterr().err
    assert message in err and "holds a sweep made with other settings" in err and "another --out" in err
    assert err.count("\n") == 1
    assert {p: p.read_bytes() for p in swept.rglob("*") if p.is_file()} == before


def test_a_settings_file_counts_like_the_flags(swept, tmp_path, capsys):
    settings = tmp_path / "sweep.toml"
    settings.write_text("cx_prob = 0.25\n")
    assert main([*ABILITIES, "--config", str(settings), "--out", str(swept)]) == 2
    assert "(cx_prob = 0.0 there, 0.25 now)" in capsys.readouterr().err


def test_runs_without_a_sweep_record_are_compared_too(swept, tmp_path, capsys):
    out = tmp_path / "unrecorded"
    shutil.copytree(swept, out)
    (out / "sweep.json").unlink()
    assert main([*ABILITIES, "--generations", "3", "--out", str(out)]) == 2
    assert "(generations = 2 there, 3 now)" in capsys.readouterr().err


def test_a_resume_may_add_values_and_change_how_it_runs(swept, tmp_path, capsys):
    out = tmp_path / "more"
    shutil.copytree(swept, out)
    before = {p: p.stat().st_mtime_ns for p in out.glob("copy_limit=*/generations/*.json")}
    rows = json.loads((out / "sweep.json").read_text())["rows"]
    more = [*ABILITIES[:-1], "--values", "1,2,3", "--task-timeout", "600", "--plot-every", "0", "--out", str(out)]
    assert main(more) == 0
    err = capsys.readouterr().err
    assert "copy_limit = 1: finished run kept" in err and "copy_limit = 3: evolving" in err
    assert {p: p.stat().st_mtime_ns for p in out.glob("copy_limit=[12]/generations/*.json")} == before
    report = json.loads((out / "sweep.json").read_text())
    moved = [{**r, "run": str(out / f"copy_limit={r['value']}")} for r in rows]  # the rows name where their run is
    assert report["rows"][:2] == moved and report["rows"][2]["value"] == 3


def test_gwent_lite_rules_sweep_too(tmp_path):
    out = tmp_path / "lite"
    args = ["sweep", "--game", "gwent_lite", "--agent", "heuristic", "--rule", "min_cards", "--values", "20"]
    assert main([*args, *TINY, "--out", str(out)]) == 0
    run = out / "min_cards=20"
    assert json.loads((run / "config.json").read_text())["gwent"]["rules"]["min_cards"] == 20
    space = GwentSpace(load_config(rules=DeckRules(min_cards=20)))
    assert all(space.problems(d) == [] for d in _decks(run))
    assert json.loads((out / "sweep.json").read_text())["descriptors"] == list(space.descriptor_space()[0])


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--game", "gwent_abilities", "--rule", "copies", "--values", "1"],
            "gwent_abilities has no deck rule 'copies'",
        ),
        (["--game", "gwent_abilities", "--rule", "copy_limit", "--values", "1,0"], "copy_limit = 0: deck rules"),
        (["--game", "gwent_abilities", "--rule", "copy_limit", "--values", "1,1"], "a value is given twice"),
        (["--game", "gwent_lite", "--rule", "copy_limit", "--values", "1"], "gwent_lite has no deck rule"),
        (
            ["--game", "exploding_kittens", "--rule", "min_cards", "--values", "4"],
            "exploding_kittens has no deck rules",
        ),
        (["--game", "gwent_abilities", "--rule", "copy_limit", "--values", "1,"], "--values expects"),
        (["--game", "gwent_abilities", "--rule", "copy_limit", "--values", "1", "--dominance", "2"], "--dominance"),
    ],
)
def test_a_bad_rule_or_value_is_one_line(tmp_path, capsys, args, message):
    assert main(["sweep", *args, "--out", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(
    "measurement, message",
    [
        ("a string", "sweep measurement"),
        ([1, 2], "must be a table"),
        ({"value": 1, "champion": [0], "random": {"score": "high"}, "rivals": None}, "random.score must be a number"),
    ],
)
def test_a_damaged_measurement_is_refused_in_one_line(swept, tmp_path, capsys, measurement, message):
    out = tmp_path / "damaged"
    shutil.copytree(swept, out)
    (out / "copy_limit=1" / "sweep_measurement.json").write_text(json.dumps(measurement))
    assert main([*ABILITIES, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_kept_measurement_is_checked_and_not_shown_as_the_file_has_it(swept, tmp_path, capsys):
    out = tmp_path / "crafted"
    shutil.copytree(swept, out)
    path = out / "copy_limit=1" / "sweep_measurement.json"
    row = json.loads(path.read_text())
    path.write_text(json.dumps({**row, "text": "<b>crafted</b>", "dominant": not row["dominant"], "run": "/elsewhere"}))
    assert main([*ABILITIES, "--out", str(out)]) == 0
    capsys.readouterr()
    kept = json.loads((out / "sweep.json").read_text())["rows"][0]
    assert kept == {**row, "run": str(out / "copy_limit=1")}
    assert "crafted" not in (out / "sweep.md").read_text()
    path.write_text(json.dumps({**row, "champion": row["champion"][:-1]}))
    assert main([*ABILITIES, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "does not measure this run's champion" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "failure, code, words",
    [
        (KeyboardInterrupt, 130, "deckopt sweep: interrupted; continue with: deckopt sweep --rule copy_limit"),
        (OSError(errno.ENOSPC, "No space left on device"), 2, "cannot write: No space left on device; continue with"),
    ],
)
def test_a_stopped_sweep_says_how_to_continue(failure, code, words, tmp_path, monkeypatch, capsys):
    def stop(*args, **kwargs):
        raise failure

    monkeypatch.setattr(sweep_command, "run_sweep", stop)
    assert main([*ABILITIES, "--out", str(tmp_path / "s")]) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and f"--out {tmp_path / 's'}" in err
