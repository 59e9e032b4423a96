"""Generated run files (Hypothesis): every reader of a JSON or TOML run file, and of a model `.npz`,
ends in its result or in one line (UserError), never another exception, within the time and size
bounds of a file.

Each kind gets files that are arbitrary JSON, arbitrary bytes, and (most) a valid file of that kind
with one part replaced, removed or added, so the checks deep inside a file are reached too."""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
import time
import tomllib
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.dqn.config import DQNConfig
from agents.learned import read_npz
from agents.learning.runfolder import read_training_config
from evolution.runfolder import RunFolder
from evolution.spaces.registry import space_for
from evolution.studies.exploitability import read_study
from evolution.studies.sweep import MEASUREMENT, kept_measurement, read_sweep
from games.decks import load_deck
from games.errors import UserError
from games.gwent_abilities_cards import load_ability_deck
from games.schema import MAX_FILE_BYTES, read_data

FIXTURES = Path(__file__).parent / "fixtures"
RUN = FIXTURES / "evolve" / "gwent_racing"
FUZZ = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", 2000)),
    derandomize=True,  # the same files on every run: a failure found once is found again
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
#: the longest one-line message a damaged file may give
MAX_MESSAGE = 600
#: the most seconds reading one generated file may take
MAX_SECONDS = 10.0

LEAVES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([-1, 0, 2**63, 2**200, -(2**200), 10**40])
    | st.floats()
    | st.text(max_size=12)
)
JSON_VALUES = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


#: contents no generated value makes: a number of 5000 digits, nesting beyond the recursion limit
SPECIAL = [
    b'{"seed": ' + b"9" * 5000 + b"}",
    b"[" * 100_000 + b"]" * 100_000,
    b"seed = " + b"9" * 5000,
    b"x = " + b"[" * 100_000,
]


def _paths(value, path=()):
    """Every place in a JSON value: the paths of its tables' keys and lists' items."""
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*path, i))


def _mutated(sample):
    """A strategy of `sample` with one part replaced by any JSON value, removed, or given a sibling."""
    text = json.dumps(sample)
    places = list(_paths(sample))

    @st.composite
    def mutate(draw):
        data = json.loads(text)
        path = draw(st.sampled_from(places))
        value = draw(JSON_VALUES)
        if not path:
            return value
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        op = draw(st.sampled_from(["replace", "remove", "add"]))
        if op == "replace":
            parent[path[-1]] = value
        elif op == "remove":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.text(max_size=8))] = value
        else:
            parent.append(value)
        return data

    return mutate()


def _files(sample, toml: bool = False):
    """File contents (bytes): a mutated sample (most), any JSON value, or any bytes."""
    as_text = _toml if toml else (lambda v: json.dumps(v).encode())
    return st.one_of(
        _mutated(sample).map(as_text),
        _mutated(sample).map(as_text),
        _mutated(sample).map(as_text),
        JSON_VALUES.map(as_text),
        st.binary(max_size=200),
        st.sampled_from(SPECIAL),
    )


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float, str)):
        return json.dumps(v)  # not always TOML (NaN, a huge number, a control character): the reader says so
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    return '""'  # TOML has no null


def _toml(value) -> bytes:
    if not isinstance(value, dict):
        return f"cards = {_toml_value(value)}\n".encode()
    return "".join(f"{json.dumps(k)} = {_toml_value(v)}\n" for k, v in value.items()).encode()


def _ends_in_one_line(read, path: Path, content: bytes):
    path.write_bytes(content)
    start = time.perf_counter()
    try:
        read()
    except UserError as exc:
        message = str(exc)
        assert "\n" not in message and len(message) <= MAX_MESSAGE, message
    assert time.perf_counter() - start < MAX_SECONDS


@pytest.fixture(scope="module")
def run_folder():
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        shutil.copytree(RUN, run)
        (run / "champion.json").write_text(json.dumps({"cards": _fixture_generation()["decks"][0]["cards"]}))
        yield RunFolder(run)


def _fixture_generation() -> dict:
    return json.loads((RUN / "generations" / "gen_0001.json").read_text())


def _scratch(run_folder: RunFolder, name: str) -> Path:
    """A copy of the run folder whose file `name` the test rewrites."""
    folder = run_folder.path.parent / name.replace("/", "_")
    if not folder.exists():
        shutil.copytree(run_folder.path, folder)
    return folder


