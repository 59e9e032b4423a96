"""Do evaluators agree? Deck scores under several agents, compared with what noise alone allows.

Every deck is scored against the same reference decks (a yardstick) under each agent, on the same
deals (mirrored, evolution/scoring/fitness.py), so two agents' scores of a deck differ only by how the agents
play. Three measures:

- rank agreement: Spearman's correlation of two agents' deck scores, beside each agent's *noise
  ceiling*: the Spearman correlation of its own scores over two independent halves of the deals
  (even and odd deals of every pairing), raised to the full number of games with the
  Spearman-Brown formula 2r / (1 + r) (Spearman 1910; Brown 1910). Agents that agree as well as an
  agent agrees with itself leave nothing to explain.
- the worst-deck disagreement: the largest difference between two agents' scores of one deck, with
  its 95 % interval, beside the same statistic for noise alone: the largest half-to-half
  difference of one agent, divided by sqrt 2 (two half samples differ by twice the variance of one
  full sample; two full samples by sqrt 2 times its standard deviation).
- the cross table: a deck piloted by agent A against the references played by agent B
  (`fitness.Duel`), which separates a pilot's competence with a deck from the opponents' play.

The games are played by a `play` callable of the deck space (evolution.scoring.yardstick.Play, an
evaluator's `.play` bound to one agent), so the study holds for every game with reference decks.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.stats import Z95, spearman
from evolution.scoring import fitness as fit
from evolution.scoring.yardstick import Play

STAGE_AGREEMENT = 8  # seed-key stage of these games (no other stage uses it)


def yardstick_scores(
    decks: list[tuple[int, ...]],
    references: list[tuple[int, ...]],
    play: Play,
    games: int,
    seed: int,
    progress: Callable | None = None,
    what: str = "games",
) -> list[fit.Score]:
    """Each deck's Score against every reference deck, `games` mirrored games per reference, played
    by `play` (one agent's matches); the deals depend on `seed` and the decks only, never on the agent."""
    pairings, who = fit.against(decks, references, games // 2, seed, STAGE_AGREEMENT, 0)
    results = play(pairings, (seed, STAGE_AGREEMENT, 0), progress, what)
    scores = [fit.Score() for _ in decks]
    for outcomes, (i, _) in zip(results, who):
        scores[i].add(outcomes)
    return scores


def halves(score: fit.Score) -> tuple[float, float]:
    """The mean deal score over the even and over the odd deals of every pairing (NaN for a half with
    no deal: one deal a pairing)."""
    even = np.concatenate([d[0::2] for d in score.deal_scores])
    odd = np.concatenate([d[1::2] for d in score.deal_scores])
    return tuple(float(h.mean()) if h.size else float("nan") for h in (even, odd))


def _standard_error(score: fit.Score) -> float:
    deals = np.concatenate(score.deal_scores)
    return float(deals.std(ddof=1) / np.sqrt(deals.size))


def noise_ceiling(scores: list[fit.Score]) -> dict:
    """One agent's agreement with itself over independent halves of the deals: the split-half
    Spearman, its Spearman-Brown full-length value, and the largest half-to-half difference of one
    deck divided by sqrt 2 (what noise alone gives as a worst-deck disagreement)."""
    h = np.array([halves(s) for s in scores])
    if np.isnan(h).any():
        return {"split_half_spearman": float("nan"), "spearman": float("nan"), "worst_deck_difference": float("nan")}
    r = spearman(h[:, 0], h[:, 1])
    return {
        "split_half_spearman": r,
        "spearman": 2 * r / (1 + r) if r > -1 else float("nan"),
        "worst_deck_difference": float(np.abs(h[:, 0] - h[:, 1]).max() / np.sqrt(2)),
    }


def compare(a: list[fit.Score], b: list[fit.Score], names: list[str]) -> dict:
    """Two agents' scores of the same decks: Spearman's rank correlation and the deck on which they
    differ most, with the difference's 95 % interval."""
    sa, sb = np.array([s.score for s in a]), np.array([s.score for s in b])
    diff = sa - sb
    worst = int(np.abs(diff).argmax())
    half = Z95 * float(np.hypot(_standard_error(a[worst]), _standard_error(b[worst])))
    return {
        "spearman": spearman(sa, sb),
        "worst_deck": names[worst],
        "worst_deck_difference": float(diff[worst]),
        "worst_deck_ci95": [float(diff[worst] - half), float(diff[worst] + half)],
    }


def cross_table(
    deck: tuple[int, ...],
    references: list[tuple[int, ...]],
    agents: dict[str, object],
    play_of: Callable[[object], Play],
    games: int,
    seed: int,
    progress: Callable | None = None,
) -> dict[str, dict[str, dict]]:
    """`deck` against every reference deck, piloted by each agent with the references played by each
    agent (the same deals in every cell): {pilot: {opponents: Score.as_dict()}}. `play_of(agent)`
    is the deck space's matches played by an agent or a `fitness.Duel`."""
    table: dict[str, dict[str, dict]] = {}
    for pilot, p in agents.items():
        table[pilot] = {}
        for opponent, o in agents.items():
            duel = p if pilot == opponent else fit.Duel(p, o, (pilot, opponent))
            [score] = yardstick_scores([deck], references, play_of(duel), games, seed, progress, "cross table")
            table[pilot][opponent] = score.as_dict()
    return table
