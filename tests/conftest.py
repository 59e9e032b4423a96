"""Shared test helpers: every registered game (with a few configs), random playouts and comparing
states field by field (games/conformance.py), and positions stacked by hand. Helpers that reach into
a state's private fields live here, not in games/: production classes carry no test-only methods."""

from __future__ import annotations

import signal

import pytest

import games
from games.conformance import (  # noqa: F401 - the state helpers the tests import from here
    assert_same_state,
    assert_unchanged,
    public_facts,
    random_playout,
    random_states,
    same_value,
    snapshot,
    state_fields,
)

# (test id, game name, config): every registered game with its default config, plus configs that
# reach other code paths. A game registered in games/registry.py, or an installed plug-in, joins the
# conformance suite at once.
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


@pytest.fixture(autouse=True, scope="session")
def _ctrl_c_as_in_a_terminal():
    """SIGINT raises KeyboardInterrupt during the suite, as in a program started from a terminal, even
    when the suite itself was started in the background (a shell starts background jobs with SIGINT
    ignored): the Ctrl-C tests exercise the handling a user gets."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.fixture(autouse=True)
def _signal_dispositions_are_given_back():
    """A test leaves the process's SIGINT and SIGTERM handlers as it found them: a handler left behind
    (an ignored Ctrl-C) would change every later test that runs a command in this process."""
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    yield
    after = {sig: signal.getsignal(sig) for sig in before}
    for sig, handler in before.items():
        signal.signal(sig, handler)
    assert after == before, f"signal handlers left changed: {after} (were {before})"


# --- records made on another machine ------------------------------------------------------------
# A float computed through a float32 forward pass depends in its last bits on the CPU: OpenBLAS
# picks its kernels by CPU family (OPENBLAS_CORETYPE forces one), and TensorFlow's oneDNN by
# instruction set (TF_ENABLE_ONEDNN_OPTS=0 turns it off). Across those kernels a float32 sum moves
# by a few units in its last place (about 1e-7 relative); 1e-5 leaves room for a hundred of them.
RECORD_REL_TOL = 1e-5
RECORD_ABS_TOL = 1e-6


def assert_matches_record(now, recorded, where: str = "", rel: float = RECORD_REL_TOL, abs_: float = RECORD_ABS_TOL):
    """Compare a JSON-like value computed now with one recorded on another machine: a float within
    `rel` and `abs_` of the recorded one, everything else (ints, strings, bools, keys, lengths, None)
    exactly. The failure names the path of the first difference."""
    if isinstance(recorded, float) or (isinstance(now, float) and isinstance(recorded, int)):
        assert isinstance(now, int | float) and not isinstance(now, bool), f"{where}: {now!r} is not a number"
        assert now == pytest.approx(recorded, rel=rel, abs=abs_, nan_ok=True), (
            f"{where}: {now!r} against recorded {recorded!r}"
        )
    elif isinstance(recorded, dict):
        assert isinstance(now, dict) and sorted(now) == sorted(recorded), (
            f"{where}: keys {sorted(now)} != {sorted(recorded)}"
        )
        for key in recorded:
            assert_matches_record(now[key], recorded[key], f"{where}/{key}", rel, abs_)
    elif isinstance(recorded, list):
        assert isinstance(now, list) and len(now) == len(recorded), f"{where}: {now!r} against recorded {recorded!r}"
        for i, (a, b) in enumerate(zip(now, recorded)):
            assert_matches_record(a, b, f"{where}[{i}]", rel, abs_)
    else:
        assert type(now) is type(recorded) and now == recorded, f"{where}: {now!r} against recorded {recorded!r}"