@FUZZ
@given(content=_files(json.loads((RUN / "config.json").read_text())))
def test_evolution_config(run_folder, content):
    folder = RunFolder(_scratch(run_folder, "config"))
    _ends_in_one_line(folder.read_config, folder.config, content)


@FUZZ
@given(content=_files(json.loads((FIXTURES / "resume" / "dqn" / "config.json").read_text())))
def test_training_config(run_folder, content):
    path = run_folder.path.parent / "training" / "config.json"
    path.parent.mkdir(exist_ok=True)
    _ends_in_one_line(lambda: read_training_config(path, "tic_tac_toe", DQNConfig, "dqn"), path, content)


@FUZZ
@given(content=_files(json.loads((RUN / "checkpoints" / "checkpoint.json").read_text())))
def test_evolution_checkpoint(run_folder, content):
    folder = RunFolder(_scratch(run_folder, "checkpoint"))
    config = folder.read_config()
    space = space_for(config)
    _ends_in_one_line(lambda: folder.read_state(config, space), folder.checkpoint, content)


@FUZZ
@given(content=_files(_fixture_generation()))
def test_generation_file(run_folder, content):
    folder = RunFolder(_scratch(run_folder, "generation"))
    _ends_in_one_line(lambda: folder.read_generation(1), folder.generation_file(1), content)


VALIDATION = {
    "deck": [6, 6, 5, 4],
    "agent": "heuristic",
    "seed": 0,
    "games_per_reference": 10,
    "games": 20,
    "overall": {"score": 0.6, "ci95": [0.5, 0.7], "games": 20, "wins": 12, "draws": 0, "losses": 8},
    "references": [
        {"name": "flat", "group": "flat", "cards": [4] * 25, "score": 0.6, "ci95": [0.4, 0.8], "lower_above_0.5": False}
    ],
    "groups": [{"group": "flat", "decks": 1, "score": 0.6, "ci95": [0.4, 0.8]}],
    "beaten": 0,
    "generation": 1,
}


@FUZZ
@given(content=_files(VALIDATION))
def test_validation_file(run_folder, content):
    folder = RunFolder(_scratch(run_folder, "validation"))
    _ends_in_one_line(folder.read_validation, folder.validation, content)


STUDY = {
    "game": "gwent_lite",
    "spec": "heuristic",
    "config": None,
    "init": "",
    "seed": 0,
    "episodes": 64,
    "minutes": None,
    "decks": [[4] * 25],
    "panel": [[4] * 25],
    "pool_share": 1.0,
}


@FUZZ
@given(content=_files(STUDY))
def test_study_file(run_folder, content):
    path = run_folder.path.parent / "study" / "study.json"
    path.parent.mkdir(exist_ok=True)
    _ends_in_one_line(lambda: read_study(path), path, content)


def _sweep(measurement: dict) -> dict:
    settings = {"game": "gwent_lite", "rule": "min_cards", "values": [20], "fields": 3, "games": 2}
    return {**settings, "dominance": 0.6, "descriptors": ["a", "b"], "rows": [measurement]}


MEASUREMENT_SAMPLE = {
    "value": 20,
    "champion": _fixture_generation()["decks"][0]["cards"],
    "random": {"score": 0.6, "ci95": [0.5, 0.7], "games": 6, "wins": 3, "draws": 0, "losses": 3, "opponents": 3},
    "rivals": None,
    "text": "",
    "descriptors": [0.1],
}


@FUZZ
@given(content=_files(_sweep(MEASUREMENT_SAMPLE)))
def test_sweep_file(run_folder, content):
    out = run_folder.path.parent / "sweep"
    out.mkdir(exist_ok=True)
    _ends_in_one_line(lambda: read_sweep(out), out / "sweep.json", content)


@FUZZ
@given(content=_files(MEASUREMENT_SAMPLE))
def test_sweep_measurement(run_folder, content):
    folder = RunFolder(_scratch(run_folder, "measurement"))
    _ends_in_one_line(lambda: kept_measurement(folder, "min_cards", 20, 0.6), folder.path / MEASUREMENT, content)


DECK = {"name": "flat", "cards": [4] * 25, "rules": {"min_cards": 25, "max_total": 100, "min_power": 1}}


@FUZZ
@given(content=_files(DECK, toml=True))
def test_deck_file(run_folder, content):
    path = run_folder.path.parent / "deck.toml"
    _ends_in_one_line(lambda: load_deck(path), path, content)


