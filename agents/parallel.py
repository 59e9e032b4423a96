"""The one `map` of the project (self-play shards, deck evaluation, studies): joblib on local
processes (loky), or a Dask cluster.

    with Mapper(jobs=2) as pmap:                       # local worker processes
        results = pmap(play_task, tasks, on_result=done)
    with Mapper(backend="dask", scheduler="tcp://host:8786") as pmap:   # a Dask cluster
        ...

Results come back in task order whatever the backend, so a run gives the same numbers on one core,
two, or a cluster. `jobs=1` with loky runs in this process (no pickling). With `backend="dask"` and
no scheduler address, a local Dask cluster of `jobs` worker processes is started for the run.
Workers import numpy, games and agents only: tasks carry numpy agents, never TensorFlow models.

Stopping cleanly: a task that takes longer than `task_timeout` seconds (a hung or stopped worker)
or a worker that dies ends the map with `WorkerFailure` (one line); on any exception, Ctrl-C
included, the worker processes are killed, and a loky worker also exits by itself when the run's
process disappears (kill -9), so no orphan keeps running. Dask is driven through its own client
(submit + one scatter of the agent per map's lifetime) rather than joblib's Dask backend, whose
per-call scatter of an identical agent raced with the release of the previous call's copy
("lost dependencies").
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from collections.abc import Callable, Iterable

from games.config import DEFAULT_TASK_TIMEOUT, check_jobs
from games.errors import UserError


class WorkerFailure(RuntimeError):
    """A worker process died or hung; the message is one line saying which."""


class Mapper:
    def __init__(
        self,
        jobs: int = 1,
        backend: str = "loky",
        scheduler: str | None = None,
        cluster=None,
        task_timeout: float | None = DEFAULT_TASK_TIMEOUT,
    ):
        if scheduler and backend != "dask":
            backend = "dask"  # an address only makes sense for Dask
        if backend not in ("loky", "dask"):
            raise UserError(f"unknown backend {backend!r}; use loky or dask")
        self.jobs = check_jobs(jobs)
        self.backend = backend
        self.scheduler = scheduler
        self.task_timeout = task_timeout
        self._cluster = cluster  # an existing dask cluster (tests)
        self._client = None
        self._own_cluster = None
        self._scattered: dict[int, tuple[object, object]] = {}
        self._loky_executor = None  # the loky executor of this Mapper's last finished map

    def describe(self) -> str:
        if self.backend == "dask":
            where = self.scheduler or (getattr(self._client, "scheduler", None) and self._client.scheduler.address)
            return f"dask ({where or 'local cluster'})"
        return f"loky ({self.jobs} process{'es' if self.jobs > 1 else ''})" if self.jobs > 1 else "in-process (1 job)"

    def __enter__(self) -> Mapper:
        if self.backend == "dask":
            self._start_dask()
        return self

    def _start_dask(self) -> None:
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
                self._own_cluster = LocalCluster(
                    n_workers=self.jobs, threads_per_worker=1, processes=True, dashboard_address=None
                )
                self._client = Client(self._own_cluster)
        except (OSError, TimeoutError) as exc:
            raise UserError(f"cannot reach the Dask scheduler {self.scheduler!r}: {exc}") from None

    def __exit__(self, exc_type, *exc) -> None:
        if self.backend == "loky" and self.jobs > 1:
            # on every exit: an idle worker left running (or stopped) would outlive the run
            kill_loky_workers()
        self._scattered.clear()
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
        results = self._dask(func, items, scatter) if self.backend == "dask" else self._loky(func, items)
        out = []
        try:
            for i, result in enumerate(results):
                out.append(result)
                if on_result is not None:
                    on_result(i, result)
        finally:
            results.close()  # now, not when a traceback lets go of it: stops the dispatch of what is left
        return out

    def _loky(self, func: Callable, items: list[tuple]):
        import joblib
        from joblib.externals.loky.process_executor import BrokenProcessPool

        _hide_loky_kill_race()
        _quiet_loky_resource_tracker()
        _spawn_workers_in_own_process_group()
        if self._loky_executor is not None and _loky_broken():  # a worker died between two maps of this run
            kill_loky_workers()
            raise WorkerFailure("a worker process died; the run was stopped")
        watchdog = _Watchdog(self.task_timeout)
        results = None
        # the initializer runs as each worker starts, so even a worker that never gets a task watches
        # for the run's death
        config = joblib.parallel_config(
            backend="loky", inner_max_num_threads=1, initializer=_watch_parent, initargs=(os.getpid(),)
        )
        with config, watchdog:
            try:
                # max_nbytes=None: no memmapping (our arguments are small), so no temporary folder that a
                # Ctrl-C could leave behind for loky's resource tracker to warn about after the run stopped
                parallel = joblib.Parallel(
                    n_jobs=self.jobs, return_as="generator", batch_size=1, pre_dispatch="all", max_nbytes=None
                )
                results = parallel(joblib.delayed(func)(*x) for x in items)
                for result in results:
                    watchdog.reset()
                    yield result
                executor = _loky_executor()
                if self._loky_executor is not None and executor is not self._loky_executor:
                    # joblib replaces a broken executor without a word: a worker died between two maps
                    # (seen only now when its death was noticed after this map's check above)
                    kill_loky_workers()
                    raise WorkerFailure("a worker process died; the run was stopped")
                self._loky_executor = executor
            except Exception as exc:
                kill_loky_workers()
                if watchdog.fired:  # whatever joblib raised once the workers were killed
                    raise WorkerFailure(self._timeout_message()) from None
                if not isinstance(exc, BrokenProcessPool):  # loky's TerminatedWorkerError is one
                    raise
                codes = re.search(r"exit codes of the workers are (\{.*?\})", str(exc))
                raise WorkerFailure(
                    "a worker process died"
                    + (f" (exit codes {codes.group(1)})" if codes else "")
                    + "; the run was stopped"
                ) from None
            finally:
                if results is not None:
                    results.close()

    def _dask(self, func: Callable, items: list[tuple], scatter):
        if self._client is None:
            raise RuntimeError("use the Mapper as a context manager for the dask backend")
        client = self._client
        for obj in scatter or []:
            if id(obj) not in self._scattered:
                # kept for the Mapper's lifetime: every call of a run reuses the one copy on the workers
                self._scattered[id(obj)] = (obj, client.scatter(obj, broadcast=True, hash=False))
        sent = {k: fut for k, (_, fut) in self._scattered.items()}
        futures = [client.submit(func, *(sent.get(id(a), a) for a in x), pure=False) for x in items]
        try:
            for f in futures:
                try:
                    yield f.result(timeout=self.task_timeout)
                except TimeoutError:
                    raise WorkerFailure(self._timeout_message()) from None
        finally:
            client.cancel(futures)

    def _timeout_message(self) -> str:
        return (
            f"a work unit took longer than {self.task_timeout:g} s (a stopped or hung worker process?); the run "
            "was stopped (raise the task timeout, the setting task_timeout, if work units are really that long)"
        )


def group_by_games(items: list, games_per_task: int) -> list[list]:
    """Consecutive items (each with a `.games` count) in groups of at least `games_per_task` games (an
    item is never split; the last group may hold fewer): fixed by the items alone, never by the workers."""
    groups, current, games = [], [], 0
    for item in items:
        current.append(item)
        games += item.games
        if games >= games_per_task:
            groups.append(current)
            current, games = [], 0
    if current:
        groups.append(current)
    return groups


def map_tasks(worker: Callable, tasks: list[tuple], mapper, agent, progress=None, what: str = "games") -> list:
    """`worker(agent, task)` for every `(agent, task)` pair of `tasks` through `mapper`, in order (the
    agent scattered once to the workers); `progress(done, total, what)` counts `task.games` as each
    task finishes."""
    total, done = sum(task.games for _, task in tasks), 0
    if progress is not None:
        progress(0, total, what)

    def on_result(i, result):
        nonlocal done
        done += tasks[i][1].games
        if progress is not None:
            progress(done, total, what)

    return mapper(worker, tasks, on_result=on_result, scatter=[agent])


def kill_loky_workers() -> None:
    """Kill the worker processes of joblib's reusable loky executor, if any (no new one is made).
    SIGKILL, which also ends a stopped (SIGSTOP) worker, unlike loky's own SIGTERM."""
    import signal

    from joblib.externals.loky import reusable_executor

    executor = getattr(reusable_executor, "_executor", None)
    if executor is None:
        return
    for pid in list((getattr(executor, "_processes", None) or {}).keys()):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    executor.shutdown(wait=False, kill_workers=True)


