"""`deckopt play`: whole games of every game driven by scripted input, as a person would type it."""

import io
import re
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import numpy as np
import pytest
from conftest import gwent_state, stack_incan_gold_round

import games
from deckopt.cli import main
from deckopt.commands import play
from games.incan_gold import LEAVE, STAY, Card

PROMPT = "your move> "


def args_for(game, vs="heuristic", seat=0, seed=1, deck=None, players=None):
    return Namespace(game=game, vs=vs, seat=seat, seed=seed, players=players, deck=deck)


class Typist:
    """A person at the keyboard: answers each prompt with `choose(legal numbers shown, out so far)`,
    and keeps what the screen showed at each prompt."""

    def __init__(self, out: io.StringIO, choose):
        self.out, self.choose = out, choose
        self.screens: list[str] = []  # the whole output at each prompt
        self.typed: list[str] = []

    def readline(self) -> str:
        text = self.out.getvalue()
        assert text.endswith(PROMPT)
        listing = text[text.rindex("your moves: ") :]
        legal = [int(a) for a in re.findall(r"\[(\d+)\]", listing)]
        self.screens.append(text)
        line = self.choose(legal, text)
        self.typed.append(line)
        return line + "\n"


def play_through(args, choose):
    out = io.StringIO()
    typist = Typist(out, choose)
    assert play.run(args, prompt_in=typist, out=out) == 0
    return out.getvalue(), typist


def first_legal(legal, _text):
    return str(legal[0])


@pytest.mark.parametrize("game", games.GAME_NAMES)
@pytest.mark.parametrize("seat", [0, 1])
def test_whole_game_ends_with_a_result_line(game, seat):
    text, typist = play_through(args_for(game, seat=seat, seed=seat + 3), first_legal)
    last = text.rstrip().splitlines()[-1]
    assert re.fullmatch(r"game over: (you win|you lose|you share first place|a draw) \(returns \[.*\]\)", last), last
    assert typist.typed, "the person was asked at least once"
    assert "not a legal move" not in text


@pytest.mark.parametrize("seed", range(4))
def test_incan_gold_bots_choices_stay_secret_until_you_choose(seed):
    """Seat 2 chooses last in every step, after both bots: nothing of their choices of the step may
    show before the person's own choice is in; then all are revealed together."""
    rng = np.random.default_rng(seed)
    text, typist = play_through(
        args_for("incan_gold", seat=2, seed=seed), lambda legal, _t: ["leave", "stay", "l", "st"][rng.integers(4)]
    )
    assert "game over:" in text
    chosen = {"leave": "leave", "l": "leave", "stay": "stay", "st": "stay"}
    for i, screen in enumerate(typist.screens):
        # what appeared since the previous answer, up to this prompt
        since = screen[len(typist.screens[i - 1]) if i else 0 :]
        assert "plays" not in since and "chose " not in since
        if i:
            # the previous answer's step was revealed with the bots', and that reveal came after it
            reveal = [line for line in since.splitlines() if line.startswith("revealed:")][0]
            assert f"you {chosen[typist.typed[i - 1]]}" in reveal
        # this step's reveal is not on the screen yet: the last reveal shown is of an earlier step
        # (the one answered before), so the count of reveals naming "you" equals the answers so far
        assert sum("revealed:" in line and "you " in line for line in screen.splitlines()) == i
    assert text.count("revealed:") >= len(typist.screens)


def test_incan_gold_reports_each_step_and_round():
    text, _ = play_through(
        args_for("incan_gold", seed=2), lambda legal, t: "stay" if t.count("revealed:") % 3 else "leave"
    )
    assert "revealed: you " in text and "next card: " in text and "left with " in text
    assert "== after round 1 of 5, tents: you " in text and "== after round 5 of 5" in text
    assert "game over after 5 rounds" in text


def test_incan_gold_last_step_is_the_revealed_step():
    game = games.make("incan_gold")
    s = game.new_initial_state(np.random.default_rng(0))
    stack_incan_gold_round(s, [17, "artifact", 4, "fire", "fire"])
    assert s.last_step is None
    for choice in (STAY, STAY, STAY):  # the artifact is turned
        s.apply_action(choice)
    step = s.last_step
    assert step.round == 1 and step.choices == (STAY, STAY, STAY) and step.turned == Card("artifact", None)
    assert not step.round_over and step.left_with == (0, 0, 0)
    before = s.clone()
    s.apply_action(LEAVE)  # player 0 leaves alone: 5 round gems + 2 on the path + the artifact (5)
    assert s.last_step == before.last_step  # nothing is revealed mid-step
    assert s.describe_move(before, LEAVE, viewer=1) == ""
    s.apply_action(STAY)
    s.apply_action(STAY)
    step = s.last_step
    assert step.choices == (LEAVE, STAY, STAY) and step.path_share == 2
    assert step.artifacts == (1, 0, 0) and step.artifact_gems == (5, 0, 0) and step.left_with == (12, 0, 0)
    assert step.turned == Card("treasure", 4) and s.banked == (12, 0, 0)
    text = s.describe_last_step(viewer=0)
    assert "revealed: you leave, player 1 stays, player 2 stays" in text
    assert "you left with 12 gems (5 from this round + 2 from the path + 1 artifact worth 5)" in text
    assert "next card: 4 gems: 2 each for the 2 in the temple" in text
    s.apply_action(STAY)
    s.apply_action(STAY)  # fire
    s.apply_action(STAY)
    s.apply_action(STAY)  # the second fire: round over, 7 gems each lost
    step = s.last_step
    assert step.round == 1 and step.round_over and step.turned == Card("hazard", "fire")
    assert step.lost == (0, 7, 7) and s.round == 2
    assert "round 1 ends; player 1 lost 7 gems, player 2 lost 7 gems" in s.describe_last_step(viewer=0)
    # public: the same for every player's view of the state, and kept by clone and resample_hidden
    assert s.clone().last_step == step == s.resample_hidden(1, np.random.default_rng(1)).last_step


