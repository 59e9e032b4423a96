"""Schemas of the files deckopt reads as data (run folders, studies, sweeps, deck files): types,
ranges and sizes checked on read, any violation one line (`UserError`).

A schema is built from a few checkers and applied by `check(schema, value, where)`:

    DECK = Record({"cards": List(Int(0, 1000), most=1000)}, optional={"score": Num(null=True)})
    data = read_checked(path, DECK, "deck file")     # size, syntax and schema; UserError if not

A file is refused by its size before it is parsed (`max_bytes`), so no file can exhaust memory
while it is read. Keys a schema does not name are kept as they are (a file written by a later
version still reads); a schema names every key its readers use.
"""

from __future__ import annotations

import json
import math
import os
import tomllib
from pathlib import Path
from typing import Any

from games.errors import UserError
from games.fileio import read_file_bytes

#: the largest run file read by default (a generation, a study's settings, a deck file)
MAX_FILE_BYTES = 16 * 1024 * 1024
#: the longest text value a schema takes by default (a name, a path, an agent spec)
MAX_TEXT = 4096
#: the most items a list or table takes by default
MAX_ITEMS = 100_000
#: the longest name of a deck or a drafter
MAX_NAME = 200
#: the largest magnitude of a whole number (seeds, counts) a schema takes by default
MAX_INT = 2**63 - 1


def is_name(value: Any) -> bool:
    """Whether `value` is a name fit to show on a terminal: text of at most MAX_NAME printable
    characters (no control character, so no escape sequence a terminal would act on)."""
    return isinstance(value, str) and len(value) <= MAX_NAME and value.isprintable()


class Invalid(Exception):
    """A value that does not fit its schema: `path` (e.g. decks[3].score) and the problem."""

    def __init__(self, path: str, problem: str):
        super().__init__(f"{path} {problem}" if path else problem)


def shown(value: Any, limit: int = 60) -> str:
    """`value` as a short repr, cut to `limit` characters: a message never echoes a whole file."""
    if isinstance(value, (dict, list, tuple)) and len(value) > 3:
        return f"a {'table' if isinstance(value, dict) else 'list'} of {len(value)} items"
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**30 else f"a {value.bit_length()}-bit number"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _bound(n: int) -> str:
    """A range's end as a reader takes it in: 2^128 - 1 rather than its 39 digits."""
    if abs(n) < 10**12:
        return str(n)
    k = (abs(n) + 1).bit_length() - 1
    if abs(n) + 1 == 2**k:
        return f"{'-' if n < 0 else ''}(2^{k} - 1)"
    return f"{n:.3g}"


