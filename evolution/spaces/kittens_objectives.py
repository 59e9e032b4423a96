"""Objectives other than "win", for Exploding Kittens deck compositions: fitness from the agent's games.

- `fairness`: p = the first player's win rate when the agent plays both seats (self-play) on the deck;
  fitness = -|p - 0.5| (0 is a perfectly fair deck). Its games come in pairs of independent games,
  so the pair means are the units of p's interval; the fitness interval is the image of p's.
- `skill`: the agent's score against uniformly random play, seats rotated: each deal is played
  twice from the same seed, the agent first in seat 0, then in seat 1 (the deal's luck changes
  hands); fitness = that score (0.5: on this deck, skill against random play is worth nothing).

Fitness comes from played games only, never from the exact solver; the exact first-player value
(games.exploding_kittens_exact, open hands) appears in the validation only (evolution/spaces/kittens_validation.py).

Games are played like Gwent Lite's pairings: a task holds plain tuples (each deck's card types, its
seed key, its deals), a worker plays all of a task's games in one lock-step batch (one agent call
per step), every game's seed comes from its deck's key, the agent's choices from the task's key,
so results do not depend on how many workers there are. A deck's scores are `fitness.Score`s (from
seat 0's view for fairness, the agent's for skill), pooled over `score_memory` generations as Gwent
Lite's are; racing (`config.fitness = "racing"`) uses `racing.decide` on the fitness and its SE.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import agents
import games
from agents import split_agent_specs
from agents.arena import play_states
from agents.base import RandomAgent
from agents.parallel import group_by_games, map_tasks
from agents.stats import score_summary
from evolution.decks.kittens_settings import KittensSettings
from evolution.individuals import set_score
from evolution.scoring import fitness as fit
from evolution.scoring import racing
from games.errors import UserError
from games.exploding_kittens import CARD_NAMES

#: what the Score behind each objective counts (the by_opponents key of a deck's entry)
RATE_NAME = {"fairness": "first_player", "skill": "random"}


@dataclass(frozen=True)
class DeckGames:
    """`deals` deals of one deck (2 games each) from seed key `key`."""

    cards: tuple[int, ...]
    key: tuple[int, ...]
    deals: int

    @property
    def games(self) -> int:
        return 2 * self.deals


@dataclass(frozen=True)
class ObjectiveTask:
    """One worker's work unit: decks' games played as one lock-step batch (plain data only)."""

    objective: str
    settings: tuple[tuple[str, object], ...]  # the game settings besides the deck
    decks: tuple[DeckGames, ...]
    agent_key: tuple[int, ...]

    @property
    def games(self) -> int:
        return sum(d.games for d in self.decks)


def _composition(cards) -> dict[str, int]:

    counts = np.bincount(np.asarray(cards, dtype=np.int64), minlength=len(CARD_NAMES))
    return {name: int(n) for name, n in zip(CARD_NAMES, counts)}


def play_objective_task(agent, task: ObjectiveTask) -> list[np.ndarray]:
    """Worker entry point: per deck an int8 array (deals, 2) of outcomes (1 win, -1 loss): seat 0's in
    two independent self-play games (fairness), or the agent's with seat 0 then seat 1 (skill)."""

    settings = dict(task.settings)
    me = fit.reseeded(agent, task.agent_key)
    players = [me, RandomAgent(np.random.default_rng(list(task.agent_key) + [1]))]
    states, seats = [], []
    for d in task.decks:
        game = games.make(KittensSettings.game, deck=_composition(d.cards), **settings)
        for s in fit.deal_seeds(d.key, 2 * d.deals if task.objective == "fairness" else d.deals):
            if task.objective == "fairness":
                states.append(game.new_initial_state(s))
                seats.append((0, 0))
            else:  # the same deal twice: the agent in seat 0, then in seat 1
                states += [game.new_initial_state(s), game.new_initial_state(s)]
                seats += [(0, 1), (1, 0)]
    play_states(states, seats, players)
    out, i = [], 0
    for d in task.decks:
        r = np.array([s.returns() for s in states[i : i + d.games]])
        i += d.games
        if task.objective == "fairness":
            res = np.sign(r[:, 0]).reshape(d.deals, 2)
        else:
            res = np.stack([np.sign(r[0::2, 0]), np.sign(r[1::2, 1])], axis=1)
        out.append(res.astype(np.int8))
    return out


