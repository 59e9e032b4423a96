"""A panel of agents: several agents that share the games of one player, each deal played by one
of them (`agents.make_panel` makes one from a comma list of specs or a named panel, `agents.PANELS`).

Deal d is played, in every game of the deal and every seat the panel holds, by member
(d + offset) mod n, so the deals of a match are split across the members evenly; the offset (a deck
pairing's index, a match's seed) keeps short matches from always starting with the first member.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


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