ABILITY_DECK = tomllib.loads((Path(__file__).parents[1] / "decks" / "gwent_abilities" / "plain.toml").read_text())


@FUZZ
@given(content=_files(ABILITY_DECK, toml=True))
def test_ability_deck_file(run_folder, content):
    path = run_folder.path.parent / "ability_deck.toml"
    _ends_in_one_line(lambda: load_ability_deck(path), path, content)


def test_a_file_above_the_size_limit_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "big.json"
    with open(path, "wb") as f:  # sparse: no disk used, and never read
        f.truncate(MAX_FILE_BYTES + 1)
    start = time.perf_counter()
    with pytest.raises(UserError, match="too large"):
        read_data(path, "run file")
    assert time.perf_counter() - start < 0.5 and os.path.getsize(path) > MAX_FILE_BYTES


# --- model .npz files ----------------------------------------------------------------------------
MODEL_METADATA = {
    "format": "deckopt-q-network-1",
    "game": "tic_tac_toe",
    "game_config": {},
    "observation_size": 18,
    "num_actions": 9,
    "layer_sizes": [4, 9],
    "activations": ["relu", "tanh"],
}
MODEL_SHAPES = {"kernel_0": (18, 4), "bias_0": (4,), "kernel_1": (4, 9), "bias_1": (9,)}
DTYPES = ["float32", "float64", "int8", "bool", "<U3", "complex64"]
ARRAYS = st.builds(
    lambda shape, dtype: np.zeros(shape, dtype=dtype),
    st.lists(st.integers(0, 5), max_size=3).map(tuple),
    st.sampled_from(DTYPES),
)


def _npz_bytes(arrays: dict) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _declared_only(shape: tuple, dtype: str = "<f4") -> bytes:
    """A model whose first kernel's header declares `shape` with no data behind it (a bomb's header)."""
    header = io.BytesIO()
    np.lib.format.write_array_header_2_0(header, {"descr": dtype, "fortran_order": False, "shape": shape})
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("kernel_0.npy", header.getvalue() + b"\0" * 64)
        archive.writestr("metadata.npy", _npz_member(np.array(json.dumps(MODEL_METADATA))))
    return buffer.getvalue()


def _npz_member(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=False)
    return buffer.getvalue()


@st.composite
def _models(draw) -> bytes:
    """A model file with its metadata or one array replaced, removed or added."""
    arrays = {name: np.full(shape, 0.1, dtype=np.float32) for name, shape in MODEL_SHAPES.items()}
    metadata = MODEL_METADATA
    what = draw(st.sampled_from(["metadata", "replace", "remove", "add"]))
    if what == "metadata":
        metadata = draw(_mutated(MODEL_METADATA))
    elif what == "replace":
        arrays[draw(st.sampled_from(sorted(arrays)))] = draw(ARRAYS)
    elif what == "remove":
        del arrays[draw(st.sampled_from(sorted(arrays)))]
    else:
        arrays[draw(st.from_regex(r"[a-z_0-9]{1,10}", fullmatch=True))] = draw(ARRAYS)
    return _npz_bytes({**arrays, "metadata": np.array(json.dumps(metadata))})


MODEL_SPECIAL = [
    _declared_only((100_000, 100_000)),
    _declared_only((2**40,), "|u1"),
    _declared_only((18, 4), "|O"),
    _npz_bytes({"metadata": np.array("x" * 2_000_000)}),
]


@FUZZ
@given(content=st.one_of(_models(), _models(), _models(), st.binary(max_size=200), st.sampled_from(MODEL_SPECIAL)))
def test_model_file(run_folder, content):
    path = _scratch(run_folder, "model") / "model.npz"
    _ends_in_one_line(lambda: read_npz(path), path, content)


def test_a_key_that_would_break_the_line_is_shown_quoted(run_folder):
    """A key read from the file with a newline in it is named quoted, so the message stays one line."""
    folder = RunFolder(_scratch(run_folder, "quoted_key"))
    config = folder.read_config()
    sample = json.loads((RUN / "checkpoints" / "checkpoint.json").read_text())
    sample["pool"][0]["by_opponents"]["\n"] = None
    folder.checkpoint.write_text(json.dumps(sample))
    with pytest.raises(UserError) as caught:
        folder.read_state(config, space_for(config))
    assert "\n" not in str(caught.value) and "'\\n'" in str(caught.value), str(caught.value)
