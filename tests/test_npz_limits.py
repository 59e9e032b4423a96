"""Bounded `.npz` reads (games/npz.py): crafted small files whose headers declare hundreds of
megabytes (compressed zeros, a compression bomb), members lying about their compressed size, a
`.keras` archive that inflates to hundreds of megabytes, or a metadata text of 50 M characters. Each reader
(a model, a training checkpoint, a racing study's ground truth, pruning networks) ends in one line,
quickly and in little memory, because the headers are checked before any data is read."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from agents.learned import read_npz
from games.errors import UserError
from games.npz import MODEL_LIMITS, NpzLimits, read_npz_arrays

ROOT = Path(__file__).resolve().parent.parent
MIB = 1 << 20
#: what a bomb may add to the peak memory of the process that reads it
MEMORY_ALLOWANCE = 100 * MIB
#: the reader in a fresh process: its exit code, its stderr, and its peak memory on the last line of stdout
READ_IN_CHILD = """
import resource, sys
from deckopt.cli import main
code = main(sys.argv[1:])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
sys.exit(code)
"""


def npy_member(z: zipfile.ZipFile, name: str, dtype: str, shape: tuple, fill: int = 0) -> None:
    """A `.npy` member declaring `shape` of `dtype`, its data `fill` bytes streamed through deflate."""
    header = io.BytesIO()
    descr = np.lib.format.dtype_to_descr(np.dtype(dtype))
    np.lib.format.write_array_header_1_0(header, {"descr": descr, "fortran_order": False, "shape": shape})
    left = int(np.prod(shape)) * np.dtype(dtype).itemsize
    chunk = bytes([fill]) * (8 * MIB)
    with z.open(name + ".npy", "w", force_zip64=True) as f:
        f.write(header.getvalue())
        while left:
            f.write(chunk[: min(left, len(chunk))])
            left -= min(left, len(chunk))


def npz_file(path: Path, members: list[tuple], arrays: dict | None = None) -> Path:
    """A zip of bomb `members` (name, dtype, shape) beside plain `arrays`."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, value in (arrays or {}).items():
            with z.open(name + ".npy", "w") as f:
                np.lib.format.write_array(f, np.asarray(value), allow_pickle=False)
        for member in members:
            npy_member(z, *member)
    return path


def model_metadata() -> str:
    return json.dumps(
        {"format": "deckopt-q-network-1", "activations": ["linear"], "observation_size": 4, "num_actions": 2}
    )


@pytest.fixture(scope="module")
def bombs(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("bombs")
    return {
        # 256 MiB of weights in about 1 MB
        "weights": npz_file(
            folder / "weights.npz", [("kernel_0", "<f4", (8192, 8192))], {"metadata": model_metadata(), "bias_0": [0.0]}
        ),
        # a metadata text of 50 M characters (200 MB as numpy holds it) in about 0.4 MB
        "metadata": npz_file(folder / "metadata.npz", [("metadata", "<U50000000", ())]),
    }


def run_child(*argv: str, cwd: Path) -> tuple[int, str, int, float]:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", READ_IN_CHILD, *argv], capture_output=True, text=True, timeout=120, cwd=cwd
    )
    return proc.returncode, proc.stderr, int(proc.stdout.strip().splitlines()[-1]), time.perf_counter() - t0


@pytest.fixture(scope="module")
def baseline_memory(tmp_path_factory) -> int:
    """The peak memory of the same command on a shipped model: what a bomb may not exceed by much."""
    code, err, peak, _ = run_child(
        "match", "tic_tac_toe", "agents/pretrained/tic_tac_toe.npz", "random", "--games", "2", cwd=ROOT
    )
    assert code == 0, err
    return peak


@pytest.mark.parametrize("bomb", ["weights", "metadata"])
def test_a_model_bomb_ends_in_one_line_quickly_and_in_little_memory(bomb, bombs, baseline_memory):
    code, err, peak, seconds = run_child("match", "tic_tac_toe", str(bombs[bomb]), "random", "--games", "2", cwd=ROOT)
    assert code == 2 and err.count("\n") == 1 and "is not a readable deckopt model" in err, err
    assert peak < baseline_memory + MEMORY_ALLOWANCE, (peak, baseline_memory)
    assert seconds < 30


def test_a_checkpoint_bomb_ends_in_one_line_quickly_and_in_little_memory(tmp_path):
    from agents.learning.runfolder import read_checkpoint

    state = json.dumps({"rows": [], "last_eval": {}, "seconds": 0.0})
    bomb = npz_file(tmp_path / "checkpoint.npz", [("replay_obs", "<f4", (65536, 1024))], {"state": state})
    t0 = time.perf_counter()
    with pytest.raises(UserError, match="the checkpoint is damaged .*compression bomb") as caught:
        read_checkpoint(bomb)
    assert "\n" not in str(caught.value) and time.perf_counter() - t0 < 5


