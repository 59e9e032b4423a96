"""Reading an evolution run for people: the best decks per generation (table / JSON), exporting a
champion as a deck file. The files themselves are read through evolution.runfolder."""

from __future__ import annotations

from pathlib import Path

from evolution.config import EvolveConfig
from evolution.genome import counts_text
from evolution.runfolder import RunFolder
from games.errors import UserError


class Run:
    """A finished or running evolution folder, read-only: its config and the best deck of every
    finished generation."""

    def __init__(self, path, generation: int | None = None):
        self.folder = RunFolder(path)
        self.folder.check_existing()
        self.config: EvolveConfig = self.folder.read_config()
        if not self.folder.best_decks.is_file():
            asked = f" (no generation {generation})" if generation is not None else ""
            raise UserError(f"run {str(self.folder.path)!r} has no finished generation yet{asked}")
        self.best = self.folder.read_best_decks()
        if not self.best:
            raise UserError(f"run {str(self.folder.path)!r} has no finished generation yet")
        if generation is not None:
            self.generation(generation)  # UserError if absent

    @property
    def name(self) -> str:
        return self.folder.name

    @property
    def generations(self) -> list[int]:
        return [b["generation"] for b in self.best]

    def generation(self, gen: int) -> dict:
        if gen not in self.generations or not self.folder.generation_file(gen).is_file():
            last = self.generations[-1]
            raise UserError(f"run {self.name!r} has no generation {gen} (generations 0..{last})")
        return self.folder.read_generation(gen)

    def champion(self, generation: int | None = None) -> tuple[list[int], str]:
        """The run's champion (chosen by the playoff at the end), or the best deck of `generation`
        (or of the last generation when the run has no champion yet)."""
        if generation is None and self.folder.champion.is_file():
            c = self.folder.read_json(self.folder.champion)
            return list(c["cards"]), c.get("how", "champion")
        gen = self.generations[-1] if generation is None else generation
        decks = self.generation(gen)["decks"]
        return list(decks[0]["cards"]), f"best of generation {gen}"


# ------------------------------------------------------------------------------------------------
# Tables and JSON


def _deck_json(d: dict, space=None) -> dict:
    out = {"cards": list(d["cards"]), "score": d["score"], "ci95": list(d["ci95"]), "games": d.get("games", 0)}
    if d.get("yardstick"):  # the deck's games against the fixed yardstick this generation (top decks only)
        y = d["yardstick"]
        out["yardstick"] = {"score": y["score"], "ci95": list(y["ci95"]), "games": y.get("games", 0)}
    if space is not None and space.name != "gwent_lite":
        out["deck"] = space.deck(d["cards"])
        rate = next(iter((d.get("by_opponents") or {}).items()), None)
        if rate:  # the rate behind the objective (first-player win rate, score against random)
            out[rate[0]] = {"score": rate[1]["score"], "ci95": list(rate[1]["ci95"])}
    return out


def decks_report(run: Run, generation: int | None = None, top: int | None = None) -> dict:
    """`deckopt decks --json`: {"run", "generations": [{"generation", "best", ["top"]}]} (and, for
    another game than Gwent Lite, "game", "objective", and each deck's "deck" counts)."""
    from evolution.space import space_for

    space = space_for(run.config)
    kittens = run.config.game != "gwent_lite"
    gens = [generation] if generation is not None else run.generations
    k = top if top is not None else (10 if generation is not None else 1)
    out = []
    for g in gens:
        if k > 1 or generation is not None or kittens:
            decks = run.generation(g)["decks"][:k]
            row = {"generation": g, "best": _deck_json(decks[0], space)}
            if k > 1 or generation is not None:
                row["top"] = [_deck_json(d, space) for d in decks]
        else:
            best = next(b["best"] for b in run.best if b["generation"] == g)
            row = {"generation": g, "best": _deck_json({**_measured(run, g), **best})}
        out.append(row)
    if kittens:
        return {"run": run.name, "game": run.config.game, "objective": run.config.objective, "generations": out}
    return {"run": run.name, "generations": out}


def _measured(run: Run, gen: int) -> dict:
    """What the generation file adds to best_decks.json's best deck: its yardstick score, if measured."""
    if not run.folder.generation_file(gen).is_file():
        return {}
    decks = run.folder.read_generation(gen)["decks"]
    return {"yardstick": decks[0]["yardstick"]} if decks and decks[0].get("yardstick") else {}


