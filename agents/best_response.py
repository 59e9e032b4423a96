"""Approximate best responses: a learner trained against a frozen agent, and its score against it.

Approximate exploitability (Timbers et al. 2022, "Approximate Exploitability: Learning a Best
Response", IJCAI) measures how much a learner can win against a fixed agent in a stated budget:
the agent is frozen in every other seat of every training game (`opponent_mix = {SPEC: 1}`; a
panel's members share the games evenly), only the learner's own decisions are learned from, and the
learner then plays the agent with seats rotated and chance mirrored. A score near 0.5 says the
budget found no weakness; the score is a lower bound on the agent's true exploitability.

The learner is the agent's own where the agent is a learned network (`start_learner`: an afterstate
value network's is the afterstate learner, any other's the DQN) and starts from that network (the
agent fine-tuned against itself finds weaknesses fastest; an action scorer's is the afterstate
network it was distilled from, `best_response_start`); else it is a DQN from scratch.
`best_response_config` builds its config from a recipe file; the learner's `train`
(agents.learners) runs it; `match_score` measures it on any game.
"""

from __future__ import annotations

from pathlib import Path

from agents import split_agent_specs
from agents.afterstate_value.trainer import initial_weights as initial_afterstate_weights
from agents.arena import play_match, record_dict
from agents.dqn.trainer import initial_weights as initial_dqn_weights
from agents.heuristics import bot_owners
from agents.learned import load_network
from agents.learners import DEFAULT_LEARNER, learner
from games.base import Game
from games.config import need

#: agent specs that hold no network a DQN can start from
_NOT_NETWORKS = ("random", "heuristic", "minimax", "exact", "belief")


def _members(spec: str) -> list[str]:
    members = split_agent_specs(spec)
    need(bool(members), f"no agent in {spec!r}")
    return members


def start_model(spec: str) -> str:
    """The model a best response against `spec` starts from: the first member's network when it is
    one (a model path, a run folder or `pretrained`), else none (`""`: a search or a rule agent)."""
    first = _members(spec)[0]
    if first in _NOT_NETWORKS or bot_owners(first) or ":" in first.split("/")[-1]:
        return ""
    return first


def check_start_model(config, game: Game, algo: str) -> None:
    """UserError in one line unless `config.init_model` is a network learner `algo` can start from."""
    (initial_afterstate_weights if algo == "afterstate" else initial_dqn_weights)(config, game)


def start_learner(init: str, game: Game) -> str:
    """The learner (agents.learners) of a best response starting from the model `init`: the
    afterstate learner for an afterstate value network, else the DQN (also from scratch, `""`)."""
    if not init:
        return DEFAULT_LEARNER
    _, metadata = load_network(init, game)
    return "afterstate" if metadata.get("afterstate") else DEFAULT_LEARNER


def best_response_start(spec: str, init: str | None, game: Game) -> tuple[str, str]:
    """(start model, learner) of a best response against `spec`: `init` when given (`""`: from
    scratch), else `start_model(spec)`; an action scorer (agents/action_scores.py) has no learner that
    learns from results, so its best response starts from the afterstate network it was distilled
    from (its metadata's `teacher`), with the afterstate learner."""
    start = start_model(spec) if init is None else init
    if start:
        _, metadata = load_network(start, game)
        if metadata.get("action_scores"):
            need(bool(metadata.get("teacher")), f"{start} is an action scorer that names no teacher to start from")
            start = metadata["teacher"]
    return start, start_learner(start, game)


def best_response_config(
    game_name: str,
    spec: str,
    path: str | Path | None = None,
    init: str | None = None,
    game_config: dict | None = None,
    seed: int = 0,
    algo: str = DEFAULT_LEARNER,
):
    """The config of learner `algo` (agents.learners) for a best response against `spec`: the
    per-game defaults < the recipe file at `path` < the frozen agent in every other seat of every
    game (`opponent_mix`, shared evenly by a panel's members), the start model (`init`; None:
    `start_model(spec)`; `""`: from scratch), the game settings `game_config` (merged over the
    recipe's) and `seed`."""
    members = _members(spec)
    load_config = learner(algo).load_config
    base = load_config(game_name, path)
    mix = {m: 1.0 / len(members) for m in members}
    settings = dict(base.game_config)
    settings.update(game_config or {})
    return load_config(
        game_name,
        path,
        opponent_mix=mix,
        init_model=start_model(spec) if init is None else init,
        game_config=settings,
        seed=seed,
    )


def match_score(game: Game, best_response, agent, games: int, seed: int, progress=None) -> dict:
    """The best response against `agent` over `games` games, seats rotated and chance mirrored
    (agents.arena.play_match): its record and score with a 95 % interval."""
    result = play_match(game, [best_response, agent], games, seed=seed, progress=progress, what="best response")
    return record_dict(result.agents[0].record)
