"""`deckopt evaluator GAME --out DIR [--episodes N] [--copies K] [--seed S] [--jobs J] [--resume DIR]`.

A trusted evaluator for a deck game in one command: a panel of value networks trained alike from
independent seeds, and the figures that say how far its deck verdicts can be trusted. The recipe is a
sequence of deckopt commands, each run as a process of its own with its output in OUT/logs/; a stage
is recorded in OUT/recipe.json once it has finished (its commands, wall time and the CPU time of its
processes), so `--resume OUT` continues at the first unfinished stage, a training or a best response
from its last checkpoint:

1. ``first``: K afterstate value networks (`deckopt train --algo afterstate`, agents/afterstate_value)
   from seeds S..S+K-1, two thirds of --episodes each, on decks drawn from the deck space's random
   legal decks and its reference decks, against themselves, the game's rule bots and random play;
2. ``explore``: a short deck evolution under the panel of those copies (`deckopt evolve`): the kind of
   decks a designer's runs judge;
3. ``final``: each copy trained on from its weights (`--init-model`) for the last third of --episodes,
   its decks drawn from the random, reference and explored decks;
4. ``distill`` (with --distill FILE, for a game that declares action features): each final copy
   distilled into an action scorer (`deckopt train --algo distill`, agents/distillation) with FILE's
   settings, on the final stage's decks and (unless FILE names its own) opponents; a scorer plays
   with one network call a decision, stepping no copy of the game, and the scorers are then the
   panel's members (a best response against them starts from their teachers);
5. ``panel``: OUT/panel.toml, the panel file of the members (agents.panel.PANEL_FILE), an agent spec
   for every command;
6. ``strength``: each copy against the rule bot and random play, and the rule bot against random play
   (`deckopt match`, the game's own decks);
7. ``agreement``: the copies score a spread of decks on the same deals (`deckopt study agents`):
   Spearman's rank correlation and the worst one-deck difference beside what noise alone gives;
8. ``exploit``: a best response trained against the panel from copy 0's weights, as many episodes as a
   copy (`deckopt exploit`), judged on the explored decks against the reference decks, both sides.

The panel file then holds the figures in the form of agents/pretrained/panels.toml (`exploitability`,
`agreement`), each with the commands that measured it, and `recipe`: the strength table, every
stage's commands and cost, and the machine's core count. The learner's settings are
agents/pretrained/evaluator_afterstate.toml unless --config names others (their opponent mix and decks
are the recipe's)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import numpy as np

from agents.action_scores import action_feature_size
from agents.heuristics import bots
from agents.panel import MAX_PANEL_FILE_BYTES
from deckopt.commands._common import job_count, positive_int, print_json, seed_int
from evolution.config import load_config
from evolution.decks.settings_registry import settings_class, space_names
from evolution.runfolder import Run
from evolution.spaces.registry import space_for
from games import make as make_game
from games.errors import UserError
from games.fileio import atomic_write_json, atomic_write_text, check_writable_dir
from games.folder_lock import folder_lock
from games.schema import ANYTHING, Int, Map, Record, Str, read_checked

INTERRUPTED = 130
#: the learner's settings of the copies (and so of the best response that starts from one)
#: the learners a recipe trains its copies with, and the settings file of each (its `episodes`: a copy's budget)
LEARNER_SETTINGS = {
    "afterstate": "agents/pretrained/evaluator_afterstate.toml",
    "dqn": "agents/pretrained/evaluator_dqn.toml",
}
PROJECT_ROOT = Path(__file__).resolve().parents[2]
#: random legal decks in the training pool (with the reference decks, and the explored ones in `final`)
RANDOM_DECKS = 512
#: seed-key stream of the training pool's random decks
POOL_STREAM = 61
#: the share of a copy's episodes in the first stage (the rest: `final`)
FIRST_SHARE = 2 / 3
#: the opponent mix of every copy's games: the rule bots share RULE_SHARE, random play RANDOM_SHARE,
#: the rest is self-play
RULE_SHARE, RANDOM_SHARE = 0.3, 0.1
#: the explored decks written as deck files for a game without reference decks (the judged decks'
#: opponents of the best response)
EXPLORED_REFERENCES = 6
STAGES = ("first", "explore", "final", "distill", "panel", "strength", "agreement", "exploit")
#: OUT/recipe.json: the recipe's settings and each finished stage
RECIPE_FILE = Record(
    {
        "game": Str(most=200),
        "settings": Map(ANYTHING, most=64),
        "stages": Map(ANYTHING, most=len(STAGES) + 1),
    },
    optional={"version": Int(1, 1)},
)
SETTING_NAMES = (
    "algo",
    "episodes",
    "copies",
    "seed",
    "jobs",
    "games",
    "agreement_games",
    "generations",
    "pool",
    "config",
    "distill",
)
#: the flags' defaults (a recipe's command shows the others)
DEFAULTS = {"algo": "afterstate", "episodes": None, "copies": 3, "seed": 0, "jobs": 2, "games": 2000,
            "agreement_games": 400, "generations": 10, "pool": 20, "config": None, "distill": None}  # fmt: skip


def register(sub) -> None:
    p = sub.add_parser(
        "evaluator",
        help="build a deck game's evaluator panel and measure how far to trust it (one command, resumable)",
        description="Train K copies of an afterstate value network from independent seeds on the deck space's "
        "random, reference and explored decks (a short evolution under the copies), against themselves, the rule "
        "bots and random play; then measure the panel: each copy against the rule bot and random play, the "
        "agreement between copies on a spread of decks (deckopt study agents), and a best response trained "
        "against it where its verdicts are made (deckopt exploit). Writes OUT/panel.toml, an agent spec for every "
        "command (--agent OUT/panel.toml), with the figures, the commands that measured them and the cost. "
        "Each stage runs as its own deckopt command (output in OUT/logs/); Ctrl-C stops it at a checkpoint and "
        "--resume OUT continues.",
    )
    p.add_argument("game", help="a deck game whose decks play each other: " + ", ".join(_deck_games()))
    p.add_argument("--out", metavar="DIR", help="folder of the recipe, new or empty")
    p.add_argument("--resume", metavar="DIR", help="continue the recipe in DIR (its settings kept)")
    p.add_argument(
        "--episodes",
        type=positive_int,
        metavar="N",
        help="training episodes of each copy (2/3 before the exploration, 1/3 after) and of the best response, "
        "the budget of the whole recipe (default: the learner's settings' episodes)",
    )
    p.add_argument("--copies", type=positive_int, default=3, metavar="K", help="copies in the panel (default 3)")
    p.add_argument("--seed", type=seed_int, default=0, metavar="S", help="copy k is trained from seed S+k")
    p.add_argument(
        "--jobs",
        type=job_count,
        default=2,
        metavar="J",
        help="processes at once: copies trained side by side, and the worker processes of the other stages",
    )
    p.add_argument(
        "--games", type=positive_int, default=2000, metavar="N", help="games of each strength match (default 2000)"
    )
    p.add_argument(
        "--agreement-games",
        type=positive_int,
        default=400,
        metavar="N",
        help="agreement: games of each deck against each opponent deck (default 400)",
    )
    p.add_argument(
        "--generations", type=positive_int, default=10, metavar="G", help="generations of the exploration (10)"
    )
    p.add_argument("--pool", type=positive_int, default=20, metavar="N", help="decks a generation of it (20)")
    p.add_argument(
        "--algo",
        choices=tuple(LEARNER_SETTINGS),
        default="afterstate",
        help="the copies' learner: afterstate values (default; every game can be cloned) or the DQN, whose agents "
        "play with one network call a decision (faster games where a game has no batch engine)",
    )
    p.add_argument(
        "--config",
        metavar="FILE",
        help="the learner's settings (default: "
        + ", ".join(f"{path} for {algo}" for algo, path in LEARNER_SETTINGS.items())
        + "); its episodes are a copy's budget",
    )
    p.add_argument(
        "--distill",
        metavar="FILE",
        help="distil each copy into an action scorer with these settings (agents/distillation; its episodes a "
        "scorer's budget, e.g. agents/pretrained/gwent_abilities_scorer.toml): the scorers, which play a decision "
        "with one network call, are the panel; for a game that declares action features",
    )
    p.add_argument("--json", action="store_true", help="print the panel file's contents as one JSON object")
    p.set_defaults(func=run)


def _deck_games() -> list[str]:
    return [g for g in space_names() if settings_class(g).head_to_head]


# --- the recipe's settings and files ---------------------------------------------------------------
def _new_settings(args) -> dict:
    if args.resume:
        raise UserError("give --out DIR for a new recipe or --resume DIR to continue one, not both")
    settings = {name: getattr(args, name) for name in SETTING_NAMES}
    if settings["episodes"] is None:
        settings["episodes"] = _read_settings(_settings_path(settings)).get("episodes")
        if not isinstance(settings["episodes"], int) or settings["episodes"] < 1:
            raise UserError(f"{_settings_path(settings)} names no episodes (a copy's budget); give --episodes N")
    settings = {k: v for k, v in settings.items() if v is not None}
    if settings.get("distill"):
        _read_distill(Path(settings["distill"]))  # a bad file fails now, not after the training
    return settings


def _settings_path(settings: dict) -> Path:
    """The learner's settings file of a recipe: --config, else the --algo learner's shipped one."""
    return Path(settings["config"]) if settings.get("config") else PROJECT_ROOT / LEARNER_SETTINGS[settings["algo"]]


def _read_settings(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"learner settings {path}: cannot be read ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"learner settings {path}: not valid TOML: {exc}") from None


def _resumed(args) -> tuple[dict, dict]:
    path = Path(args.resume) / "recipe.json"
    if not path.is_file():
        raise UserError(f"{args.resume} holds no evaluator recipe (no recipe.json)")
    recipe = read_checked(path, RECIPE_FILE, "recipe file")
    if recipe["game"] != args.game:
        raise UserError(f"{args.resume} is the evaluator of {recipe['game']}, not {args.game}; give its game")
    return recipe["settings"], recipe["stages"]


def _check_game(game_name: str):
    """(game, deck space) of a deck game the recipe can train on; UserError in one line otherwise."""
    if game_name not in space_names() or not settings_class(game_name).head_to_head:
        raise UserError(
            f"evaluator: {game_name!r} is not a deck game whose decks play each other ({', '.join(_deck_games())})"
        )
    game = make_game(game_name)
    if "deck_pool" not in {f.name for f in dataclasses.fields(game.config_class)}:
        raise UserError(
            f"evaluator: {game_name}'s settings take no deck_pool, so its copies could train on its own decks "
            "only; give its config a deck_pool setting (a list of decks, docs/plugins.md)"
        )
    config = load_config(game=game_name, seed=0, validate=False)
    return game, space_for(config), config


def _references(space, config) -> list:
    """The game's reference decks: its validation panel and yardstick, without repeats."""
    paths = [*config.settings.validation_panel, *config.settings.yardstick]
    out = []
    for ref in space.references(paths) if paths else []:
        if ref.cards not in out:
            out.append(ref.cards)
    return out


