"""UCT Monte Carlo Tree Search for every game; determinized for hidden information.

    agent = agents.make("mcts:400", game, seed=0)            # 400 simulations per move
    agent = agents.make("mcts:200ms,c=1.4", game, seed=0)     # 200 ms of search per move
    result = agent.search(state)                               # action, visit counts, values

Spec grammar (items after the colon are comma-separated, in any order; all optional):

    mcts[:BUDGET][,c=FLOAT][,rollout=random|heuristic][,value=SPEC][,lambda=FLOAT][,solve=0|1]
        [,prune=none|uniform|bimodal|PATH][,soft=0|1]

    BUDGET          N simulations per move (default 400), or `Nms` / `Ns`: wall-clock time per move
                    (a time budget depends on the machine's load, so it is not reproducible)
    c               UCB1 exploration constant (default 1.4); values are mean returns in [-1, 1]
    rollout         `random` (default) or `heuristic` (the game's HeuristicAgent plays out; slower)
    value           a learned agent (`pretrained`, a model path, a run folder) whose max legal Q
                    at the leaf estimates the mover's return
    lambda          leaf value = lambda * value + (1 - lambda) * rollout result, as in the pruning
                    paper's combined score (default 0.5 with value=, 0 without; 1 skips the rollout)
    solve           1 (default): MCTS-Solver, proven wins and losses are backed up and the search
                    stops early once the root is proven; 0: plain UCT. Perfect information only.
    prune           root pruning by the pruning networks of Papagiannis et al. 2022 (agents/pruning):
                    `uniform` / `bimodal` (the shipped networks) or a networks file; default none.
                    Needs a simulation budget (the schedule plans against the total)
    soft            with prune: 1 lets pruned root actions come back (agents/pruning/schedule.py)

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
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from agents.base import Agent
from games import Game, State, UserError

DEFAULT_SIMULATIONS = 400
DEFAULT_C = 1.4
_UNIFORMS = 4096  # uniforms drawn per refill; rollouts consume one per move
_MAX_RETURN = 1.0  # every game's best return (a win)

# a move of 10 million simulations takes about 10 minutes here: anything beyond is a typo, not a plan
MAX_SIMULATIONS = 10_000_000
MAX_MILLISECONDS = 3_600_000.0
SPEC_GRAMMAR = (
    "mcts[:SIMS|:MSms][,c=FLOAT][,rollout=random|heuristic][,value=SPEC][,lambda=FLOAT][,solve=0|1]"
    "[,prune=none|uniform|bimodal|PATH][,soft=0|1]"
)


@dataclass(frozen=True)
class MCTSConfig:
    simulations: int | None = DEFAULT_SIMULATIONS  # per move; None when the budget is a time
    milliseconds: float | None = None  # per move (wall clock)
    c: float = DEFAULT_C
    rollout: str = "random"  # "random" | "heuristic"
    value: str | None = None  # a learned agent spec whose Q estimates leaf values
    lam: float = 0.0  # weight of the value estimate in the leaf evaluation
    solve: bool = True  # MCTS-Solver: back up proven wins/losses (perfect information only)
    prune: str | None = None  # pruning networks ("uniform", "bimodal", a path); None: no pruning
    soft: bool = False  # soft pruning: pruned root actions may come back

    def describe(self) -> str:
        budget = f"{self.simulations}" if self.milliseconds is None else f"{self.milliseconds:g}ms"
        parts = [f"mcts:{budget}", f"c={self.c:g}"]
        if self.rollout != "random":
            parts.append(f"rollout={self.rollout}")
        if self.value is not None:
            parts += [f"value={self.value}", f"lambda={self.lam:g}"]
        if not self.solve:
            parts.append("solve=0")
        if self.prune is not None:
            parts.append(f"prune={self.prune}" + (",soft=1" if self.soft else ""))
        return ",".join(parts)


def parse_spec(spec: str) -> MCTSConfig:
    """`mcts:400,c=1.4,rollout=heuristic` -> MCTSConfig; UserError (one line) on a bad spec."""
    text = str(spec).strip()

    def bad(why: str) -> UserError:
        return UserError(f"bad mcts spec {text!r}: {why} (grammar: {SPEC_GRAMMAR})")

    if text == "mcts":
        return MCTSConfig()
    if not text.startswith("mcts:"):
        raise bad("expected 'mcts' or 'mcts:' followed by a budget and options")
    simulations: int | None = DEFAULT_SIMULATIONS
    milliseconds: float | None = None
    options: dict[str, str] = {}
    budget_seen = False
    for item in text[5:].split(","):
        item = item.strip()
        if not item:
            raise bad("empty item")
        if "=" not in item:
            if budget_seen:
                raise bad(f"two budgets ({item!r})")
            budget_seen = True
            simulations, milliseconds = _parse_budget(item, bad)
            continue
        key, _, value = item.partition("=")
        key, value = key.strip().lower(), value.strip()
        if key not in ("c", "rollout", "value", "lambda", "solve", "prune", "soft"):
            raise bad(f"unknown option {key!r}; options are c, rollout, value, lambda, solve, prune, soft")
        if key in options:
            raise bad(f"option {key!r} given twice")
        options[key] = value
    c = _parse_float(options.get("c", str(DEFAULT_C)), "c", bad)
    if not c >= 0:
        raise bad(f"c must be >= 0, got {c:g}")
    rollout = options.get("rollout", "random").lower()
    if rollout not in ("random", "heuristic"):
        raise bad(f"rollout must be 'random' or 'heuristic', got {rollout!r}")
    value = options.get("value") or None
    if "lambda" in options:
        lam = _parse_float(options["lambda"], "lambda", bad)
        if not 0.0 <= lam <= 1.0:
            raise bad(f"lambda must be in [0, 1], got {lam:g}")
        if lam > 0 and value is None:
            raise bad("lambda > 0 needs a value=SPEC (a learned agent) to mix in")
    else:
        lam = 0.5 if value is not None else 0.0
    solve_text = options.get("solve", "1").lower()
    if solve_text not in ("0", "1", "true", "false", "yes", "no", "on", "off"):
        raise bad(f"solve must be 0 or 1, got {solve_text!r}")
    solve = solve_text in ("1", "true", "yes", "on")
    prune = options.get("prune", "none")
    prune = None if prune.lower() in ("none", "") else prune
    soft_text = options.get("soft", "0").lower()
    if soft_text not in ("0", "1"):
        raise bad(f"soft must be 0 or 1, got {soft_text!r}")
    soft = soft_text == "1"
    if soft and prune is None:
        raise bad("soft=1 needs prune=uniform|bimodal|PATH")
    if prune is not None and milliseconds is not None:
        raise bad("prune needs a simulation budget (the schedule plans against the total), not a time")
    return MCTSConfig(simulations, milliseconds, c, rollout, value, lam, solve, prune, soft)


def _parse_budget(item: str, bad) -> tuple[int | None, float | None]:
    low = item.lower()
    unit = None
    try:
        if low.endswith("ms"):
            ms = float(low[:-2])
            unit = "ms"
        elif low.endswith("s"):
            ms = float(low[:-1]) * 1000.0
            unit = "s"
        else:
            sims = int(low)
    except ValueError:
        raise bad(f"budget {item!r} is neither a whole number of simulations (400) nor a time (200ms, 2s)") from None
    if unit is None:
        if not 1 <= sims <= MAX_SIMULATIONS:
            raise bad(f"simulations must be in 1..{MAX_SIMULATIONS}, got {sims}")
        return sims, None
    if not (0 < ms <= MAX_MILLISECONDS):
        raise bad(
            f"time budget must be positive and at most {MAX_MILLISECONDS / 1000:g} s a move, got {item!r} ({unit})"
        )
    return None, ms


def _parse_float(text: str, name: str, bad) -> float:
    try:
        x = float(text)
    except ValueError:
        raise bad(f"{name} must be a number, got {text!r}") from None
    if not math.isfinite(x):
        raise bad(f"{name} must be finite, got {text!r}")
    return x


# --------------------------------------------------------------------------------------------
# Search trees. Lean nodes: a few slots, children as parallel lists (perfect information) or a
# dict keyed by action (hidden information, where the legal set varies between determinizations).


class _Node:
    __slots__ = ("acts", "kids", "untried", "n", "w", "outcome")

    def __init__(self):
        self.acts: list[int] = []
        self.kids: list[_Node] = []
        self.untried: list[int] | None = None  # filled on the first visit
        self.n = 0  # simulations through this node
        self.w = 0.0  # sum of returns of the player who moved INTO this node
        self.outcome: list[float] | None = None  # proven returns (terminal, or solved subtree)


def _solve_up(path: list[_Node], movers: list[int]) -> None:
    """MCTS-Solver (Winands et al. 2008), as OpenSpiel's: after a simulation ending in a proven
    node, a parent is proven when one child is a proven win for its mover, or when every child is
    proven (the best one for the mover)."""
    for i in range(len(path) - 2, -1, -1):
        node, p = path[i], movers[i]
        won = path[i + 1].outcome
        if won[p] >= _MAX_RETURN:
            node.outcome = won
            continue
        if node.untried:
            return
        best = None
        for k in node.kids:
            o = k.outcome
            if o is None:
                return
            if best is None or o[p] > best[p]:
                best = o
        node.outcome = best


class _InfoNode:
    __slots__ = ("kids", "n", "w", "avail")

    def __init__(self):
        self.kids: dict[int, _InfoNode] = {}
        self.n = 0
        self.w = 0.0
        self.avail = 0  # simulations in which this node's action was legal at its parent


@dataclass
class SearchResult:
    action: int
    visits: dict[int, int]  # root action -> simulations through it
    values: dict[int, float]  # root action -> mean return of the root player
    simulations: int
    seconds: float
    pruned: list[int] = field(default_factory=list)  # root actions pruned when the search ended


class _Uniforms:
    """Blocks of uniforms from the search generator, consumed one at a time (cheaper than one
    Generator call per rollout move)."""

    __slots__ = ("rng", "buf", "i")

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.buf = rng.random(_UNIFORMS).tolist()
        self.i = 0

    def refill(self) -> None:
        self.buf = self.rng.random(_UNIFORMS).tolist()
        self.i = 0


class MCTSAgent(Agent):
    """UCT with UCB1 and random (or heuristic) rollouts; see the module docstring."""

    def __init__(self, game: Game, rng: np.random.Generator, config: MCTSConfig = MCTSConfig()):
        self.game = game
        self.rng = rng
        self.config = config
        self.spec = config.describe()
        self._value_fn: Callable[[State], np.ndarray] | None = None
        if config.value is not None and config.lam > 0:
            self._value_fn = make_value_fn(config.value, game, rng)
        self._prune_nets = None
        if config.prune is not None:
            from agents.pruning.networks import load

            self._prune_nets = load(config.prune)

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
        policy = _heuristic_policy(self.game, rng) if cfg.rollout == "heuristic" else None
        hidden = type(state).resample_hidden is not State.resample_hidden
        sched = None
        if self._prune_nets is not None:
            from agents.pruning.schedule import PruneSchedule, ScheduleConfig

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
        uni = _Uniforms(rng)
        log, sqrt = math.log, math.sqrt
        evaluate = self._evaluate
        root = _Node()
        sims = 0
        active = None  # with pruning: indices of the root children still searched (None: all)
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
                    if uni.i >= _UNIFORMS:
                        uni.refill()
                    j = int(uni.buf[uni.i] * len(untried))
                    uni.i += 1
                    a = untried[j]
                    untried[j] = untried[-1]
                    untried.pop()
                    child = _Node()
                    node.acts.append(a)
                    node.kids.append(child)
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
                best_i = 0
                best_v = -math.inf
                pairs = enumerate(node.kids) if active is None or node is not root else active
                for i, k in pairs:
                    o = k.outcome
                    v = o[p] if o is not None else k.w / k.n + explore / sqrt(k.n)
                    if v > best_v:
                        best_v = v
                        best_i = i
                s.apply_action(node.acts[best_i])
                node = node.kids[best_i]
                path.append(node)
                movers.append(p)
            root.n += 1
            for k, p in zip(path[1:], movers):
                k.n += 1
                k.w += r[p]
            if solved:
                _solve_up(path, movers)
            sims += 1
            if sched is not None and sims == sched.next_at:
                if root.untried:  # every root action must have a value before any is pruned
                    sched.next_at += 1
                else:
                    keep = sched.update(
                        sims,
                        {a: k.n for a, k in zip(root.acts, root.kids)},
                        {a: k.w / k.n for a, k in zip(root.acts, root.kids)},
                    )
                    active = [(i, k) for i, (a, k) in enumerate(zip(root.acts, root.kids)) if a in keep]
        stats = {
            a: (k.n, k.w / k.n if k.n else 0.0, None if k.outcome is None else k.outcome[root_state.current_player])
            for a, k in zip(root.acts, root.kids)
        }
        return stats, sims

    # hidden information: a fresh determinization per simulation ----------------------------
    def _search_hidden(self, root_state, rng, budget, deadline, policy, sched=None):
        c = self.config.c
        lam = self.config.lam
        value_fn = self._value_fn
        player = root_state.current_player
        uni = _Uniforms(rng)
        log, sqrt = math.log, math.sqrt
        root = _InfoNode()
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
                    if uni.i >= _UNIFORMS:
                        uni.refill()
                    a = untried[int(uni.buf[uni.i] * len(untried))]
                    uni.i += 1
                    for b in legal:  # every legal sibling was available this time
                        if b in kids:
                            kids[b].avail += 1
                    child = kids[a] = _InfoNode()
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
            r = self._evaluate(s, uni, policy, value_fn, lam)
            root.n += 1
            for k, p in zip(path[1:], movers):
                k.n += 1
                k.w += r[p]
            sims += 1
            if sched is not None and sims == sched.next_at:
                if len(root.kids) < root_actions:  # every root action must have a value first
                    sched.next_at += 1
                else:
                    kids = root.kids.items()
                    active = sched.update(sims, {a: k.n for a, k in kids}, {a: k.w / k.n for a, k in kids})
        stats = {a: (k.n, k.w / k.n if k.n else 0.0, None) for a, k in root.kids.items()}
        return stats, sims

    # leaf evaluation ------------------------------------------------------------------------
    @staticmethod
    def _evaluate(s, uni, policy, value_fn, lam) -> list[float]:
        """Returns per player at the leaf `s` (which is consumed): the rollout result, mixed with
        the value estimate when one is configured."""
        if s.is_terminal():
            return s.returns().tolist()
        v = value_fn(s) if value_fn is not None else None
        if v is not None and lam >= 1.0:
            return v.tolist()
        if policy is None:
            buf, i = uni.buf, uni.i
            while not s.is_terminal():
                legal = s.legal_actions()
                if i >= _UNIFORMS:
                    uni.refill()
                    buf, i = uni.buf, 0
                s.apply_action(legal[int(buf[i] * len(legal))])
                i += 1
            uni.i = i
        else:
            while not s.is_terminal():
                s.apply_action(policy(s))
        z = s.returns()
        if v is None:
            return z.tolist()
        return (lam * v + (1.0 - lam) * z).tolist()


def _heuristic_policy(game: Game, rng: np.random.Generator) -> Callable[[State], int]:
    from agents.heuristics import make_heuristic

    agent = make_heuristic(game, rng)
    choose = getattr(agent, "choose", None)
    if choose is not None:
        return choose
    return lambda s: int(agent.act([s])[0])


def make_value_fn(spec: str, game: Game, rng: np.random.Generator) -> Callable[[State], np.ndarray]:
    """A leaf value estimate from a learned agent: the mover's max legal Q. Two players: the
    other gets the negation (the games are zero-sum). More players: each player's own max Q over
    the mover's legal actions from that player's observation (an approximation: a Q-network only
    scores its own decisions). Clipped to [-1, 1]."""
    import agents

    agent = agents.make(spec, game, rng)
    q_fn = getattr(agent, "network", None)  # a LearnedAgent's numpy Q-network: obs batch -> Q
    if q_fn is None:
        raise UserError(f"mcts value={spec!r}: that agent has no Q-network to estimate values with")
    n = game.num_players

    def value(s: State) -> np.ndarray:
        mover = s.current_player
        mask = s.legal_mask()
        out = np.empty(n)
        if n == 2:
            q = np.asarray(q_fn(s.observation(mover)[None, :]))[0]
            v = float(np.max(q[mask]))
            out[mover] = v
            out[1 - mover] = -v
        else:
            obs = np.stack([s.observation(p) for p in range(n)])
            q = np.asarray(q_fn(obs))
            out[:] = np.where(mask[None, :], q, -np.inf).max(axis=1)
        return np.clip(out, -1.0, 1.0)

    return value


def make_mcts(spec: str, game: Game, rng: np.random.Generator) -> MCTSAgent:
    """agents.make routes every spec starting with 'mcts' here."""
    return MCTSAgent(game, rng, parse_spec(spec))
