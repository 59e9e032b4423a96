"""The one timing helper of the benchmarks: medians of interleaved repeats.

`interleaved({"a": work_a, "b": work_b}, repeats)` runs a, b, a, b, ... and keeps every repeat's
wall time and counts, so that a neighbour's load on the shared machine hits every side alike and a
ratio of medians stays fair. A `work()` call returns what it did: a number of units, or a dict of
named counts (e.g. `{"games": 16, "steps": 310}`); with `min_seconds` it is called again until that
much time has passed in the repeat (at least once), and the counts add up.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

Work = Callable[[], float | Mapping[str, float]]
Progress = Callable[[int, int, str], None]
Log = Callable[[str], None]

UNITS = "units"  # the name of the count when a work returns a plain number


@dataclass
class Timing:
    """The repeats of one measured work: wall seconds and counts of each repeat."""

    seconds: list[float] = field(default_factory=list)
    counts: list[dict[str, float]] = field(default_factory=list)

    @property
    def median_seconds(self) -> float:
        return statistics.median(self.seconds)

    def rate(self, unit: str = UNITS) -> float:
        """Median over the repeats of `unit` per second."""
        return statistics.median(c[unit] / s for c, s in zip(self.counts, self.seconds))

    def median(self, unit: str = UNITS) -> float:
        """Median over the repeats of a count (e.g. CPU seconds a work reported)."""
        return statistics.median(c[unit] for c in self.counts)


def _as_counts(done: float | Mapping[str, float]) -> dict[str, float]:
    return {key: float(v) for key, v in done.items()} if isinstance(done, Mapping) else {UNITS: float(done)}


def time_once(work: Work, min_seconds: float = 0.0) -> tuple[float, dict[str, float]]:
    """(wall seconds, summed counts) of `work()` called until `min_seconds` have passed (at least once)."""
    totals: dict[str, float] = {}
    t0 = time.perf_counter()
    while True:
        for key, value in _as_counts(work()).items():
            totals[key] = totals.get(key, 0.0) + value
        elapsed = time.perf_counter() - t0
        if elapsed >= min_seconds:
            return elapsed, totals


def interleaved(
    works: Mapping[str, Work],
    repeats: int,
    min_seconds: float = 0.0,
    progress: Progress | None = None,
    log: Log | None = None,
    what: str = "",
) -> dict[str, Timing]:
    """Each work's `Timing` over `repeats` rounds of a, b, a, b, ...; `progress(done, total, what)`
    counts the runs, `log(line)` hears each run's seconds."""
    what = what or "timing"
    timings = {key: Timing() for key in works}
    done, total = 0, repeats * len(works)
    for r in range(repeats):
        for key, work in works.items():
            seconds, counts = time_once(work, min_seconds)
            timings[key].seconds.append(seconds)
            timings[key].counts.append(counts)
            done += 1
            if log is not None:
                log(f"{what}: {key} repeat {r + 1}/{repeats}: {seconds:.2f} s")
            if progress is not None:
                progress(done, total, what)
    return timings


def ratio_of_rates(timings: Mapping[str, Timing], a: str, b: str, unit: str = UNITS) -> float:
    """Median rate of `a` over median rate of `b` (above 1: `a` is faster)."""
    return timings[a].rate(unit) / timings[b].rate(unit)


def ratio_of_seconds(timings: Mapping[str, Timing], slow: str, fast: str) -> float:
    """Median seconds of `slow` over those of `fast` (above 1: `fast` is faster)."""
    return timings[slow].median_seconds / timings[fast].median_seconds
