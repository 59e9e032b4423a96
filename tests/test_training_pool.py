"""scripts/training_pool.py: the deck pool of a training recipe, from evolution run folders."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "training_pool.py"

A = [1] * 20 + [8, 12, 16, 20, 24]
B = [4] * 25
C = [1] * 23 + [14, 63]


def fake_run(folder: Path, generations: dict[int, list[list[int]]], hall: list[list[int]], champion: list[int]):
    (folder / "generations").mkdir(parents=True)
    for g, decks in generations.items():
        data = {"generation": g, "decks": [{"cards": d} for d in decks]}
        (folder / "generations" / f"gen_{g:04d}.json").write_text(json.dumps(data))
    (folder / "hall_of_fame.json").write_text(json.dumps([{"cards": d} for d in hall]))
    (folder / "champion.json").write_text(json.dumps({"cards": champion}))


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT)


def test_the_pool_holds_the_named_generations_hall_and_champion_once_each(tmp_path):
    fake_run(tmp_path / "r1", {0: [C], 10: [A, B], 29: [B]}, hall=[A], champion=list(reversed(A)))
    fake_run(tmp_path / "r2", {0: [C]}, hall=[], champion=B)
    result = run(str(tmp_path / "r1"), str(tmp_path / "r2"), "--generations", "10", "29")
    assert result.returncode == 0, result.stderr
    pool = tomllib.loads(result.stdout)["deck_pool"]
    # r1: generations 10 and 29, hall, champion (A reversed is A); r2 has no generation 10 or 29: its last
    assert sorted(map(tuple, pool)) == sorted({tuple(A), tuple(B), tuple(C)})
    assert pool == sorted(pool)


def test_deck_folders_join_the_pool(tmp_path):
    fake_run(tmp_path / "r", {0: [A]}, hall=[], champion=A)
    result = run(str(tmp_path / "r"), "--decks", "decks")
    pool = {tuple(d) for d in tomllib.loads(result.stdout)["deck_pool"]}
    files = {tuple(sorted(tomllib.loads(p.read_text())["cards"])) for p in (ROOT / "decks").glob("*.toml")}
    assert tuple(B) in files and pool == files | {tuple(A)}


def test_a_folder_that_is_no_run_is_one_line(tmp_path):
    result = run(str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "not a deck-evolution run folder" in result.stderr
