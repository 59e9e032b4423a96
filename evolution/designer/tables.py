"""Plain-text presentation of an evolution run, drawn from the rows every deck space gives
(evolution.decks.base: `words`, `row`) and from the run's JSON files: a deck's one-line text,
`deckopt decks RUN` (its table and `--json` rows), the validation tables of `deckopt evolve` and
`deckopt decks --validate`. Nothing here knows a game: a column appears when the rows carry it.

The rows of `deckopt decks RUN --json` (`decks_report`): {"run", "game", "objective", "generations":
[{"generation", "best": DECK, ["top": [DECK, ...]]}]}, each DECK {"cards", "score", "ci95", "games"}
(the fitness and its 95 % interval), with "yardstick" {"score", "ci95", "games"} where the run
measured the deck against its yardstick, the space's row (e.g. "deck": {card name: copies}), and
for an objective other than "win" the rate behind it ({"score", "ci95"} under its name).
"""

from __future__ import annotations


def numbers(space, cards) -> dict:
    """The numbers of a deck's row (its `total`, ...) that say more than its size."""
    row = space.row(list(cards))
    return {k: v for k, v in row.items() if type(v) in (int, float) and v != len(list(cards))}


def deck_text(space, cards, size: bool = True) -> str:
    """A deck in words with its row's numbers and its size (a genome's length in an `ordered` space;
    not with `size=False`, as the matchups' ranking shows decks and drafters): the one-line form of logs
    and tables."""
    cards = list(cards)
    facts = [f"{k} {v}" for k, v in numbers(space, cards).items()]
    facts += [f"{len(cards)} {'genes' if space.ordered else 'cards'}"] if size else []
    return f"{space.words(cards)} ({', '.join(facts)})" if facts else space.words(cards)


def deck_json(entry: dict, space, objective: str = "win") -> dict:
    """A generation file's deck entry as `deckopt decks --json` shows it (the module docstring)."""
    out = {"cards": list(entry["cards"]), "score": entry["score"], "ci95": list(entry["ci95"])}
    out["games"] = entry.get("games", 0)
    if entry.get("yardstick"):  # the deck's games against the fixed yardstick this generation (top decks only)
        y = entry["yardstick"]
        out["yardstick"] = {"score": y["score"], "ci95": list(y["ci95"]), "games": y.get("games", 0)}
    out.update(space.row(entry["cards"]))
    rate = next(iter((entry.get("by_opponents") or {}).items()), None) if objective != "win" else None
    if rate:  # the rate behind the objective (first-player win rate, score against random)
        out[rate[0]] = {"score": rate[1]["score"], "ci95": list(rate[1]["ci95"])}
    return out


#: the keys of a deck's row that are not the rate behind an objective (a drafter's mana curve: `curve`)
NOT_RATES = ("deck", "yardstick", "curve")
YARDSTICK_NOTE = (
    "fitness: against the generation's own population and hall of fame, which improve as the run goes on, so it "
    "is not comparable across generations; yardstick: against the fixed yardstick decks, comparable across generations"
)


def _interval(d: dict | None) -> str:
    return f"{d['score']:.3f} [{d['ci95'][0]:.3f}, {d['ci95'][1]:.3f}]" if d else "-"


