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
fixed): MCTS-Solver (agents/search/tree.py, as UCT's), plus a one-move look at every new
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
from agents.search.tree import Node, backup, has_hidden_information, loses, prove, solve_up, wins
from agents.stopping import BatchAbandoned
from games import State


def _alive(node: Node, mover: int) -> np.ndarray:
    """With proofs: the legal mask of `node` without its proven losses (unless all are lost: then
    the node is proven and never searched)."""
    lost = [a for a, k in node.kids.items() if k.outcome is not None and loses(k.outcome, mover)]
    if len(lost) != node._lost:
        rest = node.alive.copy()
        rest[lost] = False
        if rest.any():
            node.alive = rest
        node._lost = len(lost)
    return node.alive


def _select(node: Node, mask: np.ndarray, c: float) -> int:
    """The action of the best `Q + c * P * sqrt(N) / (1 + n)` among `mask` (the first of equals);
    an unvisited action's Q is the node's own value."""
    cache = node._cache
    if cache is None or cache[0] is not mask:  # a new legal set (games that share mask arrays skip this)
        p = np.where(mask, node.prior, 0.0)
        cache = node._cache = (mask, np.flatnonzero(mask).tolist(), (p * (c / p.sum())).tolist())
    _, legal, cp = cache
    kids, value = node.kids, node.value
    total = 0
    for a in legal:
        k = kids.get(a)
        if k is not None:
            total += k.n
    root = math.sqrt(total + 1.0)
    best_a, best = -1, -math.inf
    for a in legal:
        k = kids.get(a)
        n = 0 if k is None else k.n
        score = (k.w / n if n else value) + cp[a] * (root / (1.0 + n))
        if score > best:
            best_a, best = a, score
    return best_a


def _open(node: Node, state: State) -> Node:
    """With proofs: a new node looks one move ahead; an action that ends the game is proven."""
    mover = state.current_player
    node.alive = state.legal_mask()
    node.untried = state.legal_actions()
    for a in list(node.untried):
        after = state.clone()
        after.apply_action(a)
        if after.is_terminal():
            node.add(a).outcome = after.returns().tolist()
            if prove(node, mover, node.kids[a].outcome):
                break
    return node


def best_action(root: Node, mask: np.ndarray, mover: int) -> int:
    """The move a search recommends: a proven win; else the most visited action not proven lost
    (all lost or settled: the best proven one); ties go to the lower action."""
    proven = root.proven()
    for a in sorted(proven):
        if wins(proven[a], mover):
            return a
    if proven and all(a in proven for a in np.flatnonzero(mask)):
        return max(sorted(proven), key=lambda a: proven[a][mover])
    alive = mask if root.alive is None else _alive(root, mover)
    return int(np.where(alive, root.visits(), -1.0).argmax())


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
        root = Node().expand(priors[i], values[i, players[i]])
        if dirichlet_fraction > 0:
            mask = s.legal_mask()  # the mover's own options: known to it
            p = np.where(mask, root.prior, 0.0)
            p /= p.sum()
            noise = rngs[i].dirichlet(np.full(int(mask.sum()), dirichlet_alpha))
            p[mask] = (1 - dirichlet_fraction) * p[mask] + dirichlet_fraction * noise
            root.expand(p, root.value)
        roots.append(_open(root, s) if proving[i] else root)
    c = c_puct
    for k in range(simulations):
        if should_stop is not None and k % STOP_CHECK_EVERY == 0 and should_stop():
            raise BatchAbandoned
        pending = []  # (path, movers, leaf state, tree)
        for i in range(len(states)):
            if roots[i].outcome is not None:  # proven: nothing left to learn
                continue
            s, node, path, movers, solving = world(i), roots[i], [roots[i]], [], proving[i]
            while True:
                mover = s.current_player
                a = _select(node, _alive(node, mover) if solving else s.legal_mask(), c)
                movers.append(mover)
                s.apply_action(a)
                child = node.kids.get(a) or node.add(a)
                path.append(child)
                if s.is_terminal():
                    returns = s.returns().tolist()
                    backup(path, movers, returns)
                    if solving:  # proven at the node's one-move look
                        solve_up(path, movers)
                    break
                if child.prior is None:
                    pending.append((path, movers, s, i))
                    break
                if child.outcome is not None:  # a proven subtree: its exact returns, no evaluation
                    backup(path, movers, child.outcome)
                    solve_up(path, movers)
                    break
                node = child
        if pending:
            priors, values = score([p[2] for p in pending])
            for j, (path, movers, s, i) in enumerate(pending):
                child = path[-1].expand(priors[j], values[j, s.current_player])
                if proving[i]:
                    _open(child, s)
                if child.outcome is not None:
                    backup(path, movers, child.outcome)
                    solve_up(path, movers)
                else:
                    backup(path, movers, values[j].tolist())
    return roots
