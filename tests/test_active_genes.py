"""Active-genes selection (evolution.active_genes): children differ from their parents only on the
genes the generation's games test, and a space that cannot tell which is refused."""

from __future__ import annotations

import numpy as np
import pytest

from agents.stats import Record
from evolution.active_genes import child_genes
from evolution.config import EvolveConfig
from evolution.individuals import set_score
from evolution.loop import evolve
from evolution.toolbox import build_toolbox
from games.errors import UserError


def test_a_child_keeps_its_first_parent_s_inactive_genes():
    rng = np.random.default_rng(0)
    first, second, fresh = list(range(100)), list(range(100, 200)), list(range(200, 300))
    active = np.zeros(100, dtype=bool)
    active[::3] = True
    child = child_genes(first, second, fresh, active, cross=True, mutation_rate=0.3, rng=rng)
    assert [child[i] for i in np.flatnonzero(~active)] == [first[i] for i in np.flatnonzero(~active)]
    taken = {i: child[i] // 100 for i in np.flatnonzero(active)}  # 0: first's, 1: second's, 2: fresh
    assert set(taken.values()) == {0, 1, 2}
    # without crossover and with every active gene redrawn: the fresh genome on the active genes
    child = child_genes(first, second, fresh, active, cross=False, mutation_rate=1.0, rng=rng)
    assert child == [fresh[i] if active[i] else first[i] for i in range(100)]


class Scores:
    """A toy space of 12 integer genes; generation g's games test genes g, g + 3, g + 6, g + 9 (mod 12)."""

    name = "scores"
    ordered = True  # a genome: its places mean something

    def random_deck(self, rng):
        return rng.integers(1000, size=12).tolist()

    def active_genes(self, gen: int) -> np.ndarray:
        return (np.arange(12) % 3) == gen % 3


def test_the_next_pool_varies_only_the_active_genes():
    config = EvolveConfig(pool=10, mu=4, selection="active-genes", tournament_size=4, cx_prob=1.0, mut_card_rate=0.05)
    rng = np.random.default_rng(1)
    space = Scores()
    tb = build_toolbox(config, space, rng)
    pool = [tb.individual() for _ in range(10)]
    for i, ind in enumerate(pool):
        set_score(ind, i / 10, (0.0, 1.0), Record())
    nxt = tb.next_pool(pool, 4)
    assert len(nxt) == 10 and [ind.stats.origin for ind in nxt] == ["parent"] * 4 + ["crossover"] * 6
    parents = [list(p) for p in nxt[:4]]
    assert all(p in [list(q) for q in pool] for p in parents)
    inactive = ~space.active_genes(4)
    changed = np.zeros(12, dtype=bool)
    for child in nxt[4:]:
        # every inactive gene is one parent's (its first parent's): the children of a parent agree there
        assert any(np.array_equal(np.array(child)[inactive], np.array(p)[inactive]) for p in parents)
        changed |= ~np.isin(np.array(child), np.array(parents))
    assert not changed[inactive].any()


def test_active_genes_on_a_space_that_cannot_tell_is_refused(tmp_path):
    config = EvolveConfig(selection="active-genes", pool=6, generations=1, agent="heuristic", jobs=1)
    with pytest.raises(UserError, match="active-genes needs a deck space"):
        evolve(config, tmp_path / "run", log=None)
    assert not (tmp_path / "run" / "config.json").exists()
