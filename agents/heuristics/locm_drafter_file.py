"""Drafter files: a Legends of Code and Magic 1.2 drafter as data, the one format of an evolved or
hand-written drafter (the `locm_drafter` deck space writes its champion as one).

A drafter file is TOML: a name and one score per card of the 160, card 1 first,

    name = "evolved-s0"
    scores = [12, 407, ...]                  # one policy for both seats

or one such list per seat, the first player's first:

    scores = [[12, 407, ...], [30, 398, ...]]

The drafter picks the offered card with the highest score, the first offered on ties
(locm_field.ScoreDrafter). As an agent it is the spec `PATH.toml+BATTLER`, or `PATH.toml` with the
max-attack battler, wherever a LOCM agent spec goes (`deckopt match`, `eval`, `tournament`, `play`):
`FieldBots` resolves it among the field's named agents.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping
from functools import partial
from pathlib import Path

import numpy as np

from agents.heuristics.locm_field import BATTLERS, DEFAULT_BATTLER, FieldAgent, ScoreDrafter
from games.config import read_settings
from games.errors import UserError
from games.fileio import atomic_write_text
from games.locm import NUM_CARDS
from games.schema import MAX_NAME, is_name

SUFFIX = ".toml"


def score_table(scores) -> np.ndarray:
    """(2, NUM_CARDS + 1) per-seat score tables (column 0 unused) from 160 scores or two lists of 160."""
    rows = np.asarray(scores, dtype=np.float64).reshape(-1, NUM_CARDS)
    rows = np.repeat(rows, 2, axis=0) if len(rows) == 1 else rows
    return np.hstack([np.zeros((2, 1)), rows])


def _is_number(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _check_scores(scores, where: str) -> None:
    """UserError in one line unless `scores` is 160 finite numbers or two lists of 160."""
    shape = "one number per card (160) or two such lists, one per seat"
    if not isinstance(scores, list):
        raise UserError(f"{where}: 'scores' must be a list of {shape}")
    lists = scores if scores and all(isinstance(x, list) for x in scores) else [scores]
    if len(lists) > 2:
        raise UserError(f"{where}: 'scores' has {len(scores)} lists; it must hold {shape}")
    for i, row in enumerate(lists):
        label = f"seat {i}'s scores" if len(lists) == 2 else "'scores'"
        if len(row) != NUM_CARDS:
            raise UserError(f"{where}: {label} has {len(row)} entries; it must hold {shape}")
        bad = next((j for j, x in enumerate(row) if not _is_number(x)), None)
        if bad is not None:
            raise UserError(f"{where}: {label} entry {bad + 1} (card {bad + 1}) is {row[bad]!r}, not a finite number")


def read_drafter(path: str | os.PathLike) -> ScoreDrafter:
    """The drafter in the file at `path`; UserError in one line if it is missing, unreadable or
    malformed (no or unknown keys, a wrong number of scores, a score that is not a number)."""
    path = Path(path)
    where = f"drafter file {str(path)!r}"
    data = read_settings(path, what="drafter file")
    unknown = sorted(set(data) - {"name", "scores"})
    if unknown:
        raise UserError(f"{where}: unknown key {unknown[0]!r} (a drafter file has 'name' and 'scores')")
    if "scores" not in data:
        raise UserError(f"{where} has no 'scores' list")
    name = data.get("name", path.stem)
    if not is_name(name):
        raise UserError(f"{where}: 'name' must be one line of at most {MAX_NAME} printable characters")
    _check_scores(data["scores"], where)
    return ScoreDrafter(name, score_table(data["scores"]))


def drafter_toml(name: str, scores, comment: str = "") -> str:
    """The text of a drafter file: `scores` is 160 numbers or two lists of 160 (`_check_scores`)."""
    _check_scores(scores, f"drafter {name!r}")
    lines = [f"# {line}" for line in comment.splitlines()]
    lines.append(f"name = {_quoted(name)}")
    if isinstance(scores[0], list):
        lines.append("scores = [")
        lines += [f"    [{', '.join(str(x) for x in row)}]," for row in scores]
        lines.append("]")
    else:
        lines.append(f"scores = [{', '.join(str(x) for x in scores)}]")
    return "\n".join(lines) + "\n"


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_drafter(path: str | os.PathLike, name: str, scores, comment: str = "") -> None:
    """Write a drafter file atomically (`drafter_toml`)."""
    atomic_write_text(path, drafter_toml(name, scores, comment))


def parse_drafter_spec(spec: str) -> tuple[str, str] | None:
    """(drafter file path, battler) of an agent spec `PATH.toml+BATTLER` or `PATH.toml`; None for a
    spec of another shape."""
    path, plus, battler = spec.rpartition("+")
    if not plus:
        path, battler = spec, DEFAULT_BATTLER
    return (path, battler) if path.lower().endswith(SUFFIX) else None


def drafter_agent(spec: str):
    """The agent maker `(game, rng) -> FieldAgent` of a drafter file spec; UserError in one line if
    the file is bad or the battler unknown."""
    path, battler = parse_drafter_spec(spec)
    if battler not in BATTLERS:
        raise UserError(f"agent {spec!r}: unknown battler {battler!r} (battlers: {', '.join(BATTLERS)})")
    if not Path(path).is_file():
        raise UserError(f"agent {spec!r}: drafter file {path!r} not found")
    return partial(FieldAgent, drafter=read_drafter(path), battler=battler)


class FieldBots(Mapping):
    """LOCM's rule agents by spec: the named ones (`named`), and every drafter file spec
    `PATH.toml[+BATTLER]` (read when asked for; listing and counting give the named ones only)."""

    def __init__(self, named: Mapping):
        self.named = dict(named)

    def __getitem__(self, spec: str):
        if spec in self.named:
            return self.named[spec]
        if parse_drafter_spec(spec) is None:
            raise KeyError(spec)
        return drafter_agent(spec)

    def __contains__(self, spec) -> bool:
        return spec in self.named or (isinstance(spec, str) and parse_drafter_spec(spec) is not None)

    def __iter__(self) -> Iterator[str]:
        return iter(self.named)

    def __len__(self) -> int:
        return len(self.named)
