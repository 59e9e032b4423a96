"""Matchup tables: how each deck fares against each other deck, with 95 % intervals.

Two shapes, one function (`play_matchups`):
- a round robin of a set of decks (`field=None`): every pair once, mirrored deals (fitness.py), so
  a cell and its transpose come from the same games and add up to exactly 1;
- decks against a field the user supplies (a "personal meta"): every deck plays every field deck;
  each deck's pooled score against the whole field, with its interval, ranks the decks.

Gwent Lite decks come from deck files, folders of deck files and evolution run folders
(`load_decks`): a run folder stands for its champion and the best decks of its last generations.
Every deck must be legal under one set of rules. The decks of another game come through its deck
space (`load_space_decks`: its `references`, and run folders), played under the settings of the run
folders given (`run_settings`: the deck rules, a drafter space's battlers) or the defaults; a deck
space's `play` callable plays the games. A drafter space's decks are drafters (their games draft from
the same offers, then battle), which it reads as deck files, field drafters by name and run folders.
Results are written as `matchups.csv` (one row per cell), `matchups.json`
(everything, for the HTML report) and `matchups.png` (a heatmap).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents.stats import Record
from evolution.config import EvolveConfig
from evolution.decks.genome import counts_text
from evolution.decks.settings_registry import settings_class
from evolution.designer.plots import png_bytes
from evolution.runfolder import RunFolder
from evolution.scoring import fitness as fit
from evolution.scoring.yardstick import Play
from games.decks import DeckRules, load_deck
from games.errors import UserError, with_article
from games.fileio import atomic_write_bytes, atomic_write_json, atomic_write_text, read_file_bytes, resolve_path
from games.schema import MAX_FILE_BYTES

STAGE_MATCHUPS = 10  # seed-key stage of matchup pairings (evolution uses 0..4)
DECK_SUFFIXES = (".toml", ".json")
CSV_FIELDS = ("deck", "opponent", "score", "ci95_lo", "ci95_hi", "games", "wins", "draws", "losses")


@dataclass(frozen=True)
class NamedDeck:
    name: str
    cards: tuple[int, ...]


# ------------------------------------------------------------------------------------------------
# Reading decks from files, folders and run folders


def load_decks(paths, run_best: int = 3, what: str = "deck") -> tuple[list[NamedDeck], DeckRules]:
    """Every deck named by `paths` and the one set of rules they share. A path is a deck file, a
    folder of deck files (*.toml, *.json, not recursive) or an evolution run folder (its champion,
    if chosen, and the best decks of its last `run_best` generations, without repeats). UserError
    in one line for a missing path, a bad or illegal deck, or decks built for different rules."""

    decks: list[NamedDeck] = []
    rules: DeckRules | None = None
    rules_from = ""
    for raw in paths:
        p = resolve_path(raw)
        if is_run_folder(p):
            found, config = _run_decks(p, run_best)
            if not settings_class(config.game).power_multisets:
                kind = with_article(config.game)
                raise UserError(f"run folder {str(raw)!r} is {kind} run, not one of decks of card powers")
            for d in found:
                config.settings.rules.validate(d.cards, what=f"deck {d.name!r}")
            found_rules = config.settings.rules
        elif p.is_dir():
            files = sorted(f for f in p.iterdir() if f.is_file() and f.suffix in DECK_SUFFIXES)
            if not files:
                raise UserError(
                    f"{what} folder {str(raw)!r} holds no deck files (*.toml, *.json) and is not a run folder"
                )
            loaded = [load_deck(f) for f in files]
            found = [NamedDeck(f"{p.name}/{f.stem}", tuple(d.cards)) for f, d in zip(files, loaded)]
            found_rules = loaded[0].rules
            for f, d in zip(files, loaded):
                _same_rules(found_rules, d.rules, str(files[0]), str(f))
        elif p.is_file():
            d = load_deck(p)
            found, found_rules = [NamedDeck(d.name or p.stem, tuple(d.cards))], d.rules
        else:
            raise UserError(f"{what} {str(raw)!r} not found (a deck file, a folder of deck files or a run folder)")
        if rules is None:
            rules, rules_from = found_rules, str(raw)
        _same_rules(rules, found_rules, rules_from, str(raw))
        decks += found
    if not decks or rules is None:
        raise UserError(f"no {what}s given")
    return decks, rules


def load_space_decks(paths, space, run_best: int = 3, what: str = "deck") -> list[NamedDeck]:
    """Every deck named by `paths` (deck files and folders of deck files read by a deck space's
    `references`, each named by its file's deck name; evolution run folders as in `load_decks`),
    a reference deck of the space (`reference_problems`); UserError in one line for a missing path or a
    bad or illegal deck."""
    found: list[NamedDeck] = []
    for raw in paths:
        p = resolve_path(raw)
        if is_run_folder(p):
            decks, _ = _run_decks(p, run_best)
            for d in decks:
                problems = space.reference_problems(d.cards)
                if problems:
                    raise UserError(f"deck {d.name!r} is illegal under the decks' rules: {problems[0]}")
            found += decks
        else:
            found += [NamedDeck(r.name, tuple(r.cards)) for r in space.references([raw])]
    if not found:
        raise UserError(f"no {what}s given")
    return found


def run_settings(paths, game: str, agent_given: bool = False) -> dict:
    """The settings their decks are played under (the game's `played_under`: its deck rules, a drafter
    space's battlers) of the evolution runs among `paths` (run folders, or deck files in one, such as its
    champion.toml), by name; {} if there are none. With `agent_given` (--agent), those that name the
    agent (`agent_settings`) are left out: the agent given stands for them.
    UserError in one line for a run of another game, or runs that disagree on one of them."""
    names = [
        n for n in settings_class(game).played_under() if not (agent_given and n in settings_class(game).agent_settings)
    ]
    found: dict = {}
    where = ""
    for folder in _run_folders(paths):
        config = RunFolder(folder).read_config()
        if config.game != game:
            raise UserError(
                f"run folder {str(folder)!r} is {with_article(config.game)} run, not {game} (--game names the game)"
            )
        for name in names:
            value = getattr(config.settings, name)
            if name in found and value != found[name]:
                hint = " (--agent names them)" if name in settings_class(game).agent_settings else ""
                raise UserError(
                    f"the runs disagree on the {name}: {where} has {found[name]}, {folder} has {value}{hint}"
                )
            found[name] = value
        where = where or str(folder)
    return found


def runs_game(paths) -> str | None:
    """The game of the first evolution run among `paths` (run folders, or deck files in one), or None."""
    return next((RunFolder(folder).read_config().game for folder in _run_folders(paths)), None)


def _run_folders(paths):
    """The evolution run folders among `paths`: run folders, and the folders of deck files in one."""
    for raw in paths:
        p = resolve_path(raw)
        folder = p if is_run_folder(p) else p.parent if p.is_file() and is_run_folder(p.parent) else None
        if folder is not None:
            yield folder


def is_run_folder(path: Path) -> bool:
    return path.is_dir() and (path / "config.json").is_file()


def _same_rules(a: DeckRules, b: DeckRules, where_a: str, where_b: str) -> None:
    if a != b:
        raise UserError(f"the decks disagree on the rules: {where_a} has {a.describe()}, {where_b} has {b.describe()}")


def _run_decks(path: Path, run_best: int) -> tuple[list[NamedDeck], EvolveConfig]:
    """A run's champion and the best decks of its last `run_best` generations, and its settings."""

    folder = RunFolder(path)
    config = folder.read_config()
    out: list[NamedDeck] = []
    if folder.champion.is_file():
        out.append(NamedDeck(f"{folder.name}/champion", tuple(folder.read_champion()["cards"])))
    best = folder.read_best_decks() if folder.best_decks.is_file() else []
    for b in best[::-1][:run_best]:
        cards = tuple(b["best"]["cards"])
        if cards not in {d.cards for d in out}:
            out.append(NamedDeck(f"{folder.name}/gen{b['generation']}", cards))
    if not out:
        raise UserError(f"run folder {str(path)!r} has no finished generation yet")
    return out, config


# ------------------------------------------------------------------------------------------------
# Playing and scoring


@dataclass
class Matchups:
    """Row decks against column decks: `cells[(i, j)]` is row deck i's Score against column deck j
    (absent on the diagonal of a round robin: a deck is not played against itself)."""

    decks: list[NamedDeck]
    field: list[NamedDeck]  # the columns; the decks themselves in a round robin
    round_robin: bool
    games_per_pair: int
    agent: str
    seed: int
    cells: dict[tuple[int, int], fit.Score] = field(default_factory=dict)
    #: what the agent is called in the table's words (a drafter space's: "battler")
    agent_role: str = "agent"

    def overall(self, i: int) -> fit.Score:
        """Row deck i against every column deck together (its own column excluded)."""
        total = fit.Score()
        for j in range(len(self.field)):
            if (i, j) in self.cells:
                total = total.merge(self.cells[(i, j)])
        return total

    def matrix(self) -> np.ndarray:
        """Scores as a rows x columns array (nan where not played)."""
        m = np.full((len(self.decks), len(self.field)), np.nan)
        for (i, j), s in self.cells.items():
            m[i, j] = s.score
        return m

    def ranking(self) -> list[int]:
        """Row indices, best pooled score first (ties keep the given order)."""
        return [int(i) for i in np.argsort([-self.overall(i).score for i in range(len(self.decks))], kind="stable")]

    def to_json(self) -> dict:
        cells = []
        for i in range(len(self.decks)):
            for j in range(len(self.field)):
                if (i, j) in self.cells:
                    cells.append(
                        {"deck": self.decks[i].name, "opponent": self.field[j].name, **self.cells[(i, j)].as_dict()}
                    )
        return {
            "agent": self.agent,
            "seed": self.seed,
            "games_per_pair": self.games_per_pair,
            "round_robin": self.round_robin,
            "decks": [{"name": d.name, "cards": list(d.cards)} for d in self.decks],
            "field": [{"name": d.name, "cards": list(d.cards)} for d in self.field],
            "cells": cells,
            "ranking": [
                {"deck": self.decks[i].name, "cards": list(self.decks[i].cards), **self.overall(i).as_dict()}
                for i in self.ranking()
            ],
        }


def play_matchups(
    decks: list[NamedDeck],
    play: Play,
    games_per_pair: int,
    seed: int,
    field: list[NamedDeck] | None = None,
    agent_spec: str = "?",
    progress: Callable | None = None,
    agent_role: str = "agent",
) -> Matchups:
    """A round robin of `decks` (no `field`), or every deck against every `field` deck;
    `games_per_pair` mirrored games per pairing (rounded down to even), played by `play` (a deck
    space's matches, evolution.scoring.yardstick.Play). The result depends on the seed and the
    arguments only, never on the workers. `agent_role`: what the table calls the agent."""
    deals = games_per_pair // 2
    if deals < 1:
        raise UserError(f"games per pair must be at least 2 (mirrored pairs), got {games_per_pair}")
    if field is None and len(decks) < 2:
        raise UserError("a round robin needs at least two decks (or give a field to play against)")
    if field is not None and not field:
        raise UserError("the field is empty: give at least one deck to play against")
    cards = [d.cards for d in decks]
    if field is None:
        pairings, who = fit.round_robin(cards, deals, seed, STAGE_MATCHUPS, 0)
    else:
        pairings, who = fit.against(cards, [d.cards for d in field], deals, seed, STAGE_MATCHUPS, 0)
    results = play(pairings, (seed, STAGE_MATCHUPS, 0), progress, "matchups")
    table = Matchups(
        list(decks),
        list(field if field is not None else decks),
        field is None,
        2 * deals,
        agent_spec,
        seed,
        agent_role=agent_role,
    )
    for outcomes, (i, j) in zip(results, who):
        s = fit.Score()
        s.add(outcomes)
        table.cells[(i, j)] = s
        if field is None:  # the same games seen from deck j: the cells add up to 1
            t = fit.Score()
            t.add(outcomes, flip=True)
            table.cells[(j, i)] = t
    return table


# ------------------------------------------------------------------------------------------------
# Files


def matchups_csv(table: Matchups) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for c in table.to_json()["cells"]:
        writer.writerow(
            [c["deck"], c["opponent"], repr(c["score"]), repr(c["ci95"][0]), repr(c["ci95"][1])]
            + [c[k] for k in ("games", "wins", "draws", "losses")]
        )
    return buffer.getvalue()


def read_matchups_csv(path) -> list[dict]:
    """The cells of a matchups.csv: deck and opponent names, floats and ints."""
    raw = read_file_bytes(path, "matchups table", MAX_FILE_BYTES)
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8"), newline="")))
    out = []
    for r in rows:
        out.append(
            {
                "deck": r["deck"],
                "opponent": r["opponent"],
                **Record.from_dict(r).to_dict(score=float(r["score"]), ci95=(r["ci95_lo"], r["ci95_hi"])),
            }
        )
    return out


def plot_matchups(table: Matchups, title: str = "") -> bytes:
    """Heatmap: row deck's score against column deck (red below 0.5, blue above), the pooled
    score against the whole field in the row labels."""
    from matplotlib.figure import Figure

    m = table.matrix()
    rows, cols = m.shape
    fig = Figure(figsize=(min(22, 2.5 + 0.5 * cols), min(22, 1.5 + 0.38 * rows)))
    ax = fig.add_subplot()
    im = ax.imshow(np.ma.masked_invalid(m), cmap="RdBu", vmin=0.0, vmax=1.0, aspect="auto", interpolation="nearest")
    if rows * cols <= 900:
        for i in range(rows):
            for j in range(cols):
                if np.isfinite(m[i, j]):
                    ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=6.5)
    ax.set_xticks(range(cols), [d.name for d in table.field], rotation=60, ha="right", fontsize=7)
    ax.set_yticks(
        range(rows), [f"{d.name} ({table.overall(i).score:.2f})" for i, d in enumerate(table.decks)], fontsize=7
    )
    ax.set_xlabel("opponent deck")
    ax.set_ylabel("deck (pooled score against all opponents)")
    ax.set_title(
        title or f"matchups: row deck's score, {table.games_per_pair} games per pair, {table.agent_role} {table.agent}"
    )
    fig.colorbar(im, ax=ax, label="score (win 1, draw 0.5)")
    return png_bytes(fig)


