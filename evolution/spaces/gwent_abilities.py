"""The Gwent Abilities deck space: decks of the card pool (games.gwent_abilities_cards.CARDS) legal
under `AbilityDeckRules` (size, copy limit, gold copy limit, provision budget), scored by mirrored
matches (evolution.scoring.fitness's pairings and scores, played on Gwent Abilities), validated
against the reference decks of decks/gwent_abilities.

A deck is the sorted list of its cards' indices into CARDS (a copy per entry). The agent plays every
seat; a run's default agent is the game's evaluator, `gwent_abilities_evaluator` (agents.PANELS:
three networks trained alike from independent seeds, each deal played by one). The opponents are
the population, the hall of fame and fresh random legal decks. The best decks of every generation
are measured against a fixed yardstick (decks/gwent_abilities/yardstick: decks of an independent
run and random legal decks, never part of the fitness nor of the validation), which chooses the
champion as in Gwent Lite (evolution.scoring.yardstick); without a yardstick the champion is the
best deck of the last generation.

One module: a deck game's whole behaviour in evolution (operators, repair, scoring, validation,
descriptors, report rows) is one deck space, so that a reader finds all of it on one page.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import numpy as np

import games
from agents.parallel import Mapper
from evolution.designer import plots, tables, verdicts
from evolution.designer.html import Block, Text, note
from evolution.scoring import fitness as fit
from evolution.scoring import yardstick
from evolution.scoring.evaluation import Evaluator
from evolution.scoring.panel import DECK_SUFFIXES, ReferenceDeck, resolve_path
from evolution.spaces.base import RunInputs, check_racing_split
from evolution.studies import validation
from games.config import need
from games.errors import UserError
from games.gwent_abilities_cards import (
    BOND,
    CARD_INDEX,
    CARDS,
    DECOY,
    HORN,
    MEDIC,
    MELEE,
    MORALE,
    MUSTER,
    RANGED,
    SPY,
    AbilityDeck,
    AbilityDeckRules,
    load_ability_deck,
    save_ability_deck,
)

GAME = "gwent_abilities"
#: the abilities of the `style` descriptors: cards that bring cards, and units worth more beside others
ADVANTAGE = frozenset({SPY, MEDIC, DECOY})
SYNERGY = frozenset({BOND, MORALE, HORN, MUSTER})
#: the reference decks a champion is validated against
REFERENCE_DECKS = ["decks/gwent_abilities"]
#: the default agent: the panel of the game's three trained networks (agents.PANELS)
EVALUATOR = "gwent_abilities_evaluator"
#: the fixed decks the best decks of every generation are measured against
YARDSTICK = ["decks/gwent_abilities/yardstick"]
#: Gwent Lite's agents, the default one first, which this space reads as its own evaluator
GWENT_LITE_AGENTS = ("evaluator", "pretrained")


def style_shares(cards) -> tuple[float, float]:
    """The deck's share of card-advantage cards (spy, medic, decoy: cards that bring or bring back
    cards) and its share of board-synergy cards (tight bond, morale, horn, muster: units worth more
    beside others): control decks that out-card the opponent, engine decks that multiply a row, and
    plain decks of strong units and heroes near the origin."""
    cards = list(cards)
    advantage = sum(CARDS[k].ability in ADVANTAGE for k in cards)
    synergy = sum(CARDS[k].ability in SYNERGY for k in cards)
    return float(advantage / len(cards)), float(synergy / len(cards))


def row_shares(cards) -> tuple[float, float]:
    """The share of the deck's units on the melee row and the share on the ranged row (the siege
    share is the rest): decks built around one row (melee, ranged or siege engines, which the row's
    weather card answers) against decks spread over the rows. A deck without units sits at a third
    each."""
    rows = [CARDS[k].row for k in cards if CARDS[k].unit]
    if not rows:
        return 1 / 3, 1 / 3
    return float(rows.count(MELEE) / len(rows)), float(rows.count(RANGED) / len(rows))


#: the archive's descriptor pairs by name (`archive_descriptors`), the default first: their names and
#: a deck's values, each a share 0..1
DESCRIPTOR_SETS = {
    "style": (("advantage_share", "synergy_share"), style_shares),
    "rows": (("melee_share", "ranged_share"), row_shares),
}


def names(cards) -> list[str]:
    """A deck's card names, in pool order."""
    return [CARDS[k].name for k in sorted(cards)]


