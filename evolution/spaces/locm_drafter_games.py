"""The drafts, games and genomes of the `locm_drafter` deck space (evolution/spaces/locm_drafter.py).

- The drafts of a generation (`generation_chance`, `draft_chance`: offers and both deck shuffles from a
  seed key alone, whatever `--jobs`), the cards they offer (`generation_offers`, `offered_cards`) and the
  fixed drafts that descriptors and rows read (`descriptor_offers`, `drafted_decks`).
- The games: drafters draft on the same offers and battle with the named battlers, both seats, on the
  vectorised engine (games.locm_batch.LocmBatch) in work units of plain arrays (`DraftTask` against the
  field, `PairingTask` drafter against drafter), one batch loop for both (`play_games`); `field_scores`
  turns outcomes into a `Score` with its 95 % interval.
- Drafters as genomes: a genome's card-score tables (`genome_tables`), a drafter file as a genome
  (`file_genome`), the field's drafted decks and pick rates (`field_decks`, `pick_rates`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

import games
from agents.heuristics.locm_drafter_file import read_drafter, score_table
from agents.heuristics.locm_field import DRAFTERS_BATCH, offered
from agents.locm_battlers import battle_actions
from agents.parallel import group_by_games, map_tasks
from evolution.individuals import Score
from evolution.scoring import fitness as fit
from games.errors import UserError
from games.locm import BATTLE, DRAFT, ENDED, NUM_CARDS, PICK
from games.locm_batch import LocmBatch

MAX_SCORE = 1000
#: the fixed drafts that descriptors and rows read a drafter's decks on
DESCRIPTOR_DRAFTS = 64
#: the mana curve's columns: cost 0, 1, ..., 6 and 7 or more
CURVE = ("0", "1", "2", "3", "4", "5", "6", "7+")
TOP_CARDS = 10


# --- the drafts of a generation -------------------------------------------------------------------
def generation_chance(seed: int, stage: int, gen: int, deals: int) -> tuple[np.ndarray, np.ndarray]:
    """(offers (deals, 30, 3), shuffles (deals, 2, 30)): the drafts of generation `gen` of a run with
    seed `seed` at seed-key stage `stage` (evolution.scoring.fitness.STAGE_*), drawn by the batch
    engine's deal from that key alone."""
    return draft_chance((seed, stage, gen), deals)


def draft_chance(key, deals: int) -> tuple[np.ndarray, np.ndarray]:
    """(offers (deals, 30, 3), shuffles (deals, 2, 30)) of `deals` drafts drawn by the batch engine's
    deal from seed key `key` alone."""
    batch = LocmBatch.deal(games.make("locm"), np.random.default_rng(list(key)), deals)
    return batch.offers.astype(np.int64), batch.shuffles.astype(np.int64)


def generation_offers(seed: int, gen: int, deals: int) -> np.ndarray:
    """(deals, 30, 3) the card numbers offered in the drafts of evolution generation `gen` of a run
    with seed `seed` and `deals` = games_per_opponent / 2: the drafts every drafter of the generation
    plays, against every field drafter."""
    return generation_chance(seed, fit.STAGE_EVOLVE, gen, deals)[0]


def offered_cards(offers: np.ndarray) -> np.ndarray:
    """(NUM_CARDS,) whether each card (card 1 first) is offered in `offers`."""
    return np.isin(np.arange(1, NUM_CARDS + 1), offers)


@functools.cache
def descriptor_offers() -> np.ndarray:
    """The fixed offers descriptors and rows read a drafter's decks on."""
    return generation_chance(0, fit.STAGE_EVOLVE, 0, DESCRIPTOR_DRAFTS)[0]


def drafted_decks(tables: np.ndarray, offers: np.ndarray) -> np.ndarray:
    """(2, drafts, 30) the decks a score drafter with per-seat `tables` (2, 161) drafts in each seat on
    `offers` (drafts, 30, 3): its picks depend on the offers alone, not on the opponent's."""
    scores = tables[:, offers]  # (2, drafts, 30, 3)
    best = scores.argmax(axis=3)
    return np.take_along_axis(np.broadcast_to(offers, scores.shape), best[..., None], axis=3)[..., 0]


# --- the games ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Field:
    """The opponents of every drafter (field drafters by name) and the battlers both players battle with,
    in turn by draft (the work units' shared agent: plain names and specs, agents.locm_battlers)."""

    drafters: tuple[str, ...]
    battlers: tuple[str, ...]


@dataclass(frozen=True)
class DrafterGames:
    """Games between drafters, as plain arrays: drafter i < len(tables) is a score drafter (its per-seat
    score tables, (k, 2, 161)), drafter len(tables) + j the field's `named[j]`; game g drafts draft
    `draft[g]` of `offers` (drafts, 30, 3) / `shuffles` (drafts, 2, 30) with drafter `seats[g, p]` in
    seat p, then both seats battle with the battler of draw `draw[g]` (agents.locm_battlers.battle_actions:
    battler draw mod B, a panel's member by the draw too); `key` seeds the field's own random choices (the
    random drafter, uji2, the random battler)."""

    tables: np.ndarray
    named: tuple[str, ...]
    offers: np.ndarray
    shuffles: np.ndarray
    seats: np.ndarray
    draft: np.ndarray
    draw: np.ndarray
    key: tuple[int, ...]


