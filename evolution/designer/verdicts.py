"""The verdict section of the run report, one per kind of validation report (evolution.scoring): a
champion against reference decks, or against exact values; chosen by the report's rows, drawn in
the run's deck space's words."""

from __future__ import annotations

from evolution.designer.html import Block, Table, Text, heading, note
from evolution.designer.html import ci as _ci
from evolution.designer.tables import agreement_text, exploitability_text


def verdict_blocks(champion: dict, validation: dict | None, space) -> list[Block]:
    """The report's verdict on the champion: blocks of evolution.designer.html (text, tables)."""
    if validation is not None and "champion" in validation and "exact_first_player" in validation["champion"]:
        return exact_verdict(validation, space)
    return reference_verdict(champion, validation, space)


def exact_verdict(validation: dict | None, space) -> list[Block]:
    """An Exploding Kittens run: the champion and candidates with the agent's first-player estimate
    next to the exact value (the solver is used here only, never for fitness)."""
    if validation is None or "_unreadable" in validation:
        return [note("no exact-value validation in this run (deckopt decks RUN --validate)")]

    def est(d):
        ci = d.get("agent_first_player_ci95")
        p = d.get("agent_first_player")
        return "" if p is None else f"{p:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")

    c = validation["champion"]
    parts: list[Block] = [
        Text(
            f"Exact first-player value of the champion {c['exact_first_player']:.4f}, "
            f"{c['exact_distance_from_half']:.4f} from 0.5; the agent's estimate {est(c)}.",
            "verdict",
        )
    ]
    named = [("champion", c)] + [(f"candidate {k}", d) for k, d in enumerate(validation.get("candidates", []), 1)]
    rows = [
        [
            name,
            space.words(d["cards"]),
            est(d),
            f"{d['exact_first_player']:.4f}",
            f"{d['exact_distance_from_half']:.4f}",
        ]
        for name, d in named
    ]
    parts += [
        heading("Against exact values"),
        Text(
            f"Objective {validation.get('objective')}, agent {validation.get('agent')}; the agent's self-play "
            "first-player win rate beside the exact value."
        ),
        Table(
            ["", "deck", "agent's estimate [95% CI]", "exact first-player value", "|exact - 0.5|"],
            rows,
            left=frozenset({0, 1}),
        ),
    ]
    space = validation.get("space") or {}
    if space:
        parts.append(
            Text(
                f"The space holds {space.get('decks')} decks; median |exact - 0.5| "
                f"{round(space.get('median_exact_distance_from_half', float('nan')), 4)}; "
                f"{space.get('decks_within_0.005')} within 0.005; the champion ranks "
                f"{space.get('champion_rank_by_exact_fairness')} by exact fairness."
            )
        )
    return parts


def reference_verdict(champion: dict | None, validation: dict | None, space) -> list[Block]:
    """The champion's scores against the reference decks, overall first, each with its interval
    (references whose interval reaches 0.5 in red)."""
    if validation is None:
        return [note("the champion was not validated in this run (deckopt decks RUN --validate)")]
    if "_unreadable" in validation:
        return [note(validation["_unreadable"])]
    v = validation
    refs = v.get("references", [])
    above = sum(1 for r in refs if r["lower_above_0.5"])
    parts: list[Block] = [
        Text(
            f"Score {_ci(v['overall'])} against all {len(refs)} reference decks ({v.get('games')} games); "
            f"the interval lies above 0.5 against {above} of {len(refs)}.",
            "verdict",
        )
    ]
    groups = [g for g in v.get("groups", []) if g.get("decks", 0) > 1]
    if groups:
        parts.append(Text("; ".join(f"{g['group']} ({g['decks']} decks together): {_ci(g)}" for g in groups)))
    parts += trust_blocks(v)
    parts.append(
        Text(f"Agent {v.get('agent')}, {v.get('games_per_reference')} games per reference deck, seed {v.get('seed')}.")
    )
    rows = [
        [r["name"], space.words(r["cards"]), _ci(r), r["games"], "yes" if r["lower_above_0.5"] else "no"] for r in refs
    ]
    classes = ["" if r["lower_above_0.5"] else "miss" for r in refs]
    head = ["reference", "deck", "score [95% CI]", "games", "CI above 0.5"]
    parts.append(Table(head, rows, left=frozenset({0, 1}), classes=classes))
    return parts


def trust_blocks(validation: dict) -> list[Block]:
    """How far to trust a verdict (evolution.scoring.validation.panel_verdict): the champion's score
    against all the references under each copy of the panel, on the deals that copy played, with a
    plain "holds under every copy"; the named panel's exploitability where its verdicts are made and
    the agreement between its copies, each with the commands that measured it. Empty for a validation
    made before these were recorded."""
    parts: list[Block] = []
    members = validation.get("members")
    if members:
        holds = "yes" if validation.get("holds_under_every_member") else "no"
        holding = "Holds under every copy of the panel (interval above 0.5): "
        parts.append(Text(holding, "verdict", strong=holds, tail="."))
        rows = [[m["spec"], _ci(m), m["games"], "yes" if m["lower_above_0.5"] else "no"] for m in members]
        classes = ["" if m["lower_above_0.5"] else "miss" for m in members]
        parts.append(
            Text(
                "Under each copy, against all the reference decks, on the deals that copy played "
                f"(1/{len(members)} each):"
            )
        )
        parts.append(Table(["copy", "score [95% CI]", "games", "CI above 0.5"], rows, frozenset({0}), classes))
    trust = validation.get("trust")
    if trust:
        commands = [*trust["exploitability"]["commands"], *trust["agreement"]["commands"]]
        parts.append(
            Text(
                f"How far to trust {trust['panel']} (measured: {trust['results']}): "
                f"{exploitability_text(trust)}; {agreement_text(trust)}."
            )
        )
        parts.append(Text("\n".join("$ " + c for c in commands), "cmd", "pre"))
    elif "trust" in validation:
        parts.append(note(f"no exploitability or agreement figures are recorded for {validation.get('agent')}"))
    return parts
