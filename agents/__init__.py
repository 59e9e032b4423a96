"""Agents that act in games, the lock-step arena, evaluation and training.

    agent = agents.make("heuristic", game, seed=0)
    actions = agent.act(states)          # one legal action per state

Specs: `random`, `heuristic`, a game's named rule agents (agents/heuristics: `minimax` for Tic Tac Toe,
`aggressive` and `defensive` for Durak, LOCM's competition field as `DRAFTER+BATTLER`, e.g.
`coac+greedy`, see agents/heuristics/locm_field.py; a plug-in's from its `GameFacts.bots`),
`native:CMD[,slack=F][,stderr=FILE]` (a LOCM competition bot run as its own process, agents/native.py),
`mcts:SIMS[,options]` (see
agents/search/uct.py), `az:MODEL[,sims=N][,c=F]` (PUCT search with a policy+value network, see
agents.alphazero), `turn:MODEL` (a search over the rest of the mover's turn judged by the afterstate
value network MODEL, agents/turn_search.py), `pretrained` (the shipped agent of the game), a path to a
`.keras`/`.npz` model, or a run folder (its final model). A comma list of specs or a named panel
(`PANELS`) is a panel of agents (agents.panel): `make_panel` makes it, each deal played by one of its
members.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.afterstate import AfterstateAgent
from agents.alphazero.agent import make_agent as make_az_agent
from agents.base import Agent, RandomAgent, masked_argmax
from agents.draft_battle import DraftThenBattle, drafter_and_battler
from agents.heuristics import BOTS, bot_owners, bots, make_heuristic, make_named
from agents.learned import load_agent
from agents.native import make_native
from agents.panel import (
    NAMED_PANELS,
    PANEL_MEMBERS,
    AgentPanel,
    is_panel_file,
    named_panels_help,
    read_panel_file,
    trust_figures,
)
from agents.search.evaluators import make_value_fn
from agents.search.mcts_spec import parse_spec as parse_mcts_spec
from agents.search.uct import MCTSAgent
from agents.turn_search import TurnSearchAgent
from games import Game, UserError


def _rule_agents_help() -> str:
    """Our games' named rule agents, a few per game (LOCM's field: its pattern)."""
    parts = []
    for game, named in BOTS.items():
        names = [name for name in named if name != "heuristic" and "+" not in name]
        if any("+" in name for name in named):
            names = ["DRAFTER+BATTLER such as coac+max-attack"]
        if names:
            parts.append(f"{' or '.join(names[:4])}{', ...' if len(names) > 4 else ''} ({game})")
    return ", ".join(parts)


SPEC_HELP = (
    f"random, heuristic, a game's named rule agents: {_rule_agents_help()} or a plug-in's; native:CMD (locm), "
    "mcts:SIMS, az:MODEL[,sims=N], turn:MODEL, pretrained, or a model path / run folder; a panel: a comma list of "
    "specs, a panel file (PANEL.toml, as `deckopt evaluator` writes), or " + named_panels_help()
)


#: named panels: a name that stands for several shipped agents (deck evolution's evaluators), each deal
#: played by one of them (agents/pretrained/panels.toml: each panel's game, members, recipe and trust
#: figures).
PANELS = PANEL_MEMBERS


def split_agent_specs(spec: str) -> list[str]:
    """'pretrained,mcts:100,rollout=heuristic,runs/b' -> ['pretrained', 'mcts:100,rollout=heuristic', 'runs/b']:
    a part with '=' is an option of the spec before it (a comma list of specs is a panel of agents); a
    named panel (`PANELS`) or a panel file (agents.panel.read_panel_file) stands for its members, also
    as the battler of a LOCM `DRAFTER+PANEL` (each member behind the drafter: agents.draft_battle)."""
    out: list[str] = []
    for part in (p.strip() for p in spec.split(",")):
        drafter, plus, battler = part.rpartition("+")
        if "=" in part and out:
            out[-1] += "," + part
        elif part in PANELS:
            out += PANELS[part]
        elif is_panel_file(part):
            out += read_panel_file(part)["members"]
        elif plus and drafter and (battler in PANELS or is_panel_file(battler)):
            out += [f"{drafter}+{member}" for member in split_agent_specs(battler)]
        elif part:
            out.append(part)
    return out


def make_panel(spec: str, game: Game, seed: int | np.random.Generator | None = 0) -> Agent | AgentPanel:
    """The player named by `spec` for `game`: one agent, or an AgentPanel for a comma list of specs
    or a named panel (every member made by `make` from `seed`). UserError in one line naming the
    agent at fault (a named panel of another game, too). `pretrained` stands for the game's shipped
    agent where it is not a model file of agents/pretrained (`GameFacts.pretrained`, e.g. a named panel)."""
    spec = pretrained_spec(str(spec).strip(), game)
    panel = NAMED_PANELS.get(str(spec).strip())
    if panel is None and is_panel_file(spec):
        panel = read_panel_file(spec)
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
        agent = make_heuristic(game, rng)
    elif spec.startswith("mcts"):
        agent = _make_mcts(spec, game, rng)
    elif spec == "az" or spec.startswith("az:"):
        agent = make_az_agent(spec, game, rng)
    elif spec.startswith("native:"):
        agent = make_native(spec, game)
    elif spec.startswith("turn:"):
        agent = _make_turn_search(spec, game, rng)
    elif parts := drafter_and_battler(spec, game):  # a LOCM drafter with a learned battler
        agent = DraftThenBattle(make(parts[0], game, rng), make(parts[1], game, rng))
    elif named := make_named(spec, game, rng):
        agent = named  # a game's own rule bots, e.g. Durak's aggressive and defensive
    elif spec == "pretrained" or spec.endswith((".keras", ".npz")) or Path(spec).is_dir() or "/" in spec:
        agent = load_agent(spec, game, rng)
    elif owners := bot_owners(spec):
        raise UserError(f"agent {spec!r} is only for {', '.join(owners)}, not {game.name}")
    else:
        own = ", ".join(name for name in bots(game) if name != "heuristic")
        raise UserError(
            f"unknown agent spec {spec!r}; use {SPEC_HELP}" + (f" ({game.name}'s rule agents: {own})" if own else "")
        )
    agent.spec = spec
    return agent


def pretrained_spec(spec: str, game: Game) -> str:
    """`spec` with `pretrained` (alone, or as the battler of `DRAFTER+pretrained`) replaced by the
    game's `GameFacts.pretrained` where the game names one."""
    shipped = game.facts.pretrained
    if not shipped:
        return spec
    parts = []
    for part in spec.split(","):
        head, plus, tail = part.strip().rpartition("+")
        parts.append(f"{head}{plus}{shipped}" if tail == "pretrained" else part)
    return ",".join(parts)


def _make_turn_search(spec: str, game: Game, rng: np.random.Generator) -> TurnSearchAgent:
    """`turn:MODEL`: the search over the rest of the mover's turn (agents/turn_search.py) judged by the
    afterstate value network MODEL, which also plays the turn on."""
    model = spec.removeprefix("turn:")
    value = load_agent(model, game, rng)
    if not isinstance(value, AfterstateAgent):
        raise UserError(f"agent {spec!r}: {model} is not an afterstate value network (deckopt train --algo afterstate)")
    return TurnSearchAgent(game, value, rng=rng)


def _make_mcts(spec: str, game: Game, rng: np.random.Generator) -> MCTSAgent:
    """UCT search (agents/search/uct.py); `value=SPEC` names the learned agent whose Q-network values
    its leaves."""
    config = parse_mcts_spec(spec)
    value_fn = None
    if config.value is not None and config.lam > 0:
        value_fn = make_value_fn(make(config.value, game, rng), config.value)
    return MCTSAgent(game, rng, config, value_fn=value_fn)


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