def counts_words(cards) -> str:
    """`3x blue_stripes, 1x geralt, ...` in pool order."""
    return ", ".join(f"{n}x {CARDS[k].name}" for k, n in sorted(Counter(cards).items()))


# ------------------------------------------------------------------------------------------------
# Matches


def ability_game(rules: AbilityDeckRules, a, b):
    """The game of deck `a` (seat 0) against deck `b` (seat 1) under the deck `rules`."""
    return games.make(GAME, decks=[names(a), names(b)], rules=rules)


def play_pairings(pairings, agent, rules, pmap, games_per_task: int, key_prefix, progress=None, what="games"):
    """The (deals, 2) outcomes of every pairing under the deck `rules`, in order, through `pmap`
    (tasks fixed by the pairings; fitness.play_game_pairings)."""
    make_game = functools.partial(ability_game, rules)
    return fit.play_game_pairings(pairings, agent, make_game, pmap, games_per_task, key_prefix, progress, what)


class AbilityEvaluator(Evaluator):
    """evolution.scoring.evaluation's plan and scores, with Gwent Abilities matches and random decks."""

    def __init__(self, config, agent, pmap, space: GwentAbilitiesSpace):
        super().__init__(config, agent, pmap)
        self.space = space

    def check(self, deck) -> None:
        self.space.assert_legal(deck)

    def play(self, pairings, prefix, progress, what):
        c = self.config
        rules = self.space.rules
        return play_pairings(pairings, self.agent, rules, self.pmap, c.games_per_task, prefix, progress, what)

    def random_opponents(self, gen: int) -> list[tuple[int, ...]]:
        c = self.config
        rng = np.random.default_rng([c.seed, fit.STAGE_EVOLVE, gen, 7919])
        return [tuple(self.space.random_deck(rng)) for _ in range(c.random_opponents)]


