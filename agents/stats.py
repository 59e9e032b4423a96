"""Confidence intervals and the win/draw/loss record used by every report."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054


def wilson_ci(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (draws may count as half successes)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(values, z: float = Z95) -> tuple[float, float, float]:
    """Mean and normal-approximation 95 % interval of a sample: (mean, lo, hi)."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return (float("nan"), float("nan"), float("nan"))
    m = float(x.mean())
    if x.size < 2:
        return (m, m, m)
    half = z * float(x.std(ddof=1)) / math.sqrt(x.size)
    return (m, m - half, m + half)


@dataclass
class Record:
    """Wins, draws and losses of one side: the one win/draw/loss record of arena, evaluation,
    tournaments and deck fitness. Score counts a draw as half a win."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        """Wilson interval of the win rate."""
        return wilson_ci(self.wins, self.games)

    @property
    def score_ci95(self) -> tuple[float, float]:
        """Wilson interval of the score (draws as half wins)."""
        return wilson_ci(self.wins + 0.5 * self.draws, self.games)

    def add(self, outcome: int) -> None:
        """One game: outcome 1 win, 0 draw, -1 loss."""
        if outcome > 0:
            self.wins += 1
        elif outcome == 0:
            self.draws += 1
        else:
            self.losses += 1

    def add_outcomes(self, outcomes) -> None:
        """Many games at once (an array of 1 / 0 / -1)."""
        o = np.asarray(outcomes)
        self.wins += int((o > 0).sum())
        self.draws += int((o == 0).sum())
        self.losses += int((o < 0).sum())

    def __add__(self, other: Record) -> Record:
        return Record(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)

    def to_dict(self, score: float | None = None, ci95=None) -> dict:
        """The one JSON form of a record: {"score", "ci95", "games", "wins", "draws", "losses"},
        `ci95` being the interval of `score`. They default to the record's own score and its
        Wilson interval; a caller that measures the score another way (a deck's fitness, an
        interval over deals) passes its own. Reports add their own keys beside these."""
        lo, hi = self.score_ci95 if ci95 is None else ci95
        return {
            "score": float(self.score if score is None else score),
            "ci95": [float(lo), float(hi)],
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
        }

    @classmethod
    def from_dict(cls, d: dict) -> Record:
        """The record of any dict holding "wins", "draws" and "losses" (`to_dict`'s or one with
        more keys); KeyError / TypeError / ValueError if they are missing or not counts."""
        return cls(int(d["wins"]), int(d["draws"]), int(d["losses"]))


def score_summary(d: dict) -> dict:
    """The score, its interval and the games of a record's JSON form (`Record.to_dict`), without
    the counts: what a deck entry keeps of a measurement shown beside its own record."""
    return {k: d[k] for k in ("score", "ci95", "games")}


def ranks(x) -> np.ndarray:
    """Ranks 1..n, ties given their average rank."""
    x = np.asarray(x, float)
    order = np.argsort(x, kind="stable")
    r = np.empty(len(x))
    r[order] = np.arange(1, len(x) + 1)
    for v in np.unique(x):
        same = x == v
        r[same] = r[same].mean()
    return r


def spearman(x, y) -> float:
    """Spearman's rank correlation: Pearson's correlation of the (tie-averaged) ranks; NaN when either
    side has no spread (all values tied), where the correlation is undefined."""
    rx, ry = ranks(x), ranks(y)
    if len(rx) < 2 or np.ptp(rx) == 0 or np.ptp(ry) == 0:
        return float("nan")
    return float(np.corrcoef(rx, ry)[0, 1])
