"""Exploding Kittens with every chance event as an explicit outcome, for tools that enumerate chance
(OpenSpiel's CFR and best response). Pure Python over the engine; no OpenSpiel here.

The engine draws its chance from a Generator (the deal) and from per-event seeds (the Kitten's
reinsertion, Shuffle, the card a cat pair takes). This wrapper lets the engine play a move, then
replaces what its chance did with outcomes chosen one at a time from explicit distributions, each
the same distribution the engine draws from:
  - "count" (composition "random" only): each card type's count in this game, uniform over
    0..deck[name], type by type;
  - "deal": each card dealt, in the engine's order (seat 0, seat 1, ...), a card type drawn from
    the cards not yet dealt (probability count / cards left): a uniform shuffle dealt from the top;
  - "deck": the deck from the top down, each position a card type (10 = the Kitten) drawn from
    the cards not yet placed: a uniform order of the deck's multiset, one position at a time (at
    most 11 outcomes a node however big the deck). A Shuffle card re-draws the deck this way;
  - "reinsert": where the defused Kitten goes back, uniform over the deck's len + 1 places (0 is
    the bottom, len the top), as the engine's `insert(integers(len + 1))`;
  - "steal": the card type a cat pair takes from the opponent's hand (probability count / hand).
Outcomes are ints: a card type for count (the count itself), deal, deck and steal; a place for
reinsert. So a node has at most MAX_CHANCE_OUTCOMES outcomes.

This reaches into the engine state's private fields (its deck, hands, log) because the engine has
no hook to take chance outcomes from outside; see `ExplicitKittens` for the few places.
"""

from __future__ import annotations

import numpy as np

from games.exploding_kittens import CARD_NAMES, DEFUSE, KITTEN, MAX_CARDS, NUM_TYPES, SHUFFLE, ExplodingKittens

MAX_CHANCE_OUTCOMES = MAX_CARDS + 1  # reinsertion places in the fullest deck; >= 11 card kinds


