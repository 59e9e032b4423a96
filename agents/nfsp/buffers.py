"""NFSP's two memories, numpy arrays (no TensorFlow).

- `transition_replay`: the learners' ring buffer (agents/learning/replay.py) of (s, a, r, s', legal
  mask of s', done) for Q-learning; the newest transitions overwrite the oldest.
- `Reservoir`: the best response's own (s, a, legal mask of s) for the average policy, kept by
  reservoir sampling (Vitter's algorithm R): after n insertions every one of them is in the
  reservoir with the same probability capacity / n, so the average policy imitates the average of
  all past best responses, not the latest ones.
"""

from __future__ import annotations

import numpy as np

from agents.learning.replay import ReplayBuffer


def transition_replay(capacity: int, observation_size: int, num_actions: int) -> ReplayBuffer:
    """The best response's circular replay of (s, a, r, s', legal mask of s', done)."""
    columns = {
        "obs": ((observation_size,), np.float32),
        "actions": ((), np.int32),
        "rewards": ((), np.float32),
        "next_obs": ((observation_size,), np.float32),
        "next_masks": ((num_actions,), bool),
        "done": ((), np.float32),
    }
    return ReplayBuffer(capacity, columns, prefix="rl_")


class Reservoir(ReplayBuffer):
    """The replay's columns, filled by reservoir sampling instead of as a ring."""

    def __init__(self, capacity: int, observation_size: int, num_actions: int):
        columns = {"obs": ((observation_size,), np.float32), "actions": ((), np.int32), "masks": ((num_actions,), bool)}
        super().__init__(capacity, columns, prefix="sl_")
        self.seen = 0  # insertions so far

    def add(self, data: dict[str, np.ndarray], rng: np.random.Generator) -> None:
        """Algorithm R: the i-th insertion (from 0) takes slot i while there is room, else replaces
        slot j ~ U{0..i} if j < capacity. Vectorised; of two insertions into one slot the later wins."""
        n = len(data["actions"])
        if n == 0:
            return
        index = self.seen + np.arange(n)
        draws = rng.integers(0, index + 1)
        slots = np.where(index < self.capacity, index, draws)
        rows = np.nonzero(slots < self.capacity)[0]
        slots = slots[rows]
        _, last = np.unique(slots[::-1], return_index=True)  # the last insertion into each slot
        keep = len(slots) - 1 - last
        self.write(slots[keep], rows[keep], data)
        self.seen += n
        self.size = min(self.capacity, self.seen)

    def state(self) -> dict:
        return {"size": self.size, "seen": self.seen}

    def restore(self, arrays, size: int, seen: int) -> None:
        self.restore_rows(arrays, size)
        self.seen = seen
