"""The rule agents of every game by name: each game's `heuristic` (one sensible hand-written agent) and
its named bots (Durak's `aggressive` and `defensive`, Exploding Kittens' `exact`, LOCM's competition
field and drafter files, ...), each `callable(game, rng) -> Agent`. Ours are registered in BOTS below; a plug-in game
declares its own in its facts (`GameFacts.bots`, docs/plugins.md). `agents.make(name, game)` makes any
of them."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from agents.base import Agent
from agents.heuristics import (
    connect_four,
    durak,
    exploding_kittens,
    gwent_abilities,
    gwent_lite,
    incan_gold,
    locm,
    tic_tac_toe,
)
from agents.minimax import MinimaxAgent
from games import Game, UserError
from games.registry import is_ours

Bot = Callable[[Game, np.random.Generator], Agent]

#: our games' rule agents by name
BOTS: dict[str, Mapping[str, Bot]] = {
    "tic_tac_toe": {"heuristic": tic_tac_toe.HeuristicAgent, "minimax": MinimaxAgent},
    "connect_four": {"heuristic": connect_four.HeuristicAgent},
    "incan_gold": {"heuristic": incan_gold.HeuristicAgent},
    "gwent_lite": {"heuristic": gwent_lite.HeuristicAgent},
    "durak": {"heuristic": durak.HeuristicAgent, **durak.NAMED_AGENTS},
    "exploding_kittens": {"heuristic": exploding_kittens.HeuristicAgent, **exploding_kittens.NAMED_AGENTS},
    "gwent_abilities": {"heuristic": gwent_abilities.HeuristicAgent},
    "locm": locm.BOTS,
}


def bots(game: Game) -> Mapping[str, Bot]:
    """The rule agents of `game` by name: ours from BOTS, a plug-in's from its facts."""
    return BOTS[game.name] if is_ours(game.name) else game.facts.bots


def bot_owners(name: str) -> list[str]:
    """Our games that have a rule agent called `name` (for the message when another game has none)."""
    return [game for game, named in BOTS.items() if name in named]


def make_heuristic(game: Game, rng: np.random.Generator) -> Agent:
    """The game's `heuristic` agent; UserError if it has none."""
    bot = bots(game).get("heuristic")
    if bot is None:
        raise UserError(f"no heuristic agent for {game.name}")
    return bot(game, rng)


def make_named(spec: str, game: Game, rng: np.random.Generator) -> Agent | None:
    """The rule agent `spec` of `game`, or None if it has none by that name."""
    bot = bots(game).get(spec)
    return None if bot is None else bot(game, rng)
