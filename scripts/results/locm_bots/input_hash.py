"""A deterministic LOCM 1.2 bot speaking the competition referee's protocol whose every choice hangs
on the whole input it read (a CRC of its words), so that any difference between two hosts' inputs
shows in its moves (scripts/results/locm_native_check.py). Draft: the offer the CRC names. Battle:
one command per card it sees, each drawn from the CRC: a summon into either lane, an item on any
creature or the opponent, an attack on the opponent or any enemy creature; many are cancelled."""

import sys
import zlib


def read():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return line.split()


def main():
    while True:
        lines = [read(), read(), read()]
        lines += [read() for _ in range(int(lines[2][1]))]
        lines.append(read())
        cards = [read() for _ in range(int(lines[-1][0]))]
        crc = zlib.crc32(" ".join(word for line in lines + cards for word in line).encode())
        if lines[0][1] == "0":  # the draft: no mana
            print(f"PICK {crc % 3}", flush=True)
            continue
        enemies = ["-1"] + [c[1] for c in cards if c[2] == "-1"]
        targets = enemies + [c[1] for c in cards if c[2] == "1"]
        out = []
        for i, card in enumerate(cards):
            k = (crc >> (i % 24)) & 255
            if card[2] == "0" and card[3] == "0":
                out.append(f"SUMMON {card[1]} {k & 1}")
            elif card[2] == "0":
                out.append(f"USE {card[1]} {targets[k % len(targets)]}")
            elif card[2] == "1":
                out.append(f"ATTACK {card[1]} {enemies[k % len(enemies)]}")
        print(";".join(out) or "PASS", flush=True)


if __name__ == "__main__":
    main()
