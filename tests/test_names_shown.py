"""Names read from deck and drafter files reach the terminal only as printable text: a name holding
control characters (an escape sequence that would clear or recolour the terminal) or too long ends
in one line, without echoing it."""

from __future__ import annotations

import json

import pytest

from deckopt.cli import main
from games.schema import MAX_NAME

HOSTILE = ["\x1b[2J\x1b[31mcleared", "two\nlines", "x" * (MAX_NAME + 1)]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_deck_file_name_that_is_not_plain_text_ends_in_one_line(name, tmp_path, capsys):
    deck = tmp_path / "deck.toml"
    deck.write_text(f"name = {json.dumps(name)}\ncards = {[4] * 25}\n")
    assert main(["match", "gwent_lite", "heuristic", "heuristic", "--deck", str(deck), "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'name' must be one line of at most 200 printable characters" in err, err
    assert "\x1b" not in err and len(err) < 400


@pytest.mark.parametrize("name", HOSTILE)
def test_a_drafter_file_name_that_is_not_plain_text_ends_in_one_line(name, tmp_path, capsys):
    drafter = tmp_path / "drafter.toml"
    drafter.write_text(f"name = {json.dumps(name)}\nscores = {[1] * 160}\n")
    assert main(["match", "locm", f"{drafter}+greedy", "greedy", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'name' must be one line of at most 200 printable characters" in err, err
    assert "\x1b" not in err and len(err) < 400
