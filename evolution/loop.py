"""The generation loop, in the style of the DEAP examples: a toolbox, a hall of fame, a logbook.

    config = EvolveConfig(generations=30, agent="pretrained")
    result = evolve(config, "runs/my_run")           # or evolve(None, "runs/my_run", resume=True)

Each generation: the whole pool (survivors included, so a lucky deck must prove itself again) plays
its opponents with fresh seeds; fitness = mean match score with a 95 % interval, over this
generation's games pooled with a survivor's games of its last `score_memory - 1` generations (so a
deck that stays is measured ever more precisely, and a lucky score is diluted); the hall of fame
and logbook are updated; every file of the generation is written atomically, the checkpoint last.
Then selection and variation make the next pool:
- `ancestor`: keep the top `survivors`, add `offspring_per_survivor` mutated copies of each, refill
  with random decks (the ancestor's scheme, with sound fitness);
- `mu+lambda`: `mu` parents by tournament selection, `pool - mu` offspring (crossover with
  probability `cx_prob`, then mutation).
All randomness flows from one numpy Generator (saved in the checkpoint) and the per-pairing seed
keys, so a run resumed after an interruption ends exactly where the uninterrupted run does.

The DEAP creator classes live at module level here (classes made inside a function or script broke
reused loky workers); workers never see them: they get plain lists of powers and seed keys.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np
from deap import base, creator, tools

from evolution import fitness as fit
from evolution import genome
from evolution.config import EXECUTION_FIELDS, EvolveConfig
from games.errors import UserError
from games.fileio import atomic_write_json, atomic_write_text

if not hasattr(creator, "DeckFitness"):
    creator.create("DeckFitness", base.Fitness, weights=(1.0,))
if not hasattr(creator, "DeckIndividual"):
    # a sorted list of powers; score details ride along as attributes (set by `set_score`)
    creator.create("DeckIndividual", list, fitness=creator.DeckFitness)

CHECKPOINT_FORMAT = "deckopt-evolve-checkpoint-1"
LOGBOOK_FIELDS = ["gen", "decks", "games", "best", "best_lo", "best_hi", "mean", "mean_lo", "mean_hi", "std",
                  "min", "max", "hof_best", "best_vs_random", "mean_vs_random", "seconds", "games_per_s"]
TIMING_FIELDS = ("seconds", "games_per_s")


# ------------------------------------------------------------------------------------------------
# Individuals


def make_individual(cards, origin: str = "random") -> "creator.DeckIndividual":
    ind = creator.DeckIndividual(sorted(int(c) for c in cards))
    ind.origin = origin
    return ind


def set_score(ind, score: fit.Score | dict) -> None:
    d = score.as_dict() if isinstance(score, fit.Score) else score
    ind.fitness.values = (float(d["score"]),)
    ind.ci95 = [float(d["ci95"][0]), float(d["ci95"][1])]
    for k in ("games", "wins", "draws", "losses"):
        setattr(ind, k, int(d[k]))


def entry(ind, with_past: bool = False, **extra) -> dict:
    """An evaluated deck as JSON (`with_past`: also its past generations' games, for checkpoints)."""
    out = {"cards": list(ind), "total": sum(ind), "n_cards": len(ind),
           "score": ind.fitness.values[0] if ind.fitness.valid else None,
           "ci95": list(getattr(ind, "ci95", [0.0, 1.0])), "games": getattr(ind, "games", 0),
           "wins": getattr(ind, "wins", 0), "draws": getattr(ind, "draws", 0), "losses": getattr(ind, "losses", 0),
           "origin": getattr(ind, "origin", "")}
    if getattr(ind, "by_opponents", None):
        out["by_opponents"] = ind.by_opponents
    if with_past and getattr(ind, "past_scores", None):
        out["past_scores"] = [p.to_json() for p in ind.past_scores]
    out.update(extra)
    return out


def from_entry(d: dict):
    ind = make_individual(d["cards"], d.get("origin", ""))
    if d.get("score") is not None:
        set_score(ind, d)
    if d.get("by_opponents"):
        ind.by_opponents = d["by_opponents"]
    if d.get("past_scores"):
        ind.past_scores = [fit.Score.from_json(p) for p in d["past_scores"]]
    if "generation" in d:
        ind.generation = int(d["generation"])
    return ind


# ------------------------------------------------------------------------------------------------
# Toolbox: init, mutate, mate, select


def sel_tournament(individuals, k: int, tournsize: int, rng: np.random.Generator) -> list:
    """DEAP's selTournament with a numpy Generator (DEAP's uses the global `random` module):
    k times, the fittest of `tournsize` individuals drawn with replacement (first on ties)."""
    chosen = []
    fits = np.array([ind.fitness.values[0] for ind in individuals])
    for _ in range(k):
        aspirants = rng.integers(0, len(individuals), size=tournsize)
        chosen.append(individuals[int(aspirants[np.argmax(fits[aspirants])])])
    return chosen


def sel_best(individuals, k: int) -> list:
    """The k fittest, ties in pool order (stable)."""
    order = np.argsort([-ind.fitness.values[0] for ind in individuals], kind="stable")
    return [individuals[i] for i in order[:k]]


def build_toolbox(config: EvolveConfig, rng: np.random.Generator, pmap=None) -> base.Toolbox:
    rules = config.rules
    tb = base.Toolbox()
    shapes = tuple(config.init_shapes)
    tb.register("random_cards", genome.random_deck, rules, rng, shapes)
    tb.register("individual", lambda origin="random": make_individual(tb.random_cards(), origin))
    tb.register("population", tools.initRepeat, list, tb.individual)

    def mutate(ind):
        cards = genome.mutate(ind, rules, rng, card_rate=config.mut_card_rate, step_sigma=config.mut_step_sigma,
                              add_prob=config.mut_add_prob, remove_prob=config.mut_remove_prob)
        return make_individual(genome.assert_legal(cards, rules), "mutant")

    def mate(a, b):
        ca, cb = genome.crossover(a, b, rules, rng)
        return make_individual(ca, "crossover"), make_individual(cb, "crossover")

    tb.register("mutate", mutate)
    tb.register("mate", mate)
    tb.register("select", sel_tournament, tournsize=config.tournament_size, rng=rng)
    tb.register("select_best", sel_best)
    if pmap is not None:
        tb.register("map", pmap)
    return tb


def _kept(ind, origin: str):
    """A deck that goes on to the next generation unchanged, with its past games (score_memory)."""
    out = make_individual(ind, origin)
    out.past_scores = list(getattr(ind, "past_scores", []))
    return out


def next_pool(pool: list, config: EvolveConfig, tb: base.Toolbox, rng: np.random.Generator) -> list:
    """The next generation's pool from an evaluated one (selection + variation)."""
    if config.selection == "ancestor":
        survivors = [_kept(ind, "survivor") for ind in tb.select_best(pool, config.survivors)]
        children = []
        for s in survivors:
            for _ in range(config.offspring_per_survivor):
                parent = s
                if config.cx_prob and len(survivors) > 1 and rng.random() < config.cx_prob:
                    other = survivors[int(rng.integers(0, len(survivors)))]
                    parent = tb.mate(s, other)[0]
                child = tb.mutate(parent)
                children.append(child)
        fill = [tb.individual("random") for _ in range(config.pool - len(survivors) - len(children))]
        return survivors + children + fill
    # mu + lambda
    parents = [_kept(ind, "parent") for ind in tb.select(pool, config.mu)]
    offspring = []
    for _ in range(config.pool - config.mu):
        p1 = parents[int(rng.integers(0, len(parents)))]
        if config.cx_prob and rng.random() < config.cx_prob:
            p2 = parents[int(rng.integers(0, len(parents)))]
            p1 = tb.mate(p1, p2)[0]
        offspring.append(tb.mutate(p1))
    return parents + offspring


# ------------------------------------------------------------------------------------------------
# Fitness of a pool


class Evaluator:
    """Plays a pool's pairings (population round robin, hall of fame, random decks, panel) and scores
    each deck."""

    def __init__(self, config: EvolveConfig, agent, pmap, panel: list | None = None):
        self.config = config
        self.agent = agent
        self.pmap = pmap
        self.panel = panel or []

    def plan(self, pool: list, hof: tools.HallOfFame, gen: int):
        """(pairings, credits, kinds): credits[p] = [(deck index, from B's side?), ...] for pairing p,
        kinds[p] its opponent kind."""
        c = self.config
        decks = [tuple(ind) for ind in pool]
        deals = c.games_per_pair // 2
        pairings, credits, kind_of = [], [], []
        kinds = list(c.opponents)
        if kinds == ["hall-of-fame"] and len(hof) == 0:
            kinds = ["population"]  # nothing in the hall of fame yet (generation 0)
        for kind in kinds:
            start = len(pairings)
            if kind == "population":
                ps, who = fit.round_robin(decks, deals, c.seed, fit.STAGE_EVOLVE, gen, start)
                credits += [[(i, False), (j, True)] for i, j in who]
            elif kind == "hall-of-fame":
                opponents = [tuple(h) for h in list(hof)[: c.hof_opponents]]
                ps, who = fit.against(decks, opponents, deals, c.seed, fit.STAGE_EVOLVE, gen, start)
                credits += [[(i, False)] for i, _ in who]
            elif kind == "random":
                ps, who = fit.against(decks, self.random_opponents(gen), deals, c.seed, fit.STAGE_EVOLVE, gen, start)
                credits += [[(i, False)] for i, _ in who]
            else:
                ps, who = fit.against(decks, [r.cards for r in self.panel], deals, c.seed, fit.STAGE_EVOLVE, gen, start)
                credits += [[(i, False)] for i, _ in who]
            pairings += ps
            kind_of += [kind] * len(ps)
        return pairings, credits, kind_of

    def random_opponents(self, gen: int) -> list[tuple[int, ...]]:
        """Fresh random decks for generation `gen`, from their own seed (not the run's stream)."""
        c = self.config
        rng = np.random.default_rng([c.seed, fit.STAGE_EVOLVE, gen, 7919])
        return [tuple(genome.random_deck(c.rules, rng, tuple(c.init_shapes))) for _ in range(c.random_opponents)]

    def evaluate(self, pool: list, hof, gen: int, make_bar=None) -> int:
        """Score every deck of `pool` in place; returns the number of games played. `make_bar(total)`
        may return a progress bar (update(n), close())."""
        c = self.config
        pairings, credits, kind_of = self.plan(pool, hof, gen)
        for p in pairings:
            genome.assert_legal(p.a, c.rules)
            genome.assert_legal(p.b, c.rules)
        bar = make_bar(sum(p.games for p in pairings)) if make_bar is not None else None
        try:
            results = fit.play_pairings(pairings, self.agent, c.rules, self.pmap, c.games_per_task,
                                        (c.seed, fit.STAGE_EVOLVE, gen), on_games=bar.update if bar is not None else None)
        finally:
            if bar is not None:
                bar.close()
        scores = [fit.Score() for _ in pool]
        # the same games split by opponent kind: fresh random decks are a fixed distribution, so a
        # deck's score against them is comparable across generations (the population's is not)
        by_kind = [{} for _ in pool]
        for outcomes, credit, kind in zip(results, credits, kind_of):
            for i, flip in credit:
                scores[i].add(outcomes, flip=flip)
                by_kind[i].setdefault(kind, fit.Score()).add(outcomes, flip=flip)
        keep = c.score_memory - 1  # past generations that count
        for ind, s, kinds in zip(pool, scores, by_kind):
            past = getattr(ind, "past_scores", [])[-keep:] if keep else []
            pooled = s
            for p in past:
                pooled = pooled.merge(p)
            set_score(ind, pooled)
            ind.past_scores = (past + [s])[-keep:] if keep else []
            ind.by_opponents = {k: {key: v for key, v in ks.as_dict().items() if key in ("score", "ci95", "games")}
                                for k, ks in kinds.items()}
        return sum(p.games for p in pairings)


# ------------------------------------------------------------------------------------------------
# Run folder


class RunFolder:
    def __init__(self, path: str | Path):
        self.path = Path(path)

    config = property(lambda self: self.path / "config.json")
    checkpoint = property(lambda self: self.path / "checkpoints" / "checkpoint.json")
    generations = property(lambda self: self.path / "generations")
    logbook = property(lambda self: self.path / "logbook.csv")
    best_decks = property(lambda self: self.path / "best_decks.json")
    hall_of_fame = property(lambda self: self.path / "hall_of_fame.json")
    champion = property(lambda self: self.path / "champion.json")
    champion_deck = property(lambda self: self.path / "champion.toml")
    validation = property(lambda self: self.path / "validation.json")

    def generation_file(self, gen: int) -> Path:
        return self.generations / f"gen_{gen:04d}.json"


def logbook_csv(rows: list[dict]) -> str:
    lines = [",".join(LOGBOOK_FIELDS)]
    for r in rows:
        lines.append(",".join(_csv_value(r.get(k, "")) for k in LOGBOOK_FIELDS))
    return "\n".join(lines) + "\n"


def _csv_value(v) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def save_checkpoint(run: RunFolder, gen: int, rng: np.random.Generator, pool: list, hof, logbook, best_decks) -> None:
    atomic_write_json(run.checkpoint, {
        "format": CHECKPOINT_FORMAT,
        "generation": gen,
        "rng": rng.bit_generator.state,
        "pool": [entry(ind, with_past=True) for ind in pool],
        "hall_of_fame": [entry(h, generation=getattr(h, "generation", None)) for h in hof],
        "logbook": [dict(r) for r in logbook],
        "best_decks": best_decks,
    }, indent=None)


def load_checkpoint(run: RunFolder) -> dict:
    try:
        data = json.loads(run.checkpoint.read_text())
        if data.get("format") != CHECKPOINT_FORMAT:
            raise ValueError(f"format {data.get('format')!r}")
        return data
    except (OSError, ValueError) as exc:
        raise UserError(f"run {str(run.path)!r}: unreadable checkpoint {run.checkpoint.name} ({exc})") from None


def restore_hof(entries: list[dict], maxsize: int) -> tools.HallOfFame:
    hof = tools.HallOfFame(maxsize)
    # inserting from worst to best reproduces the saved order exactly (bisect_right on ties)
    for d in reversed(entries):
        hof.insert(from_entry(d))
    return hof


def update_hof(hof: tools.HallOfFame, pool: list, gen: int) -> None:
    """DEAP's update, except that a deck evaluated again takes its fresh score (a lucky score does
    not stay in the hall of fame because the deck was re-evaluated)."""
    current = {tuple(ind) for ind in pool}
    for i in reversed(range(len(hof))):
        if tuple(hof[i]) in current:
            hof.remove(i)
    for ind in pool:
        ind.generation = gen
    hof.update(pool)


# ------------------------------------------------------------------------------------------------
# The loop


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def prepare_run(config: EvolveConfig | None, out_dir, resume: bool, overrides: dict | None = None) -> tuple[EvolveConfig, RunFolder]:
    """The config of a new run (folder must be new or empty) or of a resumed one (execution fields
    may be overridden; changing anything else is refused)."""
    run = RunFolder(out_dir)
    if resume:
        if not run.path.is_dir():
            raise UserError(f"run folder {str(run.path)!r} not found")
        if not run.config.is_file():
            raise UserError(f"{str(run.path)!r} is not an evolution run folder (no config.json)")
        try:
            saved_dict = json.loads(run.config.read_text())
            # a run saved before score_memory existed was scored on one generation's games
            if isinstance(saved_dict, dict):
                saved_dict.setdefault("score_memory", 1)
            saved = EvolveConfig.from_dict(saved_dict, where=f"{run.config}")
        except json.JSONDecodeError as exc:
            raise UserError(f"{run.config}: malformed ({exc})") from None
        changes = {k: v for k, v in (overrides or {}).items() if v is not None}
        refused = sorted(k for k, v in changes.items() if k not in EXECUTION_FIELDS and getattr(saved, k) != v)
        if refused:
            raise UserError(f"cannot change {', '.join(refused)} when resuming (only {', '.join(sorted(EXECUTION_FIELDS))})")
        return saved.replace(**{k: v for k, v in changes.items() if k in EXECUTION_FIELDS}), run
    if config is None:
        raise ValueError("a new run needs a config")
    if run.path.exists() and (not run.path.is_dir() or any(run.path.iterdir())):
        raise UserError(f"run folder {str(run.path)!r} already exists; continue it with --resume {run.path} or choose another --out")
    return config, run


def evolve(
    config: EvolveConfig | None,
    out_dir,
    *,
    resume: bool = False,
    overrides: dict | None = None,
    progress: bool = True,
    log: Callable[[str], None] | None = _stderr,
    pmap=None,
    on_generation: Callable[[int], None] | None = None,
    finish: bool = True,
) -> dict:
    """Run (or resume) an evolution into `out_dir`; returns a summary dict. `pmap` replaces the
    parallel map (tests); `on_generation(gen)` is called after each generation is saved; with
    `finish`, the champion is chosen and validated at the end (`config.validate`)."""
    from evolution.parallel import Mapper
    from evolution.panel import load_panel

    config, run = prepare_run(config, out_dir, resume, overrides)
    log = log or (lambda message: None)
    # everything a user can get wrong is checked before the run folder is made
    panel = load_panel(config.panel, config.rules) if "panel" in config.opponents else []
    agent = fit.build_agent(config.agent, config.rules, seed=config.seed)
    if config.validate:
        load_panel(config.validation_panel, config.rules)

    rng = np.random.default_rng(config.seed)
    if resume and run.checkpoint.is_file():
        ck = load_checkpoint(run)
        rng.bit_generator.state = ck["rng"]
        pool = [from_entry(d) for d in ck["pool"]]
        hof = restore_hof(ck["hall_of_fame"], config.hof_size)
        logbook = tools.Logbook()
        logbook.header = LOGBOOK_FIELDS
        for row in ck["logbook"]:
            logbook.record(**row)
        best_decks = ck["best_decks"]
        start = ck["generation"] + 1
        log(f"resuming {run.path} after generation {ck['generation']}")
    else:
        pool, hof, best_decks, start = None, tools.HallOfFame(config.hof_size), [], 0
        logbook = tools.Logbook()
        logbook.header = LOGBOOK_FIELDS

    mapper = pmap or Mapper(config.jobs, config.backend, config.scheduler)
    with (mapper if pmap is None else _nullcontext(mapper)) as pm:  # a Dask scheduler is reached here
        run.path.mkdir(parents=True, exist_ok=True)
        atomic_write_json(run.config, config.to_dict())
        tb = build_toolbox(config, rng, pm)
        evaluator = Evaluator(config, agent, tb.map, panel)
        if start < config.generations:
            log(f"evolving {config.generations - start} generation(s) of {config.pool} decks with agent "
                f"{config.agent!r} on {getattr(pm, 'describe', lambda: 'a custom map')()} -> {run.path}")
        gen_seconds: list[float] = []
        try:
            for gen in range(start, config.generations):
                if gen == 0:
                    pool = tb.population(n=config.pool)
                else:
                    pool = next_pool(pool, config, tb, rng)
                t0 = time.perf_counter()
                # the run's time left, from this session's mean generation time (the bar shows it)
                left = (config.generations - gen) * sum(gen_seconds) / len(gen_seconds) if gen_seconds else None
                make_bar = (lambda total, gen=gen, left=left: _bar(total, gen, config.generations, best_decks, left)) if progress else None
                games = evaluator.evaluate(pool, hof, gen, make_bar)
                seconds = time.perf_counter() - t0
                gen_seconds.append(seconds)
                update_hof(hof, pool, gen)
                record = _record(gen, pool, hof, games, seconds)
                logbook.record(**record)
                best = tb.select_best(pool, 1)[0]
                best_decks.append({"generation": gen, "best": _best_entry(best)})
                _write_generation(run, gen, pool, games, seconds, config)
                atomic_write_text(run.logbook, logbook_csv(list(logbook)))
                atomic_write_json(run.best_decks, {"run": run.path.name, "generations": best_decks})
                atomic_write_json(run.hall_of_fame, [entry(h, generation=getattr(h, "generation", None)) for h in hof])
                save_checkpoint(run, gen, rng, pool, hof, logbook, best_decks)
                if config.plot_every and ((gen + 1) % config.plot_every == 0 or gen + 1 == config.generations):
                    _plots(run, log)
                log(_gen_line(record, best))
                if on_generation is not None:
                    on_generation(gen)
        except BaseException as exc:  # Ctrl-C, a dead worker, ...: say what is safe, then stop
            what = "interrupted" if isinstance(exc, KeyboardInterrupt) else f"stopped ({type(exc).__name__})"
            saved = f"generations 0..{len(best_decks) - 1} are saved" if best_decks else "no generation finished"
            log(f"{what}; {saved}: continue with `deckopt evolve --resume {run.path}`")
            raise
        summary = {"run": str(run.path), "generations": len(best_decks), "best": best_decks[-1] if best_decks else None}
        already = start >= config.generations and run.champion.is_file() and (not config.validate or run.validation.is_file())
        if finish and already:
            log(f"{run.path} has finished all {config.generations} generations (extend with --generations)")
            summary["champion"] = json.loads(run.champion.read_text())
            if config.validate:
                summary["validation"] = json.loads(run.validation.read_text())
        elif finish and pool is not None:
            _plots(run, log)
            from evolution.validation import finish_run

            summary.update(finish_run(run, config, agent, pm, log=log, progress=progress))
    return summary


class _nullcontext:
    def __init__(self, obj):
        self.obj = obj

    def __enter__(self):
        return self.obj

    def __exit__(self, *exc):
        return None


def _bar(total: int, gen: int, generations: int, best_decks: list, run_seconds_left: float | None = None):
    from tqdm import tqdm

    bar = tqdm(total=total, desc=f"gen {gen}/{generations - 1}", unit="game", file=sys.stderr, leave=False, dynamic_ncols=True)
    notes = []
    if best_decks:
        notes.append(f"best so far {max(b['best']['score'] for b in best_decks):.3f}")
    if run_seconds_left is not None:
        notes.append(f"run ~{run_seconds_left / 60:.0f} min left" if run_seconds_left >= 90 else f"run ~{run_seconds_left:.0f} s left")
    if notes:
        bar.set_postfix_str(", ".join(notes))
    return bar


def _best_entry(ind) -> dict:
    return {"cards": list(ind), "score": ind.fitness.values[0], "ci95": list(ind.ci95), "games": ind.games}


def _record(gen: int, pool: list, hof, games: int, seconds: float) -> dict:
    from agents.stats import mean_ci

    scores = np.array([ind.fitness.values[0] for ind in pool])
    best = sel_best(pool, 1)[0]
    mean, lo, hi = mean_ci(scores)
    return {
        "gen": gen, "decks": len(pool), "games": games,
        "best": float(best.fitness.values[0]), "best_lo": float(best.ci95[0]), "best_hi": float(best.ci95[1]),
        "mean": mean, "mean_lo": lo, "mean_hi": hi, "std": float(scores.std()),
        "min": float(scores.min()), "max": float(scores.max()),
        "hof_best": float(hof[0].fitness.values[0]) if len(hof) else float("nan"),
        "best_vs_random": _vs_random(best),
        "mean_vs_random": float(np.mean([_vs_random(ind) for ind in pool])),
        "seconds": round(seconds, 3), "games_per_s": round(games / seconds, 1) if seconds > 0 else 0.0,
    }


def _vs_random(ind) -> float:
    """The deck's score against this generation's fresh random decks (nan without them)."""
    d = (getattr(ind, "by_opponents", None) or {}).get("random")
    return float(d["score"]) if d else float("nan")


def _write_generation(run: RunFolder, gen: int, pool: list, games: int, seconds: float, config: EvolveConfig) -> None:
    order = np.argsort([-ind.fitness.values[0] for ind in pool], kind="stable")
    decks = [entry(pool[i], rank=r + 1) for r, i in enumerate(order)]
    atomic_write_json(run.generation_file(gen), {
        "generation": gen, "games": games, "seconds": round(seconds, 3), "opponents": list(config.opponents),
        "games_per_pair": config.games_per_pair, "decks": decks,
    })


def _gen_line(record: dict, best) -> str:
    return (f"gen {record['gen']:>3}: best {record['best']:.3f} [{record['best_lo']:.3f}, {record['best_hi']:.3f}] "
            f"{genome.counts_text(best)} (total {sum(best)}, {len(best)} cards); mean {record['mean']:.3f}; "
            f"{record['games']} games in {record['seconds']:.1f} s ({record['games_per_s']:.0f}/s)")


def _plots(run: RunFolder, log) -> None:
    from evolution import report

    try:
        report.write_plots(run)
    except Exception as exc:  # noqa: BLE001 - a plot must never cost a run
        log(f"warning: plots not written ({type(exc).__name__}: {exc})")
