"""The command-line reference of the documentation, generated from deckopt's argparse parsers.

MkDocs runs it as a hook (mkdocs.yml `hooks:`): on the page docs/cli.md the marker
`<!-- cli-reference -->` becomes one section per command and subcommand with its `--help` text, so
the reference is never typed twice. `python scripts/cli_reference.py` prints the same Markdown.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

MARKER = "<!-- cli-reference -->"
WIDTH = "100"  # argparse wraps help to $COLUMNS; fixed so the page does not depend on the terminal
ROOT = str(Path(__file__).resolve().parent.parent)  # the parsers of this checkout, whatever is installed


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _sections(parser: argparse.ArgumentParser, path: list[str], level: int) -> list[str]:
    name = " ".join(path)
    out = [f"{'#' * level} `{name}`", "", "```text", parser.format_help().rstrip(), "```", ""]
    for sub_name, sub in _subcommands(parser).items():
        out += _sections(sub, [*path, sub_name], min(level + 1, 4))
    return out


def reference_markdown() -> str:
    """Every command's help, from `deckopt --help` down, as Markdown sections."""
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        if ROOT not in sys.path:
            sys.path.insert(0, ROOT)
        from deckopt.cli import build_parser

        parser = build_parser()
        lines = ["```text", parser.format_help().rstrip(), "```", ""]
        for name, sub in _subcommands(parser).items():
            lines += _sections(sub, ["deckopt", name], 2)
        return "\n".join(lines)
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous


def on_page_markdown(markdown: str, page, config, files) -> str:
    """MkDocs hook: fill the marker of the command-line page."""
    if MARKER in markdown:
        return markdown.replace(MARKER, reference_markdown())
    return markdown


if __name__ == "__main__":
    print(reference_markdown())
