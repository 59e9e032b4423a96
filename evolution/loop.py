"""The generation loop, in the style of the DEAP examples: a toolbox, a hall of fame, a logbook.

    config = EvolveConfig(generations=30, agent="pretrained")
    summary = evolve(config, "runs/my_run")           # or evolve(None, "runs/my_run", resume=True)

Each generation: selection and variation make the pool (evolution.toolbox); the whole pool
(survivors included, so a lucky deck must prove itself again) plays its opponents with fresh seeds
(evolution.scoring.evaluation); the hall of fame, logbook and best decks are updated; every file of the
generation is written atomically, the checkpoint last (evolution.runfolder). All randomness flows
from one numpy Generator (saved in the checkpoint) and the per-pairing seed keys, so a run resumed
after an interruption ends exactly where the uninterrupted run does. At the end a playoff chooses
the champion, which is validated against held-out reference decks (evolution.scoring.validation).

The library neither prints nor draws bars: `log(line)` and `progress(done, total, what)` are given
by the caller (the command line passes its one Progress display).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import numpy as np

from agents.parallel import Mapper
from agents.stats import mean_ci
from evolution import active_genes
from evolution.archive.grid import DeckArchive
from evolution.archive.results import finish_archive, write_archive
from evolution.config import EXECUTION_FIELDS, SELECTION_ALIASES, EvolveConfig, with_cluster_from
from evolution.designer.html_report import write_report
from evolution.designer.plots import write_plots
from evolution.designer.tables import deck_text
from evolution.individuals import score_of
from evolution.runfiles import CHAMPION_FILE, VALIDATION_FILE
from evolution.runfolder import RunFolder
from evolution.scoring import yardstick
from evolution.spaces.registry import space_for
from evolution.state import EvolutionState, update_hall_of_fame
from evolution.toolbox import build_toolbox, first_pool, sel_best, start_decks
from games.errors import UserError
from games.fileio import check_writable_dir
from games.folder_lock import folder_lock


def evolve(
    config: EvolveConfig | None,
    out_dir,
    *,
    resume: bool = False,
    overrides: dict | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    log: Callable[[str], None] | None = None,
    pmap=None,
    on_generation: Callable[[int], None] | None = None,
    finish: bool = True,
    should_stop: Callable[[], bool] | None = None,
) -> dict:
    """Run (or resume) an evolution into `out_dir`; returns a summary dict. `pmap` replaces the
    parallel map (tests); `on_generation(gen)` is called after each generation is saved; with
    `finish`, the champion is chosen and validated at the end (`config.validate`). `should_stop()`
    is asked before each generation and before the finish (as training asks it between batches):
    when it answers True the run returns with every finished generation saved, its summary's
    `stopped_by` = "interrupt", to be resumed later. The folder's lock is held throughout: a second
    writer of `out_dir` is refused (games.folder_lock)."""
    with folder_lock(out_dir, what="run folder", create=not resume):
        return _evolve_in_locked_folder(
            config, out_dir, resume, overrides, progress, log, pmap, on_generation, finish, should_stop
        )


def _evolve_in_locked_folder(
    config: EvolveConfig | None, out_dir, resume, overrides, progress, log, pmap, on_generation, finish, should_stop
) -> dict:
    stop = should_stop or (lambda: False)
    config, folder = prepare_run(config, out_dir, resume, overrides)
    log = log or (lambda line: None)
    space = space_for(config)  # the run's deck space, made once and passed along
    if config.selection == "active-genes":
        active_genes.check_space(space)
    scorer = space.scorer(config)  # the agent and deck files: everything a user can get wrong, before a file is written
    state = (folder.read_state(config, space) if resume else None) or EvolutionState.start(config)
    starts = []  # read before a file is written; a resume takes those recorded when the run began
    if state.next_generation == 0:
        recorded = folder.read_start_decks(space) if resume else None
        starts = start_decks(config, space) if recorded is None else recorded
    archive = _archive(config, space, folder, state)
    mapper = (
        Mapper(config.jobs, config.backend, config.scheduler, task_timeout=config.task_timeout)
        if pmap is None
        else contextlib.nullcontext(pmap)
    )
    if resume:
        where = mapper.describe() if pmap is None else "a custom map"
        after = f"after generation {state.generation}" if state.generation >= 0 else "from its start"
        log(f"resuming {folder.path} {after} on {where} (the cluster is the command line's, never the run folder's)")
    with mapper as pm:  # a Dask scheduler is reached here
        folder.write_config(config)
        if starts:
            folder.write_start_decks(starts)
        tb = build_toolbox(config, space, state.rng, pm)
        if state.next_generation < config.generations:
            where = pm.describe() if hasattr(pm, "describe") else "a custom map"
            log(
                f"evolving {config.generations - state.next_generation} generation(s) of {config.pool} decks with "
                f"agent {config.agent!r} on {where} -> {folder.path}"
            )
        clock, start = GenerationClock(config.generations), state.next_generation
        for gen in range(start, config.generations):
            if stop():
                return {**summary_of(folder, state), "stopped_by": "interrupt"}
            if archive is not None:  # MAP-Elites: children of the archive's elites (random decks at first)
                pool = archive.ask(config.pool, state.rng)
            else:
                # the start decks and their mutants (random decks without any), then select + vary
                pool = first_pool(starts, config.pool, tb) if gen == 0 else tb.next_pool(state.pool, gen)
            clock.start()
            games = scorer.evaluate(pool, state.hall_of_fame, gen, tb.map, progress, what=clock.stage(gen, state))
            games += scorer.measure_yardstick(pool, gen, tb.map, progress)
            if archive is None:  # active-genes: the population merged with its scored offspring
                pool = tb.population_after(state.pool, pool, gen)
            seconds = clock.stop()
            record = record_generation(state, gen, pool, games, seconds)  # hall of fame, logbook, best decks
            if archive is not None:
                record["archive_entered"] = archive.tell(pool, gen)
                write_archive(folder, archive, gen)
            folder.write_generation(state, games, seconds, config, space, scorer.header)  # the checkpoint last
            if config.plot_every and ((gen + 1) % config.plot_every == 0 or gen + 1 == config.generations):
                write_plots(folder, space, config, log)
            log(generation_line(record, sel_best(pool, 1)[0], space))
            if on_generation is not None:
                on_generation(gen)
        if not finish:
            return summary_of(folder, state)
        if stop():
            return {**summary_of(folder, state), "stopped_by": "interrupt"}
        best_elite = None
        if archive is not None and state.generation >= 0:  # its top elites measured again (evolution.archive.results)
            best_elite = finish_archive(folder, archive, config, scorer, pm, state.generation, progress, log)
        evolved = start < config.generations
        summary = finish_run_once(folder, config, space, state, scorer, pm, evolved, progress, log)
        return {**summary, "best_elite": best_elite} if archive is not None else summary


def _archive(config: EvolveConfig, space, folder: RunFolder, state: EvolutionState) -> DeckArchive | None:
    """The run's MAP-Elites archive (evolution.archive.grid; a resumed run's read back from its folder),
    or None for a run with selection."""
    if not config.archive:
        return None
    if state.generation >= 0:
        return DeckArchive.read(config, space, folder, state.generation)
    return DeckArchive(config, space)


def prepare_run(
    config: EvolveConfig | None, out_dir, resume: bool, overrides: dict | None = None
) -> tuple[EvolveConfig, RunFolder]:
    """The config of a new run (its folder must be new or empty, and writable) or of a resumed one
    (execution fields may be overridden; changing anything else is refused). A resumed run's cluster
    settings (backend, scheduler) are the `overrides`' or the defaults, never the folder's."""
    folder = RunFolder(out_dir)
    if not resume:
        if config is None:
            raise ValueError("a new run needs a config")
        folder.check_new()
        return config, folder
    folder.check_existing()
    changes = {k: v for k, v in (overrides or {}).items() if v is not None}
    saved = with_cluster_from(folder.read_config(), changes)
    if "selection" in changes:
        changes["selection"] = SELECTION_ALIASES.get(changes["selection"], changes["selection"])
    flat = saved.flat()
    refused = sorted(k for k, v in changes.items() if k not in EXECUTION_FIELDS and flat.get(k) != v)
    if refused:
        raise UserError(
            f"cannot change {', '.join(refused)} when resuming (only {', '.join(sorted(EXECUTION_FIELDS))})"
        )
    check_writable_dir(folder.path, what="run folder")
    return saved.replace(**{k: v for k, v in changes.items() if k in EXECUTION_FIELDS}), folder


class GenerationClock:
    """Generation times of this call of `evolve`, for the run's time left shown with the progress."""

    def __init__(self, generations: int):
        self.generations = generations
        self.seconds: list[float] = []
        self._t0 = 0.0

    def start(self) -> None:
        self._t0 = time.perf_counter()

    def stop(self) -> float:
        self.seconds.append(time.perf_counter() - self._t0)
        return self.seconds[-1]

    def stage(self, gen: int, state: EvolutionState) -> str:
        """What the progress display shows for generation `gen`."""
        notes = [f"gen {gen}/{self.generations - 1}"]
        if state.best_decks:
            notes.append(f"best so far {max(b['best']['score'] for b in state.best_decks):.3f}")
        if self.seconds:
            left = (self.generations - gen) * sum(self.seconds) / len(self.seconds)
            notes.append(f"run ~{left / 60:.0f} min left" if left >= 90 else f"run ~{left:.0f} s left")
        return "  ".join(notes)


