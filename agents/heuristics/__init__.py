"""One sensible hand-written agent per game (`agents.make("heuristic", game)`), and the named rule bots a
game's module may offer in a `NAMED_AGENTS` dict (Durak's `aggressive` and `defensive`)."""

from __future__ import annotations

import importlib

import numpy as np

from agents.base import Agent
from games import Game, UserError


def make_heuristic(game: Game, rng: np.random.Generator) -> Agent:
    """The game's own `heuristic_agent(rng)` if it has one (a plug-in game), else ours."""
    own = getattr(game, "heuristic_agent", None)
    if callable(own):
        return own(rng)
    try:
        module = importlib.import_module(f"agents.heuristics.{game.name}")
    except ModuleNotFoundError:
        raise UserError(f"no heuristic agent for {game.name}") from None
    return module.HeuristicAgent(game, rng)


def make_named(spec: str, game: Game, rng: np.random.Generator) -> Agent | None:
    """The rule bot `spec` that the game's heuristics module names in NAMED_AGENTS, or None."""
    name = f"agents.heuristics.{game.name}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        return None
    cls = getattr(module, "NAMED_AGENTS", {}).get(spec)
    return None if cls is None else cls(game, rng)
