"""One writer per folder: an exclusive lock held for as long as a command writes a run folder.

    with folder_lock("runs/evo", what="run folder"):
        ...  # check the folder, then write the run

The lock is `fcntl.flock` on OUT/.deckopt.lock, a file that holds the writer's pid while it writes.
The kernel releases the lock when its process ends, however it ends (kill -9 included), so the lock
of a dead process is never in the way: the next writer takes it over. A second writer is refused
with a UserError in one line naming the holder's pid. Within one process the lock is re-entrant
(a command and the library function it calls may both lock the same folder). A lock covers the
folder's sub-folders too: a folder inside one that another process holds is refused the same way
(a sweep's runs while the sweep writes them), unless that process started this one to write there
(the commands `deckopt evaluator` runs in its folder). The lock file goes when the lock is released, and so
does a folder the lock made that stayed empty.

The lock file is data like the rest of the folder: it is opened without following a symbolic link,
and anything at its place that is not a regular file of one name (a link, a hard link to another
file, a FIFO, a device) is refused in one line before a byte is written, so a folder received from
anyone never makes the lock write through to another file.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from games.errors import UserError

#: the lock file inside a locked folder (not part of the folder's content)
LOCK_NAME = ".deckopt.lock"
#: how long a refused writer waits for the holder to write its pid (it locks first, then writes)
_PID_WAIT = 0.5

#: folders this process holds: resolved path -> (lock file descriptor, depth of nested holds)
_held: dict[Path, list[int]] = {}


def folder_entries(path: str | os.PathLike) -> list[str]:
    """The names in folder `path`, its lock file aside."""
    return [name for name in os.listdir(path) if name != LOCK_NAME]


@contextlib.contextmanager
def folder_lock(path: str | os.PathLike, what: str = "run folder", create: bool = True) -> Iterator[Path]:
    """Hold the exclusive lock of folder `path` for the `with` block; yields the folder. With
    `create`, a missing folder is made (and removed again at the end if it stayed empty); without,
    a missing folder is not locked (the caller reports it missing). UserError in one line when
    another process holds the lock, or the folder cannot be locked."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise UserError(f"{what} {str(folder)!r} is a file, not a folder")
    if not folder.exists() and not create:
        yield folder
        return
    key = folder.resolve()
    if key in _held:
        _held[key][1] += 1
        try:
            yield folder
        finally:
            _held[key][1] -= 1
        return
    made = _make_folders(folder, what)
    try:
        _check_enclosing(key, folder, what)
        fd = _acquire(folder, what)
    except BaseException:
        _remove_if_empty(made)
        raise
    _held[key] = [fd, 1]
    try:
        yield folder
    finally:
        del _held[key]
        _release(folder, fd)
        _remove_if_empty(made)


def _make_folders(folder: Path, what: str) -> list[Path]:
    """Make `folder` and its missing parents; the folders made, innermost first."""
    missing = []
    p = folder.absolute()
    while not p.exists():
        missing.append(p)
        p = p.parent
    if not p.is_dir():
        raise UserError(f"{what} {str(folder)!r} cannot be made: {str(p)!r} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{what} {str(folder)!r} cannot be written: {exc.strerror}") from None
    return missing


def _remove_if_empty(made: list[Path]) -> None:
    for p in made:  # innermost first: a parent is empty only once its child is gone
        try:
            p.rmdir()
        except OSError:
            return


def _acquire(folder: Path, what: str) -> int:
    lock = folder / LOCK_NAME
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            if os.path.islink(lock):
                raise UserError(f"{what} {str(folder)!r}: its lock file {LOCK_NAME} is a link; remove it") from None
            raise UserError(f"{what} {str(folder)!r} cannot be written: {exc.strerror}") from None
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode) or opened.st_nlink != 1:
            os.close(fd)
            kind = "a hard link to another file" if stat.S_ISREG(opened.st_mode) else "not a regular file"
            raise UserError(f"{what} {str(folder)!r}: its lock file {LOCK_NAME} is {kind}; remove it")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise UserError(
                f"{what} {str(folder)!r} is being written by another deckopt process (pid {holder}); "
                "wait for it to end or choose another folder"
            ) from None
        except OSError as exc:
            os.close(fd)
            raise UserError(f"{what} {str(folder)!r} cannot be locked: {exc.strerror}") from None
        if _is_current(fd, lock):
            break
        os.close(fd)  # the holder removed that file as we locked it: lock the folder's current one
    with contextlib.suppress(OSError):  # a full disk: the lock holds, only its pid goes unnamed
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def _check_enclosing(key: Path, folder: Path, what: str) -> None:
    """UserError in one line when a folder enclosing `key` (resolved) is held by another process."""
    for outer in key.parents:
        if outer in _held:
            continue  # this process writes it: the command writing its own sub-folder
        try:
            fd = os.open(outer / LOCK_NAME, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            continue  # no lock file there (or none that could be one)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                if _holder(fd) == str(os.getppid()):
                    continue  # the holder started this command to write inside its folder (deckopt evaluator)
                raise UserError(
                    f"{what} {str(folder)!r} is inside {str(outer)!r}, which is being written by another deckopt "
                    f"process (pid {_holder(fd)}); wait for it to end or choose another folder"
                ) from None
            except OSError:
                continue
        finally:
            os.close(fd)  # releases the shared lock taken to test it


def _is_current(fd: int, lock: Path) -> bool:
    """Whether descriptor `fd` is still the file at `lock` (not one its last holder removed)."""
    try:
        on_disk = os.stat(lock)
    except FileNotFoundError:
        return False
    opened = os.fstat(fd)
    return (opened.st_dev, opened.st_ino) == (on_disk.st_dev, on_disk.st_ino)


def _holder(fd: int) -> str:
    """The pid written in a held lock file (its holder writes it just after locking)."""
    deadline = time.monotonic() + _PID_WAIT
    while True:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        if text.isdigit() or time.monotonic() > deadline:
            return text if text.isdigit() else "unknown"
        time.sleep(0.02)


def _release(folder: Path, fd: int) -> None:
    with contextlib.suppress(OSError):
        os.unlink(folder / LOCK_NAME)  # while still held: a writer that opened it finds it gone
    os.close(fd)