def record_generation(state: EvolutionState, gen: int, pool: list, games: int, seconds: float) -> dict:
    """The evaluated `pool` becomes the state of generation `gen`: hall of fame, logbook, best deck."""
    update_hall_of_fame(state.hall_of_fame, pool, gen)
    scores = np.array([score_of(ind) for ind in pool])
    best = sel_best(pool, 1)[0]
    hof = state.hall_of_fame
    mean, lo, hi = mean_ci(scores)
    record = {
        "gen": gen,
        "decks": len(pool),
        "games": games,
        "best": float(score_of(best)),
        "best_lo": float(best.stats.ci95[0]),
        "best_hi": float(best.stats.ci95[1]),
        "mean": mean,
        "mean_lo": lo,
        "mean_hi": hi,
        "std": float(scores.std()),
        "min": float(scores.min()),
        "max": float(scores.max()),
        "hof_best": float(score_of(hof[0])) if len(hof) else float("nan"),
        "best_vs_random": _vs_random(best),
        "mean_vs_random": float(np.mean([_vs_random(ind) for ind in pool])),
        **yardstick.generation_fields(pool),
        "seconds": round(seconds, 3),
        "games_per_s": round(games / seconds, 1) if seconds > 0 else 0.0,
    }
    state.logbook.record(**record)
    state.best_decks.append(
        {
            "generation": gen,
            "best": {
                "cards": list(best),
                "score": score_of(best),
                "ci95": list(best.stats.ci95),
                "games": best.stats.record.games,
            },
        }
    )
    if np.isfinite(record["yardstick"]):
        state.best_decks[-1]["yardstick"] = [record["yardstick"], record["yardstick_lo"], record["yardstick_hi"]]
    state.generation, state.pool = gen, pool
    return record


