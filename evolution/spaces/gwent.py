"""The Gwent Lite deck space: multisets of card powers under `games.decks.DeckRules` (and a
designer's `DeckConstraints`), scored by mirrored matches against opponents (evolution.scoring),
measured against a fixed yardstick, and validated against held-out reference decks.

Every operator is the one of evolution.spaces.genome, followed by evolution.spaces.constraints when
the run has constraints. The one objective is `win` (the pairwise match score).
"""

from __future__ import annotations

import numpy as np

from agents.parallel import Mapper
from evolution.designer import plots, tables, verdicts
from evolution.scoring import fitness as fit
from evolution.scoring import yardstick
from evolution.scoring.evaluation import Evaluator
from evolution.scoring.panel import ReferenceDeck, load_panel
from evolution.spaces import constraints, genome
from evolution.spaces.base import RunInputs, check_racing_split
from evolution.studies import validation
from games.config import need
from games.decks import Deck, DeckConstraints, DeckRules, save_deck
from games.errors import UserError

TOP = 5  # the strongest cards whose share of the power is a descriptor
#: the fixed decks the best decks of every generation are measured against
YARDSTICK = ["decks/yardstick"]
#: the reference decks a champion is validated against
REFERENCE_DECKS = ["decks", "decks/ancestor"]


