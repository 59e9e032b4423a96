"""LOCM 1.2 against gym-locm 2.0.0b1, the reference engine (games/RULES.md §9): seeded games played
in gym-locm by scripts/locm_gym_driver.py (under the oracle's own Python 3.12 environment, which
`make oracle` builds), replayed action by action in games/locm.py, every state and every set of
legal actions compared. A missing oracle environment fails these tests: they are the engine's proof."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from games.locm_trace import replay

ROOT = Path(__file__).resolve().parent.parent
ORACLE_PYTHON = ROOT / ".venv-oracle" / "bin" / "python"
DRIVER = ROOT / "scripts" / "locm_gym_driver.py"


def oracle_python() -> Path:
    if not ORACLE_PYTHON.exists():
        pytest.fail(f"the LOCM oracle environment {ORACLE_PYTHON.parent.parent} is missing: `make oracle` builds it")
    return ORACLE_PYTHON


def gym_locm_games(battler: str, games: int, seed: int) -> list[dict]:
    out = subprocess.run(
        [str(oracle_python()), str(DRIVER), "--games", str(games), "--seed", str(seed), "--battler", battler],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    return [json.loads(line) for line in out.splitlines()]


def events(record: dict) -> set[str]:
    """What a recorded game exercised: an empty deck, a full hand, a broken rune, a Ward lost,
    a creature dying, player 1's bonus mana lost, a draft's pick of an item."""
    seen = set()
    keywords = {}
    on_board = set()
    for _, state in record["steps"]:
        if state[0] == "draft":
            continue
        now = set()
        for player in state[4:6]:
            health, _, _, bonus, rune, _, hand, deck, lanes = player
            seen |= {"empty deck"} if not deck else set()
            seen |= {"full hand"} if len(hand) == 8 else set()
            seen |= {"rune broken"} if rune < 25 else set()
            for creature in lanes[0] + lanes[1]:
                instance, letters = creature[0], creature[4]
                if "W" in keywords.get(instance, "") and "W" not in letters:
                    seen.add("ward lost")
                keywords[instance] = letters
                now.add(instance)
        if state[5][3] == 0 and state[0] == "battle":
            seen.add("bonus mana lost")
        if on_board - now:
            seen.add("creature died or left")
        on_board = now
    return seen


@pytest.mark.parametrize(
    "battler, games, seed",
    [("random", 120, 100_000), ("max-attack", 120, 200_000), ("passive", 60, 300_000)],
)
def test_every_state_agrees_with_gym_locm(battler, games, seed):
    records = gym_locm_games(battler, games, seed)
    assert len(records) == games
    results = [replay(r) for r in records]
    disagreements = [(r["seed"], x.difference) for r, x in zip(records, results) if not x.agrees]
    assert not disagreements, f"{len(disagreements)} of {games} games disagree, first: {disagreements[0]}"
    assert sum(x.steps for x in results) > 50 * games  # whole games were compared, action by action


def test_the_compared_games_reach_the_rules_that_rarely_fire():
    seen = set()
    for battler in ("random", "passive"):
        for record in gym_locm_games(battler, 30, 400_000):
            seen |= events(record)
    wanted = {"empty deck", "full hand", "rune broken", "ward lost", "bonus mana lost", "creature died or left"}
    assert wanted <= seen, f"never reached: {sorted(wanted - seen)}"


def test_a_changed_state_in_a_record_is_caught():
    record = gym_locm_games("random", 1, 500_000)[0]
    assert replay(record).agrees
    battle = next(n for n, (_, state) in enumerate(record["steps"]) if state[0] == "battle")
    record["steps"][battle + 5][1][4][0] += 1  # player 0's health, five actions into the battle
    result = replay(record)
    assert not result.agrees and result.steps == battle + 5 and "player 0 health" in result.difference


def test_oracle_is_gym_locm_2_0_0b1_on_python_3_12():
    out = subprocess.run(
        [
            str(oracle_python()),
            "-c",
            "import sys, importlib.metadata as m; print(sys.version_info[:2], m.version('gym-locm'))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert out == "(3, 12) 2.0.0b1"


@pytest.mark.parametrize(
    "interpreter, cause",
    [
        ("/nonexistent/python3.12", "is missing or not a program"),
        ("Makefile", "is missing or not a program"),
        (sys.executable, f"is Python {sys.version_info.major}.{sys.version_info.minor}; gym-locm needs 3.12"),
    ],
    ids=["missing", "not a program", "too old"],
)
def test_make_oracle_names_what_is_wrong_with_the_interpreter_given(interpreter, cause, tmp_path):
    venv = tmp_path / "oracle"
    done = subprocess.run(
        ["make", "oracle", f"PYTHON312={interpreter}", f"ORACLE_VENV={venv}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and f"make oracle: the interpreter {interpreter} {cause}" in done.stdout + done.stderr
    assert not venv.exists()  # refused before an environment is made
