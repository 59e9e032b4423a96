"""LOCM 1.2 against the competition referee: the 100 matches of gym-locm's consistency dataset
(tests/fixtures/locm/), replayed in games/locm.py with the referee's input compared at the start of
every battle turn (games/locm_referee.py)."""

from __future__ import annotations

import gzip
from pathlib import Path

from games.locm_referee import read_match, replay_match

DATASET = Path(__file__).parent / "fixtures" / "locm" / "consistency-dataset-v1.2.txt.gz"


def matches() -> list[str]:
    with gzip.open(DATASET, "rt", encoding="utf-8") as f:
        return [line for line in f if line.strip()]


def test_all_100_referee_matches_agree_turn_by_turn():
    lines = matches()
    assert len(lines) == 100
    results = [replay_match(read_match(line)) for line in lines]
    differ = [(i, r.difference) for i, r in enumerate(results) if r.difference is not None]
    assert not differ, f"{len(differ)} of 100 matches differ, first: {differ[0]}"
    assert sum(r.turns for r in results) > 1000  # every battle turn's input was compared


def test_a_changed_referee_input_or_a_lost_command_is_caught():
    match = read_match(matches()[3])
    inputs = [i for i, x in enumerate(match["errors"]["1"]) if x]
    at = inputs[35]  # player 1's sixth battle turn
    health = match["errors"]["1"][at].split()[0]
    match["errors"]["1"][at] = str(int(health) - 1) + match["errors"]["1"][at][len(health) :]
    result = replay_match(match)
    assert result.difference.startswith("player 1's turn 6: player's facts differ")
    match = read_match(matches()[5])
    match["outputs"]["0"] = [x.replace("ATTACK", "WAIT") if x else x for x in match["outputs"]["0"]]
    assert replay_match(match).difference is not None