YARDSTICK_NOTE = (
    "fitness: against the generation's own population and hall of fame, which improve as the run goes on, so it "
    "is not comparable across generations; yardstick: against the fixed yardstick decks, comparable across generations"
)


def _interval(d: dict | None) -> str:
    return f"{d['score']:.3f} [{d['ci95'][0]:.3f}, {d['ci95'][1]:.3f}]" if d else "-"


def decks_table(report: dict) -> str:
    """The text table of `deckopt decks RUN`: each generation's best deck (or top decks) with its fitness
    and, where the run measured it, its yardstick score, the column comparable across generations."""
    if report.get("game", "gwent_lite") != "gwent_lite":
        return _objective_table(report)
    rows = []
    for g in report["generations"]:
        decks = g.get("top") or [g["best"]]
        for rank, d in enumerate(decks, 1):
            rows.append(
                (
                    str(g["generation"]) if rank == 1 else "",
                    str(rank),
                    counts_text(d["cards"]),
                    str(sum(d["cards"])),
                    str(len(d["cards"])),
                    _interval(d),
                    str(d["games"]),
                    _interval(d.get("yardstick")),
                )
            )
    head = (
        "gen",
        "rank",
        "powers (count x power)",
        "total",
        "cards",
        "fitness [95% CI]",
        "games",
        "yardstick [95% CI]",
    )
    has_yardstick = any(r[7] != "-" for r in rows)
    if not has_yardstick:  # a run without a yardstick: no empty column
        rows = [r[:7] for r in rows]
        head = head[:7]
    if all(r[1] == "1" for r in rows):  # one deck per generation: no rank column
        rows = [r[:1] + r[2:] for r in rows]
        head = head[:1] + head[2:]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    left = {head.index("powers (count x power)")}

    def fmt(r):
        return "  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))

    title = [f"run {report['run']}"]
    if has_yardstick:
        title.append(YARDSTICK_NOTE)
    return "\n".join(title + [fmt(head)] + [fmt(r) for r in rows])


def _objective_table(report: dict) -> str:
    """The kittens table: composition, cards, fitness with CI, the rate behind it, games."""
    rows = []
    for g in report["generations"]:
        for rank, d in enumerate(g.get("top") or [g["best"]], 1):
            rate = d.get("first_player") or d.get("random")
            rows.append(
                (
                    str(g["generation"]) if rank == 1 else "",
                    str(rank),
                    ", ".join(f"{n} {k}" for k, n in d["deck"].items()),
                    str(len(d["cards"])),
                    f"{d['score']:.3f} [{d['ci95'][0]:.3f}, {d['ci95'][1]:.3f}]",
                    f"{rate['score']:.3f} [{rate['ci95'][0]:.3f}, {rate['ci95'][1]:.3f}]" if rate else "",
                    str(d["games"]),
                )
            )
    rate_name = "first player wins [95% CI]" if report["objective"] == "fairness" else "vs random [95% CI]"
    head = ("gen", "rank", "deck (count card)", "cards", f"{report['objective']} [95% CI]", rate_name, "games")
    if all(r[1] == "1" for r in rows):
        rows = [r[:1] + r[2:] for r in rows]
        head = head[:1] + head[2:]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    left = {head.index("deck (count card)")}

    def fmt(r):
        return "  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))

    return "\n".join(
        [f"run {report['run']} ({report['game']}, objective {report['objective']})", fmt(head)] + [fmt(r) for r in rows]
    )


def check_export_path(path, force: bool = False) -> Path:
    """Where a deck file may be written: a .toml or .json file name in a writable folder, not an
    existing file unless `force` (an exported deck never silently replaces another)."""
    from games.fileio import check_writable_dir

    p = Path(path)
    if p.is_dir():
        raise UserError(f"{str(p)!r} is a folder; give a deck file name (.toml or .json)")
    if p.suffix.lower() not in (".toml", ".json"):
        raise UserError(f"deck file {str(p)!r} must end in .toml or .json")
    if p.exists() and not force:
        raise UserError(f"deck file {str(p)!r} already exists; choose another name or overwrite it explicitly")
    check_writable_dir(p.parent, what="folder")
    return p


def export_deck(run: Run, path, generation: int | None = None, force: bool = False) -> tuple[list[int], str]:
    from evolution.space import space_for

    path = check_export_path(path, force)
    cards, how = run.champion(generation)
    name = f"{run.name}_champion" if generation is None else f"{run.name}_gen{generation}"
    space_for(run.config).save(cards, path, name, f"from evolution run {run.name}: {how}")
    return cards, how
