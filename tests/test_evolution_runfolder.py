"""The run folder and the shape of the evolution package: damaged or edited checkpoints and configs
end in one line with nothing changed on disk, old run folders still resume, deck export refuses to
overwrite or to write where it cannot, the library never prints and reports progress by callback,
the config carries every flag, and no TensorFlow is imported anywhere in evolution/."""

from __future__ import annotations

import hashlib
import json
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from deckopt.cli import main
from evolution.config import EvolveConfig, load_config
from evolution.loop import evolve
from evolution.spaces.gwent import GwentDeal

TINY = dict(
    generations=2,
    pool=6,
    games_per_pair=4,
    agent="heuristic",
    jobs=1,
    survivors=2,
    hof_size=3,
    hof_opponents=2,
    random_opponents=2,
    games_per_task=20,
    playoff_top=2,
    playoff_games_per_pair=4,
    validate=False,
    plot_every=0,
    yardstick_top=1,
    yardstick_games=2,
    opponents=["population", "hall-of-fame", "random"],
    offspring_per_survivor=1,
)


def tiny(**kw) -> EvolveConfig:
    return load_config(**{**TINY, **kw})


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("rf") / "run"
    evolve(tiny(), run)
    return run


def files(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def refused(argv: list[str], capsys, *words: str, code: int = 2) -> str:
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse
        rc = exc.code
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert rc == code and len(lines) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def copy_with_checkpoint(finished: Path, tmp_path: Path, edit) -> Path:
    run = tmp_path / "run"
    shutil.copytree(finished, run)
    ck = run / "checkpoints" / "checkpoint.json"
    data = json.loads(ck.read_text())
    edit(data)
    ck.write_text(json.dumps(data))
    return run


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda d: d.pop("rng"), ["checkpoint", "rng is missing"]),
        (lambda d: d["pool"][0]["cards"].__setitem__(0, "x"), ["checkpoint", "pool[0].cards[0] must be a whole"]),
        (lambda d: d["hall_of_fame"][0]["cards"].__setitem__(0, 999), ["checkpoint", "illegal deck"]),
        (lambda d: d.__setitem__("rng", {"bit_generator": "PCG64", "state": "?"}), ["checkpoint", "rng.state"]),
        (lambda d: d["rng"]["state"].__setitem__("state", 2**200), ["rng.state.state", "2^128 - 1", "201-bit"]),
        (lambda d: d.__setitem__("generation", "two"), ["checkpoint", "generation must be a whole number"]),
        (lambda d: d["best_decks"].pop(), ["damaged checkpoint"]),
        (lambda d: d.__setitem__("format", "something else"), ["checkpoint format"]),
    ],
)
def test_a_damaged_checkpoint_is_one_line_and_changes_nothing(finished, tmp_path, capsys, edit, words):
    run = copy_with_checkpoint(finished, tmp_path, edit)
    before = files(run)
    refused(["evolve", "--resume", run, "--generations", 3], capsys, *words)
    assert files(run) == before


