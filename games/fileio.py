"""Atomic file writes (temp file + rename): an interrupted run never leaves a torn file; and the
check that a folder can be written before any work starts.

Used by every package that writes run folders, deck files or checkpoints."""

from __future__ import annotations

import errno
import json
import math
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


def finite_json(obj):
    """`obj` with every float that is not finite (NaN, an infinity) as None: what strict JSON holds,
    for files and output that other programs read."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite_json(v) for v in obj]
    return obj


def atomic_write_json(path: str | os.PathLike, obj, indent: int | None = 1) -> None:
    atomic_write_text(path, json.dumps(obj, indent=indent) + "\n")


#: errors of writing a file that are the machine's or the user's (a full disk, a read-only folder, no
#: permission), not a bug
DISK_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG})
_PROBE_BYTES = 64 * 1024


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
    probe = None
    try:
        fd, probe = tempfile.mkstemp(dir=existing, prefix=".write-test.")
        with os.fdopen(fd, "wb") as f:  # a few blocks: an empty file fits even on a full disk
            f.write(b"\0" * _PROBE_BYTES)
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        raise UserError(f"{what} {str(path)!r} cannot be written: {exc.strerror}") from None
    finally:
        if probe is not None and os.path.exists(probe):
            os.unlink(probe)
    return path
