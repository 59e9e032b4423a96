"""`deckopt bench locm`: deckopt's LOCM engine and gym-locm's play the same games side by side (the
report's shape and the games' winners, on a tiny budget); the driver's chance is the games' own."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from deckopt.bench import locm
from games.errors import UserError


@pytest.fixture(scope="module")
def oracle():
    if not locm.ORACLE_PYTHON.exists():
        pytest.fail("the LOCM oracle environment .venv-oracle is missing: `make oracle` builds it")
    return locm.ORACLE_PYTHON


def test_both_engines_play_the_same_games_and_the_report_has_its_shape(oracle):
    stages = set()
    report = locm.run(
        progress=lambda done, total, what: stages.add(what),
        repeats=1,
        sizes={"max-attack": (6, 16), "greedy": (2, 8)},
    )
    assert report["bench"] == "locm" and stages == {"max-attack", "greedy"}
    values = {r["name"]: r["value"] for r in report["results"]}
    for battler, few in (("max-attack", 6), ("greedy", 2)):
        for side in ("gym_locm", "deckopt", "deckopt_batch"):
            assert values[f"{side}_{battler}_games_per_s"] > 0
        assert values[f"deckopt_{battler}_same_winner"] == values[f"deckopt_batch_{battler}_same_winner"] == few
    assert set(report["ratios"]) == {
        f"{side}_vs_gym_locm_{battler}" for side in ("deckopt", "deckopt_batch") for battler in ("max-attack", "greedy")
    }


def test_the_drivers_chance_is_the_chance_of_the_games_it_plays(oracle):
    chance = locm.chance_of(12, 500, oracle)
    command = [str(oracle), str(locm.DRIVER), "--games", "12", "--seed", "500", "--battler", "max-attack"]
    played = [
        json.loads(line)
        for line in subprocess.run(command, capture_output=True, text=True, check=True).stdout.splitlines()
    ]
    for g, record in enumerate(played):
        assert record["offers"] == chance["offers"][g].tolist()
        picks = [record["offers"][t][chance["picks"][g][2 * t + p]] for p in (0, 1) for t in range(30)]
        for p in (0, 1):
            own = picks[30 * p : 30 * p + 30]
            # the same cards in the same draw order (places of equal cards may be told apart otherwise)
            assert [own[i] for i in record["shuffles"][p]] == [own[i] for i in chance["shuffles"][g][p]]


def test_a_missing_oracle_environment_is_one_line(tmp_path: Path):
    with pytest.raises(UserError, match="make oracle"):
        locm.run(repeats=1, oracle_python=tmp_path / "python")
