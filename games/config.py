"""One configuration path for every package: settings files, typed dataclasses, one-line errors.

A config is a dataclass whose fields carry their help text (`setting(default, "help")`) and whose
`__post_init__` validates it (raising `UserError` that names the field, never a command-line flag).
Settings come from TOML or JSON files through `read_settings` and become a config through
`config_from_dict`, which refuses unknown keys and checks every value against its field's type.
The command line generates its override flags from the same fields and help texts.

    @dataclass
    class MyConfig:
        pool: int = setting(30, "decks per generation", metavar="N")
        rules: DeckRules = setting(factory=DeckRules, help="the deck-building rules")

        def __post_init__(self):
            need(self.pool >= 2, f"pool must be >= 2, got {self.pool}")
"""

from __future__ import annotations

import dataclasses
import math
import os
import types
import typing
from typing import Any

from games.errors import UserError
from games.schema import read_data, shown

#: the most items a list setting with a `maximum` may hold (e.g. hidden layers)
MAX_ITEMS = 16

#: worker processes of one parallel map (agents.parallel.Mapper): each costs a Python process with
#: numpy and the games imported (about 100 MB), so a mistyped count would exhaust the machine's memory
#: before the first game
MAX_JOBS = 64

#: seconds a work unit (a few hundred games) may take before the map stops: a worker silent for
#: minutes is stopped (kill -STOP) or hung
DEFAULT_TASK_TIMEOUT = 300.0
MAX_TASK_TIMEOUT = 86_400.0  # a day


