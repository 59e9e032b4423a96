"""The one timing helper of the benchmarks: interleaved repeats, medians, ratios of medians."""

from __future__ import annotations

import math

import pytest

from deckopt.bench.timing import Timing, interleaved, ratio_of_rates, ratio_of_seconds, time_once


def test_works_run_interleaved_and_report_every_repeat():
    calls = []

    def work(key, units):
        def run():
            calls.append(key)
            return units

        return run

    seen = []
    timings = interleaved(
        {"a": work("a", 10), "b": work("b", {"games": 2, "steps": 7})},
        repeats=3,
        progress=lambda done, total, what: seen.append((done, total, what)),
        what="x",
    )
    assert calls == ["a", "b"] * 3  # a, b, a, b: a load change hits both alike
    assert seen == [(i, 6, "x") for i in range(1, 7)]
    assert len(timings["a"].seconds) == 3 and timings["a"].counts == [{"units": 10.0}] * 3
    assert timings["b"].median("steps") == 7.0
    assert timings["b"].rate("games") > 0 and math.isfinite(timings["b"].rate("steps"))


def test_min_seconds_repeats_the_work_and_sums_its_counts():
    calls = []
    seconds, counts = time_once(lambda: calls.append(1) or {"games": 3}, min_seconds=0.02)
    assert seconds >= 0.02 and counts == {"games": 3.0 * len(calls)} and len(calls) >= 1
    seconds, counts = time_once(lambda: 5)
    assert counts == {"units": 5.0} and seconds >= 0


def test_medians_and_ratios_of_medians():
    timings = {
        "fast": Timing(seconds=[1.0, 2.0, 100.0], counts=[{"units": 10.0}] * 3),  # one repeat hit by a neighbour
        "slow": Timing(seconds=[4.0, 5.0, 6.0], counts=[{"units": 10.0}] * 3),
    }
    assert timings["fast"].median_seconds == 2.0
    assert timings["fast"].rate() == pytest.approx(5.0)  # median of 10, 5, 0.1
    assert ratio_of_rates(timings, "fast", "slow") == pytest.approx(5.0 / 2.0)
    assert ratio_of_seconds(timings, "slow", "fast") == pytest.approx(2.5)


def test_log_hears_each_run():
    lines = []
    interleaved({"a": lambda: 1}, repeats=2, log=lines.append, what="stage")
    assert len(lines) == 2 and lines[0].startswith("stage: a repeat 1/2: ")
