"""The examples of README.md and docs/ run as tests, so they cannot go stale.

The guide pages and the README follow one convention (docs/design.md, "Examples"):

- a ```` ```console ```` block holds commands (`$ deckopt ...` or `$ python ...`), each followed by the
  stdout it prints. The command runs and its stdout must match. A line `...` stands for any number
  of lines, and `...` inside a line stands for any text (timings, paths). A command whose output
  starts `deckopt COMMAND: error:` must be refused: exit 2 with that line on stderr.
- a block with a file name, ```` ```toml title="my_limits.toml" ````, is written to that file for the
  examples after it.
- a ```` ```python ```` block runs as a script. When an ```` ```output ```` block follows it, the
  script's stdout must match that block in the same way.
- any other block (```` ```sh ````, ```` ```text ````) is shown but does not run: commands that take
  longer than about ten seconds. Such commands appear on the results pages (docs/results/, not run
  here) beside the figures they produce.

All the blocks of one file share one working folder, in file order (a later example may read a
run folder that an earlier one wrote). The folder links `decks/` and `agents/` from the repository, and
`runs/` starts empty.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# docs/plugins.md quotes the example game's files in titled blocks: tests/test_plugins.py checks those
# quotes against the files and runs the page's code, so this runner leaves it alone
TESTED = [
    ROOT / "README.md",
    *sorted(p for p in (ROOT / "docs").rglob("*.md") if "results" not in p.parts and p.name != "plugins.md"),
]
FENCE = re.compile(r'^```(\w*)(?:\s+title="([^"]+)")?\s*$')
REFUSAL = re.compile(r"deckopt [\w-]+: error: ")  # the expected output of a refused command (exit 2, stderr)


@dataclass
class Example:
    path: Path
    line: int
    kind: str  # "console", "python" or "file"
    text: str  # the commands with their outputs, or the script
    expected: str | None = None  # a python block's output block
    file: str | None = None  # where a file block is written

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def examples_of(path: Path) -> list[Example]:
    """The console and python blocks of a Markdown file (a python block's output block attached)."""
    blocks, lines, k = [], path.read_text(encoding="utf-8").splitlines(), 0
    while k < len(lines):
        m = FENCE.match(lines[k])
        if not m:
            k += 1
            continue
        end = next(j for j in range(k + 1, len(lines)) if lines[j].startswith("```"))
        kind = "file" if m.group(2) else m.group(1)
        blocks.append((kind, k + 1, "\n".join(lines[k + 1 : end]), m.group(2)))
        k = end + 1
    out = []
    for n, (kind, line, text, file) in enumerate(blocks):
        if kind == "console":
            out.append(Example(path, line, kind, text))
        elif kind == "file":
            out.append(Example(path, line, kind, text, file=file))
        elif kind == "python":
            following = blocks[n + 1] if n + 1 < len(blocks) else None
            expected = following[2] if following and following[0] == "output" else None
            out.append(Example(path, line, kind, text, expected))
    return out


ALL = [e for p in TESTED for e in examples_of(p)]


def matches(expected: str, actual: str) -> bool:
    """`actual` against `expected`, where a line `...` is any number of lines and `...` in a line any text."""
    want = [w.rstrip() for w in expected.strip("\n").splitlines()]
    got = [g.rstrip() for g in actual.strip("\n").splitlines()]

    def line_ok(w: str, g: str) -> bool:
        return re.fullmatch(".*".join(re.escape(part) for part in w.split("...")), g) is not None

    def from_(i: int, j: int) -> bool:
        if i == len(want):
            return j == len(got)
        if want[i] == "...":
            return any(from_(i + 1, jj) for jj in range(j, len(got) + 1))
        return j < len(got) and line_ok(want[i], got[j]) and from_(i + 1, j + 1)

    return from_(0, 0)


def console_steps(text: str) -> list[tuple[str, str]]:
    """(command, expected stdout) pairs of a console block."""
    steps: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
        else:
            raise AssertionError(f"a console block must start with a `$ ` command line, not {line!r}")
    return [(cmd, "\n".join(out)) for cmd, out in steps]


def argv(command: str) -> list[str]:
    words = shlex.split(command)
    if words[0] == "deckopt":
        return [sys.executable, "-m", "deckopt", *words[1:]]
    if words[0] == "python":
        return [sys.executable, *words[1:]]
    raise AssertionError(f"an example command runs deckopt or python, not {words[0]!r}")


_FOLDERS: dict[Path, Path] = {}


def folder_for(path: Path, tmp_path_factory) -> Path:
    """One working folder per documentation file, shared by its examples in file order."""
    if path not in _FOLDERS:
        folder = tmp_path_factory.mktemp(path.stem)
        for name in ("decks", "agents"):
            (folder / name).symlink_to(ROOT / name)
        (folder / "runs").mkdir()
        _FOLDERS[path] = folder
    return _FOLDERS[path]


def run(args: list[str], cwd: Path, refused: bool = False) -> str:
    """The stdout of a command that succeeds, or the stderr of one that is `refused` (exit 2)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3", "COLUMNS": "100"}
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    want = 2 if refused else 0
    assert done.returncode == want, f"{shlex.join(args)} exited {done.returncode}:\n{done.stderr[-3000:]}"
    return done.stderr if refused else done.stdout


def test_the_documentation_has_examples_to_run():
    assert len(ALL) >= 10
    assert {e.path.name for e in ALL} >= {"README.md"}


@pytest.mark.parametrize("example", ALL, ids=[e.name for e in ALL])
def test_example(example: Example, tmp_path_factory):
    cwd = folder_for(example.path, tmp_path_factory)
    if example.kind == "file":
        (cwd / example.file).parent.mkdir(parents=True, exist_ok=True)
        (cwd / example.file).write_text(example.text + "\n", encoding="utf-8")
    elif example.kind == "console":
        for command, expected in console_steps(example.text):
            stdout = run(argv(command), cwd, refused=REFUSAL.match(expected) is not None)
            assert matches(expected, stdout), f"$ {command}\n--- expected\n{expected}\n--- got\n{stdout}"
    else:
        stdout = run([sys.executable, "-c", example.text], cwd)
        if example.expected is not None:
            assert matches(example.expected, stdout), f"--- expected\n{example.expected}\n--- got\n{stdout}"


def test_the_matcher_reads_ellipses():
    assert matches("a\n...\nd", "a\nb\nc\nd") and matches("a\n...\nb", "a\nb")
    assert matches("took ... s", "took 4.6 s") and not matches("took ... s", "took 4.6 min")
    assert not matches("a\nb", "a\nb\nc") and not matches("a", "")
