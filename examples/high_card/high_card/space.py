"""High Card's deck space: what makes its decks evolve with `deckopt evolve --game high_card`.

Registered by this package's pyproject.toml in the entry point group `deckopt.spaces`
(`high_card = "high_card.space:HighCardSpace"`), next to the game in `deckopt.games`. Written
against deckopt's public modules only; the protocol it follows is `evolution.spaces.base.DeckSpace`.

A deck is a sorted list of 8 values 1..9 worth at most 40 (the operators are `HighCardDecks`'s, in
the game's module). A deck's fitness is its score against High Card's default deck (1..8):
`games_per_pair` games of the run's agent playing both seats. The space has no settings of its own,
no reference decks (no validation panel) and no yardstick; its champion is the best deck of the
last generation. Two decks play each other (`head_to_head`): the designer commands take its decks
(`deckopt matchups`, `deckopt advise`, `deckopt study agents`), read from the deck files `save`
writes (`references`), played by `play_game_pairings` (its evaluator's `play`), changed one card
value at a time (`card_pool`: the values 1..9).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np

import games as games_module
from agents.arena import play_states
from agents.stats import Record, wilson_ci
from evolution.designer import plots
from evolution.designer.html import Text
from evolution.individuals import set_score
from evolution.scoring import fitness as fit
from evolution.scoring.panel import ReferenceDeck, resolve_path
from evolution.spaces.base import RunInputs
from games.errors import UserError
from games.fileio import atomic_write_text
from high_card import DECK_SIZE, DEFAULT_DECK, VALUES, HighCardDecks, deck_problems


class HighCardSpace(HighCardDecks):
    """High Card's decks and how a run scores, saves and reports them."""

    #: the one objective: the score (wins + draws / 2 per game) against the default deck
    objectives = ("win",)
    #: no settings of its own: a run uses the settings every game shares (games_per_pair, agent, ...)
    settings = frozenset()
    rules_field = None
    #: no reference decks: no validation panel, no yardstick
    reference_decks = False
    #: two decks play each other: `deckopt matchups`, `advise` and `study agents` take its decks
    head_to_head = True
    #: one MAP-Elites descriptor pair: the counts of 1s and 9s
    descriptor_sets = ("extremes",)

    # --- settings -------------------------------------------------------------------------------
    @classmethod
    def check_config(cls, config) -> None:
        """Nothing to check: the shared settings are checked by the config itself."""

    @classmethod
    def check_racing(cls, config) -> None:
        """Nothing to split: racing is not used by this space's evaluator."""

    @classmethod
    def from_config(cls, config) -> HighCardSpace:
        return cls()

    @classmethod
    def default(cls) -> HighCardSpace:
        return cls()

    # --- decks ----------------------------------------------------------------------------------
    def entry_extra(self, cards) -> dict:
        """Nothing beyond the cards in a generation file's deck entry."""
        return {}

    def save(self, cards, path, name: str, comment: str) -> None:
        """A deck file (TOML): the comment, then the game, the deck's name and its cards."""
        cards = ", ".join(str(int(c)) for c in cards)
        atomic_write_text(path, f'# {comment}\ngame = "{self.name}"\nname = "{name}"\ndeck = [{cards}]\n')

    def references(self, paths) -> list[ReferenceDeck]:
        """The decks of the deck files named by `paths` (files, or folders of *.toml files), as `save`
        writes them; UserError in one line for a missing path, a file that is not a High Card deck
        file or an illegal deck."""
        out = []
        for raw in paths:
            p = resolve_path(raw)
            if p.is_dir():
                files = sorted(f for f in p.iterdir() if f.is_file() and f.suffix == ".toml")
                if not files:
                    raise UserError(f"deck folder {str(raw)!r} holds no deck files (*.toml)")
            elif p.is_file():
                files = [p]
            else:
                raise UserError(f"deck {str(raw)!r} not found (a deck file or a folder of deck files)")
            out += [self._read(f) for f in files]
        return out

    def _read(self, path: Path) -> ReferenceDeck:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise UserError(f"deck file {str(path)!r} is not TOML: {exc}") from None
        if data.get("game") != self.name:
            raise UserError(f'deck file {str(path)!r} is not a {self.name} deck file (game = "{self.name}")')
        cards = data.get("deck")
        problems = deck_problems(cards) if isinstance(cards, list) else ["it has no `deck = [...]` list of cards"]
        if problems:
            raise UserError(f"deck file {str(path)!r}: {problems[0]}")
        return ReferenceDeck(str(data.get("name") or path.stem), path.parent.name, tuple(sorted(cards)), str(path))

    def build_agent(self, spec: str, seed: int):
        """The agent of every seat (a comma list of specs: a panel sharing the games); UserError in one line."""
        return fit.game_agent(spec, games_module.make(self.name), seed)

    def card_pool(self) -> dict[int, str]:
        """The values a card may take: `deckopt advise` swaps, adds and removes one."""
        return {v: str(v) for v in VALUES}

    # --- a run ----------------------------------------------------------------------------------
    def inputs(self, config) -> RunInputs:
        """The run's agent (made for High Card); no panel, no yardstick."""
        return RunInputs(self.build_agent(config.agent, config.seed))

    def evaluator(self, config, inputs: RunInputs, pmap) -> DefaultDeckEvaluator:
        return DefaultDeckEvaluator(config, inputs.agent, self, pmap)

    def measure_yardstick(self, pool, inputs, config, pmap, gen, progress=None) -> int:
        """No yardstick: no games."""
        return 0

    def generation_header(self, config) -> dict:
        return {"games_per_pair": config.games_per_pair, "opponent": "the default deck"}

    def fitness_plot(self, rows, name, config) -> bytes:
        return plots.plot_fitness(rows, f"{name}: score against the default deck")

    def best_plot(self, best, name) -> bytes:
        return plots.plot_best_heatmap(best, f"{name}: the best deck per generation")

    def finish_run(self, folder, config, agent, pmap, log=None, progress=None) -> dict:
        """The champion: the best deck of the last generation (no validation)."""
        last = folder.read_last_generation()
        champion = {"cards": last["decks"][0]["cards"], "generation": last["generation"], "how": "best of the last"}
        folder.write_champion(champion, self, champion["how"])
        return {"champion": champion}

    def validation_table(self, report: dict) -> str:
        return ""

    # --- MAP-Elites -----------------------------------------------------------------------------
    def descriptor_space(self) -> tuple[tuple[str, str], list[tuple[float, float]]]:
        """The count of 1s and the count of 9s (a 1 beats a 9), each 0..8."""
        return ("ones", "nines"), [(-0.5, DECK_SIZE + 0.5), (-0.5, DECK_SIZE + 0.5)]

    def descriptors(self, cards) -> tuple[float, float]:
        cards = list(cards)
        return float(cards.count(1)), float(cards.count(9))

    @property
    def max_cards(self) -> int:
        return DECK_SIZE

    def remeasure_elites(self, decks, config, inputs, pmap, generation, stage, progress=None):
        """The best elites measured again: `playoff_games_per_deck` fresh games each."""
        games = config.playoff_games_per_deck
        records = records_against_default(decks, inputs.agent, games, (config.seed, stage, generation))
        again = [{"score": r.score, "ci95": list(interval(r)), "games": r.games} for r in records]
        how = f"best of the archive's {len(decks)} best elites, each measured again with {games} fresh games"
        return again, games * len(decks), how

    # --- reports ----------------------------------------------------------------------------------
    def deck_json(self, entry: dict) -> dict:
        return {k: entry[k] for k in ("cards", "score", "ci95", "games")}

    def report_header(self, config) -> dict:
        return {"game": self.name, "opponent": "the default deck"}

    def decks_table(self, report: dict) -> str:
        return "\n".join(f"{g['generation']}: {self.text(g['best']['cards'])}" for g in report["generations"])

    def best_rows(self, best):
        return ["gen", "deck"], [[b["generation"], self.short_text(b["best"]["cards"])] for b in best]

    def verdict_blocks(self, champion, validation) -> list:
        return [Text("The champion is the best deck of the last generation (not validated).")]

    # --- the decks command ----------------------------------------------------------------------
    def revalidate(self, run, cards, how: str, options: dict, progress=None) -> dict:
        """`deckopt decks --validate` refuses: there are no reference decks to validate against."""
        raise UserError(f"{self.name} decks are not validated: its deck space has no reference decks")