def _learner_settings(settings: dict, game, space, decks: list, episodes: int, final: bool) -> str:
    """A stage's training settings as TOML: the learner's settings file with the stage's episodes as
    its learning-rate decay, the opponent mix of the game's rule bots and random play, and `decks` as
    the game's deck pool; the final stage, which starts from a trained network, at the end learning
    rate and (DQN) exploration throughout."""
    path = _settings_path(settings)
    learner = _read_settings(path)
    for key in ("opponent_mix", "game_config", "init_model"):
        if key in learner:
            raise UserError(f"learner settings {path}: {key} is the recipe's own; leave it out")
    learner["episodes"] = episodes
    learner["learning_rate_decay_episodes"] = episodes
    if final:
        learner["learning_rate"] = learner.get("learning_rate_end", learner.get("learning_rate", 1e-3))
        if "epsilon_end" in learner:
            learner["epsilon_start"] = learner["epsilon_end"]
    learner["opponent_mix"] = _opponent_mix(_rule_bots(game))
    learner["game_config"] = {"pool_share": 1.0, "deck_pool": [space.game_deck(d) for d in decks]}
    return _toml(learner)


def _read_distill(path: Path) -> dict:
    """The --distill file; UserError in one line for one that cannot be read, names no episodes or
    sets what the recipe sets."""
    scorer = _read_settings(path)
    for key in ("game_config", "init_model", "teacher"):
        if key in scorer:
            raise UserError(f"distillation settings {path}: {key} is the recipe's own; leave it out")
    if not isinstance(scorer.get("episodes"), int) or scorer["episodes"] < 1:
        raise UserError(f"distillation settings {path}: name a scorer's episodes (episodes = N)")
    return scorer


