"""`deckopt play GAME [--vs SPEC] [--seat N] [--seed S]`: a person plays in the terminal."""
from __future__ import annotations

import argparse
import sys

from deckopt.commands._common import game_config_args, make_game


def register(sub) -> None:
    p = sub.add_parser(
        "play",
        help="play a game in the terminal against an agent",
        description="Play against an agent in the terminal. The legal moves are listed at each turn; type a "
        "move's number (or the start of its name). Ctrl-D or 'q' quits.",
    )
    p.add_argument("game", help="tic_tac_toe, connect_four, incan_gold or gwent_lite")
    p.add_argument("--vs", default="heuristic", metavar="SPEC", help="the opponent(s) (default: heuristic)")
    p.add_argument("--seat", type=int, default=0, help="your seat, from 0 (default 0: you move first)")
    p.add_argument("--seed", type=int, default=None, help="seed of the game's chance and the agent (default: random)")
    game_config_args(p)
    p.set_defaults(func=run)


def _read_action(state, game, prompt_in, out) -> int | None:
    """Ask until the person types a legal move; None if they quit."""
    legal = state.legal_actions()
    names = {a: game.action_name(a) for a in legal}
    print("your moves: " + ";  ".join(f"[{a}] {names[a]}" for a in legal), file=out)
    while True:
        print("your move> ", end="", file=out, flush=True)
        line = prompt_in.readline()
        if not line:
            return None
        text = line.strip().lower()
        if text in ("q", "quit", "exit"):
            return None
        if text.lstrip("-").isdigit() and int(text) in names:
            return int(text)
        matches = [a for a, name in names.items() if text and name.lower().startswith(text)]
        if len(matches) == 1:
            return matches[0]
        print(f"'{line.strip()}' is not a legal move here; type one of: {', '.join(map(str, legal))}", file=out)


def run(args: argparse.Namespace, prompt_in=None, out=None) -> int:
    import numpy as np

    import agents
    from games import UserError

    prompt_in = prompt_in or sys.stdin
    out = out or sys.stdout
    game = make_game(args)
    if not 0 <= args.seat < game.num_players:
        raise UserError(f"--seat must be between 0 and {game.num_players - 1} for {args.game}")
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % (2**31))
    opponent = agents.make(args.vs, game, seed=[seed, 1])
    state = game.new_initial_state(np.random.default_rng(seed))
    print(f"{args.game} (seed {seed}): you are player {args.seat}; opponents: {args.vs}", file=out)
    while not state.is_terminal():
        player = state.current_player
        if player == args.seat:
            print("\n" + state.view(args.seat), file=out)
            action = _read_action(state, game, prompt_in, out)
            if action is None:
                print("\ngame abandoned", file=out)
                return 0
        else:
            action = int(opponent.act([state])[0])
            if game.name != "incan_gold":  # Incan Gold choices are secret until revealed together
                print(f"player {player} ({args.vs}) plays {game.action_name(action)}", file=out)
        state.apply_action(action)
    print("\n" + str(state), file=out)
    r = state.returns()
    verdict = "you win" if r[args.seat] == r.max() and (r == r.max()).sum() == 1 else (
        "you share first place" if r[args.seat] == r.max() else "you lose")
    print(f"game over: {verdict} (returns {r.tolist()})", file=out)
    return 0
