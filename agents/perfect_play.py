"""Agents checked against perfect play, where we have it exactly: the check a game's facts name in
`GameFacts.perfect_play` (`check_of(game)`, used by `deckopt eval --perfect N`).

- "solved_positions", Connect Four (`connect_four_positions`): positions from seeded `mcts:100`
  self-play, cut at a random ply in 14..26 and solved by agents/connect_four_solver.py (a position needing more than
  `max_nodes` nodes is skipped, and counted); the share of them in which the agent's move keeps the
  game-theoretic outcome (win, draw or loss), with a Wilson interval, overall and on the critical ones
  (where some move changes the outcome). `solved_connect_four_positions` solves the positions once and
  `kept_outcomes` checks an agent on them, so several agents can be checked on the same positions.
- "exact_opponent", Exploding Kittens with open hands (`kittens_shortfall`): the agent plays `exact`, seats rotated; at
  each of the agent's decisions, the exact winning chance its move gives up (the best action's value
  minus its action's, from the `exact` bot's `action_values`). The exact opponent and the chance events leave the
  value unchanged on average, so a game's sum of those losses has the mean E[game value - agent's
  result]: the agent's shortfall from perfect play, measured without the luck of the draw (the
  games' results vary by +-0.5, these sums are zero in most games). Per seat: the mean with a 95 %
  bootstrap interval (the sums are skewed: mostly zero, a few large).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import agents
from agents.base import Agent
from agents.connect_four_solver import Solver, TooHard
from agents.stats import wilson_ci
from games import Game, State, UserError
from games.connect_four import ConnectFour

PLY_LO, PLY_HI = 14, 26
MAX_NODES = 400_000
BOOTSTRAP = 10_000


@dataclass(frozen=True)
class SolvedPositions:
    """Connect Four positions with the game-theoretic value of each legal move for the player to move
    (+1 win, 0 draw, -1 loss), and how many positions were skipped as too hard to solve."""

    states: list[State]
    move_values: list[dict[int, int]]
    skipped_too_hard: int
    plies: tuple[int, int]


def solved_connect_four_positions(
    game: Game,
    num_positions: int,
    seed: int = 0,
    progress: Callable[[int, int, str], None] | None = None,
    max_nodes: int = MAX_NODES,
    plies: tuple[int, int] = (PLY_LO, PLY_HI),
) -> SolvedPositions:
    """`num_positions` positions of seeded `mcts:100` self-play, cut at a random ply in `plies`, solved
    (see the module's docstring); the same seed gives the same positions, whatever agent is checked on them."""
    if not isinstance(game, ConnectFour):
        raise UserError(f"positions against perfect play are solved for Connect Four, not {game.name}")
    rng = np.random.default_rng([seed, 7])
    make_positions = agents.make("mcts:100", game, seed=np.random.default_rng([seed, 8]))
    states, move_values, skipped, tried = [], [], 0, 0
    while len(states) < num_positions:
        tried += 1
        if tried > 20 * num_positions + 100:
            raise UserError(f"only {len(states)} of {num_positions} positions could be solved within {max_nodes} nodes")
        state = game.new_initial_state(rng)
        for _ in range(int(rng.integers(plies[0], plies[1] + 1))):
            if state.is_terminal():
                break
            state.apply_action(int(make_positions.act([state])[0]))
        if state.is_terminal():
            continue
        solver = Solver(max_nodes)
        try:
            values = {}
            for a in state.legal_actions():
                child = state.clone()
                child.apply_action(a)
                values[a] = -solver.value(child)
        except TooHard:
            skipped += 1
            continue
        states.append(state)
        move_values.append(values)
        if progress is not None:
            progress(len(states), num_positions, "positions")
    return SolvedPositions(states, move_values, skipped, tuple(plies))


def kept_outcomes(agent: Agent, positions: SolvedPositions) -> dict:
    """The share of `positions` in which the agent's move keeps the game-theoretic outcome, with a
    Wilson interval, overall and on the critical ones (where some move changes the outcome)."""
    kept, critical = [], []
    for state, values in zip(positions.states, positions.move_values):
        move = int(agent.act([state])[0])
        kept.append(values[move] == max(values.values()))
        critical.append(len(set(values.values())) > 1)
    num_positions = len(kept)
    kept_arr, critical_arr = np.array(kept), np.array(critical)
    n_crit = int(critical_arr.sum())
    return {
        "positions": num_positions,
        "plies": list(positions.plies),
        "skipped_too_hard": positions.skipped_too_hard,
        "kept": float(kept_arr.mean()),
        "kept_ci95": list(wilson_ci(float(kept_arr.sum()), num_positions)),
        "critical": n_crit,
        "kept_critical": float(kept_arr[critical_arr].mean()) if n_crit else None,
        "kept_critical_ci95": list(wilson_ci(float(kept_arr[critical_arr].sum()), n_crit)) if n_crit else None,
    }


def connect_four_positions(
    game: Game,
    agent: Agent,
    num_positions: int,
    seed: int = 0,
    progress: Callable[[int, int, str], None] | None = None,
    max_nodes: int = MAX_NODES,
    plies: tuple[int, int] = (PLY_LO, PLY_HI),
) -> dict:
    """The agent's moves on `num_positions` solved positions (see the module's docstring)."""
    return kept_outcomes(agent, solved_connect_four_positions(game, num_positions, seed, progress, max_nodes, plies))


def kittens_shortfall(
    game: Game,
    agent: Agent,
    num_games: int,
    seed: int = 0,
    progress: Callable[[int, int, str], None] | None = None,
) -> dict:
    """The agent's shortfall from perfect play against `exact` (see the module's docstring)."""
    if game.facts.perfect_play != "exact_opponent":
        raise UserError(
            f"the shortfall from perfect play is measured on a game with an exact opponent; {game.name} has none"
            + (f" (it has with {game.facts.perfect_play_note})" if game.facts.perfect_play_note else "")
        )
    exact = agents.make("exact", game, seed=0)
    sums: dict[int, list[float]] = {0: [], 1: []}
    results: dict[int, list[float]] = {0: [], 1: []}
    decisions = losing = 0
    for g in range(num_games):
        seat = g % 2
        state = game.new_initial_state(np.random.default_rng([seed, g]))
        lost = 0.0
        while not state.is_terminal():
            if state.current_player == seat:
                move = int(agent.act([state])[0])
                values = exact.action_values(state)
                regret = max(values.values()) - values[move]
                regret = regret if regret > 1e-12 else 0.0  # equal values reached by other float sums
                lost += regret
                decisions += 1
                losing += regret > 0
            else:
                move = int(exact.act([state])[0])
            state.apply_action(move)
        sums[seat].append(lost)
        results[seat].append(float(state.returns()[seat] > 0))
        if progress is not None:
            progress(g + 1, num_games, "games")
    boot = np.random.default_rng([seed, 9])
    out = {"games": num_games, "decisions": decisions, "losing_decisions": losing, "by_seat": {}}
    for seat in (0, 1):
        x = np.array(sums[seat])
        if len(x) == 0:
            continue
        means = x[boot.integers(0, len(x), size=(BOOTSTRAP, len(x)))].mean(axis=1)
        ci = [float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))]
        if not x.any():  # no loss seen: the bootstrap says [0, 0]; a game loses at most 1, in under 3/n of them
            ci = [0.0, 3.0 / len(x)]
        out["by_seat"][str(seat)] = {
            "games": len(x),
            "games_losing_value": int(np.count_nonzero(x)),
            "shortfall": float(x.mean()),
            "shortfall_ci95": ci,
            "win_rate": float(np.mean(results[seat])),
        }
    return out


