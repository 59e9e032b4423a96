"""Shared test helpers: every registered game (with a few configs), random playouts, comparing states
field by field, and positions stacked by hand. Helpers that reach into a state's private fields live
here, not in games/: production classes carry no test-only methods."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import games
from games.base import State

# (test id, game name, config): every registered game with its default config, plus configs that
# reach other code paths. A game registered in games/__init__.py joins the conformance suite at once.
SMALL_GWENT = {
    "rules": {"min_cards": 6, "max_total": 30, "min_power": 2},
    "hand_size": 4,
    "round_draw": 1,
    "rounds_to_win": 3,
}
GAME_CONFIGS = [(name, name, {}) for name in games.GAME_NAMES] + [
    ("incan_gold-8_players", "incan_gold", {"num_players": 8}),
    ("incan_gold-5_players-2_rounds-by_rank", "incan_gold", {"num_players": 5, "num_rounds": 2, "rank_returns": True}),
    ("gwent_lite-given_decks", "gwent_lite", {"decks": [[4] * 25, [1] * 24 + [76]]}),
    ("gwent_lite-small_rules-3_round_wins", "gwent_lite", SMALL_GWENT),
]


@pytest.fixture(params=[c[1:] for c in GAME_CONFIGS], ids=[c[0] for c in GAME_CONFIGS])
def any_game(request) -> games.Game:
    """Each registered game in each config of GAME_CONFIGS."""
    name, config = request.param
    return games.make(name, **config)


def observation_range(game) -> tuple[float, float]:
    """The range every observation feature lies in, as each game's module docstring documents it."""
    if game.name == "incan_gold":
        return 0.0, 1.5  # gem features capped at 1.5
    if game.name == "gwent_lite":  # card counts are scaled by min_cards: a bigger deck exceeds 1
        rules = game.config.rules
        return 0.0, max(1.0, rules.max_cards / rules.min_cards)
    return 0.0, 1.0


def random_playout(state: State, rng: np.random.Generator, on_state=None) -> list[int]:
    """Play uniformly random legal actions until the game ends; `on_state(state)` is called before
    every action and once at the end. Returns the actions played."""
    actions = []
    while True:
        if on_state is not None:
            on_state(state)
        if state.is_terminal():
            return actions
        legal = state.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        state.apply_action(action)
        actions.append(action)


def random_states(game, count: int, seed: int) -> list[State]:
    """States after random numbers of random moves: openings, middles and (a quarter) finished games."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        s = game.new_initial_state(np.random.default_rng(rng.integers(2**32)))
        moves = 10**9 if rng.random() < 0.25 else int(rng.integers(0, 60))
        for _ in range(moves):
            if s.is_terminal():
                break
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])
        out.append(s)
    return out


# --- comparing states --------------------------------------------------------------------------
def state_fields(state: State) -> dict:
    """Every field of `state` (slots along the class hierarchy and any instance dict), `game` aside."""
    names = {n for cls in type(state).__mro__ for n in getattr(cls, "__slots__", ())}
    names |= set(getattr(state, "__dict__", {}))
    names.discard("game")
    return {n: getattr(state, n) for n in sorted(names) if hasattr(state, n)}


def same_value(a, b) -> bool:
    """Equality that also compares numpy arrays (element-wise, with shape and dtype)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def assert_same_state(a: State, b: State) -> None:
    """`a` and `b` are the same position: same class, same game config, every field equal."""
    assert type(a) is type(b)
    assert type(a.game) is type(b.game) and a.game.config == b.game.config
    fa, fb = state_fields(a), state_fields(b)
    assert fa.keys() == fb.keys()
    differ = [n for n in fa if not same_value(fa[n], fb[n])]
    assert not differ, f"fields differ: {differ}"


def snapshot(state: State) -> dict:
    """A deep copy of every field, to check later that something left `state` unchanged."""
    return copy.deepcopy(state_fields(state))


def assert_unchanged(state: State, before: dict) -> None:
    now = state_fields(state)
    differ = [n for n in before if not same_value(before[n], now[n])]
    assert not differ, f"fields changed: {differ}"


def public_facts(state: State) -> dict:
    """Every public read-only property of the state (the public facts of games/RULES.md §1.4)."""
    names = {
        n
        for cls in type(state).__mro__
        for n, v in vars(cls).items()
        if isinstance(v, property) and not n.startswith("_") and n != "current_player"
    }
    return {n: getattr(state, n) for n in sorted(names)}


# --- positions stacked by hand ------------------------------------------------------------------
def incan_gold_card_code(card) -> int:
    """The Incan Gold engine's int for a card given as a Card, a gem value, a hazard name or
    "artifact" (the engine's codes: games/incan_gold.py)."""
    from games.incan_gold import ARTIFACT, HAZARD_KINDS, TREASURE_VALUES, Card

    if isinstance(card, Card):
        card = card.value if card.kind != "artifact" else "artifact"
    if card == "artifact":
        return ARTIFACT
    if isinstance(card, str) and card in HAZARD_KINDS:
        return -1 - HAZARD_KINDS.index(card)
    if isinstance(card, int) and card in TREASURE_VALUES:
        return card
    raise ValueError(f"unknown card {card!r}")


def stack_incan_gold_round(state, cards) -> None:
    """Restart the current round of an Incan Gold `state` with `cards` turned first, in the given
    order; only before the first decision of a round. The card already turned goes back into the
    deck, the listed cards (gem values, hazard names, "artifact" or Cards) are taken from the deck
    and put on top, the rest keep their shuffled order beneath, and the first card is turned as at
    the start of a round."""
    from games.incan_gold import HAZARD_KINDS, card_of

    n = state._n
    if state._terminal or len(state._path) != 1 or state._num_in != n or state._pending != [-1] * n:
        raise ValueError("stack_incan_gold_round: only before the first decision of a round")
    state._deck.extend(state._path)
    state._path = []
    state._path_gems = 0
    state._path_artifacts = 0
    state._hazard_seen = [False] * len(HAZARD_KINDS)
    state._round_gems = [0] * n
    top = []
    for card in cards:
        code = incan_gold_card_code(card)
        if code not in state._deck:
            raise ValueError(f"stack_incan_gold_round: no {card_of(code)} left in the deck")
        state._deck.remove(code)
        top.append(code)
    state._deck.extend(reversed(top))  # the deck's top is its end
    state._player = 0
    state._turn_card()


def gwent_state(game, orders, leader: int):
    """A Gwent Lite game with no chance left: `orders[p]` is seat p's deck in draw order (first card
    drawn first), `leader` leads round 1. Each deck must be legal under the game's rules (the
    config's decks are not consulted)."""
    from games.gwent_lite import GwentLiteState

    assert len(orders) == 2 and leader in (0, 1)
    for p, order in enumerate(orders):
        game.config.rules.validate(order, what=f"seat {p}'s deck")
    return GwentLiteState(game, [[int(c) for c in o] for o in orders], leader)
