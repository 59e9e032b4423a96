"""Evaluation of one agent against fixed baselines, and the exact exploitability of an agent in a small game.

`evaluate(game, agent, ["random", "heuristic"], num_games, seed)` plays the agent against each
opponent spec with seats rotated (`agents.arena.play_match`); in a game of 3+ players the opponent
fills every other seat (one independent copy per seat). Every figure has a 95 % Wilson interval.

`exploitability(game, agent)` (a game whose facts say `exact_exploitability`: Tic Tac Toe) searches
every opponent move against the agent's (deterministic) choices: the best response's result from
either seat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

import agents
from agents import perfect_play
from agents.arena import AgentResult, play_match, record_dict
from agents.base import Agent
from agents.panel import AgentPanel
from agents.stats import Record
from games import Game, State, UserError


def make_opponents(game: Game, specs: Sequence[str], seed: int) -> list[list[Agent | AgentPanel]]:
    """For each spec (an agent or a panel), `num_players - 1` independent copies (own seeds) to fill
    the other seats."""
    out = []
    for k, spec in enumerate(specs):
        out.append(
            [
                agents.make_panel(spec, game, seed=np.random.default_rng([seed, 1 + k, j]))
                for j in range(game.num_players - 1)
            ]
        )
    return out


def _merge(spec: str, results: Sequence[AgentResult]) -> dict:
    """One report entry for the agents in `results` together (e.g. the copies of one opponent)."""
    total, by_seat = Record(), {}
    for r in results:
        total = total + r.record
        for seat, rec in r.by_seat.items():
            by_seat[seat] = by_seat.get(seat, Record()) + rec
    return _entry(spec, total, by_seat)


def _entry(spec: str, total: Record, by_seat: dict[int, Record]) -> dict:
    return {
        "spec": spec,
        **record_dict(total),
        "by_seat": {str(seat): record_dict(r, per_seat=True) for seat, r in sorted(by_seat.items())},
    }


def evaluate(
    game: Game,
    agent: Agent | AgentPanel,
    opponent_specs: Sequence[str],
    num_games: int,
    seed: int = 0,
    progress: Callable[[int, int, str], None] | None = None,
) -> dict:
    """The agent against each opponent, `num_games` games each, seats rotated. Returns
    {"game", "games", "seed", "agents": [agent overall, each opponent...], "matches": [...]}.
    `progress(done, total, what)` per batch, one stage per opponent."""
    spec = getattr(agent, "spec", "?")
    matches, overall, overall_by_seat = [], Record(), {}
    for opponent_spec, copies in zip(opponent_specs, make_opponents(game, opponent_specs, seed)):
        result = play_match(
            game,
            [agent, *copies],
            num_games,
            seed=seed,
            rotate=True,
            progress=progress,
            what=f"{game.name}: {spec} vs {opponent_spec}",
        )
        mine = result.agents[0]
        overall = overall + mine.record
        for seat, rec in mine.by_seat.items():
            overall_by_seat[seat] = overall_by_seat.get(seat, Record()) + rec
        matches.append(
            {
                "vs": opponent_spec,
                "agent": _merge(spec, result.agents[:1]),
                "opponent": _merge(opponent_spec, result.agents[1:]),
                "seconds": result.seconds,
            }
        )
    return {
        "game": game.name,
        "games": num_games,
        "seed": seed,
        "agents": [_entry(spec, overall, overall_by_seat)] + [m["opponent"] for m in matches],
        "matches": matches,
    }


# --- exact exploitability (games whose facts say exact_exploitability) -------------------------------
def exploitability(game: Game, agent: Agent) -> dict:
    """The best response's result against `agent` from either seat, by searching every opponent
    move (the agent is asked for its move at each position it can reach, so it must be
    deterministic). Returns {"as_player_0": v0, "as_player_1": v1, "exploitability": max(v0, v1)}
    where v_s is the best responder's return (+1 win, 0 draw, -1 loss) when the agent plays seat s;
    the agent is unexploitable if the max is <= 0. Positions are told apart by the mover and the mover's
    observation, which identify a position in a game whose facts say `exact_exploitability`."""
    if not game.facts.exact_exploitability:
        raise UserError(
            f"exact exploitability is computed for games whose facts say exact_exploitability, not {game.name}"
        )
    out = {}
    for seat in range(game.num_players):
        cache: dict[tuple, float] = {}
        root = game.new_initial_state(np.random.default_rng(0))
        out[f"as_player_{seat}"] = -_agent_value(root, agent, seat, cache) + 0.0  # no -0.0
    out["exploitability"] = max(out[f"as_player_{s}"] for s in range(game.num_players))
    return out


def _agent_value(state: State, agent: Agent, seat: int, cache: dict) -> float:
    """The agent's return (at `seat`) when every other move is chosen to minimise it."""
    if state.is_terminal():
        return float(state.returns()[seat])
    key = (state.current_player, state.observation(state.current_player).tobytes())
    if key in cache:
        return cache[key]
    if state.current_player == seat:
        child = state.clone()
        child.apply_action(int(agent.act([state])[0]))
        value = _agent_value(child, agent, seat, cache)
    else:
        value = np.inf
        for a in state.legal_actions():
            child = state.clone()
            child.apply_action(a)
            value = min(value, _agent_value(child, agent, seat, cache))
    cache[key] = value
    return value


