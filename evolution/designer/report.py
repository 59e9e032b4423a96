"""Reading an evolution run for people: the best decks per generation (`deckopt decks --json`),
exporting a champion as a deck file. The files themselves are read through evolution.runfolder."""

from __future__ import annotations

from pathlib import Path

from evolution.designer.tables import deck_json
from evolution.runfolder import Run
from games.errors import UserError
from games.fileio import check_writable_dir


def decks_report(run: Run, space, generation: int | None = None, top: int | None = None) -> dict:
    """`deckopt decks --json`: the rows documented in evolution.designer.tables (each deck with its
    fitness, interval and games, and the run's deck `space`'s row)."""
    objective = run.config.objective
    gens = [generation] if generation is not None else run.generations
    k = top if top is not None else (10 if generation is not None else 1)
    out = []
    for g in gens:
        if k > 1 or generation is not None:
            decks = run.generation(g)["decks"][:k]
            rows = [deck_json(d, space, objective) for d in decks]
            out.append({"generation": g, "best": rows[0], "top": rows})
        else:
            out.append({"generation": g, "best": deck_json(_best_entry(run, g), space, objective)})
    return {"run": run.name, "game": space.name, "objective": objective, "generations": out}


def _best_entry(run: Run, gen: int) -> dict:
    """The best deck of generation `gen` as its generation file holds it (best_decks.json's entry
    when the file is gone)."""
    if run.folder.generation_file(gen).is_file():
        decks = run.folder.read_generation(gen)["decks"]
        if decks:
            return decks[0]
    return next(b["best"] for b in run.best if b["generation"] == gen)


def check_export_path(path, force: bool = False) -> Path:
    """Where a deck file may be written: a .toml or .json file name in a writable folder, not an
    existing file unless `force` (an exported deck never silently replaces another)."""
    p = Path(path)
    if p.is_dir():
        raise UserError(f"{str(p)!r} is a folder; give a deck file name (.toml or .json)")
    if p.suffix.lower() not in (".toml", ".json"):
        raise UserError(f"deck file {str(p)!r} must end in .toml or .json")
    if p.exists() and not force:
        raise UserError(f"deck file {str(p)!r} already exists; choose another name or overwrite it explicitly")
    check_writable_dir(p.parent, what="folder")
    return p


def export_deck(run: Run, space, path, generation: int | None = None, force: bool = False) -> tuple[list[int], str]:
    """The run's champion (or generation `generation`'s best) written as a deck file of its `space`."""
    path = check_export_path(path, force)
    cards, how = run.champion(generation)
    name = f"{run.name}_champion" if generation is None else f"{run.name}_gen{generation}"
    space.save(cards, path, name, f"from evolution run {run.name}: {how}")
    return cards, how
