"""A panel of agents: several agents that share the games of one player, each deal played by one
of them (`agents.make_panel` makes one from a comma list of specs or a named panel, `agents.PANELS`).

Deal d is played, in every game of the deal and every seat the panel holds, by member
(d + offset) mod n, so the deals of a match are split across the members evenly; the offset (a deck
pairing's index, a match's seed) keeps short matches from always starting with the first member.

The named panels and what is known about them live in agents/pretrained/panels.toml (`NAMED_PANELS`):
each one's game and members, and, once measured, its trust figures (exploitability where its verdicts are made,
agreement between its copies, the commands that measured them), which `trust_figures` finds for a spec.

A panel file (`PANEL_FILE`, what `deckopt evaluator` writes) is one such panel in a TOML file of its
own, its members' paths relative to the file: its path is an agent spec wherever one is taken
(`is_panel_file`, `read_panel_file`), and its trust figures are found as a named panel's are.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games.errors import UserError
from games.schema import ANYTHING, Int, List, Map, Num, Record, Str, read_checked, read_data

#: the named panels' metadata: game, members, recipe, results page, exploitability and agreement
NAMED_PANELS_FILE = Path(__file__).resolve().parent / "pretrained" / "panels.toml"


#: the trust figures of a panel, as panels.toml and a panel file hold them (the keys every reader uses)
EXPLOITABILITY = Record(
    {
        "score": Num(0.0, 1.0),
        "ci95": List(Num(0.0, 1.0), least=2, most=2),
        "best_response": Str(),
        "where": Str(),
        "commands": List(Str(), most=64),
    }
)
AGREEMENT = Record(
    {
        "decks": Int(1),
        "games_per_deck": Int(1),
        "spearman": List(Num(-1.0, 1.0, nan=True), least=2, most=2),
        "spearman_ceiling": List(Num(-1.0, 1.0, nan=True), least=2, most=2),
        "worst_difference": Num(-1.0, 1.0),
        "worst_deck": Str(),
        "noise_difference": List(Num(0.0, 1.0, nan=True), least=2, most=2),
        "commands": List(Str(), most=64),
    }
)
#: a panel file: its game and members (model paths relative to the file), and once measured its trust
#: figures and whatever else its maker records (strength, cost, the commands of its recipe)
PANEL_FILE = Record(
    {"game": Str(most=200), "members": List(Str(), least=1, most=64)},
    optional={"exploitability": EXPLOITABILITY, "agreement": AGREEMENT, "results": Str(), "recipe": ANYTHING},
)
#: the largest panel file read
MAX_PANEL_FILE_BYTES = 1024 * 1024


@functools.cache
def load_named_panels(path: Path | None = None) -> dict[str, dict]:
    """Each named panel's metadata by name, as agents/pretrained/panels.toml (or `path`) holds it,
    read once when first used; UserError in one line when the file is missing or damaged."""
    path = NAMED_PANELS_FILE if path is None else path
    try:
        return read_checked(path, Map(PANEL_FILE, most=1000), "the named panels' file", MAX_PANEL_FILE_BYTES)
    except UserError as exc:
        raise UserError(f"{exc}; reinstall deckopt to restore it") from None


class _NamedPanels(Mapping):
    """`view` of each named panel by name (`load_named_panels`), read when first looked at, so a
    command that uses no panel runs whatever the file holds."""

    def __init__(self, view: Callable[[dict], Any]):
        self._view = view

    def __getitem__(self, name: str):
        return self._view(load_named_panels()[name])

    def __iter__(self) -> Iterator[str]:
        return iter(load_named_panels())

    def __len__(self) -> int:
        return len(load_named_panels())


#: each named panel's metadata by name: game, members and, once measured, its trust figures
NAMED_PANELS: Mapping[str, dict] = _NamedPanels(lambda panel: panel)
#: each named panel's members (agent specs) by name
PANEL_MEMBERS: Mapping[str, tuple[str, ...]] = _NamedPanels(lambda panel: tuple(panel["members"]))


def named_panels_help(game: str | None = None) -> str:
    """The named panels (those of `game`, when given) as help texts list them, `evaluator (gwent_lite)
    or ...`; the named panels' file by name when it cannot be read (a command using a panel then says
    what is wrong with it in one line)."""
    try:
        panels = load_named_panels()
    except UserError:
        return "a panel named in agents/pretrained/panels.toml"
    return " or ".join(
        name if game else f"{name} ({p['game']})" for name, p in panels.items() if game in (None, p["game"])
    )


def is_panel_file(spec: str) -> bool:
    """Whether the agent spec `spec` names a panel file: an existing .toml file that names `members`
    (a LOCM drafter file, `PATH.toml`, names `scores`)."""
    spec = str(spec).strip()
    if not spec.endswith(".toml") or not Path(spec).is_file():
        return False
    try:
        data = read_data(spec, "panel file", MAX_PANEL_FILE_BYTES)
    except UserError:
        return False
    return isinstance(data, dict) and "members" in data


def read_panel_file(path: str | Path) -> dict:
    """The panel file at `path`, checked against PANEL_FILE, its members as paths from the current folder
    (each relative one taken from the file's folder); UserError in one line if it does not fit."""
    path = Path(str(path).strip())
    panel = read_checked(path, PANEL_FILE, "panel file", MAX_PANEL_FILE_BYTES)
    panel["members"] = [str(m) if Path(m).is_absolute() else str(path.parent / m) for m in panel["members"]]
    return panel


def named_panel_of(spec: str, member_specs: Sequence[str] = ()) -> str | None:
    """The name of the named panel that `spec` is (its name, or a comma list of exactly its members
    in order, given as `member_specs`), or None."""
    spec = str(spec).strip()
    if spec in NAMED_PANELS:
        return spec
    members_ = tuple(member_specs)
    return next((n for n, p in NAMED_PANELS.items() if members_ and tuple(p["members"]) == members_), None)


def trust_figures(spec: str, member_specs: Sequence[str] = ()) -> dict | None:
    """The trust figures of the named panel that `spec` is (`named_panel_of`) or of the panel file it
    names: {panel, game, results, exploitability: {score, ci95, best_response, where, commands},
    agreement: {decks, games_per_deck, spearman, spearman_ceiling, worst_difference, worst_deck,
    noise_difference, commands}}; None for an agent or panel with none recorded (a named panel whose
    trust has not been measured carries none)."""
    if is_panel_file(spec):
        name, p = str(spec).strip(), read_panel_file(spec)
        p.setdefault("results", name)
    else:
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
