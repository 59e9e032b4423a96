"""The swap advisor: which single-card change most improves a deck against a field of decks, and
what each of its cards contributes. The games are played by a deck space's `play` callable
(evolution.scoring.yardstick.Play), the changes come from a neighbourhood
(evolution.designer.neighbourhoods: `PowerNeighbourhood` for Gwent Lite decks, `CardNeighbourhood`
for decks of a card pool).

Measuring: the deck and every candidate play every field deck on the *same* deals (the same seed
keys, so the same shuffles and leads), and a candidate is judged by its deal-by-deal difference to
the deck. One changed card leaves most deals' outcomes as they were, so the paired difference has
a far smaller spread than either score: the same games buy a much tighter interval. The games come
in `rounds` rounds; after each, the racing rule (evolution.scoring.racing.decide, kept=1) stops the
candidates whose difference is clearly not the best or clearly is, so the games go to the
candidates still in doubt. The top candidate's estimate is biased upwards (the maximum of many
noisy estimates): `remeasure` plays the deck and a change again on fresh seeds to confirm it.

Contribution of a card: the deck's score minus its score without one card of it (the
neighbourhood's `without`), measured on the same deals.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from agents.stats import Z95
from evolution.individuals import score_interval
from evolution.scoring import fitness as fit
from evolution.scoring.racing import decide, mean_se
from evolution.scoring.yardstick import Play
from games.errors import UserError

STAGE_ADVISE = 11  # seed-key stages (evolution uses 0..4, matchups 10)
STAGE_REMEASURE = 12


@dataclass
class AdviceConfig:
    """Hyperparameters of the advisor (one place)."""

    games: int = 160  # most mirrored games a candidate plays against each field deck
    rounds: int = 8  # racing rounds the games come in (games / 2 deals split evenly)
    step: int | None = None  # largest change of a card's power (see the neighbourhood); None: any
    z: float = 2.0  # a candidate stops when its difference +- z standard errors settles its rank
    kept: int = 1  # race for the best `kept` changes
    contribution_games: int = 40  # mirrored games per field deck for each card's contribution (0: none)
    top: int = 10  # suggestions shown
    games_per_task: int = 200


# ------------------------------------------------------------------------------------------------
# Playing on shared deals


class _FieldPlayer:
    """Plays decks against the field on round r's deals: the same seed keys for every deck, so
    their deal scores pair up deal by deal."""

    def __init__(self, field, play: Play, seed, deals_per_round, stage, progress):
        self.field = [tuple(f) for f in field]
        self.play, self.seed, self.deals, self.stage, self.progress = play, seed, deals_per_round, stage, progress

    def round(self, decks: list[tuple[int, ...]], r: int, what: str) -> list[np.ndarray]:
        """Each deck's deal scores in round r, field deck by field deck, deal by deal."""
        pairings = [
            fit.Pairing(d, f, (self.seed, self.stage, r, k), self.deals)
            for d in decks
            for k, f in enumerate(self.field)
        ]
        results = self.play(pairings, (self.seed, self.stage, r), self.progress, what)
        per = len(self.field)
        return [
            np.concatenate([(o.astype(np.float64) + 1.0).mean(axis=1) / 2.0 for o in results[i * per : (i + 1) * per]])
            for i in range(len(decks))
        ]


def diff_summary(deck_scores: np.ndarray, base_scores: np.ndarray) -> dict:
    """A deck's score and its paired difference to the base, each with a 95 % interval."""
    d = np.asarray(deck_scores, float) - np.asarray(base_scores, float)
    n = d.size
    half = Z95 * float(d.std(ddof=1)) / np.sqrt(n) if n > 1 else float("inf")
    lo, hi = score_interval(deck_scores)
    return {
        "score": float(np.mean(deck_scores)),
        "ci95": [float(lo), float(hi)],
        "delta": float(d.mean()),
        "delta_ci95": [float(d.mean() - half), float(d.mean() + half)],
        "games": 2 * n,
    }


