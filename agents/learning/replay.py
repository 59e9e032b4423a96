"""The replay buffer of every learner: named numpy columns of a fixed capacity, filled as a ring (the
newest rows overwrite the oldest) and sampled uniformly with the learner's generator. A checkpoint
holds its filled rows (`arrays()`, each column's name after a prefix) and its `state()`."""

from __future__ import annotations

import numpy as np

Columns = dict[str, tuple[tuple[int, ...], type]]  # name -> (shape of one row, dtype)


class ReplayBuffer:
    def __init__(self, capacity: int, columns: Columns, prefix: str = "replay_"):
        self.capacity = capacity
        self.prefix = prefix
        self.columns = {name: np.zeros((capacity, *shape), dtype=dtype) for name, (shape, dtype) in columns.items()}
        self.size = 0
        self.pos = 0  # the next row to write

    def __len__(self) -> int:
        return self.size

    def add(self, data: dict[str, np.ndarray]) -> None:
        """Rows of every column (more than fit: the newest)."""
        n = len(next(iter(data.values())))
        rows = np.arange(max(0, n - self.capacity), n)
        slots = (self.pos + np.arange(len(rows))) % self.capacity
        self.write(slots, rows, data)
        self.pos = int((self.pos + len(rows)) % self.capacity)
        self.size = min(self.capacity, self.size + len(rows))

    def write(self, slots: np.ndarray, rows: np.ndarray, data: dict[str, np.ndarray]) -> None:
        for name, column in self.columns.items():
            column[slots] = data[name][rows]

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> dict[str, np.ndarray]:
        """Rows drawn uniformly with replacement, as arrays of `shape` rows."""
        rows = rng.integers(0, self.size, size=shape)
        return {name: column[rows] for name, column in self.columns.items()}

    def arrays(self) -> dict[str, np.ndarray]:
        """The filled rows, for a checkpoint."""
        return {f"{self.prefix}{name}": column[: self.size] for name, column in self.columns.items()}

    def state(self) -> dict:
        return {"size": self.size, "pos": self.pos}

    def restore(self, arrays, size: int, pos: int) -> None:
        """Refill from a checkpoint's `arrays()` and `state()`; ValueError if they do not fit."""
        if not 0 <= pos < self.capacity:
            raise ValueError(f"replay position {pos} does not fit a capacity of {self.capacity}")
        self.restore_rows(arrays, size)
        self.pos = pos

    def restore_rows(self, arrays, size: int) -> None:
        if not 0 <= size <= self.capacity:
            raise ValueError(f"{size} rows do not fit a capacity of {self.capacity}")
        for name, column in self.columns.items():
            column[:size] = arrays[f"{self.prefix}{name}"]
        self.size = size
