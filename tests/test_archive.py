"""The MAP-Elites archive run (evolution.archive): tiny runs with the heuristic agent."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_evolution import tiny
from test_evolution_kittens import TINY

from deckopt.cli import main
from evolution.archive import descriptors
from evolution.config import EvolveConfig
from evolution.loop import evolve
from evolution.space import space_for
from games.errors import UserError


def archive_config(**kw) -> EvolveConfig:
    return tiny(archive=True, generations=3, pool=8, **kw)


@pytest.fixture(scope="module")
def archive_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("archive") / "run"
    evolve(archive_config(), run, log=None)
    return run


def test_archive_holds_distinct_legal_elites_each_in_its_cell(archive_run):
    data = json.loads((archive_run / "archive.json").read_text())
    config = archive_config()
    space = space_for(config)
    entries = data["entries"]
    assert data["generation"] == 2 and len(entries) >= 3
    assert len({tuple(e["cards"]) for e in entries}) == len(entries)
    assert len({tuple(e["cell"]) for e in entries}) == len(entries)
    for e in entries:
        assert space.problems(e["cards"]) == []
        assert e["ci95"][0] <= e["score"] <= e["ci95"][1] and e["games"] > 0
        values = descriptors(config, e["cards"])
        assert values == pytest.approx([e[name] for name in data["descriptors"]])
        for v, k, (lo, hi), n in zip(values, e["cell"], data["ranges"], data["cells"]):
            width = (hi - lo) / n
            assert lo + k * width - 1e-9 <= v <= lo + (k + 1) * width + 1e-9
    # an elite is the best deck seen in its cell: no evaluated deck of that cell scored higher
    seen = {}
    for gen in range(3):
        for d in json.loads((archive_run / "generations" / f"gen_{gen:04d}.json").read_text())["decks"]:
            seen.setdefault(tuple(d["cards"]), d["score"])
    best = max(seen.values())
    assert max(e["score"] for e in entries) == pytest.approx(best)
    assert (archive_run / "archive.png").read_bytes()[:4] == b"\x89PNG"


def test_same_seed_same_archive(archive_run, tmp_path):
    evolve(archive_config(), tmp_path / "again", log=None, finish=False)
    same = json.loads((tmp_path / "again" / "archive.json").read_text())
    assert same == json.loads((archive_run / "archive.json").read_text())
    evolve(archive_config(seed=7), tmp_path / "other", log=None, finish=False)
    assert json.loads((tmp_path / "other" / "archive.json").read_text())["entries"] != same["entries"]


def test_decks_archive_prints_the_elites(archive_run, capsys):
    data = json.loads((archive_run / "archive.json").read_text())
    assert main(["decks", str(archive_run), "--archive"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{len(data['entries'])} elites over min_power_share x top5_power_share")
    assert len(out.strip().splitlines()) == len(data["entries"]) + 1
    best = max(data["entries"], key=lambda e: e["score"])
    assert f"score {best['score']:.3f}" in out.splitlines()[1]


def test_decks_archive_of_a_plain_run_and_bad_cells_are_refused(archive_run, tmp_path, capsys):
    evolve(tiny(), tmp_path / "plain", log=None, finish=False)
    assert main(["decks", str(tmp_path / "plain"), "--archive"]) != 0
    assert "has no archive (evolve it with --archive)" in capsys.readouterr().err
    with pytest.raises(UserError, match="10x10"):
        tiny(archive=True, archive_cells="ten")


def test_kittens_archive_counts_skips_and_attacks(tmp_path):
    config = EvolveConfig(**{**TINY, "archive": True, "archive_cells": "3x3"})
    evolve(config, tmp_path / "ek", log=None, finish=False)
    data = json.loads((tmp_path / "ek" / "archive.json").read_text())
    assert data["descriptors"] == ["skips", "attacks"] and data["entries"]
    for e in data["entries"]:
        skips, attacks = np.bincount(e["cards"], minlength=3)[1:3]
        assert (e["skips"], e["attacks"]) == (skips, attacks)


def test_resumed_archive_run_ends_with_the_same_archive(archive_run, tmp_path):
    run = tmp_path / "cut"

    def stop_after_first(gen):
        if gen == 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evolve(archive_config(), run, log=None, on_generation=stop_after_first)
    assert json.loads((run / "archive.json").read_text())["generation"] == 0
    evolve(None, run, resume=True, log=None, finish=False)
    assert json.loads((run / "archive.json").read_text()) == json.loads((archive_run / "archive.json").read_text())
    data = json.loads((run / "archive.json").read_text())
    (run / "archive.json").write_text(json.dumps({**data, "generation": 0}))  # behind the checkpoint
    with pytest.raises(UserError, match="not of generation 2"):
        evolve(None, run, resume=True, overrides={"generations": 4}, log=None, finish=False)
