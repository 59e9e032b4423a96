"""Self-play in shards, for every learner: a batch of games split into `selfplay_shards` lock-step
shards, each with a seed of its own drawn from the run's generator, played where the training
loop's mapper puts them (worker processes with `deckopt train --jobs`). How the games are split
fixes the results; which process plays a shard does not. A shard carries numpy weights only, so a
worker never imports TensorFlow.

    batch = play_in_shards(mapper, self_play, game, config.game_config, (network, ...), num_games, shards, rng)

`self_play(game, *args, num_games=N, rng=R)` is a learner's module-level function (so that it
pickles) returning a batch that `join_games` can join; its `args` hold numpy networks and settings.
With one shard it plays here from the run's generator itself.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import signal
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import games
from agents.learned import single_threaded_blas
from games import Game


def shard_sizes(num_games: int, shards: int) -> list[int]:
    """`num_games` split into `shards` sizes that differ by at most one, the larger first."""
    base, extra = divmod(num_games, shards)
    return [base + (i < extra) for i in range(shards)]


def shard_seeds(rng: np.random.Generator, shards: int) -> list[int]:
    """One seed per shard, from the run's generator (one draw for all of them)."""
    return [int(seed) for seed in rng.integers(2**63, size=shards)]


def in_worker(parent_pid: int) -> bool:
    """Whether this is a worker process rather than the training's own (`parent_pid`); a worker
    leaves the first Ctrl-C to the training, which stops after the batch: it must not kill the
    batch."""
    if not parent_pid or os.getpid() == parent_pid:
        return False
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return True


def shard_game(game_name: str, game_config: dict) -> Game:
    """The game of a shard, made once per process."""
    return _game(game_name, json.dumps(game_config, sort_keys=True))


@functools.lru_cache(maxsize=4)
def _game(name: str, config_json: str) -> Game:
    return games.make(name, **json.loads(config_json))


def compact(obs: np.ndarray) -> np.ndarray:
    """Observations to send back from a worker: board games' small whole numbers (Connect Four's
    0/1 planes) as uint8, a quarter of the bytes through the pipe; `join_games` widens them again
    to the same float32 values."""
    small = obs.astype(np.uint8)
    return small if np.array_equal(small, obs) else obs


def join_games(parts: list):
    """The shards' batches (dataclasses of per-decision arrays, `games` numbering each shard's games
    from 0, `returns` one row per game, dicts of per-decision arrays) as one batch of the same
    class, the games numbered in shard order."""
    offsets = np.cumsum([0] + [len(p.returns) for p in parts[:-1]])
    out = {}
    for field in dataclasses.fields(parts[0]):
        values = [getattr(p, field.name) for p in parts]
        if field.name == "games":
            out["games"] = np.concatenate([g + o for g, o in zip(values, offsets)])
        elif isinstance(values[0], dict):
            out[field.name] = {k: np.concatenate([v[k] for v in values]) for k in values[0]}
        else:
            out[field.name] = np.concatenate(values)
    if "obs" in out:
        out["obs"] = out["obs"].astype(np.float32, copy=False)
    return type(parts[0])(**out)


@dataclass(frozen=True)
class Shard:
    """One shard of a self-play batch, everything a worker process needs to play it."""

    self_play: Callable  # a module-level function: self_play(game, *args, num_games=N, rng=R) -> batch
    game_name: str
    game_config: dict
    args: tuple  # numpy networks and settings, no TensorFlow
    num_games: int
    seed: int
    parent_pid: int  # the training's process: a worker elsewhere leaves Ctrl-C to it


def play_shard(shard: Shard):
    """The shard's batch, from its seed alone."""
    worker = in_worker(shard.parent_pid)
    if worker:
        single_threaded_blas()  # as the numpy networks made in the training's process
    game = shard_game(shard.game_name, shard.game_config)
    batch = shard.self_play(game, *shard.args, num_games=shard.num_games, rng=np.random.default_rng(shard.seed))
    if worker:
        batch.obs = compact(batch.obs)
    return batch


def play_in_shards(
    mapper,
    self_play: Callable,
    game: Game,
    game_config: dict,
    args: tuple,
    num_games: int,
    shards: int,
    rng: np.random.Generator,
    **here,
):
    """`self_play(game, *args, num_games=num_games, rng=rng, **here)` in this process with one
    shard (`here`: what cannot go to a worker, such as a `should_stop`); else `shards` shards with
    seeds drawn from `rng`, played by `mapper(func, items)` and joined in order."""
    if shards == 1:
        return self_play(game, *args, num_games=num_games, rng=rng, **here)
    pid = os.getpid()
    items = [
        (Shard(self_play, game.name, dict(game_config), args, size, seed, pid),)
        for size, seed in zip(shard_sizes(num_games, shards), shard_seeds(rng, shards))
    ]
    return join_games(mapper(play_shard, items))
