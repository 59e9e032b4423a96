"""The `locm_drafter` deck space: a Legends of Code and Magic 1.2 draft policy as the genome.

An individual is one score per card of the 160 (card 1 first), or with `per_seat` two such lists, the
first player's first (Chad's scores differ by seat); each score a whole number 0..1000, so genomes
stay lists of ints in JSON and DEAP. The drafter picks the offered card with the highest score, the
first offered on ties (agents.heuristics.locm_field.ScoreDrafter); its champion is written as a
drafter file (agents/heuristics/locm_drafter_file.py), an agent spec of every LOCM command.

Fitness is the mean win rate against the field's drafters (the run's `field`, by default the
competition's nine), both seats: each generation draws `games_per_opponent / 2` fresh drafts
(`generation_chance`: the offers and both deck shuffles, from the run's seed and the generation
alone, whatever `--jobs`), and every drafter of the pool plays each of them against every field
drafter twice, once in each seat, on the same offers and shuffles. Both players battle with the same
battler, the run's `battlers` in turn by draft (so with several the fitness averages over them).
Every drafter of a generation meets the same drafts, so the cards they offer (`generation_offers`,
`active_genes`) are the only genes its games test. Games run on the vectorised engine
(games.locm_batch.LocmBatch, the field's batch drafters and battlers) in work units of plain arrays
through the caller's worker pool; a drafter's score is a `Score` over its deals, pooled over
`score_memory` generations, with its 95 % interval.

Drafters also play each other (`deckopt matchups --game locm_drafter`, through the members the
designer commands ask of a space whose decks play each other: `references`, `reference_problems`,
`build_agent`, `matches`): a drafter is a drafter file, a genome of a run, or a field drafter by name
(one int, its place in the field's list: never evolved, `problems` refuses it); each pairing on fresh
drafts of its own seed key, both seats on each, battled by the battlers named as the `battlers`
setting names them, in turn by draft; its games and the evolution's are one batch loop (`play_games`).

Operators (every random choice from the given Generator): a random drafter draws every score
uniformly; mutation adds a Gaussian step (`mutation_sigma`) to a `mutation_rate` share of the genes
(at least one), clipped to 0..1000; crossover is uniform; repair clips. Descriptors and rows read the
decks a drafter drafts on a fixed set of offers (`DESCRIPTOR_DRAFTS` drafts from seed 0): their mean
mana cost and creature share, the mana curve, and its best-scored cards.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import games
from agents.heuristics.locm_drafter_file import read_drafter, score_table, write_drafter
from agents.heuristics.locm_field import BATTLERS_BATCH, DRAFTERS_BATCH, offered
from agents.parallel import group_by_games, map_tasks
from agents.stats import score_summary
from evolution.individuals import Score, set_score
from evolution.scoring import fitness as fit
from evolution.scoring.panel import ReferenceDeck, deck_files, resolve_path
from evolution.spaces.base import assert_legal
from evolution.spaces.locm_drafter_settings import BATTLERS, DRAFTERS, LocmDrafterSettings
from games.errors import UserError
from games.locm import BATTLE, CARDS, CREATURE, DRAFT, ENDED, NUM_CARDS, PICK
from games.locm_batch import COST, TYPE, LocmBatch

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
    in turn by draft (the work units' shared agent: plain names)."""

    drafters: tuple[str, ...]
    battlers: tuple[str, ...]


@dataclass(frozen=True)
class DrafterGames:
    """Games between drafters, as plain arrays: drafter i < len(tables) is a score drafter (its per-seat
    score tables, (k, 2, 161)), drafter len(tables) + j the field's `named[j]`; game g drafts draft
    `draft[g]` of `offers` (drafts, 30, 3) / `shuffles` (drafts, 2, 30) with drafter `seats[g, p]` in
    seat p, then both seats battle with battler `battler[g]`; `key` seeds the field's own random
    choices (the random drafter, uji2, the random battler)."""

    tables: np.ndarray
    named: tuple[str, ...]
    offers: np.ndarray
    shuffles: np.ndarray
    seats: np.ndarray
    draft: np.ndarray
    battler: np.ndarray
    key: tuple[int, ...]


