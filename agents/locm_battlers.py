"""LOCM battlers on the vectorised engine (games.locm_batch.LocmBatch), by spec: a scripted battler of
the competition's field by name (agents.heuristics.locm_field.BATTLERS_BATCH), or a learned one, an
agent spec of a LOCM model (a model file such as agents/pretrained/locm_0.npz, a run folder) or of a
panel of them (a named panel such as `locm_league3_scorer_panel`, or a comma list), each member loaded
once per process (`batch_battler`), so work units carry the spec alone.

Several battlers take the games in turn by draw: the game of draw d is battled by battler
d mod B, and a panel's game by its member (d // B) mod n (`battle_actions`); every battler plays all
its games of a batch step in one call (a learned one: one `act_batch`, one network pass).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np

from agents import make, split_agent_specs
from agents.heuristics.locm_field import BATTLERS_BATCH
from agents.panel import NAMED_PANELS, named_panels_help
from games import make as make_game
from games.errors import UserError
from games.locm_batch import LocmBatch

#: a batch battler: (batch, games, rng) -> one action per game
BatchBattler = Callable[[LocmBatch, np.ndarray, np.random.Generator | None], np.ndarray]

LEARNED_HELP = f"a LOCM model file (.npz) or a named LOCM panel ({named_panels_help('locm')})"
BATTLERS_HELP = f"{', '.join(BATTLERS_BATCH)}, or {LEARNED_HELP}"


def battler_members(spec: str) -> tuple[str, ...]:
    """The battlers that battle for `spec`: a scripted battler itself, a panel's members (a named
    panel's model files, a comma list's specs), a model alone."""
    spec = str(spec).strip()
    return (spec,) if spec in BATTLERS_BATCH else tuple(split_agent_specs(spec))


def check_battler(spec: str) -> None:
    """UserError in one line unless `spec` names a battler: a scripted battler, a LOCM model or a panel
    of them (each member loaded, so a model of another game or a missing file is refused here)."""
    spec = str(spec).strip()
    panel = NAMED_PANELS.get(spec)
    if panel is not None and panel["game"] != "locm":
        raise UserError(f"battler {spec!r} is the {panel['game']} panel, not a LOCM battler; battlers: {BATTLERS_HELP}")
    members = battler_members(spec)
    if not members:
        raise UserError(f"battler {spec!r} names no battler; battlers: {BATTLERS_HELP}")
    for member in members:
        if member in BATTLERS_BATCH:
            continue
        if not member.endswith((".npz", ".keras")) and "/" not in member:
            raise UserError(f"unknown battler {member!r}; battlers: {BATTLERS_HELP}")
        try:
            batch_battler(member)
        except UserError as exc:
            raise UserError(f"battler {member!r}: {exc}") from None


@functools.cache
def batch_battler(member: str) -> BatchBattler:
    """The batch form of one battler: a scripted battler's, or a learned agent's `act_batch` (loaded
    once per process, from seed 0: a greedy agent draws nothing)."""
    if member in BATTLERS_BATCH:
        return BATTLERS_BATCH[member]
    agent = make(member, make_game("locm"), seed=0)
    return lambda batch, games, rng=None: agent.act_batch(batch, games)


def battle_actions(
    specs: Sequence[str], batch: LocmBatch, games: np.ndarray, draws: np.ndarray, rng: np.random.Generator | None
) -> np.ndarray:
    """One action for each game `games[i]` (all in the battle), battled by `specs[draws[i] mod B]`, a
    panel's game by its member `(draws[i] // B) mod n`; each battler (each member) plays its games in
    one call, in the order of `specs` and their members (random draws come from `rng` in that order)."""
    out = np.zeros(len(games), dtype=np.int64)
    b_of = draws % len(specs)
    for b, spec in enumerate(specs):
        members = battler_members(spec)
        mine = b_of == b
        member_of = (draws // len(specs)) % len(members)
        for m, member in enumerate(members):
            group = np.flatnonzero(mine & (member_of == m))
            if len(group):
                out[group] = batch_battler(member)(batch, games[group], rng)
    return out
