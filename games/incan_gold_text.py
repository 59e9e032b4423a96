"""Incan Gold in words: the position as a viewer sees it and what a decision step did (for
`deckopt play` and `str(state)`). Reads the state's fields; changes nothing. The rules are in
games/incan_gold.py (games/RULES.md §4)."""

from __future__ import annotations

from games.incan_gold import ARTIFACT, HAZARD_KINDS, LEAVE, STAY, IncanGoldState, card_of


def _s(count: int) -> str:
    """The plural ending for `count` things."""
    return "" if count == 1 else "s"


def render(state: IncanGoldState, viewer: int | None) -> str:
    """The position as `viewer` sees it (None: everything, pending choices included)."""

    def name(p: int) -> str:
        return "you" if p == viewer else f"player {p}"

    lines = []
    # str() recalls how the last round ended while the next one is at its first card; in a
    # view the player has just been told (see describe_move)
    if viewer is None and state._last_end is not None and (state._terminal or len(state._path) == 1):
        r, hazard, lost, path = state._last_end
        was = ", ".join(str(card_of(c)) for c in path)
        if hazard is None:
            lines.append(f"round {r} ended: everyone left (path: {was})")
        else:
            who = ", ".join(f"player {p} lost {g}" for p, g in enumerate(lost) if g)
            lines.append(
                f"round {r} ended: a second {HAZARD_KINDS[hazard]} (path: {was})" + (f"; {who}" if who else "")
            )
    if state._terminal:
        lines.append(f"game over after {state._round} rounds")
    else:
        lines.append(
            f"round {state._round} of {state.game.num_rounds}: {len(state._deck)} cards in the deck, "
            f"{state.repeat_hazard_chance:.0%} chance the next one is a second hazard"
        )
        lines.append("path: " + (", ".join(str(card_of(c)) for c in state._path) or "-"))
        extra = f"gems left on the path: {state._path_gems}"
        if state._path_artifacts:
            extra += (
                f"; {state._path_artifacts} artifact{_s(state._path_artifacts)} worth {state.artifact_worth} "
                "to a lone leaver"
            )
        hazards = state.hazards_on_path
        extra += "; hazards: " + (", ".join(hazards) if hazards else "none")
        lines.append(extra)
    width = max(len(name(p)) for p in range(state._n))
    lines.append(f"{'':{width}}  tent  round gems")
    for p in range(state._n):
        row = f"{name(p):{width}}  {state._banked[p]:4d}  {state._round_gems[p]:10d}"
        if not state._terminal:
            row += "  in the temple" if state._in_temple[p] else "  out (left)"
        choice = state._pending[p]
        if choice != -1:
            shown = viewer is None or p == viewer
            row += f", chose {'stay' if choice == STAY else 'leave'}" if shown else ", has chosen"
        if state._artifacts_claimed[p]:
            row += f"  ({state._artifacts_claimed[p]} artifact{_s(state._artifacts_claimed[p])} in the tent)"
        if state._terminal:
            row += f"  return {state._returns[p]:+g}"
        lines.append(row)
    if not state._terminal and viewer is None:
        lines.append(f"player {state._player} to choose: 0 leave, 1 stay")
    return "\n".join(lines)


def describe_last_step(state: IncanGoldState, viewer: int | None = None) -> str:
    """The last resolved step in words: the choices revealed, who left with what, the card
    turned and, when the round ended, a summary of the tents."""
    step = state.last_step
    if step is None:
        return ""

    def name(p: int) -> str:
        return "you" if p == viewer else f"player {p}"

    def verb(p: int, choice: int) -> str:
        word = "stay" if choice == STAY else "leave"
        return word if p == viewer else word + "s"

    lines = ["revealed: " + ", ".join(f"{name(p)} {verb(p, c)}" for p, c in enumerate(step.choices) if c is not None)]
    leavers = [p for p, c in enumerate(step.choices) if c == LEAVE]
    for p in leavers:
        carried = step.left_with[p] - step.path_share - step.artifact_gems[p]
        parts = [f"{carried} from this round"]
        if step.path_share:
            parts.append(f"{step.path_share} from the path")
        if step.artifacts[p]:
            parts.append(f"{step.artifacts[p]} artifact{_s(step.artifacts[p])} worth {step.artifact_gems[p]}")
        lines.append(
            f"{name(p)} left with {step.left_with[p]} gem{_s(step.left_with[p])} ({' + '.join(parts)}); "
            f"tent now {state._banked[p]}"
        )
    if step.turned is not None:
        lines.append(_turned_card_line(state, step, name))
    elif step.round_over:
        lines.append(f"everyone has left: round {step.round} ends")
    if step.round_over:
        end = state._last_end
        lost_artifacts = sum(1 for c in end[3] if c == ARTIFACT) if end is not None else 0
        if lost_artifacts:
            lines.append(
                f"{lost_artifacts} artifact{' was' if lost_artifacts == 1 else 's were'} left on the path: lost"
            )
        tents = ", ".join(f"{name(p)} {g}" for p, g in enumerate(state._banked))
        lines.append(f"== after round {step.round} of {state.game.num_rounds}, tents: {tents}")
    return "\n".join(lines)


def _turned_card_line(state: IncanGoldState, step, name) -> str:
    """What the card turned after `step` did, `name(p)` naming the players."""
    card = step.turned
    if card.kind == "hazard" and step.round_over:
        who = ", ".join(f"{name(p)} lost {g} gem{_s(g)}" for p, g in enumerate(step.lost) if g)
        return f"next card: {card.value}, the second one: round {step.round} ends; " + (
            who if who else "nobody in the temple had gems to lose"
        )
    if card.kind == "hazard":
        return f"next card: {card.value} (a second {card.value} would end the round)"
    if card.kind == "artifact":
        return "next card: an artifact (only a player leaving alone takes it)"
    k = state._num_in
    rest = card.value - card.value // k * k
    shared = (
        f"all for {name(state._in_temple.index(True))}"
        if k == 1
        else f"{card.value // k} each for the {k} in the temple"
    )
    return f"next card: {card}: {shared}" + (f", {rest} left on the path" if rest else "")
