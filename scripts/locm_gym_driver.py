"""Plays seeded LOCM 1.2 games in gym-locm and writes each one as a JSON line: its chance (the draft's
offers, each deck's shuffle as places in pick order) and, after every action, the action in
games/locm.py's numbering and the state in the record form of games/locm_trace.py.

Runs under the oracle's own environment (`make oracle`: Python 3.12 and gym-locm 2.0.0b1), never
under deckopt's; imports nothing of deckopt. gym-locm's `State.clone()` is not used.

    .venv-oracle/bin/python scripts/locm_gym_driver.py --games 10 --seed 0 --battler random

Battlers: `random` (a uniform choice among gym-locm's available actions, from this script's seeded
generator: gym-locm's RandomBattleAgent ignores its seed), `passive` (passes three times in four,
else as `random`: long games that run out of cards and fill their hands), `max-attack` and `greedy`
(gym-locm's MaxAttackBattleAgent and GreedyBattleAgent). The draft's picks are uniform from the same
generator. `--time` only times such games; `--chance` only writes each game's chance (offers,
shuffles, the uniform picks), so that another engine can play the very same games.

With `--agent draft:NAME` or `--agent battle:NAME` it records instead the choices of one of
gym-locm's own agents: a drafter (max-attack, rule-based, icebox, closet-ai, uji1, uji2, coac,
chad; one per seat; uji2 draws from Python's `random` module, seeded with the game's seed) picks
every card of the draft, or a battler (max-attack, rule-based, greedy) plays both seats of the
battle after a uniform draft. Each game is one JSON line: its chance and every action played, in
order (the draft's 60 picks, then for a battler the battle's actions); the agent's are those of
its phase. With `--random-play` a battler only watches: the battle is played by uniform actions
and the battler's choice in each of its states is recorded beside the action played.

    .venv-oracle/bin/python scripts/locm_gym_driver.py --games 5 --seed 0 --agent draft:coac

With `--drafter-file FILE.toml --against NAME --seat P` it plays matches instead: the drafter file's
drafter (the offered card with the highest score, the first offered on ties; one list of 160 scores,
or one per seat) drafts for seat P and gym-locm's drafter NAME for the other, and gym-locm's battler
`--battler` (max-attack or greedy) plays both seats. Each game is one JSON line: its chance, both
seats' picks and the winner.

    .venv-oracle/bin/python scripts/locm_gym_driver.py --games 5 --seed 0 --drafter-file d.toml --against coac

With `--native CMD` (once: both seats; twice: seat 0's, then seat 1's) bots speaking the competition
referee's protocol play whole games in gym-locm's host (`gym_locm.agents.NativeAgent`, a process per
seat and game): a command the referee would cancel (not among gym-locm's available actions, which
would raise) is skipped, as the referee skips it. Each game is one JSON line: its chance, every
action played in order, the commands skipped and the winner.

    .venv-oracle/bin/python scripts/locm_gym_driver.py --games 5 --seed 0 --native "python3 bot.py"
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import tomllib

import numpy as np
from gym_locm.agents import (
    ChadDraftAgent,
    ClosetAIDraftAgent,
    CoacDraftAgent,
    GreedyBattleAgent,
    IceboxDraftAgent,
    MaxAttackBattleAgent,
    MaxAttackDraftAgent,
    NativeAgent,
    RuleBasedBattleAgent,
    RuleBasedDraftAgent,
    UJI1DraftAgent,
    UJI2DraftAgent,
)
from gym_locm.engine import Action, Card, State
from gym_locm.engine.enums import ActionType, Phase

KEYWORDS = "BCDGLW"
DRAFTERS = {
    "max-attack": MaxAttackDraftAgent,
    "rule-based": RuleBasedDraftAgent,
    "icebox": IceboxDraftAgent,
    "closet-ai": ClosetAIDraftAgent,
    "uji1": UJI1DraftAgent,
    "uji2": UJI2DraftAgent,
    "coac": CoacDraftAgent,
    "chad": ChadDraftAgent,
}
BATTLERS = {"max-attack": MaxAttackBattleAgent, "rule-based": RuleBasedBattleAgent, "greedy": GreedyBattleAgent}
PLAYING_BATTLERS = ("max-attack", "greedy")
PICK, USE, ATTACK = 145, 17, 121


def instance_of(x):
    return x.instance_id if isinstance(x, Card) else x


def place_in(cards, instance):
    for i, card in enumerate(cards):
        if card.instance_id == instance:
            return i
    return None


def action_index(state: State, action: Action) -> int:
    """gym-locm's action as a number of games/locm.py (RULES.md §9.7)."""
    kind = action.type
    if kind == ActionType.PASS:
        return 0
    if kind == ActionType.PICK:
        return PICK + int(action.origin or 0)
    me, foe = state.current_player, state.opposing_player
    origin, target = instance_of(action.origin), instance_of(action.target)
    if kind == ActionType.SUMMON:
        return 1 + 2 * place_in(me.hand, origin) + int(action.target)
    if kind == ActionType.USE:
        h = place_in(me.hand, origin)
        if target is None:
            return USE + 13 * h
        for lane in (0, 1):
            i = place_in(me.lanes[lane], target)
            if i is not None:
                return USE + 13 * h + 1 + 3 * lane + i
            i = place_in(foe.lanes[lane], target)
            if i is not None:
                return USE + 13 * h + 7 + 3 * lane + i
        raise ValueError(f"no target {target}")
    for lane in (0, 1):
        i = place_in(me.lanes[lane], origin)
        if i is not None:
            t = 0 if target is None else 1 + place_in(foe.lanes[lane], target)
            return ATTACK + 4 * (3 * lane + i) + t
    raise ValueError(f"cannot number {action}")


