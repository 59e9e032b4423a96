"""Stopping a long run between its steps, and inside one.

    with StopOnSignal(log) as stop:      # first Ctrl-C or SIGTERM: stop() turns True; second: abort
        while not stop():
            ...one batch or generation...

A step that can run for minutes (AlphaZero's searches) reads the same `should_stop` callable during
it and raises `BatchAbandoned`, its state untouched; the training loop (agents/learning/loop.py)
then keeps the last batch's state.
"""

from __future__ import annotations

import signal


class BatchAbandoned(Exception):
    """A search (or a learner's `step()`, agents/learning/loop.py) stopped by its `should_stop` before
    it was done (a batch that can run for minutes: AlphaZero's searches); the learner's state,
    generator included, is as before it."""


class StopOnSignal:
    """First Ctrl-C or SIGTERM: ask the run to stop after `after` (the current batch; `log`, if
    given, says so). Second: abort (KeyboardInterrupt). `why` says which signal it was."""

    def __init__(self, log, after: str = "this batch (saving a checkpoint)"):
        self.requested = False
        self.why = "interrupted"
        self._log = log
        self._after = after
        self._previous = {}

    def __call__(self) -> bool:
        return self.requested

    def __enter__(self) -> StopOnSignal:
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                self._previous[sig] = signal.signal(sig, self._handle)
            except ValueError:  # not the main thread: no handlers, Ctrl-C aborts as usual
                pass
        return self

    def _handle(self, signum, frame):
        if signum == signal.SIGTERM:
            self.why = "terminated (SIGTERM)"
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        if self._log is not None:
            self._log(f"stopping after {self._after}; Ctrl-C again to abort")

    def __exit__(self, *exc) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
