"""Deck evolutions and test records under several CPU kernels: how far a result moves when the
float32 arithmetic of its networks rounds differently (the reproducibility page).

    python scripts/results/cpu_kernels.py --kernels Haswell SkylakeX Prescott -- --agent evaluator --jobs 2
    python scripts/results/cpu_kernels.py --records --kernels Haswell SkylakeX Prescott

Each kernel runs in a fresh process with OPENBLAS_CORETYPE=KERNEL (OpenBLAS's kernel for that CPU
family; SkylakeX needs AVX-512) and, for `Prescott`, also without numpy's AVX2 and AVX-512 loops and
without TensorFlow's oneDNN, as on an old x86-64 CPU.

Without --records: `deckopt evolve ARGS --out TMP/KERNEL --quiet` once per kernel; one Markdown row
per kernel: the champion, its validation score with its 95 % interval and games, and, against the
first kernel's run, the generations whose decks differ and how far the validation score moves.

With --records: the search record (tests/fixtures/search) and the weights that the resume fixtures
reach (tests/fixtures/resume) once per kernel; one row per kernel: against the first kernel's, how
many whole numbers (moves, visit counts) differ and the largest absolute and relative difference of
the floats (root values, weights).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
OLD_CPU = {"NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR", "TF_ENABLE_ONEDNN_OPTS": "0"}


def kernel_env(kernel: str) -> dict:
    env = {**os.environ, "OPENBLAS_CORETYPE": kernel, "PYTHONPATH": str(ROOT)}
    return {**env, **OLD_CPU} if kernel == "Prescott" else env


def evolve(kernel: str, args: list[str], out: Path) -> dict:
    """Run the evolution under `kernel`; its champion, validation and each generation's decks."""
    argv = [sys.executable, "-m", "deckopt", "evolve", *args, "--out", str(out), "--quiet"]
    subprocess.run(argv, env=kernel_env(kernel), cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    generations = sorted((out / "generations").glob("gen_*.json"))
    return {
        "champion": json.loads((out / "champion.json").read_text())["cards"],
        "validation": json.loads((out / "validation.json").read_text())["overall"],
        "decks": [[d["cards"] for d in json.loads(f.read_text())["decks"]] for f in generations],
    }


RECORDS = f"""
import importlib.util, json, tempfile
from pathlib import Path

def load(folder):
    spec = importlib.util.spec_from_file_location(folder, Path({str(FIXTURES)!r}) / folder / "make.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

search, resume = load("search"), load("resume")
with tempfile.TemporaryDirectory() as tmp:
    weights = {{a: [w.tolist() for w in resume.resume_weights(a, resume.HERE / a, Path(tmp))] for a in resume.SETTINGS}}
print(json.dumps({{"search": search.record(), "weights": weights}}))
"""


def records(kernel: str) -> dict:
    """The search record and the resumed weights computed under `kernel`."""
    done = subprocess.run(
        [sys.executable, "-c", RECORDS], env=kernel_env(kernel), cwd=ROOT, check=True, capture_output=True, text=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def differences(a, b, out: dict) -> dict:
    """Walk two JSON-like values of one shape: count differing whole numbers, track the largest
    absolute and relative float difference."""
    if isinstance(a, dict):
        for key in a:
            differences(a[key], b[key], out)
    elif isinstance(a, list):
        for x, y in zip(a, b, strict=True):
            differences(x, y, out)
    elif isinstance(a, float) or isinstance(b, float):
        gap = abs(a - b)
        out["abs"] = max(out["abs"], gap)
        out["rel"] = max(out["rel"], gap / abs(b) if b else 0.0)
    elif a != b:
        out["whole"] += 1
    return out


def deck_text(cards: list[int]) -> str:
    counts: dict[int, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    return " ".join(f"{n}x{c}" for c, n in sorted(counts.items(), reverse=True))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", nargs="+", default=["Haswell", "SkylakeX", "Prescott"])
    parser.add_argument("--records", action="store_true", help="the test records instead of an evolution")
    parser.add_argument("evolve_args", nargs=argparse.REMAINDER, help="-- then the arguments of `deckopt evolve`")
    args = parser.parse_args(argv)
    evolve_args = [a for a in args.evolve_args if a != "--"]
    if args.records:
        print("| kernel | whole numbers that differ | largest float difference | largest relative difference |")
        print("|---|---|---|---|")
        first = None
        for kernel in args.kernels:
            now = records(kernel)
            first = first or now
            d = differences(now, first, {"whole": 0, "abs": 0.0, "rel": 0.0})
            print(f"| {kernel} | {d['whole']} | {d['abs']:.1e} | {d['rel']:.1e} |")
        return
    print("| kernel | champion | validation [95% CI] | games | generations whose decks differ | validation moves |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        first = None
        for kernel in args.kernels:
            run = evolve(kernel, evolve_args, Path(tmp) / kernel)
            first = first or run
            v = run["validation"]
            differ = [str(g) for g, (a, b) in enumerate(zip(run["decks"], first["decks"])) if a != b]
            delta = v["score"] - first["validation"]["score"]
            print(
                f"| {kernel} | {deck_text(run['champion'])} | {v['score']:.3f} [{v['ci95'][0]:.3f}, {v['ci95'][1]:.3f}]"
                f" | {v['games']} | {', '.join(differ) or 'none'} | {delta:+.3f} |"
            )


if __name__ == "__main__":
    main()
