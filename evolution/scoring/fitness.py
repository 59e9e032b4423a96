"""Deck fitness by mirrored matches, played in lock-step batches that a worker can run alone.

A *pairing* is deck A against deck B for `deals` deals; each deal is played twice from the same
seed: decks [A, B], then [B, A]. The seat's shuffle seed and the lead stay with the seat, so in the
second game each deck draws its cards in the rank order its opponent drew them in the first, and
leads when its opponent led: the luck of the deal is handed over and cancels over the pair. (The
engine's `mirrored=True` instead keeps each deck's own card order and swaps only the lead; measured
on four matchups with the heuristic agent, its two games correlate at +0.7 to +0.9, so a pair tells
little more than one game, while the swapped deal correlates at -0.6 to 0: 1.4 to 2 times smaller
standard errors for the same games.) A deal's score for A is the mean of its two games (win 1,
draw 0.5), one of 0, 1/4, 1/2, 3/4, 1; the deals are the independent units of every interval.

A *task* is a list of pairings played as one lock-step batch by `play_task` (one agent call per
step for all of its games). A `Task` holds plain tuples of ints; it travels with the agent (a
picklable numpy object); DEAP individuals never leave the parent process. Every random choice of a pairing
comes from its own seed key, and the agent's from the task's key, so the results do not depend on
how many workers run the tasks or where.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import agents
from agents import split_agent_specs
from agents.arena import has_own_act_batch, play_batch
from agents.panel import AgentPanel, member_of_deal, members
from agents.parallel import group_by_games, map_tasks
from evolution.individuals import Score
from games.batch import StateBatch
from games.errors import UserError

# seed-key stages: every pairing key is (seed, stage, generation, index)
STAGE_EVOLVE = 0
STAGE_PLAYOFF = 1
STAGE_VALIDATE = 2
STAGE_YARDSTICK = 3
STAGE_YARDSTICK_FINAL = 4
#: an archive's archetypes against the yardstick and each other (`deckopt decks --archetypes`); the
#: studies, matchups, advisor and archive use 5, 7, 8, 10, 11, 12 and 40
STAGE_ARCHETYPES = 13
_AGENT_STAGE_OFFSET = 100


@dataclass(frozen=True)
class Pairing:
    """Deck `a` against deck `b` for `deals` deals, each played twice (seats swapped)."""

    a: tuple[int, ...]
    b: tuple[int, ...]
    key: tuple[int, ...]  # seed key of this pairing's deals
    deals: int

    @property
    def games(self) -> int:
        return 2 * self.deals


@dataclass(frozen=True)
class Task:
    """One worker's work unit: pairings played as one lock-step batch, dealt by `deal` (a deck
    space's `deal`: a picklable callable, `deal(seeds, decks)` -> a games.batch.BatchState whose game
    g starts from `seeds[g]` with decks[g] = (seat 0's deck, seat 1's)). Plain tuples of ints
    besides (cheap to pickle; DEAP individuals never leave the parent process)."""

    deal: Callable
    pairings: tuple[Pairing, ...]
    agent_key: tuple[int, ...]  # seed key of the agent's own random choices

    @property
    def games(self) -> int:
        return sum(p.games for p in self.pairings)


def agent_key(prefix, task_index: int) -> tuple[int, ...]:
    """Seed key of the agent's own random choices in task `task_index` of a batch keyed `prefix`."""
    key = [int(k) for k in prefix] + [task_index]
    key[1] += _AGENT_STAGE_OFFSET
    return tuple(key)


def deal_seeds(key, deals: int) -> list[int]:
    return np.random.default_rng(list(key)).integers(2**63, size=deals).tolist()


def reseeded(agent, seed_key):
    """A copy of `agent` whose own random choices (if any) flow from `seed_key`."""
    agent = copy.copy(agent)
    if isinstance(getattr(agent, "rng", None), np.random.Generator):
        agent.rng = np.random.default_rng(list(seed_key))
    return agent


@dataclass(frozen=True)
class Duel:
    """Deck A of every pairing piloted by `pilot`, deck B by `opponent` (each an agent or an
    AgentPanel), in both games of a deal: it separates a pilot's competence with a deck from its
    opponents' play. A best response against an agent plays one side of a Duel with it."""

    pilot: object
    opponent: object
    specs: tuple[str, str]


