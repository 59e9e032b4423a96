"""Command-line override flags generated from a config dataclass (see games.config.setting).

Every field with a help text becomes `--field-name`, typed from its annotation; a new setting is
one line in its dataclass. Lists take comma-separated values (or repeat the flag with
`append=True`); a bool gets `--field-name` and `--no-field-name`. Settings: defaults < --config
FILE < flags.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import types
import typing

from games.config import MAX_ITEMS

_DEST_PREFIX = "cfg__"


def _scalar_parser(tp, name: str):
    def parse(text: str):
        try:
            value = tp(text)
        except ValueError:
            kind = {int: "a whole number", float: "a number"}.get(tp, tp.__name__)
            raise argparse.ArgumentTypeError(f"expected {kind}, got {text!r}") from None
        if tp is float and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
        return value

    parse.__name__ = name
    return parse


def _unwrap_optional(tp):
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        arms = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(arms) == 1:
            return arms[0]
    return tp


def _default_text(f) -> str:
    if f.default is not dataclasses.MISSING:
        value = f.default
    elif f.default_factory is not dataclasses.MISSING:
        value = f.default_factory()
    else:
        return ""
    if value is None or value == [] or value == {}:
        return ""
    if isinstance(value, (list, tuple)):
        value = ",".join(str(v) for v in value)
    elif isinstance(value, bool):
        value = "yes" if value else "no"
    return f" (default: {value})"


def _maximum_text(meta, tp) -> str:
    """The bound of a setting with a `maximum` (games.config.setting), for its help."""
    if "maximum" not in meta:
        return ""
    top = f"{meta['maximum']:,}".replace(",", " ")
    if typing.get_origin(tp) in (list, tuple) or tp in (list, tuple):
        return f"; each at most {top}, at most {MAX_ITEMS} of them"
    return f"; at most {top}"


def add_config_flags(
    parser: argparse.ArgumentParser, cls, skip=(), show_defaults: bool = False, prefix: dict | None = None
) -> None:
    """Add one flag per helped field of `cls` (not in `skip`) to `parser`. `show_defaults` appends
    the dataclass default to each help text (off where defaults depend on more, e.g. per game);
    `prefix` (field -> text) starts a field's help (e.g. the games it applies to)."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        meta = f.metadata
        if not meta.get("help") or f.name in skip or meta.get("flag") is False:
            continue
        tp = _unwrap_optional(hints[f.name])
        flag = "--" + f.name.replace("_", "-")
        dest = _DEST_PREFIX + f.name
        help_text = (prefix or {}).get(f.name, "") + meta["help"] + _maximum_text(meta, tp)
        help_text += _default_text(f).replace("%", "%%") if show_defaults else ""
        kwargs = {"dest": dest, "default": None, "help": help_text}
        if tp is bool:
            # both --x and --no-x: a per-game default may be either (e.g. Connect Four mirrors by default)
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, **kwargs)
            continue
        if "metavar" in meta:
            kwargs["metavar"] = meta["metavar"]
        if "choices" in meta:
            kwargs["choices"] = list(meta["choices"])
        origin = typing.get_origin(tp)
        if origin in (list, tuple) or tp in (list, tuple):
            args = typing.get_args(tp)
            item = _scalar_parser(args[0], f.name) if args and args[0] in (int, float) else str
            if meta.get("append"):
                parser.add_argument(flag, action="append", type=item, **kwargs)
            else:

                def parse_list(text: str, item=item):
                    parts = [p.strip() for p in text.split(",") if p.strip()]
                    if not parts:
                        raise argparse.ArgumentTypeError(f"expected a comma-separated list, got {text!r}")
                    return [item(p) for p in parts]

                parser.add_argument(flag, type=parse_list, **kwargs)
            continue
        if tp in (int, float):
            parser.add_argument(flag, type=_scalar_parser(tp, f.name), **kwargs)
        else:
            parser.add_argument(flag, **kwargs)


def config_overrides(args: argparse.Namespace, cls) -> dict:
    """The settings of `cls` given as flags (absent flags are left out)."""
    out = {}
    for f in dataclasses.fields(cls):
        value = getattr(args, _DEST_PREFIX + f.name, None)
        if value is not None:
            out[f.name] = value
    return out
