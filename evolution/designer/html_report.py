"""One self-contained `report.html` per evolution run folder: a page to look at rather than JSON.

The page leads with the answer: the champion (its cards and a picture of its powers or card counts)
and its verdict against the reference decks, with 95 % intervals; then progress over generations (the
fitness plot and the yardstick), the best deck of every generation, the cards its strong decks play,
matchups, the archive, and last the run's settings, folded, only those that apply to the run's game.
Everything is inline: CSS in a <style> element, plots as base64 PNG data URIs, the champion's picture
as inline SVG, no script and no link to anything, so the file opens offline, can be mailed, and shows
what the run folder held when it was written. A section whose files the run does not have says so
instead of failing (a run still going has no champion yet; a run without --archive has no archive).
Files are read as plain JSON/CSV, so a report can be written for any run folder that has a
config.json, old or new.

Each section is built as data (blocks of evolution.designer.html: text, tables, images) and the
page is rendered by one Jinja2 template with autoescape on (templates/report.html, which also
holds the page's styles), so no text of a run folder can become markup.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from evolution.config import EvolveConfig, split_settings
from evolution.designer.cards import cards_report, cards_rows, cards_summary
from evolution.designer.html import (
    Answer,
    Bars,
    Block,
    Details,
    Image,
    Table,
    Text,
    heading,
    note,
    preformatted,
    render,
)
from evolution.designer.html import ci as _ci
from evolution.designer.matchups import NamedDeck, load_space_decks, play_matchups, write_matchups
from evolution.designer.plots import best_plot, fitness_plot
from evolution.designer.tables import YARDSTICK_NOTE, numbers
from evolution.designer.verdicts import verdict_blocks
from evolution.runfiles import CHAMPION_FILE, SETTINGS_TABLE, VALIDATION_FILE
from evolution.runfolder import Run, RunFolder
from evolution.spaces.registry import space_for
from games.config import settings_help
from games.errors import UserError
from games.fileio import atomic_write_text, check_writable_dir
from games.schema import ANYTHING, Schema

REPORT_NAME = "report.html"
MATCHUPS_NAME = "matchups.json"
ARCHIVE_NAME = "archive.json"
SECTIONS = (
    ("champion", "Champion"),
    ("verdict", "Verdict against the reference decks"),
    ("progress", "Progress over generations"),
    ("best", "Best deck per generation"),
    ("cards", "Cards of the strong decks"),
    ("matchups", "Matchups"),
    ("archive", "Archive"),
    ("settings", "Settings"),
)


def _verdict(champion: dict | None, validation: dict | None, space) -> list[Block]:
    """The champion's validation as the run's deck space reports it."""
    if champion is None or "_unreadable" in champion:
        return [note("no champion yet, so no verdict")]
    if validation is not None and "_unreadable" in validation:
        return [note(f"the validation cannot be shown: {validation['_unreadable']}")]
    return verdict_blocks(champion, validation, space)


def _read(folder: RunFolder, path: Path, schema: Schema = ANYTHING):
    """A JSON file of the run checked against `schema`, or None when absent; a damaged file is
    reported, not fatal."""
    if not path.is_file():
        return None
    try:
        return folder.read_json(path, schema, path.name)
    except UserError as exc:
        return {"_unreadable": str(exc)}


# ------------------------------------------------------------------------------------------------
# Sections


def _applies(name: str, help_text: str, config: dict) -> bool:
    """Whether a setting plays a part in this run: not a feature the run does not use."""
    prefix = help_text.split(":", 1)[0] if ":" in help_text else ""
    feature_off = {
        "racing": config.get("fitness") != "racing",
        "mu+lambda selection": config.get("selection") != "mu+lambda",
        "truncation selection": config.get("selection") != "truncation",
        "MAP-Elites": not config.get("archive"),
    }.get(prefix, False)
    if name.startswith("yardstick") and not config.get("yardstick"):  # no yardstick decks to measure against
        return False
    if name.startswith("validation") and not config.get("validate"):  # no validation at the end
        return False
    if name == "scheduler" and not config.get("scheduler"):
        return False
    return not feature_off


def _settings(config: dict, space) -> list[Block]:
    helps = settings_help(EvolveConfig) | settings_help(space.Settings)
    shown = {k: v for k, v in config.items() if _applies(k, helps.get(k, ""), config)}
    rows = [[k, json.dumps(v) if not isinstance(v, str) else v, helps.get(k, "")] for k, v in shown.items()]
    summary = f"{len(rows)} settings of this {space.name} run (config.json)"
    return [Details(summary, [Table(["setting", "value", "what it sets"], rows, left=frozenset({0, 1, 2}))])]


def _champion(champion: dict | None, space) -> list[Block]:
    """The champion: its cards in words and a picture of them (a drafter's mana curve where the space's
    row gives a `curve`, copies per card name where it names its cards, else per card value), and
    its best-scored cards where the row lists them (`top`)."""
    if champion is None:
        return [note("no champion yet (the run has not finished)")]
    if "_unreadable" in champion:
        return [note(champion["_unreadable"])]
    cards = champion["cards"]
    row = space.row(cards)
    words, deck, curve = space.words(cards), row.get("deck"), row.get("curve")
    facts = ", ".join([f"{len(cards)} cards"] + [f"{k} {v}" for k, v in numbers(space, cards).items()])
    if row.get("top"):
        facts += f"; best-scored cards: {', '.join(row['top'])}"
    if isinstance(curve, dict):
        picture = Bars(
            list(curve), list(curve.values()), f"mana curve of the decks it drafts (cards per deck by cost): {words}"
        )
    elif isinstance(deck, dict):
        picture = Bars(list(deck), list(deck.values()), f"copies per card of the champion: {words}")
    else:
        values = list(range(min(cards), max(cards) + 1))
        picture = Bars(values, [cards.count(v) for v in values], f"copies per card value of the champion: {words}")
    how = champion.get("how", "")
    gen = champion.get("generation", "")
    chosen = f"Chosen as {how}" + (f" (found in generation {gen})" if gen != "" else "") + "." if how else ""
    return [Answer(words, facts, chosen, picture)]


def _progress(folder: RunFolder, config: dict, champion: dict | None, space) -> list[Block]:
    """The fitness plot (with the yardstick curve, where the run has one) and how the champion was picked."""
    return _fitness(folder, space) + _yardstick(config, champion, space) + _playoff(champion, space)


def _playoff(champion: dict | None, space) -> list[Block]:
    playoff = (champion or {}).get("playoff") or []
    if not playoff:
        return []
    rows = [[k, space.words(p["cards"]), _ci(p), p["games"]] for k, p in enumerate(playoff, 1)]
    return [heading("Playoff"), Table(["rank", "deck", "score [95% CI]", "games"], rows, left=frozenset({1}))]


def _drawn(folder: RunFolder, png: Path, data: Path | None = None) -> bytes | None:
    """The run folder's plot `png` if it is a plain file of the folder written after its `data` file
    (the run draws its plots with the same titles right after each such write, RunFolder.write_plots),
    else None: draw it."""
    try:
        if data is None or png.stat().st_mtime_ns >= data.stat().st_mtime_ns:
            return folder.read_plot(png)
    except (OSError, UserError):
        pass
    return None


def _fitness(folder: RunFolder, space) -> list[Block]:
    rows = folder.read_logbook()
    if not rows:
        return [note("no finished generation yet (no logbook.csv)")]
    png = _drawn(folder, folder.fitness_plot, folder.logbook)
    if png is None:
        png = fitness_plot(rows, folder.name, folder.read_config())
    last = rows[-1]
    text = (
        f"{len(rows)} generations; last generation: best {last['best']:.3f} "
        f"[{last['best_lo']:.3f}, {last['best_hi']:.3f}], pool mean {last['mean']:.3f}"
    )
    return [Image(png, "fitness over generations"), Text(text)]


def _best(folder: RunFolder, space) -> list[Block]:
    if not folder.best_decks.is_file():
        return [note("no finished generation yet (no best_decks.json)")]
    best = folder.read_best_decks()
    if not best:
        return [note("no finished generation yet")]
    png = _drawn(folder, folder.powers_plot, folder.best_decks)
    if png is None:
        png = best_plot(best, space, folder.name)
    head = ["gen", "deck", "cards"]
    rows = [[b["generation"], space.words(b["best"]["cards"]), len(b["best"]["cards"])] for b in best]
    has_yard = any(b.get("yardstick") for b in best)
    for b, row in zip(best, rows):
        d = b["best"]
        row += [_ci(d), d.get("games", "")]
        if has_yard:
            y = b.get("yardstick")
            row.append(f"{y[0]:.3f} [{y[1]:.3f}, {y[2]:.3f}]" if y else "")
    head += ["fitness [95% CI]", "games"]
    head += ["generation's best on the yardstick [95% CI]"] if has_yard else []
    explained = [Text(YARDSTICK_NOTE[0].upper() + YARDSTICK_NOTE[1:] + ".")] if has_yard else []
    return [Image(png, "the best deck per generation"), *explained, Table(head, rows, frozenset({1}))]


def _cards(folder: RunFolder, space) -> list[Block]:
    """Which cards the strong decks play (evolution.designer.cards), as `deckopt decks RUN --cards`."""
    if not folder.hall_of_fame.is_file():
        return [note("no finished generation yet (no hall_of_fame.json)")]
    run = Run(folder.path)
    report = cards_report([run], space, seed=run.config.seed)
    head, rows = cards_rows(report)
    return [Text(cards_summary(report)), Table(head, rows, frozenset({0}))]


def _yardstick(config: dict, champion: dict | None, space) -> list[Block]:
    panel = config.get("yardstick") or []
    if not panel:  # a run without fixed yardstick decks: nothing to say of one
        return []
    parts: list[Block] = [
        Text(
            f"Fixed yardstick decks: {', '.join(map(str, panel))} (top {config.get('yardstick_top', '?')} decks "
            f"of each generation, {config.get('yardstick_games', '?')} games per yardstick deck; the green curve "
            "of the fitness plot)."
        )
    ]
    ranked = (champion or {}).get("yardstick") or []
    if ranked:
        rows = [
            [k, space.words(r["cards"]), f"{r.get('pooled_yardstick', float('nan')):.3f}", _ci(r), r["games"]]
            for k, r in enumerate(ranked, 1)
        ]
        parts.append(Text("The champion was chosen on the yardstick: candidates measured again with fresh seeds."))
        head = ["rank", "deck", "pooled over the run", "re-measured [95% CI]", "games"]
        parts.append(Table(head, rows, left=frozenset({1})))
    return parts


def _matchups(folder: RunFolder, data: dict | None, space) -> list[Block]:
    if data is None:
        return [
            note(
                f"no matchups in this run folder (deckopt report RUN --matchups N plays them, or deckopt matchups "
                f"... --out {folder.path} writes {MATCHUPS_NAME})"
            )
        ]
    if "_unreadable" in data:
        return [note(data["_unreadable"])]
    parts: list[Block] = []
    heatmap = _drawn(folder, folder.path / "matchups.png")
    if heatmap is not None:
        parts.append(Image(heatmap, "matchup heatmap"))
    against = "the other decks" if data.get("round_robin") else f"the field ({len(data.get('field', []))} decks)"
    parts.append(
        Text(
            f"Agent {data.get('agent')}, {data.get('games_per_pair')} games per pair, seed "
            f"{data.get('seed')}; decks ranked by their pooled score against {against}."
        )
    )
    if not data.get("round_robin"):
        parts.append(Text(f"Field: {', '.join(str(d['name']) for d in data.get('field', []))}."))
    rows = [[k, r["deck"], space.words(r["cards"]), _ci(r), r["games"]] for k, r in enumerate(data["ranking"], 1)]
    parts.append(Table(["rank", "deck", "cards", "score [95% CI]", "games"], rows, left=frozenset({1, 2})))
    return parts


def _archive(data, space) -> list[Block]:
    if data is None:
        return [note("no archive in this run")]
    if isinstance(data, dict) and "_unreadable" in data:
        return [note(data["_unreadable"])]
    entries = data.get("entries", data) if isinstance(data, dict) else data
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "cards" in e for e in entries):
        return [preformatted(json.dumps(data, indent=1)[:20000])]
    rows = []
    for e in entries:
        niche = {k: v for k, v in e.items() if k not in ("cards", "score", "ci95", "games")}
        score = _ci(e) if "score" in e and "ci95" in e else e.get("score", "")
        rows.append([json.dumps(niche), space.words(e["cards"]), score])
    return [Text(f"{len(entries)} decks."), Table(["niche", "deck", "score [95% CI]"], rows, left=frozenset({0, 1}))]


# ------------------------------------------------------------------------------------------------


def write_report(
    run_folder,
    space,
    matchups_games: int = 0,
    agent_spec: str | None = None,
    pmap=None,
    progress: Callable | None = None,
    log: Callable[[str], None] | None = None,
) -> Path:
    """Write `report.html` into the run folder (a run of the deck `space`) and return its path. With
    `matchups_games` > 0 and no matchups.json yet, first plays the run's decks (champion and last best
    decks) against its validation decks, `matchups_games` games per pair, with `agent_spec` (default: the run's agent)
    through the caller's worker pool `pmap`, and writes them into the run folder. A section that fails to draw
    is reported in the page (and by `log`)."""

    folder = RunFolder(run_folder)
    folder.check_existing()
    check_writable_dir(folder.path, "run folder")  # before any matchups are played
    config = _read(folder, folder.config, SETTINGS_TABLE)
    if not isinstance(config, dict) or "_unreadable" in config:
        raise UserError(f"run folder {str(folder.path)!r}: config.json is unreadable")
    run, own = split_settings(config, saved=True)  # the run's settings and its game's, by name
    config = {**run, **own}
    if matchups_games > 0 and not (folder.path / MATCHUPS_NAME).is_file():
        run_matchups(folder, matchups_games, pmap, agent_spec, progress)
    champion = _read(folder, folder.champion, CHAMPION_FILE)
    validation = _read(folder, folder.validation, VALIDATION_FILE)

    def section(key, draw, *a):
        try:
            return draw(*a)
        except Exception as exc:  # noqa: BLE001 - one broken file must not cost the whole page
            if log is not None:
                log(f"warning: report section {key!r} not drawn ({type(exc).__name__}: {exc})")
            return [note(f"this section could not be drawn: {type(exc).__name__}: {exc}")]

    chosen = champion if isinstance(champion, dict) and "_unreadable" not in champion else None
    body = {
        "champion": section("champion", _champion, champion, space),
        "verdict": section("verdict", _verdict, champion, validation, space),
        "progress": section("progress", _progress, folder, config, chosen, space),
        "best": section("best", _best, folder, space),
        "cards": section("cards", _cards, folder, space),
        "matchups": section("matchups", _matchups, folder, _read(folder, folder.path / MATCHUPS_NAME), space),
        "archive": section("archive", _archive, _read(folder, folder.path / ARCHIVE_NAME), space),
        "settings": section("settings", _settings, config, space),
    }
    page = render(
        "report.html",
        name=folder.name,
        path=str(folder.path),
        agent=config.get("agent", "?"),
        seed=config.get("seed", "?"),
        sections=SECTIONS,
        body=body,
    )
    path = folder.path / REPORT_NAME
    atomic_write_text(path, page)
    return path


def run_matchups(folder: RunFolder, games: int, pmap, agent_spec: str | None = None, progress=None):
    """The run's decks (champion and the best decks of its last generations) against its validation
    decks, played through the caller's worker pool `pmap` and written as matchups.csv/json/png into the
    run folder (seed: the run's seed + 2, fresh against its validation's). Returns the table."""
    config = folder.read_config()
    space = space_for(config)
    decks = load_space_decks([folder.path], space)
    field = [NamedDeck(r.name, r.cards) for r in space.references(config.settings.validation_panel)]
    spec = agent_spec or config.agent
    play = space.matches(space.build_agent(spec, config.seed), pmap, config.games_per_task)
    table = play_matchups(decks, play, games, config.seed + 2, field, spec, progress)
    write_matchups(table, folder.path)
    return table
