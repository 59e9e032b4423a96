"""NFSP's two memories, numpy arrays (no TensorFlow).

- `TransitionReplay`: a circular buffer of (s, a, r, s', legal mask of s', done) for Q-learning;
  the newest transitions overwrite the oldest.
- `Reservoir`: the best response's own (s, a, legal mask of s) for the average policy, kept by
  reservoir sampling (Vitter's algorithm R): after n insertions every one of them is in the
  reservoir with the same probability capacity / n, so the average policy imitates the average of
  all past best responses, not the latest ones.
"""

from __future__ import annotations

import numpy as np


class _Arrays:
    """Named numpy columns of a fixed capacity, with checkpoint helpers."""

    prefix = ""

    def __init__(self, capacity: int, columns: dict[str, tuple[tuple[int, ...], type]]):
        self.capacity = capacity
        self.columns = {name: np.zeros((capacity, *shape), dtype=dtype) for name, (shape, dtype) in columns.items()}
        self.size = 0

    def __len__(self) -> int:
        return self.size

    def write(self, slots: np.ndarray, rows: np.ndarray, data: dict[str, np.ndarray]) -> None:
        for name, column in self.columns.items():
            column[slots] = data[name][rows]

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> dict[str, np.ndarray]:
        rows = rng.integers(0, self.size, size=shape)
        return {name: column[rows] for name, column in self.columns.items()}

    def arrays(self) -> dict[str, np.ndarray]:
        return {f"{self.prefix}{name}": column[: self.size] for name, column in self.columns.items()}

    def restore_arrays(self, arrays, size: int) -> None:
        if not 0 <= size <= self.capacity:
            raise ValueError(f"{size} rows do not fit a capacity of {self.capacity}")
        for name, column in self.columns.items():
            column[:size] = arrays[f"{self.prefix}{name}"]
        self.size = size


class TransitionReplay(_Arrays):
    prefix = "rl_"

    def __init__(self, capacity: int, observation_size: int, num_actions: int):
        super().__init__(
            capacity,
            {
                "obs": ((observation_size,), np.float32),
                "actions": ((), np.int32),
                "rewards": ((), np.float32),
                "next_obs": ((observation_size,), np.float32),
                "next_masks": ((num_actions,), bool),
                "done": ((), np.float32),
            },
        )
        self.pos = 0  # next row to write

    def add(self, data: dict[str, np.ndarray]) -> None:
        n = len(data["obs"])
        rows = np.arange(max(0, n - self.capacity), n)  # more than fit: keep the newest
        slots = (self.pos + np.arange(len(rows))) % self.capacity
        self.write(slots, rows, data)
        self.pos = int((self.pos + len(rows)) % self.capacity)
        self.size = min(self.capacity, self.size + len(rows))

    def state(self) -> dict:
        return {"size": self.size, "pos": self.pos}

    def restore(self, arrays, state: dict) -> None:
        if not 0 <= state["pos"] < self.capacity:
            raise ValueError(f"replay position {state['pos']} outside a capacity of {self.capacity}")
        self.restore_arrays(arrays, state["size"])
        self.pos = state["pos"]


class Reservoir(_Arrays):
    prefix = "sl_"

    def __init__(self, capacity: int, observation_size: int, num_actions: int):
        super().__init__(
            capacity,
            {"obs": ((observation_size,), np.float32), "actions": ((), np.int32), "masks": ((num_actions,), bool)},
        )
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

    def restore(self, arrays, state: dict) -> None:
        self.restore_arrays(arrays, state["size"])
        self.seen = state["seen"]