def test_a_ground_truth_bomb_ends_in_one_line_quickly_and_in_little_memory(tmp_path, baseline_memory):
    study = tmp_path / "racing"
    study.mkdir()
    settings = json.dumps({"opponents": 2, "deals": 2})
    npz_file(study / "truth.npz", [("store", "<f8", (4096, 4096, 2))], {"settings": settings})
    argv = ["study", "racing", str(study), "--random-decks", "4", "--opponents", "2", "--deals", "2", "--kept", "1"]
    code, err, peak, seconds = run_child(*argv, cwd=ROOT)
    assert code == 2 and err.count("\n") == 1 and "truth.npz is damaged" in err, err
    assert "compression bomb" in err
    assert peak < baseline_memory + MEMORY_ALLOWANCE and seconds < 30


def lie_about_compressed_sizes(path: Path) -> None:
    """Rewrite the compressed size each deflated member of the zip at `path` claims in its central
    directory entry to the size of the whole file (a reader that trusts it lets each member declare
    50 times the file; the inflater stops at the end of the member's stream all the same)."""
    with zipfile.ZipFile(path) as z:
        start = z.start_dir
    data = bytearray(path.read_bytes())
    at = start
    while data[at : at + 4] == b"PK\x01\x02":
        if data[at + 10 : at + 12] == zipfile.ZIP_DEFLATED.to_bytes(2, "little"):
            data[at + 20 : at + 24] = len(data).to_bytes(4, "little")
        names, extra, comment = (int.from_bytes(data[at + k : at + k + 2], "little") for k in (28, 30, 32))
        at += 46 + names + extra + comment
    path.write_bytes(bytes(data))


def test_members_lying_about_their_compressed_size_end_in_one_line_in_little_memory(tmp_path, baseline_memory):
    """Ten members of 40 MB of zeros (40 kB each deflated) before 1 MB of noise, each claiming the whole
    file as its compressed size: each declares less than 50 times that, the ten 400 MB; measured by
    inflating them, they are refused at 50 times the file's size."""
    path = tmp_path / "lying.npz"
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (10 * MIB,)})
    member = header.getvalue() + bytes(40 * MIB)
    noise = io.BytesIO()
    np.lib.format.write_array(noise, np.random.default_rng(0).integers(0, 255, MIB, dtype=np.uint8))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for i in range(10):
            z.writestr(f"kernel_{i}.npy", member)
        z.writestr("metadata.npy", _npy(model_metadata()), compress_type=zipfile.ZIP_STORED)
        z.writestr("noise.npy", noise.getvalue(), compress_type=zipfile.ZIP_STORED)  # what the lies read into
    lie_about_compressed_sizes(path)
    assert path.stat().st_size < 2 * MIB
    code, err, peak, _ = run_child("match", "tic_tac_toe", str(path), "random", "--games", "2", cwd=ROOT)
    assert peak < baseline_memory + MEMORY_ALLOWANCE, (peak, baseline_memory)
    assert code == 2 and err.count("\n") == 1 and "compression bomb" in err, err


def _npy(value) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asarray(value), allow_pickle=False)
    return buffer.getvalue()


def test_a_keras_bomb_ends_in_one_line_in_little_memory(tmp_path, baseline_memory):
    """A `.keras` model is a zip too: 200 MB of weights in about 200 kB are refused by inflating them
    in chunks, before Keras reads any."""
    path = tmp_path / "bomb.keras"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("metadata.json", json.dumps({"keras_version": "3.0.0"}))
        z.writestr("config.json", json.dumps({"class_name": "Sequential", "config": {"layers": []}}))
        z.writestr("model.weights.h5", bytes(200 * MIB))
    code, err, peak, _ = run_child("match", "tic_tac_toe", str(path), "random", "--games", "2", cwd=ROOT)
    assert peak < baseline_memory + MEMORY_ALLOWANCE, (peak, baseline_memory)
    assert code == 2 and err.count("\n") == 1 and "compression bomb" in err, err


def test_the_limits_name_what_they_refuse(tmp_path):
    """Object arrays, too many arrays, and members that are not arrays are refused from the headers."""
    with zipfile.ZipFile(tmp_path / "objects.npz", "w") as z:
        with z.open("x.npy", "w") as f:
            np.lib.format.write_array(f, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="an array of pickled Python objects is never read"):
        read_npz_arrays(tmp_path / "objects.npz", MODEL_LIMITS)
    np.savez(tmp_path / "many.npz", **{f"a{i}": np.zeros(1) for i in range(5)})
    with pytest.raises(ValueError, match="5 arrays, more than the 4 a model may hold"):
        read_npz_arrays(tmp_path / "many.npz", NpzLimits("model", max_bytes=MIB, max_text_chars=10, max_arrays=4))
    with zipfile.ZipFile(tmp_path / "text.npz", "w") as z:
        z.writestr("notes.txt", "hello")
    with pytest.raises(ValueError, match="'notes.txt' is not an array"):
        read_npz_arrays(tmp_path / "text.npz", MODEL_LIMITS)
    with pytest.raises(UserError, match="more than the 1000000 a model may hold"):
        np.savez(tmp_path / "long.npz", metadata=np.array("x" * 1_000_001))
        read_npz(tmp_path / "long.npz")


def test_every_shipped_npz_file_reads_within_its_limits():
    from agents.pruning.networks import load

    for path in sorted((ROOT / "agents" / "pretrained").glob("*.npz")):
        if path.name.startswith("pruning_"):
            load(path)
        else:
            read_npz(path)
