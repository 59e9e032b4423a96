"""Which cards do the strong decks play? Each card's share of a run's strong decks beside its share
of random decks of the same space (`deckopt decks RUN --cards [RUN ...]`, the report's "Cards of the
strong decks"). Drawn from deck ids and the space's `card_pool` names only, so it holds for every
deck space.

    report = cards_report([run, ...], space, random_decks=1000, seed=0)
    text = cards_table(report)

The strong decks of a run are its hall of fame (the best decks of any generation, by the fitness the
run kept) and, for an archive run, its elites (the best deck of each niche). Decks of one run share
ancestors, so a card every strong deck of one run holds may be an accident of its lineage: several
runs of independent seeds say more, and each card's smallest share over the runs (`least`) is the
share of every run's strong decks that hold it. The random decks are drawn by the space's
`random_deck` from their own seed: what a card's share would be without selection.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from games.errors import UserError

#: the seed key's stage of the random decks (evolution.scoring.fitness's stages use 0..40)
STAGE_CARDS = 41
#: the cards shown by the text table: those held by at least this share of the strong decks
SHOWN_SHARE = 0.5
ARCHIVE_FILE = "archive.json"


def strong_decks(run) -> list[tuple[int, ...]]:
    """A run's distinct strong decks: its hall of fame, then its archive's elites (evolution.runfolder.Run)."""
    decks = [tuple(sorted(int(c) for c in h["cards"])) for h in run.folder.read_hall_of_fame()]
    archive = run.folder.path / ARCHIVE_FILE
    if archive.is_file():
        data = run.folder.read_archive()
        decks += [tuple(sorted(int(c) for c in e["cards"])) for e in data.get("entries", [])]
    return list(dict.fromkeys(decks))


def _holding(decks) -> tuple[Counter, Counter]:
    """(decks holding each card, copies of each card over all decks)."""
    held, copies = Counter(), Counter()
    for d in decks:
        counts = Counter(d)
        held.update(counts.keys())
        copies.update(counts)
    return held, copies


def cards_report(runs: list, space, random_decks: int = 1000, seed: int = 0) -> dict:
    """Each card's share of the strong decks of `runs` (evolution.runfolder.Run, all of the deck `space`'s
    game under the same deck rules), its mean copies where held, its smallest share over the runs, and
    its share of `random_decks` random decks of `space` (seed `seed`); cards best held first.
    UserError in one line for runs without strong decks or of another game."""
    if not runs:
        raise UserError("name at least one run folder")
    config = runs[0].config
    per_run = []
    for run in runs:
        if run.config.game != config.game:
            raise UserError(f"run {run.name!r} is a {run.config.game} run, not a {config.game} one")
        decks = strong_decks(run)
        if not decks:
            raise UserError(f"run {run.name!r} has no hall of fame yet (no finished generation)")
        if any(space.problems(list(d)) for d in decks):
            raise UserError(f"run {run.name!r} holds decks illegal under the deck rules of run {runs[0].name!r}")
        per_run.append(decks)
    rng = np.random.default_rng([seed, STAGE_CARDS])
    randoms = [tuple(space.random_deck(rng)) for _ in range(random_decks)]
    decks = [d for ds in per_run for d in ds]
    held, copies = _holding(decks)
    run_held = [_holding(ds)[0] for ds in per_run]
    random_held, _ = _holding(randoms)
    names = space.card_pool() if hasattr(space, "card_pool") else {}
    rows = []
    for card in sorted(held.keys() | random_held.keys()):
        rows.append(
            {
                "card": int(card),
                "name": names.get(card, str(card)),
                "strong_decks": held[card],
                "share": held[card] / len(decks),
                "copies": copies[card] / held[card] if held[card] else 0.0,
                "least": min(h[card] / len(ds) for h, ds in zip(run_held, per_run)),
                "random_share": random_held[card] / random_decks if random_decks else None,
            }
        )
    rows.sort(key=lambda r: (-r["share"], -r["least"], r["random_share"] or 0.0, r["card"]))
    return {
        "runs": [r.name for r in runs],
        "game": space.name,
        "strong_decks": len(decks),
        "strong_decks_per_run": [len(ds) for ds in per_run],
        "random_decks": random_decks,
        "seed": seed,
        "in_every_strong_deck": [r["card"] for r in rows if r["least"] == 1.0],
        "cards": rows,
    }


def cards_rows(report: dict, shown: float = SHOWN_SHARE) -> tuple[list[str], list[list[str]]]:
    """The head and rows of the table of the cards held by at least `shown` of the strong decks."""
    many = len(report["runs"]) > 1
    head = ["card", "strong decks", "copies", *(["least of a run"] if many else []), "random decks"]
    rows = []
    for r in report["cards"]:
        if r["share"] < shown:
            break
        random = "-" if r["random_share"] is None else f"{r['random_share']:.2f}"
        least = [f"{r['least']:.2f}"] if many else []
        rows.append(
            [r["name"], f"{r['strong_decks']}/{report['strong_decks']} ({r['share']:.2f})", f"{r['copies']:.1f}",
             *least, random]
        )  # fmt: skip
    return head, rows


def cards_summary(report: dict) -> str:
    """What the table shows, in one sentence."""
    runs = report["runs"]
    every = report["in_every_strong_deck"]
    if len(runs) == 1:
        where = f"run {runs[0]} (its hall of fame and archive elites)"
    else:
        counts = " + ".join(map(str, report["strong_decks_per_run"]))
        where = f"{len(runs)} runs, {' + '.join(runs)} ({counts}: each run's hall of fame and archive elites)"
    return (
        f"{report['strong_decks']} strong decks of {where}; {len(every)} cards in every one of them; the cards "
        f"held by at least {SHOWN_SHARE:.0%} of them, with their mean copies where held and their share of "
        f"{report['random_decks']} random decks (seed {report['seed']}):"
    )


def cards_table(report: dict) -> str:
    """The text table of `deckopt decks RUN --cards`."""
    head, rows = cards_rows(report)
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]

    def fmt(r):
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))

    return "\n".join([cards_summary(report), fmt(head), *(fmt(r) for r in rows)])