def play_decks(
    decks: list[DeckGames],
    objective: str,
    settings: dict,
    agent,
    mapper,
    games_per_task: int,
    key_prefix,
    progress=None,
    what: str = "games",
) -> list[np.ndarray]:
    """The (deals, 2) outcomes of every deck, in order, through `mapper`; tasks of about
    `games_per_task` games (a deck's games are never split), fixed by the decks alone."""

    plain = tuple(sorted(settings.items()))
    tasks = []
    for i, group in enumerate(group_by_games(decks, games_per_task)):
        plain_decks = tuple(
            DeckGames(tuple(int(c) for c in d.cards), tuple(int(k) for k in d.key), int(d.deals)) for d in group
        )
        tasks.append((agent, ObjectiveTask(objective, plain, plain_decks, fit.agent_key(key_prefix, i))))
    results = map_tasks(play_objective_task, tasks, mapper, agent, progress, what)
    return [o for r in results for o in r]


def score_of_outcomes(outcomes: list[np.ndarray]) -> fit.Score:
    s = fit.Score()
    for o in outcomes:
        s.add(o)
    return s


def objective_value(objective: str, score: fit.Score) -> tuple[float, tuple[float, float]]:
    """The fitness and its 95 % interval from the rate `score` counts (see the module docstring)."""
    p, (lo, hi) = score.score, score.ci95
    if objective == "skill":
        return p, (lo, hi)
    far, near = max(abs(lo - 0.5), abs(hi - 0.5)), (0.0 if lo <= 0.5 <= hi else min(abs(lo - 0.5), abs(hi - 0.5)))
    return -abs(p - 0.5), (-far, -near if near else 0.0)


