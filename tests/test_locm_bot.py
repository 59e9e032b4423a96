"""`deckopt bot locm SPEC` (agents/locm_bot.py, games/locm_player_view.py): a deckopt agent behind the
LOCM 1.2 referee's protocol. Fed the recorded referee matches' inputs (the matches of
tests/test_locm_referee.py), it rebuilds each input's state whole and answers what the same agent
chooses in deckopt's engine on the true state; hosted in deckopt's own host (`native:CMD`), its games
are legal and won as the same agent wins them in deckopt's process."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import agents
from agents.locm_bot import RefereeBot, turn_commands
from deckopt.cli import main
from games import UserError, make
from games.locm import DRAFT_TURNS, PASS, PICK
from games.locm_player_view import PlayerView
from games.locm_referee import picks_of, read_lines, read_match, referee_input, replay_match
from tests.test_locm_referee import matches

MATCHES = 25  # of the 100 recorded matches


def replay_with_bots(line: str, battler: str) -> tuple[int, list[str]]:
    """Replay a recorded match with a bot for each seat fed the seat's inputs (the draft's picks are
    the recorded ones); at every battle turn the bot's rebuilt state must write the very input it was
    read from, and its reply must be the agent's turn on the true state. (turns compared, differences)."""
    match = read_match(line)
    game = make("locm")
    agent = agents.make(battler, game, seed=0)
    bots = [RefereeBot(agent, seed=p) for p in (0, 1)]
    places = picks_of(match)
    for p in (0, 1):
        inputs = [x for x in match["errors"][str(p)] if x]
        for t in range(DRAFT_TURNS):
            bots[p].view.read(inputs[t], bots[p].rng)
            bots[p].view.note_pick(places[p][t])
    differences = []
    compared = [0]

    def on_turn(state, p, text):
        rebuilt = bots[p].view.read(text, bots[p].rng)
        if referee_input(rebuilt).rstrip() != text.rstrip():
            differences.append(f"input of player {p}: {referee_input(rebuilt)!r} != {text!r}")
        truth = ";".join(turn_commands(agent, state.clone())) or "PASS"
        reply = bots[p].answer(rebuilt)
        if reply != truth:
            differences.append(f"player {p}: bot {reply!r}, engine {truth!r}")
        compared[0] += 1

    assert replay_match(match, game, on_turn).difference is None
    return compared[0], differences


@pytest.mark.parametrize("battler", ["greedy", "max-attack", "agents/pretrained/locm_league3_scorer_0.npz"])
def test_the_bot_answers_recorded_inputs_as_the_agent_plays_the_true_state(battler):
    compared = 0
    for line in matches()[:MATCHES]:
        turns, differences = replay_with_bots(line, battler)
        assert not differences, differences[0]
        compared += turns
    assert compared > 300  # every battle turn of the matches


@pytest.mark.parametrize("spec, games", [("coac+greedy", 40), ("agents/pretrained/locm_league3_scorer_1.npz", 10)])
def test_fresh_games_of_two_bots_are_the_agents_games(spec, games):
    # both seats bots fed referee_input of deckopt's game: every rebuilt state writes that input
    # again and every reply is the agent's choice on the true state, to the games' ends
    game = make("locm")
    agent = agents.make(spec, game, seed=0)
    turns = 0
    for seed in range(games):
        state = game.new_initial_state(seed)
        bots = [RefereeBot(agent, seed=seed + p) for p in (0, 1)]
        while not state.is_terminal():
            p = state.current_player
            text = referee_input(state)
            rebuilt = bots[p].view.read(text, bots[p].rng)
            assert referee_input(rebuilt) == text, (seed, text)
            if state.phase == "draft":
                assert bots[p].answer(rebuilt) == f"PICK {int(agent.act([state])[0]) - PICK}"
                state.apply_action(int(agent.act([state])[0]))
                continue
            truth = turn_commands(agent, state)
            assert bots[p].answer(rebuilt) == (";".join(truth) or "PASS"), (seed, text)
            if not state.is_terminal():
                state.apply_action(PASS)
            turns += 1
    assert turns > games * 10  # battle turns