def decks_table(report: dict, space) -> str:
    """The text table of `deckopt decks RUN`: each generation's best deck (or top decks) in words,
    its size, its fitness with the 95 % interval and its games; the rate behind an objective and
    the yardstick score (the column comparable across generations) where the rows carry them."""
    objective = report.get("objective") or "win"
    rows, rate_names, names = [], [], []
    for g in report["generations"]:
        for rank, d in enumerate(g.get("top") or [g["best"]], 1):
            name, rate = next(((k, v) for k, v in d.items() if isinstance(v, dict) and k not in NOT_RATES), ("", None))
            rate_names += [name] if name and name not in rate_names else []
            extra = numbers(space, d["cards"])
            names += [k for k in extra if k not in names]
            rows.append(
                [
                    str(g["generation"]) if rank == 1 else "",
                    str(rank),
                    space.words(d["cards"]),
                    extra,
                    str(len(d["cards"])),
                    _interval(d),
                    _interval(rate) if rate else "-",
                    str(d["games"]),
                    _interval(d.get("yardstick")),
                ]
            )
    rows = [r[:3] + [str(r[3].get(k, "")) for k in names] + r[4:] for r in rows]  # the row's numbers: a column each
    score = "fitness [95% CI]" if objective == "win" else f"{objective} [95% CI]"
    rate_head = f"{' / '.join(rate_names).replace('_', ' ')} [95% CI]"  # the rate behind the objective
    size = "genes" if space.ordered else "cards"
    head = ["gen", "rank", "deck", *names, size, score, rate_head, "games", "yardstick [95% CI]"]
    for col in (len(head) - 1, len(head) - 3):  # no empty column
        if all(r[col] == "-" for r in rows):
            rows = [r[:col] + r[col + 1 :] for r in rows]
            head = head[:col] + head[col + 1 :]
    if all(r[1] == "1" for r in rows):  # one deck per generation: no rank column
        rows = [r[:1] + r[2:] for r in rows]
        head = head[:1] + head[2:]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    left = {head.index("deck")}

    def fmt(r):
        return "  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))

    title = [f"run {report['run']} ({report.get('game', '?')}, objective {objective})"]
    if "yardstick [95% CI]" in head:
        title.append(YARDSTICK_NOTE)
    return "\n".join(title + [fmt(head)] + [fmt(r) for r in rows])


def validation_table(report: dict, space) -> str:
    """A validation report as the terminal shows it: against reference decks or against exact values
    (by the report's rows)."""
    if "references" in report:
        return reference_table(report, space)
    if "champion" in report and "exact_first_player" in report["champion"]:
        return exact_table(report, space)
    return ""


def trust_lines(report: dict) -> list[str]:
    """The terminal lines of a validation's panel verdict (`panel_verdict`): the score under each
    member, whether it holds under every one, and the named panel's trust figures with their commands."""
    lines = []
    members = report.get("members")
    if members:
        w = max(len(m["spec"]) for m in members)
        n = len(members)
        lines.append(f"under each copy of the panel (all references, on the deals that copy played, 1/{n} each):")
        for m in members:
            lo, hi = m["ci95"]
            lines.append(f"  {m['spec']:<{w}}  {m['score']:.3f}  [{lo:.3f}, {hi:.3f}]  {m['games']:>5}")
        holds = "yes" if report["holds_under_every_member"] else "no"
        lines.append(f"holds under every copy (interval above 0.5): {holds}")
    trust = report.get("trust")
    if trust:
        lines.append(f"trust in {trust['panel']} ({trust['results']}): {exploitability_text(trust)}")
        lines += [f"  $ {c}" for c in trust["exploitability"]["commands"]]
        lines.append(f"  {agreement_text(trust)}")
        lines += [f"  $ {c}" for c in trust["agreement"]["commands"]]
    elif "trust" in report:
        lines.append(f"trust in {report.get('agent')}: no exploitability or agreement figures recorded for this agent")
    return lines


def exploitability_text(trust: dict) -> str:
    """A named panel's exploitability where its verdicts are made, in words (agents.panel.trust_figures)."""
    e = trust["exploitability"]
    lo, hi = e["ci95"]
    return (
        f"a best response ({e['best_response']}) wins {e['score']:.3f} [{lo:.3f}, {hi:.3f}] against it where its "
        f"verdicts are made ({e['where']}; 0.5 is unexploitable)"
    )


def agreement_text(trust: dict) -> str:
    """The agreement between a named panel's copies, in words (agents.panel.trust_figures)."""
    a = trust["agreement"]
    return (
        f"its copies agree at Spearman {_span(a['spearman'])} (noise ceilings {_span(a['spearman_ceiling'])}); "
        f"the largest one-deck difference between two copies is {a['worst_difference']:.3f} ({a['worst_deck']}; "
        f"noise alone {_span(a['noise_difference'])}) over {a['decks']} decks, {a['games_per_deck']} games a deck"
    )


def _span(pair) -> str:
    lo, hi = pair
    return f"{lo:.3f}" if lo == hi else f"{lo:.3f}-{hi:.3f}"


