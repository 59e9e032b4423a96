"""The run folder of an evolution: every file a run reads and writes, in one place.

    runs/NAME/config.json               the resolved config (EvolveConfig)
    runs/NAME/start_decks.json          the decks its `start` files held when it began (with `start`)
    runs/NAME/generations/gen_NNNN.json every deck of a generation, best first, with score and interval
    runs/NAME/logbook.csv               one row per generation (DEAP logbook)
    runs/NAME/best_decks.json           the best deck of every generation
    runs/NAME/hall_of_fame.json         the run's best decks of any generation
    runs/NAME/checkpoints/checkpoint.json   the EvolutionState after the last finished generation
    runs/NAME/fitness.png, best_deck_powers.png
    runs/NAME/champion.json, champion.toml, validation.json   written at the end

Every write is atomic (temp file + rename) and the checkpoint is written last in a generation, so an
interrupted run never leaves a torn file and resumes from its last finished generation. Every read
of a damaged or missing file ends in one UserError line.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import numpy as np

from evolution.config import EvolveConfig, changed_settings, config_from_settings
from evolution.individuals import deck_entry, score_of
from evolution.runfiles import (
    BEST_DECKS_FILE,
    CHAMPION_FILE,
    CHECKPOINT_FILE,
    GENERATION_FILE,
    HALL_OF_FAME_FILE,
    SETTINGS_TABLE,
    START_DECKS_FILE,
    VALIDATION_FILE,
)
from evolution.state import LOGBOOK_FIELDS, EvolutionState
from games.errors import UserError
from games.fileio import atomic_write_json, atomic_write_text, check_writable_dir, read_file_bytes
from games.folder_lock import folder_entries
from games.schema import ANYTHING, MAX_FILE_BYTES, Schema, read_checked

#: the largest checkpoint or archive of a run folder read (a checkpoint holds every deck's past deal
#: scores); its other JSON files are read up to games.schema.MAX_FILE_BYTES
MAX_RUN_FILE_BYTES = 128 * 1024 * 1024
#: the largest logbook read (one short row a generation)
MAX_LOGBOOK_BYTES = 8 * 1024 * 1024
#: the largest plot (a PNG the run drew) read into a report
MAX_PLOT_BYTES = 16 * 1024 * 1024


class RunFolder:
    def __init__(self, path: str | Path):
        self.path = Path(path)

    config = property(lambda self: self.path / "config.json")
    checkpoint = property(lambda self: self.path / "checkpoints" / "checkpoint.json")
    generations = property(lambda self: self.path / "generations")
    logbook = property(lambda self: self.path / "logbook.csv")
    best_decks = property(lambda self: self.path / "best_decks.json")
    hall_of_fame = property(lambda self: self.path / "hall_of_fame.json")
    archive = property(lambda self: self.path / "archive.json")
    start_decks = property(lambda self: self.path / "start_decks.json")
    champion = property(lambda self: self.path / "champion.json")
    champion_deck = property(lambda self: self.path / "champion.toml")
    validation = property(lambda self: self.path / "validation.json")
    fitness_plot = property(lambda self: self.path / "fitness.png")
    powers_plot = property(lambda self: self.path / "best_deck_powers.png")

    @property
    def name(self) -> str:
        return self.path.name

    def generation_file(self, gen: int) -> Path:
        return self.generations / f"gen_{gen:04d}.json"

    # --- checks before any work ----------------------------------------------------------------
    def check_new(self) -> None:
        """A new run goes into a folder that does not exist yet (or is empty) and can be written."""
        p = self.path
        if p.exists() and not p.is_dir():
            raise UserError(f"run folder {str(p)!r} is a file, not a folder")
        if p.is_dir() and folder_entries(p):
            hint = " (an evolution run: resume it instead)" if self.config.is_file() else ""
            raise UserError(f"run folder {str(p)!r} already exists and is not empty{hint}; choose another folder")
        check_writable_dir(p, what="run folder")

    def check_existing(self) -> None:
        """An existing evolution run folder (to resume or inspect)."""
        p = self.path
        if not p.exists():
            raise UserError(f"run folder {str(p)!r} not found")
        if not p.is_dir():
            raise UserError(f"{str(p)!r} is a file, not an evolution run folder")
        if not self.config.is_file():
            raise UserError(f"{str(p)!r} is not an evolution run folder (no config.json)")
        if (p / "checkpoints" / "checkpoint.npz").is_file() or (p / "model.npz").is_file():
            raise UserError(f"{str(p)!r} is a training run folder (deckopt train), not an evolution run folder")
        for folder in (self.generations, self.checkpoint.parent):
            if folder.exists() and not folder.is_dir():
                raise UserError(f"run folder {str(p)!r}: {folder.name} is a file, not a folder")

    # --- reading -------------------------------------------------------------------------------
    def read_json(self, path: Path, schema: Schema = ANYTHING, what: str = "run file", max_bytes: int = MAX_FILE_BYTES):
        """The JSON file at `path` of this folder, checked against `schema`; UserError in one line if
        it is missing, not a regular file, a link leading out of the folder, larger than `max_bytes`,
        malformed or does not fit."""
        if not os.path.lexists(path):
            raise UserError(f"run folder {str(self.path)!r}: {path.relative_to(self.path)} is missing")
        return read_checked(path, schema, what, max_bytes=max_bytes, inside=self.path)

    def read_plot(self, path: Path) -> bytes:
        """The bytes of the plot (PNG) at `path` of this folder; UserError in one line if it is not a
        regular file of the folder or is larger than MAX_PLOT_BYTES."""
        return read_file_bytes(path, "plot", MAX_PLOT_BYTES, inside=self.path)

    def read_archive(self):
        """The run's archive.json (an archive run's elites), read up to MAX_RUN_FILE_BYTES."""
        return self.read_json(self.archive, ANYTHING, "archive file", MAX_RUN_FILE_BYTES)

    def read_start_decks(self, space) -> list[list[int]] | None:
        """The start decks recorded when the run began (None for a run that recorded none), each
        checked against the run's deck `space`; UserError in one line if one is not its deck."""
        if not os.path.lexists(self.start_decks):
            return None
        decks = self.read_json(self.start_decks, START_DECKS_FILE, "start-decks file")
        for cards in decks:
            problems = space.problems(cards)
            if problems:
                raise UserError(
                    f"start-decks file {str(self.start_decks)!r}: a deck that is not the run's: {problems[0]}"
                )
        return decks

    def read_champion(self) -> dict:
        return self.read_json(self.champion, CHAMPION_FILE, "champion file")

    def read_validation(self) -> dict:
        return self.read_json(self.validation, VALIDATION_FILE, "validation file")

    def read_config(self) -> EvolveConfig:
        # a run saved before score_memory existed was scored on one generation's games; one saved
        # before the yardstick had none
        data = self.read_json(self.config, SETTINGS_TABLE, "run config")
        return config_from_settings(data, where=str(self.config), saved=True)

    def read_state(self, config: EvolveConfig, space) -> EvolutionState | None:
        """The state after the last finished generation (None if none finished), checked against
        the run's `config`: a config.json edited after the checkpoint is refused."""
        if not self.checkpoint.is_file():
            if any(self.generations.glob("gen_*.json")):  # resuming would start again and overwrite them
                raise UserError(
                    f"run folder {str(self.path)!r}: {self.checkpoint.relative_to(self.path)} is missing but "
                    "generations were saved; cannot resume without it (restore it, or start a new run)"
                )
            return None
        data = self.read_json(self.checkpoint, CHECKPOINT_FILE, "checkpoint", MAX_RUN_FILE_BYTES)
        for path in sorted(self.generations.glob("gen_*.json")):  # a resumed run reads them back at its end
            self._generation(path)
        where = f"run folder {str(self.path)!r}: {self.checkpoint.relative_to(self.path)}"
        saved = data.get("config") if isinstance(data, dict) else None
        if saved is not None:  # first: an edited config.json would make the rest look damaged
            self._check_same_run(saved, config, where)
        try:
            return EvolutionState.from_json(data, config, space)
        except UserError as exc:
            raise UserError(f"{where}: {exc}") from None

    def _check_same_run(self, saved: dict, config: EvolveConfig, where: str) -> None:
        """config.json may differ from the checkpoint's config in execution fields only."""
        try:
            saved_config = config_from_settings(saved, saved=True)
        except UserError as exc:
            raise UserError(f"{where}: damaged checkpoint (its config: {exc})") from None
        changed = changed_settings(saved_config, config)
        if changed:
            raise UserError(
                f"run folder {str(self.path)!r}: config.json differs from the run's checkpoint in "
                f"{', '.join(changed)} (edited after the run started?); restore them to continue"
            )

    def saved_generation(self) -> int | None:
        """The last generation the checkpoint holds (None: none, or a checkpoint that cannot be read)."""
        try:
            return self.read_json(self.checkpoint, CHECKPOINT_FILE, "checkpoint", MAX_RUN_FILE_BYTES)["generation"]
        except UserError:
            return None

    def read_best_decks(self) -> list[dict]:
        return self.read_json(self.best_decks, BEST_DECKS_FILE, "best-decks file")["generations"]

    def read_generation(self, gen: int) -> dict:
        return self._generation(self.generation_file(gen))

    def read_last_generation(self) -> dict:
        files = sorted(self.generations.glob("gen_*.json"))
        if not files:
            raise UserError(f"run folder {str(self.path)!r} has no finished generation")
        return self._generation(files[-1])

    def _generation(self, path: Path) -> dict:
        """A generation file, checked against its schema (its decks, their cards and scores)."""
        return self.read_json(path, GENERATION_FILE, "generation file")

    def read_hall_of_fame(self) -> list[dict]:
        return (
            self.read_json(self.hall_of_fame, HALL_OF_FAME_FILE, "hall-of-fame file")
            if self.hall_of_fame.is_file()
            else []
        )

    def read_logbook(self) -> list[dict]:
        """Logbook rows as floats (nan where a column is empty)."""
        if not os.path.lexists(self.logbook):
            return []
        raw = read_file_bytes(self.logbook, "logbook", MAX_LOGBOOK_BYTES, inside=self.path)
        try:
            rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8"), newline="")))
            return [{k: (float(v) if v not in ("", None) else float("nan")) for k, v in r.items()} for r in rows]
        except (UnicodeDecodeError, ValueError, TypeError, csv.Error) as exc:
            raise UserError(f"logbook {str(self.logbook)!r} is damaged: {' '.join(str(exc).split())[:200]}") from None

    # --- writing -------------------------------------------------------------------------------
    def write_config(self, config: EvolveConfig) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        atomic_write_json(self.config, config.to_dict())

    def write_start_decks(self, decks: list[list[int]]) -> None:
        """The start decks as read when the run began: a resume before its first generation is saved
        starts from these, whatever the start files hold by then."""
        atomic_write_json(self.start_decks, [[int(c) for c in d] for d in decks], indent=None)

    def write_generation(
        self, state: EvolutionState, games: int, seconds: float, config: EvolveConfig, space, header: dict
    ) -> None:
        """Everything a user inspects about the generation just finished (`header`: how its decks were
        scored; each deck with its row of the run's deck `space`), then the checkpoint (last: a
        generation counts as finished once its checkpoint is written)."""
        pool = state.pool
        order = np.argsort([-score_of(ind) for ind in pool], kind="stable")
        atomic_write_json(
            self.generation_file(state.generation),
            {
                "generation": state.generation,
                "games": games,
                "seconds": round(seconds, 3),
                **header,
                "decks": [deck_entry(pool[i], rank=r + 1, **space.row(pool[i])) for r, i in enumerate(order)],
            },
        )
        atomic_write_text(self.logbook, logbook_csv(list(state.logbook)))
        atomic_write_json(self.best_decks, {"run": self.name, "generations": state.best_decks})
        atomic_write_json(self.hall_of_fame, [deck_entry(h, with_generation=True) for h in state.hall_of_fame])
        atomic_write_json(self.checkpoint, state.to_json(config), indent=None)

    def write_champion(self, champion: dict, space, how: str) -> None:
        """champion.json and the champion as a deck file of the run's deck `space`."""
        atomic_write_json(self.champion, champion)
        space.save(
            champion["cards"],
            self.champion_deck,
            f"{self.name}_champion",
            f"champion of evolution run {self.name}: {how}",
        )

    def write_validation(self, report: dict) -> None:
        atomic_write_json(self.validation, report)


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
            c = self.folder.read_champion()
            return list(c["cards"]), c.get("how", "champion")
        gen = self.generations[-1] if generation is None else generation
        decks = self.generation(gen)["decks"]
        return list(decks[0]["cards"]), f"best of generation {gen}"


def logbook_csv(rows: list[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(LOGBOOK_FIELDS)
    for r in rows:
        writer.writerow([_csv_value(r.get(k, "")) for k in LOGBOOK_FIELDS])
    return buffer.getvalue()


def _csv_value(v) -> str:
    return f"{v:.6g}" if isinstance(v, float) else str(v)