def round_robin_scores(decks, agent, pmap, config, games_per_pair: int, stage: int, gen: int, progress, what):
    """Each deck's fit.Score over a round robin of `games_per_pair` games per pair (under the run's rules)."""
    pairings, who = fit.round_robin([tuple(d) for d in decks], games_per_pair // 2, config.seed, stage, gen)
    prefix, rules = (config.seed, stage, gen), config.ability_rules
    results = play_pairings(pairings, agent, rules, pmap, config.games_per_task, prefix, progress, what)
    scores = [fit.Score() for _ in decks]
    for (i, j), outcomes in zip(who, results):
        scores[i].add(outcomes)
        scores[j].add(outcomes, flip=True)
    return scores


# ------------------------------------------------------------------------------------------------
# The space


class GwentAbilitiesSpace:
    """Gwent Abilities decks under AbilityDeckRules; every operator returns a legal deck."""

    name = GAME
    objectives = ("win",)
    table = "gwent_abilities"
    settings = frozenset({"ability_rules"})
    rules_field = "ability_rules"
    reference_decks = True
    #: two decks play each other
    head_to_head = True
    descriptor_sets = tuple(DESCRIPTOR_SETS)

    def __init__(self, rules: AbilityDeckRules | None = None, descriptor_set: str | None = None):
        self.rules = rules or AbilityDeckRules()
        #: the archive's descriptor pair: a name of DESCRIPTOR_SETS (None: the default, the first)
        self.descriptor_set = descriptor_set or self.descriptor_sets[0]

    # --- legality ---------------------------------------------------------------------------------
    def problems(self, cards) -> list[str]:
        cards = list(cards)
        if not all(isinstance(k, int) and not isinstance(k, bool) and 0 <= k < len(CARDS) for k in cards):
            return [f"cards must be card indices 0..{len(CARDS) - 1}, got {cards!r}"]
        return self.rules.problems(names(cards))

    def assert_legal(self, cards) -> list[int]:
        """The guard before a deck reaches a game: a bug, not a user error, if it fires."""
        problems = self.problems(cards)
        if problems:
            raise AssertionError(f"illegal deck {list(cards)}: {'; '.join(problems)}")
        return sorted(int(k) for k in cards)

    # --- operators --------------------------------------------------------------------------------
    def random_deck(self, rng: np.random.Generator, shapes=None) -> list[int]:
        """AbilityDeckRules.random_deck (`shapes` are Gwent Lite's, ignored here)."""
        return self.assert_legal([CARD_INDEX[n] for n in self.rules.random_deck(rng)])

    def _free(self, have: list[int]) -> list[int]:
        return [k for k in range(len(CARDS)) if have[k] < self.rules.limit(k)]

    def _repair_counts(self, have: list[int], rng: np.random.Generator) -> list[int]:
        """Counts brought under the rules with random single-card steps: copies clipped to their
        limits, extra cards removed, then while over the budget a copy removed (above min_cards) or
        swapped for a cheaper free card, then cards added that leave room to reach min_cards."""
        r = self.rules
        cost = [c.provision for c in CARDS]
        have = [min(n, r.limit(k)) for k, n in enumerate(have)]

        def pick(options):
            return options[int(rng.integers(len(options)))]

        while sum(have) > r.max_cards:
            have[pick([k for k, n in enumerate(have) if n])] -= 1
        while sum(n * cost[k] for k, n in enumerate(have)) > r.provision_budget:
            held = [k for k, n in enumerate(have) if n]
            if sum(have) > r.min_cards:
                have[pick(held)] -= 1
                continue
            # at min_cards and over the budget: some held card costs more than a free one (the
            # min_cards cheapest copies fit the budget); each swap lowers the cost
            cheapest = min(cost[k] for k in self._free(have))
            k = pick([k for k in held if cost[k] > cheapest])
            have[k] -= 1
            have[pick([j for j in self._free(have) if cost[j] < cost[k]])] += 1
        while sum(have) < r.min_cards:
            left = r.provision_budget - sum(n * cost[k] for k, n in enumerate(have))
            rest = r.min_cards - sum(have) - 1

            fitting = [k for k in self._free(have) if self._leaves_room(have, k, rest, left)]
            if fitting:
                have[pick(fitting)] += 1
                continue
            # nothing fits: swap the dearest held card for the cheapest free one (lowers the cost)
            k = max((k for k, n in enumerate(have) if n), key=cost.__getitem__)
            have[k] -= 1
            have[min(self._free(have), key=cost.__getitem__)] += 1
        return have

    def _leaves_room(self, have: list[int], k: int, rest: int, left: int) -> bool:
        """Whether a copy of card `k` and then the `rest` cheapest free copies fit in `left` provisions."""
        have = list(have)
        have[k] += 1
        return CARDS[k].provision + self.rules.cheapest_fill(rest, have) <= left

    def _counts(self, cards) -> list[int]:
        have = [0] * len(CARDS)
        for k in cards:
            have[int(k)] += 1
        return have

    def _cards(self, have) -> list[int]:
        return [k for k, n in enumerate(have) for _ in range(n)]

    def repair(self, cards, rng: np.random.Generator) -> list[int]:
        return self.assert_legal(self._cards(self._repair_counts(self._counts(cards), rng)))

    def mutate(self, cards, rng: np.random.Generator, config=None) -> list[int]:
        """A changed legal copy: one to three steps (swap a card for another, add a copy, remove a
        copy, with equal chances), then the repair; tried again (up to 20 times) while the result
        is the parent."""
        parent = self._counts(cards)
        have = parent
        for _ in range(20):
            have = list(parent)
            for _ in range(1 + int(rng.binomial(2, 0.25))):
                kind = int(rng.integers(3))
                if kind in (0, 2) and sum(have):  # swap or remove: a copy goes
                    held = [k for k, n in enumerate(have) if n]
                    have[held[int(rng.integers(len(held)))]] -= 1
                if kind in (0, 1):  # swap or add: a card with a free copy comes
                    free = self._free(have)
                    have[free[int(rng.integers(len(free)))]] += 1
            have = self._repair_counts(have, rng)
            if have != parent:
                break
        return self.assert_legal(self._cards(have))

    def crossover(self, a, b, rng: np.random.Generator) -> tuple[list[int], list[int]]:
        """Uniform crossover of the card counts (each card's count swapped with chance 1/2), then repair."""
        ca, cb = self._counts(a), self._counts(b)
        for k in np.flatnonzero(rng.random(len(CARDS)) < 0.5):
            ca[k], cb[k] = cb[k], ca[k]
        return self.repair(self._cards(ca), rng), self.repair(self._cards(cb), rng)

    # --- words and files ----------------------------------------------------------------------------
    def deck(self, cards) -> dict[str, int]:
        """Every card name of the pool with its copies in the deck (zeros included)."""
        have = self._counts(cards)
        return {c.name: have[k] for k, c in enumerate(CARDS)}

    def card_pool(self) -> dict[int, str]:
        """Every card a deck may hold (its index into CARDS) and its name: the advisor's single-card
        changes (evolution.designer.neighbourhoods.CardNeighbourhood)."""
        return {k: c.name for k, c in enumerate(CARDS)}

    def provisions(self, cards) -> int:
        return sum(CARDS[k].provision for k in cards)

    def short_text(self, cards) -> str:
        return counts_words(cards)

    def text(self, cards) -> str:
        cards = list(cards)
        return f"{counts_words(cards)} ({len(cards)} cards, {self.provisions(cards)} provisions)"

    def entry_extra(self, cards) -> dict:
        # "total" of a Gwent Lite deck is its power budget; here the provision cost
        return {"deck": {n: k for n, k in self.deck(cards).items() if k}, "total": self.provisions(cards)}

    def game_deck(self, cards) -> list[str]:
        """The deck as the game's settings name one (`decks`, `deck_pool`): its card names."""
        return names(cards)

    def game_settings(self, cards) -> dict:
        return {"decks": [self.game_deck(cards), self.game_deck(cards)], "rules": asdict(self.rules)}

    def save(self, cards, path, name: str, comment: str) -> None:
        save_ability_deck(AbilityDeck(names(cards), self.rules, name=name), path, comment=comment)

    # --- settings ---------------------------------------------------------------------------------
    @classmethod
    def check_config(cls, config) -> None:
        """Gwent Lite's decks, rules and constraints refused; the agent defaults to `gwent_abilities_evaluator` (so
        do `evaluator`, Gwent Lite's default, and `pretrained`), the
        validation panel to decks/gwent_abilities and the yardstick to decks/gwent_abilities/yardstick
        (none under other than the default deck rules, for which its decks are built)."""
        need(not config.game_config, "game_config applies to exploding_kittens only")
        need(not config.constraints, "constraints apply to gwent_lite only")
        need(not config.panel and "panel" not in config.opponents, "panel decks apply to gwent_lite only")
        if config.agent in GWENT_LITE_AGENTS:  # Gwent Lite's networks: this game's evaluator
            config.agent = EVALUATOR
        if config.validation_panel is None:
            config.validation_panel = list(REFERENCE_DECKS)
        if config.yardstick is None:  # its decks are built for the default rules
            config.yardstick = list(YARDSTICK) if config.ability_rules == AbilityDeckRules() else []

    @classmethod
    def check_racing(cls, config) -> None:
        check_racing_split("games_per_pair", config.games_per_pair, config.racing_rounds, " deals")

    @classmethod
    def from_config(cls, config) -> GwentAbilitiesSpace:
        return cls(config.ability_rules, config.archive_descriptors)

    @classmethod
    def default(cls) -> GwentAbilitiesSpace:
        return cls()

    # --- a run ------------------------------------------------------------------------------------
    def build_agent(self, spec: str, seed: int):
        """The agent of every seat (a comma list of specs: a panel sharing the games), checked to
        travel to worker processes; UserError in one line."""
        return fit.game_agent(spec, games.make(GAME, rules=self.rules), seed)

    def references(self, paths, hint: str = "") -> list[ReferenceDeck]:
        """Every deck file named by `paths` (files or folders; a deck's group is its folder's name);
        UserError if one is bad (`hint`: what to do about a deck illegal under the rules)."""
        out = []
        for raw in paths:
            p = resolve_path(raw)
            if p.is_dir():
                files = sorted(f for f in p.iterdir() if f.is_file() and f.suffix in DECK_SUFFIXES)
            elif p.is_file():
                files = [p]
            else:
                raise UserError(f"reference deck {str(raw)!r} not found (a deck file or a folder of deck files)")
            for f in files:
                deck = load_ability_deck(f)
                problems = self.rules.problems(deck.cards)
                if problems:
                    raise UserError(
                        f"reference deck {str(f)!r} is illegal under the run's {self.rules.describe()}: {problems[0]} "
                        f"({hint or 'name decks legal under these rules'})"
                    )
                cards = tuple(sorted(CARD_INDEX[n] for n in deck.cards))
                out.append(ReferenceDeck(deck.name or Path(f).stem, Path(f).parent.name, cards, str(f)))
        need(bool(out), f"no reference decks in {', '.join(map(str, paths))}")
        return out

    def inputs(self, config) -> RunInputs:
        """The agent and the yardstick decks; UserError if a deck file or the agent is wrong, or if a
        yardstick deck is also a validation deck (the yardstick chooses the champion)."""
        hint = (
            "name decks legal under them with --validation-panel and --yardstick, or leave them out: "
            "--no-validate, and yardstick = [] in a settings file"
        )
        refs = self.references(config.yardstick, hint) if config.yardstick else []
        if config.validate:
            held_out = {r.cards: r.name for r in self.references(config.validation_panel, hint)}
            both = [r.name for r in refs if r.cards in held_out]
            if both:
                raise UserError(f"yardstick deck {both[0]} is also a validation deck; the validation must be held out")
        return RunInputs(self.build_agent(config.agent, config.seed), yardstick=refs)

    def evaluator(self, config, inputs: RunInputs, pmap) -> AbilityEvaluator:
        return AbilityEvaluator(config, inputs.agent, pmap, self)

    def measure_yardstick(self, pool, inputs, config, pmap, gen, progress=None) -> int:
        play = self.evaluator(config, inputs, pmap).play
        return yardstick.measure_generation(pool, inputs.yardstick, play, config, gen, progress)

    def generation_header(self, config) -> dict:
        return {"opponents": list(config.opponents), "games_per_pair": config.games_per_pair}

    def fitness_plot(self, rows: list[dict], name: str, config) -> bytes:
        return plots.plot_fitness(rows, f"{name}: fitness per generation ({' + '.join(config.opponents)})")

    def best_plot(self, best: list[dict], name: str) -> bytes:
        return plots.plot_best_counts(best, self, f"{name}: card copies of the best deck per generation")

    def validate(self, cards, panel, agent, pmap, config, games: int, seed: int, progress=None, baseline=None) -> dict:
        """The deck against every reference deck: `games` games each (mirrored deals), fresh seeds.
        With `baseline` (another deck's cards) that deck plays the same deals and the report adds the
        paired difference, deck minus baseline (`baseline` key, evolution.studies.validation)."""
        refs = self.references(panel)

        def against(deck) -> list[np.ndarray]:
            pairings, _ = fit.against([tuple(deck)], [r.cards for r in refs], games // 2, seed, fit.STAGE_VALIDATE, 0)
            prefix = (seed, fit.STAGE_VALIDATE, 0)
            tasks = config.games_per_task
            return play_pairings(pairings, agent, self.rules, pmap, tasks, prefix, progress, "validation")

        results = against(cards)
        rows, overall = [], fit.Score()
        for ref, outcomes in zip(refs, results):
            s = fit.Score()
            s.add(outcomes)
            overall = overall.merge(s)
            rows.append({"name": ref.name, **s.as_dict()})
        beaten = sum(r["ci95"][0] > 0.5 for r in rows)
        spec = getattr(agent, "spec", "?")
        report = {
            "agent": spec,
            "references": rows,
            "overall": overall.as_dict(),
            "games": overall.games,
            "beaten": beaten,
            **validation.panel_verdict(agent, spec, results),
        }
        if baseline is not None:
            base = tuple(sorted(int(k) for k in baseline))
            report["baseline"] = validation.paired_difference(base, results, against(base), {})
        return report

    def finish_run(self, folder, config, agent, pmap, log=None, progress=None) -> dict:
        """The champion (the best on the yardstick, evolution.scoring.yardstick; without one the best
        deck of the last generation) and, with `config.validate`, its validation against the
        reference decks."""
        last = folder.read_last_generation()
        if config.yardstick:
            refs = self.references(config.yardstick)
            generations = [folder.read_generation(g) for g in range(last["generation"] + 1)]
            play = AbilityEvaluator(config, agent, pmap, self).play
            cards, ranked, how = yardstick.choose_on_yardstick(generations, refs, play, config, progress)
            champion = {"cards": cards, "generation": last["generation"], "how": how, "yardstick": ranked}
        else:
            best = last["decks"][0]
            how = f"best of generation {last['generation']} ({best['score']:.3f} fitness)"
            champion = {"cards": best["cards"], "generation": last["generation"], "how": how}
        folder.write_champion(champion, self, how)
        if log is not None:
            log(f"champion: {self.text(champion['cards'])}, {how}")
        out = {"champion": champion}
        if config.validate:
            report = self.validate(
                champion["cards"], config.validation_panel, agent, pmap, config, config.validation_games,
                config.seed + 1, progress,
            )  # fmt: skip
            report["generation"] = champion["generation"]
            folder.write_validation(report)
            out["validation"] = report
        return out

    def validation_table(self, report: dict) -> str:
        lines = [f"{'reference':<16} {'score':>6}  95% CI           games"]
        for r in report["references"] + [{"name": "all", **report["overall"]}]:
            lo, hi = r["ci95"]
            lines.append(f"{r['name']:<16} {r['score']:6.3f}  [{lo:.3f}, {hi:.3f}]  {r['games']:>6}")
        lines.append(f"CI above 0.5 against {report['beaten']}/{len(report['references'])} reference decks")
        lines += validation.trust_lines(report)
        if "baseline" in report:
            b = report["baseline"]["overall"]
            lo, hi = b["delta_ci95"]
            lines.append(
                f"baseline {self.short_text(report['baseline']['deck'])}: {b['score']:.3f} on the same deals; "
                f"deck - baseline {b['delta']:+.3f} [{lo:+.3f}, {hi:+.3f}] (paired)"
            )
        return "\n".join(lines)

    # --- MAP-Elites -------------------------------------------------------------------------------
    def descriptor_space(self) -> tuple[tuple[str, str], list[tuple[float, float]]]:
        """The chosen pair of DESCRIPTOR_SETS: `style` (the default), the shares of card-advantage and
        of board-synergy cards (style_shares); `rows`, the shares of the units on the melee and on
        the ranged row (row_shares); each 0 .. 1."""
        pair, _ = DESCRIPTOR_SETS[self.descriptor_set]
        return pair, [(0.0, 1.0), (0.0, 1.0)]

    def descriptors(self, cards) -> tuple[float, float]:
        _, values = DESCRIPTOR_SETS[self.descriptor_set]
        return values(cards)

    @property
    def max_cards(self) -> int:
        return self.rules.max_cards

    def remeasure_elites(self, decks, config, inputs, pmap, generation, stage, progress=None):
        """Against the yardstick (`playoff_games_per_pair` games per yardstick deck), or without one in
        a round robin of that many games per pair."""
        games = config.playoff_games_per_pair
        if inputs.yardstick:
            play = self.evaluator(config, inputs, pmap).play
            return yardstick.remeasure_elites(decks, inputs.yardstick, play, config, generation, stage, progress)
        scores = round_robin_scores(decks, inputs.agent, pmap, config, games, stage, generation, progress, "elites")
        again = [s.as_dict() for s in scores]
        how = f"best of a {games}-games-per-pair round robin of the archive's {len(decks)} best elites"
        return again, sum(a["games"] for a in again) // 2, how  # each game counts for both of its decks

    # --- reports ----------------------------------------------------------------------------------
    def deck_json(self, entry: dict) -> dict:
        out = tables.deck_json(entry)
        out["deck"] = {n: k for n, k in self.deck(entry["cards"]).items() if k}
        return out

    def report_header(self, config) -> dict:
        return {"game": self.name}

    def decks_table(self, report: dict) -> str:
        lines = [f"run {report['run']} ({report['game']})"]
        for g in report["generations"]:
            for rank, d in enumerate(g.get("top") or [g["best"]], 1):
                lo, hi = d["ci95"]
                lines.append(
                    f"gen {g['generation']} #{rank}: {d['score']:.3f} [{lo:.3f}, {hi:.3f}] {d['games']} games: "
                    f"{self.text(d['cards'])}"
                )
        return "\n".join(lines)

    def best_rows(self, best: list[dict]) -> tuple[list[str], list[list]]:
        rows = [
            [
                b["generation"],
                counts_words(b["best"]["cards"]),
                len(b["best"]["cards"]),
                self.provisions(b["best"]["cards"]),
            ]
            for b in best
        ]
        return ["gen", "deck (copies x card)", "cards", "provisions"], rows

    def verdict_blocks(self, champion: dict, validation: dict | None) -> list[Block]:
        if not validation or "references" not in validation:
            return [note("no validation against the reference decks in this run (deckopt decks RUN --validate)")]
        o = validation["overall"]
        return [
            Text(
                f"The champion scores {o['score']:.3f} [{o['ci95'][0]:.3f}, {o['ci95'][1]:.3f}] against the "
                f"reference decks; its interval is above 0.5 against {validation['beaten']} of "
                f"{len(validation['references'])} ({self.text(champion['cards'])}).",
                "verdict",
            ),
            *verdicts.trust_blocks(validation),
        ]

    # --- the decks command ------------------------------------------------------------------------
    def revalidate(self, run, cards, how: str, options: dict, progress=None) -> dict:
        """The deck against the reference decks (`panel`, default the run's validation panel) with
        fresh seeds (default the run's seed + 1)."""
        c = run.config
        agent = self.build_agent(options.get("agent") or c.agent, c.seed)
        seed = options["seed"] if options.get("seed") is not None else c.seed + 1
        with Mapper(options.get("jobs") or c.jobs, "loky", task_timeout=c.task_timeout) as pmap:
            report = self.validate(
                cards, options.get("panel") or c.validation_panel, agent, pmap, c,
                options.get("games") or c.validation_games, seed, progress, options.get("baseline"),
            )  # fmt: skip
        report["how"] = how
        return report
