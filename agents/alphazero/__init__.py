"""AlphaZero-style search and self-play: PUCT guided by one policy+value network, for every game.

1. One MLP with two heads (agents.alphazero.model, the only module importing TensorFlow): the
   policy's logits and a tanh value; Keras for training, a numpy copy for acting.
2. Search (agents.search.puct): PUCT over many states at once, the new leaves of all their
   trees scored in one network call per simulation round. Hidden information: every simulation
   starts from `resample_hidden` of the searching player, never from the true state.
3. Self-play (agents.alphazero.trainer): games in lock-step, Dirichlet noise at the roots, a
   temperature for the first moves; policy targets are visit distributions, value targets the
   final outcome from the mover's view; replay; the loop and run folder of agents/learning.
4. The agent (agents.alphazero.agent): spec `az:MODEL[,sims=N][,c=F]`, the most visited action.

Modules: `config` (AlphaZeroConfig, per-game defaults), `search`, `agent`, `model`, `trainer`.
"""

from __future__ import annotations

from agents.alphazero.agent import AlphaZeroAgent, make_agent, parse_spec
from agents.alphazero.config import GAME_DEFAULTS, AlphaZeroConfig, load_config
from agents.alphazero.trainer import AlphaZeroLearner, random_opening, self_play, train
from agents.search.evaluators import network_evaluator
from agents.search.puct import puct_search

__all__ = [
    "AlphaZeroAgent",
    "AlphaZeroConfig",
    "AlphaZeroLearner",
    "GAME_DEFAULTS",
    "load_config",
    "make_agent",
    "network_evaluator",
    "parse_spec",
    "puct_search",
    "random_opening",
    "self_play",
    "train",
]
