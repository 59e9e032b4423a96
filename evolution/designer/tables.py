"""The text tables of `deckopt decks RUN`: each generation's best decks with their scores, as Gwent
Lite powers (with the yardstick column) or as card-count compositions with the rate behind an
objective; each deck space names its own."""

from __future__ import annotations

from evolution.spaces.genome import counts_text


def deck_json(d: dict) -> dict:
    """A generation file's deck entry as `deckopt decks --json` shows it (the space adds its own)."""
    out = {"cards": list(d["cards"]), "score": d["score"], "ci95": list(d["ci95"]), "games": d.get("games", 0)}
    if d.get("yardstick"):  # the deck's games against the fixed yardstick this generation (top decks only)
        y = d["yardstick"]
        out["yardstick"] = {"score": y["score"], "ci95": list(y["ci95"]), "games": y.get("games", 0)}
    return out


YARDSTICK_NOTE = (
    "fitness: against the generation's own population and hall of fame, which improve as the run goes on, so it "
    "is not comparable across generations; yardstick: against the fixed yardstick decks, comparable across generations"
)


def _interval(d: dict | None) -> str:
    return f"{d['score']:.3f} [{d['ci95'][0]:.3f}, {d['ci95'][1]:.3f}]" if d else "-"


def powers_decks_table(report: dict) -> str:
    """The text table of `deckopt decks RUN`: each generation's best deck (or top decks) with its fitness
    and, where the run measured it, its yardstick score, the column comparable across generations."""
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


def objective_decks_table(report: dict) -> str:
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
