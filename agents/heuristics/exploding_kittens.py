"""Exploding Kittens bots (games/RULES.md "Exploding Kittens"), reached through `agents.make(spec, game)`:

- `exact`: perfect play of the open-hands game (games/exploding_kittens_exact.py), the best action by memoised
  dynamic programming over card counts; only with `open_hands` (it reads both hands).
- `belief`: the seed's hidden-information bot (DP_20 with its possibility tracking). It keeps the weighted
  set of worlds (the deck's contents and the opponent's hand, as counts) consistent with what it has
  seen, updated by Bayes' rule from the game's history as this player saw it, assuming the opponent's
  choices carry no information beyond what they hold (a played card rules out the worlds without it),
  and plays the action of the highest belief-weighted exact value. It is a strong bot, not an equilibrium.
- `heuristic`: a club player's rules: cat pairs and Favors when the opponent holds cards; with no Defuse
  and a Kitten chance of 1 in 4 or worse, Attack, else Skip; otherwise draw.
- `always_draw` (the seed's NullBot: never plays a card) and `always_skip` (SkipBot: Skips whenever it
  can, optimal for Skip-only decks without Defuses).
Asked for a Favor, every bot but `exact` and `belief` gives its least useful card (GIVE_ORDER).
`random` is agents.base.RandomAgent.
"""

from __future__ import annotations

from functools import partial

import games.exploding_kittens_exact as dp
from agents.base import RuleAgent
from games import UserError
from games.exploding_kittens import ATTACK, CATS, DEFUSE, DRAW, FAVOR, GIVE, NUM_TYPES, PLAY_ACTIONS, SHUFFLE, SKIP

GIVE_ORDER = (*CATS, SHUFFLE, FAVOR, SKIP, ATTACK, DEFUSE)  # least useful first


def give_least_useful(state) -> int:
    hand = state.hand(state.current_player)
    return GIVE + next(t for t in GIVE_ORDER if hand[t])


def _add(hand: tuple, t: int, n: int) -> tuple:
    return hand[:t] + (hand[t] + n,) + hand[t + 1 :]


def _put(worlds: dict, hand: tuple, deck: tuple, w: float) -> None:
    if w > 0:
        worlds[(hand, deck)] = worlds.get((hand, deck), 0.0) + w


def belief_worlds(state, player: int) -> dict[tuple, float]:
    """{(opponent's hand, deck contents): probability} over the worlds consistent with `player`'s history
    (counts per card type; the Kitten, always in the deck, aside). Bayes' rule over the seed's events:
    a hidden draw splits each world by the deck's counts, own draws and cards taken by a cat pair weigh
    it by their chance, a card the opponent plays or gives rules out the worlds where they lack it."""
    cfg = state.game.config
    opp = 1 - player
    start = _add((0,) * NUM_TYPES, DEFUSE, cfg.hand_defuses)
    comp = tuple(state.composition.values())
    worlds = {(start, comp): 1.0}
    for q, event, card in state.history(player):
        new: dict[tuple, float] = {}
        put = partial(_put, new)
        for (hand, deck), w in worlds.items():
            if event == "draw" and q == player:
                put(hand, _add(deck, card, -1), w * deck[card] / sum(deck))
            elif event == "draw":
                for t in range(NUM_TYPES) if card is None else (card,):
                    if deck[t]:
                        put(_add(hand, t, 1), _add(deck, t, -1), w * deck[t] / sum(deck))
            elif q == opp and event == "defuse" or q == opp and event == "give":
                if hand[card if event == "give" else DEFUSE]:
                    put(_add(hand, card if event == "give" else DEFUSE, -1), deck, w)
            elif q == opp and event == "play":
                n = 2 if card in CATS else 1
                if hand[card] >= n:
                    put(_add(hand, card, -n), deck, w)
            elif event == "steal" and q == player:
                put(_add(hand, card, -1), deck, w * hand[card] / sum(hand))
            elif q == player and event == "give" or event == "steal":
                put(_add(hand, card, 1), deck, w)  # the opponent got one of this player's cards
            else:
                put(hand, deck, w)
        worlds = new
    total = sum(worlds.values())
    return {k: w / total for k, w in worlds.items()}


class ExactAgent(RuleAgent):
    """Perfect play with both hands open."""

    spec = "exact"

    def __init__(self, game, rng):
        super().__init__(game, rng)
        if not game.config.open_hands:
            raise UserError(f"agent 'exact' needs {game.name} with open_hands = true; use 'belief' otherwise")

    def choose(self, state) -> int:
        return dp.best_action(dp.position(state))

    def action_values(self, state) -> dict[int, float]:
        """The mover's exact winning chance after each legal action (games/exploding_kittens_exact.py)."""
        return dp.action_values(*dp.position(state))


class BeliefAgent(RuleAgent):
    """The belief-weighted exact value over the worlds consistent with what this player has seen."""

    spec = "belief"

    def choose(self, state) -> int:
        me = state.current_player
        key = dp.position(state)
        totals: dict[int, float] = {}
        for (hand, deck), w in belief_worlds(state, me).items():
            for a, v in dp.action_values(key[0], hand, deck, *key[3:]).items():
                totals[a] = totals.get(a, 0.0) + w * v
        return max(totals, key=lambda a: (totals[a], -a))


class HeuristicAgent(RuleAgent):
    """Cat pairs and Favors when they can take something; Attack or Skip when the Kitten is near and no
    Defuse is in hand; otherwise draw."""

    spec = "heuristic"
    danger = 4  # play Attack/Skip when the Kitten is on top with chance 1/danger or more

    def choose(self, state) -> int:
        if state.favor_pending:
            return give_least_useful(state)
        legal = state.legal_actions()
        me = state.current_player
        their_cards = state.hand_sizes[1 - me] > 0
        for t in (*CATS, FAVOR):
            if PLAY_ACTIONS[t] in legal and their_cards:
                return PLAY_ACTIONS[t]
        if not state.hand(me)[DEFUSE] and state.deck_size <= self.danger:
            for t in (ATTACK, SKIP):
                if PLAY_ACTIONS[t] in legal:
                    return PLAY_ACTIONS[t]
        return DRAW


class AlwaysDrawAgent(RuleAgent):
    """Never plays a card (the seed's NullBot)."""

    spec = "always_draw"

    def choose(self, state) -> int:
        return give_least_useful(state) if state.favor_pending else DRAW


class AlwaysSkipAgent(RuleAgent):
    """Skips whenever it can, else draws (the seed's SkipBot)."""

    spec = "always_skip"

    def choose(self, state) -> int:
        if state.favor_pending:
            return give_least_useful(state)
        return PLAY_ACTIONS[SKIP] if PLAY_ACTIONS[SKIP] in state.legal_actions() else DRAW


#: the named bots of this game, reached through `agents.make(name, game)`
NAMED_AGENTS = {
    "exact": ExactAgent,
    "belief": BeliefAgent,
    "always_draw": AlwaysDrawAgent,
    "always_skip": AlwaysSkipAgent,
}
