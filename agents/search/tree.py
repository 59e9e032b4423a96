"""The search tree of both searches (UCT and PUCT): one node type, one back-up of returns and one
proof rule, MCTS-Solver (Winands, Björnsson & Saito 2008).

A `Node` is reached by one action sequence from the root; its statistics are those of the action
that leads into it: `n` simulations through it and `w`, the sum of the returns of the player who
took that action. Its children are keyed by action in the order they were added. The searches add
what they need on top: UCT the actions not yet tried (`untried`) and, with hidden information, the
simulations in which the action was legal (`avail`); PUCT the network's prior over every action and
its value for the player to move (`expand`).

MCTS-Solver: in a game without hidden information a finished game's returns are exact, and they go
up the tree as proofs (`outcome`). A node is proven when one of its actions is a proven win for the
player to move there, or when every action is proven: then it is worth the best of them for that
player (the first of equals, in the order the children were added). A proven node is never searched
again: its returns are backed up as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from games import State

WIN = 1.0  # every game's best return


def has_hidden_information(state: State) -> bool:
    """Whether a search must draw worlds (`resample_hidden`), as the game declares
    (`GameFacts.hidden_information`); the solver applies only where not."""
    return state.game.facts.hidden_information


def wins(returns: Sequence[float], mover: int) -> bool:
    return returns[mover] >= WIN


def loses(returns: Sequence[float], mover: int) -> bool:
    return returns[mover] <= -WIN


def settle(outcomes: Iterable[Sequence[float] | None], mover: int):
    """The best of the proven `outcomes` for `mover` (the first of equals), or None while one of
    them is unproven (None)."""
    best = None
    for o in outcomes:
        if o is None:
            return None
        if best is None or o[mover] > best[mover]:
            best = o
    return best


class Node:
    __slots__ = ("kids", "n", "w", "outcome", "untried", "avail", "prior", "value", "alive", "_lost", "_cache")

    def __init__(self):
        self.kids: dict[int, Node] = {}
        self.n = 0  # simulations through this node
        self.w = 0.0  # sum of the returns of the player who moved INTO this node
        self.outcome = None  # proven returns (a finished game, or a proven subtree)
        self.untried: list[int] | None = None  # legal actions without a child (where the solver applies)
        self.avail = 0  # UCT with hidden information: simulations in which this node's action was legal
        self.prior: np.ndarray | None = None  # PUCT: unnormalised prior of every action (None: not expanded)
        self.value = 0.0  # PUCT: the network's value for the player to move here
        self.alive: np.ndarray | None = None  # PUCT with proofs: the legal mask without the proven losses
        self._lost = 0  # PUCT with proofs: how many proven losses `alive` leaves out
        self._cache = None  # PUCT: (mask, its legal actions, c * prior normalised over them)

    def expand(self, prior: np.ndarray, value: float) -> Node:
        """PUCT: the network's prior and value for the player to move here."""
        self.prior, self.value, self._cache = prior, value, None
        return self

    def add(self, action: int) -> Node:
        """A new child for `action`."""
        child = self.kids[action] = Node()
        if self.untried:
            self.untried.remove(action)
        return child

    def visits(self) -> np.ndarray:
        """Simulations through each action (a PUCT node: length num_actions)."""
        out = np.zeros(len(self.prior))
        for a, k in self.kids.items():
            out[a] = k.n
        return out

    def mean_value(self) -> float:
        """The mean backed-up value of the player to move here, over its actions' simulations."""
        w = np.zeros(len(self.prior))
        for a, k in self.kids.items():
            w[a] = k.w
        return w.sum() / self.visits().sum()

    def proven(self) -> dict[int, Sequence[float]]:
        """Action -> proven returns, of the children that have them."""
        return {a: k.outcome for a, k in self.kids.items() if k.outcome is not None}


def backup(path: list[Node], movers: list[int], returns: Sequence[float]) -> None:
    """One simulation's `returns` (per player) through `path`, root first; `movers[i]` took the
    action from `path[i]` to `path[i + 1]`."""
    path[0].n += 1
    for k, p in zip(path[1:], movers):
        k.n += 1
        k.w += returns[p]


def prove(node: Node, mover: int, returns: Sequence[float]) -> bool:
    """A child of `node` was proven to give `returns`: whether `node` (where `mover` moves) is now
    proven too (`outcome` set): the child wins for `mover`, or every legal action has a child and
    all of them are proven."""
    if wins(returns, mover):
        node.outcome = returns
        return True
    if node.untried:
        return False
    best = settle([k.outcome for k in node.kids.values()], mover)
    if best is None:
        return False
    node.outcome = best
    return True


def solve_up(path: list[Node], movers: list[int]) -> None:
    """After a simulation that ended in a proven node (the last of `path`): carry the proof up
    while it proves the nodes above."""
    for i in range(len(path) - 2, -1, -1):
        if not prove(path[i], movers[i], path[i + 1].outcome):
            return
