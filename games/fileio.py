"""Reading and writing the files of run folders, deck files and checkpoints.

    with open_for_reading(path, "model", max_bytes=512 * MB) as f: ...   # regular files only, capped
    raw = read_file_bytes(path, "run file", max_bytes, inside=run_folder)
    atomic_write_json(path, obj)                                         # temp file + rename

Every file read as data is opened by `open_for_reading`: a regular file only (a FIFO, a device or a
socket is refused before it is opened, so no read ever waits on one), no link leading out of the
folder it is read from, and its size checked against a cap of its kind before a byte is read. Every
file written goes through a temp file renamed over its name: an interrupted run never leaves a torn
file, and the rename replaces a link at that name instead of writing through it. And the check that
a folder can be written before any work starts."""

from __future__ import annotations

import errno
import json
import math
import os
import stat
import tempfile
from pathlib import Path

from games.errors import UserError

MB = 1 << 20


def open_for_reading(path: str | os.PathLike, what: str, max_bytes: int, inside: str | os.PathLike | None = None):
    """The regular file at `path`, open for reading in binary mode. UserError in one line, before a
    byte is read, when it is missing, a folder, not a regular file (a FIFO, a device, a socket: never
    opened, so never waited on), a link leading out of folder `inside` (when given), or larger than
    `max_bytes`."""
    path = Path(path)
    where = f"{what} {str(path)!r}"
    try:
        _check_regular(os.stat(path), where)
        if inside is not None and not _within(path, Path(inside)):
            raise UserError(f"{where} is a link leading out of its folder {str(inside)!r}; not read")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise UserError(f"{where} not found") from None
    except OSError as exc:
        raise UserError(f"{where} cannot be read: {exc.strerror}") from None
    try:
        opened = os.fstat(fd)
        _check_regular(opened, where)  # replaced between the check and the opening
        if opened.st_size > max_bytes:
            raise UserError(f"{where} is too large ({opened.st_size} bytes; at most {max_bytes})")
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_file_bytes(
    path: str | os.PathLike, what: str, max_bytes: int, inside: str | os.PathLike | None = None
) -> bytes:
    """The bytes of the regular file at `path`, opened by `open_for_reading` (same refusals); also
    refused when it grows past `max_bytes` while read."""
    with open_for_reading(path, what, max_bytes, inside) as f:
        raw = f.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise UserError(f"{what} {str(path)!r} is too large (more than {max_bytes} bytes)")
    return raw


def _check_regular(status: os.stat_result, where: str) -> None:
    if stat.S_ISDIR(status.st_mode):
        raise UserError(f"{where} is a folder, not a file")
    if not stat.S_ISREG(status.st_mode):
        raise UserError(f"{where} is not a regular file (a FIFO, a device or a socket); not read")


def _within(path: Path, folder: Path) -> bool:
    """Whether `path`, its links followed, lies inside `folder` (its links followed)."""
    real, base = os.path.realpath(path), os.path.realpath(folder)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


#: the folder holding the installed packages (the repository root of a source checkout) and the
#: decks and agents shipped with them
INSTALL_ROOT = Path(__file__).resolve().parents[1]
#: the folders of INSTALL_ROOT whose files settings and named agents refer to by relative path
SHIPPED_FOLDERS = ("decks", "agents/pretrained")


def resolve_path(path: str | os.PathLike) -> Path:
    """The file or folder a setting, a named agent or the command line names. A relative path into
    the shipped folders (`decks/yardstick`, `agents/pretrained/gwent_lite_evaluator_0.npz`) that the
    installation holds is the installation's, whatever the current folder holds: a folder's own
    copies are used only when named as such (`./decks/...`, an absolute path). Any other path is
    taken as given when it exists, else from the installation when it holds it."""
    text = os.fspath(path)
    p = Path(text).expanduser()
    if p.is_absolute() or text.startswith(("./", "../", "~")):
        return p
    shipped = INSTALL_ROOT / p
    if any(p.is_relative_to(folder) for folder in SHIPPED_FOLDERS) and shipped.exists():
        return shipped
    return p if p.exists() or not shipped.exists() else shipped


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
