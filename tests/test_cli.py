"""The command line: contract shapes, exit codes, one-line errors."""

import io
import json
import subprocess
import sys

import pytest

from deckopt.cli import main


def run_cli(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_match_json_shape(capsys):
    code, out, err = run_cli(
        ["match", "tic_tac_toe", "random", "random", "--games", "20", "--seed", "3", "--json"], capsys
    )
    assert code == 0
    obj = json.loads(out)  # exactly one JSON object
    assert obj["game"] == "tic_tac_toe" and obj["games"] == 20 and obj["seed"] == 3
    assert [a["spec"] for a in obj["agents"]] == ["random", "random"]
    for a in obj["agents"]:
        assert {"spec", "wins", "draws", "losses", "win_rate", "ci95"} <= set(a)
        assert a["wins"] + a["draws"] + a["losses"] == 20


def test_match_and_eval_take_a_named_panel(capsys):
    code, out, _ = run_cli(["match", "gwent_lite", "evaluator", "heuristic", "--games", "20", "--json"], capsys)
    assert code == 0
    obj = json.loads(out)
    assert [a["spec"] for a in obj["agents"]] == ["evaluator", "heuristic"]
    assert obj["agents"][0]["wins"] + obj["agents"][0]["draws"] + obj["agents"][0]["losses"] == 20
    code, out, _ = run_cli(["eval", "gwent_lite", "evaluator", "--vs", "random", "--games", "10", "--json"], capsys)
    assert code == 0
    report = json.loads(out)
    assert report["agents"][0]["spec"] == "evaluator" and report["agents"][0]["games"] == 10


def test_tournament_takes_a_comma_list_panel(tmp_path, capsys):
    args = ["tournament", "tic_tac_toe", "random,minimax", "random", "--games", "4", "--out", str(tmp_path / "t")]
    code, out, _ = run_cli([*args, "--json"], capsys)
    assert code == 0
    rows = json.loads(out)["agents"]
    assert [a["spec"] for a in rows] == ["random,minimax", "random"] and rows[0]["games"] == 4


@pytest.mark.parametrize(
    "args, needle",
    [
        (["match", "gwent_lite", "evaluator,nobody", "heuristic", "--games", "2"], "agent 'nobody': unknown agent"),
        (["eval", "gwent_lite", "heuristic", "--vs", "heuristic,nobody", "--games", "2"], "agent 'nobody'"),
        (["match", "no_such_game", "random", "random", "--games", "2"], "unknown game"),
        (["match", "tic_tac_toe", "random", "wizard", "--games", "2"], "gwent_abilities_evaluator"),
        (["match", "tic_tac_toe", "random", "random", "random", "--games", "2"], "seats 2"),
        (["match", "tic_tac_toe", "random", "random", "--games", "2", "--players", "4"], "--players"),
        (["match", "tic_tac_toe", "random", "random", "--games", "2", "--deck", "x.toml"], "--deck"),
    ],
)
def test_user_errors_are_one_line_exit_2(args, needle, capsys):
    code, out, err = run_cli(args, capsys)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err


def test_bad_option_is_one_line_exit_2():
    proc = subprocess.run(
        [sys.executable, "-m", "deckopt", "match", "tic_tac_toe", "random", "random", "--games", "zero"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_play_reprompts_on_bad_input_and_finishes():
    from argparse import Namespace

    from deckopt.commands import play

    # the person plays 0,1,2 along the top row; junk and illegal entries are asked again
    typed = io.StringIO("junk\n0\n0\n1\n3\n2\n5\n6\n7\n8\n")
    out = io.StringIO()
    args = Namespace(game="tic_tac_toe", vs="random", seat=0, seed=1, players=None, deck=None)
    assert play.run(args, prompt_in=typed, out=out) == 0
    text = out.getvalue()
    assert "'junk' is not a legal move" in text
    assert "game over" in text


def test_play_quits_on_eof():
    from argparse import Namespace

    from deckopt.commands import play

    out = io.StringIO()
    args = Namespace(game="tic_tac_toe", vs="random", seat=1, seed=1, players=None, deck=None)
    assert play.run(args, prompt_in=io.StringIO(""), out=out) == 0
    assert "abandoned" in out.getvalue()


def handles(pid: int, signum: int) -> bool:
    """Whether process `pid` has installed a handler for `signum` (Linux: SigCgt in /proc/PID/status)."""
    for line in open(f"/proc/{pid}/status").read().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return False


@pytest.mark.faults
def test_sigterm_stops_any_command_like_ctrl_c():
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "deckopt", "match", "connect_four", "mcts:3000", "mcts:3000", "--games", "1000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not handles(proc.pid, signal.SIGTERM):  # past start-up: its handler is installed
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    time.sleep(1.0)  # inside the games
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert [line for line in err.splitlines() if line.strip()] == ["deckopt match: interrupted"]


def test_set_passes_game_settings(capsys):
    import json

    from deckopt.cli import main

    argv = ["match", "exploding_kittens", "exact", "exact", "--games", "40", "--set", "open_hands=true", "--json"]
    assert main(argv) == 0

    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 40 and report["agents"][0]["wins"] + report["agents"][1]["wins"] == 40


@pytest.mark.faults
def test_an_interrupt_that_lands_in_a_finaliser_still_stops_the_command(monkeypatch, capsys):
    """Ctrl-C while Python runs a finaliser raises KeyboardInterrupt there, where Python only prints
    it: the command is interrupted all the same (exit 130, one line), not left running."""
    import time

    import deckopt.commands.eval as eval_command

    class InterruptedWhileFinalised:
        def __del__(self):
            raise KeyboardInterrupt

    def command(args):
        InterruptedWhileFinalised()  # finalised at once, the interrupt swallowed there
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # ordinary work, where the interrupt is delivered again
            pass
        return 0

    monkeypatch.setattr(eval_command, "run", command)
    started = time.monotonic()
    code, _, err = run_cli(["eval", "tic_tac_toe", "random", "--games", "1"], capsys)
    assert code == 130 and err.strip() == "deckopt eval: interrupted"
    assert time.monotonic() - started < 10


def test_one_spec_plays_every_seat_as_the_help_says(capsys):
    code, out, _ = run_cli(["match", "tic_tac_toe", "random", "--games", "8", "--seed", "2", "--json"], capsys)
    assert code == 0
    result = json.loads(out)
    assert [a["spec"] for a in result["agents"]] == ["random"] and result["games"] == 8
    assert set(result["agents"][0]["by_seat"]) == {"0", "1"}  # the one spec sat in both seats


def test_the_command_line_starts_without_the_archive_s_scientific_stack():
    probe = "import sys, deckopt.cli; print(sorted(m for m in ('ribs', 'pandas', 'sklearn') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[]"]
