"""`deckopt play GAME [--vs SPEC] [--seat N] [--seed S]`: a person plays in the terminal."""

from __future__ import annotations

import argparse
import sys

import agents
from agents.panel import member_of_deal, members
from deckopt.commands._common import GAME_HELP, PANEL_HELP, game_config_args, make_game, seed_int
from games import UserError
from games.schema import shown


def register(sub) -> None:
    p = sub.add_parser(
        "play",
        help="play a game in the terminal against an agent",
        description="Play against an agent in the terminal. The legal moves are listed at each turn; type a "
        "move's number (or the start of its name). Ctrl-D or 'q' quits.",
    )
    p.add_argument("game", help=GAME_HELP)
    p.add_argument(
        "--vs", default="heuristic", metavar="SPEC", help=f"the opponent(s) (default: heuristic); {PANEL_HELP}"
    )
    p.add_argument("--seat", type=int, default=0, help="your seat, from 0 (default 0: you move first)")
    p.add_argument(
        "--seed", type=seed_int, default=None, help="seed of the game's chance and the agent (default: random)"
    )
    game_config_args(p)
    p.set_defaults(func=run)


def _wrapped(head: str, items: list[str], width: int = 100) -> str:
    """`head` then the items three spaces apart, wrapped between items (never inside one)."""
    rows, row = [], []
    for item in items:
        if row and len(head) + len("   ".join(row + [item])) > width:
            rows.append(row)
            row = []
        row.append(item)
    rows.append(row)
    pad = " " * len(head)
    return "\n".join((pad if i else head) + "   ".join(r) for i, r in enumerate(rows))


#: the most digits of a move's number (a longer line is no move, and never read as a number)
MAX_MOVE_DIGITS = 9


def _read_action(state, game, prompt_in, out) -> int | None:
    """Ask until the person types a legal move (its number, or its name or the start of it);
    None if they quit (q, or end of input)."""
    legal = state.legal_actions()
    name_of = getattr(state, "action_name", game.action_name)  # a state may name moves by role (Durak)
    names = {a: name_of(a) for a in legal}
    print(_wrapped("your moves: ", [f"[{a}] {names[a]}" for a in legal]), file=out)
    while True:
        print("your move> ", end="", file=out, flush=True)
        try:
            line = prompt_in.readline()
        except KeyboardInterrupt:
            print(file=out)  # Ctrl-C: the command line reports it on a fresh line
            raise
        if not line:
            print(file=out)  # end of input (Ctrl-D): leave the terminal on a fresh line
            return None
        text = " ".join(line.lower().split())
        if text in ("q", "quit", "exit"):
            return None
        if text.isdigit() and len(text) <= MAX_MOVE_DIGITS and int(text) in names:
            return int(text)
        exact = [a for a, name in names.items() if name.lower() == text]
        matches = exact or [a for a, name in names.items() if text and name.lower().startswith(text)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            print(f"{shown(line.strip())} could be {', '.join(names[a] for a in matches)}: type more of it", file=out)
        else:
            print(f"{shown(line.strip())} is not a legal move here: type a move's number or name (q quits)", file=out)


def run(args: argparse.Namespace, prompt_in=None, out=None) -> int:
    import numpy as np

    prompt_in = prompt_in or sys.stdin
    out = out or sys.stdout
    if prompt_in is None:  # standard input closed (`<&-`)
        raise UserError("play reads your moves from standard input, which is closed; run it in a terminal")
    game = make_game(args)
    if not 0 <= args.seat < game.num_players:
        raise UserError(f"--seat must be between 0 and {game.num_players - 1} for {args.game}")
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % (2**31))
    panel = agents.make_panel(args.vs, game, seed=[seed, 1])
    opponent = members(panel)[member_of_deal(0, seed, len(members(panel)))]  # one game: one deal
    state = game.new_initial_state(np.random.default_rng(seed))
    others = ", ".join(str(p) for p in range(game.num_players) if p != args.seat)
    print(
        f"{args.game} (seed {seed}): you are player {args.seat}; "
        f"player{'s' if game.num_players > 2 else ''} {others}: {args.vs}. q or Ctrl-D quits.",
        file=out,
    )
    while not state.is_terminal():
        if state.current_player == args.seat:
            print("\n" + state.view(args.seat), file=out)
            action = _read_action(state, game, prompt_in, out)
            if action is None:
                print("game abandoned", file=out)
                return 0
        else:
            action = int(opponent.act([state])[0])
        before = state.clone()
        state.apply_action(action)
        news = state.describe_move(before, action, args.seat)  # "" for a secret choice
        if news:
            print(news, file=out, flush=True)
    print("\n" + state.view(args.seat), file=out)
    r = state.returns()
    firsts = int((r == r.max()).sum())
    if r[args.seat] < r.max():
        verdict = "you lose"
    else:
        verdict = "you win" if firsts == 1 else "a draw" if firsts == len(r) else "you share first place"
    print(f"game over: {verdict} (returns {r.tolist()})", file=out)
    return 0
