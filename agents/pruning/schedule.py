"""When to prune the root and how many actions to keep: Algorithm 1 of Papagiannis et al. (2022).

    schedule = PruneSchedule(load("uniform"), actions=[0, 3, 7, ...], total=300)
    ... after each simulation:  if sims == schedule.next_at: active = schedule.update(sims, visits, values)

Planning (before the first simulation, and again after every event): with A active root actions,
t simulations run and T in all, for every prune point i in [t + threshold, T) the Safety Network
gives K_i, the actions to keep after i simulations, and the Probability Network the chance
P(K_i, T - i) that the search then finds the best one; the point with the highest chance (the
earliest on ties) is the next event. At the event the active actions are ranked as the bandit
datasets rank arms (most visits, then higher mean value, then lower action) and the top K_i are
kept, so the most visited root action is never pruned; then the next prune is planned. Fewer than
`min_arms` active actions, or no room for another `threshold` simulations, ends the pruning. The
networks ignore the actions' values, so the first plan is made at t = 0: the threshold (100, as in
the paper) only keeps the first prune until every action has some visits.

Soft pruning (the paper's future work; our design): pruned actions keep their statistics, and at
every later event (a planned prune, or a check every `threshold` simulations when none is planned)
an action pruned at an earlier event comes back if its mean value is at least the lowest mean value
among the active actions: the kept actions' estimates moved while its own stood still, so it no
longer looks worse than all of them. A returned action can be pruned again at a later prune.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.pruning.networks import PruningNetworks


@dataclass(frozen=True)
class ScheduleConfig:
    threshold: int = 100  # simulations before the first plan, and at least between two events
    min_arms: int = 3  # below this, no pruning (the networks were trained on 3..50 arms)
    soft: bool = False


class PruneSchedule:
    """The pruning state of one search's root; `update` at `next_at` simulations (None: no more)."""

    def __init__(self, nets: PruningNetworks, actions, total: int, config: ScheduleConfig = ScheduleConfig()):
        self.nets = nets
        self.config = config
        self.total = int(total)
        self.active: set[int] = set(int(a) for a in actions)
        self.pruned: set[int] = set()
        self.keep: int | None = None  # actions to keep at next_at (None: a planning point)
        self.events: list[tuple[int, int, int]] = []  # (simulations, active before, active after)
        self.next_at: int | None = None
        self._plan(0)

    def update(self, sims: int, visits: dict[int, int], values: dict[int, float]) -> set[int]:
        """At `next_at` simulations, with the root's visits and mean values of every action:
        prune (and in soft mode revive), plan the next event, return the active actions."""
        before = len(self.active)
        newly: set[int] = set()
        if self.keep is not None and self.keep < len(self.active):
            ranked = sorted(self.active, key=lambda a: (-visits.get(a, 0), -values.get(a, 0.0), a))
            newly = set(ranked[self.keep :])
            self.active = set(ranked[: self.keep])
        if self.config.soft and self.pruned:
            floor = min(values.get(a, 0.0) for a in self.active)
            back = {a for a in self.pruned if values.get(a, -np.inf) >= floor}
            self.active |= back
            self.pruned -= back
        self.pruned |= newly
        self.events.append((sims, before, len(self.active)))
        self._plan(sims)
        return self.active

    def _plan(self, t: int) -> None:
        cfg, total, arms = self.config, self.total, len(self.active)
        first = t + cfg.threshold
        self.keep = None
        self.next_at = None
        if first >= total:  # a prune after the last simulation gains nothing
            return
        points = np.arange(first, total)
        keep = self.nets.keep(points, arms) if arms >= cfg.min_arms else np.full(len(points), arms)
        useful = keep < arms  # a point that keeps every action is no prune
        if not useful.any():
            if cfg.soft and self.pruned:
                self.next_at = first  # nothing to prune, but pruned actions may come back
            return
        chance = self.nets.probability(total - points, keep)  # a no-op best point: wait, then plan again
        best = int(np.argmax(chance))
        self.next_at = int(points[best])
        self.keep = int(keep[best])