def _distill_settings(path: Path, game, space, decks: list) -> tuple[str, int]:
    """(TOML, episodes) of the distill stage: the --distill file with its episodes as the learning-rate
    decay, its opponent mix or else the recipe's, and `decks` as the game's deck pool."""
    scorer = _read_distill(path)
    scorer["learning_rate_decay_episodes"] = scorer["episodes"]
    scorer.setdefault("opponent_mix", _opponent_mix(_rule_bots(game)))
    scorer["game_config"] = {"pool_share": 1.0, "deck_pool": [space.game_deck(d) for d in decks]}
    return _toml(scorer), scorer["episodes"]


def _opponent_mix(rules: list[str]) -> dict[str, float]:
    """The recipe's opponents: the rule bots `rules` share RULE_SHARE, random play RANDOM_SHARE."""
    mix = {name: RULE_SHARE / len(rules) for name in rules}
    mix["random"] = RANDOM_SHARE
    return mix


def _rule_bots(game) -> list[str]:
    return [name for name in bots(game) if name != "random"] or ["heuristic"]


def _random_decks(space, seed: int) -> list[tuple[int, ...]]:
    rng = np.random.default_rng([seed, POOL_STREAM])
    return [tuple(space.random_deck(rng)) for _ in range(RANDOM_DECKS)]