def keyword_letters(card) -> str:
    return "".join(k if card.has_ability(k) else "-" for k in KEYWORDS)


def player_record(state: State, p: int, picks: list[int]) -> list:
    player = state.players[p]
    if state.phase == Phase.DRAFT:
        return [list(picks)]
    lanes = [
        [[c.instance_id, c.id, c.attack, c.defense, keyword_letters(c), bool(c.able_to_attack())] for c in lane]
        for lane in player.lanes
    ]
    return [
        player.health,
        player.mana,
        player.base_mana,
        player.bonus_mana,
        player.next_rune,
        player.bonus_draw,
        [[c.instance_id, c.id] for c in player.hand],
        [[c.instance_id, c.id] for c in reversed(player.deck)],
        lanes,
    ]


def state_record(state: State, picks: list[list[int]]) -> list:
    """[phase, player to move (-1 at the end), turn, winner, player 0, player 1, legal actions]."""
    if state.phase == Phase.ENDED:
        return [
            "ended",
            -1,
            state.battle_phase.turn,
            int(state.winner),
            *(player_record(state, p, []) for p in (0, 1)),
            [],
        ]
    phase = "draft" if state.phase == Phase.DRAFT else "battle"
    legal = sorted(action_index(state, a) for a in state.available_actions)
    turn = len(picks[1]) + 1 if phase == "draft" else state.battle_phase.turn
    players = [player_record(state, p, picks[p]) for p in (0, 1)]
    return [phase, int(state._current_player), turn, None, *players, legal]


def shuffles_of(state: State, picks: list[list[int]]) -> list[list[int]]:
    """Each deck's order after the shuffle as places in pick order: instance 2k + 1 + p is seat p's
    k-th card (gym-locm numbers the shuffled decks so)."""
    out = []
    for p, player in enumerate(state.players):
        cards = sorted(player.hand + player.deck, key=lambda c: c.instance_id)
        unused = list(range(len(picks[p])))
        order = []
        for card in cards:
            j = next(j for j in unused if picks[p][j] == card.id)
            unused.remove(j)
            order.append(j)
        out.append(order)
    return out


def choose(state: State, battler: str, rng: random.Random, agents: dict) -> Action:
    """The draft's pick (uniform) or the battler's action (`agents`: gym-locm's battlers by name)."""
    if state.phase == Phase.DRAFT:
        return Action(ActionType.PICK, rng.randrange(3))
    if battler in agents:
        return agents[battler].act(state)
    if battler == "passive" and rng.random() < 0.75:
        return Action(ActionType.PASS)
    options = state.available_actions
    return options[rng.randrange(len(options))]


def timed(games: int, seed: int, battler: str) -> dict:
    """Whole games played without records: the games, their actions, the seconds they took and each
    game's winner."""
    agents = {name: BATTLERS[name]() for name in PLAYING_BATTLERS}
    actions = 0
    winners = []
    start = time.perf_counter()
    for g in range(games):
        rng = random.Random(seed + g)
        state = State(seed=seed + g, version="1.2")
        while state.phase != Phase.ENDED:
            state.act(choose(state, battler, rng, agents))
            actions += 1
        winners.append(int(state.winner))
    return {"games": games, "actions": actions, "seconds": time.perf_counter() - start, "winners": winners}


