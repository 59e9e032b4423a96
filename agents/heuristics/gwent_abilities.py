"""A rule bot for Gwent Abilities: win two rounds while spending as few cards as possible.

Each card in hand is scored by what playing it now does, found by playing it on a copy of the
state (with its medic or decoy choice made by the same rule): the change in the round's margin
(my total minus the opponent's, so a scorch that burns their best card or a weather that freezes
their strong row counts), plus `draw_value` per card it brings to the hand (a spy's draws), minus
`keep_share` of what the card is worth when kept for later (`worth`). Then the round decides:
- a round the opponent wins the game with (they hold rounds_to_win - 1 wins): play on while
  behind, never pass behind; ahead, pass only once they have passed;
- a round that wins me the game: do not fight for it with more than a cheap card (worth at most
  `cheap_worth`): pass when ahead, else play the least worthy card that gets me ahead if it is cheap;
- an open round: spies first (cards now are cards later); pass when ahead (they must spend to
  catch up); once they have passed, take the round with one cheap card or concede it; while they
  play on, play the least worthy card that gets me ahead (the best card if none does) while that
  keeps me level with them in cards, else concede and keep the cards.
"""

from __future__ import annotations

import numpy as np

from agents.base import RuleAgent
from games import Game
from games.gwent_abilities import CARDS, MEDIC_CHOICE, NO_CHOICE
from games.gwent_abilities_cards import CLEAR, DECOY, MEDIC, SCORCH, SPY, WEATHER

PASS = 0
#: what a special card is worth kept in hand (its play is scored by its effect)
SPECIAL_WORTH = {SCORCH: 6.0, DECOY: 3.0, WEATHER: 2.0, CLEAR: 1.0}


def worth(k: int, draw_value: float) -> float:
    """What card `k` is worth kept for later: a unit its power (a spy what it draws less what it
    gives, a medic one card more), a special card SPECIAL_WORTH."""
    c = CARDS[k]
    if c.special:
        return SPECIAL_WORTH[c.ability]
    if c.ability == SPY:
        return 2 * draw_value - c.power
    if c.ability == MEDIC:
        return c.power + draw_value
    return float(c.power)


class HeuristicAgent(RuleAgent):
    """Plays Gwent Abilities by the rules above (deterministic; `rng` is unused)."""

    spec = "heuristic"

    def __init__(
        self,
        game: Game,
        rng: np.random.Generator | None = None,
        draw_value: float = 5.0,
        keep_share: float = 0.6,
        cheap_worth: float = 8.0,
    ):
        super().__init__(game, rng)
        self.last = game.config.rounds_to_win - 1
        self.draw_value = draw_value
        self.keep_share = keep_share
        self.cheap_worth = cheap_worth

    # scoring ----------------------------------------------------------------------------------
    def _outcome(self, s, action: int) -> tuple[int, int]:
        """(change of my margin, cards gained in hand besides the one played) when `action` is
        played in `s` (its choices made by this rule)."""
        me = s.current_player
        t = s.clone()
        t.apply_action(action)
        while not t.is_terminal() and t.current_player == me and t.pending != NO_CHOICE:
            t.apply_action(self._choose_target(t))
        before = s.round_totals
        ended = t.is_terminal() or t.round != s.round
        after = t.last_round_totals if ended else t.round_totals
        gain = (after[me] - after[1 - me]) - (before[me] - before[1 - me])
        drawn = 0 if ended else t.hand_sizes[me] - s.hand_sizes[me] + 1
        return gain, drawn

    def _choose_target(self, s) -> int:
        """A medic revives the card that does most now; a decoy takes back what is worth most in
        hand against what it adds on the board."""
        me = s.current_player
        legal = s.legal_actions()
        if s.pending == MEDIC_CHOICE:
            scored = []
            for a in legal:
                t = s.clone()
                t.apply_action(a)  # a further medic's choice is left open: its worth covers it
                gain = (t.round_totals[me] - t.round_totals[1 - me]) - (s.round_totals[me] - s.round_totals[1 - me])
                if t.pending == MEDIC_CHOICE:
                    gain += self.draw_value
                scored.append((gain + self.draw_value * (t.hand_sizes[me] - s.hand_sizes[me]), -a))
            return -max(scored)[1]
        return max(legal, key=lambda a: (worth(a - 1, self.draw_value) - s.strength(me, CARDS[a - 1].name), -a))

    def _options(self, s) -> list[tuple[float, int, int]]:
        """(score, margin gain, action) of every card the player to move may play."""
        out = []
        for a in s.legal_actions()[1:]:
            gain, drawn = self._outcome(s, a)
            score = gain + self.draw_value * drawn - self.keep_share * worth(a - 1, self.draw_value)
            out.append((score, gain, a))
        return out

    # the round --------------------------------------------------------------------------------
    def choose(self, s) -> int:
        if s.pending != NO_CHOICE:
            return self._choose_target(s)
        me, op = s.current_player, 1 - s.current_player
        totals = s.round_totals
        margin = totals[me] - totals[op]
        op_passed = s.passed[op]
        if op_passed and margin > 0:
            return PASS  # the round is mine
        options = self._options(s)
        if not options:
            return PASS
        best = max(options)
        # the card that gets me ahead and is worth least kept (the better score among equals)
        reaching = [(worth(o[2] - 1, self.draw_value), -o[0], o[2], o) for o in options if margin + o[1] > 0]
        cheapest_reach = min(reaching)[3] if reaching else None
        cheap = cheapest_reach is not None and worth(cheapest_reach[2] - 1, self.draw_value) <= self.cheap_worth

        if s.round_wins[op] >= self.last:  # losing this round loses the game
            if margin > 0 and not op_passed and s.hand_sizes[op] == 0:
                return PASS
            if op_passed:
                return (cheapest_reach or max(options, key=lambda o: (o[1], o[2])))[2]
            return best[2]

        if s.round_wins[me] >= self.last:  # winning this round wins me the game
            if margin > 0:
                return PASS
            return cheapest_reach[2] if cheap else PASS

        # an open round
        spies = [o for o in options if CARDS[o[2] - 1].ability == SPY and o[0] > 0]
        if spies and not op_passed:
            return max(spies)[2]
        if margin > 0:
            return PASS  # ahead: they must spend to catch up
        if op_passed:
            return cheapest_reach[2] if cheap else PASS
        if s.hand_sizes[me] - 1 >= s.hand_sizes[op] - 1:
            return (cheapest_reach or best)[2]
        return PASS  # catching up costs my card advantage: concede and keep the cards
