"""The host of native LOCM bots (agents/native.py, `native:CMD`): bots the tests write (small Python
scripts speaking the referee's protocol) play in deckopt's engine; a crashed, hung, silent or
babbling bot loses its game with one line and leaves no process behind."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.arena import play_match
from agents.parallel import Mapper
from agents.spec_match import play_spec_match
from deckopt.cli import main
from games import UserError, make
from games.locm import PICK
from games.locm_referee import referee_input

#: a deterministic bot: picks the first card; summons what it can afford, left lane; attacks the
#: opponent with each creature it had; then `MISBEHAVE`, run before its reply on battle turn `AT`
BOT = """
import os, subprocess, sys, time
AT = {at}
turn = 0
def read():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    sys.stderr.write(line)
    return line
while True:
    me = read().split(); read()
    _, n = map(int, read().split())
    for _ in range(n):
        read()
    cards = [read().split() for _ in range(int(read()))]
    sys.stderr.write("--\\n")
    if me[1] == "0":
        print("PICK 0", flush=True)
        continue
    turn += 1
    if turn == AT:
{misbehave}
    mana, out = int(me[1]), []
    for c in cards:
        if c[2] == "0" and c[3] == "0" and int(c[4]) <= mana:
            out.append("SUMMON %s 0" % c[1]); mana -= int(c[4])
    out += ["ATTACK %s -1" % c[1] for c in cards if c[2] == "1"]
    print(";".join(out) or "PASS", flush=True)
"""

MISBEHAVE = {
    "fine": "        pass",
    "crash": "        sys.exit(3)",
    "hang": "        open(os.environ['PIDS'], 'a').write(str(os.getpid()) + '\\n'); time.sleep(1000)",
    "silent": "        open(os.environ['PIDS'], 'a').write(str(os.getpid()) + '\\n'); os.close(1); time.sleep(1000)",
    "child": "        child = subprocess.Popen(['sleep', '1000'])\n"
    "        open(os.environ['PIDS'], 'a').write('%d\\n%d\\n' % (os.getpid(), child.pid)); time.sleep(1000)",
    "babble": "        print('WAIT', flush=True); continue",
    "slow": "        time.sleep(0.25)",
}


def bot(tmp_path: Path, kind: str = "fine", at: int = 2) -> str:
    path = tmp_path / f"{kind}.py"
    path.write_text(BOT.format(at=at, misbehave=MISBEHAVE[kind]))
    return f"native:{sys.executable} {path}"


@pytest.fixture
def pids(tmp_path, monkeypatch):
    path = tmp_path / "pids"
    monkeypatch.setenv("PIDS", str(path))
    return path


def gone(pid: int, within: float = 30.0) -> bool:
    """Wait (up to `within` seconds) for process `pid` to be gone (reaped, or a zombie no one runs)."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def test_a_bot_plays_whole_games_and_gets_the_referees_input(tmp_path):
    game = make("locm")
    log = tmp_path / "stderr.txt"
    native = agents.make(bot(tmp_path) + f",stderr={log}", game)
    result = play_match(game, [native, agents.make("greedy", game)], 4, seed=3)
    native.close()
    assert result.agents[0].games == 4 and not native.stats.failures
    replies = len(native.stats.first_replies) + len(native.stats.replies)
    assert native.stats.games == 4 and len(native.stats.first_replies) == 8 and replies > 4 * 35
    assert native.stats.skipped > 0  # attacks of creatures summoned this turn: cancelled, as by the referee
    inputs = log.read_text().split("--\n")[:-1]
    assert len(inputs) == replies  # stderr kept every input apart from the replies
    # the first game's inputs are the referee's, turn by turn: replay it from its seed
    state = game.new_initial_state(np.random.default_rng([3, 0]))
    assert inputs[0] == referee_input(state)


def test_the_same_seed_plays_the_same_games(tmp_path):
    game = make("locm")
    runs = []
    for _ in range(2):
        players = [agents.make(bot(tmp_path), game), agents.make("max-attack", game)]
        result = play_match(game, players, 4, seed=9)
        players[0].close()
        runs.append((result.steps, [a.as_dict() for a in result.agents]))
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    "kind, why",
    [
        ("crash", "the bot exited with code 3"),
        ("hang", "the bot gave no reply within 200 ms"),
        ("silent", "the bot closed its output"),
        ("child", "the bot gave no reply within 200 ms"),
        ("babble", "invalid action name 'WAIT'"),
    ],
)
def test_a_failing_bot_loses_its_game_in_one_line_and_leaves_no_process(tmp_path, pids, kind, why):
    game = make("locm")
    native = agents.make(bot(tmp_path, kind, at=3), game)
    result = play_match(game, [native, agents.make("greedy", game)], 2, seed=1)
    native.close()
    assert result.agents[0].losses == 2 and result.agents[1].wins == 2
    assert len(native.stats.failures) == 2
    for line in native.stats.failures:
        assert "\n" not in line and f"battle turn 3: {why}" in line
    for pid in pids.read_text().split() if pids.exists() else []:
        assert gone(int(pid)), f"process {pid} of the {kind} bot is still running"


