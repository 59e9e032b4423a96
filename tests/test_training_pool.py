"""scripts/training_pool.py: the deck pool of a training recipe, from evolution run folders."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import games
from games.gwent_abilities_cards import CARD_INDEX, load_ability_deck

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


def test_a_gwent_abilities_pool_holds_card_names_that_the_game_takes(tmp_path):
    refs = {p.stem: load_ability_deck(p).cards for p in sorted((ROOT / "decks" / "gwent_abilities").glob("*.toml"))}
    as_indices = {name: sorted(CARD_INDEX[c] for c in cards) for name, cards in refs.items()}
    fake_run(tmp_path / "r", {29: [as_indices["bond"], as_indices["horn"]]}, hall=[], champion=as_indices["bond"])
    result = run(str(tmp_path / "r"), "--game", "gwent_abilities")
    assert result.returncode == 0, result.stderr
    pool = tomllib.loads(result.stdout)["deck_pool"]
    assert sorted(map(sorted, pool)) == sorted(sorted(refs[n]) for n in ("bond", "horn"))
    game = games.make("gwent_abilities", deck_pool=pool, pool_share=1.0)  # the game takes the pool as it is
    assert game.new_initial_state(0) is not None
    with_folder = run(str(tmp_path / "r"), "--game", "gwent_abilities", "--decks", "decks/gwent_abilities")
    assert len(tomllib.loads(with_folder.stdout)["deck_pool"]) == len(refs)
    fake_run(tmp_path / "bad", {0: [[0] * 25]}, hall=[], champion=[0] * 25)  # 25 copies of one card
    result = run(str(tmp_path / "bad"), "--game", "gwent_abilities")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "pool deck is illegal" in result.stderr
