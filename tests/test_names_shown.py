"""Names read from deck and drafter files reach the terminal only as printable text: a name holding
control characters (an escape sequence that would clear or recolour the terminal) or too long ends
in one line, without echoing it."""

from __future__ import annotations

import json

import pytest

from deckopt.cli import main
from games.errors import MAX_ERROR_LINE
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


LONG = "x" * 3_000_000  # a bad input far longer than any error line may be


@pytest.mark.parametrize(
    "argv",
    [
        ["play", LONG],  # an unknown game: a message of the command's own
        ["match", "gwent_lite", LONG, "heuristic", "--games", "2"],  # a name longer than any file's
        ["match", "gwent_lite", LONG + ".toml", "heuristic", "--games", "2"],
        ["matchups", LONG, "decks/flat.toml"],
        ["train", "tic_tac_toe", "--algo", LONG],  # the argument parser's own message
        ["evolve", "--config", "CONFIG", "--out", "OUT"],  # a settings file whose agent is the long input
    ],
    ids=["game", "agent", "panel file", "deck", "algo", "config file"],
)
def test_an_error_line_echoes_a_bounded_part_of_a_long_input(argv, tmp_path, capsys):
    config = tmp_path / "long.toml"
    config.write_text(f'agent = "{LONG}"\n')
    argv = [str(config) if a == "CONFIG" else str(tmp_path / "out") if a == "OUT" else a for a in argv]
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exc:  # the argument parser's refusal
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err[:2000]
    assert "characters ...]" in err and len(err) <= MAX_ERROR_LINE + 100