def _explored_decks(run_dir: Path, game: str) -> list[tuple[int, ...]]:
    """Every deck the exploration's generations held, without repeats, the champion first."""
    run = Run(run_dir)
    if run.config.game != game:
        raise UserError(f"{run_dir}: a {run.config.game} run, not a {game} one")
    champion, _ = run.champion()
    decks = [tuple(champion)]
    for gen in run.generations:
        for d in run.generation(gen)["decks"]:
            if tuple(d["cards"]) not in decks:
                decks.append(tuple(d["cards"]))
    return decks


# --- running the stages -------------------------------------------------------------------------------
class Stopped(Exception):
    """A stage's command stopped: interrupted (exit 130) or failed (its exit code and last line)."""

    def __init__(self, code: int, line: str):
        super().__init__(line)
        self.code = code


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def shown_command(argv: list[str]) -> str:
    """A deckopt command as a person types it."""
    return shlex.join(["deckopt", *argv])


class Runner:
    """Runs deckopt commands as processes (at most `jobs` at once), each in a session of its own, their
    output in `logs/NAME.log` and `.out`. A Ctrl-C or SIGTERM to this process (`stop`) is passed on to
    them once, as SIGTERM, so each stops at its next checkpoint; no command starts after it."""

    def __init__(self, logs: Path, jobs: int, log):
        self.logs, self.jobs, self.log = logs, jobs, log
        self.running: list[subprocess.Popen] = []
        self.stopping = False

    def run(self, named: list[tuple[str, list[str]]], watch=None) -> dict[str, str]:
        """Run every (name, argv) command, `jobs` at once; their standard outputs by name. Stopped
        when one stops (the others are let finish at a checkpoint first)."""
        self.logs.mkdir(parents=True, exist_ok=True)
        queue, outputs, failures = list(named), {}, []
        started: dict[int, tuple[str, list[str]]] = {}
        last_watch = time.monotonic()
        while queue or self.running:
            while queue and len(self.running) < self.jobs and not failures and not self.stopping:
                name, argv = queue.pop(0)
                with open(self.logs / f"{name}.log", "wb") as err, open(self.logs / f"{name}.out", "wb") as out:
                    command = [sys.executable, "-m", "deckopt", *argv]
                    proc = subprocess.Popen(command, stdout=out, stderr=err, start_new_session=True)
                self.running.append(proc)
                started[proc.pid] = (name, argv)
            time.sleep(0.2)
            for proc in [p for p in self.running if p.poll() is not None]:
                self.running.remove(proc)
                name, argv = started[proc.pid]
                if proc.returncode == 0:
                    outputs[name] = (self.logs / f"{name}.out").read_text(encoding="utf-8", errors="replace")
                else:
                    failures.append((proc.returncode, name, argv))
            if failures and not self.stopping:  # the others stop at their next checkpoint, to resume
                self.stop(announce=False)
            if self.stopping:
                queue.clear()
            if watch is not None and time.monotonic() - last_watch > 60:
                last_watch = time.monotonic()
                watch()
        if self.stopping and not failures:
            raise Stopped(INTERRUPTED, "interrupted")
        if failures:
            code, name, argv = failures[0]
            if code == INTERRUPTED or code == -signal.SIGINT:
                raise Stopped(INTERRUPTED, f"{name} interrupted")
            text = (self.logs / f"{name}.log").read_text(encoding="utf-8", errors="replace").strip().splitlines()
            last = text[-1] if text else f"exit code {code}"
            raise Stopped(code if code > 0 else 1, f"{shown_command(argv)} failed: {last} (see {self.logs / name}.log)")
        return outputs

    def on_signal(self, signum, frame) -> None:
        """The handler of Ctrl-C and SIGTERM: every command stops at its next checkpoint."""
        self.stop(announce=True)

    def stop(self, announce: bool) -> None:
        """Send every running command SIGTERM (once), saying so first if `announce`."""
        if self.stopping:
            return
        self.stopping = True
        if announce:
            self.log("stopping: each command stops at its next checkpoint")
        for proc in self.running:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)