def reference_table(report: dict, space) -> str:
    """The terminal table of a validation against reference decks (evolution.scoring.validation)."""
    lines = [
        f"validation of {deck_text(space, report['deck'])}, "
        f"agent {report['agent']!r}, {report['games_per_reference']} games per reference deck, {report['games']} in all"
    ]
    names = [r["name"] for r in report["references"]] + [
        f"{g['group']} ({g['decks']} decks together)" for g in report["groups"]
    ]
    w = max(len(n) for n in names + ["all references"])
    lines.append(f"  {'reference':<{w}}  score  95% CI          games")
    for r in report["references"]:
        mark = "" if r["lower_above_0.5"] else "   (CI reaches 0.5)"
        lines.append(
            f"  {r['name']:<{w}}  {r['score']:.3f}  [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]  {r['games']:>5}{mark}"
        )
    for g in report["groups"]:
        if g["decks"] > 1:
            lines.append(
                f"  {g['group'] + ' (' + str(g['decks']) + ' decks together)':<{w}}  {g['score']:.3f}  "
                f"[{g['ci95'][0]:.3f}, {g['ci95'][1]:.3f}]  {g['games']:>5}"
            )
    o = report["overall"]
    lines.append(
        f"  {'all references':<{w}}  {o['score']:.3f}  [{o['ci95'][0]:.3f}, {o['ci95'][1]:.3f}]  {o['games']:>5}"
    )
    if "baseline" in report:
        b = report["baseline"]
        lines.append(
            f"baseline {space.words(b['deck'])}: {b['overall']['score']:.3f} on the same deals; deck - baseline"
        )
        for name, row in [*b["groups"].items(), ("all references", b["overall"])]:
            lo, hi = row["delta_ci95"]
            lines.append(f"  {name:<{w}}  {row['delta']:+.3f}  [{lo:+.3f}, {hi:+.3f}]  (paired)")
    lines += trust_lines(report)
    t = report["targets"]
    lines.append(
        f"targets: CI lower bound > 0.5 against {t['references_lower_above_0.5']}/{t['references']} reference decks"
        + (
            f"; ancestor decks together {'>=' if t['ancestor_together_at_least_0.55'] else '<'} 0.55"
            if t["ancestor_together_at_least_0.55"] is not None
            else ""
        )
    )
    return "\n".join(lines)


def exact_table(report: dict, space) -> str:
    """The terminal table of a validation against exact values (evolution.spaces.kittens_validation)."""
    lines = [f"exact first-player values (open hands) of {report['objective']} decks, agent {report['agent']!r}"]
    if not report.get("open_hands"):
        lines.append("  (the run's games had hidden hands: the exact values are those of the open-hands game)")
    lines.append(f"  {'':<8} {'deck':<26} {'exact':>7} {'|exact-0.5|':>11}  agent's estimate [95% CI]")

    def row(name, r):
        deck = space.words(r["cards"])
        est = ""
        if r.get("agent_first_player") is not None:
            lo, hi = r["agent_first_player_ci95"]
            est = f"first player {r['agent_first_player']:.3f} [{lo:.3f}, {hi:.3f}]"
        elif r.get("score") is not None:
            est = f"score {r['score']:.3f}"
        return f"  {name:<8} {deck:<26} {r['exact_first_player']:>7.4f} {r['exact_distance_from_half']:>11.4f}  {est}"

    lines.append(row("champion", report["champion"]))
    for r in report["candidates"][1:]:
        lines.append(row("", r))
    s = report.get("space")
    if s:
        lines.append(
            f"the space holds {s['decks']} decks: median |exact-0.5| {s['median_exact_distance_from_half']:.4f}, "
            f"{s['decks_within_0.005']} within 0.005; the champion ranks {s['champion_rank_by_exact_fairness']} "
            "by exact fairness"
        )
    t = report.get("targets")
    if t:
        met = "met" if t["champion_exact_within_0.005_of_half"] else "NOT met"
        lines.append(f"target |exact - 0.5| <= 0.005 for the champion: {met}")
    return "\n".join(lines)
