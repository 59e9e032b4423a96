"""Bounded reads of `.npz` files (models, training checkpoints, a racing study's ground truth) and
of other zip archives read as data (`.keras` models).

    arrays = read_npz_arrays(path, MODEL_LIMITS)      # {name: array}; ValueError in one line
    check_archive(path, MODEL_LIMITS)                 # any zip (a .keras): its real inflated size bounded

A `.npz` file is a zip of `.npy` members, and each member's header declares its array's shape and
dtype; numpy allocates what the header declares and a compressed member can declare gigabytes in a
few kilobytes. So every header is read first (from the zip member's first bytes, without reading
any data) and checked against the limits of the reader: the dtype (numbers or text, never objects),
the bytes of all arrays, the characters of a text array, and the bytes a member may declare for
each byte it occupies in the file (a compression bomb declares far more). The zip's own headers
(each member's compressed and inflated size) are not trusted: every member is inflated once in
small chunks and counted, all members together bounded by the limits and by `max_expansion` times
the file's size, and no array may declare more than its member really holds. Only then is any
array read, and numpy reads no more than the headers declared.
"""

from __future__ import annotations

import contextlib
import math
import os
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from games.fileio import MB, open_for_reading


@dataclass(frozen=True)
class NpzLimits:
    """What a reader of `.npz` files accepts, checked on the headers before any data is read."""

    what: str  # the kind of file, for the message ("model", "checkpoint", ...)
    max_bytes: int  # all arrays together, as numpy holds them in memory
    max_text_chars: int  # one element of a text array (metadata, settings, a saved state)
    max_arrays: int = 1000
    #: bytes an array may declare for each byte its member occupies in the file: 1 for the files
    #: deckopt writes with np.savez, about 1.1 for np.savez_compressed weights; a bomb declares ~1000
    max_expansion: int = 50


#: a network's weights and its metadata (the shipped ones hold 0.1-2.1 MB)
MODEL_LIMITS = NpzLimits("model", max_bytes=512 * MB, max_text_chars=1_000_000)
#: a training checkpoint: the learner's arrays (replay buffers) and its state as JSON (its log rows)
CHECKPOINT_LIMITS = NpzLimits("checkpoint", max_bytes=8192 * MB, max_text_chars=200_000_000)
#: the ground truth of a racing study: one score per deck, opponent and deal, its decks and settings
TRUTH_LIMITS = NpzLimits("ground truth", max_bytes=4096 * MB, max_text_chars=10_000_000)

_HEADER_SLACK = 4096  # a member's header and alignment, beyond its data
_KINDS = "biufcUS"  # booleans, integers, floats, complex numbers, text
_CHUNK = 1 << 20


def inflated_sizes(archive: zipfile.ZipFile, most: int) -> dict[str, int]:
    """The real size of each member of `archive` by name, measured by inflating it in chunks of
    1 MB (the sizes its headers declare are not trusted); ValueError in one line as soon as all
    members together pass `most` bytes."""
    sizes, total = {}, 0
    for info in archive.infolist():
        size = 0
        with archive.open(info) as f:
            while chunk := f.read(_CHUNK):
                size += len(chunk)
                total += len(chunk)
                if total > most:
                    raise ValueError(f"its members inflate to more than {most} bytes (damaged, or a compression bomb)")
        sizes[info.filename] = size
    return sizes


def check_archive(path: str | os.PathLike, limits: NpzLimits) -> None:
    """Refuse the zip archive at `path` (a `.keras` model) unless its members, inflated and counted,
    keep within `limits` (all members' bytes, and `max_expansion` times the file's size); ValueError
    in one line (UserError when `games.fileio.open_for_reading` refuses the file)."""
    with _open_archive(path, limits) as (archive, file_bytes):
        _inflated_within(archive, limits, file_bytes)


@contextlib.contextmanager
def _open_archive(path: str | os.PathLike, limits: NpzLimits) -> Iterator[tuple[zipfile.ZipFile, int]]:
    with open_for_reading(path, limits.what, limits.max_bytes + limits.max_arrays * _HEADER_SLACK) as file:
        with zipfile.ZipFile(file) as archive:
            yield archive, os.fstat(file.fileno()).st_size


def _inflated_within(archive: zipfile.ZipFile, limits: NpzLimits, file_bytes: int) -> dict[str, int]:
    members = archive.infolist()
    if len(members) > limits.max_arrays:
        raise ValueError(f"{len(members)} members, more than the {limits.max_arrays} a {limits.what} may hold")
    most = min(limits.max_bytes, limits.max_expansion * file_bytes) + len(members) * _HEADER_SLACK
    return inflated_sizes(archive, most)


def read_npz_arrays(path: str | os.PathLike, limits: NpzLimits) -> dict[str, np.ndarray]:
    """Every array of the `.npz` file at `path` by name, each header checked against `limits` before
    any data is read; ValueError in one line naming the array and the limit it breaks (also for a
    file that is not a readable `.npz`: zipfile and numpy errors pass through)."""
    with _open_archive(path, limits) as (archive, file_bytes):
        return _read_arrays(archive, limits, file_bytes)


def _read_arrays(archive: zipfile.ZipFile, limits: NpzLimits, file_bytes: int) -> dict[str, np.ndarray]:
    members = archive.infolist()
    if len(members) > limits.max_arrays:
        raise ValueError(f"{len(members)} arrays, more than the {limits.max_arrays} a {limits.what} may hold")
    declared, total = {}, 0
    for info in members:
        declared[info.filename] = _checked_size(archive, info, limits, file_bytes)
        total += declared[info.filename]
        if total > limits.max_bytes:
            raise ValueError(f"its arrays declare more than the {limits.max_bytes // MB} MB a {limits.what} may hold")
    for name, size in _inflated_within(archive, limits, file_bytes).items():
        if declared[name] > size:
            raise ValueError(f"{name}: declares {declared[name]} bytes of data and holds {size} (damaged)")
    arrays = {}
    for info in members:
        with archive.open(info) as f:
            arrays[info.filename.removesuffix(".npy")] = np.lib.format.read_array(f, allow_pickle=False)
    return arrays


def _checked_size(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limits: NpzLimits, file_bytes: int) -> int:
    """The bytes the member `info` declares for its array, read from its header alone; ValueError
    when its dtype, its text or its size breaks `limits`."""
    name = info.filename
    if not name.endswith(".npy"):
        raise ValueError(f"{name[:80]!r} is not an array")
    if info.compress_size > file_bytes:
        raise ValueError(f"{name[:80]}: its zip entry claims more bytes than the file holds")
    with archive.open(info) as f:
        version = np.lib.format.read_magic(f)
        if version not in ((1, 0), (2, 0)):
            raise ValueError(f"{name}: an array file of format {version}, not read")
        header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, dtype = header(f)
    if dtype.hasobject:
        raise ValueError(f"{name}: an array of pickled Python objects is never read")
    if dtype.kind not in _KINDS or dtype.fields is not None:
        raise ValueError(f"{name}: arrays of {dtype} are not read (numbers and text only)")
    if dtype.kind in "US":
        chars = dtype.itemsize // (4 if dtype.kind == "U" else 1)
        if chars > limits.max_text_chars:
            raise ValueError(
                f"{name}: a text of {chars} characters, more than the {limits.max_text_chars} a {limits.what} may hold"
            )
    declared = math.prod(shape) * dtype.itemsize
    if declared > info.file_size or declared > limits.max_expansion * info.compress_size + _HEADER_SLACK:
        raise ValueError(
            f"{name}: declares {declared} bytes of data in a {info.compress_size}-byte entry "
            "(damaged, or a compression bomb)"
        )
    return declared
