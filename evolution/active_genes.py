"""Active genes: a population that offspring reach only through the genes a generation's games test.

Kowalski and Miernik, "Evolutionary Approach to Collectible Card Game Arena Deckbuilding using Active
Genes", IEEE Congress on Evolutionary Computation 2020 (arXiv:2001.01326), as its authors' code runs
it: github.com/radekmie/LoCM, `Evolve.nim`, procedure `evolveToBests` (mode `evolve-specialized`),
with the settings of the Makefile target `run-CEC-2020-greedy` for the variant the paper's plots
call AG (`Results/CEC-2020-greedy/plot.plot`). A drafter's genome holds a score for every card, but
a draft offers only some of the cards, and the scores of the others never reach a game. Each
generation plays one draft fixed in advance (`activeDrafts` 1); the genes of the cards it offers are
the generation's active genes.

The run keeps a population of `pool` genomes (`populationSize` 100), each with a running fitness.
Generation `g`, on its draft:

1. Offspring, `pool` of them, in pairs (`next_offspring`): a pair's parents are the two fittest of a
   tournament of `tournament_size` (`tournamentSize` 4) population members drawn without
   replacement; with chance `cx_prob` (always, in the paper) a uniform crossover makes the pair,
   each gene from one parent and its twin's from the other, else they are the parents' copies; then
   every gene of each child is drawn afresh (from a random genome of the space) with chance
   `mut_card_rate` (`mutationProbability` 5: 5 %).
2. The offspring are scored on the generation's draft (the deck space's scorer).
3. The next population, `pool` times (`next_population`): a population member `x` by roulette
   (chance proportional to its running fitness) and an offspring `y` by roulette on its score; the
   new member is `x`'s genome with `y`'s active genes (`mergeGene` 0), its running fitness
   0.9 `x` + 0.1 `y` (`mergeEval` 10, `OFFSPRING_WEIGHT`). On the generation's draft it drafts
   exactly as `y` did; what earlier drafts taught `x` is kept, not overwritten by untested genes.

The population is the run's pool after each generation: the hall of fame, the best decks and the
checkpoint hold it with its running fitness (the paper's `bests` are the population's fittest), and
with its offspring's games as its record. A member's interval is `OFFSPRING_WEIGHT` times its
offspring's half-width plus the rest times its population member's, around the running fitness: the
half-width of a weighted mean of two estimates is at most the weighted mean of their half-widths,
whatever their correlation. The population before the first generation is random genomes with
running fitness `START_FITNESS` (50 %) and no games (interval 0..1), and the first generation's
offspring, the children of random genomes, are random genomes.

In deckopt it is the selection scheme `active-genes` (`--selection active-genes`), valid for a deck
space that answers `active_genes(gen) -> bool array` (which places of a genome generation `gen`'s
games read; the `locm_drafter` space answers the cards its generation's drafts offer, one draft as in
the paper with `games_per_opponent` 2). Where deckopt's differs from the paper's: the paper's fitness
plays the drafters against each other with the greedy battler (offspring in two rounds of pairs by
score, 20 games each way; a tournament by 5 games each way between its candidates, on the
generation's draft), so 6 000 of a generation's 10 000 games pick parents; deckopt's fitness is the
space's own (its scorer: the field, both seats, the space's battler), a tournament compares running
fitness, and every game of a budget scores offspring.
"""

from __future__ import annotations

import numpy as np

from agents.stats import Record
from evolution.individuals import score_of, set_score
from games.errors import UserError

#: the weight of an offspring's score in its new population member's running fitness (`mergeEval` 10)
OFFSPRING_WEIGHT = 0.1
#: the running fitness of the random population before the first generation (`newIndividual`: 50 %)
START_FITNESS = 0.5


def check_space(space) -> None:
    """UserError in one line unless `space` tells which genes a generation's games test."""
    if not callable(getattr(space, "active_genes", None)):
        raise UserError(
            f"selection active-genes needs a deck space that tells which genes a generation's games test; "
            f"{space.name!r} does not (active_genes)"
        )


def redrawn(genes, fresh, rate: float, rng: np.random.Generator) -> list:
    """`genes` with each gene replaced by `fresh`'s (a random genome) with chance `rate`."""
    out = np.array(genes, dtype=object)
    chosen = rng.random(len(out)) < rate
    out[chosen] = np.asarray(fresh, dtype=object)[chosen]
    return out.tolist()


def parents(population: list, tournament_size: int, rng: np.random.Generator) -> tuple:
    """The two fittest (first drawn on ties) of `tournament_size` members drawn without replacement."""
    drawn = rng.choice(len(population), size=tournament_size, replace=False)
    order = np.argsort([-score_of(population[i]) for i in drawn], kind="stable")
    return population[int(drawn[order[0]])], population[int(drawn[order[1]])]


def next_offspring(population: list, config, tb, rng: np.random.Generator) -> list:
    """`config.pool` children of the scored `population`, in pairs (step 1 above); `tb` is the run's
    toolbox (evolution.toolbox: `mate`, `child`, `random_cards`)."""
    offspring = []
    while len(offspring) < config.pool:
        first, second = parents(population, config.tournament_size, rng)
        cross = rng.random() < config.cx_prob
        pair = tb.mate(first, second) if cross else (first, second)
        for genes in pair[: config.pool - len(offspring)]:
            genes = redrawn(genes, tb.random_cards(), config.mut_card_rate, rng)
            offspring.append(tb.child(genes, "crossover" if cross else "mutant"))
    return offspring


def roulette(individuals: list, n: int, rng: np.random.Generator) -> np.ndarray:
    """`n` indices drawn with chance proportional to fitness (uniform when every fitness is 0)."""
    fitness = np.array([max(score_of(ind), 0.0) for ind in individuals])
    total = fitness.sum()
    return rng.choice(len(individuals), size=n, p=fitness / total if total > 0 else None)


def next_population(population: list | None, offspring: list, active: np.ndarray, tb, rng) -> list:
    """The population after a generation (step 3 above) from the one before it and the `offspring`
    scored on the generation's games, whose genes `active` (a bool mask) they read; before the first
    generation (`population` None) the population is random genomes of running fitness `START_FITNESS`."""
    if population is None:
        population = [tb.individual() for _ in offspring]
        for ind in population:
            set_score(ind, START_FITNESS, (0.0, 1.0), Record())
    members = []
    for i, j in zip(roulette(population, len(population), rng), roulette(offspring, len(population), rng)):
        x, y = population[i], offspring[j]
        genes = np.where(active, np.asarray(y, dtype=object), np.asarray(x, dtype=object)).tolist()
        member = tb.child(genes, "population")
        w = OFFSPRING_WEIGHT
        fitness = w * score_of(y) + (1 - w) * score_of(x)
        half = w * (y.stats.ci95[1] - y.stats.ci95[0]) / 2 + (1 - w) * (x.stats.ci95[1] - x.stats.ci95[0]) / 2
        set_score(member, fitness, (max(0.0, fitness - half), min(1.0, fitness + half)), y.stats.record)
        member.stats.by_opponents = y.stats.by_opponents
        members.append(member)
    return members
