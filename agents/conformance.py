"""The agents' part of the conformance check (`deckopt check GAME`): what a game's facts promise the
agents and commands (games.base.GameFacts) holds.

    result = check_facts(game, num_games=20)     # a games.conformance.CheckResult

- every rule agent the game has by name (agents/heuristics: ours, or a plug-in's `GameFacts.bots`) is
  made from a seed and plays whole games against `random`, seats rotated, choosing legal actions only;
- the opponents of `deckopt eval` (`eval_opponents`) and the default agent (`default_agent`) are
  agent specs that `agents.make_panel` makes for the game;
- `perfect_play` names a check of agents/perfect_play.py, and `players` is a range that holds the
  config's number of players.
"""

from __future__ import annotations

import dataclasses

import numpy as np

import agents
from agents.arena import play_match
from agents.base import RandomAgent
from agents.heuristics import bots
from agents.perfect_play import CHECKS as PERFECT_PLAY_CHECKS
from games import Game, UserError
from games.conformance import FAILED, PASSED, CheckResult, ConformanceFailure, need

NAME = "facts and rule agents"
#: games each rule agent plays against random (seats rotated)
GAMES_PER_AGENT = 4


def _facts_hold(game: Game, num_games: int) -> str:
    facts = game.facts
    per_agent = max(game.num_players, min(num_games, GAMES_PER_AGENT))
    named, other_config = bots(game), []
    for k, (name, bot) in enumerate(named.items()):
        try:
            agent = bot(game, np.random.default_rng(k))
        except UserError:  # a bot for another config of the game (e.g. exact: open hands only)
            other_config.append(name)
            continue
        field = [RandomAgent(np.random.default_rng([k, seat])) for seat in range(game.num_players - 1)]
        try:
            result = play_match(game, [agent, *field], per_agent, seed=k)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - an illegal move, a crash or an exit
            raise ConformanceFailure(f"rule agent {name!r}: {type(exc).__name__}: {exc}") from None
        need(result.games == per_agent, f"rule agent {name!r} finished {result.games} of {per_agent} games")
    for role, specs in (("eval_opponents", facts.eval_opponents), ("default_agent", [facts.default_agent])):
        for spec in (s for s in specs if s is not None):
            try:
                agents.make_panel(spec, game, seed=0)
            except UserError as exc:
                raise ConformanceFailure(f"{role}: {exc}") from None
    need(
        facts.perfect_play is None or facts.perfect_play in PERFECT_PLAY_CHECKS,
        f"perfect_play {facts.perfect_play!r} is none of {', '.join(PERFECT_PLAY_CHECKS)}",
    )
    if facts.players is not None:
        low, high = facts.players
        settings = {f.name for f in dataclasses.fields(game.config_class)}
        need("num_players" in settings, "players is a range, but num_players is not a setting of the config")
        need(low <= game.num_players <= high, f"{game.num_players} players, outside players {facts.players}")
    played = [name for name in named if name not in other_config]
    shown = ", ".join(played) if len(played) <= 6 else f"{', '.join(played[:6])}, ... ({len(played)})"
    detail = f"rule agents {shown or 'none'}: {per_agent} games each"
    if other_config:
        detail += f" ({', '.join(other_config)}: for another config)"
    return detail + f"; default agent {facts.default_agent or 'none'}"


def check_facts(game: Game, num_games: int) -> CheckResult:
    """The game's facts and rule agents (see the module's docstring) over a few games per agent."""
    try:
        detail = _facts_hold(game, num_games)
    except ConformanceFailure as exc:
        return CheckResult(NAME, FAILED, str(exc))
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a rule agent or fact that crashes fails the check
        return CheckResult(NAME, FAILED, f"raised {type(exc).__name__}: {exc}")
    return CheckResult(NAME, PASSED, detail)
