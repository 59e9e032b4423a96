"""TensorFlow, imported once without its C++ start-up lines.

TensorFlow writes absl's and oneDNN's start-up lines straight to the process's standard error
(file descriptor 2) while it is imported, whatever `TF_CPP_MIN_LOG_LEVEL` says in recent builds.
A command's standard error is for its own progress and its one-line errors, so the first import is
made with descriptor 2 pointed at the null device; the import's own errors still raise.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def import_tensorflow():
    """The `tensorflow` module, imported quietly the first time."""
    if "tensorflow" not in sys.modules:
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            with open(os.devnull, "w") as sink:
                os.dup2(sink.fileno(), 2)
                import tensorflow  # noqa: F401
        finally:
            os.dup2(saved, 2)
            os.close(saved)
    return sys.modules["tensorflow"]
