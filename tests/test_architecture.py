"""The architecture contract, checked by the suite itself: layers point one way and TensorFlow stays
out of what worker processes and quick commands import (contracts in pyproject.toml); no import
circles and no function-level imports of the project's own modules where they are forbidden."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

import games

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


def test_evolutions_layers_are_its_folders_and_top_modules():
    """The layers contract inside evolution names each layer by a folder or a top-level module, and
    every module of evolution/ is in one: a new deck space (evolution/spaces) or settings module
    (evolution/decks) is in its folder's layer without an edit of pyproject.toml."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c["name"] == "Layers inside evolution")
    names = [name.strip() for layer in layers for name in layer.split("|")]
    assert all(name.count(".") == 1 and name.startswith("evolution.") for name in names), names
    tops = {name.split(".")[1] for name in names}
    children = {p.stem for p in (ROOT / "evolution").iterdir() if p.suffix == ".py" and p.stem != "__init__"}
    children |= {p.name for p in (ROOT / "evolution").iterdir() if (p / "__init__.py").is_file()}
    assert children == tops
    assert {"decks", "spaces", "active_genes"} <= tops


def test_quick_imports_stay_light():
    """Importing the libraries (what loky workers and `deckopt play` do) must not load TensorFlow."""
    code = (
        "import sys, games, agents, agents.arena, agents.learned, agents.search.uct, agents.search.puct\n"
        "import evolution.scoring.fitness, evolution.decks.genome\n"
        "import deckopt.cli\n"
        "heavy = [m for m in ('tensorflow', 'keras') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]


def test_reading_a_runs_settings_loads_no_agents_module():
    """`evolution.config` and the settings of every in-tree deck space (each game's defaults, its
    default agent and a saved config read back) import games/ and evolution's bottom layer only."""
    code = (
        "import sys\n"
        "from evolution.config import EvolveConfig, config_from_settings, config_to_dict\n"
        "from evolution.decks.settings_registry import SETTINGS\n"
        "for game in SETTINGS:\n"
        "    config = config_from_settings(config_to_dict(EvolveConfig(game=game)), saved=True)\n"
        "    assert config.game == game and config.agent, config\n"
        "print(' '.join(m for m in sys.modules if m.split('.')[0] == 'agents'))\n"
    )
    result = subprocess.run([sys.executable, "-X", "importtime", "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == []
    timed = [line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if line.startswith("import time:")]
    assert "evolution.config" in timed and "games" in timed
    assert [name for name in timed if name.split(".")[0] == "agents"] == []


# --- import circles and function-level imports ---------------------------------------------------
# The graph: every import statement of every module of the four packages, at module level or inside
# a function, resolved to the project's modules (a package is its __init__; `from P import x` counts
# as importing P and, where x is a module, P.x), and, as Python runs them, the __init__ of every
# package above an imported module (outside the importer's own packages). A call of
# `importlib.import_module` counts as an import too (of its module where the name is a constant; one
# inside a function counts as a function-level import whatever it names): code loaded by name from
# outside the project goes through entry points (`importlib.metadata`). A circle is a strongly
# connected component of more than one module (Tarjan).
PACKAGES = ("games", "agents", "evolution", "deckopt")


def project_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            modules[name.removesuffix(".__init__")] = path
    return modules


def import_graph() -> tuple[dict[str, set[str]], list[tuple[str, str, int]]]:
    """(edges: module -> the project modules it imports, inner: (module, imported, line) of each
    import statement inside a function)."""
    modules = project_modules()

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    edges: dict[str, set[str]] = {m: set() for m in modules}
    inner = []
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        stack = [(ast.parse(path.read_text(encoding="utf-8")), False)]
        while stack:
            node, in_function = stack.pop()
            for child in ast.iter_child_nodes(node):
                nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
                stack.append((child, nested))
                if isinstance(child, ast.Call) and _called_name(child) == "import_module":
                    name = child.args[0] if child.args else None
                    constant = isinstance(name, ast.Constant) and isinstance(name.value, str)
                    hits = [resolve(name.value)] if constant else []
                    edges[module].update(h for h in hits if h and h != module)
                    if nested:
                        inner.append((module, hits[0] if hits and hits[0] else "<computed name>", child.lineno))
                    continue
                if isinstance(child, ast.Import):
                    targets = [alias.name for alias in child.names]
                elif isinstance(child, ast.ImportFrom):
                    base = child.module or ""
                    if child.level:
                        parts = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                        base = ".".join(parts + ([base] if base else []))
                    targets = [base] + [f"{base}.{alias.name}" for alias in child.names]
                else:
                    continue
                hits = [r for r in map(resolve, targets) if r and r != module]
                edges[module].update(hits)
                edges[module].update(p for hit in hits for p in parents(hit) if not in_package(module, p))
                if hits and nested:
                    inner.append((module, hits[0], child.lineno))
    return edges, inner


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def parents(module: str) -> list[str]:
    """The packages above `module`, innermost first."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]


def import_circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return circles


def in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_graph_counts_import_module_calls(tmp_path, monkeypatch):
    """`importlib.import_module` inside a function is a function-level import, and with a constant
    name an edge of the graph: a circle hidden behind it is still a circle."""
    package = tmp_path / "games"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("import games.b\n")
    (package / "b.py").write_text(
        "import importlib\n\ndef f(name):\n    importlib.import_module('games.a')\n    importlib.import_module(name)\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGES", ("games",))
    edges, inner = import_graph()
    assert import_circles(edges) == [["games.a", "games.b"]]
    assert sorted(inner) == [("games.b", "<computed name>", 5), ("games.b", "games.a", 4)]


def test_no_import_circle_at_all():
    edges, inner = import_graph()
    assert import_circles(edges) == [] and inner == []


def test_the_circle_count_finds_a_circle_and_ignores_a_chain():
    assert import_circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_circle_touches(package):
    edges, _ = import_graph()
    circles = [c for c in import_circles(edges) if any(in_package(m, package) for m in c)]
    assert circles == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_function_level_import_of_the_project_in(package):
    _, inner = import_graph()
    assert [i for i in inner if in_package(i[0], package)] == []


def test_engines_reach_their_helpers_through_the_registry():
    """Each registered game's vectorised engine and words are found although the engine does not
    import them (the helper imports the engine)."""
    from games.connect_four_batch import ConnectFourBatch
    from games.gwent_lite_batch import GwentLiteBatch
    from games.registry import GAMES, text_module

    assert games.game_class("connect_four").batch_class is ConnectFourBatch
    assert games.game_class("gwent_lite").batch_class is GwentLiteBatch
    assert games.game_class("durak").batch_class is None

    class Impostor(games.game_class("tic_tac_toe")):
        name = "connect_four"  # a name alone does not borrow another game's engine

    assert Impostor.batch_class is None
    for name, entry in GAMES.items():
        if entry.text is not None:
            assert text_module(name) is entry.text
            state = games.make(name).new_initial_state(np.random.default_rng(0))
            assert str(state) and state.view(0)


def test_every_engine_checks_its_actions_with_the_one_helper():
    """The check at the top of `apply_action` (a whole number, legal) is `State.checked_action`, asked
    by every engine; no engine repeats it."""
    for path in sorted((ROOT / "games").glob("*.py")):
        if path.name != "base.py":
            assert "__class__ is not int" not in path.read_text(), path.name
    for name in games.GAME_NAMES:
        state = games.make(name).new_initial_state(np.random.default_rng(0))
        legal = state.legal_actions()[0]
        for bad in (float(legal), True, str(legal), np.bool_(True), -1, state.game.num_actions):
            with pytest.raises(games.IllegalActionError):
                state.clone().apply_action(bad)
        assert state.checked_action(np.int64(legal)) == legal and type(state.checked_action(np.int64(legal))) is int