def advise(
    cards,
    field: list[tuple[int, ...]],
    neighbourhood,
    play: Play,
    seed: int,
    config: AdviceConfig | None = None,
    progress: Callable | None = None,
) -> dict:
    """The deck's single-card changes (`neighbourhood`: PowerNeighbourhood, CardNeighbourhood) raced
    against `field`, every game played by `play` (a deck space's matches); returns {"deck",
    "deck_text", "base", "config", "candidates" (every candidate, best difference first),
    "contributions"}."""
    config = config or AdviceConfig()
    cards = neighbourhood.check(cards)
    deals = config.games // 2
    if deals < config.rounds or deals % config.rounds:
        raise ValueError(f"games / 2 ({deals}) must split into {config.rounds} equal rounds")
    player = _FieldPlayer(field, play, seed, deals // config.rounds, STAGE_ADVISE, progress)
    changes = neighbourhood.changes(cards, config.step)
    if not changes:
        raise UserError("no single-card change keeps the deck's rules and constraints: nothing to advise")
    base: list[np.ndarray] = []
    diffs: list[list[np.ndarray]] = [[] for _ in changes]
    own: list[list[np.ndarray]] = [[] for _ in changes]
    active = np.ones(len(changes), bool)
    stopped = np.full(len(changes), config.rounds)
    for r in range(config.rounds):
        idx = np.flatnonzero(active)
        scores = player.round([cards] + [changes[i].cards for i in idx], r, f"advise round {r + 1}/{config.rounds}")
        base.append(scores[0])
        for i, s in zip(idx, scores[1:]):
            own[i].append(s)
            diffs[i].append(s - scores[0])
        if r + 1 < config.rounds and active.any():
            ms = [mean_se(np.concatenate(d)) for d in diffs]
            still = decide(np.array([x for x, _ in ms]), np.array([x for _, x in ms]), config.kept, config.z)
            stopped[active & ~still] = r + 1
            active &= still
            if not active.any():
                break
    rounds_played = len(base)
    entries = []
    for i, ch in enumerate(changes):
        played = len(own[i])
        e = diff_summary(np.concatenate(own[i]), np.concatenate(base[:played]))
        entries.append(
            {
                "change": ch.describe(),
                "kind": ch.kind,
                "cards": list(ch.cards),
                "deck_text": neighbourhood.short_text(ch.cards),
                **e,
                "rounds": played,
            }
        )
    entries.sort(key=lambda e: -e["delta"])
    base_all = np.concatenate(base)
    lo, hi = score_interval(base_all)
    out = {
        "deck": list(cards),
        "deck_text": neighbourhood.text(cards),
        "field_decks": len(field),
        "seed": seed,
        "config": asdict(config),
        "base": {"score": float(base_all.mean()), "ci95": [float(lo), float(hi)], "games": 2 * base_all.size},
        "candidates": entries,
        "rounds_played": rounds_played,
        "contribution_key": neighbourhood.key,
        "contributions": contributions(cards, field, neighbourhood, play, seed, config, progress),
    }
    return out


def contributions(cards, field, neighbourhood, play: Play, seed, config: AdviceConfig, progress=None) -> list[dict]:
    """Per distinct card (`neighbourhood.key`: its power or its name): the deck's score minus its
    score without one copy of it (`neighbourhood.without`), paired on the same deals,
    `config.contribution_games` per field deck; `contribution` None where no such deck exists."""
    deals = config.contribution_games // 2
    if deals < 1:
        return []
    key = neighbourhood.key
    variants = neighbourhood.without(cards)
    played = [(label, copies, v) for label, copies, v in variants if v is not None]
    player = _FieldPlayer(field, play, seed, deals, STAGE_ADVISE, progress)  # round index past the race's
    scores = player.round([tuple(cards)] + [v for _, _, v in played], config.rounds, "card contributions")
    out = []
    for (label, copies, v), s in zip(played, scores[1:]):
        e = diff_summary(scores[0], s)  # base minus the deck without the card
        out.append(
            {
                key: label,
                "copies": copies,
                "without": list(v),
                "contribution": e["delta"],
                "ci95": e["delta_ci95"],
                "score_with": float(np.mean(scores[0])),
                "score_without": float(np.mean(s)),
                "games": e["games"],
            }
        )
    out += [
        {key: label, "copies": copies, "without": None, "contribution": None}
        for label, copies, v in variants
        if v is None
    ]
    order = [label for label, _, _ in variants]
    return sorted(out, key=lambda e: order.index(e[key]))


def remeasure(cards, changed, field, play: Play, seed: int, games: int, progress=None) -> dict:
    """The deck and a changed deck against `field` again, `games` mirrored games per field deck on
    deals of their own (stage STAGE_REMEASURE): the changed deck's paired difference with its 95 %
    interval, and whether the improvement clears it (interval above 0)."""
    player = _FieldPlayer(field, play, seed, games // 2, STAGE_REMEASURE, progress)
    base, new = player.round([tuple(cards), tuple(changed)], 0, "re-measure")
    e = diff_summary(new, base)
    lo, hi = score_interval(base)
    return {
        "seed": seed,
        "games_per_field_deck": 2 * (games // 2),
        "base": {"score": float(base.mean()), "ci95": [float(lo), float(hi)]},
        **e,
        "improvement_clears_ci": e["delta_ci95"][0] > 0.0,
    }


def advice_table(advice: dict, top: int = 10) -> str:
    """The top suggestions and the card contributions, as text."""

    b = advice["base"]
    lines = [
        f"deck {advice['deck_text']}: "
        f"score {b['score']:.3f} [{b['ci95'][0]:.3f}, {b['ci95'][1]:.3f}] against {advice['field_decks']} field decks "
        f"({b['games']} games)",
        f"{len(advice['candidates'])} single-card changes raced over {advice['rounds_played']} rounds; "
        f"the top {min(top, len(advice['candidates']))} by score difference (paired on the same deals):",
    ]
    rows = [("rank", "change", "delta [95% CI]", "score [95% CI]", "games")]
    for k, e in enumerate(advice["candidates"][:top], 1):
        d, s = e["delta_ci95"], e["ci95"]
        rows.append(
            (
                str(k),
                e["change"],
                f"{e['delta']:+.3f} [{d[0]:+.3f}, {d[1]:+.3f}]",
                f"{e['score']:.3f} [{s[0]:.3f}, {s[1]:.3f}]",
                str(e["games"]),
            )
        )
    lines += _columns(rows)
    if advice["candidates"]:
        best = advice["candidates"][0]
        verdict = (
            "its interval is above 0 (the best of many estimates is biased upwards: --check re-measures it)"
            if best["delta_ci95"][0] > 0
            else "not clearly better (its interval reaches 0)"
        )
        lines.append(f"top change: {best['change']} -> {best['deck_text']}: {verdict}")
    contrib = advice.get("contributions") or []
    if contrib:
        key = advice["contribution_key"]
        of = "one card of the power" if key == "power" else "one copy of the card"
        floor = "at the floor: nothing to take away" if key == "power" else "no legal deck without it"
        lines.append(f"card contributions (score of the deck minus its score without {of}):")
        rows = [(key, "copies", "contribution [95% CI]", "score with / without it")]
        for c in contrib:
            if c["contribution"] is None:
                rows.append((str(c[key]), str(c["copies"]), f"- ({floor})", ""))
            else:
                lo, hi = c["ci95"]
                rows.append(
                    (
                        str(c[key]),
                        str(c["copies"]),
                        f"{c['contribution']:+.3f} [{lo:+.3f}, {hi:+.3f}]",
                        f"{c['score_with']:.3f} / {c['score_without']:.3f} over {c['games']} games",
                    )
                )
        lines += _columns(rows)
    return "\n".join(lines)


def _columns(rows) -> list[str]:
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
