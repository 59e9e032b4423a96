"""The `mcts:` agent spec: its grammar, its parser and the MCTSConfig it gives (agents/search/uct.py searches).

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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from games import UserError

DEFAULT_SIMULATIONS = 400
DEFAULT_C = 1.4

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
