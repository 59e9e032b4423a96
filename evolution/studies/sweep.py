"""Rule sweeps: how the best achievable deck and its archetype move as one deck rule changes.

    report = run_sweep(config, "copy_limit", [1, 2, 3], "runs/sweep-copy", fields=20, games=20)

For each value of the rule one evolution run (`evolution.loop.evolve` with the rule set, in
OUT/<rule>=<value>/), then its champion measured under that rule against two held-out fields, with
fresh seeds and mirrored games (a 95 % CI over deals):

- `random`: `fields` random legal decks under the same rules, an absolute scale of the deck's
  strength (every evolved champion beats random decks);
- `rivals`: up to `fields` other decks of the run's last generation (evolved decks, the champion's
  strongest competition), which answers "does this rule leave a dominant deck?": the champion is
  dominant when its CI against them lies above `dominance`.

The runs skip the reference validation and the yardstick (reference decks are built for the default
rules and may be illegal under another value); the held-out fields take their place. An interrupted
sweep resumes: a finished run (its champion written) is kept with its measurement, an unfinished one
is resumed. Only a sweep with the same settings resumes: sweep.json records the sweep's own (game,
rule, held-out fields, games, dominance) and each run's config.json its run's; any difference but how
the runs execute (jobs, backend, ...) is refused before a game is played, since kept runs and
measurements made under other settings would not answer the question asked. New values may be added.
The sweep writes sweep.json (from the start, with the rows finished so far), sweep.md and sweep.csv
(one row a value) and sweep.png.
Library code: progress and log lines go to the callbacks.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import io
from collections.abc import Callable
from pathlib import Path

import numpy as np

from agents.parallel import Mapper
from evolution.config import CLUSTER_FIELDS, EXECUTION_FIELDS, EvolveConfig, deck_rules_class, with_deck_rule
from evolution.designer.plots import plot_sweep
from evolution.loop import evolve
from evolution.runfiles import MEASUREMENT_FILE, SWEEP_FILE
from evolution.runfolder import RunFolder
from evolution.scoring import fitness as fit
from evolution.spaces.registry import space_for
from games.config import need
from games.fileio import atomic_write_bytes, atomic_write_json, atomic_write_text
from games.folder_lock import folder_lock

#: the seed stage of the held-out games (apart from the run's own stages)
STAGE_SWEEP = 5
#: the measurement of a finished run's champion, kept in its run folder
MEASUREMENT = "sweep_measurement.json"
FIELDS = ("random", "rivals")
#: the sweep's own settings in sweep.json (a resumed sweep must match them) and their names
SWEEP_SETTINGS = {
    "game": "game",
    "rule": "rule",
    "fields": "held-out decks",
    "games": "held-out games",
    "dominance": "dominance",
}
#: run settings that may differ on resume: how the runs execute, not what they compute (unlike a
#: resumed `deckopt evolve`, a sweep's run length is part of what it compares)
EXECUTION_ONLY = EXECUTION_FIELDS - {"generations"}


def sweep_configs(config: EvolveConfig, rule: str, values: list) -> list[tuple[object, EvolveConfig]]:
    """(value, the run's config) for every value, all checked before a game is played; UserError in
    one line for a game without deck rules, an unknown rule, a bad or repeated value."""
    deck_rules_class(config.game)
    need(bool(values), "--values: give at least one value")
    need(len(set(map(str, values))) == len(values), f"--values: a value is given twice: {values}")
    base = config.replace(validate=False, yardstick=[])
    return [(value, with_deck_rule(base, rule, value)) for value in values]


def run_folder(out, rule: str, value) -> Path:
    return Path(out) / f"{rule}={value}"


def run_sweep(
    config: EvolveConfig,
    rule: str,
    values: list,
    out,
    *,
    fields: int = 20,
    games: int = 20,
    dominance: float = 0.6,
    progress: Callable[[int, int, str], None] | None = None,
    log: Callable[[str], None] | None = None,
    pmap=None,
) -> dict:
    """One evolution run per value, each champion measured on the held-out fields; writes and returns
    the sweep's report (see the module docstring). `pmap` replaces the parallel map (tests)."""
    need(isinstance(fields, int) and fields >= 1, f"fields must be a whole number >= 1, got {fields!r}")
    need(isinstance(games, int) and games >= 2 and games % 2 == 0, f"games must be even and >= 2, got {games!r}")
    need(0 < dominance < 1, f"dominance must be a score between 0 and 1, got {dominance!r}")
    log = log or (lambda line: None)
    out = Path(out)
    plans = sweep_configs(config, rule, values)
    space = space_for(plans[0][1])
    report = {
        "game": config.game,
        "rule": rule,
        "values": list(values),
        "descriptors": list(space.descriptor_space()[0]),
        "fields": fields,
        "games": games,
        "dominance": dominance,
        "rows": [],
    }
    with folder_lock(out, what="sweep folder"):  # one sweep writes a folder at a time
        check_same_settings(out, report, plans[0][1])
        atomic_write_json(out / "sweep.json", report)  # the settings, before any game
        for value, run_config in plans:
            folder = RunFolder(run_folder(out, rule, value))
            row = _one_value(folder, rule, value, run_config, fields, games, dominance, progress, log, pmap)
            report["rows"].append(row)
            atomic_write_json(out / "sweep.json", report)
        write_report(out, report)
    return report


def read_sweep(out: Path) -> dict:
    """The sweep in folder `out` (its sweep.json), checked against SWEEP_FILE; UserError in one line."""
    return RunFolder(out).read_json(out / "sweep.json", SWEEP_FILE, "sweep file")


def check_same_settings(out: Path, report: dict, run_config: EvolveConfig) -> None:
    """UserError in one line, naming the first setting that differs and both its values, when `out`
    holds a sweep (its sweep.json) or runs of the rule (their config.json) made with other settings
    than `report`'s and `run_config`'s (the config of one of the sweep's runs); execution settings
    aside, and the swept rule's value aside."""
    rule = report["rule"]
    if (out / "sweep.json").is_file():
        saved = read_sweep(out)
        for key, name in SWEEP_SETTINGS.items():
            _need_same(out, name, saved.get(key), report[key])
    for config_file in sorted(out.glob(f"{rule}=*/config.json")):
        saved = RunFolder(config_file.parent).read_config()
        _need_same(out, "game", saved.game, run_config.game)
        value = getattr(saved.settings.rules, rule)
        planned = run_config.replace(rules=dataclasses.replace(run_config.settings.rules, **{rule: value})).flat()
        for name, saved_value in saved.flat().items():
            if name not in EXECUTION_ONLY:
                _need_same_setting(out, name, saved_value, planned[name])


def _need_same_setting(out: Path, name: str, saved, wanted) -> None:
    """A setting of a run config, a table of settings (deck rules, ...) setting by setting."""
    if dataclasses.is_dataclass(saved) and type(saved) is type(wanted):
        for sub in dataclasses.fields(saved):
            _need_same(out, f"{name}.{sub.name}", getattr(saved, sub.name), getattr(wanted, sub.name))
    else:
        _need_same(out, name, saved, wanted)


def _need_same(out: Path, name: str, saved, wanted) -> None:
    need(
        saved == wanted,
        f"{out} holds a sweep made with other settings ({name} = {saved!r} there, {wanted!r} now); "
        "choose another --out to sweep with these",
    )


def _one_value(folder: RunFolder, rule, value, config, fields, games, dominance, progress, log, pmap) -> dict:
    measured = folder.path / MEASUREMENT
    if folder.champion.is_file() and measured.is_file():
        log(f"{rule} = {value}: finished run kept ({folder.path})")
        return kept_measurement(folder, rule, value, dominance)
    resume = folder.config.is_file()  # started: resumed from its last finished generation (or its start)
    log(f"{rule} = {value}: {'resuming' if resume else 'evolving'} -> {folder.path}")
    # how to run comes from this sweep's command line, never from the run's folder
    overrides = {k: getattr(config, k) for k in ("jobs", *sorted(CLUSTER_FIELDS))} if resume else None
    evolve(
        None if resume else config,
        folder.path,
        resume=resume,
        overrides=overrides,
        progress=progress,
        log=log,
        pmap=pmap,
    )
    row = measure_champion(folder, rule, value, fields, games, dominance, progress, pmap, cluster=config)
    atomic_write_json(measured, row)
    return row


def kept_measurement(folder: RunFolder, rule, value, dominance: float) -> dict:
    """The measurement kept in a finished run of the sweep (its sweep_measurement.json), checked: it
    must measure this run's champion at this value; what follows from the champion and the scores
    (its text, descriptors, dominance) is derived again, never shown as the file has it."""
    path = folder.path / MEASUREMENT
    row = folder.read_json(path, MEASUREMENT_FILE, "sweep measurement")
    champion = folder.read_champion()["cards"]
    need(
        row["value"] == value and row["champion"] == champion,
        f"{path} does not measure this run's champion at {rule} = {value}; delete it to measure the champion again",
    )
    space = space_for(folder.read_config())
    rivals = row["rivals"]
    return {
        **row,
        "run": str(folder.path),
        "text": space.words(champion),
        "descriptors": [round(d, 4) for d in space.descriptors(champion)],
        "dominant": bool(rivals is not None and rivals["ci95"][0] > dominance),
    }


def measure_champion(
    folder: RunFolder, rule, value, fields: int, games: int, dominance: float, progress, pmap, *, cluster: EvolveConfig
) -> dict:
    """The run's champion against `fields` random legal decks and up to `fields` rivals of its last
    generation, `games` mirrored games each, fresh seeds, on the cluster of `cluster` (the sweep's
    config, never the run folder's); the row of the sweep's table."""
    config = folder.read_config()
    space = space_for(config)
    champion = folder.read_champion()["cards"]
    rng = np.random.default_rng([config.seed, STAGE_SWEEP, 7919])
    random_decks = [tuple(space.random_deck(rng)) for _ in range(fields)]
    rivals = []
    for deck in folder.read_last_generation()["decks"]:
        cards = tuple(deck["cards"])
        if list(cards) != list(champion) and cards not in rivals and len(rivals) < fields:
            rivals.append(cards)
    agent = space.build_agent(config.agent, config.seed)
    with _mapper(cluster, pmap) as pm:
        play = space.matches(agent, pm, config.games_per_task)
        scores = {}
        for k, (name, opponents) in enumerate((("random", random_decks), ("rivals", rivals))):
            if not opponents:
                scores[name] = None
                continue
            key = (config.seed, STAGE_SWEEP, k)
            pairings, _ = fit.against([tuple(champion)], opponents, games // 2, *key)
            total = fit.Score()
            for outcomes in play(pairings, key, progress, f"{rule}={value} vs {name}"):
                total.add(outcomes)
            scores[name] = {**total.as_dict(), "opponents": len(opponents)}
    rivals_score = scores["rivals"]
    return {
        "value": value,
        "run": str(folder.path),
        "champion": list(champion),
        "text": space.words(champion),
        "descriptors": [round(d, 4) for d in space.descriptors(champion)],
        "random": scores["random"],
        "rivals": rivals_score,
        "dominant": bool(rivals_score is not None and rivals_score["ci95"][0] > dominance),
    }


def _mapper(config: EvolveConfig, pmap):
    if pmap is not None:
        return contextlib.nullcontext(pmap)
    return Mapper(config.jobs, config.backend, config.scheduler, task_timeout=config.task_timeout)


# ------------------------------------------------------------------------------------------------
# The report


def table_rows(report: dict) -> tuple[list[str], list[list[str]]]:
    """The sweep's table (head, rows of text): one row a rule value."""

    def score(s):
        return "-" if s is None else f"{s['score']:.3f} [{s['ci95'][0]:.3f}, {s['ci95'][1]:.3f}]"

    head = [report["rule"], "vs random (95% CI)", "vs rivals (95% CI)", f"dominant (> {report['dominance']})"]
    head += report["descriptors"] + ["champion"]
    rows = [
        [str(r["value"]), score(r["random"]), score(r["rivals"]), "yes" if r["dominant"] else "no"]
        + [f"{d:.3f}" for d in r["descriptors"]]
        + [r["text"]]
        for r in report["rows"]
    ]
    return head, rows


def markdown_table(report: dict) -> str:
    head, rows = table_rows(report)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    title = (
        f"{report['game']}: champion of one evolution run per {report['rule']}, measured with "
        f"{report['games']} mirrored games against each of {report['fields']} held-out decks per field"
    )
    return title + "\n\n" + "\n".join(lines) + "\n"


def csv_text(report: dict) -> str:
    head = [report["rule"], "random", "random_lo", "random_hi", "rivals", "rivals_lo", "rivals_hi", "dominant"]
    head += report["descriptors"] + ["champion"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(head)
    for r in report["rows"]:
        cells = [r["value"]]
        for name in FIELDS:
            s = r[name]
            cells += ["", "", ""] if s is None else [f"{s['score']:.4f}", f"{s['ci95'][0]:.4f}", f"{s['ci95'][1]:.4f}"]
        writer.writerow(cells + [r["dominant"]] + r["descriptors"] + [r["text"]])
    return buffer.getvalue()


def write_report(out: Path, report: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_json(out / "sweep.json", report)
    atomic_write_text(out / "sweep.md", markdown_table(report))
    atomic_write_text(out / "sweep.csv", csv_text(report))
    atomic_write_bytes(out / "sweep.png", plot_sweep(report))
