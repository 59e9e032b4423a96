"""LOCM 1.2 against the competition referee: the 100 matches of gym-locm's consistency dataset
(tests/fixtures/locm/), replayed in games/locm.py with the referee's input compared at the start of
every battle turn (games/locm_referee.py)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from games.locm import DRAFT_TURNS, PASS, PICK, Locm
from games.locm_referee import (
    InvalidCommand,
    action_of,
    battle_commands,
    draft_choice,
    picks_of,
    read_match,
    referee_input,
    replay_match,
    shuffles_of,
)

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


def test_referee_input_writes_every_recorded_input():
    compared = 0
    for line in matches():
        match = read_match(line)
        inputs = [[x for x in match["errors"][str(p)] if x] for p in (0, 1)]
        offers = [[int(x.split()[0]) for x in text.split("\n")[4:7]] for text in inputs[0][:DRAFT_TURNS]]
        places = picks_of(match)
        picked = [[offers[t][places[p][t]] for t in range(DRAFT_TURNS)] for p in (0, 1)]
        state = Locm().state_from_chance(offers, shuffles_of(match, picked))
        turn = [0, 0]
        outputs = [[x.strip() for x in match["outputs"][str(p)] if x] for p in (0, 1)]
        while not state.is_terminal() and turn[state.current_player] < len(inputs[state.current_player]):
            p = state.current_player
            ours, theirs = referee_input(state), inputs[p][turn[p]]
            # the log keeps each input but the space that ends its last line
            assert ours.rstrip() == theirs.rstrip() and ours.endswith(" \n"), (turn[p], p, ours, theirs)
            compared += 1
            if state.phase == "draft":
                state.apply_action(PICK + draft_choice(outputs[p][turn[p]], state.offers()))
            else:
                for command in battle_commands(outputs[p][turn[p]] if turn[p] < len(outputs[p]) else ""):
                    action = None if state.is_terminal() else action_of(state, command)
                    if action is not None and action in state.legal_actions():
                        state.apply_action(action)
                if not state.is_terminal():
                    state.apply_action(PASS)
            turn[p] += 1
    assert compared == 7401  # every input of the 100 matches: 6 000 draft turns, 1 401 battle turns


def test_replies_are_read_as_the_referee_reads_them():
    assert battle_commands("SUMMON 3 0;PASS; ATTACK 5 -1 go!;;USE 7 -1") == ["SUMMON 3 0", "ATTACK 5 -1", "USE 7 -1"]
    assert battle_commands("") == [] and battle_commands("PASS") == []
    for reply in ("WAIT", "SUMMON 3", "ATTACK x 1", "MOVE 1 2", "SUMMON 3 0;HELLO"):
        with pytest.raises(InvalidCommand):
            battle_commands(reply)
    assert draft_choice("PICK 2", (5, 6, 7)) == 2 and draft_choice("PASS", (5, 6, 7)) == 0
    assert draft_choice("CHOOSE 6 text", (5, 6, 7)) == 1
    for reply in ("PICK 3", "PICK", "CHOOSE 8", "SUMMON 1 0", ""):
        with pytest.raises(InvalidCommand):
            draft_choice(reply, (5, 6, 7))