def test_a_hand_edited_config_is_refused_naming_the_settings(finished, tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(finished, run)
    config = json.loads((run / "config.json").read_text())
    edited = {**config, "pool": 8, "gwent": {**config["gwent"], "mut_step_sigma": 0.3}}
    (run / "config.json").write_text(json.dumps(edited))
    before = files(run)
    refused(["evolve", "--resume", run, "--generations", 3], capsys, "pool, mut_step_sigma", "config.json")
    assert files(run) == before
    # how a run executes may change: plot_every and jobs are execution settings
    (run / "config.json").write_text(json.dumps({**config, "plot_every": 1}))
    assert main(["evolve", "--resume", str(run), "--generations", "3", "--quiet"]) == 0
    assert (run / "generations" / "gen_0002.json").is_file()


def test_an_old_run_folder_resumes_its_ancestor_selection_exactly(tmp_path):
    """Run folders written before the rename ('ancestor' selection, a checkpoint without config)."""
    evolve(tiny(generations=3), tmp_path / "whole")
    old = tmp_path / "old"
    evolve(tiny(generations=2), old, finish=False)
    config = json.loads((old / "config.json").read_text())
    assert config["selection"] == "truncation"
    (old / "config.json").write_text(json.dumps({**config, "selection": "ancestor"}))
    ck = json.loads((old / "checkpoints" / "checkpoint.json").read_text())
    ck.pop("config")
    ck["format"] = "deckopt-evolve-checkpoint-1"
    (old / "checkpoints" / "checkpoint.json").write_text(json.dumps(ck))
    evolve(None, old, resume=True, overrides={"generations": 3})
    for name in ("gen_0002.json", "gen_0001.json"):
        a, b = (json.loads((r / "generations" / name).read_text()) for r in (tmp_path / "whole", old))
        a.pop("seconds"), b.pop("seconds")
        assert a == b
    assert load_config(selection="ancestor").selection == "truncation"


def test_export_refuses_folders_files_in_the_way_and_overwriting(finished, tmp_path, capsys):
    (tmp_path / "a_file").write_text("x")
    (tmp_path / "a_dir").mkdir()
    (tmp_path / "deck.toml").write_text("keep me\n")
    before = files(tmp_path)
    refused(["decks", finished, "--export", tmp_path / "a_dir"], capsys, "folder")
    refused(["decks", finished, "--export", tmp_path / "a_file" / "x.toml"], capsys, "a_file", "not a folder")
    refused(["decks", finished, "--export", tmp_path / "deck.toml"], capsys, "already exists", "--force")
    refused(["decks", finished, "--export", tmp_path / "deck.txt"], capsys, ".toml or .json")
    assert files(tmp_path) == before
    assert main(["decks", str(finished), "--export", str(tmp_path / "deck.toml"), "--force"]) == 0
    champion = json.loads((finished / "champion.json").read_text())["cards"]
    assert f"cards = {champion}".replace("'", "") in (tmp_path / "deck.toml").read_text()


def test_bad_run_folders_and_numbers_are_one_line(finished, tmp_path, capsys):
    (tmp_path / "a_file").write_text("x")
    (tmp_path / "empty").mkdir()
    refused(["decks", tmp_path / "a_file"], capsys, "a_file", "is a file")
    refused(["decks", tmp_path / "empty"], capsys, "empty", "no config.json")
    refused(["decks", tmp_path / "nowhere"], capsys, "nowhere", "not found")
    refused(["evolve", "--out", tmp_path / "a_file"], capsys, "a_file", "is a file")
    refused(["evolve", "--out", finished], capsys, "already exists", "resume")
    refused(["evolve", "--seed", "-1"], capsys, "--seed")
    refused(["evolve", "--seed", str(2**32)], capsys, "--seed")
    refused(["decks", finished, "--validate", "--seed", "-1"], capsys, "--seed")
    refused(["evolve", "--selection", "best"], capsys, "--selection")
    refused(["evolve", "--cx-prob", "2", "--out", tmp_path / "new"], capsys, "cx_prob")
    assert not (tmp_path / "new").exists()
    if Path("/sys").is_dir():
        refused(["evolve", "--out", "/sys/deckopt-test-run", "--agent", "heuristic"], capsys, "cannot be written")


def test_every_old_flag_is_generated_from_the_config(capsys):
    with pytest.raises(SystemExit):
        main(["evolve", "--help"])
    text = capsys.readouterr().out
    for flag in (
        "--generations",
        "--pool",
        "--games-per-pair",
        "--opponents",
        "--panel",
        "--selection",
        "--survivors",
        "--mu",
        "--cx-prob",
        "--agent",
        "--jobs",
        "--backend",
        "--scheduler",
        "--validation-games",
        "--no-validate",
        "--seed",
        "--out",
        "--resume",
        "--quiet",
        "--json",
        "--config",
        "--task-timeout",
    ):
        assert flag in text, flag
    import dataclasses

    assert all(f.metadata.get("help") for f in dataclasses.fields(EvolveConfig))
    assert not hasattr(EvolveConfig, "check")


def test_the_library_never_prints_and_reports_progress_by_callback(tmp_path, capsys):
    calls, lines = [], []
    evolve(
        tiny(), tmp_path / "run", progress=lambda done, total, what: calls.append((done, total, what)), log=lines.append
    )
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    stages = {}
    for done, total, what in calls:
        assert 0 <= done <= total
        stages.setdefault(what, []).append(done)
    gens = [w.split()[:2] for w in stages if not w.endswith("yardstick")]
    assert gens[:2] == [["gen", "0/1"], ["gen", "1/1"]] and "champion on the yardstick" in stages
    assert "gen 0 yardstick" in stages
    assert all(
        seen == sorted(seen) and seen[-1] == calls[[c[2] for c in calls].index(w)][1] for w, seen in stages.items()
    )
    assert any(line.startswith("gen   1:") for line in lines) and any("champion" in line for line in lines)


def test_worker_tasks_are_plain_and_no_tensorflow_anywhere(tmp_path):
    from evolution.scoring import fitness as fit
    from games.decks import DeckRules

    rules = DeckRules()
    p = fit.Pairing(tuple([4] * 25), tuple([4] * 25), (1, 0, 0, 0), 2)
    ((agent, task),) = fit.make_tasks([p], "AGENT", GwentDeal(rules), 200, (1, 0, 0))
    assert agent == "AGENT" and task.games == 4 and b"deap" not in pickle.dumps(task)
    modules = sorted(f.stem for f in Path("evolution").glob("*.py") if f.stem not in ("__init__", "bench"))
    code = (
        f"import sys, evolution; [__import__('evolution.' + m) for m in {modules!r}]; "
        "print('tensorflow' in sys.modules or 'keras' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[1])
    assert out.stdout.strip() == "False", out.stderr


def test_the_decks_table_shows_the_yardstick_beside_the_fitness(finished, capsys):
    assert main(["decks", str(finished)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "yardstick: against the fixed yardstick decks, comparable across generations" in lines[1]
    head = lines[2].split("  ")
    assert [h.strip() for h in head if h.strip()][-3:] == ["fitness [95% CI]", "games", "yardstick [95% CI]"]
    from evolution.runfolder import RunFolder

    folder = RunFolder(finished)
    best = folder.read_best_decks()
    assert len(lines) == 3 + len(best)
    for line, gen in zip(lines[3:], best):  # the best-fitness deck is among the tiny run's yardstick_top
        deck = folder.read_generation(gen["generation"])["decks"][0]
        assert line.rstrip().endswith(
            f"{deck['yardstick']['score']:.3f} [{deck['yardstick']['ci95'][0]:.3f}, {deck['yardstick']['ci95'][1]:.3f}]"
        )
