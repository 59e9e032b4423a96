"""Search over the rest of the mover's turn, judged by an afterstate value network at the turn's end.

In a game whose turn is a sequence of actions by one player (Legends of Code and Magic: summons, attacks
and items until PASS), the afterstate battler (agents/afterstate.py) judges each action by the state it
leads to, before the rest of the turn is played. A turn search judges each legal action by the state
in which the turn ends when the rest of it is played by a policy (the same network's afterstate
choices by default), so an action is worth what it makes possible later in the turn (a summon that
clears the way for the attacks that follow):

    Q(s, a) = V(end of turn after a, then the policy's actions, from the mover's view)

with V the afterstate value network (`V(s, p)`, agents/afterstate.py), a finished game worth its
return. Every legal action of every game is played out at once on the vectorised engine's copies, one
policy call per step of the turn. In a game of hidden information the search runs on a
determinisation (`State.resample_hidden` from the mover's view, drawn from the agent's `rng`), so it
never looks at the opponent's hand or either deck's order. This is one-ply search with a policy
rollout to the turn's end: the rollout algorithm of Bertsekas, *Rollout, Policy Iteration, and
Distributed Reinforcement Learning* (2020), ch. 2, with the turn's end as its horizon.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.afterstate import AfterstateAgent, afterstate_features, afterstates
from agents.base import Agent
from agents.scored_choice import best_actions
from games import Game, State
from games.batch import BatchState, batch_of

#: the most policy steps a rollout plays before its state is judged (a turn longer than this is judged
#: where it stands)
MAX_TURN_STEPS = 60


class TurnSearchAgent(Agent):
    """Takes the legal action whose turn, played on by `policy`, ends in the state `value` (an
    AfterstateAgent) values most for the mover; ties go to the lowest action."""

    def __init__(
        self,
        game: Game,
        value: AfterstateAgent,
        policy: Agent | None = None,
        rng: np.random.Generator | None = None,
        max_steps: int = MAX_TURN_STEPS,
    ):
        self.game, self.value = game, value
        self.policy = value if policy is None else policy
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.max_steps = max_steps
        self.hidden = game.facts.hidden_information

    def act(self, states: Sequence[State]) -> np.ndarray:
        roots = [s.resample_hidden(s.current_player, self.rng) if self.hidden else s.clone() for s in states]
        return self.search(batch_of(roots), np.arange(len(roots)))

    def search(self, batch: BatchState, games: np.ndarray) -> np.ndarray:
        """The chosen action of each game `games` of `batch` (its states seen as they are)."""
        players = batch.current_players()[games]
        masks = batch.legal_masks(games)
        rows, actions = np.nonzero(masks)
        owner = players[rows]
        copies = afterstates(batch, games[rows], actions)
        for _ in range(self.max_steps):
            live = np.flatnonzero(copies.current_players() == owner)
            if not len(live):
                break
            copies.apply_actions(live, self.policy.act_batch(copies, live))
        features, finished, returns = afterstate_features(copies, owner)
        values = np.asarray(returns, dtype=np.float64).copy()
        if (~finished).any():
            values[~finished] = np.asarray(self.value.network(features[~finished]), dtype=np.float64)[:, 0]
        return best_actions(rows, actions, values, len(games))
