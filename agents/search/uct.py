"""UCT Monte Carlo Tree Search for every game; determinized for hidden information.

    agent = agents.make("mcts:400", game, seed=0)            # 400 simulations per move
    agent = agents.make("mcts:200ms,c=1.4", game, seed=0)     # 200 ms of search per move
    result = agent.search(state)                               # action, visit counts, values

The spec (`mcts:400,c=1.4,...`) is parsed in agents/search/mcts_spec.py, which gives its grammar.

The search (UCT with UCB1): select children by `Q + c * sqrt(ln N / n)` from the point of view of
the player who moves at that node (`state.returns()[mover]`, so any number of players works),
expand one untried action (chosen at random), play a rollout to the end, back the returns up; the
final move is the most visited root action (ties: higher mean value, then lower action). In games
without hidden information, terminal positions are proven and proofs are backed up (MCTS-Solver,
as OpenSpiel's MCTSBot does by default): a proven win is played at once, a proven loss avoided.

Hidden information: each simulation starts from `state.resample_hidden(player, rng)`, a
determinization consistent with what the searching player knows, and never from the real state,
so the search cannot read what its player does not know. The tree is keyed by action sequences
(single-observer information-set MCTS): a node's legal actions may differ between determinizations
(the opponent's hand), so a child's exploration term counts the simulations in which it was
available rather than its parent's visits (Cowling, Powley & Whitehouse 2012). Games without
hidden information skip the resampling and use a leaner loop. A known limit of this single tree:
inside the search, a player who decides later in a simultaneous step (Incan Gold) sits at a node
reached through the earlier players' choices, so the search models opponents as if they saw the
searcher's secret choice (a cautious model, never a leak of what the searcher cannot see).

Randomness: each state in `act(states)` gets its own search generator drawn from the agent's
generator, so a batch is reproducible from the agent's seed and each search is independent.

One module: the two search loops (perfect and hidden information) are read side by side; the
leaf evaluation (rollouts, value estimates) is agents/search/evaluators.py's, the tree and its proof rule
agents/search/tree.py's, the spec parser agents/search/mcts_spec.py.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from agents.base import Agent
from agents.pruning.networks import load as load_pruning_networks
from agents.pruning.schedule import PruneSchedule, ScheduleConfig
from agents.search.evaluators import UNIFORMS, Uniforms, heuristic_policy, rollout_returns
from agents.search.mcts_spec import MCTSConfig
from agents.search.tree import Node, backup, has_hidden_information, solve_up
from games import Game, State, UserError


@dataclass
class SearchResult:
    action: int
    visits: dict[int, int]  # root action -> simulations through it
    values: dict[int, float]  # root action -> mean return of the root player
    simulations: int
    seconds: float
    pruned: list[int] = field(default_factory=list)  # root actions pruned when the search ended


class MCTSAgent(Agent):
    """UCT with UCB1 and random (or heuristic) rollouts; see the module docstring."""

    def __init__(
        self,
        game: Game,
        rng: np.random.Generator,
        config: MCTSConfig | None = None,
        value_fn: Callable[[State], np.ndarray] | None = None,
    ):
        """`value_fn(state)` -> each player's value of a leaf, mixed into the rollout's result with weight
        `config.lam` (agents.search.evaluators.make_value_fn from `config.value`'s agent); None: rollouts only."""
        self.game = game
        self.rng = rng
        self.config = config = config or MCTSConfig()
        self.spec = config.describe()
        if config.value is not None and config.lam > 0 and value_fn is None:
            raise ValueError(f"{self.spec}: value={config.value} needs its value_fn (agents.make builds it)")
        self._value_fn = value_fn if config.lam > 0 else None
        self._prune_nets = None
        if config.prune is not None:
            self._prune_nets = load_pruning_networks(config.prune)

    # public ---------------------------------------------------------------------------------
    def act(self, states: Sequence[State]) -> np.ndarray:
        out = np.empty(len(states), dtype=np.int64)
        for i, s in enumerate(states):
            out[i] = self.search(s, np.random.default_rng(int(self.rng.integers(2**63)))).action
        return out

    def search(self, state: State, rng: np.random.Generator | None = None) -> SearchResult:
        """Search from `state` for its current player with the configured budget."""
        if rng is None:
            rng = np.random.default_rng(int(self.rng.integers(2**63)))
        if state.is_terminal():
            raise UserError("mcts: cannot search from a finished game")
        t0 = time.perf_counter()
        legal = state.legal_actions()  # the mover's own options: information it has
        if len(legal) == 1:
            return SearchResult(legal[0], {legal[0]: 0}, {legal[0]: 0.0}, 0, time.perf_counter() - t0)
        cfg = self.config
        deadline = None if cfg.milliseconds is None else t0 + cfg.milliseconds / 1000.0
        budget = cfg.simulations if cfg.simulations is not None else 1 << 62
        # a fresh rollout policy per search, drawing from this search's generator only
        policy = heuristic_policy(self.game, rng) if cfg.rollout == "heuristic" else None
        hidden = has_hidden_information(state)
        sched = None
        if self._prune_nets is not None:
            sched = PruneSchedule(self._prune_nets, legal, budget, ScheduleConfig(soft=cfg.soft))
        if hidden:
            stats, sims = self._search_hidden(state, rng, budget, deadline, policy, sched)
        else:
            stats, sims = self._search_perfect(state, rng, budget, deadline, policy, sched)
        # a proven win first, a proven loss last; else most visits, then higher mean value, then
        # the lower action
        best = min(stats, key=lambda a: (-(stats[a][2] or 0.0), -stats[a][0], -stats[a][1], a))
        visits = {a: n for a, (n, _, _) in sorted(stats.items())}
        values = {a: q if o is None else o for a, (_, q, o) in sorted(stats.items())}
        pruned = [] if sched is None else sorted(sched.pruned)
        return SearchResult(int(best), visits, values, sims, time.perf_counter() - t0, pruned)

    # perfect information: clone the root, parallel child lists, MCTS-Solver -------------------
    def _search_perfect(self, root_state, rng, budget, deadline, policy, sched=None):
        c = self.config.c
        lam = self.config.lam
        solve = self.config.solve
        value_fn = self._value_fn
        uni = Uniforms(rng)
        log, sqrt = math.log, math.sqrt
        evaluate = rollout_returns
        root = Node()
        sims = 0
        active = None  # with pruning: (action, child) of the root children still searched (None: all)
        while sims < budget and root.outcome is None:
            if deadline is not None and sims and time.perf_counter() >= deadline:
                break
            s = root_state.clone()
            node = root
            path = [root]
            movers = []
            solved = False
            # selection + expansion
            while True:
                if node.outcome is not None:  # proven: its value is known, no rollout needed
                    r = node.outcome
                    solved = solve
                    break
                if s.is_terminal():
                    r = node.outcome = s.returns().tolist()
                    solved = solve
                    break
                untried = node.untried
                if untried is None:
                    untried = node.untried = s.legal_actions()
                p = s.current_player
                if untried:
                    if uni.i >= UNIFORMS:
                        uni.refill()
                    j = int(uni.buf[uni.i] * len(untried))
                    uni.i += 1
                    a = untried[j]
                    untried[j] = untried[-1]
                    untried.pop()
                    child = node.kids[a] = Node()
                    s.apply_action(a)
                    path.append(child)
                    movers.append(p)
                    if s.is_terminal():
                        r = child.outcome = s.returns().tolist()
                        solved = solve
                    else:
                        r = evaluate(s, uni, policy, value_fn, lam)
                    break
                explore = c * sqrt(log(node.n))
                best_a = -1
                best_v = -math.inf
                pairs = node.kids.items() if active is None or node is not root else active
                for a, k in pairs:
                    o = k.outcome
                    v = o[p] if o is not None else k.w / k.n + explore / sqrt(k.n)
                    if v > best_v:
                        best_v = v
                        best_a = a
                if best_a < 0:  # every root child pruned: the first one
                    best_a = next(iter(node.kids))
                s.apply_action(best_a)
                node = node.kids[best_a]
                path.append(node)
                movers.append(p)
            backup(path, movers, r)
            if solved:
                solve_up(path, movers)
            sims += 1
            if sched is not None and sims == sched.next_at:
                if root.untried:  # every root action must have a value before any is pruned
                    sched.next_at += 1
                else:
                    kids = root.kids.items()
                    keep = sched.update(sims, {a: k.n for a, k in kids}, {a: k.w / k.n for a, k in kids})
                    active = [(a, k) for a, k in kids if a in keep]
        stats = {
            a: (k.n, k.w / k.n if k.n else 0.0, None if k.outcome is None else k.outcome[root_state.current_player])
            for a, k in root.kids.items()
        }
        return stats, sims

    # hidden information: a fresh determinization per simulation ----------------------------
    def _search_hidden(self, root_state, rng, budget, deadline, policy, sched=None):
        c = self.config.c
        lam = self.config.lam
        value_fn = self._value_fn
        player = root_state.current_player
        uni = Uniforms(rng)
        log, sqrt = math.log, math.sqrt
        root = Node()
        sims = 0
        active = None  # with pruning: the root actions still searched (None: all)
        root_actions = len(root_state.legal_actions())
        while sims < budget:
            if deadline is not None and sims and time.perf_counter() >= deadline:
                break
            s = root_state.resample_hidden(player, rng)
            node = root
            path = [root]
            movers = []
            while not s.is_terminal():
                p = s.current_player
                legal = s.legal_actions()
                if active is not None and node is root:
                    legal = [a for a in legal if a in active] or legal
                kids = node.kids
                untried = [a for a in legal if a not in kids]
                if untried:
                    if uni.i >= UNIFORMS:
                        uni.refill()
                    a = untried[int(uni.buf[uni.i] * len(untried))]
                    uni.i += 1
                    for b in legal:  # every legal sibling was available this time
                        if b in kids:
                            kids[b].avail += 1
                    child = kids[a] = Node()
                    child.avail = 1
                    s.apply_action(a)
                    path.append(child)
                    movers.append(p)
                    break
                best_a = legal[0]
                best_v = -math.inf
                for a in legal:
                    k = kids[a]
                    k.avail += 1
                    v = k.w / k.n + c * sqrt(log(k.avail) / k.n)
                    if v > best_v:
                        best_v = v
                        best_a = a
                s.apply_action(best_a)
                node = kids[best_a]
                path.append(node)
                movers.append(p)
            backup(path, movers, rollout_returns(s, uni, policy, value_fn, lam))
            sims += 1
            if sched is not None and sims == sched.next_at:
                if len(root.kids) < root_actions:  # every root action must have a value first
                    sched.next_at += 1
                else:
                    kids = root.kids.items()
                    active = sched.update(sims, {a: k.n for a, k in kids}, {a: k.w / k.n for a, k in kids})
        stats = {a: (k.n, k.w / k.n if k.n else 0.0, None) for a, k in root.kids.items()}
        return stats, sims
