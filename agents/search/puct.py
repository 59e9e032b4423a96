"""PUCT search guided by a policy and a value, for many states at once (one network call per round).

    visits = puct_search(states, evaluate, simulations=100, c_puct=1.5, rngs=rngs)

Every round runs one simulation in each state's tree: select by `Q + c * P * sqrt(N) / (1 + n)`
from the point of view of the player who moves at the node (any number of players), apply the
action, and stop at a finished game (its returns are the value) or at a new node; the new nodes of
all the trees are then scored by ONE call of `evaluate` (priors and each player's value), created,
and the values backed up. `batched=False` calls `evaluate` once per leaf instead (the benchmark's
baseline; same search otherwise).

Hidden information: every simulation (and the root's own evaluation) starts from
`state.resample_hidden(player, rng)`, a world drawn from what the searching player knows; the true
state is never read beyond its current player and that player's legal actions. The tree is keyed by
action sequences, so its nodes are information-set nodes: the legal actions of a node may differ
between worlds, so a node stores the unnormalised prior of every action and renormalises it over
the actions legal in the current world (a node's prior comes from the first world that reached it).
An unvisited action's Q is the node's own value estimate (first-play urgency).

Proven values (`solve=True`, games without hidden information only, where a move's result is
fixed): MCTS-Solver (agents/search/solver.py, as UCT's), plus a one-move look at every new
node: an action that ends the game is proven at once (its returns), so a win is found and a move
that lets the opponent win at once is known lost without the network having to rank it. Proofs go
up the path: a node is won when one action wins for its mover, settled when all its actions are
proven (the best for its mover). Selection plays a proven win, never a proven loss while some
action is not one; simulations back up a proven node's exact returns; a proven root stops
searching. `best_action` reads the root: a proven win, else the most visited action not proven
lost.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from agents.search.evaluators import Evaluate
from agents.search.solver import has_hidden_information, loses, settle, wins
from games import State


class BatchAbandoned(Exception):
    """A search (or a learner's `step()`, agents/learning/loop.py) stopped by its `should_stop` before
    it was done (a batch that can run for minutes: AlphaZero's searches); the learner's state,
    generator included, is as before it."""


class Node:
    __slots__ = ("prior", "n", "w", "q", "kids", "value", "_mask", "_cp", "_neg", "proven", "solved", "alive")

    def __init__(self, prior: np.ndarray, value: float):
        self.prior = prior
        self.n = np.zeros(len(prior))
        self.w = np.zeros(len(prior))
        self.q = np.full(len(prior), float(value))  # mean value of each action; unvisited: the node's
        self.kids: dict[int, Node] = {}
        self.value = value  # the network's value for the player to move here
        self._mask = None  # the legal mask the cached c * prior was normalised over
        # solve=True only: action -> its proven returns; the node's own proven returns; the legal
        # mask without the proven losses (what selection chooses from; a node with a proven win is
        # solved, and the search never enters a solved node)
        self.proven: dict[int, np.ndarray] = {}
        self.solved: np.ndarray | None = None
        self.alive: np.ndarray | None = None

    def visits(self) -> np.ndarray:
        """Simulations through each action (length num_actions)."""
        return self.n.copy()

    def mean_value(self) -> float:
        """The mean backed-up value of the player to move here, over all its simulations."""
        return self.w.sum() / self.n.sum()

    def select(self, mask: np.ndarray, c: float) -> int:
        if mask is not self._mask:  # a new legal set (games that share mask arrays skip this)
            p = np.where(mask, self.prior, 0.0)
            self._cp = p * (c / p.sum())
            self._neg = np.where(mask, 0.0, -np.inf)
            self._mask = mask
        n = self.n
        score = self.q + self._cp * (math.sqrt(n[mask].sum() + 1.0) / (1.0 + n)) + self._neg
        return int(score.argmax())

    def prove(self, action: int, returns: np.ndarray, mover: int) -> None:
        """Record an action's proven returns; the node is proven once one action wins for the
        mover or every action is proven (the best of them for the mover)."""
        self.proven[action] = returns
        if wins(returns, mover):
            self.solved = returns
            return
        if loses(returns, mover):  # a loss: never chosen while another action is not one
            rest = self.alive.copy()
            rest[action] = False
            if rest.any():
                self.alive = rest
        # every action outside `alive` is a proven loss, so the node is settled when `alive` is proven
        if all(a in self.proven for a in np.flatnonzero(self.alive)):
            self.solved = settle(self.proven.values(), mover)


def _open(node: Node, state: State) -> Node:
    """solve=True: a new node looks one move ahead; an action that ends the game is proven."""
    mover = state.current_player
    node.alive = state.legal_mask()
    for a in state.legal_actions():
        after = state.clone()
        after.apply_action(a)
        if after.is_terminal():
            node.prove(a, np.asarray(after.returns(), dtype=np.float64), mover)
            if node.solved is not None and wins(node.solved, mover):
                break
    return node


def best_action(root: Node, mask: np.ndarray, mover: int) -> int:
    """The move a search recommends: a proven win; else the most visited action not proven lost
    (all lost or settled: the best proven one); ties go to the lower action."""
    for a, r in sorted(root.proven.items()):
        if wins(r, mover):
            return a
    if root.proven and all(a in root.proven for a in np.flatnonzero(mask)):
        return max(sorted(root.proven), key=lambda a: root.proven[a][mover])
    alive = mask if root.alive is None else root.alive
    return int(np.where(alive, root.n, -1.0).argmax())


def _backup(path: list, values) -> None:
    for node, action, mover in path:
        n = node.n[action] + 1.0
        w = node.w[action] + values[mover]
        node.n[action], node.w[action], node.q[action] = n, w, w / n


def _backup_proof(path: list, returns: np.ndarray) -> None:
    """The last action of `path` is proven to give `returns`: back them up, and carry the proof up
    while it settles nodes."""
    _backup(path, returns)
    for node, action, mover in reversed(path):
        node.prove(action, returns, mover)
        if node.solved is None:
            return
        returns = node.solved


def puct_search(states: Sequence[State], evaluate: Evaluate, *args, **kwargs) -> list[np.ndarray]:
    """The root visit counts (one array of length num_actions per state) after `simulations`
    simulations in each state's tree (the arguments of `search_roots`)."""
    return [root.visits() for root in search_roots(states, evaluate, *args, **kwargs)]


#: simulations between two looks at `should_stop` (a look is a function call; a simulation of a
#: lock-step batch takes a millisecond or more)
STOP_CHECK_EVERY = 16


def search_roots(
    states: Sequence[State],
    evaluate: Evaluate,
    simulations: int,
    c_puct: float,
    rngs: Sequence[np.random.Generator],
    dirichlet_alpha: float = 0.0,
    dirichlet_fraction: float = 0.0,
    batched: bool = True,
    solve: bool = False,
    should_stop: Callable[[], bool] | None = None,
) -> list[Node]:
    """The root node of each state's tree after `simulations` simulations; `rngs[i]` draws state
    i's worlds and root noise. `solve=True` proves values where a state has no hidden information
    (see the module's docstring; `best_action` reads a root). `should_stop()`, asked every
    STOP_CHECK_EVERY simulations, abandons the search (BatchAbandoned)."""
    players = [s.current_player for s in states]
    hidden = [has_hidden_information(s) for s in states]
    proving = [solve and not h for h in hidden]

    def world(i: int) -> State:
        return states[i].resample_hidden(players[i], rngs[i]) if hidden[i] else states[i].clone()

    def score(leaves: list[State]):
        if batched or len(leaves) <= 1:
            return evaluate(leaves)
        parts = [evaluate([s]) for s in leaves]
        return np.concatenate([p for p, _ in parts]), np.concatenate([v for _, v in parts])

    priors, values = score([world(i) for i in range(len(states))])
    roots = []
    for i, s in enumerate(states):
        root = Node(priors[i], values[i, players[i]])
        if dirichlet_fraction > 0:
            mask = s.legal_mask()  # the mover's own options: known to it
            p = np.where(mask, root.prior, 0.0)
            p /= p.sum()
            noise = rngs[i].dirichlet(np.full(int(mask.sum()), dirichlet_alpha))
            p[mask] = (1 - dirichlet_fraction) * p[mask] + dirichlet_fraction * noise
            root.prior = p
            root._mask = None
        roots.append(_open(root, s) if proving[i] else root)
    c = c_puct
    for k in range(simulations):
        if should_stop is not None and k % STOP_CHECK_EVERY == 0 and should_stop():
            raise BatchAbandoned
        pending = []  # (path, parent, action, leaf state, tree)
        for i in range(len(states)):
            if roots[i].solved is not None:  # proven: nothing left to learn
                continue
            s, node, path, solving = world(i), roots[i], [], proving[i]
            while True:
                mover = s.current_player
                a = node.select(node.alive if solving else s.legal_mask(), c)
                path.append((node, a, mover))
                s.apply_action(a)
                if s.is_terminal():
                    if solving:
                        _backup_proof(path, np.asarray(s.returns(), dtype=np.float64))
                    else:
                        _backup(path, s.returns())
                    break
                child = node.kids.get(a)
                if child is None:
                    pending.append((path, node, a, s, i))
                    break
                if child.solved is not None:  # a proven subtree: its exact returns, no evaluation
                    _backup_proof(path, child.solved)
                    break
                node = child
        if pending:
            priors, values = score([p[3] for p in pending])
            for j, (path, parent, a, s, i) in enumerate(pending):
                child = Node(priors[j], values[j, s.current_player])
                parent.kids[a] = child
                if proving[i]:
                    _open(child, s)
                if child.solved is not None:
                    _backup_proof(path, child.solved)
                else:
                    _backup(path, values[j])
    return roots
