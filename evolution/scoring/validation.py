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
from evolution.scoring.panel import ReferenceDeck
from evolution.scoring.yardstick import choose_on_yardstick

ANCESTOR_GROUP = "ancestor"
TARGET_EVERY_LOWER = 0.5
TARGET_ANCESTOR = 0.55


def playoff(
    candidates: list[tuple[int, ...]], config, agent, deal, pmap, gen: int, progress: Callable | None = None
) -> list[dict]:
    """Round robin between candidate decks (`playoff_games_per_pair` games per pair); entries sorted
    best first (ties keep the given order)."""
    games = config.settings.playoff_games_per_pair
    scores = fit.round_robin_scores(
        candidates, agent, deal, pmap, config, games, fit.STAGE_PLAYOFF, gen, progress, "playoff"
    )
    entries = [{"cards": list(c), **s.as_dict()} for c, s in zip(candidates, scores)]
    order = np.argsort([-e["score"] for e in entries], kind="stable")
    return [entries[i] for i in order]


def validate(
    cards,
    references: list[ReferenceDeck],
    agent,
    deal,
    pmap,
    games: int,
    seed: int,
    games_per_task: int = 200,
    progress: Callable | None = None,
    agent_spec: str = "?",
    baseline=None,
) -> dict:
    """The deck `cards` (in its space's canonical form) against every reference deck, `games` mirrored
    games each. With `baseline`
    (another deck's cards), the baseline plays the same deals too and the report adds the paired
    difference, deck minus baseline, per group and over all references (`baseline` key)."""
    cards = tuple(cards)
    results = _against_references(cards, references, agent, deal, pmap, games, seed, games_per_task, progress)
    per_ref, groups, group_rows = _scores_by_reference(references, results)
    total = fit.Score()
    for s in groups.values():
        total = total.merge(s)
    ancestor = groups.get(ANCESTOR_GROUP)
    paired = {}
    if baseline is not None:
        paired["baseline"] = _paired(
            baseline, results, references, agent, deal, pmap, games, seed, games_per_task, progress
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


def _against_references(cards, references, agent, deal, pmap, games, seed, games_per_task, progress) -> list:
    """The (deals, 2) outcomes of `cards` against each reference deck; the deals depend on the seed and
    the reference's place only, so two decks validated with one seed meet the same deals."""
    pairings, _ = fit.against([cards], [r.cards for r in references], games // 2, seed, fit.STAGE_VALIDATE, 0)
    key = (seed, fit.STAGE_VALIDATE, 0)
    return fit.play_pairings(pairings, agent, deal, pmap, games_per_task, key, progress=progress, what="validation")


def _paired(baseline, results, references, agent, deal, pmap, games, seed, games_per_task, progress) -> dict:
    """The baseline deck on the same deals, and the deck's paired difference to it per group and overall."""
    base = tuple(baseline)
    base_results = _against_references(base, references, agent, deal, pmap, games, seed, games_per_task, progress)
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


def choose_champion(folder, config, agent, deal, pmap, yardstick: list, progress: Callable | None = None) -> dict:
    """The playoff of the last generation's top decks and the hall of fame (or, with `yardstick`
    decks, the best on the yardstick: evolution.scoring.yardstick); the champion record."""
    last = folder.read_last_generation()
    gen = last["generation"]
    if yardstick:
        generations = [folder.read_generation(g) for g in range(gen + 1)]

        def play(pairings, prefix, progress, what):
            return fit.play_pairings(pairings, agent, deal, pmap, config.games_per_task, prefix, progress, what)

        cards, ranked, how = choose_on_yardstick(generations, yardstick, play, config, progress)
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
        ranked = playoff(candidates, config, agent, deal, pmap, gen, progress)
        how = (
            f"best of a {config.settings.playoff_games_per_pair}-games-per-pair round robin of generation {gen}'s top "
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
