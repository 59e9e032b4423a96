"""Atomic file writes (temp file + rename): an interrupted run never leaves a torn file.

Used by every package that writes run folders, deck files or checkpoints."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from games.errors import UserError


def _read_umask() -> int:
    mask = os.umask(0)  # the only way to read it; done once at import, not per write (not thread-safe)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; give the usual permissions of a new file
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | os.PathLike, obj, indent: int | None = 1) -> None:
    atomic_write_text(path, json.dumps(obj, indent=indent) + "\n")


def check_writable_dir(path: str | os.PathLike, what: str = "output folder") -> Path:
    """Prove, before any work starts, that files can be written in folder `path` (made later, if it
    does not exist yet), so finished work is never lost to a folder that cannot hold it. Creates
    nothing: a probe file in the nearest existing folder is written and removed. UserError in one line."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise UserError(f"{what} {str(path)!r} is a file, not a folder")
    existing = path.absolute()
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise UserError(f"{what} {str(path)!r} cannot be made: {str(existing)!r} is a file")
    try:
        fd, probe = tempfile.mkstemp(dir=existing, prefix=".write-test.")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UserError(f"{what} {str(path)!r} cannot be written: {exc.strerror}") from None
    return path