def play_games(battlers: tuple[str, ...], task: DrafterGames) -> np.ndarray:
    """(games,) the winner of every game of `task` (0 or 1; -1 for a draw), all in one batch of the
    vectorised engine: each step every game in the draft is played by its mover's drafter (the score
    drafters together, then each field drafter in turn), every game in the battle by its battler (each
    battler, each member of a panel, in one call for all its games)."""
    k = len(task.tables)
    batch = LocmBatch.from_chance(games.make("locm"), task.offers[task.draft], task.shuffles[task.draft])
    rng = np.random.default_rng(list(task.key))
    actions = np.zeros(len(task.seats), dtype=np.int64)
    while True:
        live = np.flatnonzero(batch.phase != ENDED)
        if not len(live):
            break
        phase = batch.phase[live]
        draft = live[phase == DRAFT]
        who = task.seats[draft, batch.player[draft]]
        scored = draft[who < k]
        if len(scored):
            scores = task.tables[who[who < k][:, None], batch.player[scored][:, None], offered(batch, scored)]
            actions[scored] = PICK + scores.argmax(axis=1)
        for f in np.unique(who[who >= k]):
            group = draft[who == f]
            actions[group] = DRAFTERS_BATCH[task.named[f - k]](batch, group, rng)
        battle = live[phase == BATTLE]
        if len(battle):
            actions[battle] = battle_actions(battlers, batch, battle, task.draw[battle], rng)
        batch.apply_actions(live, actions[live])
    return batch.winner


@dataclass(frozen=True)
class DraftTask:
    """One worker's work unit: drafters (their per-seat score tables, (n, 2, 161)) each playing every
    field drafter on every draft of `offers` / `shuffles`, in both seats; `key` seeds the field's own
    random choices (the random drafter, uji2, the random battler)."""

    tables: np.ndarray
    offers: np.ndarray
    shuffles: np.ndarray
    key: tuple[int, ...]
    opponents: int

    @property
    def games(self) -> int:
        return len(self.tables) * self.opponents * len(self.offers) * 2


