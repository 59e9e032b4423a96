"""The Legends of Code and Magic 1.2 competition field as deckopt agents: the drafters random, max-attack,
rule-based, icebox, closet-ai, uji1, uji2, coac, chad and the battlers random, max-attack, rule-based and
greedy, as gym-locm 2.0.0b1 defines them (scripts/results/locm_field_check.py checks each against
gym-locm's own on the same states).

A drafter is `pick(state, rng) -> action` on a draft state, a battler `act(state, rng) -> action` on a
battle state. `FieldAgent` plays the draft with one and the battle with the other; its spec is
`DRAFTER+BATTLER`; a single name is that drafter and that battler where both exist, else max-attack
stands in for the missing one (docs/results/locm.md).

`greedy` is the published greedy battler: it tries every action but passing and keeps the first that
scores best, scoring a board's creature count as each lane's own size minus itself (always 0), as
gym-locm does. `greedy-count` scores the count as intended (own creatures minus the opponent's).

Each drafter, and the battlers random, max-attack, greedy and greedy-count, also has a batch form
`f(batch, games, rng) -> actions` on the vectorised engine (games/locm_batch.py), choosing as the state
form does in every game (tests/test_locm_field_batch.py); the random drafter and battler and uji2 draw
their choices otherwise. greedy's batch form is its one-ply search over all games at once: a copy of
each game for every candidate action, every copy stepped and scored together.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from agents.base import RuleAgent
from games.locm import (
    ATK,
    ATTACK,
    ATTACKED,
    BATTLE,
    BLUE,
    CARDS,
    CHARGE,
    CREATURE,
    DEF,
    DRAFT,
    FIELDS,
    GREEN,
    GUARD,
    HAND_LIMIT,
    KW,
    LANE_LIMIT,
    LANE_SPAN,
    MAX_MANA,
    NUM_ACTIONS,
    NUM_CARDS,
    PASS,
    PICK,
    READY,
    RED,
    SUMMON,
    USE,
    Locm,
    LocmState,
    action_name,
    keyword_letters,
)
from games.locm_batch import CARD_ATK, COST, TYPE, LocmBatch

SCORES = json.loads((Path(__file__).resolve().parent.parent / "pretrained" / "locm_drafter_scores.json").read_text())
FEW_CREATURES = 0.4  # coac's share of creatures among its picks below which it ranks by its creature list


# drafters -----------------------------------------------------------------------------------------------
def pick_best(scores: list[float]) -> int:
    """The first offered place with the highest score."""
    return PICK + int(np.argmax(scores))


def draft_random(state: LocmState, rng: np.random.Generator) -> int:
    return PICK + int(rng.integers(3))


def draft_max_attack(state: LocmState, rng: np.random.Generator) -> int:
    """The first creature with the most attack (above 0), else the first card."""
    best, most = 0, 0
    for i, number in enumerate(state.offers()):
        card = CARDS[number]
        if card.type == CREATURE and card.attack > most:
            best, most = i, card.attack
    return PICK + best


def draft_rule_based(state: LocmState, rng: np.random.Generator) -> int:
    """The first creature with Guard, else the first card."""
    for i, number in enumerate(state.offers()):
        if CARDS[number].type == CREATURE and CARDS[number].keywords & GUARD:
            return PICK + i
    return PICK


def icebox_value(number: int) -> float:
    """Icebox's card value: attack and defense, less a cost curve, plus terms in the health change and
    the card draw, plus a bonus per keyword (added in this order, as floating-point sums go)."""
    c = CARDS[number]
    health = c.own_health - c.enemy_health
    value = c.attack + c.defense
    for term in (
        -6.392651 * 0.001 * c.cost**2,
        -1.463006 * c.cost,
        -1.435985,
        5.985350469 * 0.01 * health**2,
        3.880957 * 0.1 * health,
        5.219,
        -5.516179907 * c.draw**2,
        0.239521 * c.draw,
        -1.63766 * 0.1,
        -7.751401869 * 0.01,
    ):
        value += term
    letters = keyword_letters(c.keywords)
    for letter, bonus in zip("BCDGLW", (0.0, 0.26015517, 0.15241379, 0.04418965, 0.15313793, 0.16238793)):
        if letter in letters:
            value += bonus
    return value


def draft_icebox(state: LocmState, rng: np.random.Generator) -> int:
    return pick_best([icebox_value(n) for n in state.offers()])


def draft_closet_ai(state: LocmState, rng: np.random.Generator) -> int:
    return pick_best([SCORES["closet_ai"][n - 1] for n in state.offers()])


def draft_chad(state: LocmState, rng: np.random.Generator) -> int:
    scores = SCORES["chad"][state.current_player]
    return pick_best([scores[n - 1] for n in state.offers()])


COAC_RANK = tuple({n: r for r, n in enumerate(order)} for order in SCORES["coac"])
COAC_FEW_CREATURES_RANK = tuple({n: r for r, n in enumerate(order)} for order in SCORES["coac_few_creatures"])


def draft_coac(state: LocmState, rng: np.random.Generator) -> int:
    """The best-ranked card of the seat's list; the seat's creature list once fewer than 40 % of its
    picks are creatures."""
    p = state.current_player
    picks = state.picks(p)
    creatures = sum(CARDS[n].type == CREATURE for n in picks)
    few = bool(picks) and creatures / len(picks) < FEW_CREATURES
    rank = (COAC_FEW_CREATURES_RANK if few else COAC_RANK)[p]
    return PICK + int(np.argmin([rank[n] for n in state.offers()]))


UJI_GROUP_BY_TYPE = {GREEN: 7, RED: 8, BLUE: 9}


def uji_group(number: int) -> int:
    """The curve slot of a card: creatures by cost (1 or less, 2, ..., 7 or more), then each item colour."""
    c = CARDS[number]
    return min(6, max(0, c.cost - 1)) if c.type == CREATURE else UJI_GROUP_BY_TYPE[c.type]


def uji_weights(state: LocmState, wanted: tuple[int, ...]) -> list[int]:
    """Each offered card's want: its slot's wanted count less the cards picked in that slot, +6 for a
    creature with Guard."""
    taken = [0] * 10
    for n in state.picks(state.current_player):
        taken[uji_group(n)] += 1
    out = []
    for n in state.offers():
        c = CARDS[n]
        w = wanted[uji_group(n)] - taken[uji_group(n)]
        out.append(w + 6 if c.type == CREATURE and c.keywords & GUARD else w)
    return out


UJI1_WANTED = (5, 5, 3, 3, 3, 4, 4, 3, 0, 0)
UJI2_WANTED = (5, 4, 4, 3, 3, 3, 2, 2, 2, 2)


def draft_uji1(state: LocmState, rng: np.random.Generator) -> int:
    """Card 151 first, never a green or blue item, else the most wanted (uji_weights)."""
    weights = uji_weights(state, UJI1_WANTED)
    for i, n in enumerate(state.offers()):
        if n == 151:
            weights[i] = 100
        elif CARDS[n].type in (GREEN, BLUE):
            weights[i] = -100
    return pick_best(weights)


def uji2_chances(state: LocmState) -> list[float]:
    """The chance of each offered card under uji2: in proportion to its want (uji_weights, at least 0),
    uniform when no card is wanted."""
    weights = [max(0, w) for w in uji_weights(state, UJI2_WANTED)]
    total = sum(weights)
    return [w / total for w in weights] if total else [1 / 3] * 3


def draft_uji2(state: LocmState, rng: np.random.Generator) -> int:
    return PICK + int(rng.choice(3, p=uji2_chances(state)))


DRAFTERS = {
    "random": draft_random,
    "max-attack": draft_max_attack,
    "rule-based": draft_rule_based,
    "icebox": draft_icebox,
    "closet-ai": draft_closet_ai,
    "uji1": draft_uji1,
    "uji2": draft_uji2,
    "coac": draft_coac,
    "chad": draft_chad,
}


# drafters on a batch ------------------------------------------------------------------------------------
def card_table(score: Callable[[int], float]) -> np.ndarray:
    """A drafter's score of each card number (index 0 unused)."""
    return np.array([0.0] + [score(n) for n in range(1, NUM_CARDS + 1)])


