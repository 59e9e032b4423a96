"""`deckopt train GAME [--config FILE.toml] [--episodes N | --minutes M] [--seed S] [--out DIR] [--resume DIR]`."""
from __future__ import annotations

import argparse

from deckopt.commands._common import positive_int, print_json


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text}")
    return value


def register(sub) -> None:
    p = sub.add_parser(
        "train",
        help="train a DQN agent by self-play (Monte-Carlo returns)",
        description="Train one Q-network that plays every seat, by self-play in lock-step, with Monte-Carlo "
        "returns. Writes runs/NAME/: config.json, metrics.csv, TensorBoard scalars, checkpoints/, model.keras "
        "+ model.npz and learning_curves.png. Ctrl-C stops after the current batch and saves a checkpoint; "
        "--resume continues exactly where it stopped.",
    )
    p.add_argument("game", help="tic_tac_toe, connect_four, incan_gold or gwent_lite")
    p.add_argument("--config", metavar="FILE", help="TOML file of DQN hyperparameters (keys of agents.dqn.DQNConfig)")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--episodes", type=positive_int, help="train until this many episodes in all (default: the config's)")
    budget.add_argument("--minutes", type=_positive_float, help="train for this many minutes of wall clock")
    p.add_argument("--seed", type=int, default=None, help="seed of the whole run (default: the config's, 0)")
    p.add_argument("--out", metavar="DIR", help="run folder (default runs/GAME-TIMESTAMP)")
    p.add_argument("--resume", metavar="DIR", help="continue the run in DIR from its checkpoint")
    p.add_argument("--json", action="store_true", help="print a one-object summary on stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from agents.dqn import run_training

    summary = run_training(
        args.game,
        config_file=args.config,
        episodes=args.episodes,
        minutes=args.minutes,
        seed=args.seed,
        out=args.out,
        resume=args.resume,
    )
    if args.json:
        print_json(summary)
        return 0
    ev = summary["last_eval"]
    parts = [f"{k[:-4]} {v:.3f}" for k, v in ev.items() if k.endswith("_win")]
    if "exploitability" in ev:
        parts.append("unexploitable" if ev["exploitability"] <= 0 else "exploitable")
    print(
        f"{summary['game']}: {summary['episodes']} episodes, {summary['updates']} updates, "
        f"{summary['seconds']:.0f} s ({summary['stopped_by']}) -> {summary['out']}/model.keras"
    )
    if parts:
        print(f"last evaluation (win rate, {ev.get('episodes', '?')} episodes): " + ", ".join(parts))
    return 0