def _vs_random(ind) -> float:
    """The deck's score against this generation's fresh random decks (nan without them)."""
    d = ind.stats.by_opponents.get("random")
    return float(d["score"]) if d else float("nan")


def generation_line(record: dict, best, space) -> str:
    return (
        f"gen {record['gen']:>3}: best {record['best']:.3f} [{record['best_lo']:.3f}, {record['best_hi']:.3f}] "
        f"{deck_text(space, best)}; mean {record['mean']:.3f}; "
        + (f"yardstick {record['yardstick']:.3f}; " if np.isfinite(record.get("yardstick", np.nan)) else "")
        + f"{record['games']} games in {record['seconds']:.1f} s ({record['games_per_s']:.0f}/s)"
    )


def summary_of(folder: RunFolder, state: EvolutionState) -> dict:
    return {
        "run": str(folder.path),
        "generations": len(state.best_decks),
        "best": state.best_decks[-1] if state.best_decks else None,
    }


def finish_run_once(
    folder: RunFolder, config: EvolveConfig, space, state: EvolutionState, scorer, pmap, evolved: bool, progress, log
) -> dict:
    """The summary with the champion and its validation: computed after generations were run in
    this call (`evolved`) or when missing, else read back (a finished run resumed)."""
    summary = summary_of(folder, state)
    if state.pool is None:
        return summary
    done = _chosen_after(folder, folder.champion, state.generation) and (
        not config.validate or _chosen_after(folder, folder.validation, state.generation, legacy=True)
    )
    if done and not evolved:
        log(f"{folder.path} has finished all {config.generations} generations (extend it with more generations)")
        summary["champion"] = folder.read_champion()
        if config.validate:
            summary["validation"] = folder.read_validation()
        return summary
    if not (evolved and config.plot_every):  # else the last generation has just drawn them
        write_plots(folder, space, config, log)
    summary.update(scorer.finish(folder, pmap, log=log, progress=progress))
    summary["report"] = str(write_report(folder.path, space, log=log))
    log(f"report: {summary['report']}")
    return summary


def _chosen_after(folder: RunFolder, path, generation: int, legacy: bool = False) -> bool:
    """Whether the champion (or validation) file at `path` belongs to the run's last `generation`: one
    left by a shorter run that was extended and stopped before its end is stale. `legacy`: a file
    that names no generation (written before it did) counts as current."""
    if not path.is_file():
        return False
    data = folder.read_json(path, CHAMPION_FILE if path == folder.champion else VALIDATION_FILE)
    if not isinstance(data, dict):
        return False
    return data.get("generation", generation if legacy else None) == generation