class Recipe:
    """The recipe in folder `out`: its settings, its finished stages (recipe.json), its files."""

    def __init__(self, out: Path, game_name: str, settings: dict, stages: dict, log):
        self.out, self.game_name, self.settings, self.stages, self.log = out, game_name, settings, stages, log
        self.game, self.space, self.config = _check_game(game_name)
        if settings.get("distill"):
            action_feature_size(self.game)  # UserError in one line for a game whose actions cannot be scored
        self.references = _references(self.space, self.config)
        self.runner = Runner(out / "logs", settings["jobs"], log)

    # paths
    def copy_dir(self, k: int, stage: str) -> Path:
        return self.out / "copies" / str(k) / stage

    def rel(self, path: Path) -> str:
        return os.path.relpath(path)

    def save(self) -> None:
        atomic_write_json(
            self.out / "recipe.json",
            {"version": 1, "game": self.game_name, "settings": self.settings, "stages": self.stages},
        )

    def done(self, stage: str) -> bool:
        return stage in self.stages

    def finish(self, stage: str, commands: list[str], wall: float, cpu: float, **extra) -> None:
        self.stages[stage] = {"commands": commands, "wall_seconds": wall, "cpu_seconds": cpu, **extra}
        self.save()

    def stage(self, name: str, commands: list[tuple[str, list[str]]], watch=None) -> tuple[dict, float, float]:
        """Run a stage's commands: (outputs, wall seconds, CPU seconds), the stage's earlier
        sittings' cost added (recorded in recipe.json as `spent` while it is unfinished)."""
        self.log(f"{name}: " + "; ".join(shown_command(argv) for _, argv in commands))
        spent = self.stages.get("_spent", {}).get(name, [0.0, 0.0])
        t0, c0 = time.monotonic(), _cpu_seconds()
        try:
            outputs = self.runner.run(commands, watch)
        finally:
            wall, cpu = spent[0] + time.monotonic() - t0, spent[1] + _cpu_seconds() - c0
            self.stages.setdefault("_spent", {})[name] = [wall, cpu]
            self.save()
        del self.stages["_spent"][name]
        self.log(f"{name}: done in {wall / 60:.1f} min ({cpu / 60:.1f} CPU min)")
        return outputs, wall, cpu

    # the stages
    def train_stage(self, stage: str, episodes: int, settings_file: Path, init: str | None) -> None:
        """Train every copy's network of `stage` (its folder copies/K/STAGE), from the network of stage
        `init` of the same copy (the distill stage: distilled from it) or from scratch."""
        s = self.settings
        algo = "distill" if stage == "distill" else s["algo"]
        commands = []
        for k in range(s["copies"]):
            folder = self.copy_dir(k, stage)
            if (folder / "checkpoints" / "checkpoint.npz").is_file():
                argv = ["train", self.game_name, "--algo", algo, "--resume", self.rel(folder), "--quiet"]
            else:
                if folder.exists():
                    shutil.rmtree(folder)  # started, stopped before its first checkpoint
                argv = ["train", self.game_name, "--algo", algo, "--config", self.rel(settings_file)]
                argv += [
                    "--seed",
                    str(s["seed"] + k),
                    "--episodes",
                    str(episodes),
                    "--quiet",
                    "--out",
                    self.rel(folder),
                ]
                if init:
                    flag = "--teacher" if algo == "distill" else "--init-model"
                    argv += [flag, self.rel(self.copy_dir(k, init) / "model.npz")]
            commands.append((f"{stage}_{k}", argv))

        def watch():
            self.log(
                f"{stage}: "
                + ", ".join(f"copy {k} {_episodes_done(self.copy_dir(k, stage))}" for k in range(s["copies"]))
            )

        _, wall, cpu = self.stage(stage, commands, watch)
        self.finish(stage, [shown_command(argv) for _, argv in commands], wall, cpu, episodes=episodes)

    @property
    def member_stage(self) -> str:
        """The stage whose networks are the panel: the scorers with --distill, else the final copies."""
        return "distill" if self.settings.get("distill") else "final"

    def panel_members(self) -> list[str]:
        return [str(Path("copies") / str(k) / self.member_stage / "model.npz") for k in range(self.settings["copies"])]

    def members_spec(self, stage: str) -> str:
        return ",".join(self.rel(self.copy_dir(k, stage)) for k in range(self.settings["copies"]))

    def references_dir(self) -> list[str]:
        """--panel of the best response for a game without reference decks: the explored run's best
        decks written as deck files (OUT/explored_decks)."""
        if self.references:
            return []
        folder = self.out / "explored_decks"
        if not folder.is_dir():
            folder.mkdir()
            decks = _explored_decks(self.out / "explore", self.game_name)[:EXPLORED_REFERENCES]
            for i, cards in enumerate(decks):
                self.space.save(cards, folder / f"explored_{i + 1}.toml", f"explored_{i + 1}", "from the exploration")
        return ["--panel", self.rel(folder)]


