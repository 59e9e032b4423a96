"""A panel of agents: several agents that share the games of one player, each deal played by one
of them (`agents.make_panel` makes one from a comma list of specs or a named panel, `agents.PANELS`).

Deal d is played, in every game of the deal and every seat the panel holds, by member
(d + offset) mod n, so the deals of a match are split across the members evenly; the offset (a deck
pairing's index, a match's seed) keeps short matches from always starting with the first member.

The named panels and what is known about them live in agents/pretrained/panels.toml (`NAMED_PANELS`):
each one's game and members, and, once measured, its trust figures (exploitability where its verdicts are made,
agreement between its copies, the commands that measured them), which `trust_figures` finds for a spec.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: the named panels' metadata: game, members, recipe, results page, exploitability and agreement
NAMED_PANELS_FILE = Path(__file__).resolve().parent / "pretrained" / "panels.toml"


def load_named_panels(path: Path = NAMED_PANELS_FILE) -> dict[str, dict]:
    """Each named panel's metadata by name, as agents/pretrained/panels.toml holds it."""
    with open(path, "rb") as f:
        return tomllib.load(f)


NAMED_PANELS = load_named_panels()


def named_panel_of(spec: str, member_specs: Sequence[str] = ()) -> str | None:
    """The name of the named panel that `spec` is (its name, or a comma list of exactly its members
    in order, given as `member_specs`), or None."""
    spec = str(spec).strip()
    if spec in NAMED_PANELS:
        return spec
    members_ = tuple(member_specs)
    return next((n for n, p in NAMED_PANELS.items() if members_ and tuple(p["members"]) == members_), None)


def trust_figures(spec: str, member_specs: Sequence[str] = ()) -> dict | None:
    """The trust figures of the named panel that `spec` is (`named_panel_of`): {panel, game, results,
    exploitability: {score, ci95, best_response, where, commands}, agreement: {decks, games_per_deck,
    spearman, spearman_ceiling, worst_difference, worst_deck, noise_difference, commands}}; None for an
    agent or panel with none recorded (a named panel whose trust has not been measured carries none)."""
    name = named_panel_of(spec, member_specs)
    if name is None:
        return None
    p = NAMED_PANELS[name]
    if "exploitability" not in p or "agreement" not in p:
        return None
    return {
        "panel": name,
        "game": p["game"],
        "results": p["results"],
        "exploitability": dict(p["exploitability"]),
        "agreement": dict(p["agreement"]),
    }


@dataclass(frozen=True)
class AgentPanel:
    """Several agents playing as one: deal d played by `agents[member_of_deal(d, offset, n)]`."""

    agents: tuple
    specs: tuple[str, ...]
    name: str = ""  # the spec it was made from, e.g. a named panel

    @property
    def spec(self) -> str:
        return self.name or ",".join(self.specs)


def members(agent) -> tuple:
    """The agents that play for `agent`: a panel's members, or the agent alone."""
    return agent.agents if isinstance(agent, AgentPanel) else (agent,)


def member_of_deal(deal: int, offset: int, n: int) -> int:
    """The index of the member of an n-agent panel that plays deal `deal`."""
    return (deal + offset) % n if n > 1 else 0


def seat_members(roster: Sequence, seat_rows: Sequence[Sequence[int]], deals: Sequence[int], offset: int):
    """(players, rows): the agents of `roster` (agents and panels) flattened into the agents that
    play, and `seat_rows[g]` (roster indices of game g's seats) as indices into them, each panel's
    seats of game g taken by its member for deal `deals[g]`."""
    players, starts = [], []
    for agent in roster:
        starts.append(len(players))
        players += members(agent)
    sizes = [len(members(a)) for a in roster]
    rows = [
        [starts[a] + member_of_deal(d, offset, sizes[a]) for a in row] for row, d in zip(seat_rows, deals, strict=True)
    ]
    return players, rows