class ObjectiveEvaluator:
    """The kittens counterpart of evolution.scoring.evaluation.MatchScorer's `evaluate`: every deck of a
    pool plays its own `games_per_deck` games (no opponents: the objective is a property of the deck)."""

    def __init__(self, space, config):
        self.config = config
        self.space = space  # the run's deck space (its legality check)
        self.agent = build_agent(config, seed=config.seed)

    def evaluate(self, pool: list, hof, gen: int, pmap, progress: Callable | None = None, what: str = "") -> int:
        c = self.config
        for ind in pool:
            problems = self.space.problems(ind)
            if problems:
                raise AssertionError(f"illegal deck {list(ind)}: {'; '.join(problems)}")
        what = what or f"gen {gen}"
        deals = c.settings.games_per_deck // 2
        fresh = [fit.Score() for _ in pool]
        if c.fitness == "racing":
            played = self._race(pmap, pool, fresh, gen, progress, what)
        else:
            decks = [DeckGames(tuple(ind), (c.seed, fit.STAGE_EVOLVE, gen, i), deals) for i, ind in enumerate(pool)]
            results = self._play(pmap, decks, (c.seed, fit.STAGE_EVOLVE, gen), progress, what)
            for s, o in zip(fresh, results):
                s.add(o)
            played = sum(d.games for d in decks)
        self._set_scores(pool, fresh)
        return played

    def _play(self, pmap, decks, prefix, progress, what):
        c = self.config
        return play_decks(
            decks, c.objective, c.settings.game_config, self.agent, pmap, c.games_per_task, prefix, progress, what
        )

    def _pooled(self, ind, fresh: fit.Score) -> fit.Score:
        keep = self.config.score_memory - 1
        pooled = fresh
        for p in ind.stats.past[-keep:] if keep else []:
            pooled = pooled.merge(p)
        return pooled

    def _race(self, pmap, pool, fresh, gen, progress, what) -> int:
        """Rounds of the decks whose rank (among the kept or not) is still in doubt: racing.decide on
        the fitness (pooled with past generations) and the SE of the rate behind it."""
        c = self.config
        per_round = (c.settings.games_per_deck // 2) // c.racing_rounds
        active = np.ones(len(pool), bool)
        played = 0
        for r in range(c.racing_rounds):
            idx = [i for i in range(len(pool)) if active[i]]
            decks = [DeckGames(tuple(pool[i]), (c.seed, fit.STAGE_EVOLVE, gen, i, r), per_round) for i in idx]
            results = self._play(
                pmap, decks, (c.seed, fit.STAGE_EVOLVE, gen, 1000 + r), progress, f"{what} round {r + 1}"
            )
            for i, o in zip(idx, results):
                fresh[i].add(o)
            played += sum(d.games for d in decks)
            if r + 1 == c.racing_rounds:
                break
            means, ses = [], []
            for ind, s in zip(pool, fresh):
                pooled = self._pooled(ind, s)
                _, se = racing.mean_se(np.concatenate(pooled.deal_scores))
                means.append(objective_value(c.objective, pooled)[0])
                ses.append(se)  # |d fitness / d p| = 1 for both objectives
            active &= racing.decide(np.array(means), np.array(ses), c.kept, c.racing_z, margin=c.racing_margin)
            if not active.any():
                break
        for ind, s in zip(pool, fresh):
            ind.stats.racing_games = s.games
        return played

    def _set_scores(self, pool, fresh) -> None:
        c = self.config
        keep = c.score_memory - 1
        for ind, s in zip(pool, fresh):
            pooled = self._pooled(ind, s)
            value, ci = objective_value(c.objective, pooled)
            set_score(ind, value, ci, pooled.record)
            past = ind.stats.past[-keep:] if keep else []
            ind.stats.past = (past + [s])[-keep:] if keep else []
            ind.stats.by_opponents = {RATE_NAME[c.objective]: score_summary(pooled.as_dict())}


# ------------------------------------------------------------------------------------------------
# The agent


def agent_spec_path(spec: str) -> str:
    """`pretrained` in a kittens evolution is the open-hands agent trained on random compositions,
    agents/pretrained/exploding_kittens_compositions.npz (named here rather than imported from
    agents.learned, whose module reaches Keras)."""
    if spec != "pretrained":
        return spec
    return str(Path(agents.__file__).resolve().parent / "pretrained" / "exploding_kittens_compositions.npz")


def build_agent(config, seed: int = 0):
    """The one agent that plays every kittens game (a picklable numpy object); UserError if unusable."""

    specs = split_agent_specs(config.agent)
    if len(specs) != 1:
        raise UserError(f"agent {config.agent!r}: {config.game} evolution takes one agent, not a panel")
    game = games.make(KittensSettings.game, **config.settings.game_config)
    try:
        agent = agents.make(agent_spec_path(specs[0]), game, seed=seed)
    except ModuleNotFoundError as exc:
        raise UserError(f"agent {config.agent!r} is not available in this install ({exc})") from None
    except UserError as exc:
        raise UserError(f"agent {config.agent!r}: {exc}") from None
    return fit.sendable(agent, config.agent)


# ------------------------------------------------------------------------------------------------
# The champion and its validation against exact values


def measure(decks: list, config, agent, pmap, games: int, stage: int, gen: int, progress=None, what="") -> list:
    """Each deck's (fitness, interval, Score) from `games` fresh games (seeds of `stage`)."""
    plain = [DeckGames(tuple(d), (config.seed, stage, gen, i), games // 2) for i, d in enumerate(decks)]
    results = play_decks(
        plain,
        config.objective,
        config.settings.game_config,
        agent,
        pmap,
        config.games_per_task,
        (config.seed, stage, gen),
        progress,
        what or "champion candidates",
    )
    out = []
    for o in results:
        s = score_of_outcomes([o])
        out.append((*objective_value(config.objective, s), s))
    return out