MAX_ATTACK_SCORE = card_table(lambda n: CARDS[n].attack if CARDS[n].type == CREATURE else 0)
RULE_BASED_SCORE = card_table(lambda n: float(CARDS[n].type == CREATURE and bool(CARDS[n].keywords & GUARD)))
ICEBOX_SCORE = card_table(icebox_value)
CLOSET_AI_SCORE = card_table(lambda n: SCORES["closet_ai"][n - 1])
CHAD_SCORE = np.stack([card_table(lambda n, p=p: SCORES["chad"][p][n - 1]) for p in (0, 1)])
COAC_RANK_TABLE = np.stack([card_table(lambda n, p=p: COAC_RANK[p][n]) for p in (0, 1)])
COAC_FEW_CREATURES_RANK_TABLE = np.stack([card_table(lambda n, p=p: COAC_FEW_CREATURES_RANK[p][n]) for p in (0, 1)])
IS_CREATURE = TYPE == CREATURE
UJI_GROUP = np.array([0] + [uji_group(n) for n in range(1, NUM_CARDS + 1)])
GUARD_CREATURE = card_table(lambda n: float(CARDS[n].type == CREATURE and bool(CARDS[n].keywords & GUARD))) > 0


def offered(batch: LocmBatch, g: np.ndarray) -> np.ndarray:
    """(k, 3) the card numbers offered in games `g` (all in the draft)."""
    return batch.offers[g, batch.npicks[g, 1]].astype(np.int64)