def setting(default: Any = dataclasses.MISSING, help: str = "", *, factory=dataclasses.MISSING, **cli) -> Any:
    """A dataclass field with its help text; `cli` keys (metavar, choices, flag=False, append=True)
    tell the command line how to offer it. `factory` for mutable defaults. `maximum=N`: the largest
    value a count or size may take (each item of a list, which holds at most MAX_ITEMS), a bound that
    `check_maximums` enforces and the flag's help states."""
    metadata = {"help": help, **cli}
    if factory is not dataclasses.MISSING:
        return dataclasses.field(default_factory=factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def check_maximums(config) -> None:
    """Every field of `config` with a `maximum` (see `setting`) within it: a size beyond reason (a
    typo, an extra digit) is refused before it exhausts the machine's memory or runs for days."""
    for f in dataclasses.fields(config):
        top = f.metadata.get("maximum")
        if top is None:
            continue
        value = getattr(config, f.name)
        if isinstance(value, (list, tuple)):
            need(len(value) <= MAX_ITEMS, f"{f.name} may hold at most {MAX_ITEMS} items, got {len(value)}")
            need(
                all(not isinstance(v, (int, float)) or v <= top for v in value),
                f"{f.name}: each must be at most {_spaced(top)}, got {shown(list(value))}",
            )
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            need(value <= top, f"{f.name} must be at most {_spaced(top)}, got {_spaced(value)}")


def _spaced(number) -> str:
    """1000000 -> '1 000 000' (a float as it is)."""
    return f"{number:_}".replace("_", " ") if isinstance(number, int) else f"{number:g}"


def _key(name: str) -> str:
    """A setting's name as a message shows it: as it is when it is a plain name, else quoted and cut."""
    return name if name.isidentifier() and len(name) <= 60 else shown(name)


def need(ok: bool, message: str) -> None:
    """Validation inside a config's __post_init__: a one-line UserError unless `ok`."""
    if not ok:
        raise UserError(message)


def check_jobs(jobs, what: str = "jobs") -> int:
    """`jobs` as a count of worker processes, 1..MAX_JOBS; UserError in one line otherwise."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
        raise UserError(f"{what} must be a whole number from 1 to {MAX_JOBS}, got {jobs!r}")
    return jobs


def read_settings(path: str | os.PathLike, what: str = "config file", inside: str | os.PathLike | None = None) -> dict:
    """The table of a TOML (or, by suffix, JSON) file; UserError in one line if it cannot be read (a
    link leading out of folder `inside`, when given, too)."""
    data = read_data(path, what, toml=True, inside=inside)
    if not isinstance(data, dict):
        raise UserError(f"{what} {str(path)!r}: expected a table of settings")
    return data


def _type_name(tp) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def _convert(value: Any, tp, name: str) -> Any:
    """`value` as the annotated type `tp`, or UserError naming the setting."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        errors = []
        for arm in args:
            if arm is type(None):
                continue
            try:
                return _convert(value, arm, name)
            except UserError as exc:
                errors.append(str(exc))
        raise UserError(errors[0] if errors else f"{name} must not be empty")
    if tp is Any:
        return value
    if dataclasses.is_dataclass(tp):
        if isinstance(value, tp):
            return value
        if not isinstance(value, dict):
            raise UserError(f"{name} must be a table of {', '.join(f.name for f in dataclasses.fields(tp))}")
        return config_from_dict(tp, value, where=name)
    if tp is bool:
        if not isinstance(value, bool):
            raise UserError(f"{name} must be true or false, got {shown(value)}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise UserError(f"{name} must be a whole number, got {shown(value)}")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise UserError(f"{name} must be a number, got {shown(value)}")
        value = float(value)
        if not math.isfinite(value):
            raise UserError(f"{name} must be a finite number, got {shown(value)}")
        return value
    if tp is str:
        if not isinstance(value, str):
            raise UserError(f"{name} must be text, got {shown(value)}")
        return value
    if origin in (list, tuple) or tp in (list, tuple):
        if isinstance(value, str) and origin is list and args and args[0] is str:
            value = [value]  # a single name where a list of names is expected
        if not isinstance(value, (list, tuple)):
            raise UserError(f"{name} must be a list, got {shown(value)}")
        if args and args[-1] is not Ellipsis and origin is tuple:
            items = [_convert(v, a, name) for v, a in zip(value, args)]
        elif args:
            items = [_convert(v, args[0], name) for v in value]
        else:
            items = list(value)
        return tuple(items) if (origin or tp) is tuple else items
    if origin is dict or tp is dict:
        if not isinstance(value, dict):
            raise UserError(f"{name} must be a table, got {shown(value)}")
        if args:
            return {_convert(k, args[0], name): _convert(v, args[1], name) for k, v in value.items()}
        return dict(value)
    if isinstance(tp, type) and isinstance(value, tp):
        return value
    raise UserError(f"{name} must be {_type_name(tp)}, got {shown(value)}")


def config_from_dict(cls, data: dict, where: str = ""):
    """An instance of the dataclass `cls` from plain settings: unknown keys refused, every value
    checked against its field's type (ints accepted for floats, tables for nested configs), then
    the class's own validation. Errors are one UserError line prefixed by `where`."""
    prefix = f"{where}: " if where else ""
    if not isinstance(data, dict):
        raise UserError(f"{prefix}expected a table of settings")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise UserError(
            f"{prefix}unknown setting(s) {', '.join(_key(k) for k in unknown[:5])}{'...' if len(unknown) > 5 else ''}; "
            + _known_hint(unknown, list(fields))
        )
    hints = typing.get_type_hints(cls)
    try:
        values = {k: _convert(v, hints[k], k) for k, v in data.items()}
        return cls(**values)
    except UserError as exc:
        if where and str(exc).startswith(prefix):
            raise
        raise UserError(f"{prefix}{exc}") from None


def _known_hint(unknown: list[str], known: list[str]) -> str:
    """What to say of the known settings: all of them when few, else the close ones (a typo) or where
    they are listed, so the error stays one short line."""
    import difflib

    if not known:
        return "it takes no settings"
    if len(known) <= 8:
        return f"known: {', '.join(known)}"
    close = sorted({m for name in unknown for m in difflib.get_close_matches(name, known, n=2)})
    if close:
        return f"did you mean {' or '.join(close)}? (the command's --help lists the settings)"
    return f"{len(known)} settings are known (the command's --help lists them)"


def config_to_dict(config) -> dict:
    """Plain settings (nested configs as tables, tuples as lists): what `config.json` holds."""

    def plain(v):
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        return v

    return plain(dataclasses.asdict(config))


def settings_help(cls) -> dict[str, str]:
    """Field name -> help text, for the fields that have one."""
    return {f.name: f.metadata["help"] for f in dataclasses.fields(cls) if f.metadata.get("help")}