def _agent_of_deal(pairing: Pairing, deal: int, n: int) -> int:
    return member_of_deal(deal, pairing.key[3], n)


def seat_plan(agent, key: tuple[int, ...], pairings) -> tuple[list, list[tuple[int, int]]]:
    """(players, seats) of a task's games in play order (each deal's game, then its mirror):
    `agent` (one agent, an AgentPanel or a Duel) as the players, each reseeded from `key`, and
    seats[g] = (the index of seat 0's player, seat 1's) of game g. Any deck game's task seats its
    players this way."""
    duel = isinstance(agent, Duel)
    pilots = members(agent.pilot if duel else agent)
    opponents = members(agent.opponent) if duel else ()
    if duel:
        players = [reseeded(a, key + (k,)) for k, a in enumerate(pilots + opponents)]
    elif isinstance(agent, AgentPanel):
        players = [reseeded(a, key + (k,)) for k, a in enumerate(pilots)]
    else:
        players = [reseeded(agent, key)]
    seats = []
    for p in pairings:
        for d in range(p.deals):
            k = _agent_of_deal(p, d, len(pilots))
            if duel:  # deck A's pilot sits with deck A in both games
                o = len(pilots) + _agent_of_deal(p, d, len(opponents))
                seats += [(k, o), (o, k)]
            else:
                seats += [(k, k), (k, k)]
    return players, seats


def play_task(agent, task: Task) -> list[np.ndarray]:
    """Worker entry point. Returns, per pairing of `task`, an int8 array (deals, 2): deck A's
    outcome in the deal's game and in its mirror (1 win, 0 draw, -1 loss). The task's games are
    one batch (a vectorised engine where the game has one, its `batch_class`, which plays exactly
    as the scalar one). `agent` is one agent, an AgentPanel or a Duel."""
    players, seats = seat_plan(agent, task.agent_key, task.pairings)
    decks, seeds = [], []
    for p in task.pairings:
        for s in deal_seeds(p.key, p.deals):
            decks += [(p.a, p.b), (p.b, p.a)]  # same seed, decks swapped: the luck changes hands
            seeds += [s, s]
    batch = task.deal(seeds, decks)
    if not isinstance(batch, StateBatch) and not all(has_own_act_batch(p) for p in players):
        # an agent that decides on states would have every game rebuilt as a state at every step
        # (twice the time of playing the states, measured with the heuristic): build them once
        batch = StateBatch([batch.state(g) for g in range(batch.size)])
    play_batch(batch, seats, players)
    return deck_outcomes(batch.returns(), task.pairings)


def deal_states(make_game: Callable, seeds: list[int], decks: list[tuple]) -> StateBatch:
    """Game g of `make_game(a, b)` (deck `a` in seat 0, `b` in seat 1) for decks[g] = (a, b), started
    from `seeds[g]`: the batch of a game without a vectorised engine (one game per deck pair made)."""
    made: dict[tuple, object] = {}
    states = []
    for s, (a, b) in zip(seeds, decks, strict=True):
        if (a, b) not in made:
            made[a, b] = make_game(a, b)
        states.append(made[a, b].new_initial_state(s))
    return StateBatch(states)


def deck_outcomes(returns: np.ndarray, pairings) -> list[np.ndarray]:
    """Per pairing, deck A's (deals, 2) outcomes (1 win, 0 draw, -1 loss) from the returns of its
    games in play order: each deal's game (deck A in seat 0), then its mirror (deck A in seat 1)."""
    r = np.asarray(returns)
    a_minus_b = np.where(np.arange(len(r)) % 2 == 0, r[:, 0] - r[:, 1], r[:, 1] - r[:, 0])
    outcomes = np.sign(a_minus_b).astype(np.int8).reshape(-1, 2)
    out, i = [], 0
    for p in pairings:
        out.append(outcomes[i : i + p.deals].copy())
        i += p.deals
    return out