# --- `deckopt eval` ------------------------------------------------------------------------------
def default_opponents(game: Game) -> list[str]:
    return list(game.facts.eval_opponents)


def evaluate_spec(
    game: Game,
    spec: str,
    vs: Sequence[str] | None,
    num_games: int,
    seed: int = 0,
    progress: Callable[[int, int, str], None] | None = None,
    perfect: int = 0,
) -> dict:
    """`deckopt eval`: the agent `spec` against each opponent (default: the game's `eval_opponents`
    fact), plus the exact exploitability where the game's facts say `exact_exploitability`; with
    `perfect` N, also against perfect play as the game's `perfect_play` fact says
    (agents/perfect_play.py): N solved positions, or N games against `exact`. A panel (agents.panel)
    plays each deal with one of its members; perfect play and exploitability check one agent."""
    agent = agents.make_panel(spec, game, seed=np.random.default_rng([seed, 0]))
    if perfect and isinstance(agent, AgentPanel):
        raise UserError(f"perfect play checks one agent, not the panel {spec!r}")
    check = perfect_play.check_of(game) if perfect else None
    report = evaluate(game, agent, list(vs) if vs else default_opponents(game), num_games, seed, progress)
    report["agents"][0]["spec"] = spec
    if check is not None:
        report[check.report_key] = check.run(game, agent, perfect, seed, progress)
    if game.facts.exact_exploitability:
        if getattr(agent, "deterministic", False):
            report["exploitability"] = exploitability(game, agent)
        else:  # the search assumes one fixed move per position
            report["exploitability"] = {"skipped": f"{spec} is not a deterministic agent"}
    return report


def format_report(report: dict, seconds: float | None = None) -> str:
    """A readable table: per opponent, the agent's wins/draws/losses overall and per seat, with CIs."""
    agent = report["agents"][0]
    lines = [
        f"{report['game']}: {agent['spec']} against {len(report['matches'])} opponent(s), "
        f"{report['games']} games each, seats rotated, seed {report['seed']}"
        + (f", {seconds:.1f} s" if seconds else "")
    ]
    width = max(10, *(len(m["vs"]) for m in report["matches"])) + 2
    lines.append(f"{'vs':<{width}}{'seat':>5}{'games':>7}{'wins':>7}{'draws':>7}{'losses':>8}{'win rate':>10}  95% CI")

    def row(label: str, seat: str, r: dict) -> str:
        n = r["wins"] + r["draws"] + r["losses"]
        lo, hi = r["win_rate_ci95"]
        counts = f"{n:>7}{r['wins']:>7}{r['draws']:>7}{r['losses']:>8}"
        return f"{label:<{width}}{seat:>5}{counts}{r['wins'] / max(n, 1):>10.3f}  [{lo:.3f}, {hi:.3f}]"

    for m in report["matches"]:
        lines.append(row(m["vs"], "all", m["agent"]))
        for seat, r in m["agent"]["by_seat"].items():
            lines.append(row("", seat, r))
    if len(report["matches"]) > 1:
        lines.append(row("(overall)", "all", agent))
    lines += perfect_play.format_lines(report)
    ex = report.get("exploitability")
    if ex:
        if "skipped" in ex:
            lines.append(f"exploitability: skipped ({ex['skipped']})")
        else:
            word = {1.0: "wins", 0.0: "draws", -1.0: "loses"}
            verdict = "unexploitable" if ex["exploitability"] <= 0 else "EXPLOITABLE"
            lines.append(
                "exploitability (best response searched over every opponent move): "
                f"agent as player 0 -> best response {word[float(ex['as_player_0'])]}, "
                f"as player 1 -> best response {word[float(ex['as_player_1'])]}: {verdict}"
            )
    return "\n".join(lines)
