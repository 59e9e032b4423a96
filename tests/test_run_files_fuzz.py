"""Generated run files (Hypothesis): every reader of a JSON or TOML run file, of a model `.npz` and
of a `.keras` model ends in its result or in one line (UserError), never another exception, within
an overall limit of time (no wait on a FIFO or a device) and the size bounds of a file.

Each kind gets files that are arbitrary JSON, arbitrary bytes, and (most) a valid file of that kind
with one part replaced, removed or added, so the checks deep inside a file are reached too. Each
reader also gets chains of links in place of its file (ending in a file inside or outside its
folder, a FIFO, a folder, a device, a loop or nothing) and special files (a FIFO, a socket, a
folder). FUZZ_EXAMPLES sets the files a kind (2000), FUZZ_KERAS_EXAMPLES those of `.keras` models (100:
Keras reads one in about 0.2 s)."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import socket
import tempfile
import tomllib
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.dqn.config import DQNConfig
from agents.learned import read_keras, read_npz
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
#: the overall limit for reading one generated file: generous, so that a loaded machine never reaches
#: it, while a reader waiting on a FIFO, reading a device without end or taking minutes over a small
#: file fails the test when it does
READ_LIMIT = 120

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


class Waited(Exception):
    """A reader still reading when READ_LIMIT was reached."""


def _on_alarm(signum, frame):
    raise Waited(f"still reading after {READ_LIMIT} s")


def _read_within_limit(read) -> str | None:
    """None when `read()` gives a result, else its refusal, checked to be one short line; Waited when
    it reads for longer than READ_LIMIT."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(READ_LIMIT)
    try:
        read()
        return None
    except UserError as exc:
        message = str(exc)
        assert "\n" not in message and len(message) <= MAX_MESSAGE, message
        return message
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _ends_in_one_line(read, path: Path, content: bytes):
    path.write_bytes(content)
    _read_within_limit(read)


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


def test_a_file_above_the_size_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "big.json"
    with open(path, "wb") as f:  # sparse: no disk used, and never read
        f.truncate(MAX_FILE_BYTES + 1)
    streams = []  # every descriptor made into a stream that bytes could be read from
    real_fdopen = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: streams.append(fd) or real_fdopen(fd, *a, **k))
    with pytest.raises(UserError, match="too large"):
        read_data(path, "run file")
    assert streams == [] and os.path.getsize(path) > MAX_FILE_BYTES
    small = tmp_path / "small.json"
    small.write_text("{}")
    assert read_data(small, "run file") == {} and len(streams) == 1  # the probe sees a read that happens


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


# --- .keras models -------------------------------------------------------------------------------
KERAS_SAMPLE = Path(__file__).parents[1] / "agents" / "pretrained" / "incan_gold.keras"
with zipfile.ZipFile(KERAS_SAMPLE) as _archive:
    KERAS_MEMBERS = {name: _archive.read(name) for name in _archive.namelist()}
#: generated `.keras` files: Keras takes about 0.2 s to read one, so the suite reads a hundred
#: (FUZZ_KERAS_EXAMPLES=2000 for as many as the other kinds)
FUZZ_KERAS = settings(FUZZ, max_examples=int(os.environ.get("FUZZ_KERAS_EXAMPLES", 100)))


def _zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@st.composite
def _keras_models(draw) -> bytes:
    """A `.keras` model with its config or metadata changed in one part, its weights cut short or
    replaced, or a member removed or added."""
    members = dict(KERAS_MEMBERS)
    what = draw(st.sampled_from(["config.json", "metadata.json", "weights", "remove", "add"]))
    if what in ("config.json", "metadata.json"):
        members[what] = json.dumps(draw(_mutated(json.loads(members[what])))).encode()
    elif what == "weights":
        weights = members["model.weights.h5"]
        members["model.weights.h5"] = draw(st.sampled_from([weights[: draw(st.integers(0, len(weights)))], b""]))
    elif what == "remove":
        del members[draw(st.sampled_from(sorted(members)))]
    else:
        members[draw(st.from_regex(r"[a-z_.0-9]{1,12}", fullmatch=True))] = draw(st.binary(max_size=64))
    return _zip_bytes(members)


