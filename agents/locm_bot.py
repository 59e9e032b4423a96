"""A deckopt LOCM agent as a competition bot: it reads the LOCM 1.2 referee's input of each turn and
answers in the referee's syntax, so the agent plays in the competition's referee, gym-locm's host,
CodinGame or deckopt's own host (`native:CMD`) like any other bot (`deckopt bot locm SPEC`).

    bot = RefereeBot(agents.make(spec, game, seed=0), seed=0)
    reply = bot.reply(text)                 # "PICK 1", or "SUMMON 7 0;ATTACK 3 -1", or "PASS"

Each input is rebuilt into a state of deckopt's engine (games.locm_player_view.PlayerView: what the
player cannot see, the opponent's hand and deck and both decks' order, is determinised from the bot's
seed). On a draft turn the agent picks on that state; on a battle turn it acts on it until it passes
(or the game ends), each action played on the state before the next is asked for, and the turn's
actions are written as the referee's commands joined by ';'. A panel plays with one member per game
(`member_of_deal` of the seed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from agents.base import Agent
from agents.panel import AgentPanel, member_of_deal
from games.locm import PASS, PICK, LocmState
from games.locm_player_view import PlayerView
from games.locm_referee import command_of, read_lines


def turn_commands(agent: Agent, state: LocmState) -> list[str]:
    """The referee's commands of `agent`'s turn from the battle state `state`, which it changes: the
    agent acts until it passes or the turn or the game ends."""
    p = state.current_player
    commands = []
    while not state.is_terminal() and state.current_player == p:
        action = int(agent.act([state])[0])
        if action == PASS:
            break
        commands.append(command_of(state, action))
        state.apply_action(action)
    return commands


class RefereeBot:
    """One game of a deckopt agent (an Agent, or a panel: its member for `seed`) behind the referee's
    protocol (see the module's text)."""

    def __init__(self, agent: Agent | AgentPanel, seed: int = 0):
        if isinstance(agent, AgentPanel):
            agent = agent.agents[member_of_deal(seed, 0, len(agent.agents))]
        self.agent = agent
        self.rng = np.random.default_rng(seed)
        self.view = PlayerView()

    def reply(self, text: str) -> str:
        """The reply to one referee input (the inputs of one game, in order)."""
        return self.answer(self.view.read(text, self.rng))

    def answer(self, state: LocmState) -> str:
        """The reply on the state `self.view` rebuilt from the latest input (a draft turn's pick is
        noted in the view)."""
        if state.phase == "draft":
            place = int(self.agent.act([state])[0]) - PICK
            self.view.note_pick(place)
            return f"PICK {place}"
        return ";".join(turn_commands(self.agent, state)) or "PASS"

    def play(self, lines: Iterable[str], write: Callable[[str], None]) -> int:
        """Answer every input of `lines` (text lines with their newlines) with `write(reply + newline)`
        until the input ends; the number of turns answered."""
        lines = iter(lines)
        turns = 0
        while (text := read_lines(lines)) is not None:
            write(self.reply(text) + "\n")
            turns += 1
        return turns