def _episodes_done(run_dir: Path) -> str:
    """The episodes a training run has recorded (its metrics.csv's last row), as text."""
    path = run_dir / "metrics.csv"
    try:
        last = path.read_text(encoding="utf-8").strip().splitlines()[-1]
        return f"{int(last.split(',')[0])} episodes"
    except (OSError, IndexError, ValueError):
        return "starting"


def run(args: argparse.Namespace) -> int:
    if args.resume is None and args.out is None:
        raise UserError("--out DIR is required (or --resume DIR)")
    if args.resume is not None:
        settings, stages = _resumed(args)
        out = check_writable_dir(args.resume, "recipe folder")
    else:
        settings, stages = _new_settings(args), {}
        out = check_writable_dir(args.out, "recipe folder")
    log = (lambda line: None) if args.json else (lambda line: print(line, file=sys.stderr, flush=True))
    with folder_lock(out, what="recipe folder", create=args.resume is None):
        if args.resume is None:
            out.mkdir(parents=True, exist_ok=True)
            if any(out.iterdir()) and {p.name for p in out.iterdir()} != {".deckopt.lock"}:
                raise UserError(f"--out {out} is not empty; choose a new folder or --resume it")
        recipe = Recipe(out, args.game, settings, stages, log)
        recipe.save()
        again = f"continue with: deckopt evaluator {args.game} --resume {out}"
        previous = {sig: signal.signal(sig, recipe.runner.on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            panel = _run_stages(recipe)
        except Stopped as exc:
            if exc.code == INTERRUPTED:
                print(f"deckopt evaluator: interrupted; {again}", file=sys.stderr)
                return INTERRUPTED
            raise UserError(f"{exc}; {again}") from None
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    if args.json:
        print_json(panel)
    else:
        _print_panel(panel, out)
    return 0


def _run_stages(recipe: Recipe) -> dict:
    s, out, game = recipe.settings, recipe.out, recipe.game_name
    first_episodes = max(1, round(s["episodes"] * FIRST_SHARE))
    references = recipe.references
    if not recipe.done("first"):
        decks = _random_decks(recipe.space, s["seed"]) + references
        text = _learner_settings(s, recipe.game, recipe.space, decks, first_episodes, final=False)
        atomic_write_text(out / "train_first.toml", text)
        recipe.train_stage("first", first_episodes, out / "train_first.toml", None)
    if not recipe.done("explore"):
        folder = out / "explore"
        if (folder / "config.json").is_file():
            argv = ["evolve", "--resume", recipe.rel(folder), "--jobs", str(s["jobs"]), "--quiet"]
        else:
            if folder.exists():
                shutil.rmtree(folder)
            argv = ["evolve", "--game", game, "--agent", recipe.members_spec("first"), "--generations"]
            argv += [str(s["generations"]), "--pool", str(s["pool"]), "--no-validate", "--seed", str(s["seed"])]
            argv += ["--jobs", str(s["jobs"]), "--quiet", "--out", recipe.rel(folder)]
        _, wall, cpu = recipe.stage("explore", [("explore", argv)])
        recipe.finish("explore", [shown_command(argv)], wall, cpu)
    if not recipe.done("final"):
        decks = _final_decks(recipe)
        text = _learner_settings(s, recipe.game, recipe.space, decks, s["episodes"] - first_episodes, final=True)
        atomic_write_text(out / "train_final.toml", text)
        recipe.train_stage("final", s["episodes"] - first_episodes, out / "train_final.toml", "first")
    if s.get("distill") and not recipe.done("distill"):
        text, episodes = _distill_settings(Path(s["distill"]), recipe.game, recipe.space, _final_decks(recipe))
        atomic_write_text(out / "distill.toml", text)
        recipe.train_stage("distill", episodes, out / "distill.toml", "final")
    if not recipe.done("panel"):
        _write_panel(recipe, {})
        recipe.finish("panel", [], 0.0, 0.0)
    panel_spec = recipe.rel(out / "panel.toml")
    if not recipe.done("strength"):
        rule = "heuristic"
        members = [recipe.rel(recipe.copy_dir(k, recipe.member_stage)) for k in range(s["copies"])]
        pairs = [(f"copy_{k}_{opp}", [member, opp]) for k, member in enumerate(members) for opp in (rule, "random")]
        pairs.append((f"{rule}_random", [rule, "random"]))
        commands = [
            (name, ["match", game, *specs, "--games", str(s["games"]), "--seed", str(s["seed"]), "--json"])
            for name, specs in pairs
        ]
        outputs, wall, cpu = recipe.stage("strength", commands)
        table = {}
        for name, _ in commands:
            first = json.loads(outputs[name])["agents"][0]
            table[name] = {"win_rate": first["win_rate"], "ci95": first["win_rate_ci95"], "games": first["games"]}
        recipe.finish("strength", [shown_command(argv) for _, argv in commands], wall, cpu, table=table)
    if not recipe.done("agreement"):
        folder = out / "agreement"
        if folder.exists():
            shutil.rmtree(folder)
        argv = ["study", "agents", recipe.rel(folder), "--game", game]
        for k in range(s["copies"]):
            argv += ["--agent", recipe.rel(recipe.copy_dir(k, recipe.member_stage))]
        argv += ["--cross", recipe.rel(out / "explore"), "--games", str(s["agreement_games"])]
        argv += ["--seed", str(s["seed"]), "--jobs", str(s["jobs"]), "--json"]
        if s["copies"] < 2:
            recipe.finish("agreement", [], 0.0, 0.0, result=None)
        else:
            outputs, wall, cpu = recipe.stage("agreement", [("agreement", argv)])
            recipe.finish(
                "agreement", [shown_command(argv)], wall, cpu, result=_agreement(json.loads(outputs["agreement"]))
            )
    if not recipe.done("exploit"):
        folder = out / "exploit"
        if (folder / "study.json").is_file():
            argv = ["exploit", game, panel_spec, "--resume", recipe.rel(folder)]
        else:
            if folder.exists():
                shutil.rmtree(folder)
            argv = ["exploit", game, panel_spec, "--decks", recipe.rel(out / "explore"), *recipe.references_dir()]
            argv += ["--config", recipe.rel(out / "train_final.toml"), "--episodes", str(s["episodes"])]
            argv += ["--seed", str(s["seed"] + s["copies"]), "--out", recipe.rel(folder)]
        argv += ["--jobs", str(s["jobs"]), "--json"]
        outputs, wall, cpu = recipe.stage("exploit", [("exploit", argv)])
        result = json.loads(outputs["exploit"])
        recipe.finish("exploit", [shown_command(argv)], wall, cpu, result=result["judged decks"]["both"],
                      training=result["training"])  # fmt: skip
    return _write_panel(recipe, recipe.stages)


def _final_decks(recipe: Recipe) -> list[tuple[int, ...]]:
    """The decks of the final and distill stages: the random, reference and explored decks."""
    explored = _explored_decks(recipe.out / "explore", recipe.game_name)
    references = recipe.references
    return (
        _random_decks(recipe.space, recipe.settings["seed"]) + references + [d for d in explored if d not in references]
    )


def _agreement(res: dict) -> dict:
    """The panels.toml form of `deckopt study agents`' result: Spearman over the pairs of copies on
    all decks, each copy's noise ceiling, the worst one-deck difference over the pairs."""
    pairs = list(res["pairs"].values())
    worst = max(pairs, key=lambda p: abs(p["all"]["worst_deck_difference"]))["all"]
    ceilings = [c["all"] for c in res["ceilings"].values()]
    spearman = [p["all"]["spearman"] for p in pairs]
    return {
        "decks": sum(len(v) for v in res["sets"].values()),
        "games_per_deck": res["games_per_deck"],
        "spearman": [round(min(spearman), 3), round(max(spearman), 3)],
        "spearman_ceiling": [
            round(min(c["spearman"] for c in ceilings), 3),
            round(max(c["spearman"] for c in ceilings), 3),
        ],
        "worst_difference": round(abs(worst["worst_deck_difference"]), 3),
        "worst_deck": worst["worst_deck"],
        "noise_difference": [
            round(min(c["worst_deck_difference"] for c in ceilings), 3),
            round(max(c["worst_deck_difference"] for c in ceilings), 3),
        ],
    }


def _cost(stages: dict) -> dict:
    finished = {name: stages[name] for name in STAGES if name in stages}
    return {
        "cpu_minutes": round(sum(st["cpu_seconds"] for st in finished.values()) / 60, 1),
        "wall_minutes": round(sum(st["wall_seconds"] for st in finished.values()) / 60, 1),
        "cores": os.cpu_count(),
        "stages": {
            name: {"cpu_minutes": round(st["cpu_seconds"] / 60, 1), "wall_minutes": round(st["wall_seconds"] / 60, 1)}
            for name, st in finished.items()
        },
    }


def _write_panel(recipe: Recipe, stages: dict) -> dict:
    """OUT/panel.toml from the stages finished so far: the members, and the figures once measured."""
    s = recipe.settings
    panel: dict = {"game": recipe.game_name, "members": recipe.panel_members()}
    if "exploit" in stages:
        e = stages["exploit"]
        opponents = "the reference decks" if recipe.references else "its best decks"
        cpu = e["cpu_seconds"] / 60
        panel["exploitability"] = {
            "score": round(e["result"]["score"], 3),
            "ci95": [round(x, 3) for x in e["result"]["ci95"]],
            "best_response": f"{e['training']['episodes']} episodes from copy 0, about {cpu:.0f} CPU minutes",
            "where": f"the exploration's champion and last pool against {opponents}, both sides",
            "commands": e["commands"],
        }
    if stages.get("agreement", {}).get("result"):
        panel["agreement"] = {**stages["agreement"]["result"], "commands": stages["agreement"]["commands"]}
    recipe_table = {
        "command": shown_command(["evaluator", recipe.game_name, "--out", recipe.rel(recipe.out)] + _flags(s)),
        "settings": s,
        "cost": _cost(stages),
        "stages": {name: stages[name]["commands"] for name in STAGES if name in stages},
    }
    if "strength" in stages:
        recipe_table["strength"] = stages["strength"]["table"]
    panel["recipe"] = recipe_table
    text = _toml(panel)
    if len(text.encode()) > MAX_PANEL_FILE_BYTES:
        raise UserError("the panel file would exceed its size bound")
    atomic_write_text(recipe.out / "panel.toml", text)
    return panel


def _flags(settings: dict) -> list[str]:
    """The flags of a recipe's settings that differ from the defaults."""
    out = []
    for name, value in settings.items():
        if DEFAULTS.get(name, value) != value and value is not None:
            out += ["--" + name.replace("_", "-"), str(value)]
    return out


def _toml(data: dict, prefix: str = "") -> str:
    """`data` (str, int, float, bool, lists of them, tables) as TOML: the plain keys first, then each table."""
    plain = {k: v for k, v in data.items() if not isinstance(v, dict)}
    tables = {k: v for k, v in data.items() if isinstance(v, dict)}
    lines = [f"{_key(k)} = {json.dumps(v)}" for k, v in plain.items()]
    for k, v in tables.items():
        name = f"{prefix}.{_key(k)}" if prefix else _key(k)
        lines += ["", f"[{name}]", _toml(v, name).strip("\n")]
    return "\n".join(line for line in lines) + "\n"


def _key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() else json.dumps(key)


def _print_panel(panel: dict, out: Path) -> None:
    r = panel["recipe"]
    cost = r["cost"]
    print(f"evaluator panel of {panel['game']}: {out / 'panel.toml'} ({len(panel['members'])} copies)")
    print(
        f"cost: {cost['cpu_minutes']} CPU minutes, {cost['wall_minutes']} minutes of wall clock, {cost['cores']} cores"
    )
    for name, row in r.get("strength", {}).items():
        lo, hi = row["ci95"]
        who, opponent = name.rsplit("_", 1)
        print(
            f"  {who.replace('_', ' ')} vs {opponent}: {row['win_rate']:.3f} [{lo:.3f}, {hi:.3f}], {row['games']} games"
        )
    if "agreement" in panel:
        a = panel["agreement"]
        print(
            f"agreement: Spearman {a['spearman'][0]:.3f}-{a['spearman'][1]:.3f} (noise ceilings "
            f"{a['spearman_ceiling'][0]:.3f}-{a['spearman_ceiling'][1]:.3f}); worst deck {a['worst_deck']} "
            f"{a['worst_difference']:.3f} (noise {a['noise_difference'][0]:.3f}-{a['noise_difference'][1]:.3f}), "
            f"{a['decks']} decks, {a['games_per_deck']} games a deck"
        )
    if "exploitability" in panel:
        e = panel["exploitability"]
        print(f"exploitability: {e['score']:.3f} [{e['ci95'][0]:.3f}, {e['ci95'][1]:.3f}] ({e['where']})")
    print(f"use it: deckopt evolve --game {panel['game']} --agent {out / 'panel.toml'}")