class _Watchdog:
    """Kills the loky workers when no task has finished for `timeout` seconds (a stopped or hung
    worker): the map then fails with a broken pool instead of waiting for ever, whatever joblib
    was waiting on at the time."""

    def __init__(self, timeout: float | None):
        self.timeout = timeout
        self.fired = False
        self._last = time.monotonic()
        self._done = threading.Event()

    def reset(self) -> None:
        self._last = time.monotonic()

    def __enter__(self) -> _Watchdog:
        if self.timeout:
            self.reset()
            threading.Thread(target=self._watch, name="deckopt-task-timeout", daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()

    def _watch(self) -> None:
        interval = min(1.0, self.timeout / 4)
        woke = time.monotonic()
        while not self._done.wait(interval):
            now = time.monotonic()
            if now - woke > interval + 2.0:
                # this process itself was stopped (Ctrl-Z, a suspended machine) and its workers with it:
                # that time is nobody's fault, so it does not count against the task
                self._last += now - woke - interval
            woke = now
            if now - self._last > self.timeout:
                self.fired = True
                kill_loky_workers()
                return


def _loky_executor():
    """joblib's reusable loky executor (None before the first)."""
    from joblib.externals.loky import reusable_executor

    return getattr(reusable_executor, "_executor", None)


def _loky_broken() -> bool:
    executor = _loky_executor()
    return executor is not None and bool(getattr(getattr(executor, "_flags", None), "broken", None))


_TRACKER_WARNINGS = "ignore::UserWarning:joblib.externals.loky.backend.resource_tracker"


def _quiet_loky_resource_tracker() -> None:
    """loky's resource tracker (a process of its own, started with the first pool) warns on stderr when
    a signal stops a run while it still holds a semaphore or folder of the pool (already gone, or left
    for it to clean): noise after our one-line message. It inherits this filter from the environment."""
    filters = os.environ.get("PYTHONWARNINGS", "")
    if _TRACKER_WARNINGS not in filters.split(","):
        os.environ["PYTHONWARNINGS"] = ",".join(f for f in (filters, _TRACKER_WARNINGS) if f)


def _hide_loky_kill_race() -> None:
    """Silence one known loky race, once per process: when its executor is shut down with
    kill_workers (Ctrl-C, a dead worker, our own kill) while tasks are queued, its manager thread
    drops the pending work and then looks one of them up (KeyError), printing a thread traceback
    after the run has already stopped cleanly. Any other thread exception is reported as usual."""
    if getattr(threading.excepthook, "_deckopt", False):
        return
    previous = threading.excepthook

    def hook(args):
        flags = getattr(args.thread, "executor_flags", None)
        if args.exc_type is KeyError and getattr(flags, "kill_workers", False):
            return
        previous(args)

    hook._deckopt = True
    threading.excepthook = hook


_parent_watch_started = False


#: the Popen of every worker process started (kept, so that no Popen is collected and reaps a worker
#: before loky does)
_workers_started: list = []


def _spawn_workers_in_own_process_group() -> None:
    """Make loky start each worker in a process group of its own: a Ctrl-C sent to the run's process
    group (a terminal's) reaches the run, which stops at its next checkpoint and ends its workers, and
    never a worker, not even while it is still importing. The run's own SIGINT handler stays in place
    throughout, so no Ctrl-C is lost, whenever it lands. A worker still ends with the run's process
    (`_watch_parent`)."""
    import subprocess

    from joblib.externals.loky.backend import fork_exec as module

    if getattr(module.fork_exec, "_deckopt", False):
        return

    def fork_exec(cmd, keep_fds, env=None):
        worker = subprocess.Popen(
            cmd, pass_fds=tuple(keep_fds), env={**os.environ, **(env or {})}, close_fds=True, process_group=0
        )
        _workers_started.append(worker)
        return worker.pid

    fork_exec._deckopt = True
    module.fork_exec = fork_exec


def _watch_parent(parent: int, interval: float = 0.5) -> None:
    """The initializer of every loky worker: a thread that ends the worker once `parent` (the run's
    process, passed in: it may already be gone when a worker starts) is no longer its parent, whether
    or not a task is running."""
    global _parent_watch_started
    if _parent_watch_started:
        return
    _parent_watch_started = True

    def watch():
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(1)  # the run's process is gone (kill -9): nothing will ever ask for results again

    threading.Thread(target=watch, name="deckopt-parent-watch", daemon=True).start()
