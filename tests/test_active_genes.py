"""Active-genes selection (evolution.active_genes): offspring come in crossed pairs of a tournament's
two fittest, the population takes from scored offspring only the genes the generation's games test
with the running fitness 0.9 x + 0.1 y, a run of it resumes alike, and a space that cannot tell
which genes are tested is refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.stats import Record
from evolution import active_genes
from evolution.config import EvolveConfig, load_config
from evolution.individuals import score_of, set_score
from evolution.loop import evolve
from evolution.toolbox import build_toolbox
from games.errors import UserError


class Scores:
    """A toy space of 12 integer genes; generation g's games test genes g, g + 3, g + 6, g + 9 (mod 12)."""

    name = "scores"
    ordered = True  # a genome: its places mean something

    def random_deck(self, rng):
        return rng.integers(1000, size=12).tolist()

    def crossover(self, a, b, rng):
        a, b = np.array(a), np.array(b)
        swap = rng.random(len(a)) < 0.5
        a[swap], b[swap] = b[swap].copy(), a[swap].copy()
        return a.tolist(), b.tolist()

    def active_genes(self, gen: int) -> np.ndarray:
        return (np.arange(12) % 3) == gen % 3


def scored(tb, n: int, scores) -> list:
    pool = [tb.individual() for _ in range(n)]
    for ind, s in zip(pool, scores):
        set_score(ind, s, (s - 0.1, s + 0.1), Record())
    return pool


def toolbox(**settings):
    config = EvolveConfig(selection="active-genes", **({"pool": 10, "tournament_size": 4, "cx_prob": 1.0} | settings))
    return config, build_toolbox(config, Scores(), np.random.default_rng(1))


def test_offspring_are_crossed_pairs_of_a_tournament_s_two_fittest():
    config, tb = toolbox(mut_card_rate=0.0)
    population = scored(tb, 10, np.linspace(0.05, 0.95, 10))
    offspring = tb.next_pool(population, 4)
    assert len(offspring) == 10 and {ind.stats.origin for ind in offspring} == {"crossover"}
    genomes = [np.array(p) for p in population]
    for a, b in zip(offspring[0::2], offspring[1::2]):
        twins = np.sort([a, b], axis=0)  # each gene of one child is one parent's, its twin's the other's
        parents = [
            (i, j)
            for i in range(10)
            for j in range(i + 1, 10)
            if (np.sort([genomes[i], genomes[j]], axis=0) == twins).all()
        ]
        # the two least fit are never among the two fittest of four drawn without replacement
        assert parents and all(i >= 2 for i, _ in parents)
    # every gene drawn afresh: a parent's gene survives only where a fresh draw equals it
    config, tb = toolbox(mut_card_rate=1.0)
    population = scored(tb, 10, np.linspace(0.05, 0.95, 10))
    offspring = tb.next_pool(population, 4)
    same = sum(int((np.array(child) == np.array(p)).sum()) for child in offspring for p in population)
    assert same < 10  # of 10 x 10 x 12 gene pairs, each equal with chance 1/1000


def test_the_population_takes_only_the_active_genes_of_scored_offspring():
    config, tb = toolbox()
    population = scored(tb, 10, np.linspace(0.2, 0.9, 10))
    offspring = scored(tb, 10, np.linspace(0.9, 0.0, 10))
    active = Scores().active_genes(5)
    after = tb.population_after(population, offspring, 5)
    assert len(after) == 10 and {ind.stats.origin for ind in after} == {"population"}
    for member in after:
        m = np.array(member)
        xs = [x for x in population if np.array_equal(np.array(x)[~active], m[~active])]
        ys = [y for y in offspring if np.array_equal(np.array(y)[active], m[active])]
        assert xs and ys
        fits = {round(0.9 * score_of(x) + 0.1 * score_of(y), 12) for x in xs for y in ys}
        assert round(score_of(member), 12) in fits
        lo, hi = member.stats.ci95
        assert lo < score_of(member) < hi and hi - lo == pytest.approx(0.2)  # both intervals 0.2 wide
    # the roulette favours the fit: the least fit offspring (score 0) never gives its active genes
    assert not any(np.array_equal(np.array(m)[active], np.array(offspring[-1])[active]) for m in after)
    # before the first generation the population is random genomes of running fitness 0.5, no games
    first = tb.population_after(None, offspring, 0)
    active = Scores().active_genes(0)
    for member in first:
        m = np.array(member)
        y = next(y for y in offspring if np.array_equal(np.array(y)[active], m[active]))
        assert score_of(member) == pytest.approx(0.45 + 0.1 * score_of(y))
        assert not any(np.array_equal(np.array(y)[~active], m[~active]) for y in offspring)


def test_a_run_keeps_the_population_with_its_running_fitness_and_resumes_alike(tmp_path):
    settings = dict(game="locm_drafter", generations=3, pool=6, selection="active-genes", tournament_size=4)
    settings |= dict(cx_prob=1.0, mut_card_rate=0.05, hof_size=2, jobs=1, plot_every=0, validate=False)
    settings |= {"field": ["coac", "random"], "games_per_opponent": 2}
    config = load_config(**settings)
    evolve(config, tmp_path / "whole", log=None, finish=False)
    done = []
    evolve(
        config, tmp_path / "parts", log=None, finish=False, on_generation=done.append, should_stop=lambda: bool(done)
    )
    evolve(None, tmp_path / "parts", resume=True, log=None, finish=False)
    a, b = (json.loads((tmp_path / run / "best_decks.json").read_text())["generations"] for run in ("whole", "parts"))
    assert a == b and len(a) == 3
    last = json.loads((tmp_path / "whole" / "generations" / "gen_0002.json").read_text())
    assert {d["origin"] for d in last["decks"]} == {"population"}
    # a running fitness: 0.9 x + 0.1 y of win rates over 4 games each (multiples of 1/8) is rarely one
    assert any(abs(d["score"] * 8 - round(d["score"] * 8)) > 1e-9 for d in last["decks"])
    first = json.loads((tmp_path / "whole" / "generations" / "gen_0000.json").read_text())
    assert all(0.45 <= d["score"] <= 0.55 for d in first["decks"])  # 0.9 x 0.5 + 0.1 x its offspring's


def test_a_tournament_needs_two_parents_and_a_space_that_tells_its_active_genes(tmp_path):
    with pytest.raises(UserError, match="tournament_size must be in 2..pool"):
        EvolveConfig(selection="active-genes", pool=6, tournament_size=1)
    config = EvolveConfig(selection="active-genes", pool=6, generations=1, agent="heuristic", jobs=1)
    with pytest.raises(UserError, match="active-genes needs a deck space"):
        evolve(config, tmp_path / "run", log=None)
    assert not (tmp_path / "run" / "config.json").exists()
    assert active_genes.OFFSPRING_WEIGHT == 0.1
