"""Exploding Kittens' settings: the bounds of its deck space (evolution.spaces.kittens), the game
settings of every game, the games each deck plays, and their checks."""

from __future__ import annotations

from dataclasses import dataclass

import games
from evolution.decks.settings import (
    MAX_GAMES_PER_PAIR,
    SpaceSettings,
    check_counts,
    check_even,
    check_racing_split,
)
from games.config import need, setting
from games.errors import UserError
from games.exploding_kittens import CARD_NAMES, MAX_COUNT

#: game settings a kittens run starts from: exact values (the validation) exist for open hands only,
#: and the default agent was trained on open hands
KITTENS_GAME_DEFAULTS = {"open_hands": True, "hand_defuses": 1}


def _default_counts() -> dict[str, list[int]]:
    return {"skip": [0, 8], "attack": [0, 8], "defuse": [0, 4]}


@dataclass
class KittensBounds:
    """The Exploding Kittens deck space: each listed card type's count in the deck (besides the
    Kitten; Defuses in hands come from the game settings) within [lo, hi], the others 0, and the
    deck's size within min_cards..max_cards."""

    min_cards: int = setting(4, "a deck holds at least this many cards besides the Kitten", metavar="N")
    max_cards: int = setting(16, "a deck holds at most this many cards besides the Kitten", metavar="N")
    counts: dict[str, list[int]] = setting(
        factory=_default_counts, help="card name -> [least, most] copies in the deck", flag=False
    )

    def __post_init__(self):
        for name in ("min_cards", "max_cards"):
            v = getattr(self, name)
            need(isinstance(v, int) and not isinstance(v, bool) and v >= 0, f"bounds: {name} must be >= 0, got {v!r}")
        need(isinstance(self.counts, dict) and self.counts, "bounds: counts must be a table of card -> [least, most]")
        for name, lohi in self.counts.items():
            need(name in CARD_NAMES, f"bounds: unknown card {name!r}; cards: {', '.join(CARD_NAMES)}")
            ok = isinstance(lohi, (list, tuple)) and len(lohi) == 2 and all(isinstance(x, int) for x in lohi)
            need(ok, f"bounds: {name} must be [least, most], got {lohi!r}")
            need(0 <= lohi[0] <= lohi[1] <= MAX_COUNT, f"bounds: {name} needs 0 <= least <= most <= {MAX_COUNT}")
        self.counts = {n: [int(v) for v in self.counts[n]] for n in CARD_NAMES if n in self.counts}
        lo = sum(v[0] for v in self.counts.values())
        hi = sum(v[1] for v in self.counts.values())
        need(
            max(lo, self.min_cards) <= min(hi, self.max_cards),
            f"bounds admit no deck: counts allow {lo}..{hi} cards, the deck size must be "
            f"{self.min_cards}..{self.max_cards}",
        )


@dataclass
class KittensSettings(SpaceSettings):
    """Card counts within `KittensBounds` (`[kittens.bounds]`), scored on an objective of the agent's
    own games (`games_per_deck` a generation), with the game settings of every game (`game_config`)."""

    game = "exploding_kittens"
    table = "kittens"
    objectives = ("fairness", "skill")
    #: one descriptor pair: the Skip and Attack counts (the cards that end a turn without drawing)
    descriptor_sets = ("turns",)

    bounds: KittensBounds = setting(
        factory=KittensBounds,
        help="the deck space (a [kittens.bounds] table: min_cards, max_cards, counts)",
        flag=False,
    )
    game_config: dict = setting(
        factory=dict,
        help="game settings of every game (a [kittens.game_config] table, or --set NAME=VALUE; default "
        "open_hands = true, hand_defuses = 1: exact values, the validation, exist for open hands only)",
        flag=False,
    )
    # 400: a first-player rate's SE is 0.025 a generation; score_memory pools a survivor's games
    games_per_deck: int = setting(
        400, "games each deck plays a generation, even", metavar="N", maximum=MAX_GAMES_PER_PAIR
    )
    playoff_games_per_deck: int = setting(
        4000,
        "games of each champion candidate in the final re-measurement, even",
        metavar="N",
        maximum=MAX_GAMES_PER_PAIR,
    )

    def __post_init__(self):
        super().__post_init__()
        check_counts(self, 1, ("games_per_deck", "playoff_games_per_deck"))
        check_even(self, ("games_per_deck", "playoff_games_per_deck"))
        need(isinstance(self.game_config, dict), "game_config must be a table of game settings")
        fixed = self.game_config.get("composition", "fixed") == "fixed" and not self.game_config.get("preset")
        need(
            "deck" not in self.game_config and fixed,
            "game_config: the deck is what evolves (no deck, composition or preset); set its [kittens.bounds] instead",
        )
        self.game_config = {**KITTENS_GAME_DEFAULTS, **self.game_config}
        try:  # every setting checked once here, with a deck of the space
            games.make(self.game, **self.game_config)
        except TypeError as exc:
            raise UserError(f"game_config: {exc}") from None
        counts = self.bounds.counts
        if "defuse" in counts:  # the Defuses in hands count towards a type's limit
            hands = 2 * int(self.game_config.get("hand_defuses", 1))
            if counts["defuse"][1] + hands > MAX_COUNT:
                raise UserError(
                    f"bounds: at most {MAX_COUNT - hands} Defuses in the deck with {hands // 2} in each hand"
                )

    def make_game(self):
        return games.make(self.game, **self.game_config)

    def check_racing(self, config) -> None:
        check_racing_split("games_per_deck", self.games_per_deck, config.racing_rounds)