def test_the_hidden_cards_are_drawn_from_what_the_input_allows():
    match = read_match(matches()[7])
    view = PlayerView()
    inputs = [x for x in match["errors"]["1"] if x]
    places = picks_of(match)[1]
    rng = np.random.default_rng(0)
    for t in range(DRAFT_TURNS):
        state = view.read(inputs[t], rng)
        assert state.current_player == 1 and state.offers() == view.offers[t]
        view.note_pick(places[t])
    for text in inputs[DRAFT_TURNS : DRAFT_TURNS + 8]:
        state = view.read(text, rng)
    # the player's own cards are its picks; the opponent's are one of each draft turn's offers,
    # every card they played among them
    assert sorted(state.picks(1)) == sorted(view.picks)
    theirs = state.picks(0)
    assert all(card in offer for card, offer in zip(theirs, view.offers, strict=True))
    played = list(view.played[0])
    assert played and all(theirs.count(c) >= played.count(c) for c in played)
    assert sorted(state.hand(0) + state.deck(0) + played) == sorted(theirs)


def test_inputs_out_of_order_end_in_one_clear_error():
    match = read_match(matches()[0])
    inputs = [x for x in match["errors"]["0"] if x]
    with pytest.raises(UserError, match="before the 30 turns of the draft"):
        PlayerView().read(inputs[DRAFT_TURNS], np.random.default_rng(0))
    with pytest.raises(UserError, match="not a LOCM referee input"):
        PlayerView().read("hello\n", np.random.default_rng(0))
    assert read_lines(iter(inputs[0].splitlines(keepends=True)[:4])) is None  # the input ended mid-way


def test_deckopt_bot_plays_a_recorded_game_on_stdin():
    match = read_match(matches()[2])
    inputs = [x for x in match["errors"]["0"] if x]
    text = "".join(inputs[: DRAFT_TURNS + 3])
    run = subprocess.run(
        [sys.executable, "-m", "deckopt", "bot", "locm", "coac+greedy"], input=text, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    replies = run.stdout.splitlines()
    assert len(replies) == DRAFT_TURNS + 3
    assert all(r in ("PICK 0", "PICK 1", "PICK 2") for r in replies[:DRAFT_TURNS])
    bad = subprocess.run(
        [sys.executable, "-m", "deckopt", "bot", "locm", "no-such-agent"], input="", capture_output=True, text=True
    )
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_the_bot_hosted_in_deckopt_plays_legal_games_as_the_agent_does_in_process(capsys):
    # slack: a loaded test machine must not lose games on time; the late replies are counted anyway
    bot = f"native:{sys.executable} -m deckopt bot locm coac+greedy,slack=20"
    assert main(["match", "locm", bot, "greedy", "--games", "6", "--seed", "3", "--json"]) == 0
    hosted_match = json.loads(capsys.readouterr().out)
    hosted = hosted_match["hosted"]["0"]
    assert hosted["games"] == 6 and hosted["failures"] == [] and hosted["skipped"] == 0
    assert hosted["first_turns"]["replies"] == 6 * 2 and hosted["other_turns"]["replies"] > 6 * 30
    # drafting and battling as coac+greedy does in deckopt's process: every game's winner the same
    assert main(["match", "locm", "coac+greedy", "greedy", "--games", "6", "--seed", "3", "--json"]) == 0
    in_process = json.loads(capsys.readouterr().out)

    def wins(result):
        return [(a["wins"], a["by_seat"]) for a in result["agents"]]

    assert wins(hosted_match) == wins(in_process)


def test_a_panel_plays_its_member_of_the_seed():
    panel = agents.make_panel("locm_league3_scorer_panel", make("locm"), seed=0)
    assert [RefereeBot(panel, seed=s).agent for s in (0, 1, 2, 3)] == [*panel.agents, panel.agents[0]]