KERAS_SPECIAL = [
    _zip_bytes({**KERAS_MEMBERS, "model.weights.h5": b"\0" * 50_000_000}),  # a bomb: 50 MB in about 50 kB
    _zip_bytes({}),
    KERAS_MEMBERS["config.json"],  # not a zip
]


@FUZZ_KERAS
@given(content=st.one_of(_keras_models(), _keras_models(), st.binary(max_size=200), st.sampled_from(KERAS_SPECIAL)))
def test_keras_model_file(run_folder, content):
    path = _scratch(run_folder, "keras") / "model.keras"
    _ends_in_one_line(lambda: read_keras(path), path, content)


# --- links and special files in place of a run file ----------------------------------------------
@dataclass(frozen=True)
class Reader:
    """A reader of one kind of file: where the file lies, how it is read, a sample of its contents,
    and whether it is a file of a run folder (a link leading out of that folder is never read)."""

    name: str
    path: Callable[[Path], Path]  # its path in a scratch folder of its own
    read: Callable[[Path], object]
    sample: bytes
    in_run_folder: bool = True


def _run_file(relative: str) -> Callable[[Path], Path]:
    return lambda scratch: scratch / "run" / relative


def _read_checkpoint(path: Path):
    folder = RunFolder(path.parent.parent)
    config = folder.read_config()
    return folder.read_state(config, space_for(config))


READERS = [
    Reader(
        "evolution config",
        _run_file("config.json"),
        lambda p: RunFolder(p.parent).read_config(),
        (RUN / "config.json").read_bytes(),
    ),
    Reader(
        "evolution checkpoint",
        _run_file("checkpoints/checkpoint.json"),
        _read_checkpoint,
        (RUN / "checkpoints" / "checkpoint.json").read_bytes(),
    ),
    Reader(
        "generation",
        _run_file("generations/gen_0001.json"),
        lambda p: RunFolder(p.parent.parent).read_generation(1),
        (RUN / "generations" / "gen_0001.json").read_bytes(),
    ),
    Reader(
        "validation",
        _run_file("validation.json"),
        lambda p: RunFolder(p.parent).read_validation(),
        json.dumps(VALIDATION).encode(),
    ),
    Reader(
        "sweep",
        _run_file("sweep.json"),
        lambda p: read_sweep(p.parent),
        json.dumps(_sweep(MEASUREMENT_SAMPLE)).encode(),
    ),
    Reader(
        "training config",
        _run_file("config.json"),
        lambda p: read_training_config(p, "tic_tac_toe", DQNConfig, "dqn"),
        (FIXTURES / "resume" / "dqn" / "config.json").read_bytes(),
    ),
    Reader("study", _run_file("study.json"), read_study, json.dumps(STUDY).encode()),
    Reader("deck", lambda scratch: scratch / "deck.toml", load_deck, _toml(DECK), in_run_folder=False),
    Reader(
        "model",
        lambda scratch: scratch / "model.npz",
        read_npz,
        (Path(__file__).parents[1] / "agents" / "pretrained" / "incan_gold.npz").read_bytes(),
        in_run_folder=False,
    ),
    Reader(
        "keras model",
        lambda scratch: scratch / "model.keras",
        read_keras,
        KERAS_SAMPLE.read_bytes(),
        in_run_folder=False,
    ),
]


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()


