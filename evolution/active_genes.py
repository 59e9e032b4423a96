"""Active genes: variation that touches only the genes a generation's games can test.

Kowalski and Miernik, "Evolutionary Approach to Collectible Card Game Arena Deckbuilding using Active
Genes", IEEE Congress on Evolutionary Computation 2020 (arXiv:2001.01326). A drafter's genome holds a
score for every card, but a draft offers only some of the cards, and the scores of the others never
reach a game. So each generation's games are played on drafts fixed in advance (one draft a
generation in the paper), and only the genes of the cards those drafts offer, the active genes, are
crossed over and mutated: every other gene of a child is its first parent's, unchanged. A child then
differs from its parent only where this generation's games can tell them apart, and what a genome
learned on earlier drafts is kept, not overwritten by untested changes.

In deckopt it is the selection scheme `active-genes` (`--selection active-genes`), valid for a deck
space that answers `active_genes(gen) -> bool array` (which places of a genome generation `gen`'s
games read; the `locm_drafter` space does when its generation's games share a few drafts). Each
generation after the first:

- `mu` parents are chosen by tournaments of `tournament_size` on the last generation's fitness, and
  kept (scored again with the children on the new generation's drafts);
- each of the `pool - mu` children starts as a parent; with chance `cx_prob` a uniform crossover
  gives each active gene the value of a second parent with chance one half; then each active gene
  is drawn afresh (from a random genome of the space) with chance `mut_card_rate`.

The settings used on deckopt's results page (tournaments of 4, a uniform crossover for every child,
5 % of the genes redrawn, one draft a generation) are deckopt's reading of the paper's; they have not
been checked against the paper's full text. The paper's fitness plays the population's drafters
against each other; deckopt's is the space's own (its scorer: the field, both seats).
"""

from __future__ import annotations

import numpy as np

from games.errors import UserError


def check_space(space) -> None:
    """UserError in one line unless `space` tells which genes a generation's games test."""
    if not callable(getattr(space, "active_genes", None)):
        raise UserError(
            f"selection active-genes needs a deck space that tells which genes a generation's games test; "
            f"{space.name!r} does not (active_genes)"
        )


def child_genes(
    first, second, fresh, active: np.ndarray, cross: bool, mutation_rate: float, rng: np.random.Generator
) -> list:
    """A child's genome: `first`'s, with each active gene (`active`, a bool mask) taken from `second`
    with chance 1/2 when `cross`, then from `fresh` (a random genome) with chance `mutation_rate`."""
    child = np.array(first, dtype=object)
    genes = np.flatnonzero(active)
    if cross:
        swapped = genes[rng.random(len(genes)) < 0.5]
        child[swapped] = np.asarray(second, dtype=object)[swapped]
    redrawn = genes[rng.random(len(genes)) < mutation_rate]
    child[redrawn] = np.asarray(fresh, dtype=object)[redrawn]
    return child.tolist()


def next_pool(pool: list, active: np.ndarray, config, tb, rng: np.random.Generator) -> list:
    """The next generation's pool: `mu` parents by tournaments, kept, and `pool - mu` children varied
    on the `active` genes only (`child_genes`); `tb` is the run's toolbox (evolution.toolbox)."""
    parents = [tb.kept(ind, "parent") for ind in tb.select(pool, config.mu)]
    children = []
    for _ in range(config.pool - config.mu):
        first = parents[int(rng.integers(len(parents)))]
        cross = bool(config.cx_prob) and rng.random() < config.cx_prob
        second = parents[int(rng.integers(len(parents)))] if cross else first
        genes = child_genes(first, second, tb.random_cards(), active, cross, config.mut_card_rate, rng)
        children.append(tb.child(genes, "crossover" if cross else "mutant"))
    return parents + children