def play_games(battlers: tuple[str, ...], task: DrafterGames) -> np.ndarray:
    """(games,) the winner of every game of `task` (0 or 1; -1 for a draw), all in one batch of the
    vectorised engine: each step every game in the draft is played by its mover's drafter (the score
    drafters together, then each field drafter in turn), every game in the battle by its battler."""
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
        for b in np.unique(task.battler[battle]):
            group = battle[task.battler[battle] == b]
            actions[group] = BATTLERS_BATCH[battlers[b]](batch, group, rng)
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
    in seat s against field drafter f on draft d (`play_games`), battled by battler d mod the
    battlers."""
    n, deals, opponents = len(task.tables), len(task.offers), task.opponents
    g = np.arange(n * opponents * deals * 2)
    seat, deal = g % 2, (g // 2) % deals
    foe, me = (g // (2 * deals)) % opponents, g // (2 * deals * opponents)
    seats = np.where(seat[:, None] == np.arange(2), me[:, None], n + foe[:, None])
    games_ = DrafterGames(
        task.tables, field.drafters, task.offers, task.shuffles, seats, deal, deal % len(field.battlers), task.key
    )
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
    seat 1; battled by battler d mod the battlers."""
    chance = [draft_chance(k, d) for k, d in zip(task.keys, task.deals, strict=True)]
    offers = np.concatenate([c[0] for c in chance])
    shuffles = np.concatenate([c[1] for c in chance])
    seats, draft, battler = [], [], []
    start = 0
    for (a, b), d in zip(task.pairs, task.deals, strict=True):
        seats.append(np.tile([[a, b], [b, a]], (d, 1)))
        draft.append(np.repeat(start + np.arange(d), 2))
        battler.append(np.repeat(np.arange(d) % len(battlers), 2))
        start += d
    games_ = DrafterGames(
        task.tables, task.named, offers, shuffles, np.concatenate(seats), np.concatenate(draft),
        np.concatenate(battler), task.key,
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


def file_genome(path) -> tuple[str, list[int]]:
    """A drafter file's name and genome: one list of 160 scores if both seats score alike, else 320;
    its scores as they are where they are whole numbers 0..1000, else their ranks among its scores (the
    same order and the same ties, so the same picks). UserError in one line for a file that is not a
    drafter file."""
    try:
        drafter = read_drafter(path)
    except UserError as exc:
        if "'cards'" in str(exc):
            raise UserError(
                f"{str(path)!r} is a deck file, not a drafter file (name, scores): a locm_drafter matchup plays "
                "drafters (drafter files, locm_drafter run folders, the field's drafters by name)"
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


# --- the space ------------------------------------------------------------------------------------
class LocmDrafterSpace:
    """Card-scoring draft policies of LOCM 1.2 (see the module docstring)."""

    Settings = LocmDrafterSettings
    name = LocmDrafterSettings.game
    ordered = True

    def __init__(self, config):
        self.config = config
        self.settings: LocmDrafterSettings = config.settings
        self.seats = 2 if self.settings.per_seat else 1
        self.max_cards = self.seats * NUM_CARDS

    # --- what a deck is ---------------------------------------------------------------------------
    def problems(self, cards) -> list[str]:
        cards = list(cards)
        if len(cards) != self.max_cards:
            return [f"a drafter holds {self.max_cards} scores, got {len(cards)}"]
        return score_problems(cards)

    def tables(self, cards) -> np.ndarray:
        """(2, 161) the per-seat score tables of a genome (column 0 unused)."""
        return genome_tables(cards)

    def decks(self, cards) -> np.ndarray:
        """(2, DESCRIPTOR_DRAFTS, 30) the decks the drafter drafts in each seat on the fixed offers."""
        if len(cards) == 1:
            return field_decks(DRAFTERS[cards[0]])
        return drafted_decks(self.tables(cards), descriptor_offers())

    def top_cards(self, cards, k: int = TOP_CARDS) -> list[str]:
        """The `k` best-scored cards (first seat's scores), best first, as 'number name'; a field
        drafter's: the `k` it picks most often when offered, on the fixed offers."""
        if len(cards) == 1:
            rates = pick_rates(self.decks(cards), descriptor_offers())
            order = np.argsort(-np.nan_to_num(rates, nan=-1.0), kind="stable")[:k]
        else:
            order = np.argsort(-np.asarray(cards[:NUM_CARDS]), kind="stable")[:k]
        return [f"{i + 1} {CARDS[i + 1].name}" for i in order]

    def words(self, cards) -> str:
        """Its three best-scored cards (a field drafter: the three it picks most often when offered);
        the mean cost of its decks is a number of its row."""
        return f"{'top' if len(cards) > 1 else 'picks most'} {', '.join(self.top_cards(cards, 3))}"

    def row(self, cards) -> dict:
        """The drafter's best-scored cards (`top`; a field drafter's: those it picks most often), and
        the mana curve (`curve`: mean cards per deck of each cost), mean cost and creature share of the
        decks it drafts on the fixed offers."""
        decks = self.decks(cards)
        costs = np.minimum(COST[decks], len(CURVE) - 1)
        curve = np.bincount(costs.ravel(), minlength=len(CURVE)) / (decks.size / decks.shape[-1])
        return {
            "top": self.top_cards(cards),
            "curve": {c: round(float(v), 2) for c, v in zip(CURVE, curve)},
            "mean cost": round(float(COST[decks].mean()), 2),
            "creatures": round(float((TYPE[decks] == CREATURE).mean()), 3),
        }

    def save(self, cards, path, name: str, comment: str) -> None:
        """The drafter as a drafter file (play it: `deckopt match locm PATH.toml+max-attack coac`)."""
        scores = [int(c) for c in cards]
        write_drafter(path, name, scores if self.seats == 1 else [scores[:NUM_CARDS], scores[NUM_CARDS:]], comment)

    # --- drafters playing each other (deckopt matchups) ---------------------------------------------
    def reference_problems(self, cards) -> list[str]:
        """What keeps `cards` from being a drafter of a matchup: any genome of this space's kind (one
        list of scores or one per seat, whatever the run's `per_seat`) or a field drafter."""
        cards = list(cards)
        if len(cards) == 1:
            return [] if 0 <= cards[0] < len(DRAFTERS) else [f"no field drafter number {cards[0]}"]
        if len(cards) not in (NUM_CARDS, 2 * NUM_CARDS):
            return [f"a drafter holds {NUM_CARDS} scores or {2 * NUM_CARDS} (one list per seat), got {len(cards)}"]
        return score_problems(cards)

    def references(self, paths) -> list[ReferenceDeck]:
        """The drafters named by `paths`: a field drafter by its name (its cards: its number in the
        field's list), a drafter file (its genome: its scores where they are whole numbers 0..1000, else
        their ranks, which pick alike), or a folder of drafter files; UserError in one line."""
        out: list[ReferenceDeck] = []
        for raw in paths:
            if str(raw) in DRAFTERS:
                out.append(ReferenceDeck(name=str(raw), group="field", cards=(DRAFTERS.index(str(raw)),), path=""))
                continue
            takes = (
                "a locm_drafter matchup takes drafter files (.toml), folders of them, locm_drafter run folders and "
                f"the field's drafters by name ({', '.join(DRAFTERS)})"
            )
            if not resolve_path(raw).exists():
                raise UserError(f"drafter {str(raw)!r} not found: {takes}")
            try:
                files, group = deck_files(raw, "drafter")
            except UserError:
                raise UserError(f"folder {str(raw)!r} holds no drafter files: {takes}") from None
            for f in files:
                name, genome = file_genome(f)
                out.append(ReferenceDeck(name=name, group=group, cards=tuple(genome), path=str(f)))
        return out

    def build_agent(self, spec: str, seed: int) -> tuple[str, ...]:
        """The battlers both seats battle with, in turn by draft: a comma list of battler names (as the
        `battlers` setting names them); UserError in one line."""
        names = tuple(n.strip() for n in spec.split(","))
        bad = [n for n in names if n not in BATTLERS]
        if bad:
            raise UserError(
                f"unknown battler {bad[0]!r}: a locm_drafter matchup's --agent names the battlers both seats "
                f"battle with ({', '.join(BATTLERS)}, or a comma list of them, in turn by draft)"
            )
        return names

    def matches(self, battlers: tuple[str, ...], pmap, games_per_task: int = 200):
        """play(pairings, key_prefix, progress=None, what="games") -> the (deals, 2) outcomes of every
        pairing of drafters (evolution.scoring.yardstick.Play): each on `deals` fresh drafts of its own
        seed key, both seats, battled by `battlers` in turn by draft, through `pmap`."""

        def play(pairings, key_prefix, progress=None, what="games"):
            tasks = []
            for t, unit in enumerate(group_by_games(pairings, games_per_task)):
                ids = list(dict.fromkeys(c for p in unit for c in (p.a, p.b)))
                scored = [c for c in ids if len(c) > 1]
                named = [c for c in ids if len(c) == 1]
                number = {c: i for i, c in enumerate(scored + named)}
                tables = np.stack([genome_tables(c) for c in scored]) if scored else np.zeros((0, 2, NUM_CARDS + 1))
                task = PairingTask(
                    tables,
                    tuple(DRAFTERS[c[0]] for c in named),
                    tuple((number[p.a], number[p.b]) for p in unit),
                    tuple(tuple(p.key) for p in unit),
                    tuple(p.deals for p in unit),
                    fit.agent_key(key_prefix, t),
                )
                tasks.append((battlers, task))
            return [o for r in map_tasks(play_pairings, tasks, pmap, battlers, progress, what) for o in r]

        return play

    # --- operators --------------------------------------------------------------------------------
    def random_deck(self, rng: np.random.Generator) -> list[int]:
        return assert_legal(self, rng.integers(0, MAX_SCORE + 1, size=self.max_cards).tolist())

    def mutate(self, cards, rng: np.random.Generator) -> list[int]:
        """A Gaussian step of `mutation_sigma` on a `mutation_rate` share of the genes (at least one),
        clipped; a mutant always differs from its parent."""
        s = self.settings
        genes = np.array(cards, dtype=np.int64)
        while True:
            chosen = rng.random(len(genes)) < s.mutation_rate
            if not chosen.any():
                chosen[int(rng.integers(len(genes)))] = True
            step = np.rint(rng.normal(0.0, s.mutation_sigma, size=int(chosen.sum()))).astype(np.int64)
            out = genes.copy()
            out[chosen] = np.clip(out[chosen] + step, 0, MAX_SCORE)
            if not np.array_equal(out, genes):
                return assert_legal(self, out.tolist())

    def crossover(self, a, b, rng: np.random.Generator) -> tuple[list[int], list[int]]:
        """Uniform: each gene swapped with chance 1/2."""
        a, b = np.array(a, dtype=np.int64), np.array(b, dtype=np.int64)
        swap = rng.random(len(a)) < 0.5
        a[swap], b[swap] = b[swap].copy(), a[swap].copy()
        return assert_legal(self, a.tolist()), assert_legal(self, b.tolist())

    def repair(self, cards, rng: np.random.Generator) -> list[int]:
        """Any list of numbers as a drafter: rounded, clipped to 0..1000, cut or padded (with the middle
        score) to the genome's length."""
        genes = np.clip(np.rint(np.asarray(list(cards), dtype=np.float64)), 0, MAX_SCORE).astype(int).tolist()
        genes = (genes + [MAX_SCORE // 2] * self.max_cards)[: self.max_cards]
        return assert_legal(self, genes)

    # --- how a pool is scored ---------------------------------------------------------------------
    def scorer(self, config) -> DrafterScorer:
        return DrafterScorer(self, config)

    def active_genes(self, gen: int) -> np.ndarray:
        """Which genes generation `gen`'s games read: the scores of the cards its drafts offer (in both
        seats' lists)."""
        s = self.settings
        offers = generation_offers(self.config.seed, gen, s.games_per_opponent // 2)
        return np.tile(offered_cards(offers), self.seats)

    # --- MAP-Elites descriptors -------------------------------------------------------------------
    def descriptor_space(self) -> tuple[tuple[str, str], list[tuple[float, float]]]:
        """The mean mana cost (0..7) and the creature share (0..1) of the decks it drafts."""
        return ("mean cost", "creature share"), [(0.0, 7.0), (0.0, 1.0)]

    def descriptors(self, cards) -> tuple[float, float]:
        decks = self.decks(cards)
        return float(COST[decks].mean()), float((TYPE[decks] == CREATURE).mean())


# --- the scorer -----------------------------------------------------------------------------------
class DrafterScorer:
    """The Scorer (evolution.spaces.base) of the locm_drafter space: each drafter against the field
    (see the module docstring); no yardstick; the champion re-measured and validated against each
    field drafter on fresh drafts."""

    def __init__(self, space: LocmDrafterSpace, config):
        self.space, self.config = space, config
        s = space.settings
        self.agent = Field(tuple(s.field), tuple(s.battlers))
        self.header = {
            "field": list(s.field),
            "battlers": list(s.battlers),
            "games_per_opponent": s.games_per_opponent,
            "per_seat": s.per_seat,
        }

    def play(self, genomes, stage: int, gen: int, games: int, pmap, progress, what) -> list[np.ndarray]:
        """Each genome's (opponents, games // 2, 2) outcomes on the drafts of (run seed, stage, gen)."""
        c = self.config
        key = (c.seed, stage, gen)
        return play_field(genomes, self.space, self.agent, pmap, c.games_per_task, key, games // 2, progress, what)

    def evaluate(self, pool: list, hof, gen: int, pmap, progress: Callable | None = None, what: str = "") -> int:
        c = self.config
        for ind in pool:
            assert_legal(self.space, ind)
        games = self.space.settings.games_per_opponent
        results = self.play([list(ind) for ind in pool], fit.STAGE_EVOLVE, gen, games, pmap, progress, what)
        keep = c.score_memory - 1
        played = 0
        for ind, outcomes in zip(pool, results):
            fresh, each = field_scores(outcomes, self.agent)
            played += fresh.games
            pooled = fresh
            for past in ind.stats.past[-keep:] if keep else []:
                pooled = pooled.merge(past)
            set_score(ind, pooled.score, pooled.ci95, pooled.record)
            ind.stats.past = (ind.stats.past[-keep:] + [fresh])[-keep:] if keep else []
            ind.stats.by_opponents = {name: score_summary(s.as_dict()) for name, s in each.items()}
        return played

    def measure_yardstick(self, pool: list, gen: int, pmap, progress: Callable | None = None) -> int:
        return 0

    def measure(self, genomes, stage: int, gen: int, games: int, pmap, progress, what) -> list[dict]:
        """Each genome's score against the field with `games` fresh games per field drafter: {score,
        ci95, games, by_opponents}."""
        out = []
        for outcomes in self.play(genomes, stage, gen, games, pmap, progress, what):
            total, each = field_scores(outcomes, self.agent)
            out.append({**total.as_dict(), "by_opponents": {n: s.as_dict() for n, s in each.items()}})
        return out

    def remeasure(self, decks: list, gen: int, stage: int, pmap, progress: Callable | None = None):
        games = self.space.settings.playoff_games_per_opponent
        again = self.measure([list(d) for d in decks], stage, gen, games, pmap, progress, "elites")
        how = (
            f"best of the archive's {len(decks)} best elites, each measured again with {games} fresh games "
            "against each field drafter"
        )
        return [{k: a[k] for k in ("score", "ci95", "games")} for a in again], sum(a["games"] for a in again), how

    def finish(self, folder, pmap, log: Callable | None = None, progress: Callable | None = None) -> dict:
        """The champion: the last generation's `playoff_top` best drafters and the hall of fame, each
        measured again with `playoff_games_per_opponent` fresh games per field drafter; the best of that
        look wins. With `validate`, it is validated on fresh drafts against each field drafter."""
        log = log or (lambda line: None)
        c, s = self.config, self.space.settings
        last = folder.read_last_generation()
        gen = last["generation"]
        candidates: list[tuple] = []
        for d in last["decks"]:
            if tuple(d["cards"]) not in candidates and len(candidates) < max(1, c.playoff_top):
                candidates.append(tuple(d["cards"]))
        hof = dict.fromkeys(tuple(d["cards"]) for d in folder.read_hall_of_fame())
        candidates += [h for h in hof if h not in candidates]
        games = s.playoff_games_per_opponent
        scored = self.measure(candidates, fit.STAGE_PLAYOFF, gen, games, pmap, progress, "champion candidates")
        entries = sorted(({"cards": list(cand), **m} for cand, m in zip(candidates, scored)), key=lambda e: -e["score"])
        how = (
            f"best of generation {gen}'s top {min(len(candidates), c.playoff_top)} and the hall of fame "
            f"({len(candidates)} drafters), each measured again with {games} fresh games against each field drafter"
        )
        champion = {"cards": entries[0]["cards"], "generation": gen, "how": how, "playoff": entries}
        folder.write_champion(champion, self.space, how)
        e = entries[0]
        lo, hi = e["ci95"]
        log(f"champion: {self.space.words(e['cards'])}, {e['score']:.3f} [{lo:.3f}, {hi:.3f}], {how}")
        out = {"champion": champion}
        if c.validate:
            report = self.validate(e["cards"], pmap, seed=c.seed, progress=progress)
            report["generation"] = gen
            folder.write_validation(report)
            o = report["overall"]
            log(
                f"validation: {o['score']:.3f} [{o['ci95'][0]:.3f}, {o['ci95'][1]:.3f}] against the field, "
                f"{report['targets']['references_lower_above_0.5']}/{len(report['references'])} field drafters "
                "beaten with the CI above 0.5"
            )
            out["validation"] = report
        return out

    def validate(self, cards, pmap, *, seed: int, games: int | None = None, panel=None, baseline=None,
                 progress: Callable | None = None, best=()) -> dict:  # fmt: skip
        """The drafter against each field drafter on fresh drafts of seed `seed` (`games` per field
        drafter, default the run's validation_games), as a validation against reference decks (one per
        field drafter; `deckopt decks RUN --validate`). A drafter plays the field: no panel of deck
        files, no baseline."""
        if panel or baseline is not None:
            raise UserError(
                "a locm_drafter drafter is validated against the field's drafters (no --panel or --baseline)"
            )
        s = self.space.settings
        games = games or s.validation_games
        scorer = DrafterScorer(self.space, self.config.replace(seed=seed))
        (outcomes,) = scorer.play([list(cards)], fit.STAGE_VALIDATE, 0, games, pmap, progress, "validation")
        total, each = field_scores(outcomes, self.agent)
        references = []
        for name, score in each.items():
            d = score.as_dict()
            references.append({"name": name, "group": "field", "cards": [], **d, "lower_above_0.5": d["ci95"][0] > 0.5})
        return {
            "deck": [int(c) for c in cards],
            "agent": ",".join(self.agent.battlers),
            "seed": seed,
            "games_per_reference": 2 * (games // 2),
            "games": total.games,
            "overall": total.as_dict(),
            "references": references,
            "groups": [{"group": "field", "decks": len(references), **total.as_dict()}],
            "targets": {
                "every_reference_lower_above_0.5": all(r["lower_above_0.5"] for r in references),
                "references_lower_above_0.5": sum(r["lower_above_0.5"] for r in references),
                "references": len(references),
                "ancestor_together_at_least_0.55": None,
            },
        }