def _outcome(reader: Reader, path: Path) -> str | None:
    """None when `reader` reads `path` to a result, else its one-line refusal."""
    return _read_within_limit(lambda: reader.read(path))


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> dict[str, Path]:
    """A scratch folder per reader (a copy of the fixture's run folder in each), and a folder outside them."""
    base = tmp_path_factory.mktemp("in_place")
    folders = {"outside": base / "outside"}
    folders["outside"].mkdir()
    for reader in READERS:
        folders[reader.name] = base / reader.name.replace(" ", "_")
        shutil.copytree(RUN, folders[reader.name] / "run")
    return folders


@pytest.fixture(scope="module")
def plain_outcomes(scratch) -> dict[str, str | None]:
    """What each reader makes of its sample as a plain file."""
    out = {}
    for reader in READERS:
        path = reader.path(scratch[reader.name])
        _remove(path)
        path.write_bytes(reader.sample)
        out[reader.name] = _outcome(reader, path)
    return out


#: where a chain of links ends
ENDS = ["file inside", "file outside", "fifo inside", "fifo outside", "folder", "dangling", "loop"]
ENDS += ["/dev/zero", "/dev/null", "/dev/urandom"]


@FUZZ
@given(
    reader=st.sampled_from(READERS),
    depth=st.integers(1, 6),
    end=st.sampled_from(ENDS),
    content=st.none() | st.binary(max_size=200),
    relative=st.booleans(),
)
def test_a_link_in_place_of_a_file_ends_in_its_result_or_one_line(
    scratch, plain_outcomes, reader, depth, end, content, relative
):
    """A chain of `depth` links in place of the file, ending in `end` (a file holding the reader's
    sample, or `content`): the file the chain ends in read as itself, or one line; a run folder's
    file that leads out of its folder never read."""
    path = reader.path(scratch[reader.name])
    here, outside = path.parent, scratch["outside"]
    for place in (here, outside):
        for old in place.glob(".chain*"):
            _remove(old)
    _remove(path)
    target = (outside if end.endswith("outside") else here) / f".chain_end{path.suffix}"
    if end.startswith("file"):
        target.write_bytes(reader.sample if content is None else content)
    elif end.startswith("fifo"):
        os.mkfifo(target)
    elif end == "folder":
        target.mkdir()
    elif end == "loop":
        target.symlink_to(target.name)
    elif end.startswith("/dev/"):
        target = Path(end)
    links = [here / f".chain{k}{path.suffix}" for k in range(depth - 1)] + [path]
    for link, to in zip(links[::-1], [target, *links[::-1]]):
        link.symlink_to(os.path.relpath(to, link.parent) if relative else to)
    try:
        got = _outcome(reader, path)
    finally:
        _remove(path)
        path.write_bytes(reader.sample)
    if end in ("file inside", "file outside") and not (reader.in_run_folder and end == "file outside"):
        if content is None:  # a link to the file reads as the file itself
            assert (
                got == plain_outcomes[reader.name]
                or (got or "").replace(f"{target}", f"{path}") == (plain_outcomes[reader.name])
            ), got
    elif reader.in_run_folder and end != "folder":
        assert got is not None, f"{reader.name}: a link to {end} was read as the run's file"


SPECIAL_FILES = ["fifo", "socket", "folder"]


@pytest.mark.parametrize("special", SPECIAL_FILES)
@pytest.mark.parametrize("reader", READERS, ids=[r.name for r in READERS])
def test_a_special_file_in_place_of_a_file_ends_in_one_line(scratch, reader, special):
    path = reader.path(scratch[reader.name])
    _remove(path)
    if special == "fifo":
        os.mkfifo(path)
    elif special == "folder":
        path.mkdir()
        (path / "inside.json").write_text("{}")
    listener = socket.socket(socket.AF_UNIX) if special == "socket" else None
    try:
        if listener is not None:
            listener.bind(str(path))
        refusal = _outcome(reader, path)
        assert refusal is not None and "not found" not in refusal, refusal  # the file is there: that is not why
    finally:
        if listener is not None:
            listener.close()
        _remove(path)
        path.write_bytes(reader.sample)