class GwentSpace:
    """Gwent Lite's power multisets under DeckRules: evolution.spaces.genome's operators, each followed by
    evolution.spaces.constraints.enforce when the run has constraints (a child that cannot be brought inside
    them gives way to a copy of its parent, or to a fresh random deck inside them)."""

    name = "gwent_lite"
    objectives = ("win",)
    #: the settings only this game uses: its table in a settings file and config.json
    table = "gwent"
    #: the field of its deck rules (`[gwent.rules]`), the rules `deckopt sweep` varies
    rules_field = "rules"
    settings = frozenset(
        {
            "games_per_pair",
            "opponents",
            "panel",
            "random_opponents",
            "hof_opponents",
            "init_shapes",
            "mut_card_rate",
            "mut_step_sigma",
            "mut_add_prob",
            "mut_remove_prob",
            "yardstick",
            "yardstick_top",
            "yardstick_games",
            "rules",
            "constraints",
            "playoff_games_per_pair",
            "validation_panel",
            "validation_games",
        }
    )
    #: a deck is judged against reference decks (validation, matchups)
    reference_decks = True
    #: two decks play each other
    head_to_head = True
    #: one descriptor pair: the share of weak cards and the top five's share of the power
    descriptor_sets = ("power",)

    def __init__(self, rules, constraints=None):
        self.rules = rules
        self.constraints = constraints or DeckConstraints()

    def _inside(self, cards, rng: np.random.Generator, fallback) -> list[int]:
        if not self.constraints:
            return cards
        fixed = constraints.enforce(cards, self.rules, self.constraints, rng)
        return fixed if fixed is not None else list(fallback())

    def random_deck(self, rng: np.random.Generator, shapes=None) -> list[int]:
        deck = genome.random_deck(self.rules, rng, tuple(shapes or genome.DEFAULT_SHAPES))
        if not self.constraints:
            return deck
        return self._inside(deck, rng, lambda: constraints.random_constrained(self.rules, self.constraints, rng))

    def mutate(self, cards, rng: np.random.Generator, config) -> list[int]:
        out = genome.mutate(
            cards,
            self.rules,
            rng,
            card_rate=config.mut_card_rate,
            step_sigma=config.mut_step_sigma,
            add_prob=config.mut_add_prob,
            remove_prob=config.mut_remove_prob,
        )
        return genome.assert_legal(self._inside(out, rng, lambda: cards), self.rules)

    def crossover(self, a, b, rng: np.random.Generator):
        x, y = genome.crossover(a, b, self.rules, rng)
        return self._inside(x, rng, lambda: a), self._inside(y, rng, lambda: b)

    def repair(self, cards, rng: np.random.Generator) -> list[int]:
        return self._inside(genome.repair(cards, self.rules, rng), rng, lambda: self.random_deck(rng))

    def problems(self, cards) -> list[str]:
        return self.rules.problems(cards)

    def text(self, cards) -> str:
        return f"{genome.counts_text(cards)} (total {sum(cards)}, {len(cards)} cards)"

    def short_text(self, cards) -> str:
        return genome.counts_text(cards)

    def entry_extra(self, cards) -> dict:
        return {}

    def save(self, cards, path, name: str, comment: str) -> None:
        save_deck(Deck(list(cards), self.rules, name=name, constraints=self.constraints), path, comment=comment)

    # --- settings ---------------------------------------------------------------------------------
    @classmethod
    def check_config(cls, config) -> None:
        """No game settings; the yardstick and the validation panel default to Gwent Lite's decks."""
        need(not config.game_config, "game_config applies to exploding_kittens only (gwent_lite has [rules])")
        if config.yardstick is None:
            config.yardstick = list(YARDSTICK)
        if config.validation_panel is None:
            config.validation_panel = list(REFERENCE_DECKS)

    @classmethod
    def check_racing(cls, config) -> None:
        check_racing_split("games_per_pair", config.games_per_pair, config.racing_rounds, " deals")

    @classmethod
    def from_config(cls, config) -> GwentSpace:
        return cls(config.rules, config.constraints)

    @classmethod
    def default(cls) -> GwentSpace:
        return cls(DeckRules())

    # --- a run ------------------------------------------------------------------------------------
    def inputs(self, config) -> RunInputs:
        """The agent, the panel decks and the yardstick decks; UserError if a deck file or the agent is
        wrong, or if a yardstick deck is also a validation deck (the yardstick chooses the champion)."""
        constraints.check_feasible(config.rules, config.constraints, seed=config.seed)
        panel = load_panel(config.panel, config.rules) if "panel" in config.opponents else []
        refs = load_panel(config.yardstick, config.rules) if config.yardstick else []
        agent = fit.build_agent(config.agent, config.rules, seed=config.seed)
        if config.validate:
            held_out = {r.cards: r.name for r in load_panel(config.validation_panel, config.rules)}
            both = [r.name for r in refs if r.cards in held_out]
            if both:
                raise UserError(f"yardstick deck {both[0]} is also a validation deck; the validation must be held out")
        return RunInputs(agent, panel, refs)

    def build_agent(self, spec: str, seed: int):
        """The agent of every seat (a comma list of specs: a panel sharing the games); UserError in one line."""
        return fit.build_agent(spec, self.rules, seed=seed)

    def references(self, paths) -> list[ReferenceDeck]:
        """Every deck file named by `paths` (files or folders), legal under the space's rules;
        UserError if one is bad."""
        return load_panel(paths, self.rules)

    def game_deck(self, cards) -> list[int]:
        """The deck as the game's settings name one (`decks`, `deck_pool`): its card powers."""
        return list(cards)

    def evaluator(self, config, inputs: RunInputs, pmap) -> Evaluator:
        return Evaluator(config, inputs.agent, pmap, inputs.panel)

    def measure_yardstick(self, pool, inputs, config, pmap, gen, progress=None) -> int:
        play = self.evaluator(config, inputs, pmap).play
        return yardstick.measure_generation(pool, inputs.yardstick, play, config, gen, progress)

    def generation_header(self, config) -> dict:
        return {"opponents": list(config.opponents), "games_per_pair": config.games_per_pair}

    def fitness_plot(self, rows: list[dict], name: str, config) -> bytes:
        return plots.plot_fitness(rows, f"{name}: fitness per generation ({' + '.join(config.opponents)})")

    def best_plot(self, best: list[dict], name: str) -> bytes:
        return plots.plot_best_heatmap(best, f"{name}: card powers of the best deck per generation")

    def finish_run(self, folder, config, agent, pmap, log=None, progress=None) -> dict:
        return validation.finish_run(folder, config, agent, pmap, self, log=log, progress=progress)

    def validation_table(self, report: dict) -> str:
        return validation.validation_table(report)

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

    @property
    def max_cards(self) -> int:
        return self.rules.max_cards

    def remeasure_elites(self, decks, config, inputs, pmap, generation, stage, progress=None):
        """Against the yardstick (`playoff_games_per_pair` games per yardstick deck), or without one in
        a round robin of that many games per pair."""
        n, games = len(decks), config.playoff_games_per_pair
        if inputs.yardstick:
            play = self.evaluator(config, inputs, pmap).play
            return yardstick.remeasure_elites(decks, inputs.yardstick, play, config, generation, stage, progress)
        scores = validation.round_robin_scores(decks, config, inputs.agent, pmap, stage, generation, progress, "elites")
        again = [s.as_dict() for s in scores]
        how = f"best of a {games}-games-per-pair round robin of the archive's {n} best elites by pooled fitness"
        return again, sum(a["games"] for a in again) // 2, how  # each game counts for both of its decks

    # --- reports ----------------------------------------------------------------------------------
    def deck_json(self, entry: dict) -> dict:
        return tables.deck_json(entry)

    def report_header(self, config) -> dict:
        return {}

    def decks_table(self, report: dict) -> str:
        return tables.powers_decks_table(report)

    def best_rows(self, best: list[dict]) -> tuple[list[str], list[list]]:
        rows = [
            [b["generation"], genome.counts_text(b["best"]["cards"]), sum(b["best"]["cards"]), len(b["best"]["cards"])]
            for b in best
        ]
        return ["gen", "powers (count x power)", "total", "cards"], rows

    def verdict_blocks(self, champion: dict, validation: dict | None) -> list:
        return verdicts.reference_verdict(champion, validation)

    # --- the decks command ------------------------------------------------------------------------
    def revalidate(self, run, cards, how: str, options: dict, progress=None) -> dict:
        """The deck against the reference decks (`panel`, default the run's validation panel) with fresh
        seeds (default the run's seed + 1); with `baseline` (another deck's cards) that deck plays the
        same deals and the paired difference is added."""
        c = run.config
        references = load_panel(options.get("panel") or c.validation_panel, c.rules)
        spec = options.get("agent") or c.agent
        agent = fit.build_agent(spec, c.rules, seed=c.seed)
        seed = options["seed"] if options.get("seed") is not None else c.seed + 1
        games = options.get("games") or c.validation_games
        baseline = options.get("baseline")
        # validation runs locally
        with Mapper(options.get("jobs") or c.jobs, "loky", task_timeout=c.task_timeout) as pmap:
            v = validation.validate(
                cards,
                references,
                agent,
                c.rules,
                pmap,
                games,
                seed,
                c.games_per_task,
                progress=progress,
                agent_spec=spec,
                baseline=baseline,
            )
        v["how"] = how
        return v