class ExplicitKittens:
    """An Exploding Kittens game whose chance is resolved by `apply_chance(outcome)`.

    `state` is the engine state once dealt (None before); while `is_chance()` the state is between
    a move and the outcome of its chance and must not be shown to players."""

    __slots__ = ("game", "state", "_slots", "_pool", "_counts", "_dealt", "_placed", "_steal")

    def __init__(self, game: ExplodingKittens):
        self.game = game
        self.state = None
        cfg = game.config
        self._counts = list(cfg.counts())
        self._slots: list[str] = []  # the chance events still to resolve, first first
        if cfg.composition == "random":
            self._slots += ["count"] * NUM_TYPES
            self._counts = []
        self._dealt: list[tuple[int, int]] = []  # (seat, card) in the engine's dealing order
        self._placed: list[int] = []  # the deck being drawn, top first
        self._pool: list[int] = []  # cards (by type, 11 kinds) not yet dealt or placed
        self._steal = None  # (thief, victim) while a cat pair's card is to be drawn
        if cfg.composition == "fixed":
            self._start_deal()

    def clone(self) -> ExplicitKittens:
        c = ExplicitKittens.__new__(ExplicitKittens)
        c.game = self.game
        c.state = None if self.state is None else self.state.clone()
        c._slots, c._pool, c._counts = self._slots[:], self._pool[:], self._counts[:]
        c._dealt, c._placed, c._steal = self._dealt[:], self._placed[:], self._steal
        return c

    # --- the deal ------------------------------------------------------------------------------
    def _start_deal(self) -> None:
        self._pool = self._counts + [0]
        deals = 2 * min(self.game.config.deal, sum(self._counts) // 2)
        if deals:
            self._slots += ["deal"] * deals
        else:
            self._deal_done()

    def _deal_done(self) -> None:
        """The deck's non-Kitten cards and the Kitten, to be placed from the top down."""
        self._pool[KITTEN] = 1
        self._slots = ["deck"] * sum(self._pool)
        self._placed = []

    def _build(self) -> None:
        """The engine state of the chosen composition, deal and deck (a throwaway seed, then the
        engine's own fields overwritten with the chosen outcomes)."""
        s = self.game.new_initial_state(np.random.default_rng(0))
        cfg = self.game.config
        s._comp = tuple(self._counts)
        s._hands = [[0] * NUM_TYPES for _ in range(2)]
        for p in range(2):
            s._hands[p][DEFUSE] = cfg.hand_defuses
        s._log = []
        for p, c in self._dealt:
            s._hands[p][c] += 1
            s._log.append((p, "draw", c))
        s._deck = self._placed[::-1]  # the engine's deck ends with its top
        self.state = s

    # --- the chance interface ----------------------------------------------------------------
    def is_chance(self) -> bool:
        return bool(self._slots)

    def is_terminal(self) -> bool:
        return not self._slots and self.state.is_terminal()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        slot = self._slots[0]
        if slot == "count":
            top = self.game.config.counts()[len(self._counts)]
            return [(k, 1.0 / (top + 1)) for k in range(top + 1)]
        if slot == "reinsert":
            places = len(self.state._deck) + 1
            return [(k, 1.0 / places) for k in range(places)]
        if slot == "steal":
            hand = self.state._hands[self._steal[1]]
            return [(t, hand[t] / sum(hand)) for t in range(NUM_TYPES) if hand[t]]
        total = sum(self._pool)  # deal and deck: a card of the pool
        return [(t, n / total) for t, n in enumerate(self._pool) if n]

    def outcome_name(self, outcome: int) -> str:
        """The next chance outcome `outcome` in words, e.g. "deck: skip", "Kitten back at place 2"."""
        slot = self._slots[0]
        card = "Kitten" if outcome == KITTEN else CARD_NAMES[outcome] if outcome < NUM_TYPES else str(outcome)
        if slot == "count":
            return f"{outcome} x {CARD_NAMES[len(self._counts)]}"
        if slot == "deal":
            return f"deal {card} to player {len(self._dealt) % 2}"
        if slot == "reinsert":
            return f"Kitten back at place {outcome} from the bottom"
        return f"{slot}: {card}"

    def apply_chance(self, outcome: int) -> None:
        if outcome not in dict(self.chance_outcomes()):
            raise ValueError(f"exploding_kittens: {outcome} is not a chance outcome here")
        slot = self._slots.pop(0)
        if slot == "count":
            self._counts.append(outcome)
            if len(self._counts) == NUM_TYPES:
                self._start_deal()
        elif slot == "deal":
            self._pool[outcome] -= 1
            self._dealt.append((len(self._dealt) % 2, outcome))
            if not self._slots:
                self._deal_done()
        elif slot == "deck":
            self._pool[outcome] -= 1
            self._placed.append(outcome)
            if not self._slots:
                self._finish_deck()
        elif slot == "reinsert":
            self.state._deck.insert(outcome, KITTEN)
        elif slot == "steal":
            thief, victim = self._steal
            s = self.state
            s._remove(victim, outcome)  # the engine's own steal, with the card chosen here
            s._hands[thief][outcome] += 1
            s._known[thief][outcome] += 1
            s._log.append((thief, "steal", outcome))
            self._steal = None

    def _finish_deck(self) -> None:
        if self.state is None:
            self._build()
        else:  # a Shuffle: the same cards in the drawn order
            self.state._deck = self._placed[::-1]

    # --- moves ------------------------------------------------------------------------------
    def apply_action(self, action: int) -> None:
        """A player's move through the engine, then its chance (if any) queued as explicit slots."""
        if self._slots:
            raise ValueError("exploding_kittens: a chance outcome is due, not a move")
        s = self.state
        mover = s.current_player
        before_known = [k[:] for k in s._known]
        log_len = len(s._log)
        s.apply_action(action)
        events = s._log[log_len:]
        if not events:
            return
        who, event, card = events[-1]
        if event == "defuse":  # take the Kitten back out; its place is a chance outcome
            s._deck.remove(KITTEN)
            self._slots = ["reinsert"]
        elif event == "play" and card == SHUFFLE:
            self._pool = [0] * (NUM_TYPES + 1)
            for c in s._deck:
                self._pool[c] += 1
            self._slots = ["deck"] * len(s._deck)
            self._placed = []
        elif event == "steal":  # undo the engine's pick; the card is a chance outcome
            victim = 1 - mover
            s._log.pop()
            s._hands[mover][card] -= 1
            s._known[mover][card] -= 1
            s._hands[victim][card] += 1
            s._known[victim] = before_known[victim]
            self._steal = (mover, victim)
            self._slots = ["steal"]
