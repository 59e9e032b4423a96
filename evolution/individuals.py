"""DEAP individuals: a deck (a list of ints in its space's canonical form, evolution.decks.base) with
its fitness and one `DeckStats` record.

The creator classes live at module level here (classes made inside a function or script broke
reused loky workers); workers never see them: they get plain tuples of powers and seed keys.
Everything the evaluation finds about a deck is in `ind.stats` (one dataclass, not loose
attributes), and `deck_entry` / `individual_from_entry` are the one JSON form of a deck in the
generation files, the hall of fame and the checkpoint. `Score` is a deck's record over a set of
deals with the deal scores its interval comes from (the fitness of every deck space).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
from deap import base, creator

from agents.stats import Z95, Record, wilson_ci


@dataclass
class DeckStats:
    """What is known about one deck: where it came from and how it scored."""

    origin: str = "random"  # random, start, survivor, mutant, crossover, parent
    ci95: tuple[float, float] = (0.0, 1.0)
    record: Record = field(default_factory=Record)  # the games its fitness counts (pooled over score_memory)
    #: this generation's games split by opponent kind: {kind: score_summary(Score.as_dict())}
    by_opponents: dict[str, dict] = field(default_factory=dict)
    #: its fresh games of the generations that count next time (score_memory - 1 of them)
    past: list[Score] = field(default_factory=list)
    generation: int | None = None  # the generation it was last evaluated in (hall of fame)
    yardstick: dict | None = None  # this generation's score against the yardstick (Score.as_dict), if measured
    racing_games: int | None = None  # racing fitness: this generation's games (None: fixed counts)


if not hasattr(creator, "DeckFitness"):
    creator.create("DeckFitness", base.Fitness, weights=(1.0,))
if not hasattr(creator, "DeckIndividual"):
    # DEAP instantiates a class-valued attribute per individual: each gets its own DeckStats
    creator.create("DeckIndividual", list, fitness=creator.DeckFitness, stats=DeckStats)


def make_individual(cards, origin: str = "random") -> creator.DeckIndividual:
    """An individual of the deck `cards`, in the order given (its space's canonical form: the toolbox
    and the archive put a space's decks in it, and run files hold decks in it)."""
    ind = creator.DeckIndividual(int(c) for c in cards)
    ind.stats.origin = origin
    return ind


def kept_individual(ind, origin: str) -> creator.DeckIndividual:
    """A deck that goes on to the next generation unchanged, with its past games (score_memory)."""
    out = make_individual(ind, origin)
    out.stats.past = list(ind.stats.past)
    return out


def set_score(ind, score: float, ci95, record: Record) -> None:
    ind.fitness.values = (float(score),)
    ind.stats.ci95 = (float(ci95[0]), float(ci95[1]))
    ind.stats.record = record


def score_of(ind) -> float:
    return ind.fitness.values[0]


def deck_entry(ind, with_past: bool = False, with_generation: bool = False, **extra) -> dict:
    """An evaluated deck as JSON (`with_past`: also its past generations' games, for checkpoints;
    `with_generation`: the generation it was last evaluated in, for the hall of fame)."""
    s = ind.stats
    out = {
        "cards": list(ind),
        "total": sum(ind),
        "n_cards": len(ind),
        **s.record.to_dict(score=score_of(ind) if ind.fitness.valid else None, ci95=s.ci95),
        "origin": s.origin,
    }
    if not ind.fitness.valid:
        out["score"] = None  # not evaluated yet
    if s.by_opponents:
        out["by_opponents"] = s.by_opponents
    if s.yardstick:
        out["yardstick"] = s.yardstick
    if s.racing_games is not None:
        out["racing_games"] = s.racing_games
    if with_past and s.past:
        out["past_scores"] = [p.to_json() for p in s.past]
    if with_generation:
        out["generation"] = s.generation
    out.update(extra)
    return out


def individual_from_entry(d: dict) -> creator.DeckIndividual:
    """The inverse of `deck_entry` (KeyError / TypeError / ValueError on a damaged entry)."""
    ind = make_individual(d["cards"], d.get("origin", ""))
    if d.get("score") is not None:
        set_score(ind, d["score"], d["ci95"], Record.from_dict(d))
    if d.get("by_opponents"):
        ind.stats.by_opponents = d["by_opponents"]
    if d.get("yardstick"):
        ind.stats.yardstick = d["yardstick"]
    if d.get("racing_games") is not None:
        ind.stats.racing_games = int(d["racing_games"])
    if d.get("past_scores"):
        ind.stats.past = [Score.from_json(p) for p in d["past_scores"]]
    if d.get("generation") is not None:
        ind.stats.generation = int(d["generation"])
    return ind


@dataclass
class Score:
    """A deck's record over a set of deals: score = (wins + draws / 2) / games, with the deal
    scores that its interval is computed from."""

    deal_scores: list[np.ndarray] = field(default_factory=list)
    record: Record = field(default_factory=Record)

    def add(self, outcomes: np.ndarray, flip: bool = False) -> None:
        """Record a pairing's (deals, 2) outcomes, from deck A's view (`flip` for deck B's)."""
        o = -outcomes if flip else outcomes
        self.record.add_outcomes(o)
        self.deal_scores.append((o.astype(np.float64) + 1.0).mean(axis=1) / 2.0)

    def merge(self, other: Score) -> Score:
        return Score(self.deal_scores + other.deal_scores, self.record + other.record)

    @property
    def games(self) -> int:
        return self.record.games

    @property
    def score(self) -> float:
        return self.record.score if self.record.games else float("nan")

    @property
    def ci95(self) -> tuple[float, float]:
        return score_interval(np.concatenate(self.deal_scores) if self.deal_scores else np.empty(0))

    def to_json(self) -> dict:
        """Everything, exactly (a checkpoint of a deck's past games): the deal scores and the
        record's counts, from which its score, interval and games follow."""
        return {"deal_scores": [d.tolist() for d in self.deal_scores], **asdict(self.record)}

    @classmethod
    def from_json(cls, d: dict) -> Score:
        return cls([np.array(x, dtype=np.float64) for x in d["deal_scores"]], Record.from_dict(d))

    def as_dict(self) -> dict:
        """The record's one JSON form (`Record.to_dict`) with this score's interval over deals."""
        return self.record.to_dict(score=self.score, ci95=self.ci95)


def score_interval(deal_scores: np.ndarray) -> tuple[float, float]:
    """95 % interval of the mean deal score. The deals are independent (the two games of a deal
    are not), so the normal interval over deal scores is the honest one; with fewer
    than 30 deals or no spread it falls back to a Wilson interval over deals, which bounds the
    variance of any [0, 1] score by p(1 - p)."""
    x = np.asarray(deal_scores, dtype=np.float64)
    n = x.size
    if n == 0:
        return (0.0, 1.0)
    m = float(x.mean())
    sd = float(x.std(ddof=1)) if n > 1 else 0.0
    if n < 30 or sd == 0.0:
        return wilson_ci(m * n, n)
    half = Z95 * sd / np.sqrt(n)
    return (max(0.0, m - half), min(1.0, m + half))