def chance(seed: int) -> dict:
    """The chance of the game of seed `seed` without playing it: its offers, each deck's shuffle (places
    in pick order: the battle's shuffle of a deck is a permutation drawn from the game's generator
    after the draft, whatever the cards) and the 60 uniform picks the other modes make in its draft."""
    state = State(seed=seed, version="1.2")
    offers = [[c.id for c in turn] for turn in state._phase._draft_cards]
    generator = np.random.default_rng()
    generator.bit_generator.state = state.rng.bit_generator.state
    shuffles = []
    for _ in range(2):
        order = list(range(30))
        generator.shuffle(order)
        shuffles.append(order)
    rng = random.Random(seed)
    return {"seed": seed, "offers": offers, "shuffles": shuffles, "picks": [rng.randrange(3) for _ in range(60)]}


def play(seed: int, battler: str, max_steps: int) -> dict:
    rng = random.Random(seed)
    state = State(seed=seed, version="1.2")
    offers = [[c.id for c in turn] for turn in state._phase._draft_cards]
    picks = [[], []]
    steps = []
    shuffles = None
    agents = {name: BATTLERS[name]() for name in PLAYING_BATTLERS}
    while state.phase != Phase.ENDED and len(steps) < max_steps:
        action = choose(state, battler, rng, agents)
        if action.type == ActionType.PICK:
            picks[int(state._current_player)].append(state.current_player.hand[action.origin].id)
        index = action_index(state, action)
        state.act(action)
        if shuffles is None and state.phase != Phase.DRAFT:
            shuffles = shuffles_of(state, picks)
        steps.append([index, state_record(state, picks)])
    return {"seed": seed, "battler": battler, "offers": offers, "shuffles": shuffles, "steps": steps}


def agent_choices(seed: int, agent: str, max_steps: int, random_play: bool = False) -> dict:
    """A game in which gym-locm's drafter (`agent` is draft:NAME) drafts for both seats (then the record
    stops), or in which its battler (battle:NAME) plays both seats after a uniform draft: the chance
    and every action played. With `random_play` (a battler only) the battle's actions are uniform
    among the available ones and the battler's choice in each battle state is recorded beside them
    (`choices`, None in the draft)."""
    rng = random.Random(seed)
    state = State(seed=seed, version="1.2")
    offers = [[c.id for c in turn] for turn in state._phase._draft_cards]
    picks = [[], []]
    actions = []
    kind, name = agent.split(":")
    drafters = [DRAFTERS[name](), DRAFTERS[name]()] if kind == "draft" else None
    battler = BATTLERS[name]() if kind == "battle" else None
    for a in drafters or [battler]:
        a.reset()
    random.seed(seed)  # uji2 draws from the random module
    while state.phase == Phase.DRAFT:
        p = int(state._current_player)
        action = drafters[p].act(state) if drafters else Action(ActionType.PICK, rng.randrange(3))
        picks[p].append(state.current_player.hand[action.origin or 0].id)
        actions.append(action_index(state, action))
        state.act(action)
    shuffles = shuffles_of(state, picks)
    choices = [None] * len(actions)
    while battler is not None and state.phase != Phase.ENDED and len(actions) < 60 + max_steps:
        action = battler.act(state)
        choices.append(action_index(state, action))
        if random_play:
            options = state.available_actions
            action = options[rng.randrange(len(options))]
        actions.append(action_index(state, action))
        state.act(action)
    record = {"seed": seed, "agent": agent, "offers": offers, "shuffles": shuffles, "actions": actions}
    return record | ({"choices": choices} if random_play else {})


def seat_scores(path: str) -> list[list[float]]:
    """A drafter file's scores as one list of 160 per seat."""
    with open(path, "rb") as f:
        scores = tomllib.load(f)["scores"]
    return [list(scores[0]), list(scores[1])] if isinstance(scores[0], list) else [list(scores), list(scores)]


def drafter_match(seed: int, scores: list[list[float]], against: str, seat: int, battler: str) -> dict:
    """The game of seed `seed`: the file's drafter (`scores`) drafts for `seat`, gym-locm's drafter
    `against` for the other seat, gym-locm's `battler` battles both; its chance, picks and winner."""
    state = State(seed=seed, version="1.2")
    offers = [[c.id for c in turn] for turn in state._phase._draft_cards]
    opponent = DRAFTERS[against]()
    opponent.reset()
    random.seed(seed)  # uji2 draws from the random module
    picks = [[], []]
    while state.phase == Phase.DRAFT:
        p = int(state._current_player)
        if p == seat:
            offered = [scores[p][c.id - 1] for c in state.current_player.hand]
            action = Action(ActionType.PICK, offered.index(max(offered)))
        else:
            action = opponent.act(state)
        picks[p].append(state.current_player.hand[action.origin or 0].id)
        state.act(action)
    shuffles = shuffles_of(state, picks)
    agent = BATTLERS[battler]()
    while state.phase != Phase.ENDED:
        state.act(agent.act(state))
    return {"seed": seed, "offers": offers, "shuffles": shuffles, "picks": picks, "winner": int(state.winner)}


