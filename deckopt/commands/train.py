"""`deckopt train GAME [--algo dqn|nfsp|ppo|alphazero] [--config FILE] [--episodes N | --minutes M] [--seed S]
[--out DIR] [--resume DIR]`.

The command line of the learners registered in agents/learners.py: settings (per-game defaults
< --config FILE < flags generated from the chosen learner's config dataclass; a flag of another
learner is refused), the run folder, the progress display and the signals. First Ctrl-C (or SIGTERM): stop
after the current batch, save a checkpoint, exit 130 with the command that resumes; second: abort
(the last checkpoint stays)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from agents.learners import DEFAULT_LEARNER, LEARNERS
from agents.learning.runfolder import default_run_dir, read_run_config
from agents.parallel import Mapper, WorkerFailure
from agents.stopping import StopOnSignal
from deckopt.commands._common import GAME_HELP, JOBS_HELP, Progress, job_count, positive_int, print_json, seed_int
from deckopt.commands._config_flags import add_config_flags, config_overrides
from games.errors import UserError

INTERRUPTED = 130
SHARD_TIMEOUT = 600.0  # seconds a self-play shard may take in a worker before the run stops


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text}")
    return value


def register(sub) -> None:

    p = sub.add_parser(
        "train",
        help="train an agent by self-play (DQN with Monte-Carlo returns, NFSP, PPO, AlphaZero-style search or "
        "afterstate values)",
        description="Train an agent that plays every seat, by self-play in lock-step: --algo dqn (default) one "
        "Q-network with Monte-Carlo returns, nfsp (best response + average policy, Heinrich & Silver 2016) or "
        "ppo (clipped actor-critic, GAE) or alphazero (PUCT search guided by a policy+value network, trained on "
        "its own searches' visit counts and the games' outcomes) or afterstate (a value network of the state each "
        "legal action leads to, trained on the games' outcomes; it acts by the best-valued one). "
        "Writes runs/NAME/: config.json, metrics.csv, "
        "TensorBoard scalars, checkpoints/, model.keras "
        "+ model.npz and learning_curves.png. Ctrl-C (or SIGTERM) stops after the current batch and saves a "
        "checkpoint; --resume continues exactly where it stopped. Settings: per-game defaults < --config FILE "
        "< flags.",
    )
    p.add_argument("game", help=GAME_HELP)
    p.add_argument(
        "--algo", choices=tuple(LEARNERS), default=DEFAULT_LEARNER, help=f"the learner (default {DEFAULT_LEARNER})"
    )
    p.add_argument(
        "--config",
        metavar="FILE",
        help="TOML (or JSON) file of settings (keys of the --algo learner's config: "
        + ", ".join(
            f"{learner.config_class.__module__}.{learner.config_class.__name__}" for learner in LEARNERS.values()
        )
        + ")",
    )
    budget = p.add_mutually_exclusive_group()
    budget.add_argument(
        "--episodes",
        type=positive_int,
        metavar="N",
        help="train until this many episodes in all (default: the config's)",
    )
    budget.add_argument("--minutes", type=positive_float, metavar="M", help="train for this many minutes of wall clock")
    p.add_argument(
        "--seed",
        type=seed_int,
        default=None,
        metavar="S",
        help="seed of the whole run, 0..2**32-1 (default: the config's, 0)",
    )
    p.add_argument("--out", metavar="DIR", help="run folder, new or empty (default runs/GAME-TIMESTAMP)")
    p.add_argument("--resume", metavar="DIR", help="continue the run in DIR from its checkpoint")
    p.add_argument(
        "--jobs",
        type=job_count,
        default=1,
        metavar="N",
        help=f"{JOBS_HELP}, playing the self-play shards (--selfplay-shards) of "
        f"--algo {', '.join(name for name, learner in LEARNERS.items() if learner.plays_shards)} (the others play "
        "in this process); the results do not depend on it (default 1: in this process)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar or evaluation lines")
    p.add_argument("--json", action="store_true", help="print a one-object summary on stdout")
    seen = {"seed"}
    for learner in LEARNERS.values():
        first = not seen - {"seed"}
        title = learner.title if learner.name == DEFAULT_LEARNER else f"{learner.title} (--algo {learner.name})"
        group = p.add_argument_group(
            f"{title} settings (override the config file; default: per game)"
            + ("" if first else "; the flags above apply too where the name is a setting of it")
        )
        add_config_flags(group, learner.config_class, skip=tuple(seen))
        seen |= {f.name for f in dataclasses.fields(learner.config_class)}
    p.set_defaults(func=run)


def _settings(args) -> tuple:
    """(config, run folder) from the flags: a new run's resolved config, or a resumed run's own."""

    learner = LEARNERS[args.algo]
    config_cls, load_config = learner.config_class, learner.load_config
    names = {f.name for f in dataclasses.fields(config_cls)}
    foreign = sorted(k[len("cfg__") :] for k, v in vars(args).items() if k.startswith("cfg__") and v is not None)
    foreign = [k for k in foreign if k not in names]
    if foreign:
        flags = ", ".join("--" + name.replace("_", "-") for name in foreign)
        raise UserError(f"{flags}: not a setting of --algo {args.algo}")
    overrides = config_overrides(args, config_cls)
    if args.resume is None:
        if args.episodes is not None:  # saved as the run's target: a plain --resume trains to it, not further
            overrides["episodes"] = args.episodes
        config = load_config(args.game, args.config, seed=args.seed, **overrides)
        return config, Path(args.out) if args.out is not None else default_run_dir(args.game)
    if args.config is not None:
        raise UserError("--config cannot change a run being resumed (its config.json is used)")
    if overrides:
        flags = ", ".join("--" + name.replace("_", "-") for name in overrides)
        raise UserError(f"{flags}: a resumed run keeps the settings of its config.json; drop them")
    if args.out is not None and Path(args.out).resolve() != Path(args.resume).resolve():
        raise UserError("--out and --resume name different folders; a resumed run writes to its own folder")
    config = read_run_config(Path(args.resume), args.game, config_cls, args.algo)
    if args.seed is not None and args.seed != config.seed:
        raise UserError(f"{args.resume} was trained with seed {config.seed}; --seed {args.seed} would not resume it")
    return config, Path(args.resume)


def run(args: argparse.Namespace) -> int:
    config, out = _settings(args)
    train = LEARNERS[args.algo].train
    budget = f" --episodes {args.episodes}" if args.episodes is not None else ""
    algo = f" --algo {args.algo}" if args.algo != DEFAULT_LEARNER else ""
    jobs = f" --jobs {args.jobs}" if args.jobs > 1 else ""
    resume_hint = f"continue with: deckopt train {args.game}{algo} --resume {out}{budget}{jobs}"
    unit = "second" if args.minutes is not None else "episode"
    if not LEARNERS[args.algo].plays_shards and (args.jobs > 1 or config.selfplay_shards > 1):
        given = "--jobs" if args.jobs > 1 else f"selfplay_shards {config.selfplay_shards}"
        raise UserError(f"{given}: --algo {args.algo} plays each self-play batch in this process, as one; drop it")
    if args.jobs > 1 and config.selfplay_shards == 1:
        raise UserError("--jobs: this run plays self-play as one batch; split it with --selfplay-shards N (N >= 2)")
    # a shard is a second or so of play: a worker silent for minutes is stopped or hung
    pool = Mapper(args.jobs, task_timeout=SHARD_TIMEOUT)
    with Progress(enabled=not args.quiet, unit=unit) as bar, StopOnSignal(bar.log) as stop, pool:
        try:
            summary = train(
                args.game,
                config,
                out,
                episodes=args.episodes,
                minutes=args.minutes,
                resume=args.resume is not None,
                progress=bar,
                log=None if args.quiet else bar.log,
                should_stop=stop,
                mapper=pool,
            )
        except KeyboardInterrupt:  # the second Ctrl-C: the last checkpoint (if any) stays
            bar.close()
            saved = (out / "checkpoints" / "checkpoint.npz").is_file()
            print(
                f"deckopt train: aborted; {resume_hint}"
                if saved
                else "deckopt train: aborted before the first checkpoint; nothing to resume",
                file=sys.stderr,
            )
            return INTERRUPTED
        except WorkerFailure as exc:  # the run stopped; its last checkpoint stays
            bar.close()
            print(f"deckopt train: error: {exc}; {resume_hint}", file=sys.stderr)
            return 1
    if args.json:
        print_json(summary)
    else:
        _print_summary(summary)
    if summary["stopped_by"] == "interrupt":
        print(f"deckopt train: interrupted; checkpoint saved; {resume_hint}", file=sys.stderr)
        return INTERRUPTED
    return 0


def _print_summary(summary: dict) -> None:
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