def test_slack_lets_a_late_reply_through_and_counts_it(tmp_path):
    game = make("locm")
    strict = agents.make(bot(tmp_path, "slow"), game)
    play_match(game, [strict, agents.make("greedy", game)], 2, seed=1)
    strict.close()
    assert len(strict.stats.failures) == 2 and "gave no reply within 200 ms" in strict.stats.failures[0]
    loose = agents.make(bot(tmp_path, "slow") + ",slack=20", game)
    play_match(game, [loose, agents.make("greedy", game)], 2, seed=1)
    loose.close()
    assert not loose.stats.failures and loose.stats.late == 2 and "limits x20" in loose.stats.summary("slow")


def test_a_match_against_a_bot_gives_the_same_results_with_two_workers(tmp_path):
    game = make("locm")
    specs = [bot(tmp_path), "greedy"]
    results = []
    for jobs in (1, 2):
        with Mapper(jobs) as pmap:
            result, hosted = play_spec_match(game, specs, 20, 5, pmap)
        results.append([a.as_dict() for a in result.agents])
        assert [i for i, _ in hosted] == [0] and hosted[0][1].games == 20
    assert results[0] == results[1]


def test_match_prints_the_bots_timing_and_each_lost_game(tmp_path, capsys, pids):
    assert main(["match", "locm", bot(tmp_path, "crash", at=1), "greedy", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert "2 games lost by a failure; limits x1" in out
    assert out.count("lost a game as player") == 2 and "battle turn 1: the bot exited with code 3" in out


@pytest.mark.parametrize(
    "spec, game, message",
    [
        ("native:no-such-program-here", "locm", "no program 'no-such-program-here'"),
        ("native:", "locm", "give the bot's command"),
        ("native:python3 x.py,slack=0.5", "locm", "slack must be a number from 1"),
        ("native:python3 x.py,speed=2", "locm", "unknown option 'speed=2'"),
        ("native:python3 x.py", "tic_tac_toe", "they play locm, not tic_tac_toe"),
    ],
)
def test_bad_native_specs_are_refused_in_one_line(spec, game, message):
    with pytest.raises(UserError, match=message.replace("(", r"\(")):
        agents.make_panel(spec, make(game))


def test_no_bot_outlives_its_host_process(tmp_path, pids):
    """A host killed outright (kill -9) takes its bots with it."""
    script = tmp_path / "host.py"
    script.write_text(
        "import agents, games\nfrom agents.arena import play_match\n"
        "g = games.make('locm')\n"
        f"bot = agents.make({bot(tmp_path, 'hang', at=1) + ',slack=1000'!r}, g)\n"
        "play_match(g, [bot, agents.make('greedy', g)], 2)\n"
    )
    root = Path(__file__).parent.parent
    host = subprocess.Popen([sys.executable, str(script)], cwd=root, env={**os.environ, "PYTHONPATH": str(root)})
    end = time.monotonic() + 60
    while not (pids.exists() and pids.read_text().strip()) and time.monotonic() < end:
        time.sleep(0.05)
    pid = int(pids.read_text().split()[0])
    os.kill(host.pid, 9)
    host.wait()
    assert gone(pid)


def test_a_bot_behind_a_deckopt_drafter_battles_the_drafted_deck(tmp_path):
    game = make("locm")
    log = tmp_path / "stderr.txt"
    player = agents.make("coac+" + bot(tmp_path) + f",stderr={log}", game)
    result = play_match(game, [player, agents.make("max-attack", game)], 1, seed=3)
    player.battler.close()
    assert result.agents[0].games == 1 and not player.battler.stats.failures
    drafts = [text.splitlines()[4:] for text in log.read_text().split("--\n")[:-1] if text.split()[1] == "0"]
    assert len(drafts) == 30
    offered = [{line.split()[0] for line in lines} for lines in drafts]
    assert all(len(cards) == 1 for cards in offered)  # one card, three times: whatever the bot picks
    # coac's picks for seat 0 on the game's offers
    state, coac = game.new_initial_state(np.random.default_rng([3, 0])), agents.make("coac", game)
    picked = []
    while state.phase == "draft":
        action = int(coac.act([state])[0])
        if state.current_player == 0:
            picked.append(str(state.offers()[action - PICK]))
        state.apply_action(action)
    assert [cards.pop() for cards in offered] == picked
