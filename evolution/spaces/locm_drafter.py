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
battler, the run's `battlers` in turn by draft (so with several the fitness averages over them): a
scripted battler of the field or a learned one, a LOCM model or panel by its spec (agents/locm_battlers.py,
checked when the space is made; a worker loads it once).
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

The drafts, the games and the genome helpers named here are in evolution/spaces/locm_drafter_games.py.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

from agents.heuristics.locm_drafter_file import write_drafter
from agents.locm_battlers import BATTLERS_HELP, check_battler
from agents.panel import NAMED_PANELS, trust_figures
from agents.parallel import group_by_games, map_tasks
from agents.stats import score_summary
from evolution.decks.base import assert_legal
from evolution.decks.locm_drafter_settings import DRAFTERS, LocmDrafterSettings
from evolution.individuals import set_score
from evolution.scoring import fitness as fit
from evolution.scoring.panel import ReferenceDeck, deck_files
from evolution.spaces.locm_drafter_games import (
    CURVE,
    MAX_SCORE,
    TOP_CARDS,
    Field,
    PairingTask,
    descriptor_offers,
    drafted_decks,
    field_decks,
    field_scores,
    file_genome,
    generation_offers,
    genome_tables,
    offered_cards,
    pick_rates,
    play_field,
    play_pairings,
    score_problems,
)
from games.errors import UserError
from games.fileio import resolve_path
from games.locm import CARDS, CREATURE, NUM_CARDS
from games.locm_batch import COST, TYPE

#: the field's score drafters shipped as drafter files (scripts/locm_field_drafter_files.py), and where
FIELD_DRAFTER_FILES = "decks/locm/drafters"
SCORE_DRAFTERS = ("chad", "coac")


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
        for battler in self.settings.battlers:
            try:
                check_battler(battler)
            except UserError as exc:
                raise UserError(f"battlers: {exc}") from None

    # --- what a deck is ---------------------------------------------------------------------------
    def problems(self, cards) -> list[str]:
        cards = list(cards)
        if len(cards) == 1 and 0 <= cards[0] < len(DRAFTERS):
            name = DRAFTERS[cards[0]]
            kept = f" (as a drafter file: {FIELD_DRAFTER_FILES}/{name}.toml)" if name in SCORE_DRAFTERS else ""
            return [f"the field drafter {name} plays but is no genome of scores{kept}"]
        if len(cards) != self.max_cards:
            hint = {NUM_CARDS: "; set per_seat = false", 2 * NUM_CARDS: "; set per_seat = true"}.get(len(cards), "")
            return [f"a drafter holds {self.max_cards} scores, got {len(cards)}{hint}"]
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
            for f in files:  # named as given: the file itself, or the folder given and its file's name
                shown = raw if resolve_path(raw).is_file() else os.path.join(str(raw), f.name)
                name, genome = file_genome(f, shown)
                out.append(ReferenceDeck(name=name, group=group, cards=tuple(genome), path=str(f)))
        return out

    def build_agent(self, spec: str, seed: int) -> tuple[str, ...]:
        """The battlers both seats battle with, in turn by draft: a comma list of battlers (as the
        `battlers` setting names them: scripted names, LOCM model files, named LOCM panels); UserError in
        one line."""
        names = tuple(n.strip() for n in spec.split(","))
        for name in names:
            try:
                check_battler(name)
            except UserError as exc:
                raise UserError(
                    f"{exc} (a locm_drafter matchup's --agent names the battlers both seats battle with: "
                    f"{BATTLERS_HELP}, or a comma list of them, in turn by draft)"
                ) from None
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


def battler_trust(battlers: tuple[str, ...]) -> dict | None:
    """The trust figures (agents.panel.trust_figures) of the panel that battles every draft: a named panel
    or a panel file; None for several battlers or one with no figures recorded."""
    if len(battlers) != 1:
        return None
    return trust_figures(battlers[0], NAMED_PANELS.get(battlers[0], {}).get("members", ()))


class DrafterScorer:
    """The Scorer (evolution.decks.base) of the locm_drafter space: each drafter against the field
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
            "trust": battler_trust(self.agent.battlers),
            "targets": {
                "every_reference_lower_above_0.5": all(r["lower_above_0.5"] for r in references),
                "references_lower_above_0.5": sum(r["lower_above_0.5"] for r in references),
                "references": len(references),
                "ancestor_together_at_least_0.55": None,
            },
        }
