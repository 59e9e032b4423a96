"""One sensible hand-written agent per game (`agents.make("heuristic", game)`)."""

from __future__ import annotations

import importlib

import numpy as np

from agents.base import Agent
from games import Game, UserError


def make_heuristic(game: Game, rng: np.random.Generator) -> Agent:
    try:
        module = importlib.import_module(f"agents.heuristics.{game.name}")
    except ModuleNotFoundError:
        raise UserError(f"no heuristic agent for {game.name}") from None
    return module.HeuristicAgent(game, rng)
