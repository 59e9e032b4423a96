"""Choosing a run's champion and validating it against reference decks it never trained against.

Champion: the last generation's top `playoff_top` decks and the hall of fame's decks play a round
robin of `playoff_games_per_pair` games per pair (fresh seeds); the best of that playoff is the
champion. A single generation's score is noisy, so this second, larger look picks between close
decks (measured on one run's 26 best decks: the round-robin score correlates 0.57 with the score
against the held-out reference decks).

Validation: the champion plays every reference deck (default `decks/` and `decks/ancestor/`)
`validation_games` mirrored games with seeds used nowhere else; the report gives its score with a
95 % interval against each deck, against each folder of decks together, and whether the targets
are met (interval above 0.5 against every deck; >= 0.55 against the ancestor's decks together).
When a panel plays (`--agent evaluator`), the report also gives the champion's score under each of
its copies, on the deals that copy played, and whether the interval lies above 0.5 under every copy;
with a named panel, its trust figures (exploitability where its verdicts are made, agreement between
its copies, the commands that measured them: agents/pretrained/panels.toml) stand beside the score.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.panel import AgentPanel, member_of_deal, trust_figures
from agents.stats import Z95, score_summary
from evolution.scoring import fitness as fit
from evolution.scoring.evaluation import Evaluator
from evolution.scoring.panel import ReferenceDeck, load_panel
from evolution.scoring.yardstick import choose_on_yardstick
from evolution.spaces.genome import counts_text
from games.decks import DeckRules

ANCESTOR_GROUP = "ancestor"
TARGET_EVERY_LOWER = 0.5
TARGET_ANCESTOR = 0.55


def round_robin_scores(
    decks: list[tuple[int, ...]], config, agent, pmap, stage: int, gen: int, progress=None, what="games"
) -> list[fit.Score]:
    """Each deck's Score in a round robin of `playoff_games_per_pair` games per pair, seeds of `stage`."""
    pairings, who = fit.round_robin(decks, config.playoff_games_per_pair // 2, config.seed, stage, gen)
    results = fit.play_pairings(
        pairings, agent, config.rules, pmap, config.games_per_task, (config.seed, stage, gen), progress, what
    )
    scores = [fit.Score() for _ in decks]
    for outcomes, (i, j) in zip(results, who):
        scores[i].add(outcomes)
        scores[j].add(outcomes, flip=True)
    return scores


def playoff(
    candidates: list[tuple[int, ...]], config, agent, pmap, gen: int, progress: Callable | None = None
) -> list[dict]:
    """Round robin between candidate decks; entries sorted best first (ties keep the given order)."""
    scores = round_robin_scores(candidates, config, agent, pmap, fit.STAGE_PLAYOFF, gen, progress, "playoff")
    entries = [{"cards": list(c), **s.as_dict()} for c, s in zip(candidates, scores)]
    order = np.argsort([-e["score"] for e in entries], kind="stable")
    return [entries[i] for i in order]


def validate(
    cards,
    references: list[ReferenceDeck],
    agent,
    rules: DeckRules,
    pmap,
    games: int,
    seed: int,
    games_per_task: int = 200,
    progress: Callable | None = None,
    agent_spec: str = "?",
    baseline=None,
) -> dict:
    """The deck `cards` against every reference deck, `games` mirrored games each. With `baseline`
    (another deck's cards), the baseline plays the same deals too and the report adds the paired
    difference, deck minus baseline, per group and over all references (`baseline` key)."""
    cards = tuple(sorted(int(c) for c in cards))
    results = _against_references(cards, references, agent, rules, pmap, games, seed, games_per_task, progress)
    per_ref, groups, group_rows = _scores_by_reference(references, results)
    total = fit.Score()
    for s in groups.values():
        total = total.merge(s)
    ancestor = groups.get(ANCESTOR_GROUP)
    paired = {}
    if baseline is not None:
        paired["baseline"] = _paired(
            baseline, results, references, agent, rules, pmap, games, seed, games_per_task, progress
        )
    return {
        "deck": list(cards),
        "agent": agent_spec,
        "seed": seed,
        "games_per_reference": 2 * (games // 2),
        "games": total.games,
        "overall": total.as_dict(),
        "references": per_ref,
        "groups": group_rows,
        **panel_verdict(agent, agent_spec, results),
        "targets": {
            "every_reference_lower_above_0.5": all(r["lower_above_0.5"] for r in per_ref),
            "references_lower_above_0.5": sum(r["lower_above_0.5"] for r in per_ref),
            "references": len(per_ref),
            "ancestor_together_at_least_0.55": (ancestor.score >= TARGET_ANCESTOR) if ancestor else None,
        },
        **paired,
    }


def panel_verdict(agent, agent_spec: str, results: list) -> dict:
    """What a validation adds about the agent that played it (`results[i]`: the (deals, 2) outcomes
    against reference i, pairing i of the validation). `trust`: the named panel's trust figures
    (agents.panel.trust_figures), None for an agent without them. With a panel of n members, `members`:
    the deck's score against all the references under each member, on the deals it played (deal d of
    pairing i is member (d + i) mod n's, agents.panel), each with whether its interval lies above 0.5;
    and `holds_under_every_member`: whether it does under every one."""
    specs = tuple(agent.specs) if isinstance(agent, AgentPanel) else ()
    out: dict = {"trust": trust_figures(agent_spec, specs)}
    if len(specs) < 2:
        return out
    scores = [fit.Score() for _ in specs]
    for i, outcomes in enumerate(results):
        who = np.array([member_of_deal(d, i, len(specs)) for d in range(len(outcomes))])
        for k, score in enumerate(scores):
            if (who == k).any():
                score.add(outcomes[who == k])
    rows = []
    for spec, score in zip(specs, scores, strict=True):
        d = score.as_dict()
        rows.append({"spec": spec, **d, "lower_above_0.5": bool(score.games) and d["ci95"][0] > TARGET_EVERY_LOWER})
    out["members"] = rows
    out["holds_under_every_member"] = all(r["lower_above_0.5"] for r in rows)
    return out


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


def _against_references(cards, references, agent, rules, pmap, games, seed, games_per_task, progress) -> list:
    """The (deals, 2) outcomes of `cards` against each reference deck; the deals depend on the seed and
    the reference's place only, so two decks validated with one seed meet the same deals."""
    pairings, _ = fit.against([cards], [r.cards for r in references], games // 2, seed, fit.STAGE_VALIDATE, 0)
    key = (seed, fit.STAGE_VALIDATE, 0)
    return fit.play_pairings(pairings, agent, rules, pmap, games_per_task, key, progress=progress, what="validation")


def _paired(baseline, results, references, agent, rules, pmap, games, seed, games_per_task, progress) -> dict:
    """The baseline deck on the same deals, and the deck's paired difference to it per group and overall."""
    base = tuple(sorted(int(c) for c in baseline))
    base_results = _against_references(base, references, agent, rules, pmap, games, seed, games_per_task, progress)
    groups = {}
    for i, r in enumerate(references):
        groups.setdefault(r.group, []).append(i)
    return paired_difference(base, results, base_results, groups)


def paired_difference(base, results: list, base_results: list, groups: dict[str, list[int]]) -> dict:
    """A deck's paired difference to a baseline deck that met the same deals (`results[i]` and
    `base_results[i]`: their (deals, 2) outcomes against reference deck i): the mean difference of
    their deal scores with a 95 % interval, per group of reference decks (`groups`: name -> indices)
    and over all of them, beside the baseline's own score."""

    def deal_scores(outcomes) -> np.ndarray:
        return (outcomes.astype(np.float64) + 1.0).mean(axis=1) / 2.0

    def row(indices) -> dict:
        d = np.concatenate([deal_scores(results[i]) - deal_scores(base_results[i]) for i in indices])
        half = Z95 * float(d.std(ddof=1)) / np.sqrt(d.size)
        return {"delta": float(d.mean()), "delta_ci95": [float(d.mean() - half), float(d.mean() + half)]}

    base_scores = fit.Score()
    for outcomes in base_results:
        base_scores.add(outcomes)
    return {
        "deck": list(base),
        "overall": {**base_scores.as_dict(), **row(range(len(results)))},
        "groups": {g: row(ix) for g, ix in groups.items()},
    }


def _scores_by_reference(references: list[ReferenceDeck], results: list) -> tuple[list[dict], dict, list[dict]]:
    """Per reference deck (with whether its interval clears 0.5), per group as Scores and as rows."""
    per_ref, groups = [], {}
    for ref, outcomes in zip(references, results):
        s = fit.Score()
        s.add(outcomes)
        groups[ref.group] = groups.get(ref.group, fit.Score()).merge(s)
        d = s.as_dict()
        per_ref.append(
            {
                "name": ref.name,
                "group": ref.group,
                "cards": list(ref.cards),
                **d,
                "lower_above_0.5": d["ci95"][0] > TARGET_EVERY_LOWER,
            }
        )
    group_rows = [
        {"group": g, "decks": sum(1 for r in references if r.group == g), **s.as_dict()} for g, s in groups.items()
    ]
    return per_ref, groups, group_rows


def validation_table(report: dict) -> str:
    lines = [
        f"validation of {counts_text(report['deck'])} (total {sum(report['deck'])}, {len(report['deck'])} cards), "
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
            f"baseline {counts_text(b['deck'])}: {b['overall']['score']:.3f} on the same deals; deck - baseline"
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


def choose_champion(folder, config, agent, pmap, progress: Callable | None = None) -> dict:
    """The playoff of the last generation's top decks and the hall of fame (or, with a yardstick, the
    best on the yardstick: evolution.scoring.yardstick); the champion record."""
    last = folder.read_last_generation()
    gen = last["generation"]
    if config.yardstick:
        refs = load_panel(config.yardstick, config.rules)
        generations = [folder.read_generation(g) for g in range(gen + 1)]
        play = Evaluator(config, agent, pmap).play
        cards, ranked, how = choose_on_yardstick(generations, refs, play, config, progress)
        return {"cards": cards, "generation": gen, "how": how, "yardstick": ranked}
    unique = []
    for d in last["decks"]:  # best first
        if tuple(d["cards"]) not in unique:
            unique.append(tuple(d["cards"]))
    candidates = unique[: max(1, config.playoff_top)]
    # and the hall of fame: the run's best decks of any generation (more candidates, one better look)
    from_hall = list(
        dict.fromkeys(tuple(d["cards"]) for d in folder.read_hall_of_fame() if tuple(d["cards"]) not in candidates)
    )
    candidates += from_hall
    if len(candidates) > 1:
        ranked = playoff(candidates, config, agent, pmap, gen, progress)
        how = (
            f"best of a {config.playoff_games_per_pair}-games-per-pair round robin of generation {gen}'s top "
            f"{len(candidates) - len(from_hall)} and {len(from_hall)} more hall-of-fame decks"
        )
    else:
        ranked = [{"cards": list(candidates[0]), **score_summary(last["decks"][0])}]
        how = f"best of generation {gen}"
    return {
        "cards": ranked[0]["cards"],
        "generation": gen,
        "how": how,
        "playoff": ranked if len(candidates) > 1 else [],
    }


def finish_run(
    folder,
    config,
    agent,
    pmap,
    space,
    log: Callable[[str], None] | None = None,
    progress: Callable | None = None,
) -> dict:
    """Champion (playoff of the last generation's best) and, with `config.validate`, validation."""
    log = log or (lambda line: None)
    champion = choose_champion(folder, config, agent, pmap, progress)
    champ, how = champion["cards"], champion["how"]
    folder.write_champion(champion, space, how)
    log(f"champion: {counts_text(champ)} (total {sum(champ)}, {len(champ)} cards), {how}")
    out = {"champion": champion}
    if config.validate:
        references = load_panel(config.validation_panel, config.rules)
        report = validate(
            champ,
            references,
            agent,
            config.rules,
            pmap,
            config.validation_games,
            config.seed,
            config.games_per_task,
            progress,
            agent_spec=config.agent,
        )
        trained_on = {r.cards for r in load_panel(config.panel, config.rules)} if "panel" in config.opponents else set()
        report["held_out"] = not any(r.cards in trained_on for r in references)
        report["generation"] = champion["generation"]  # which champion it validates (a stale file is redone)
        folder.write_validation(report)
        t = report["targets"]
        anc = next((g for g in report["groups"] if g["group"] == ANCESTOR_GROUP), None)
        log(
            f"validation ({report['games']} games): score {report['overall']['score']:.3f} against all references; "
            f"CI above 0.5 against {t['references_lower_above_0.5']}/{t['references']}"
            + (
                f"; {anc['score']:.3f} [{anc['ci95'][0]:.3f}, {anc['ci95'][1]:.3f}] against the ancestor's decks"
                if anc
                else ""
            )
        )
        out["validation"] = report
    return out
