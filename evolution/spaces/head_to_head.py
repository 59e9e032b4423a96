"""The base of every deck space whose decks play each other (one deck per seat): Gwent Lite, Gwent
Abilities, a plug-in's. A subclass gives three facts of its game and the deck members of
evolution.decks.base (what a deck is, its operators, descriptors); this base answers the rest:

- `game(a, b)`: the game with deck `a` in seat 0 and deck `b` in seat 1 (both None: the game an
  agent is built for); its states are dealt by `deal`, which a space with a vectorised engine
  replaces (Gwent Lite);
- `read_deck(path)`: a deck file's name (or None) and cards, as `save` writes it;
- `card_pool()`: every card a deck may hold and its name (`deckopt advise`'s single-card changes);
- optionally `reference_problems(cards)`: what keeps a deck file from being a reference deck (the
  yardstick, the validation panel), by default `problems`.

Every match of such a space is evolution.scoring.fitness's: a pairing's deals are played twice,
seats swapped, in tasks of plain data dealt by the space's `deal` and sent through the caller's
worker pool (`matches`); the run's scoring is evolution.scoring.evaluation.MatchScorer.
"""

from __future__ import annotations

from pathlib import Path

from evolution.scoring import fitness as fit
from evolution.scoring.evaluation import MatchScorer
from evolution.scoring.panel import ReferenceDeck, deck_files
from games.errors import UserError


class HeadToHeadSpace:
    """Decks that play each other; see the module docstring for what a subclass gives."""

    Settings: type
    #: a deck is a multiset of cards (evolution.decks.base.canonical keeps it sorted)
    ordered = False

    def __init__(self, config):
        self.config = config

    @property
    def name(self) -> str:
        return self.Settings.game

    # --- what a subclass gives ----------------------------------------------------------------------
    def game(self, a=None, b=None):
        """The game with deck `a` in seat 0 and deck `b` in seat 1 (a games.base.Game); both None: the
        game the run's agent is built for."""
        raise NotImplementedError

    def read_deck(self, path: Path) -> tuple[str | None, list[int]]:
        """A deck file's name (None: the file's name, `folder/file` in a folder of decks) and its cards;
        UserError in one line."""
        raise NotImplementedError

    def card_pool(self) -> dict[int, str]:
        """Every card a deck may hold, in order, and its name."""
        raise NotImplementedError

    # --- what this base answers -----------------------------------------------------------------------
    def deal(self, seeds: list[int], decks: list[tuple]):
        """Game g with decks[g] = (seat 0's deck, seat 1's), started from seeds[g], as one batch
        (evolution.scoring.fitness.Task): the game's states, one game made per pair of decks."""
        return fit.deal_states(self.game, seeds, decks)

    def build_agent(self, spec: str, seed: int):
        """The agent of every seat (a comma list of specs: a panel sharing the games), checked to
        travel to worker processes; UserError in one line."""
        return fit.game_agent(spec, self.game(), seed)

    def game_deck(self, cards) -> list:
        """A deck as the game's settings name one (`decks`, `deck_pool`): its card ids."""
        return list(cards)

    def matches(self, agent, pmap, games_per_task: int = 200):
        """play(pairings, key_prefix, progress=None, what="games") -> the (deals, 2) outcomes of every
        pairing, in order (evolution.scoring.yardstick.Play), played by `agent` through `pmap`."""

        def play(pairings, key_prefix, progress=None, what="games"):
            return fit.play_pairings(pairings, agent, self.deal, pmap, games_per_task, key_prefix, progress, what)

        return play

    def reference_problems(self, cards) -> list[str]:
        """What keeps `cards` from being a reference deck (yardstick, validation panel): by default
        what makes it an illegal deck under the run's rules (`problems`); a space whose reference decks
        follow other rules (LOCM's drafted decks keep no copy limit) says less."""
        return self.problems(cards)

    def references(self, paths) -> list[ReferenceDeck]:
        """The decks of the deck files named by `paths` (files, or folders of *.toml / *.json deck
        files: one group each), reference decks by `reference_problems`; UserError in one line if one
        is bad."""
        out: list[ReferenceDeck] = []
        for raw in paths:
            files, group = deck_files(raw)
            for f in files:
                name, cards = self.read_deck(f)
                problems = self.reference_problems(cards)
                if problems:
                    raise UserError(
                        f"deck file {str(f)!r} is illegal under the run's rules: {problems[0]} (name decks legal "
                        "under them with --validation-panel and --yardstick, or leave them out: --no-validate, and "
                        "yardstick = [] in a settings file)"
                    )
                name = name or (f"{group}/{f.stem}" if group != f.stem else f.stem)
                out.append(ReferenceDeck(name=name, group=group, cards=tuple(sorted(cards)), path=str(f)))
        return out

    def scorer(self, config) -> MatchScorer:
        return MatchScorer(self, config)
