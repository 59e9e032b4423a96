"""The one `map` of the evolution: joblib on local processes (loky) or on a Dask cluster.

    with Mapper(jobs=2) as pmap:                       # local worker processes
        results = pmap(play_task, tasks, on_result=bar.update)
    with Mapper(backend="dask", scheduler="tcp://host:8786") as pmap:   # a Dask cluster
        ...

Results come back in task order whatever the backend, so a run gives the same numbers on one core,
two, or a cluster. `jobs=1` with loky runs in this process (no pickling). With `backend="dask"` and
no scheduler address, a local Dask cluster of `jobs` worker processes is started for the run.
Workers import numpy, games and agents only: tasks carry numpy agents, never TensorFlow models.
"""
from __future__ import annotations

import contextlib
from typing import Callable, Iterable

from games.errors import UserError


class Mapper:
    def __init__(self, jobs: int = 1, backend: str = "loky", scheduler: str | None = None, cluster=None):
        if scheduler and backend != "dask":
            backend = "dask"  # an address only makes sense for Dask
        if backend not in ("loky", "dask"):
            raise UserError(f"unknown backend {backend!r}; use loky or dask")
        self.jobs = max(1, int(jobs))
        self.backend = backend
        self.scheduler = scheduler
        self._cluster = cluster  # an existing dask cluster/client address object (tests)
        self._client = None
        self._own_cluster = None
        self._stack = contextlib.ExitStack()

    def describe(self) -> str:
        if self.backend == "dask":
            where = self.scheduler or (getattr(self._client, "scheduler", None) and self._client.scheduler.address)
            return f"dask ({where or 'local cluster'})"
        return f"loky ({self.jobs} process{'es' if self.jobs > 1 else ''})" if self.jobs > 1 else "in-process (1 job)"

    def __enter__(self) -> "Mapper":
        if self.backend == "dask":
            try:
                from dask.distributed import Client, LocalCluster
            except ImportError:
                raise UserError("the dask backend needs dask and distributed: pip install 'deckopt[dask]'") from None
            try:
                if self._cluster is not None:
                    self._client = Client(self._cluster)
                elif self.scheduler:
                    self._client = Client(self.scheduler, timeout=10)
                else:
                    self._own_cluster = LocalCluster(n_workers=self.jobs, threads_per_worker=1, processes=True,
                                                     dashboard_address=None)
                    self._client = Client(self._own_cluster)
            except (OSError, TimeoutError) as exc:
                raise UserError(f"cannot reach the Dask scheduler {self.scheduler!r}: {exc}") from None
        return self

    def __exit__(self, *exc) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._own_cluster is not None:
            self._own_cluster.close()
            self._own_cluster = None

    def __call__(self, func: Callable, items: Iterable[tuple], on_result: Callable | None = None, scatter=None) -> list:
        """[func(*args) for args in items], in order, spread over the workers; `on_result(i, result)`
        is called as results arrive (in order). `scatter`: objects passed as a top-level argument of
        many items (the agent), sent once to each Dask worker instead of with every task."""
        import joblib

        items = list(items)
        if not items:
            return []
        if self.backend == "loky" and self.jobs == 1:
            out = []
            for i, x in enumerate(items):
                out.append(func(*x))
                if on_result is not None:
                    on_result(i, out[-1])
            return out
        if self.backend == "dask":
            if self._client is None:
                raise RuntimeError("use the Mapper as a context manager for the dask backend")
            config = joblib.parallel_config(backend="dask", scatter=scatter or None, wait_for_workers_timeout=60)
            n_jobs = -1
        else:
            config = joblib.parallel_config(backend="loky", inner_max_num_threads=1)
            n_jobs = self.jobs
        out = []
        with config:
            parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator", batch_size=1, pre_dispatch="all")
            for i, result in enumerate(parallel(joblib.delayed(func)(*x) for x in items)):
                out.append(result)
                if on_result is not None:
                    on_result(i, result)
        return out