def test_gwent_lite_screen_pass_typeable_and_opponent_moves_told():
    text, typist = play_through(args_for("gwent_lite", seed=5), lambda legal, t: "pa" if t.count(PROMPT) % 2 else "3")
    assert "game over:" in text
    first = typist.screens[0]
    assert re.search(r"your hand \(10 cards\): \[", first)
    assert re.search(r"player 1: +total \d+.*; hand \d+ cards, draw pile \d+ cards", first)
    assert "round wins: you 0, player 1 0" in first
    assert re.search(r"player 1 (plays a \d+|passes) \(total \d+\)", text)
    assert re.search(r"== round 1 over, \d+ to \d+: ", text)
    assert "you pass (total" in text  # "pa" was taken as pass


def test_gwent_lite_view_hides_the_opponent_hand():
    game = games.make("gwent_lite")
    s = gwent_state(game, [[1] * 15 + [2] * 5 + [3] * 5, [7, 7, 7] + [1] * 22], leader=0)
    view = s.view(0)
    assert "your hand (10 cards): [1 x10]" in view and "hand 10 cards, draw pile 15 cards" in view
    assert "7 x3" not in view.split("unplayed")[0]  # only in the public unplayed multiset
    assert "your hand (10 cards): [1 x7, 7 x3]" in s.view(1)


@pytest.mark.parametrize("decks", [["decks/flat.toml"], ["decks/flat.toml", "decks/high_variance.toml"]])
def test_gwent_lite_deck_files(decks):
    text, typist = play_through(args_for("gwent_lite", deck=decks, seed=1), lambda legal, t: "pass")
    assert "your hand (10 cards): [4 x10]" in typist.screens[0]
    assert "game over:" in text


@pytest.mark.parametrize(
    "game, typed, needle",
    [
        ("tic_tac_toe", "9\nzz\n4\nq\n", "you play row 2, col 2"),
        ("connect_four", "7\ncol\ncolumn 3\nq\n", "you play column 3"),
        ("incan_gold", "x\nst\nq\n", "revealed: you stay"),
        ("gwent_lite", "p\n0\nq\n", "you pass"),
    ],
)
def test_wrong_key_asks_again_and_q_quits(game, typed, needle):
    out = io.StringIO()
    assert play.run(args_for(game, seed=1), prompt_in=io.StringIO(typed), out=out) == 0
    text = out.getvalue()
    assert "is not a legal move here" in text or "could be" in text
    assert needle in text and text.rstrip().endswith("game abandoned")


@pytest.mark.parametrize("game", games.GAME_NAMES)
def test_end_of_input_quits_cleanly(game):
    out = io.StringIO()
    assert play.run(args_for(game, seat=1, seed=1), prompt_in=io.StringIO(""), out=out) == 0
    assert "game abandoned" in out.getvalue() and "Traceback" not in out.getvalue()


def test_ttt_grid_hint_and_connect_four_column_numbers():
    s = games.make("tic_tac_toe").new_initial_state()
    s.apply_action(4)
    assert str(s).splitlines()[:3] == [". . .    0 1 2", ". X .    3 4 5", ". . .    6 7 8"]
    c = games.make("connect_four").new_initial_state()
    assert "0 1 2 3 4 5 6" in str(c) and games.make("connect_four").action_name(3) == "column 3"


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["play", "tic_tac_toe", "--seat", "2"], "--seat must be between 0 and 1"),
        (["play", "incan_gold", "--seat", "-1"], "--seat must be between 0 and 2"),
        (["play", "connect_four", "--vs", "nonsense"], "unknown agent spec"),
        (["play", "connect_four", "--vs", "minimax"], "only for tic_tac_toe"),
        (["play", "gwent_lite", "--deck", "no/such/deck.toml"], "not found"),
    ],
)
def test_bad_options_are_one_line_exit_2(argv, needle, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and needle in captured.err


def test_a_line_of_thousands_of_digits_is_no_move_and_is_not_echoed_whole():
    out = io.StringIO()
    typed = "9" * 5000 + "\nq\n"
    assert play.run(args_for("tic_tac_toe", seed=1), prompt_in=io.StringIO(typed), out=out) == 0
    text = out.getvalue()
    assert "is not a legal move here" in text and text.rstrip().endswith("game abandoned")
    assert max(len(line) for line in text.splitlines()) < 200


def test_a_closed_standard_input_is_one_line(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", None)  # what Python makes of a closed descriptor 0
    assert main(["play", "tic_tac_toe", "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "standard input" in err


@pytest.mark.parametrize("command", ["play tic_tac_toe --vs random --seed 1", "check tic_tac_toe --games 5"])
def test_output_into_a_closed_pipe_ends_quietly(command):
    deckopt = Path(sys.executable).parent / "deckopt"
    # `head -1` closes the pipe after one line; deckopt's status is the pipeline's first
    shell = f"yes 4 | {deckopt} {command} | head -1; exit ${{PIPESTATUS[1]}}"
    done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr and done.stderr == "", done.stderr
