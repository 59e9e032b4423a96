"""Agents that act in games, the lock-step arena, evaluation and training.

    agent = agents.make("heuristic", game, seed=0)
    actions = agent.act(states)          # one legal action per state

Specs: `random`, `heuristic`, `minimax` (Tic Tac Toe), `aggressive` and `defensive` (Durak: the rule
bots a game's heuristics module names in NAMED_AGENTS; LOCM's competition field as `DRAFTER+BATTLER`,
e.g. `coac+greedy`, see agents/heuristics/locm_field.py), `mcts:SIMS[,options]` (see
agents/search/uct.py), `az:MODEL[,sims=N][,c=F]` (PUCT search with a policy+value network, see
agents.alphazero), `pretrained` (the shipped agent of the game), a path to a `.keras`/`.npz` model, or a
run folder (its final model). A comma list of specs or a named panel (`PANELS`) is a panel of agents
(agents.panel): `make_panel` makes it, each deal played by one of its members.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np

from agents.base import Agent, RandomAgent, masked_argmax
from agents.panel import NAMED_PANELS, AgentPanel, trust_figures
from games import Game, UserError

SPEC_HELP = (
    "random, heuristic, minimax (tic_tac_toe), aggressive or defensive (durak), exact, belief, always_draw or "
    "always_skip (exploding_kittens), DRAFTER+BATTLER such as coac+max-attack (locm), mcts:SIMS, "
    "az:MODEL[,sims=N], pretrained, or a model path / run folder; "
    "a panel: a comma list of specs, or evaluator (gwent_lite) or gwent_abilities_evaluator (gwent_abilities)"
)


#: named panels: a name that stands for several shipped agents (deck evolution's evaluators), each deal
#: played by one of them (agents/pretrained/panels.toml, with each one's trust figures). `evaluator` is
#: the Gwent Lite evaluator: three networks trained alike from independent seeds, last on the decks deck
#: evolution explores (agents/pretrained/gwent_lite_evaluator.toml). `gwent_abilities_evaluator` is Gwent
#: Abilities' evaluator: three networks trained alike from independent seeds
#: (agents/pretrained/gwent_abilities.toml, then gwent_abilities_selfplay.toml).
PANELS = {name: tuple(p["members"]) for name, p in NAMED_PANELS.items()}


def split_agent_specs(spec: str) -> list[str]:
    """'pretrained,mcts:100,rollout=heuristic,runs/b' -> ['pretrained', 'mcts:100,rollout=heuristic', 'runs/b']:
    a part with '=' is an option of the spec before it (a comma list of specs is a panel of agents); a
    named panel (`PANELS`) stands for its members."""
    out: list[str] = []
    for part in (p.strip() for p in spec.split(",")):
        if "=" in part and out:
            out[-1] += "," + part
        elif part in PANELS:
            out += PANELS[part]
        elif part:
            out.append(part)
    return out


def make_panel(spec: str, game: Game, seed: int | np.random.Generator | None = 0) -> Agent | AgentPanel:
    """The player named by `spec` for `game`: one agent, or an AgentPanel for a comma list of specs
    or a named panel (every member made by `make` from `seed`). UserError in one line naming the
    agent at fault (a named panel of another game, too)."""
    panel = NAMED_PANELS.get(str(spec).strip())
    if panel is not None and panel["game"] != game.name:
        raise UserError(
            f"agent {str(spec).strip()!r} is the {panel['game']} evaluator panel, not an agent for {game.name}; "
            "choose another agent (heuristic, or a model)"
        )
    specs = split_agent_specs(spec)
    if len(specs) <= 1:
        return _make_one(specs[0] if specs else str(spec), game, seed)
    members = tuple(_make_one(s, game, seed, named=True) for s in specs)
    return AgentPanel(members, tuple(specs), str(spec).strip())


def _make_one(spec: str, game: Game, seed, named: bool = False) -> Agent:
    try:
        return make(spec, game, seed)
    except UserError as exc:
        hint = "; choose another agent (heuristic, or a model)" if spec == "pretrained" else ""
        raise UserError(f"agent {spec!r}: {exc}{hint}" if named or hint else str(exc)) from None
    except ModuleNotFoundError as exc:
        raise UserError(f"agent {spec!r} is not available in this install ({exc}); choose another agent") from None


def make(spec: str, game: Game, seed: int | np.random.Generator | None = 0) -> Agent:
    """The agent named by `spec` for `game`; its own random choices flow from `seed`. One agent only:
    a panel is `make_panel`'s."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    spec = str(spec).strip()
    if len(split_agent_specs(spec)) > 1:
        raise UserError(f"agent {spec!r} is a panel of agents; give one agent here")
    if spec == "random":
        agent = RandomAgent(rng)
    elif spec == "heuristic":
        agent = importlib.import_module("agents.heuristics").make_heuristic(game, rng)
    elif spec == "minimax":
        if game.name != "tic_tac_toe":
            raise UserError(f"agent 'minimax' is only for tic_tac_toe, not {game.name}")
        agent = importlib.import_module("agents.minimax").MinimaxAgent(game, rng)
    elif spec.startswith("mcts"):
        agent = importlib.import_module("agents.search.uct").make_mcts(spec, game, rng)
    elif spec == "az" or spec.startswith("az:"):
        agent = importlib.import_module("agents.alphazero.agent").make_agent(spec, game, rng)
    elif named := importlib.import_module("agents.heuristics").make_named(spec, game, rng):
        agent = named  # a game's own rule bots, e.g. Durak's aggressive and defensive
    elif spec == "pretrained" or spec.endswith((".keras", ".npz")) or Path(spec).is_dir() or "/" in spec:
        agent = importlib.import_module("agents.learned").load_agent(spec, game, rng)
    else:
        raise UserError(f"unknown agent spec {spec!r}; use {SPEC_HELP}")
    agent.spec = spec
    return agent


__all__ = [
    "Agent",
    "AgentPanel",
    "RandomAgent",
    "make",
    "make_panel",
    "masked_argmax",
    "split_agent_specs",
    "trust_figures",
    "SPEC_HELP",
]