def legal_index(state: State, action: Action) -> int | None:
    """`action`'s number if it is among the state's available actions, else None (the referee cancels it)."""
    try:
        index = action_index(state, action)
    except (ValueError, TypeError, AttributeError):
        return None
    return index if index in {action_index(state, a) for a in state.available_actions} else None


def native_game(seed: int, commands: list[str]) -> dict:
    """The game of seed `seed` played by native bots (`commands[p]` for seat p) in gym-locm's host."""
    state = State(seed=seed, version="1.2")
    offers = [[c.id for c in turn] for turn in state._phase._draft_cards]
    bots = [NativeAgent(commands[p]) for p in (0, 1)]
    for bot in bots:
        bot.initialize()
        bot._process.delaybeforesend = None  # pexpect waits 50 ms before each write by default
    picks = [[], []]
    actions = []
    shuffles = None
    skipped = 0
    try:
        while state.phase != Phase.ENDED:
            p = int(state._current_player)
            action = bots[p].act(state)
            index = legal_index(state, action)
            while index is None:
                skipped += 1
                action = bots[p].act(state)  # the next buffered command; the buffer ends with PASS
                index = legal_index(state, action)
            if action.type == ActionType.PICK:
                picks[p].append(state.current_player.hand[action.origin or 0].id)
            actions.append(index)
            state.act(action)
            if shuffles is None and state.phase != Phase.DRAFT:
                shuffles = shuffles_of(state, picks)
    finally:
        for bot in bots:
            bot.close()
    record = {"seed": seed, "offers": offers, "shuffles": shuffles, "actions": actions, "skipped": skipped}
    return record | {"winner": int(state.winner)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0, help="the first game's seed; game i plays seed + i")
    parser.add_argument("--battler", choices=["random", "passive", "max-attack", "greedy"], default="random")
    parser.add_argument(
        "--max-steps", type=int, default=5000, help="a game still running after this many actions stops"
    )
    parser.add_argument(
        "--time", action="store_true", help="only time the games: one JSON line of games, actions, seconds, winners"
    )
    parser.add_argument(
        "--chance", action="store_true", help="only each game's chance: offers, shuffles and uniform picks"
    )
    parser.add_argument(
        "--agent",
        choices=[f"draft:{n}" for n in DRAFTERS] + [f"battle:{n}" for n in BATTLERS],
        help="record the choices of this gym-locm drafter or battler instead",
    )
    parser.add_argument(
        "--random-play",
        action="store_true",
        help="with --agent battle:NAME: play uniform actions, record the battler's choice in each state",
    )
    parser.add_argument("--drafter-file", help="play this drafter file's drafter against --against")
    parser.add_argument("--against", choices=sorted(DRAFTERS), default="coac", help="with --drafter-file")
    parser.add_argument("--seat", type=int, choices=[0, 1], default=0, help="the drafter file's seat")
    parser.add_argument(
        "--native", action="append", metavar="CMD", help="a native bot's command (twice: seat 0's, then seat 1's)"
    )
    args = parser.parse_args()
    if args.native:
        if len(args.native) > 2:
            parser.error("--native: one command (both seats) or two (seat 0's, seat 1's)")
        commands = args.native * 2 if len(args.native) == 1 else args.native
        for i in range(args.games):
            sys.stdout.write(json.dumps(native_game(args.seed + i, commands), separators=(",", ":")) + "\n")
            sys.stdout.flush()
        return
    if args.drafter_file:
        if args.battler not in PLAYING_BATTLERS:
            parser.error(f"--drafter-file needs --battler among {', '.join(PLAYING_BATTLERS)}")
        scores = seat_scores(args.drafter_file)
        for i in range(args.games):
            record = drafter_match(args.seed + i, scores, args.against, args.seat, args.battler)
            sys.stdout.write(json.dumps(record, separators=(",", ":")) + "\n")
            sys.stdout.flush()
        return
    if args.random_play and not (args.agent or "").startswith("battle:"):
        parser.error("--random-play needs --agent battle:NAME")
    if args.agent:
        for i in range(args.games):
            record = agent_choices(args.seed + i, args.agent, args.max_steps, args.random_play)
            sys.stdout.write(json.dumps(record, separators=(",", ":")) + "\n")
            sys.stdout.flush()
        return
    if args.time:
        print(json.dumps(timed(args.games, args.seed, args.battler)))
        return
    if args.chance:
        for i in range(args.games):
            sys.stdout.write(json.dumps(chance(args.seed + i), separators=(",", ":")) + "\n")
        return
    for i in range(args.games):
        sys.stdout.write(json.dumps(play(args.seed + i, args.battler, args.max_steps), separators=(",", ":")) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
