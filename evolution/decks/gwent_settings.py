"""Gwent Lite's settings: the run settings of its deck space (evolution.spaces.gwent) and their checks."""

from __future__ import annotations

from dataclasses import dataclass

from evolution.decks.settings import HeadToHeadSettings
from games.config import need, setting
from games.decks import DeckConstraints, DeckRules, shape_name

#: the random-deck shapes of evolution.decks.genome.SHAPES (listed here so reading a config needs no numpy code)
INIT_SHAPES = ("uniform", "normal", "flat", "spiky", "more_cards")


@dataclass
class GwentSettings(HeadToHeadSettings):
    """Power multisets under `games.decks.DeckRules` (`[gwent.rules]`), a designer's constraints, the
    mutation's steps (beside the run's `mut_card_rate`) and the random-deck shapes; the yardstick and
    the validation panel default to Gwent Lite's decks, and reference decks may be met as `panel`
    opponents."""

    game = "gwent_lite"
    table = "gwent"
    flat_rules_name = "rules"
    #: one descriptor pair: the share of weak cards and the top five's share of the power
    descriptor_sets = ("power",)
    panel_opponents = True
    power_multisets = True
    default_yardstick = ("decks/yardstick",)
    default_validation_panel = ("decks", "decks/ancestor")

    rules: DeckRules = setting(factory=DeckRules, help="the deck-building rules (a [gwent.rules] table)", flag=False)
    constraints: DeckConstraints = setting(
        factory=DeckConstraints,
        help="a designer's limits every evolved deck keeps (a [gwent.constraints] table: locked, forbidden, "
        "[[gwent.constraints.count]]; or --constraints FILE)",
        flag=False,
    )
    init_shapes: list[str] = setting(
        factory=lambda: list(INIT_SHAPES),
        metavar="SHAPES",
        help=f"random-deck shapes of the first pool and the refills: {', '.join(INIT_SHAPES)}",
    )
    mut_step_sigma: float = setting(1.0, "mutation: standard deviation of a card's change", metavar="S")
    mut_add_prob: float = setting(0.1, "mutation: chance to add a copy of a card", metavar="P")
    mut_remove_prob: float = setting(0.1, "mutation: chance to remove a card", metavar="P")

    def __post_init__(self):
        super().__post_init__()
        if isinstance(self.init_shapes, list):
            self.init_shapes = [shape_name(s) for s in self.init_shapes]  # an earlier shape name is today's
        need(
            isinstance(self.init_shapes, list) and self.init_shapes and all(s in INIT_SHAPES for s in self.init_shapes),
            f"init_shapes must be a non-empty list of {', '.join(INIT_SHAPES)}, got {self.init_shapes!r}",
        )
        for name in ("mut_add_prob", "mut_remove_prob"):
            value = getattr(self, name)
            need(isinstance(value, (int, float)) and 0.0 <= value <= 1.0, f"{name} must be in [0, 1], got {value!r}")
        need(isinstance(self.mut_step_sigma, (int, float)) and self.mut_step_sigma > 0, "mut_step_sigma must be > 0")
