"""The Gwent Lite deck space: multisets of card powers under `games.decks.DeckRules` (and a
designer's `DeckConstraints`), scored by mirrored matches against opponents (evolution.scoring),
measured against a fixed yardstick, and validated against held-out reference decks.

Every operator is the one of evolution.decks.genome, followed by evolution.decks.constraints when
the run has constraints. The one objective is `win` (the pairwise match score). Its games are dealt
by the vectorised engine (games/gwent_lite_batch.py), which plays exactly as the scalar one.
"""

from __future__ import annotations

import numpy as np

import games
from evolution.decks import constraints, genome
from evolution.decks.gwent_settings import GwentSettings
from evolution.scoring.evaluation import MatchScorer
from evolution.scoring.fitness import game_agent
from evolution.spaces.head_to_head import HeadToHeadSpace
from games.decks import Deck, DeckConstraints, DeckRules, load_deck, save_deck
from games.gwent_lite_batch import GwentLiteBatch

TOP = 5  # the strongest cards whose share of the power is a descriptor


def build_agent(spec: str, rules: DeckRules, seed: int = 0):
    """The agent that plays every seat of Gwent Lite under `rules` (evolution.scoring.fitness.game_agent)."""
    return game_agent(spec, games.make("gwent_lite", rules=rules), seed)


class GwentDeal:
    """Gwent Lite's games of a task under `rules`, dealt as one batch of the vectorised engine
    (evolution.scoring.fitness.Task's `deal`; picklable: plain rules only)."""

    def __init__(self, rules: DeckRules):
        self.rules = rules

    def __call__(self, seeds: list[int], decks: list[tuple]) -> GwentLiteBatch:
        return GwentLiteBatch.deal(games.make("gwent_lite", rules=self.rules), seeds, decks)


class GwentSpace(HeadToHeadSpace):
    """Gwent Lite's power multisets under DeckRules: evolution.decks.genome's operators, each followed by
    evolution.decks.constraints.enforce when the run has constraints (a child that cannot be brought inside
    them gives way to a copy of its parent, or to a fresh random deck inside them)."""

    Settings = GwentSettings

    def __init__(self, config):
        super().__init__(config)
        self.rules: DeckRules = config.settings.rules
        self.constraints: DeckConstraints = config.settings.constraints or DeckConstraints()
        self.shapes = tuple(config.settings.init_shapes)
        self.deal = GwentDeal(self.rules)

    @property
    def max_cards(self) -> int:
        return self.rules.max_cards

    # --- what a deck is ---------------------------------------------------------------------------
    def problems(self, cards) -> list[str]:
        return self.rules.problems(cards)

    def words(self, cards) -> str:
        """Powers as counts, highest first: '1x9 4x6 ...' reads as one 9, four 6s."""
        return genome.counts_text(cards)

    def row(self, cards) -> dict:
        """The deck's total power (its budget's measure)."""
        return {"total": sum(cards)}

    def save(self, cards, path, name: str, comment: str) -> None:
        save_deck(Deck(list(cards), self.rules, name=name, constraints=self.constraints), path, comment=comment)

    # --- operators --------------------------------------------------------------------------------
    def _inside(self, cards, rng: np.random.Generator, fallback) -> list[int]:
        if not self.constraints:
            return cards
        fixed = constraints.enforce(cards, self.rules, self.constraints, rng)
        return fixed if fixed is not None else list(fallback())

    def random_deck(self, rng: np.random.Generator, shapes=None) -> list[int]:
        """A random legal deck of one of the run's shapes (`init_shapes`; `shapes` names others)."""
        deck = genome.random_deck(self.rules, rng, tuple(shapes or self.shapes))
        if not self.constraints:
            return deck
        return self._inside(deck, rng, lambda: constraints.random_constrained(self.rules, self.constraints, rng))

    def mutate(self, cards, rng: np.random.Generator) -> list[int]:
        c = self.config
        out = genome.mutate(
            cards,
            self.rules,
            rng,
            card_rate=c.mut_card_rate,
            step_sigma=c.settings.mut_step_sigma,
            add_prob=c.settings.mut_add_prob,
            remove_prob=c.settings.mut_remove_prob,
        )
        return genome.assert_legal(self._inside(out, rng, lambda: cards), self.rules)

    def crossover(self, a, b, rng: np.random.Generator):
        x, y = genome.crossover(a, b, self.rules, rng)
        return self._inside(x, rng, lambda: a), self._inside(y, rng, lambda: b)

    def repair(self, cards, rng: np.random.Generator) -> list[int]:
        return self._inside(genome.repair(cards, self.rules, rng), rng, lambda: self.random_deck(rng))

    # --- the game -----------------------------------------------------------------------------------
    def game(self, a=None, b=None):
        decks = None if a is None else [list(a), list(b)]
        return games.make("gwent_lite", rules=self.rules, decks=decks)

    def read_deck(self, path) -> tuple[str | None, list[int]]:
        """A deck file's cards, named by the file (`folder/file` in a folder of decks)."""
        return None, list(load_deck(path).cards)

    def card_pool(self) -> dict[int, str]:
        """Every power a card may have (1 .. the rules' largest)."""
        return {p: str(p) for p in range(self.rules.min_power, self.rules.max_power + 1)}

    def scorer(self, config) -> MatchScorer:
        """The run's scoring, once the constraints are known to admit a deck under the rules."""
        constraints.check_feasible(config.settings.rules, config.settings.constraints, seed=config.seed)
        return super().scorer(config)

    # --- MAP-Elites -------------------------------------------------------------------------------
    def descriptor_space(self) -> tuple[tuple[str, str], list[tuple[float, float]]]:
        """The share of the deck's cards at the minimum power (0 .. 1) and the share of its total power
        in its five strongest cards: flat decks against decks of weak fillers and a few big cards."""
        rules = self.rules
        # the top five's share reaches from the flattest deck (max_cards cards at min_power) to five
        # big cards beside min_cards - 5 at min_power, at the full budget; a 0..1 range left a fifth
        # of the grid's columns empty for good
        top_lo = min(1.0, TOP / rules.max_cards)
        top_hi = min(1.0, 1 - (rules.min_cards - TOP) * rules.min_power / rules.max_total)
        if top_hi <= top_lo:  # every legal deck has five cards or fewer
            top_lo, top_hi = 0.0, 1.0
        return ("min_power_share", "top5_power_share"), [(0.0, 1.0), (top_lo, top_hi)]

    def descriptors(self, cards) -> tuple[float, float]:
        cards = list(cards)
        low = self.rules.min_power
        top5 = sum(sorted(cards)[-TOP:]) / sum(cards)
        return float(sum(c == low for c in cards) / len(cards)), float(top5)
