"""Incan Gold heuristic, "leave on risk and haul": stay while the next card is safe enough and the
haul is small; leave when

- the chance that the next card is a second hazard (which would wipe this round's gems) is at
  least `risk` and there is something to lose or to pick up, or
- what leaving now would bank (round gems + an even share of the path's gems among the players
  still inside + the artifacts if they are worth grabbing) reaches `haul`, or
- an artifact is on the path and few enough players are inside that leaving alone is likely.

In the last round it plays for the win: if everyone else is out and leaving now would put it
first, it leaves; if leaving now cannot win, it stays.

It reads only public facts of the state (no deck order, no pending choices of others).
"""

from __future__ import annotations

import numpy as np

from agents.base import RuleAgent
from games.incan_gold import LEAVE, STAY


class HeuristicAgent(RuleAgent):
    spec = "heuristic"

    def __init__(self, game, rng: np.random.Generator, risk: float = 0.15, haul: int = 12, artifact_company: int = 2):
        super().__init__(game, rng)
        self.risk = risk
        self.haul = haul
        self.artifact_company = artifact_company

    def choose(self, state) -> int:
        me = state.current_player
        inside = state.num_in_temple
        mine = state.round_gems[me]
        path_share = state.gems_on_path // inside
        artifacts = state.artifact_worth if inside <= self.artifact_company else 0
        take = mine + path_share + artifacts

        if state.round == self.game.num_rounds:
            banked = state.banked
            others_out = inside == 1
            best_other = max(b for p, b in enumerate(banked) if p != me)
            # leaving alone banks everything on the path, artifacts included
            if others_out:
                final = banked[me] + mine + state.gems_on_path + state.artifact_worth
                return LEAVE if final > best_other else STAY
            if banked[me] + take <= best_other - 5:
                return STAY  # leaving now cannot win: keep going

        danger = state.repeat_hazard_chance
        if danger >= self.risk and take > 0:
            return LEAVE
        if take >= self.haul:
            return LEAVE
        if state.artifacts_on_path and inside <= self.artifact_company:
            return LEAVE
        return STAY