def make_tasks(pairings: list[Pairing], agent, deal: Callable, games_per_task: int, agent_key_prefix) -> list[tuple]:
    """Consecutive pairings grouped into tasks of about `games_per_task` games (a pairing is never
    split): a list of `(agent, task)` argument pairs for `play_task`. The grouping depends only on
    the pairings and `games_per_task`, never on the workers."""
    tasks: list[tuple[object, Task]] = []
    for i, group in enumerate(group_by_games(pairings, games_per_task)):
        plain = tuple(
            Pairing(tuple(int(c) for c in p.a), tuple(int(c) for c in p.b), tuple(int(k) for k in p.key), int(p.deals))
            for p in group
        )
        tasks.append((agent, Task(deal, plain, agent_key(agent_key_prefix, i))))
    return tasks


# ------------------------------------------------------------------------------------------------
# Pairing plans


def round_robin(decks: list[tuple[int, ...]], deals: int, seed: int, stage: int, gen: int, start: int = 0):
    """Every pair i < j once (A = decks[i]); returns (pairings, [(i, j), ...])."""
    pairings, who = [], []
    idx = start
    for i in range(len(decks)):
        for j in range(i + 1, len(decks)):
            pairings.append(Pairing(decks[i], decks[j], (seed, stage, gen, idx), deals))
            who.append((i, j))
            idx += 1
    return pairings, who


def against(
    decks: list[tuple[int, ...]],
    opponents: list[tuple[int, ...]],
    deals: int,
    seed: int,
    stage: int,
    gen: int,
    start: int = 0,
):
    """Every deck against every opponent (A = the deck); returns (pairings, [(i, k), ...])."""
    pairings, who = [], []
    idx = start
    for i, d in enumerate(decks):
        for k, o in enumerate(opponents):
            pairings.append(Pairing(d, o, (seed, stage, gen, idx), deals))
            who.append((i, k))
            idx += 1
    return pairings, who


# ------------------------------------------------------------------------------------------------
# Running pairings


def play_pairings(
    pairings: list[Pairing],
    agent,
    deal: Callable,
    mapper,
    games_per_task: int,
    key_prefix,
    progress=None,
    what: str = "games",
) -> list[np.ndarray]:
    """The (deals, 2) outcome array of every pairing, in order, dealt by `deal` (the deck space's,
    `Task`) and played through `mapper` (see agents.parallel); `progress(done, total, what)` counts
    games as each task finishes. The one way any two decks play each other."""
    tasks = make_tasks(pairings, agent, deal, games_per_task, key_prefix)
    results = map_tasks(play_task, tasks, mapper, agent, progress, what)
    return [outcomes for task_result in results for outcomes in task_result]


def round_robin_scores(decks, agent, deal, pmap, config, games_per_pair: int, stage: int, gen: int, progress, what):
    """Each deck's Score over a round robin of `games_per_pair` games per pair, seeds of `stage`."""
    pairings, who = round_robin([tuple(d) for d in decks], games_per_pair // 2, config.seed, stage, gen)
    results = play_pairings(
        pairings, agent, deal, pmap, config.games_per_task, (config.seed, stage, gen), progress, what
    )
    scores = [Score() for _ in decks]
    for (i, j), outcomes in zip(who, results):
        scores[i].add(outcomes)
        scores[j].add(outcomes, flip=True)
    return scores


def game_agent(spec: str, game, seed: int = 0):
    """The agent that plays every seat of `game` (a made Game), as a picklable numpy object (workers
    never see TensorFlow); a comma list of specs or a named panel makes an AgentPanel whose deal d of
    pairing k is played by member (d + k) mod n (agents.panel). UserError in one line."""
    player = agents.make_panel(spec, game, seed=seed)
    for member, member_spec in zip(members(player), split_agent_specs(spec) or [spec], strict=True):
        sendable(member, member_spec)
    return player


def sendable(agent, spec: str):
    """`agent`, checked to travel to worker processes (it pickles); UserError in one line if not."""
    try:
        pickle.dumps(agent)
    except Exception as exc:  # noqa: BLE001 - any pickling failure means workers cannot get it
        raise UserError(f"agent {spec!r} cannot be sent to worker processes ({type(exc).__name__}: {exc})") from None
    return agent
