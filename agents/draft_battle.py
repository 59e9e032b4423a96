"""A Legends of Code and Magic agent made of two: one agent's picks in the draft, another's actions in
the battle. The spec `DRAFTER+BATTLER` with a learned battler (`coac+agents/pretrained/locm_0.npz`, a
drafter file `mine.toml+RUN_FOLDER`): a field drafter (agents/heuristics/locm_field.py) or a drafter
file drafts, a LOCM model battles; with a panel of learned battlers (`coac+locm_league3_scorer_panel`,
a panel file) each member battles behind the same drafter (`agents.split_agent_specs`). With a hosted
competition bot as the battler (`coac+native:CMD`, agents/native.py) the bot battles the drafter's deck:
on each draft turn it is offered the card picked for it, three times (as gym-locm's NativeBattleAgent
makes a bot battle a given deck)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.native import NativeAgent
from games import Game, State
from games.batch import BatchState
from games.locm import DRAFT, Locm
from games.locm_batch import LocmBatch


def is_model_spec(spec: str) -> bool:
    """Whether `spec` names a learned agent by its model: a .npz/.keras path, a run folder, `pretrained`."""
    return spec == "pretrained" or spec.endswith((".keras", ".npz")) or "/" in spec or Path(spec).is_dir()


def drafter_and_battler(spec: str, game: Game) -> tuple[str, str] | None:
    """(drafter spec, battler spec) of a LOCM spec `DRAFTER+BATTLER` whose battler is a learned agent
    (`is_model_spec`) or a hosted bot (`native:CMD`, whose command may hold a `+`); None for any other
    spec or game."""
    drafter, native, command = spec.partition("+native:")
    if native and drafter and isinstance(game, Locm):
        return drafter, f"native:{command}"
    drafter, plus, battler = spec.rpartition("+")
    if not plus or not drafter or not isinstance(game, Locm) or not is_model_spec(battler):
        return None
    return drafter, battler


class DraftThenBattle(Agent):
    """`drafter` picks in the draft, `battler` acts in the battle (each asked for its own games only)."""

    def __init__(self, drafter: Agent, battler: Agent):
        self.drafter, self.battler = drafter, battler
        self.deterministic = drafter.deterministic and battler.deterministic
        limits = [a.games_at_once for a in (drafter, battler) if a.games_at_once]
        self.games_at_once = min(limits) if limits else None

    @property
    def parts(self) -> tuple[Agent, Agent]:
        """The drafter and the battler (agents.arena.has_own_act_batch asks both)."""
        return self.drafter, self.battler

    def act(self, states: Sequence[State]) -> np.ndarray:
        draft = np.array([s.phase == "draft" for s in states], dtype=bool)
        out = np.empty(len(states), dtype=np.int64)
        for agent, mask in ((self.drafter, draft), (self.battler, ~draft)):
            if mask.any():
                out[mask] = agent.act([s for s, m in zip(states, mask, strict=True) if m])
        self._follow([s for s, m in zip(states, draft, strict=True) if m], out[draft])
        return out

    def _follow(self, states: Sequence[State], picks: np.ndarray) -> None:
        """A battler that drafts a deck of its own in its own process (agents.native) is told the picks
        made for it, so that it battles the drafter's deck."""
        if len(states) and isinstance(self.battler, NativeAgent):
            self.battler.follow_draft(states, picks)

    def act_batch(self, batch: BatchState, games: np.ndarray) -> np.ndarray:
        if isinstance(batch, LocmBatch):
            draft = batch.phase[games] == DRAFT
        else:
            draft = np.array([batch.state(int(g)).phase == "draft" for g in games], dtype=bool)
        out = np.empty(len(games), dtype=np.int64)
        for agent, mask in ((self.drafter, draft), (self.battler, ~draft)):
            if mask.any():
                out[mask] = agent.act_batch(batch, games[mask])
        self._follow([batch.state(int(g)) for g in games[draft]], out[draft])
        return out