@dataclass(frozen=True)
class PerfectPlayCheck:
    """A check against perfect play: `run(game, agent, n, seed, progress)` -> the report's entry `report_key`."""

    report_key: str
    run: Callable[..., dict]


#: the checks by the name a game's facts give in `GameFacts.perfect_play`
CHECKS = {
    "solved_positions": PerfectPlayCheck("positions", connect_four_positions),
    "exact_opponent": PerfectPlayCheck("shortfall", kittens_shortfall),
}


def check_of(game: Game) -> PerfectPlayCheck:
    """The check against perfect play that `game`'s facts name; UserError in one line if none (saying
    under which config the game has one, where its facts tell)."""
    kind = game.facts.perfect_play
    if kind in CHECKS:
        return CHECKS[kind]
    note = game.facts.perfect_play_note
    if note:
        raise UserError(f"perfect play of {game.name} is known with {note} only")
    if kind is not None:
        raise UserError(f"{game.name}: unknown perfect-play check {kind!r}; known: {', '.join(CHECKS)}")
    raise UserError(f"perfect play of {game.name} is not known (its facts name no perfect-play check)")


def format_lines(report: dict) -> list[str]:
    """Lines for `deckopt eval`'s table."""
    lines = []
    pos = report.get("positions")
    if pos:
        lo, hi = pos["kept_ci95"]
        line = (
            f"perfect play: the move keeps the game-theoretic outcome in {pos['kept']:.3f} [{lo:.3f}, {hi:.3f}] of "
            f"{pos['positions']} solved positions (plies {pos['plies'][0]}-{pos['plies'][1]} of mcts:100 self-play; "
            f"{pos['skipped_too_hard']} too hard skipped)"
        )
        if pos["critical"]:
            clo, chi = pos["kept_critical_ci95"]
            line += f"; {pos['kept_critical']:.3f} [{clo:.3f}, {chi:.3f}] of the {pos['critical']} critical ones"
        lines.append(line)
    short = report.get("shortfall")
    if short:
        lines.append(
            f"perfect play: shortfall from the game value against exact ({short['games']} games; "
            f"{short['losing_decisions']} of {short['decisions']} decisions lose value)"
        )
        for seat, r in short["by_seat"].items():
            lo, hi = r["shortfall_ci95"]
            won = f"{r['games_losing_value']} of {r['games']} games lose value; won {r['win_rate']:.3f}"
            lines.append(f"  as player {seat}: {r['shortfall']:.4f} [{lo:.4f}, {hi:.4f}] ({won})")
    return lines
