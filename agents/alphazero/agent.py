"""The search agent (`az:MODEL[,sims=N][,c=F]`) and the policy+value model files.

A model is the `.npz` of agents.learned (a chain of Dense layers) whose last layer has
`num_actions + 1` outputs and whose metadata says `"alphazero": true`; `az:pretrained` is
`agents/pretrained/az_<game>.npz` (or `az_<game>_<n>p.npz`). The cheap route: `az:dqn` (the
game's shipped DQN) or the path of any DQN Q-network guides the same search, its softmax(Q / 0.1)
as the prior and its best legal Q as the value (two-player games).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agents.alphazero.features import FeatureNetwork
from agents.base import Agent
from agents.learned import PRETRAINED_DIR, read_keras, read_npz, resolve_model_path
from agents.search.evaluators import network_evaluator, q_evaluator
from agents.search.puct import best_action, search_roots
from agents.search.tree import has_hidden_information
from games import Game, State, UserError

DEFAULT_SIMULATIONS = 100
DEFAULT_C = 1.5
MAX_SIMULATIONS = 1_000_000
SPEC_GRAMMAR = (
    "az[:MODEL][,sims=N][,c=FLOAT][,solve=0|1]  (MODEL: pretrained (default), dqn (the shipped DQN as prior and "
    "value), a .npz/.keras file or a run folder; "
    "sims and c default to the model's own, else 100 and 1.5; solve=1 (default) proves wins and losses "
    "in games without hidden information)"
)


class AlphaZeroAgent(Agent):
    """The most visited root action of a PUCT search (no noise); ties go to the lower action.
    With `solve` (games without hidden information): a proven win first, never a proven loss while
    another move is not one (agents/search/puct.py, proven values). Each state of a batch gets
    its own generator drawn from the agent's, and the searches of a batch run in lock-step (their
    leaves share one network call)."""

    def __init__(
        self,
        game: Game,
        network,
        rng: np.random.Generator,
        simulations=DEFAULT_SIMULATIONS,
        c=DEFAULT_C,
        q=False,
        solve=True,
    ):
        outputs = game.num_actions + (0 if q else 1)
        if network.input_size != game.observation_size or network.output_size != outputs:
            raise UserError(
                f"network has {network.input_size} inputs and {network.output_size} outputs; an az model of "
                f"{game.name} needs {game.observation_size} and {outputs}"
            )
        self.game = game
        self.network = network
        self.rng = rng
        self.simulations = simulations
        self.c = c
        self.solve = solve
        self.evaluate = q_evaluator(game, network) if q else network_evaluator(game, network)
        # no root noise, and the generator only draws hidden worlds: fixed moves where nothing is hidden
        self.deterministic = not has_hidden_information(game.new_initial_state(np.random.default_rng(0)))
        self.search_seconds = 0.0  # thinking time, summed over the searched moves
        self.searched_moves = 0

    def roots(self, states: Sequence[State]) -> list:
        rngs = [np.random.default_rng(int(self.rng.integers(2**63))) for _ in states]
        return search_roots(states, self.evaluate, self.simulations, self.c, rngs, solve=self.solve)

    def act(self, states: Sequence[State]) -> np.ndarray:
        out = np.empty(len(states), dtype=np.int64)
        search = []
        for i, s in enumerate(states):
            legal = s.legal_actions()
            if len(legal) == 1:
                out[i] = legal[0]
            else:
                search.append(i)
        if search:
            t0 = time.perf_counter()
            for i, root in zip(search, self.roots([states[i] for i in search])):
                s = states[i]
                out[i] = best_action(root, s.legal_mask(), s.current_player)
            self.search_seconds += time.perf_counter() - t0
            self.searched_moves += len(search)
        return out


def parse_spec(spec: str) -> tuple[str, int | None, float | None, bool]:
    """`az:MODEL,sims=N,c=F,solve=B` -> (model spec, simulations, c, solve), None where not given
    (the model's metadata then decides); UserError on a bad spec."""
    text = str(spec).strip()

    def bad(why: str) -> UserError:
        return UserError(f"bad az spec {text!r}: {why} (grammar: {SPEC_GRAMMAR})")

    if text == "az":
        return "pretrained", None, None, True
    if not text.startswith("az:"):
        raise bad("expected 'az' or 'az:' followed by a model and options")
    model, sims, c, solve = None, None, None, True
    seen = set()
    for item in text[3:].split(","):
        item = item.strip()
        if not item:
            raise bad("empty item")
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if not eq:
            if model is not None:
                raise bad(f"two models ({model!r} and {item!r})")
            model = item
            continue
        if key in seen:
            raise bad(f"option {key!r} given twice")
        seen.add(key)
        if key == "solve":
            if value.strip() not in ("0", "1"):
                raise bad(f"solve must be 0 or 1, got {value!r}")
            solve = value.strip() == "1"
        elif key in ("sims", "c"):
            try:
                if key == "sims":
                    sims = int(value)
                else:
                    c = float(value)
            except ValueError:
                raise bad(f"{key} must be a number, got {value!r}") from None
        else:
            raise bad(f"unknown option {key!r}; options are sims, c, solve")
    if sims is not None and not 1 <= sims <= MAX_SIMULATIONS:
        raise bad(f"sims must be in 1..{MAX_SIMULATIONS}, got {sims}")
    if c is not None and not (c > 0 and np.isfinite(c)):
        raise bad(f"c must be a finite number > 0, got {c:g}")
    return model or "pretrained", sims, c, solve


def pretrained_path(game: Game) -> Path:
    n = getattr(getattr(game, "config", None), "num_players", None)
    stems = ([f"az_{game.name}_{n}p"] if n is not None else []) + [f"az_{game.name}"]
    for stem in stems:
        if (PRETRAINED_DIR / f"{stem}.npz").is_file():
            return PRETRAINED_DIR / f"{stem}.npz"
    raise UserError(
        f"no pretrained az model for {game.name} (expected {PRETRAINED_DIR / stems[-1]}.npz); "
        f"train one with `deckopt train {game.name} --algo alphazero`"
    )


def load_network(model: str, game: Game):
    """(network, metadata, is a Q-network) of an az model spec."""
    if model == "pretrained":
        path = pretrained_path(game)
    else:
        path = resolve_model_path("pretrained" if model == "dqn" else model, game)
    network, metadata = read_npz(path) if path.suffix == ".npz" else read_keras(path)
    trained_for = metadata.get("game")
    if trained_for is not None and trained_for != game.name:
        raise UserError(f"{path} is a model for {trained_for}, not {game.name}")
    if metadata.get("alphazero", path.suffix == ".keras"):
        if metadata.get("input_features"):
            network = FeatureNetwork(network, metadata["input_features"], game)
        return network, metadata, False
    if "policy" in metadata or metadata.get("value") or network.output_size != game.num_actions:
        raise UserError(f"{path} is neither an az (policy + value) model nor a DQN Q-network")
    if game.num_players != 2:
        raise UserError(f"{path} is a DQN Q-network: it guides the az search in two-player games only")
    return network, metadata, True


def make_agent(spec: str, game: Game, rng: np.random.Generator) -> AlphaZeroAgent:
    """agents.make routes every spec starting with 'az' here."""
    model, sims, c, solve = parse_spec(spec)
    network, metadata, q = load_network(model, game)
    sims = sims if sims is not None else int(metadata.get("simulations", DEFAULT_SIMULATIONS))
    c = c if c is not None else float(metadata.get("c_puct", DEFAULT_C))
    agent = AlphaZeroAgent(game, network, rng, sims, c, q=q, solve=solve)
    agent.metadata = metadata
    return agent