def play_drafts(field: Field, task: DraftTask) -> np.ndarray:
    """Worker entry point: (n, opponents, deals, 2) int8 outcomes from each drafter's view (1 win, -1
    loss, 0 draw), the last axis its seat. Game ((i * opponents + f) * deals + d) * 2 + s: drafter i
    in seat s against field drafter f on draft d (`play_games`), battled by the battler of draw d."""
    n, deals, opponents = len(task.tables), len(task.offers), task.opponents
    g = np.arange(n * opponents * deals * 2)
    seat, deal = g % 2, (g // 2) % deals
    foe, me = (g // (2 * deals)) % opponents, g // (2 * deals * opponents)
    seats = np.where(seat[:, None] == np.arange(2), me[:, None], n + foe[:, None])
    games_ = DrafterGames(task.tables, field.drafters, task.offers, task.shuffles, seats, deal, deal, task.key)
    winner = play_games(field.battlers, games_)
    outcome = np.where(winner == seat, 1, np.where(winner == 1 - seat, -1, 0))
    return outcome.reshape(n, opponents, deals, 2).astype(np.int8)


@dataclass(frozen=True)
class PairingTask:
    """One worker's work unit of drafter matchups: pairing i (drafters `pairs[i]`, ids as in
    DrafterGames) on `deals[i]` fresh drafts of seed key `keys[i]`, each draft played twice, seats
    swapped."""

    tables: np.ndarray
    named: tuple[str, ...]
    pairs: tuple[tuple[int, int], ...]
    keys: tuple[tuple[int, ...], ...]
    deals: tuple[int, ...]
    key: tuple[int, ...]

    @property
    def games(self) -> int:
        return 2 * sum(self.deals)


def play_pairings(battlers: tuple[str, ...], task: PairingTask) -> list[np.ndarray]:
    """Worker entry point: each pairing's (deals, 2) int8 outcomes from its first drafter's view, as
    evolution.scoring.fitness's pairings: draft d played with the first drafter in seat 0, then in
    seat 1; battled by the battler of draw d."""
    chance = [draft_chance(k, d) for k, d in zip(task.keys, task.deals, strict=True)]
    offers = np.concatenate([c[0] for c in chance])
    shuffles = np.concatenate([c[1] for c in chance])
    seats, draft, draw = [], [], []
    start = 0
    for (a, b), d in zip(task.pairs, task.deals, strict=True):
        seats.append(np.tile([[a, b], [b, a]], (d, 1)))
        draft.append(np.repeat(start + np.arange(d), 2))
        draw.append(np.repeat(np.arange(d), 2))
        start += d
    games_ = DrafterGames(
        task.tables, task.named, offers, shuffles, np.concatenate(seats), np.concatenate(draft),
        np.concatenate(draw), task.key,
    )  # fmt: skip
    winner = play_games(battlers, games_).reshape(-1, 2)
    outcome = np.where(winner == np.arange(2), 1, np.where(winner == 1 - np.arange(2), -1, 0)).astype(np.int8)
    return np.split(outcome, np.cumsum(task.deals)[:-1])


def play_field(
    genomes: list, space, field: Field, pmap, games_per_task: int, key: tuple[int, ...], deals: int, progress, what
) -> list[np.ndarray]:
    """The (opponents, deals, 2) outcomes of each genome against the field on the `deals` drafts of
    seed key `key` = (seed, stage, gen), in work units of about `games_per_task` games."""
    offers, shuffles = generation_chance(*key, deals)
    tables = np.stack([space.tables(c) for c in genomes]) if genomes else np.zeros((0, 2, NUM_CARDS + 1))
    per_genome = len(field.drafters) * deals * 2
    units = group_by_games([_Games(i, per_genome) for i in range(len(genomes))], games_per_task)
    tasks = [
        (
            field,
            DraftTask(
                tables[[u.index for u in unit]],
                offers,
                shuffles,
                fit.agent_key(key, t),
                len(field.drafters),
            ),
        )
        for t, unit in enumerate(units)
    ]
    results = map_tasks(play_drafts, tasks, pmap, field, progress, what)
    return [o for r in results for o in r]


@dataclass(frozen=True)
class _Games:
    index: int
    games: int


def field_scores(outcomes: np.ndarray, field: Field) -> tuple[Score, dict[str, Score]]:
    """A genome's Score over all its games and its Score against each field drafter."""
    each = {}
    for name, o in zip(field.drafters, outcomes):
        s = Score()
        s.add(o)
        each[name] = s
    total = Score()
    for s in each.values():
        total = total.merge(s)
    return total, each


# --- drafters as genomes ---------------------------------------------------------------------------
def score_problems(cards: list) -> list[str]:
    """What keeps the genes `cards` from being scores (whole numbers 0..1000)."""
    bad = [c for c in cards if not (isinstance(c, int | np.integer) and not isinstance(c, bool))]
    if bad:
        return [f"scores must be whole numbers, got {bad[0]!r}"]
    out = [c for c in cards if not 0 <= c <= MAX_SCORE]
    return [f"scores must lie in 0..{MAX_SCORE}, got {out[0]}"] if out else []


def genome_tables(cards) -> np.ndarray:
    """(2, 161) the per-seat score tables of a genome of 160 scores (both seats) or 320 (one list per
    seat), column 0 unused."""
    return score_table(np.asarray(cards, dtype=np.float64).reshape(-1, NUM_CARDS))


def file_genome(path, shown=None) -> tuple[str, list[int]]:
    """A drafter file's name and genome: one list of 160 scores if both seats score alike, else 320;
    its scores as they are where they are whole numbers 0..1000, else their ranks among its scores (the
    same order and the same ties, so the same picks). UserError in one line for a file that is not a
    drafter file, naming it as `shown` (default `path`)."""
    try:
        drafter = read_drafter(path)
    except UserError as exc:
        if "'cards'" in str(exc):
            raise UserError(
                f"{str(shown or path)!r} is a deck file, not a drafter file (name, scores): a locm_drafter matchup "
                "plays drafters (drafter files, locm_drafter run folders, the field's drafters by name)"
            ) from None
        raise
    rows = drafter.scores[:, 1:]
    rows = rows[:1] if (rows[0] == rows[1]).all() else rows
    whole = (rows == np.rint(rows)).all() and rows.min() >= 0 and rows.max() <= MAX_SCORE
    genome = rows if whole else np.unique(rows, return_inverse=True)[1].reshape(rows.shape)
    return drafter.name, genome.astype(int).ravel().tolist()


@functools.cache
def field_decks(name: str) -> np.ndarray:
    """(2, DESCRIPTOR_DRAFTS, 30) the decks field drafter `name` drafts in each seat on the fixed offers
    (its own random choices from seed 0)."""
    offers, shuffles = generation_chance(0, fit.STAGE_EVOLVE, 0, DESCRIPTOR_DRAFTS)
    batch = LocmBatch.from_chance(games.make("locm"), offers, shuffles)
    every, rng = np.arange(DESCRIPTOR_DRAFTS), np.random.default_rng(0)
    while (batch.phase == DRAFT).any():
        batch.apply_actions(every, DRAFTERS_BATCH[name](batch, every, rng))
    return batch.picks.transpose(1, 0, 2).copy()


def pick_rates(decks: np.ndarray, offers: np.ndarray) -> np.ndarray:
    """(NUM_CARDS,) how often each card (card 1 first) is picked when offered, both seats of `decks`
    (2, drafts, 30) drafted on `offers` (drafts, 30, 3) (nan: never offered)."""
    picked = np.bincount(decks.ravel(), minlength=NUM_CARDS + 1)[1:]
    shown = 2 * np.bincount(offers.ravel(), minlength=NUM_CARDS + 1)[1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(shown > 0, picked / shown, np.nan)