def own_picks(batch: LocmBatch, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(k, 30) the mover's picks so far, and (k, 30) which places hold one."""
    p = batch.player[g]
    picks = batch.picks[g, p].astype(np.int64)
    return picks, np.arange(picks.shape[1])[None, :] < batch.npicks[g, p][:, None]


def pick_best_batch(scores: np.ndarray) -> np.ndarray:
    """`pick_best` for each row of (k, 3) scores."""
    return PICK + scores.argmax(axis=1)


def draft_random_batch(batch: LocmBatch, g: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return PICK + rng.integers(3, size=len(g))


def _pick_by_table(table: np.ndarray, batch: LocmBatch, g: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return pick_best_batch(table[offered(batch, g)])


def score_drafter(table: np.ndarray) -> Callable[[LocmBatch, np.ndarray, np.random.Generator], np.ndarray]:
    """The batch form of a drafter that picks the first offered card with the best score in `table`
    (picklable: an agent holding it goes to worker processes)."""
    return partial(_pick_by_table, table)


@dataclass(frozen=True)
class ScoreDrafter:
    """A drafter that picks the offered card with the highest score, the first offered on ties (as
    `pick_best`), with one score table per seat: `scores[p, n]` is seat p's score of card number n
    (column 0 unused). Both rows alike for a drafter that scores cards the same from either seat."""

    name: str
    scores: np.ndarray  # (2, NUM_CARDS + 1)

    def pick(self, state: LocmState, rng: np.random.Generator | None = None) -> int:
        return pick_best(self.scores[state.current_player][list(state.offers())])

    def pick_batch(self, batch: LocmBatch, g: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
        return pick_best_batch(self.scores[batch.player[g][:, None], offered(batch, g)])


draft_chad_batch = ScoreDrafter("chad", CHAD_SCORE).pick_batch


def draft_coac_batch(batch: LocmBatch, g: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    p = batch.player[g]
    picks, held = own_picks(batch, g)
    count = held.sum(axis=1)
    creatures = (IS_CREATURE[picks] & held).sum(axis=1)
    few = (count > 0) & (creatures < FEW_CREATURES * np.maximum(count, 1))
    ranks = np.where(few[:, None], COAC_FEW_CREATURES_RANK_TABLE[p], COAC_RANK_TABLE[p])
    return PICK + np.take_along_axis(ranks, offered(batch, g), axis=1).argmin(axis=1)


def uji_weights_batch(batch: LocmBatch, g: np.ndarray, wanted: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """`uji_weights` of games `g`, and their offers."""
    picks, held = own_picks(batch, g)
    taken = ((UJI_GROUP[picks][:, :, None] == np.arange(10)) & held[:, :, None]).sum(axis=1)  # (k, 10)
    cards = offered(batch, g)
    groups = UJI_GROUP[cards]
    weights = np.asarray(wanted)[groups] - np.take_along_axis(taken, groups, axis=1)
    return weights + 6 * GUARD_CREATURE[cards], cards


def draft_uji1_batch(batch: LocmBatch, g: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    weights, cards = uji_weights_batch(batch, g, UJI1_WANTED)
    kind = TYPE[cards]
    weights = np.where(cards == 151, 100, np.where((kind == GREEN) | (kind == BLUE), -100, weights))
    return pick_best_batch(weights)


def draft_uji2_batch(batch: LocmBatch, g: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """uji2's chances (`uji2_chances`), drawn with one uniform number per game."""
    weights, _ = uji_weights_batch(batch, g, UJI2_WANTED)
    weights = np.maximum(weights, 0).astype(np.float64)
    total = weights.sum(axis=1)
    weights[total == 0] = 1.0
    cumulative = weights.cumsum(axis=1)
    u = rng.random(len(g)) * cumulative[:, -1]
    return PICK + np.minimum((cumulative <= u[:, None]).sum(axis=1), 2)


DRAFTERS_BATCH = {
    "random": draft_random_batch,
    "max-attack": score_drafter(MAX_ATTACK_SCORE),
    "rule-based": score_drafter(RULE_BASED_SCORE),
    "icebox": score_drafter(ICEBOX_SCORE),
    "closet-ai": score_drafter(CLOSET_AI_SCORE),
    "uji1": draft_uji1_batch,
    "uji2": draft_uji2_batch,
    "coac": draft_coac_batch,
    "chad": draft_chad_batch,
}


# battlers -----------------------------------------------------------------------------------------------
def battle_random(state: LocmState, rng: np.random.Generator) -> int:
    legal = state.legal_actions()
    return legal[int(rng.integers(len(legal)))]


def battle_max_attack(state: LocmState, rng: np.random.Generator | None = None) -> int:
    """Attack with the strongest creature that may (left lane first, the first of equals), into the
    lane's first Guard or the opponent; else summon the strongest affordable creature (the first of
    equals) into the first lane with room; else pass."""
    p = state.current_player
    o = 1 - p
    board = state._board
    for lane in (0, 1):
        base = (2 * p + lane) * LANE_SPAN
        ready = [i for i in range(state._lane_sizes[2 * p + lane]) if state._able(base + i * FIELDS)]
        if ready:
            strongest = max(ready, key=lambda i: (board[base + i * FIELDS + ATK], -i))
            enemy = (2 * o + lane) * LANE_SPAN
            guards = [j for j in range(state._lane_sizes[2 * o + lane]) if board[enemy + j * FIELDS + KW] & GUARD]
            return ATTACK + 4 * (3 * lane + strongest) + (1 + guards[0] if guards else 0)
    mana = state._mana[p]
    creatures = [
        (h, CARDS[c]) for h, c in enumerate(state.hand(p)) if CARDS[c].type == CREATURE and CARDS[c].cost <= mana
    ]
    lanes = [lane for lane in (0, 1) if state._lane_sizes[2 * p + lane] < LANE_LIMIT]
    if creatures and lanes:
        h, _ = max(creatures, key=lambda hc: (hc[1].attack, -hc[0]))
        return SUMMON + 2 * h + lanes[0]
    return PASS


def battle_rule_based(state: LocmState, rng: np.random.Generator | None = None) -> int:
    """The first affordable card of the hand that can go: a creature into this turn's lane (left on even
    turns) if it has room, a green item on the first own creature, a red item on the first enemy, a blue
    item at the opponent; else the first creature that is ready and has not attacked (left lane first)
    attacks the lane's first Guard or the opponent; else pass."""
    p = state.current_player
    o = 1 - p
    board = state._board
    sizes = state._lane_sizes
    lane_now = state._turn % 2
    friends = sizes[2 * p] + sizes[2 * p + 1] > 0
    foes = sizes[2 * o] + sizes[2 * o + 1] > 0
    mana = state._mana[p]
    for h, number in enumerate(state.hand(p)):
        card = CARDS[number]
        if card.cost > mana:
            continue
        if card.type == CREATURE and sizes[2 * p + lane_now] < LANE_LIMIT:
            return SUMMON + 2 * h + lane_now
        if card.type == GREEN and friends:
            return USE + 13 * h + 1 + (0 if sizes[2 * p] else 3)
        if card.type == RED and foes:
            return USE + 13 * h + 7 + (0 if sizes[2 * o] else 3)
        if card.type == BLUE:
            return USE + 13 * h
    for lane in (0, 1):
        base = (2 * p + lane) * LANE_SPAN
        for i in range(sizes[2 * p + lane]):
            at = base + i * FIELDS
            if board[at + READY] and not board[at + ATTACKED]:
                enemy = (2 * o + lane) * LANE_SPAN
                guards = [j for j in range(sizes[2 * o + lane]) if board[enemy + j * FIELDS + KW] & GUARD]
                return ATTACK + 4 * (3 * lane + i) + (1 + guards[0] if guards else 0)
    return PASS


def listing_order(action: int) -> tuple[int, int, int]:
    """Where gym-locm lists an action among the legal ones: pass, then summons, then item uses, then
    attacks, each by hand place or attacker; targets in lane order with the player or no target last."""
    if action == PASS:
        return (0, 0, 0)
    if action < USE:
        return (1, action - SUMMON, 0)
    if action < ATTACK:
        h, target = divmod(action - USE, 13)
        return (2, h, target or 99)
    creature, target = divmod(action - ATTACK, 4)
    return (3, creature, target or 99)


def board_score(state: LocmState, p: int, count_creatures: bool) -> int:
    """The greedy battler's score of a state for player `p`: +-1000 for a dead opponent or self, twice
    the health difference, the attack plus defense of own creatures less the opponent's; with
    `count_creatures`, 10 per creature more than the opponent's in each lane."""
    o = 1 - p
    health = state._health
    score = (1000 if health[o] <= 0 else 0) - (1000 if health[p] <= 0 else 0) + 2 * (health[p] - health[o])
    board = state._board
    sizes = state._lane_sizes
    for side, sign in ((p, 1), (o, -1)):
        for slot in (2 * side, 2 * side + 1):
            base = slot * LANE_SPAN
            for i in range(sizes[slot]):
                at = base + i * FIELDS
                score += sign * (board[at + ATK] + board[at + DEF])
    if count_creatures:
        score += 10 * (sizes[2 * p] + sizes[2 * p + 1] - sizes[2 * o] - sizes[2 * o + 1])
    return score


def greedy_choice(state: LocmState, count_creatures: bool) -> int:
    p = state.current_player
    best, best_score = PASS, None
    for action in sorted(state.legal_actions(), key=listing_order):
        if action == PASS:
            continue
        after = state.clone()
        after.apply_action(action)
        score = board_score(after, p, count_creatures)
        if best_score is None or score > best_score:
            best, best_score = action, score
    return best


def battle_greedy(state: LocmState, rng: np.random.Generator | None = None) -> int:
    return greedy_choice(state, count_creatures=False)


def battle_greedy_count(state: LocmState, rng: np.random.Generator | None = None) -> int:
    return greedy_choice(state, count_creatures=True)


BATTLERS = {
    "random": battle_random,
    "max-attack": battle_max_attack,
    "rule-based": battle_rule_based,
    "greedy": battle_greedy,
    "greedy-count": battle_greedy_count,
}


# battlers on a batch ------------------------------------------------------------------------------------
def battle_random_batch(batch: LocmBatch, g: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    masks = batch.legal_masks(g)
    k = (rng.random(len(g)) * masks.sum(axis=1)).astype(np.int64)
    return (masks.cumsum(axis=1) > k[:, None]).argmax(axis=1)


# a card's attack when it is a creature its owner can pay for with the mana of the column, else -1
# (card 0, an empty hand place, is never one)
MAX_ATTACK_SUMMON = np.where(
    (TYPE[:, None] == CREATURE) & (COST[:, None] <= np.arange(MAX_MANA + 2)) & (np.arange(NUM_CARDS + 1) > 0)[:, None],
    CARD_ATK[:, None],
    -1,
)


def first_best(columns: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(index, value) of the first largest of a few same-shaped columns, element by element."""
    index, best = np.zeros(columns[0].shape, dtype=np.int64), columns[0]
    for i, column in enumerate(columns[1:], 1):
        index = np.where(column > best, i, index)
        best = np.maximum(best, column)
    return index, best


def battle_max_attack_batch(batch: LocmBatch, g: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    """`battle_max_attack` for games `g` of a batch (all in the battle). The arrays are read as rows of
    (game, seat) with `np.take`, much cheaper than numpy's fancy indexing on several axes; an empty
    place of the board holds zeros, so it is neither ready nor a Guard."""
    p = batch.player[g]
    own, foe = 2 * g + p, 2 * g + 1 - p  # rows of (game, seat)
    sides = batch.board.reshape(-1, 2 * LANE_SPAN)
    mine = np.take(sides, own, axis=0).reshape(-1, 2, LANE_LIMIT, FIELDS)
    foes = np.take(sides, foe, axis=0).reshape(-1, 2, LANE_LIMIT, FIELDS)
    # ready or Charge, and not attacked yet (ATTACKED - 1 is 0 once attacked, all bits set before)
    able = ((mine[..., READY] | (mine[..., KW] & CHARGE)) & (mine[..., ATTACKED] - 1)) != 0
    left = able[:, 0, 0] | able[:, 0, 1] | able[:, 0, 2]
    can_attack = left | able[:, 1, 0] | able[:, 1, 1] | able[:, 1, 2]
    power = np.where(able, mine[..., ATK], -1)
    power = np.where(left[:, None], power[:, 0], power[:, 1])  # (k, 3): the lane that attacks
    strongest, _ = first_best([power[:, 0], power[:, 1], power[:, 2]])
    guards = (foes[..., KW] & GUARD) != 0
    guards = np.where(left[:, None], guards[:, 0], guards[:, 1])
    target = np.where(guards[:, 0], 1, np.where(guards[:, 1], 2, np.where(guards[:, 2], 3, 0)))
    attack = ATTACK + 4 * (3 * np.where(left, 0, 1) + strongest) + target
    hand = np.take(batch.hands.reshape(-1, HAND_LIMIT), own, axis=0)
    cards = np.take(batch.card_of, g[:, None] * batch.card_of.shape[1] + hand).astype(np.intp)
    value = np.take(MAX_ATTACK_SUMMON, cards * MAX_ATTACK_SUMMON.shape[1] + np.take(batch.mana, own)[:, None])
    best = value.argmax(axis=1)
    sizes = np.take(batch.lane_sizes.reshape(-1, 2), own, axis=0)
    room_left, room_right = sizes[:, 0] < LANE_LIMIT, sizes[:, 1] < LANE_LIMIT
    summon = SUMMON + 2 * best + np.where(room_left, 0, 1)
    can_summon = (value.max(axis=1) >= 0) & (room_left | room_right)
    return np.where(can_attack, attack, np.where(can_summon, summon, PASS))


LISTING_RANK = np.argsort(sorted(range(NUM_ACTIONS), key=listing_order))  # an action's place in that order


def board_scores(batch: LocmBatch, p: np.ndarray, count_creatures: bool) -> np.ndarray:
    """`board_score` of every game of `batch` for player `p[g]`."""
    k = np.arange(batch.size)
    o = 1 - p
    mine, theirs = batch.health[k, p], batch.health[k, o]
    score = 1000 * (theirs <= 0) - 1000 * (mine <= 0) + 2 * (mine - theirs)
    present = np.arange(LANE_LIMIT)[None, None, :] < batch.lane_sizes[:, :, None]  # (k, 4, 3)
    value = np.where(present, batch.board[..., ATK].astype(np.int64) + batch.board[..., DEF], 0).sum(axis=2)
    sign = np.where(np.arange(4)[None, :] // 2 == p[:, None], 1, -1)  # (k, 4)
    score += (sign * value).sum(axis=1)
    if count_creatures:
        score += 10 * (sign * batch.lane_sizes).sum(axis=1)
    return score


def greedy_batch(batch: LocmBatch, g: np.ndarray, count_creatures: bool, chunk: int = 16384) -> np.ndarray:
    """`greedy_choice` for games `g` (all in the battle): every legal action but passing tried on a
    copy of its game (`LocmBatch.take`), all copies stepped and scored together, `chunk` copies at a
    time; each game keeps the first action in listing order with the best score (PASS if none)."""
    masks = batch.legal_masks(g)
    masks[:, PASS] = False
    rows, actions = np.nonzero(masks)
    scores = np.empty(len(rows), dtype=np.int64)
    for start in range(0, len(rows), chunk):
        part = slice(start, start + chunk)
        copies = batch.take(g[rows[part]])
        copies.apply_actions(np.arange(copies.size), actions[part])
        scores[part] = board_scores(copies, batch.player[g[rows[part]]], count_creatures)
    order = np.lexsort((LISTING_RANK[actions], -scores, rows))
    first = np.ones(len(order), dtype=bool)
    first[1:] = rows[order][1:] != rows[order][:-1]
    out = np.full(len(g), PASS, dtype=np.int64)
    out[rows[order][first]] = actions[order][first]
    return out


def battle_greedy_batch(batch: LocmBatch, g: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    return greedy_batch(batch, g, count_creatures=False)


def battle_greedy_count_batch(batch: LocmBatch, g: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    return greedy_batch(batch, g, count_creatures=True)


BATTLERS_BATCH = {
    "random": battle_random_batch,
    "max-attack": battle_max_attack_batch,
    "greedy": battle_greedy_batch,
    "greedy-count": battle_greedy_count_batch,
}


DEFAULT_DRAFTER = "max-attack"
DEFAULT_BATTLER = "max-attack"


class FieldAgent(RuleAgent):
    """A drafter in the draft and a battler in the battle: `drafter` is a field drafter's name or a
    `ScoreDrafter` (a drafter file's, agents/heuristics/locm_drafter_file.py)."""

    def __init__(self, game, rng: np.random.Generator, drafter: str | ScoreDrafter, battler: str):
        super().__init__(game, rng)
        if isinstance(drafter, ScoreDrafter):
            self.drafter, self._draft, self._draft_batch = drafter.name, drafter.pick, drafter.pick_batch
        else:
            self.drafter, self._draft, self._draft_batch = drafter, DRAFTERS[drafter], DRAFTERS_BATCH[drafter]
        self.battler = battler
        self._battle = BATTLERS[battler]

    def choose(self, state: LocmState) -> int:
        if state.phase == "draft":
            return self._draft(state, self.rng)
        return self._battle(state, self.rng)

    def act_batch(self, batch, games: np.ndarray) -> np.ndarray:
        """On the vectorised engine, the batch forms (a battler without one decides on states)."""
        if not isinstance(batch, LocmBatch):
            return super().act_batch(batch, games)
        out = np.full(len(games), PASS, dtype=np.int64)
        phase = batch.phase[games]
        draft = phase == DRAFT
        if draft.any():
            out[draft] = self._draft_batch(batch, games[draft], self.rng)
        battle = phase == BATTLE
        if battle.any():
            if self.battler in BATTLERS_BATCH:
                out[battle] = BATTLERS_BATCH[self.battler](batch, games[battle], self.rng)
            else:
                out[battle] = [self._battle(batch.state(int(x)), self.rng) for x in games[battle]]
        return out


def field_specs() -> dict[str, tuple[str, str]]:
    """Every spec of the field: `DRAFTER+BATTLER`; a single name is that drafter and that battler where
    both exist, a battler alone drafts with max-attack and a drafter alone battles with max-attack."""
    specs = {f"{d}+{b}": (d, b) for d in DRAFTERS for b in BATTLERS}
    for name in DRAFTERS.keys() | BATTLERS.keys():
        specs[name] = (name if name in DRAFTERS else DEFAULT_DRAFTER, name if name in BATTLERS else DEFAULT_BATTLER)
    return specs


FIELD_AGENTS = {spec: partial(FieldAgent, drafter=d, battler=b) for spec, (d, b) in field_specs().items()}


def draft_decks(game: Locm, drafter: str | ScoreDrafter, num_games: int, rng: np.random.Generator) -> list[list[int]]:
    """Both seats' decks (sorted card numbers) of `num_games` drafts by `drafter` on both seats, on
    fresh offers from `rng` (the batch engine's deal): 2 x `num_games` decks, the seats of a game
    side by side."""
    agent = FieldAgent(game, np.random.default_rng(rng.integers(2**63)), drafter=drafter, battler=DEFAULT_BATTLER)
    batch = LocmBatch.deal(game, rng, num_games)
    while True:
        g = np.flatnonzero(batch.phase == DRAFT)
        if not len(g):
            break
        batch.apply_actions(g, agent.act_batch(batch, g))
    return [sorted(batch.picks[k, p].tolist()) for k in range(num_games) for p in (0, 1)]


def play_from_chance(
    game: Locm,
    offers: np.ndarray,
    shuffles: np.ndarray,
    matchups: list[tuple[Callable, Callable, np.random.Generator]],
    battler: str | Callable[[LocmBatch, np.ndarray], np.ndarray],
) -> np.ndarray:
    """(len(matchups), games) the winner of every game of every matchup: each matchup (first player's
    batch drafter, second player's, the generator their draws come from) drafts the games whose chance
    is `offers` (games, 30, 3) and `shuffles` (games, 2, 30) (`LocmBatch.from_chance`), and `battler`
    battles both seats: a scripted battler's batch form by name, or act(batch, games) -> actions (a
    learned battler's, agents.locm_battlers); all the matchups' games are played together, game i of
    matchup m at place m * games + i of the batch."""
    n, k = len(offers), len(matchups)
    batch = LocmBatch.from_chance(game, np.tile(offers, (k, 1, 1)), np.tile(shuffles, (k, 1, 1)))
    actions = np.empty(batch.size, dtype=np.int64)
    while (batch.phase == DRAFT).any():
        for i, (first, second, rng) in enumerate(matchups):
            group = np.arange(i * n, (i + 1) * n)
            seat = int(batch.player[group[0]])  # every game of the batch drafts in step
            actions[group] = (first, second)[seat](batch, group, rng)
        batch.apply_actions(np.arange(batch.size), actions)
    act = (lambda b, g: BATTLERS_BATCH[battler](b, g, None)) if isinstance(battler, str) else battler
    live = np.flatnonzero(batch.phase == BATTLE)
    while len(live):
        batch.apply_actions(live, act(batch, live))
        live = np.flatnonzero(batch.phase == BATTLE)
    return batch.winner.reshape(k, n)


@dataclass
class Agreement:
    same: int  # states where ours chose the recorded action
    states: int  # states of the agent's phase compared
    first_difference: str | None  # the first state where ours chose otherwise, in words


def agreement(
    records: list[dict], phase: str, choose: Callable[[LocmState], int], game: Locm | None = None
) -> Agreement:
    """Replay recorded games (scripts/locm_gym_driver.py --agent: their chance and every action played)
    in our engine and ask `choose` for its action in every state of `phase` ("draft" or "battle")
    before the recorded action is played; it is compared with the recorded agent's choice (the record's
    `choices` where it has them, else the action played)."""
    game = Locm() if game is None else game
    same = states = 0
    first = None
    for record in records:
        state = game.state_from_chance(record["offers"], record["shuffles"])
        theirs = record.get("choices") or record["actions"]
        for n, action in enumerate(record["actions"]):
            if state.phase == phase:
                ours = choose(state)
                states += 1
                same += ours == theirs[n]
                if ours != theirs[n] and first is None:
                    first = (
                        f"seed {record['seed']}, action {n}: ours {action_name(ours)}, theirs {action_name(theirs[n])}"
                    )
            state.apply_action(action)
    return Agreement(same, states, first)


@dataclass
class ChanceAgreement:
    states: int  # states of the draft compared
    impossible: int  # recorded picks to which ours gives no chance
    z: float  # (sum of ours' chance of the recorded pick - its mean) / its standard deviation, were both alike


def chance_agreement(records: list[dict], chances: Callable[[LocmState], list[float]]) -> ChanceAgreement:
    """For a drafter that draws its pick: replay recorded drafts and weigh each recorded pick by the
    chance `chances` gives it. Were the recorded picks drawn from the same chances, the sum of those
    chances would have mean sum(p_i^2) and variance sum(p_i^3) - (sum p_i^2)^2 per state."""
    game = Locm()
    states = impossible = 0
    total = mean = variance = 0.0
    for record in records:
        state = game.state_from_chance(record["offers"], record["shuffles"])
        for action in record["actions"]:
            if state.phase != "draft":
                break
            p = chances(state)
            states += 1
            impossible += p[action - PICK] == 0
            total += p[action - PICK]
            square = sum(x * x for x in p)
            mean += square
            variance += sum(x**3 for x in p) - square**2
            state.apply_action(action)
    z = (total - mean) / variance**0.5 if variance > 0 else 0.0
    return ChanceAgreement(states, impossible, z)
