"""The verdict section of the run report, one per kind of validation: a champion against reference
decks (Gwent Lite) or against exact values (Exploding Kittens); each deck space names its own."""

from __future__ import annotations

from evolution.designer.html import ci as _ci
from evolution.designer.html import escape as _e
from evolution.designer.html import note as _note
from evolution.designer.html import table as _table
from evolution.spaces.genome import counts_text
from evolution.studies.validation import agreement_text, exploitability_text


def deck_words(d: dict) -> str:
    """A deck as people read it: Gwent Lite powers, or an Exploding Kittens composition."""
    if isinstance(d.get("deck"), dict):
        return ", ".join(f"{n} {k}" for k, n in d["deck"].items())
    return counts_text(d["cards"])


def exact_verdict(validation: dict | None) -> str:
    """An Exploding Kittens run: the champion and candidates with the agent's first-player estimate
    next to the exact value (the solver is used here only, never for fitness)."""
    if validation is None or "_unreadable" in validation:
        return _note("no exact-value validation in this run (deckopt decks RUN --validate)")

    def est(d):
        ci = d.get("agent_first_player_ci95")
        p = d.get("agent_first_player")
        return "" if p is None else f"{p:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")

    c = validation["champion"]
    parts = [
        f'<p class="verdict">Exact first-player value of the champion {c["exact_first_player"]:.4f}, '
        f"{c['exact_distance_from_half']:.4f} from 0.5; the agent's estimate {_e(est(c))}.</p>"
    ]
    named = [("champion", c)] + [(f"candidate {k}", d) for k, d in enumerate(validation.get("candidates", []), 1)]
    rows = [
        [name, deck_words(d), est(d), f"{d['exact_first_player']:.4f}", f"{d['exact_distance_from_half']:.4f}"]
        for name, d in named
    ]
    parts.append(
        f"<h3>Against exact values</h3><p>Objective {_e(validation.get('objective'))}, agent "
        f"{_e(validation.get('agent'))}; the agent's self-play first-player win rate beside the exact value.</p>"
        + _table(
            ["", "deck", "agent's estimate [95% CI]", "exact first-player value", "|exact - 0.5|"], rows, left={0, 1}
        )
    )
    space = validation.get("space") or {}
    if space:
        parts.append(
            f"<p>The space holds {_e(space.get('decks'))} decks; median |exact - 0.5| "
            f"{_e(round(space.get('median_exact_distance_from_half', float('nan')), 4))}; "
            f"{_e(space.get('decks_within_0.005'))} within 0.005; the champion ranks "
            f"{_e(space.get('champion_rank_by_exact_fairness'))} by exact fairness.</p>"
        )
    return "".join(parts)


def reference_verdict(champion: dict | None, validation: dict | None) -> str:
    """The champion's scores against the reference decks, overall first, each with its interval
    (references whose interval reaches 0.5 in red)."""
    if validation is None:
        return _note("the champion was not validated in this run (deckopt decks RUN --validate)")
    if "_unreadable" in validation:
        return _note(validation["_unreadable"])
    v = validation
    refs = v.get("references", [])
    above = sum(1 for r in refs if r["lower_above_0.5"])
    parts = [
        f'<p class="verdict">Score {_e(_ci(v["overall"]))} against all {len(refs)} reference decks '
        f"({_e(v.get('games'))} games); the interval lies above 0.5 against {above} of {len(refs)}.</p>"
    ]
    groups = [g for g in v.get("groups", []) if g.get("decks", 0) > 1]
    if groups:
        parts.append(
            "<p>" + "; ".join(f"{_e(g['group'])} ({g['decks']} decks together): {_e(_ci(g))}" for g in groups) + "</p>"
        )
    parts.append(trust_html(v))
    parts.append(
        f"<p>Agent {_e(v.get('agent'))}, {_e(v.get('games_per_reference'))} games per reference deck, seed "
        f"{_e(v.get('seed'))}.</p>"
    )
    rows = [
        [r["name"], counts_text(r["cards"]), _ci(r), r["games"], "yes" if r["lower_above_0.5"] else "no"] for r in refs
    ]
    classes = ["" if r["lower_above_0.5"] else "miss" for r in refs]
    parts.append(
        _table(["reference", "deck", "score [95% CI]", "games", "CI above 0.5"], rows, left={0, 1}, classes=classes)
    )
    return "".join(parts)


def trust_html(validation: dict) -> str:
    """How far to trust a verdict (evolution.studies.validation.panel_verdict): the champion's score
    against all the references under each copy of the panel, on the deals that copy played, with a
    plain "holds under every copy"; the named panel's exploitability where its verdicts are made and
    the agreement between its copies, each with the commands that measured it. Empty for a validation
    made before these were recorded."""
    parts = []
    members = validation.get("members")
    if members:
        holds = "yes" if validation.get("holds_under_every_member") else "no"
        parts.append(
            f'<p class="verdict">Holds under every copy of the panel (interval above 0.5): <b>{holds}</b>.</p>'
        )
        rows = [[m["spec"], _ci(m), m["games"], "yes" if m["lower_above_0.5"] else "no"] for m in members]
        classes = ["" if m["lower_above_0.5"] else "miss" for m in members]
        parts.append(
            f"<p>Under each copy, against all the reference decks, on the deals that copy played "
            f"(1/{len(members)} each):</p>"
            + _table(["copy", "score [95% CI]", "games", "CI above 0.5"], rows, left={0}, classes=classes)
        )
    trust = validation.get("trust")
    if trust:
        commands = [*trust["exploitability"]["commands"], *trust["agreement"]["commands"]]
        parts.append(
            f"<p>How far to trust {_e(trust['panel'])} (measured: {_e(trust['results'])}): "
            f"{_e(exploitability_text(trust))}; {_e(agreement_text(trust))}.</p>"
            + '<pre class="cmd">'
            + "\n".join(_e("$ " + c) for c in commands)
            + "</pre>"
        )
    elif "trust" in validation:
        parts.append(_note(f"no exploitability or agreement figures are recorded for {validation.get('agent')}"))
    return "".join(parts)