def _join(path: str, key) -> str:
    """The path to `key` inside `path`; a key read from a file that would not print as one short
    line (a newline, an empty or a long key) is shown quoted and cut short."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    plain = isinstance(key, str) and key.isprintable() and 0 < len(key) <= 40 and key.strip() == key
    text = key if plain else shown(key, 40)
    return f"{path}.{text}" if path else text


class Schema:
    null = False

    def check(self, value: Any, path: str) -> None:
        if value is None and self.null:
            return
        self._check(value, path)

    def _check(self, value: Any, path: str) -> None:  # pragma: no cover - every schema overrides it
        raise NotImplementedError


class Anything(Schema):
    def _check(self, value, path):
        pass


ANYTHING = Anything()


class Bool(Schema):
    def __init__(self, null: bool = False):
        self.null = null

    def _check(self, value, path):
        if not isinstance(value, bool):
            raise Invalid(path, f"must be true or false, got {shown(value)}")


class Int(Schema):
    """A whole number in [lo, hi]."""

    def __init__(self, lo: int = -MAX_INT, hi: int = MAX_INT, null: bool = False):
        self.lo, self.hi, self.null = lo, hi, null

    def _check(self, value, path):
        if isinstance(value, bool) or not isinstance(value, int):
            raise Invalid(path, f"must be a whole number, got {shown(value)}")
        if not self.lo <= value <= self.hi:
            raise Invalid(path, f"must be in [{_bound(self.lo)}, {_bound(self.hi)}], got {shown(value)}")


class Num(Schema):
    """A number in [lo, hi] (NaN too when `nan`)."""

    def __init__(self, lo: float = -math.inf, hi: float = math.inf, null: bool = False, nan: bool = False):
        self.lo, self.hi, self.null, self.nan = lo, hi, null, nan

    def _check(self, value, path):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise Invalid(path, f"must be a number, got {shown(value)}")
        if isinstance(value, int) and abs(value) > MAX_INT:
            raise Invalid(path, f"must be a number of reasonable size, got {shown(value)}")
        if value != value:
            if not self.nan:
                raise Invalid(path, "must be a number, got NaN")
            return
        if not self.lo <= value <= self.hi:
            raise Invalid(path, f"must be in [{self.lo:g}, {self.hi:g}], got {shown(value)}")


class Str(Schema):
    """Text of at most `most` characters (one of `choices` if given)."""

    def __init__(self, most: int = MAX_TEXT, choices=None, null: bool = False):
        self.most, self.choices, self.null = most, None if choices is None else tuple(choices), null

    def _check(self, value, path):
        if not isinstance(value, str):
            raise Invalid(path, f"must be text, got {shown(value)}")
        if len(value) > self.most:
            raise Invalid(path, f"must be at most {self.most} characters, got {len(value)}")
        if self.choices is not None and value not in self.choices:
            raise Invalid(path, f"must be one of {', '.join(self.choices)}, got {shown(value)}")


class List(Schema):
    """A list of `least`..`most` items, each an `item`."""

    def __init__(self, item: Schema, most: int = MAX_ITEMS, least: int = 0, null: bool = False):
        self.item, self.most, self.least, self.null = item, most, least, null

    def _check(self, value, path):
        if not isinstance(value, list):
            raise Invalid(path, f"must be a list, got {shown(value)}")
        if not self.least <= len(value) <= self.most:
            size = f"{self.least}" if self.least == self.most else f"{self.least} to {self.most}"
            raise Invalid(path, f"must hold {size} items, got {len(value)}")
        for i, v in enumerate(value):
            self.item.check(v, _join(path, i))


class Map(Schema):
    """A table of at most `most` entries with any keys, each value a `value`."""

    def __init__(self, value: Schema, most: int = MAX_ITEMS, null: bool = False):
        self.value, self.most, self.null = value, most, null

    def _check(self, value, path):
        if not isinstance(value, dict):
            raise Invalid(path, f"must be a table, got {shown(value)}")
        if len(value) > self.most:
            raise Invalid(path, f"must hold at most {self.most} entries, got {len(value)}")
        for k, v in value.items():
            self.value.check(v, _join(path, k))


class Record(Schema):
    """A table with the `required` keys and any of the `optional` ones, each of its schema."""

    def __init__(self, required: dict[str, Schema], optional: dict[str, Schema] | None = None, null: bool = False):
        self.required, self.optional, self.null = required, dict(optional or {}), null

    def _check(self, value, path):
        if not isinstance(value, dict):
            raise Invalid(path, f"must be a table, got {shown(value)}")
        for key, schema in self.required.items():
            if key not in value:
                raise Invalid(_join(path, key), "is missing")
            schema.check(value[key], _join(path, key))
        for key, schema in self.optional.items():
            if key in value:
                schema.check(value[key], _join(path, key))


class Either(Schema):
    """A value fitting any of `schemas` (the first one's complaint if none)."""

    def __init__(self, *schemas: Schema):
        self.schemas = schemas

    def _check(self, value, path):
        first = None
        for schema in self.schemas:
            try:
                schema.check(value, path)
                return
            except Invalid as exc:
                first = first or exc
        raise first


def check(schema: Schema, value: Any, where: str) -> Any:
    """`value` if it fits `schema`, else UserError: `where`, the path of the first misfit and why."""
    try:
        schema.check(value, "")
    except Invalid as exc:
        raise UserError(f"{where}: {exc}") from None
    return value


def json_member(arrays: dict, key: str, schema: Schema) -> Any:
    """The JSON text that a `.npz` file keeps in its 0-d text array `key` (a model's metadata, a
    checkpoint's state), parsed and checked against `schema`; ValueError in one line naming `key` if
    it is missing, not one text, not JSON or does not fit (the file's reader names the file)."""
    if key not in arrays:
        raise ValueError(f"it holds no {key}")
    array = arrays[key]
    if getattr(array, "ndim", None) != 0 or getattr(array.dtype, "kind", None) != "U":
        raise ValueError(f"its {key} is not one text")
    try:
        value = json.loads(str(array[()]))
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, a number of over 4300 digits, nesting
        raise ValueError(f"its {key} is not valid JSON ({' '.join(str(exc).split())[:120]})") from None
    try:
        schema.check(value, key)
    except Invalid as exc:
        raise ValueError(str(exc)) from None
    return value


def read_data(
    path: str | os.PathLike,
    what: str,
    max_bytes: int = MAX_FILE_BYTES,
    toml: bool | None = None,
    inside: str | os.PathLike | None = None,
) -> Any:
    """The parsed contents of a JSON or TOML file (`toml` None: TOML by the suffix .toml, JSON by
    .json, else JSON), refused in one line if `games.fileio.read_file_bytes` refuses it (missing, not
    a regular file, a link out of folder `inside`, larger than `max_bytes`), not UTF-8 or not valid."""
    path = Path(path)
    raw = read_file_bytes(path, what, max_bytes, inside)
    suffix = path.suffix.lower()
    if toml is None or suffix in (".json", ".toml"):
        toml = suffix == ".toml"
    try:
        text = raw.decode("utf-8")
        return tomllib.loads(text) if toml else json.loads(text)
    except UnicodeDecodeError:
        raise UserError(f"{what} {str(path)!r} is not UTF-8 text") from None
    except (ValueError, tomllib.TOMLDecodeError) as exc:  # JSONDecodeError, a number of over 4300 digits
        message = " ".join(str(exc).split())[:200]
        raise UserError(f"{what} {str(path)!r} is not valid {'TOML' if toml else 'JSON'}: {message}") from None
    except RecursionError:
        raise UserError(f"{what} {str(path)!r} is nested too deeply") from None


def read_checked(
    path: str | os.PathLike,
    schema: Schema,
    what: str,
    max_bytes: int = MAX_FILE_BYTES,
    inside: str | os.PathLike | None = None,
) -> Any:
    """`read_data`, then `check` against `schema`."""
    return check(schema, read_data(path, what, max_bytes, inside=inside), f"{what} {str(path)!r}")
