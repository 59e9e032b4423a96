"""A deterministic LOCM 1.2 bot speaking the competition referee's protocol, for checking hosts
against each other (scripts/results/locm_native_check.py). Draft: the offered card with the most
attack + defense per mana (the first on ties). Battle: summons the dearest creatures it can pay
for into the lane with fewer creatures, uses green items on its strongest creature, red items on
the enemy's strongest, blue items at the opponent; then each creature attacks the first Guard of
its lane, or else the opponent. It tracks only what it sent: some commands may be cancelled."""

import sys


def ints(line):
    return [int(x) for x in line.split()]


def main():
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        me = ints(line)
        sys.stdin.readline()
        _, actions = ints(sys.stdin.readline())
        for _ in range(actions):
            sys.stdin.readline()
        cards = []
        for _ in range(int(sys.stdin.readline())):
            f = sys.stdin.readline().split()
            cards.append(
                {
                    "id": int(f[1]),
                    "where": int(f[2]),
                    "type": int(f[3]),
                    "cost": int(f[4]),
                    "attack": int(f[5]),
                    "defense": int(f[6]),
                    "keywords": f[7],
                    "lane": int(f[11]),
                }
            )
        if me[1] == 0:  # the draft: no mana
            value = [(c["attack"] + c["defense"]) / (c["cost"] + 1) for c in cards]
            print(f"PICK {value.index(max(value))}", flush=True)
            continue
        print(";".join(turn(me[1], cards)) or "PASS", flush=True)


def turn(mana, cards):
    hand = [c for c in cards if c["where"] == 0]
    mine = [c for c in cards if c["where"] == 1]
    theirs = [c for c in cards if c["where"] == -1]
    out = []
    lanes = [sum(c["lane"] == lane for c in mine) for lane in (0, 1)]
    for c in sorted(hand, key=lambda c: (-c["cost"], c["id"])):
        if c["cost"] > mana:
            continue
        if c["type"] == 0 and min(lanes) < 3:
            lane = 0 if lanes[0] <= lanes[1] else 1
            out.append(f"SUMMON {c['id']} {lane}")
            lanes[lane] += 1
            mana -= c["cost"]
            c = dict(c, where=1, lane=lane)
            if "C" in c["keywords"]:
                mine.append(c)
        elif c["type"] == 1 and mine:
            target = max(mine, key=lambda x: (x["attack"], -x["id"]))
            out.append(f"USE {c['id']} {target['id']}")
            mana -= c["cost"]
        elif c["type"] == 2 and theirs:
            target = max(theirs, key=lambda x: (x["attack"], -x["id"]))
            out.append(f"USE {c['id']} {target['id']}")
            mana -= c["cost"]
        elif c["type"] == 3:
            out.append(f"USE {c['id']} -1")
            mana -= c["cost"]
    for c in sorted(mine, key=lambda c: c["id"]):
        guards = [t for t in theirs if t["lane"] == c["lane"] and "G" in t["keywords"]]
        out.append(f"ATTACK {c['id']} {guards[0]['id'] if guards else -1}")
    return out


if __name__ == "__main__":
    main()
