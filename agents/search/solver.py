"""MCTS-Solver (Winands, Björnsson & Saito 2008), the proof rule of both searches (UCT and PUCT):
in a game without hidden information a finished game's returns are exact, and they go up the tree
as proofs. A node is proven when one of its actions is a proven win for the player to move there,
or when every action is proven: then it is worth the best of them for that player (the first of
equals, in the order given)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from games import State

WIN = 1.0  # every game's best return


def has_hidden_information(state: State) -> bool:
    """Whether a search must draw worlds (`resample_hidden`); the solver applies only where not."""
    return type(state).resample_hidden is not State.resample_hidden


def wins(returns: Sequence[float], mover: int) -> bool:
    return returns[mover] >= WIN


def loses(returns: Sequence[float], mover: int) -> bool:
    return returns[mover] <= -WIN


def settle(outcomes: Iterable[Sequence[float] | None], mover: int):
    """The best of the proven `outcomes` for `mover` (the first of equals), or None while one of
    them is unproven (None)."""
    best = None
    for o in outcomes:
        if o is None:
            return None
        if best is None or o[mover] > best[mover]:
            best = o
    return best
