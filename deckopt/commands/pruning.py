"""`deckopt train-pruning`: the pruning networks of `mcts:...,prune=` (datasets, training, files).

deckopt train-pruning                        # both: uniform, then bimodal fitted to MCTS self-play
deckopt train-pruning --arms uniform --out runs/pruning
"""

from __future__ import annotations

import sys
from pathlib import Path

from agents.pruning import make
from agents.search.mcts_spec import parse_spec
from deckopt.commands._common import MAX_COUNT, int_at_least, print_json, seed_int
from games.errors import UserError
from games.fileio import check_writable_dir
from games.folder_lock import folder_lock

DEFAULT_OUT = Path(__file__).resolve().parents[2] / "agents" / "pretrained"


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "train-pruning",
        help="make the MCTS pruning networks (UCB1 bandit datasets + Keras training)",
        description="Simulate UCB1 on Bernoulli bandits (arm means uniform, or bimodal as fitted to "
        f"MCTS root values from self-play on {', '.join(name for name, _ in make.ROOT_GAMES)}), "
        "train the Safety and Probability Networks and save them as OUT/pruning_ARMS.npz. Progress on stderr.",
    )
    p.add_argument("--arms", choices=["uniform", "bimodal", "both"], default="both", help="arm-mean distribution")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder of the .npz files (default: the shipped ones)")
    p.add_argument("--seed", type=seed_int, default=0, help="root seed (default 0)")
    p.add_argument(
        "--simulations",
        type=int_at_least(10, MAX_COUNT),
        default=1000,
        help="bandits per arm count, at most 1 000 000 (default 1000)",
    )
    p.add_argument(
        "--epochs", type=int_at_least(1, 100_000), default=300, help="training epochs, at most 100 000 (default 300)"
    )
    p.add_argument("--bimodal", default=None, help="w0,m0,sd0,w1,m1,sd1: skip the self-play fit")
    p.add_argument("--fit-spec", default="mcts:300", help="MCTS of the self-play fit (default mcts:300)")
    p.add_argument(
        "--fit-games",
        type=int_at_least(1, 10_000),
        default=4,
        help="self-play games per card game, at most 10 000 (default 4)",
    )
    p.add_argument("--datasets", action="store_true", help="also save the datasets as OUT/pruning_ARMS_data.npz")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(func=main)


def main(args) -> int:

    def say(text: str) -> None:
        print(f"train-pruning: {text}", file=sys.stderr, flush=True)

    # every argument before minutes of self-play and training
    check_writable_dir(args.out, "output folder (--out)")
    given = _bimodal(args.bimodal) if args.bimodal is not None else None
    if args.arms != "uniform" and given is None:
        parse_spec(args.fit_spec)
    with folder_lock(args.out, what="output folder (--out)"):  # one writer of its files at a time
        reports = {}
        for arms in ("uniform", "bimodal") if args.arms == "both" else (args.arms,):
            params: tuple[float, ...] = ()
            if arms == "bimodal":
                if given is not None:
                    params = given
                else:
                    params, count = make.fit_root_distribution(args.fit_spec, args.fit_games, args.seed, say)
                    say(f"bimodal fit of {count} root values: {', '.join(f'{v:.3f}' for v in params)}")
            out = args.out / f"pruning_{arms}.npz"
            data = args.out / f"pruning_{arms}_data.npz" if args.datasets else None
            report = make.build(arms, out, args.seed, params, args.simulations, args.epochs, data, say)
            report["file"] = str(out)
            reports[arms] = report
            say(
                f"{arms}: {out} ({report['safety_rows']} + {report['probability_rows']} rows; "
                f"safety MSE {report['safety_mse']:.3f}, exact {report['safety_exact']:.2f}; "
                f"probability MSE {report['probability_mse']:.5f})"
            )
    if args.json:
        print_json(reports)
    else:
        for arms, r in reports.items():
            print(f"{arms}: {r['file']}")
    return 0


def _bimodal(text: str) -> tuple[float, ...]:
    """--bimodal w0,m0,sd0,w1,m1,sd1: weights >= 0, standard deviations > 0, all finite."""
    import math

    try:
        params = tuple(float(v) for v in text.split(","))
    except ValueError:
        raise UserError(f"--bimodal: expected six numbers, got {text!r}") from None
    if len(params) != 6 or not all(math.isfinite(v) for v in params):
        raise UserError(f"--bimodal: expected six finite numbers, got {text!r}")
    if min(params[0], params[3]) < 0 or min(params[2], params[5]) <= 0:
        raise UserError(f"--bimodal: weights must be >= 0 and standard deviations > 0, got {text!r}")
    return params
