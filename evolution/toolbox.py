"""The DEAP toolbox of a run: random decks, mutation, crossover, selection, the next pool.

Selection and variation make the next pool from an evaluated one:
- `truncation`: keep the top `survivors`, add `offspring_per_survivor` mutated copies of each,
  refill with random decks (the ancestor's scheme, with sound fitness; once called "ancestor");
- `mu+lambda`: `mu` parents by tournament selection, `pool - mu` offspring (crossover with
  probability `cx_prob`, then mutation);
- `random`: fresh random decks every generation (random search at the same game budget: the
  baseline an evolution has to beat; the hall of fame keeps the best decks it meets);
- `active-genes`: Kowalski and Miernik's (evolution.active_genes; for spaces that tell which genes a
  generation's games test): offspring of tournament-chosen pairs are scored, and the population takes
  from them only those genes (`population_after`).
Every random choice comes from the one numpy Generator the toolbox is built with (DEAP's own
operators use the global `random` module, which a checkpoint would not capture).
"""

from __future__ import annotations

import numpy as np
from deap import base, tools

from evolution import active_genes
from evolution.config import EvolveConfig
from evolution.decks.base import canonical
from evolution.individuals import kept_individual, make_individual, score_of
from games.errors import UserError


def sel_tournament(individuals, k: int, tournsize: int, rng: np.random.Generator) -> list:
    """DEAP's selTournament with a numpy Generator: k times, the fittest of `tournsize`
    individuals drawn with replacement (first on ties)."""
    chosen = []
    fits = np.array([score_of(ind) for ind in individuals])
    for _ in range(k):
        aspirants = rng.integers(0, len(individuals), size=tournsize)
        chosen.append(individuals[int(aspirants[np.argmax(fits[aspirants])])])
    return chosen


def sel_best(individuals, k: int) -> list:
    """The k fittest, ties in pool order (stable)."""
    order = np.argsort([-score_of(ind) for ind in individuals], kind="stable")
    return [individuals[i] for i in order[:k]]


def build_toolbox(config: EvolveConfig, space, rng: np.random.Generator, pmap=None) -> base.Toolbox:
    """init (`individual`, `population`), `mutate`, `mate`, `select`, `select_best`, `next_pool`
    and, given `pmap`, the parallel `map`; decks are the run's deck `space`'s (its random decks,
    mutation and crossover)."""
    tb = base.Toolbox()
    tb.register("random_cards", space.random_deck, rng)

    def child(cards, origin: str = "random"):
        return make_individual(canonical(space, cards), origin)

    tb.register("individual", lambda origin="random": child(tb.random_cards(), origin))
    tb.register("population", tools.initRepeat, list, tb.individual)

    def mutate(ind):
        return child(space.mutate(ind, rng), "mutant")

    def mate(a, b):
        ca, cb = space.crossover(a, b, rng)
        return child(ca, "crossover"), child(cb, "crossover")

    tb.register("child", child)
    tb.register("kept", kept_individual)
    tb.register("mutate", mutate)
    tb.register("mate", mate)
    tb.register("select", sel_tournament, tournsize=config.tournament_size, rng=rng)
    tb.register("select_best", sel_best)
    tb.register("next_pool", next_pool, config=config, space=space, tb=tb, rng=rng)
    tb.register("population_after", population_after, config=config, space=space, tb=tb, rng=rng)
    if pmap is not None:
        tb.register("map", pmap)
    return tb


def start_decks(config: EvolveConfig, space) -> list[list[int]]:
    """The decks named by `config.start` (read as the space's reference decks), each legal and once, in
    their order; UserError in one line for one the space does not hold or more than the pool takes."""
    if not config.start:
        return []
    if not hasattr(space, "references"):
        raise UserError(
            f"start: {config.game} reads no deck files (start applies to spaces whose decks play each other)"
        )
    out: list[list[int]] = []
    for ref in space.references(config.start):
        problems = space.problems(ref.cards)
        if problems:
            raise UserError(f"start deck {ref.name!r} is not a deck of {config.game}: {problems[0]}")
        cards = canonical(space, ref.cards)
        if cards not in out:
            out.append(cards)
    if len(out) > config.pool:
        raise UserError(f"start names {len(out)} decks, more than the pool of {config.pool}")
    return out


def first_pool(starts: list[list[int]], n: int, tb: base.Toolbox) -> list:
    """Generation 0's pool of `n`: the `starts` decks, then mutants of them in turn; random decks
    without any."""
    if not starts:
        return tb.population(n=n)
    pool = [tb.child(cards, "start") for cards in starts]
    for i in range(n - len(pool)):
        pool.append(tb.mutate(pool[i % len(starts)]))
    return pool


def next_pool(pool: list, gen: int, config: EvolveConfig, space, tb: base.Toolbox, rng: np.random.Generator) -> list:
    """Generation `gen`'s pool from the evaluated pool before it (selection, then variation)."""
    if config.selection == "active-genes":
        return active_genes.next_offspring(pool, config, tb, rng)
    if config.selection == "random":  # the random-search baseline: nothing is inherited
        return [tb.individual("random") for _ in range(config.pool)]
    if config.selection == "truncation":
        survivors = [kept_individual(ind, "survivor") for ind in tb.select_best(pool, config.survivors)]
        children = []
        for s in survivors:
            for _ in range(config.offspring_per_survivor):
                parent = s
                if config.cx_prob and len(survivors) > 1 and rng.random() < config.cx_prob:
                    other = survivors[int(rng.integers(0, len(survivors)))]
                    parent = tb.mate(s, other)[0]
                children.append(tb.mutate(parent))
        fill = [tb.individual("random") for _ in range(config.pool - len(survivors) - len(children))]
        return survivors + children + fill
    parents = [kept_individual(ind, "parent") for ind in tb.select(pool, config.mu)]
    offspring = []
    for _ in range(config.pool - config.mu):
        p1 = parents[int(rng.integers(0, len(parents)))]
        if config.cx_prob and rng.random() < config.cx_prob:
            p2 = parents[int(rng.integers(0, len(parents)))]
            p1 = tb.mate(p1, p2)[0]
        offspring.append(tb.mutate(p1))
    return parents + offspring


def population_after(
    previous: list | None, scored: list, gen: int, config: EvolveConfig, space, tb: base.Toolbox, rng
) -> list:
    """The pool generation `gen` leaves from the `scored` pool (and the `previous` generation's pool,
    None before the first): the scored pool itself, but for `active-genes` the population merged
    with its scored offspring (evolution.active_genes.next_population)."""
    if config.selection == "active-genes":
        return active_genes.next_population(previous, scored, space.active_genes(gen), tb, rng)
    return scored