def write_matchups(table: Matchups, out: str | Path) -> list[Path]:
    """matchups.csv, matchups.json and matchups.png in folder `out` (atomically)."""

    out = Path(out)
    paths = [out / "matchups.csv", out / "matchups.json", out / "matchups.png"]
    atomic_write_text(paths[0], matchups_csv(table))
    atomic_write_json(paths[1], table.to_json())
    atomic_write_bytes(paths[2], plot_matchups(table))
    return paths


def ranking_table(
    table: Matchups, deck_text: Callable = counts_text, cards_head: str = "powers (count x power)"
) -> str:
    """The decks, best pooled score first, as text; `deck_text(cards)` words a deck's cards (a deck
    space's `short_text`) under the column head `cards_head`."""

    against = "the other decks" if table.round_robin else f"the field ({len(table.field)} decks)"
    rows = []
    for rank, i in enumerate(table.ranking(), 1):
        s = table.overall(i)
        lo, hi = s.ci95
        d = table.decks[i]
        rows.append((str(rank), d.name, f"{s.score:.3f} [{lo:.3f}, {hi:.3f}]", str(s.games), deck_text(d.cards)))
    head = ("rank", "deck", f"score vs {against} [95% CI]", "games", cards_head)
    widths = [max(len(h), *(len(r[k]) for r in rows)) for k, h in enumerate(head)]
    lines = [f"{table.agent_role} {table.agent}, {table.games_per_pair} games per pair, seed {table.seed}"]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [head, *rows]]
    return "\n".join(lines)
