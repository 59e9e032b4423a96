"""One deck evolution under several CPU kernels: how far a run moves when the float32 arithmetic of
its networks rounds differently (the reproducibility page).

    python scripts/results/cpu_kernels.py --kernels Haswell SkylakeX Prescott -- --agent evaluator --jobs 2

Runs `deckopt evolve ARGS --out TMP/KERNEL --quiet` once per kernel, in a fresh process with
OPENBLAS_CORETYPE=KERNEL (OpenBLAS's kernel for that CPU family; SkylakeX needs AVX-512) and, for
`Prescott`, also without numpy's AVX2 and AVX-512 loops and without TensorFlow's oneDNN, as on an
old x86-64 CPU. Prints one Markdown row per kernel: the champion, its validation score with its 95 %
interval and games, and, against the first kernel's run, the generations whose decks differ and the
validation score's difference.
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


def deck_text(cards: list[int]) -> str:
    counts: dict[int, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    return " ".join(f"{n}x{c}" for c, n in sorted(counts.items(), reverse=True))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", nargs="+", default=["Haswell", "SkylakeX", "Prescott"])
    parser.add_argument("evolve_args", nargs=argparse.REMAINDER, help="-- then the arguments of `deckopt evolve`")
    args = parser.parse_args(argv)
    evolve_args = [a for a in args.evolve_args if a != "--"]
    print("| kernel | champion | validation [95% CI] | games | generations whose decks differ | validation difference |")
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
