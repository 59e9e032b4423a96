"""One self-contained `report.html` per evolution run folder: a page to look at rather than JSON.

The page leads with the answer: the champion (its cards and a picture of its powers or card counts)
and its verdict against the reference decks, with 95 % intervals; then progress over generations (the
fitness plot and the yardstick), the best deck of every generation, matchups, the archive, and last
the run's settings, folded, only those that apply to the run's game. Everything is inline: CSS in a
<style> element, plots as base64 PNG data URIs, the champion's picture as inline SVG, no script and
no link to anything, so the file opens offline, can be mailed, and shows what the run folder held
when it was written. A section whose files the run does not have says so instead of failing (a run
still going has no champion yet; a run without --archive has no archive). Files are read as plain
JSON/CSV, so a report can be written for any run folder that has a config.json, old or new.

One module: one self-contained page; every section's HTML and the page's shared styles are read
together.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from agents.parallel import Mapper
from evolution.config import EvolveConfig, flat_settings
from evolution.designer.html import ci as _ci
from evolution.designer.html import escape as _e
from evolution.designer.html import img as _img
from evolution.designer.html import note as _note
from evolution.designer.html import table as _table
from evolution.designer.matchups import NamedDeck, load_decks, play_matchups, write_matchups
from evolution.designer.tables import YARDSTICK_NOTE
from evolution.designer.verdicts import deck_words
from evolution.runfiles import CHAMPION_FILE, SETTINGS_TABLE, VALIDATION_FILE
from evolution.runfolder import RunFolder
from evolution.scoring import fitness as fit
from evolution.scoring.panel import load_panel
from evolution.spaces.base import RunInputs
from evolution.spaces.genome import counts_text
from evolution.spaces.registry import GAME_SETTINGS, space_for
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
    ("matchups", "Matchups"),
    ("archive", "Archive"),
    ("settings", "Settings"),
)
CSS = """
body { font-family: system-ui, sans-serif; margin: 1em auto; max-width: 1100px; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; margin: .3em 0; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin: 1.2em 0 .5em; }
table { border-collapse: collapse; font-size: .85em; margin: .5em 0; }
th, td { border: 1px solid #ddd; padding: .25em .6em; text-align: right; }
th { background: #f3f3f3; } td.l, th.l { text-align: left; }
tr.miss td { color: #a33; }
img { max-width: 100%; border: 1px solid #eee; }
nav a { margin-right: 1em; } .note { color: #666; font-style: italic; } code { font-size: .95em; }
.answer { display: flex; gap: 2em; align-items: flex-start; } .answer > div:first-child { flex: 1 1 auto; }
.answer p { margin: .3em 0; } .verdict { font-size: 1.15em; } .deck { font-size: 1.3em; font-weight: 600; }
svg.powers text { font-size: 11px; fill: #444; } svg.powers rect { fill: #3a6ea5; }
details summary { cursor: pointer; font-weight: 600; }
pre.cmd { white-space: pre-wrap; word-break: break-all; font-size: .85em; }
"""


def _verdict(champion: dict | None, validation: dict | None, space) -> str:
    """The champion's validation as the run's deck space reports it."""
    if champion is None or "_unreadable" in champion:
        return _note("no champion yet, so no verdict")
    return space.verdict_html(champion, validation)


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


def _applies(name: str, help_text: str, config: dict, space) -> bool:
    """Whether a setting plays a part in this run: not another game's, not a feature the run does not use."""
    if name in GAME_SETTINGS and name not in space.settings:
        return False
    prefix = help_text.split(":", 1)[0] if ":" in help_text else ""
    feature_off = {
        "racing": config.get("fitness") != "racing",
        "mu+lambda selection": config.get("selection") != "mu+lambda",
        "truncation selection": config.get("selection") != "truncation",
        "MAP-Elites": not config.get("archive"),
    }.get(prefix, False)
    if name == "scheduler" and not config.get("scheduler"):
        return False
    return not feature_off


def _settings(config: dict, space) -> str:
    helps = settings_help(EvolveConfig)
    shown = {k: v for k, v in config.items() if _applies(k, helps.get(k, ""), config, space)}
    rows = [[k, json.dumps(v) if not isinstance(v, str) else v, helps.get(k, "")] for k, v in shown.items()]
    summary = f"{len(rows)} settings of this {space.name} run (config.json)"
    return (
        f"<details><summary>{_e(summary)}</summary>"
        + _table(["setting", "value", "what it sets"], rows, left={0, 1, 2})
        + "</details>"
    )


def _power_picture(labels: list, counts: list[int], what: str) -> str:
    """A bar chart as inline SVG (no script, no image file): one bar per power or card type."""
    bar, gap, height, top = 18, 4, 70, max(max(counts, default=1), 1)
    width = 30 + len(labels) * (bar + gap)
    parts = [
        f'<svg class="powers" role="img" aria-label="{_e(what)}" width="{width}" height="{height + 40}" '
        f'viewBox="0 0 {width} {height + 40}" xmlns="http://www.w3.org/2000/svg"><title>{_e(what)}</title>'
    ]
    for k, (label, n) in enumerate(zip(labels, counts)):
        x = 24 + k * (bar + gap)
        h = round(height * n / top)
        parts.append(f'<rect x="{x}" y="{height - h + 14}" width="{bar}" height="{h}"></rect>')
        if n:
            parts.append(f'<text x="{x + bar / 2}" y="{height - h + 10}" text-anchor="middle">{n}</text>')
        parts.append(f'<text x="{x + bar / 2}" y="{height + 30}" text-anchor="middle">{_e(label)}</text>')
    return "".join(parts) + "</svg>"


def _champion(champion: dict | None) -> str:
    """The champion: its cards in words and a picture of them (count per power, or per card type)."""
    if champion is None:
        return _note("no champion yet (the run has not finished)")
    if "_unreadable" in champion:
        return _note(champion["_unreadable"])
    if isinstance(champion.get("deck"), dict):  # an Exploding Kittens composition
        deck = champion["deck"]
        words = deck_words(champion)
        facts = f"{len(champion['cards'])} cards besides the Kitten"
        picture = _power_picture(list(deck), list(deck.values()), f"card counts of the champion: {words}")
    else:
        cards = champion["cards"]
        words = counts_text(cards)
        facts = f"{len(cards)} cards, total power {sum(cards)}"
        powers = list(range(1, max(cards) + 1))
        picture = _power_picture(powers, [cards.count(p) for p in powers], f"cards per power of the champion: {words}")
    how = champion.get("how", "")
    gen = champion.get("generation", "")
    chosen = f"Chosen as {how}" + (f" (found in generation {gen})" if gen != "" else "") + "." if how else ""
    return (
        f'<div class="answer"><div><p class="deck">{_e(words)}</p><p>{_e(facts)}</p><p>{_e(chosen)}</p></div>'
        f"<div>{picture}</div></div>"
    )


def _progress(folder: RunFolder, config: dict, champion: dict | None, space) -> str:
    """The fitness plot (with the yardstick curve) and how the champion was picked."""
    return _fitness(folder, space) + _yardstick(config, champion) + _playoff(champion)


def _playoff(champion: dict | None) -> str:
    playoff = (champion or {}).get("playoff") or []
    if not playoff:
        return ""
    rows = [[k, counts_text(p["cards"]), _ci(p), p["games"]] for k, p in enumerate(playoff, 1)]
    return "<h3>Playoff</h3>" + _table(["rank", "deck", "score [95% CI]", "games"], rows, left={1})


def _drawn(png: Path, data: Path) -> bytes | None:
    """The run folder's plot `png` if it was written after its `data` file (the run draws its plots
    with the same titles right after each such write, RunFolder.write_plots), else None: draw it."""
    try:
        if png.stat().st_mtime_ns >= data.stat().st_mtime_ns:
            return png.read_bytes()
    except OSError:
        pass
    return None


def _fitness(folder: RunFolder, space) -> str:
    rows = folder.read_logbook()
    if not rows:
        return _note("no finished generation yet (no logbook.csv)")
    png = _drawn(folder.fitness_plot, folder.logbook)
    if png is None:
        png = space.fitness_plot(rows, folder.name, folder.read_config())
    last = rows[-1]
    text = (
        f"{len(rows)} generations; last generation: best {last['best']:.3f} "
        f"[{last['best_lo']:.3f}, {last['best_hi']:.3f}], pool mean {last['mean']:.3f}"
    )
    return _img(png, "fitness over generations") + f"<p>{_e(text)}</p>"


def _best(folder: RunFolder, space) -> str:
    if not folder.best_decks.is_file():
        return _note("no finished generation yet (no best_decks.json)")
    best = folder.read_best_decks()
    if not best:
        return _note("no finished generation yet")
    png = _drawn(folder.powers_plot, folder.best_decks)
    if png is None:
        png = space.best_plot(best, folder.name)
    head, rows = space.best_rows(best)
    has_yard = any(b.get("yardstick") for b in best)
    for b, row in zip(best, rows):
        d = b["best"]
        row += [_ci(d), d.get("games", "")]
        if has_yard:
            y = b.get("yardstick")
            row.append(f"{y[0]:.3f} [{y[1]:.3f}, {y[2]:.3f}]" if y else "")
    head += ["fitness [95% CI]", "games"]
    head += ["generation's best on the yardstick [95% CI]"] if has_yard else []
    note = f"<p>{_e(YARDSTICK_NOTE[0].upper() + YARDSTICK_NOTE[1:])}.</p>" if has_yard else ""
    return _img(png, "card powers of the best deck per generation") + note + _table(head, rows, left={1})


def _yardstick(config: dict, champion: dict | None) -> str:
    panel = config.get("yardstick") or []
    if not panel:
        return _note("no yardstick in this run")
    parts = [
        f"<p>Fixed yardstick decks: {_e(', '.join(panel))} (top {_e(config.get('yardstick_top', '?'))} decks "
        f"of each generation, {_e(config.get('yardstick_games', '?'))} games per yardstick deck; the green curve "
        "of the fitness plot).</p>"
    ]
    ranked = (champion or {}).get("yardstick") or []
    if ranked:
        rows = [
            [k, counts_text(r["cards"]), f"{r.get('pooled_yardstick', float('nan')):.3f}", _ci(r), r["games"]]
            for k, r in enumerate(ranked, 1)
        ]
        parts.append("<p>The champion was chosen on the yardstick: candidates measured again with fresh seeds.</p>")
        parts.append(_table(["rank", "deck", "pooled over the run", "re-measured [95% CI]", "games"], rows, left={1}))
    return "".join(parts)


def _matchups(folder: RunFolder, data: dict | None) -> str:
    if data is None:
        return _note(
            f"no matchups in this run folder (deckopt report RUN --matchups N plays them, or deckopt matchups "
            f"... --out {folder.path} writes {MATCHUPS_NAME})"
        )
    if "_unreadable" in data:
        return _note(data["_unreadable"])
    parts = []
    png = folder.path / "matchups.png"
    if png.is_file():
        parts.append(_img(png.read_bytes(), "matchup heatmap"))
    against = "the other decks" if data.get("round_robin") else f"the field ({len(data.get('field', []))} decks)"
    parts.append(
        f"<p>Agent {_e(data.get('agent'))}, {_e(data.get('games_per_pair'))} games per pair, seed "
        f"{_e(data.get('seed'))}; decks ranked by their pooled score against {_e(against)}.</p>"
    )
    if not data.get("round_robin"):
        parts.append(f"<p>Field: {_e(', '.join(d['name'] for d in data.get('field', [])))}.</p>")
    rows = [[k, r["deck"], counts_text(r["cards"]), _ci(r), r["games"]] for k, r in enumerate(data["ranking"], 1)]
    parts.append(_table(["rank", "deck", "powers", "score [95% CI]", "games"], rows, left={1, 2}))
    return "".join(parts)


def _archive(data) -> str:
    if data is None:
        return _note("no archive in this run")
    if isinstance(data, dict) and "_unreadable" in data:
        return _note(data["_unreadable"])
    entries = data.get("entries", data) if isinstance(data, dict) else data
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "cards" in e for e in entries):
        return "<pre>" + _e(json.dumps(data, indent=1)[:20000]) + "</pre>"
    rows = []
    for e in entries:
        niche = {k: v for k, v in e.items() if k not in ("cards", "score", "ci95", "games")}
        score = _ci(e) if "score" in e and "ci95" in e else e.get("score", "")
        rows.append([json.dumps(niche), counts_text(e["cards"]), score])
    return f"<p>{len(entries)} decks.</p>" + _table(["niche", "deck", "score [95% CI]"], rows, left={0, 1})


# ------------------------------------------------------------------------------------------------


def write_report(
    run_folder,
    space,
    matchups_games: int = 0,
    agent_spec: str | None = None,
    jobs: int = 1,
    progress: Callable | None = None,
    log: Callable[[str], None] | None = None,
) -> Path:
    """Write `report.html` into the run folder (a run of the deck `space`) and return its path. With
    `matchups_games` > 0 and no matchups.json yet, first plays the run's decks (champion and last best
    decks) against its validation decks, `matchups_games` games per pair, with `agent_spec` (default: the run's agent)
    on `jobs` worker processes, and writes them into the run folder. A section that fails to draw
    is reported in the page (and by `log`)."""

    folder = RunFolder(run_folder)
    folder.check_existing()
    check_writable_dir(folder.path, "run folder")  # before any matchups are played
    config = _read(folder, folder.config, SETTINGS_TABLE)
    if not isinstance(config, dict) or "_unreadable" in config:
        raise UserError(f"run folder {str(folder.path)!r}: config.json is unreadable")
    config = flat_settings(config)
    if matchups_games > 0 and not (folder.path / MATCHUPS_NAME).is_file():
        run_matchups(folder, matchups_games, agent_spec, jobs, progress)
    champion = _read(folder, folder.champion, CHAMPION_FILE)
    validation = _read(folder, folder.validation, VALIDATION_FILE)

    def section(key, draw, *a):
        try:
            return draw(*a)
        except Exception as exc:  # noqa: BLE001 - one broken file must not cost the whole page
            if log is not None:
                log(f"warning: report section {key!r} not drawn ({type(exc).__name__}: {exc})")
            return _note(f"this section could not be drawn: {type(exc).__name__}: {exc}")

    chosen = champion if isinstance(champion, dict) and "_unreadable" not in champion else None
    body = {
        "champion": section("champion", _champion, champion),
        "verdict": section("verdict", _verdict, champion, validation, space),
        "progress": section("progress", _progress, folder, config, chosen, space),
        "best": section("best", _best, folder, space),
        "matchups": section("matchups", _matchups, folder, _read(folder, folder.path / MATCHUPS_NAME)),
        "archive": section("archive", _archive, _read(folder, folder.path / ARCHIVE_NAME)),
        "settings": section("settings", _settings, config, space),
    }
    nav = "".join(f'<a href="#{k}">{_e(title)}</a>' for k, title in SECTIONS)
    sections = "".join(f'<section id="{k}"><h2>{_e(title)}</h2>{body[k]}</section>' for k, title in SECTIONS)
    page = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>deckopt run {_e(folder.name)}</title><style>{CSS}</style></head><body>"
        f"<h1>Evolution run {_e(folder.name)}</h1>"
        f"<p>Run folder <code>{_e(folder.path)}</code>; agent {_e(config.get('agent', '?'))}, seed "
        f"{_e(config.get('seed', '?'))}. Scores: win 1, draw 0.5; intervals are 95 %.</p>"
        f"<nav>{nav}</nav>{sections}</body></html>\n"
    )
    path = folder.path / REPORT_NAME
    atomic_write_text(path, page)
    return path


def run_matchups(folder: RunFolder, games: int, agent_spec: str | None = None, jobs: int = 1, progress=None):
    """The run's decks (champion and the best decks of its last generations) against its validation
    decks, written as matchups.csv/json/png into the run folder (seed: the run's seed + 2, fresh
    against its validation's). Returns the table."""

    config = folder.read_config()
    decks, rules = load_decks([folder.path])
    field = [NamedDeck(r.name, r.cards) for r in load_panel(config.validation_panel, rules)]
    spec = agent_spec or config.agent
    agent = fit.build_agent(spec, rules, seed=config.seed)
    with Mapper(jobs, task_timeout=config.task_timeout) as pmap:
        play = space_for(config).evaluator(config, RunInputs(agent), pmap).play
        table = play_matchups(decks, play, games, config.seed + 2, field, spec, progress)
    write_matchups(table, folder.path)
    return table