def records_against_default(decks, agent, games: int, seed: tuple) -> list[Record]:
    """Each deck's record against the default deck in `games` games of `agent` playing both seats
    (the deals of deck i from the seeds `(*seed, i, game)`)."""
    states = []
    for i, deck in enumerate(decks):
        game = games_module.make("high_card", decks=[list(deck), DEFAULT_DECK])
        states += [game.new_initial_state(np.random.default_rng([*seed, i, d])) for d in range(games)]
    play_states(states, [(0, 0)] * len(states), [agent])
    records = []
    for i in range(len(decks)):
        r = np.array([s.returns()[0] for s in states[i * games : (i + 1) * games]])
        records.append(Record(int((r > 0).sum()), int((r == 0).sum()), int((r < 0).sum())))
    return records


def interval(record: Record) -> tuple[float, float]:
    """The 95% interval of a record's score (a draw counts half a win)."""
    return wilson_ci(record.wins + 0.5 * record.draws, record.games)


def pairing_game(a, b) -> games_module.Game:
    """The game of deck `a` (player 0) against deck `b` (player 1)."""
    return games_module.make("high_card", decks=[list(a), list(b)])


class DefaultDeckEvaluator:
    """Each deck against the default deck: `games_per_pair` games, the run's agent in both seats;
    `play` plays any pairings of decks (the designer commands' matches)."""

    def __init__(self, config, agent, space: HighCardSpace, pmap=None):
        self.config, self.agent, self.space, self.pmap = config, agent, space, pmap

    def play(self, pairings, key_prefix, progress=None, what: str = "games") -> list[np.ndarray]:
        """Deck A's (deals, 2) outcomes of every pairing, a deal's game and its mirror (the same seed,
        the decks swapped), the agent in every seat (evolution.scoring.yardstick.Play)."""
        c = self.config
        return fit.play_game_pairings(
            pairings, self.agent, pairing_game, self.pmap, c.games_per_task, key_prefix, progress, what
        )

    def evaluate(self, pool, hof, gen, progress=None, what="") -> int:
        """Score every deck of `pool` in place (score, 95% interval, record); the games played."""
        c = self.config
        for deck, record in zip(pool, records_against_default(pool, self.agent, c.games_per_pair, (c.seed, gen))):
            set_score(deck, record.score, interval(record), record)
        return len(pool) * c.games_per_pair
