"""A simple rule bot for Legends of Code and Magic 1.2 (`heuristic`): it drafts the card with the
most attack, defense and keywords for its cost, and in battle plays its dearest affordable cards
first (creatures into the emptier lane, items on the strongest creature they may target), then
attacks the opponent whenever no Guard stands in the way."""

from __future__ import annotations

from agents.base import RuleAgent
from agents.heuristics.locm_drafter_file import FieldBots
from agents.heuristics.locm_field import FIELD_AGENTS
from games.locm import ATTACK, CARDS, CREATURE, PASS, PICK, SUMMON, USE


def draft_score(number: int) -> float:
    """Attack + defense + 2 per keyword, per mana (items count half)."""
    c = CARDS[number]
    value = abs(c.attack) + abs(c.defense) + 2 * bin(c.keywords).count("1")
    return value / (c.cost + 1) * (1.0 if c.type == CREATURE else 0.5)


class HeuristicAgent(RuleAgent):
    spec = "heuristic"

    def choose(self, state) -> int:
        legal = state.legal_actions()
        if legal[0] >= PICK:
            offers = state.offers()
            return max(legal, key=lambda a: draft_score(offers[a - PICK]))
        p = state.current_player
        hand = state.hand(p)
        plays = [a for a in legal if SUMMON <= a < ATTACK]
        if plays:
            return max(plays, key=lambda a: self._play_value(state, hand, p, a))
        attacks = [a for a in legal if a >= ATTACK]
        if attacks:
            face = [a for a in attacks if (a - ATTACK) % 4 == 0]
            return face[0] if face else attacks[0]
        return PASS

    @staticmethod
    def _play_value(state, hand: list[int], p: int, action: int) -> tuple:
        if action < USE:
            h, lane = divmod(action - SUMMON, 2)
            return (CARDS[hand[h]].cost, -len(state.lanes(p)[lane]))
        h, target = divmod(action - USE, 13)
        if target == 0:
            return (CARDS[hand[h]].cost, 0)
        side = p if target <= 6 else 1 - p
        lane, i = divmod((target - 1) % 6, 3)
        return (CARDS[hand[h]].cost, state.lanes(side)[lane][i]["attack"])


#: LOCM's rule agents: `heuristic`, the competition's field (agents/heuristics/locm_field.py:
#: `DRAFTER+BATTLER`, or one name) and drafter files (`PATH.toml+BATTLER`, locm_drafter_file.py)
BOTS = FieldBots({"heuristic": HeuristicAgent, **FIELD_AGENTS})
