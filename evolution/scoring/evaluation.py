"""The scoring of a deck space whose decks play each other (evolution.spaces.head_to_head): a pool's
pairings planned (population round robin, hall of fame, fresh random decks, a panel of reference
decks), played through the caller's worker pool, every deck scored in place; the yardstick, the
champion and its validation against held-out reference decks.

A deck's fitness is its mean match score with a 95 % interval, over this generation's games pooled
with a survivor's games of its last `score_memory - 1` generations (so a deck that stays is
measured ever more precisely, and a lucky score is diluted).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.stats import score_summary
from evolution.decks.base import canonical
from evolution.individuals import set_score
from evolution.scoring import fitness as fit
from evolution.scoring import racing, validation, yardstick
from games.errors import UserError


class MatchScorer:
    """The Scorer (evolution.decks.base) of a head-to-head `space`: every game dealt by `space.deal`
    and played by the run's agent in every seat. Made once per run: the agent and the panel, yardstick
    and validation decks are read and checked here (UserError in one line)."""

    def __init__(self, space, config):
        self.space = space
        self.config = config
        self.agent = space.build_agent(config.agent, config.seed)
        self.panel = space.references(config.settings.panel) if "panel" in config.settings.opponents else []
        self.yardstick = space.references(config.settings.yardstick) if config.settings.yardstick else []
        if config.validate:
            held_out = {r.cards for r in space.references(config.settings.validation_panel)}
            both = [r.name for r in self.yardstick if r.cards in held_out]
            if both:
                raise UserError(f"yardstick deck {both[0]} is also a validation deck; the validation must be held out")
        self.header = {"opponents": list(config.settings.opponents), "games_per_pair": config.settings.games_per_pair}

    def play(self, pmap) -> yardstick.Play:
        """The run's matches through `pmap`: play(pairings, key_prefix, progress, what) -> outcomes."""
        return self.space.matches(self.agent, pmap, self.config.games_per_task)

    def plan(self, pool: list, hof, gen: int):
        """(pairings, credits, kinds): credits[p] = [(deck index, from B's side?), ...] for pairing p,
        kinds[p] its opponent kind."""
        c = self.config
        decks = [tuple(ind) for ind in pool]
        deals = c.settings.games_per_pair // 2
        pairings, credits, kind_of = [], [], []
        kinds = list(c.settings.opponents)
        if kinds == ["hall-of-fame"] and len(hof) == 0:
            kinds = ["population"]  # nothing in the hall of fame yet (generation 0)
        for kind in kinds:
            start = len(pairings)
            if kind == "population":
                ps, who = fit.round_robin(decks, deals, c.seed, fit.STAGE_EVOLVE, gen, start)
                credits += [[(i, False), (j, True)] for i, j in who]
            else:
                ps, who = fit.against(
                    decks, self.opponents(kind, hof, gen), deals, c.seed, fit.STAGE_EVOLVE, gen, start
                )
                credits += [[(i, False)] for i, _ in who]
            pairings += ps
            kind_of += [kind] * len(ps)
        return pairings, credits, kind_of

    def opponents(self, kind: str, hof, gen: int) -> list[tuple[int, ...]]:
        if kind == "hall-of-fame":
            return [tuple(h) for h in list(hof)[: self.config.settings.hof_opponents]]
        if kind == "random":
            return self.random_opponents(gen)
        return [r.cards for r in self.panel]

    def random_opponents(self, gen: int) -> list[tuple[int, ...]]:
        """Fresh random decks for generation `gen`, from their own seed (not the run's stream)."""
        c = self.config
        rng = np.random.default_rng([c.seed, fit.STAGE_EVOLVE, gen, 7919])
        return [tuple(self.space.random_deck(rng)) for _ in range(c.settings.random_opponents)]

    def check(self, deck) -> None:
        """The guard before a deck reaches a game (a bug, not a user error, if it fires)."""
        problems = self.space.problems(deck)
        if problems:
            raise AssertionError(f"illegal deck {list(deck)}: {'; '.join(problems)}")

    def evaluate(self, pool: list, hof, gen: int, pmap, progress: Callable | None = None, what: str = "") -> int:
        """Score every deck of `pool` in place (`ind.fitness`, `ind.stats`); returns the number of
        games played. `progress(done, total, what)` counts the games."""
        c = self.config
        play = self.play(pmap)
        pairings, credits, kind_of = self.plan(pool, hof, gen)
        for p in pairings:
            self.check(p.a)
            self.check(p.b)
        scores = [fit.Score() for _ in pool]
        by_kind = [{} for _ in pool]  # the same games split by opponent kind

        def credit(results, which):
            for outcomes, p in zip(results, which):
                for i, flip in credits[p]:
                    scores[i].add(outcomes, flip=flip)
                    by_kind[i].setdefault(kind_of[p], fit.Score()).add(outcomes, flip=flip)

        what = what or f"gen {gen}"
        if c.fitness == "racing":
            games = self._race(play, pool, pairings, credits, credit, scores, gen, progress, what)
        else:
            prefix = (c.seed, fit.STAGE_EVOLVE, gen)
            credit(play(pairings, prefix, progress, what), range(len(pairings)))
            games = sum(p.games for p in pairings)
        self._set_scores(pool, scores, by_kind)
        return games

    def _race(self, play, pool, pairings, credits, credit, scores, gen, progress, what) -> int:
        """Racing fitness (evolution.scoring.racing): rounds of every pairing with a deck still in doubt."""
        c = self.config
        per_round = (c.settings.games_per_pair // 2) // c.racing_rounds
        keep = c.score_memory - 1
        prior = (
            [
                np.concatenate([d for p in ind.stats.past[-keep:] for d in p.deal_scores] or [np.empty(0)])
                for ind in pool
            ]
            if keep
            else None
        )
        played = 0

        def sample(r, active):
            nonlocal played
            todo = [p for p in range(len(pairings)) if any(active[i] for i, _ in credits[p])]
            round_pairings = [
                fit.Pairing(pairings[p].a, pairings[p].b, pairings[p].key + (r,), per_round) for p in todo
            ]
            prefix = (c.seed, fit.STAGE_EVOLVE, gen, 1000 + r)
            before = [len(s.deal_scores) for s in scores]
            credit(play(round_pairings, prefix, progress, f"{what} round {r + 1}/{c.racing_rounds}"), todo)
            played += sum(p.games for p in round_pairings)
            return [(i, d) for i, s in enumerate(scores) for d in s.deal_scores[before[i] :]]

        racing.race(sample, len(pool), c.kept, c.racing_rounds, c.racing_z, prior, margin=c.racing_margin)
        for ind, s in zip(pool, scores):
            ind.stats.racing_games = s.games
        return played

    def _set_scores(self, pool, scores, by_kind) -> None:
        """A deck's fitness: this generation's games pooled with its last `score_memory - 1`."""
        keep = self.config.score_memory - 1  # past generations that count
        for ind, fresh, kinds in zip(pool, scores, by_kind):
            past = ind.stats.past[-keep:] if keep else []
            pooled = fresh
            for p in past:
                pooled = pooled.merge(p)
            set_score(ind, pooled.score, pooled.ci95, pooled.record)
            ind.stats.past = (past + [fresh])[-keep:] if keep else []
            ind.stats.by_opponents = {k: score_summary(ks.as_dict()) for k, ks in kinds.items()}

    def measure_yardstick(self, pool: list, gen: int, pmap, progress: Callable | None = None) -> int:
        return yardstick.measure_generation(pool, self.yardstick, self.play(pmap), self.config, gen, progress)

    def remeasure(self, decks: list, gen: int, stage: int, pmap, progress: Callable | None = None):
        """Against the yardstick (`playoff_games_per_pair` games per yardstick deck), or without one in
        a round robin of that many games per pair."""
        c = self.config
        if self.yardstick:
            return yardstick.remeasure_elites(decks, self.yardstick, self.play(pmap), c, gen, stage, progress)
        games = c.settings.playoff_games_per_pair
        scores = fit.round_robin_scores(
            decks, self.agent, self.space.deal, pmap, c, games, stage, gen, progress, "elites"
        )
        again = [s.as_dict() for s in scores]
        how = (
            f"best of a {games}-games-per-pair round robin of the archive's {len(decks)} best elites by pooled fitness"
        )
        return again, sum(a["games"] for a in again) // 2, how  # each game counts for both of its decks

    def finish(self, folder, pmap, log: Callable | None = None, progress: Callable | None = None) -> dict:
        """The champion (the playoff of the last generation's best and the hall of fame, or the best
        on the yardstick) and, with `config.validate` and reference decks, its validation against them."""
        c = self.config
        log = log or (lambda line: None)
        champion = validation.choose_champion(folder, c, self.agent, self.space.deal, pmap, self.yardstick, progress)
        folder.write_champion(champion, self.space, champion["how"])
        log(f"champion: {self.space.words(champion['cards'])} ({len(champion['cards'])} cards), {champion['how']}")
        out = {"champion": champion}
        if c.validate and c.settings.validation_panel:
            report = self.validate(champion["cards"], pmap, seed=c.seed, progress=progress)
            trained_on = {r.cards for r in self.panel}
            references = self.space.references(c.settings.validation_panel)
            report["held_out"] = not any(r.cards in trained_on for r in references)
            report["generation"] = champion["generation"]  # which champion it validates (a stale file is redone)
            folder.write_validation(report)
            t = report["targets"]
            log(
                f"validation ({report['games']} games): score {report['overall']['score']:.3f} against all "
                f"references; CI above 0.5 against {t['references_lower_above_0.5']}/{t['references']}"
            )
            out["validation"] = report
        return out

    def validate(self, cards, pmap, *, seed: int, games: int | None = None, panel=None, baseline=None,
                 progress: Callable | None = None) -> dict:  # fmt: skip
        """The deck against the reference decks (`panel`, default the run's validation panel), `games`
        each (default the run's validation_games) with seeds `seed`; with `baseline` (another deck's
        cards) that deck plays the same deals and the paired difference is added."""
        c = self.config
        if not (panel or c.settings.validation_panel):
            raise UserError("the run has no reference decks; name them with --panel")
        references = self.space.references(panel or c.settings.validation_panel)
        games = games or c.settings.validation_games
        baseline = None if baseline is None else canonical(self.space, baseline)
        return validation.validate(
            canonical(self.space, cards), references, self.agent, self.space.deal, pmap, games, seed,
            c.games_per_task, progress, agent_spec=c.agent, baseline=baseline,
        )  # fmt: skip
