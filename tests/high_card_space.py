"""A deck space for the example plug-in game High Card (examples/high_card), written against the
protocol of evolution/spaces/base.py only: what a new deck game needs to evolve (listed in
evolution.spaces.registry.SPACES). A deck's fitness is its score against High Card's default deck
(1..8) in games of one agent playing both seats."""

from __future__ import annotations

import numpy as np

import agents
import games
from agents.arena import play_states
from agents.stats import Record, wilson_ci
from evolution.designer import plots
from evolution.individuals import score_of, set_score
from evolution.spaces.base import RunInputs
from games.fileio import atomic_write_json

high_card = __import__("pytest").importorskip("high_card")


class HighCardSpace(high_card.HighCardDecks):
    """High Card's decks (operators from the example's own `HighCardDecks`) and a run's behaviour."""

    objectives = ("win",)
    settings = frozenset()
    rules_field = None
    reference_decks = False

    @classmethod
    def check_config(cls, config) -> None:
        pass

    @classmethod
    def check_racing(cls, config) -> None:
        pass

    @classmethod
    def from_config(cls, config) -> HighCardSpace:
        return cls()

    @classmethod
    def default(cls) -> HighCardSpace:
        return cls()

    def assert_legal(self, cards) -> list[int]:
        assert not self.problems(cards), (cards, self.problems(cards))
        return sorted(cards)

    def entry_extra(self, cards) -> dict:
        return {}

    def save(self, cards, path, name: str, comment: str) -> None:
        atomic_write_json(path, {"game": self.name, "name": name, "deck": list(cards)})

    # --- a run ----------------------------------------------------------------------------------
    def inputs(self, config) -> RunInputs:
        return RunInputs(agents.make(config.agent, games.make(self.name), seed=config.seed))

    def evaluator(self, config, inputs: RunInputs, pmap):
        return DefaultDeckEvaluator(config, inputs.agent, self)

    def measure_yardstick(self, pool, inputs, config, pmap, gen, progress=None) -> int:
        return 0

    def generation_header(self, config) -> dict:
        return {"games_per_pair": config.games_per_pair}

    def fitness_plot(self, rows, name, config) -> bytes:
        return plots.plot_fitness(rows, f"{name}: score against the default deck")

    def best_plot(self, best, name) -> bytes:
        return plots.plot_best_heatmap(best, f"{name}: the best deck per generation")

    def finish_run(self, folder, config, agent, pmap, log=None, progress=None) -> dict:
        last = folder.read_last_generation()
        champion = {"cards": last["decks"][0]["cards"], "generation": last["generation"], "how": "best of the last"}
        folder.write_champion(champion, self, champion["how"])
        return {"champion": champion}

    def validation_table(self, report: dict) -> str:
        return ""

    # --- reports ----------------------------------------------------------------------------------
    def deck_json(self, entry: dict) -> dict:
        return {k: entry[k] for k in ("cards", "score", "ci95", "games")}

    def report_header(self, config) -> dict:
        return {"game": self.name}

    def decks_table(self, report: dict) -> str:
        return "\n".join(f"{g['generation']}: {self.text(g['best']['cards'])}" for g in report["generations"])

    def best_rows(self, best):
        return ["gen", "deck"], [[b["generation"], self.short_text(b["best"]["cards"])] for b in best]

    def verdict_html(self, champion, validation) -> str:
        return "<p>no validation</p>"


class DefaultDeckEvaluator:
    """Each deck against the default deck: `games_per_pair` games, the one agent in both seats."""

    def __init__(self, config, agent, space: HighCardSpace):
        self.config, self.agent, self.space = config, agent, space

    def evaluate(self, pool, hof, gen, progress=None, what="") -> int:
        c = self.config
        states, seats = [], []
        for i, ind in enumerate(pool):
            self.space.assert_legal(ind)
            game = games.make(self.space.name, decks=[list(ind), high_card.DEFAULT_DECK])
            for d in range(c.games_per_pair):
                states.append(game.new_initial_state(np.random.default_rng([c.seed, gen, i, d])))
                seats.append((0, 0))
        play_states(states, seats, [self.agent])
        for i, ind in enumerate(pool):
            r = np.array([s.returns()[0] for s in states[i * c.games_per_pair : (i + 1) * c.games_per_pair]])
            record = Record(int((r > 0).sum()), int((r == 0).sum()), int((r < 0).sum()))
            set_score(ind, record.score, wilson_ci(record.wins + 0.5 * record.draws, record.games), record)
        assert all(np.isfinite(score_of(ind)) for ind in pool)
        return len(states)
