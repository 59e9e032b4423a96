"""The CEC 2020 LOCM field in deckopt's host (agents/native.py): every bot of `contest-2020-07-CEC` in a
checkout of the competition's repository (acatai/Strategy-Card-Game-AI-Competition) that builds on this
machine is built into OUT/build/, then the organisers' round robin is played: every pair of bots,
`--deals` deals each, both seats of each deal (the organisers played every ordered pair; a deal here
gives both seats the same chance). Each finished pair is one line of OUT/pairs.jsonl, so a run
stopped anywhere resumes with the pairs left (built bots are not built again).

Prints each bot's build (the command it runs as, or why it does not build), then each bot's win rate
over its games with the 95 % interval beside the organisers' (the summary of their `graph.data`),
and the Spearman correlation of the two rankings over the bots that played.

    .venv/bin/python scripts/results/locm_cec2020.py --competition PATH --out runs/cec2020 --deals 10 --jobs 2

Python bots run under this interpreter (some import numpy); C++ bots build with `g++` and the
organisers' options (prepare.sh), Chad with `cargo build --release` (it fetches its crates), Conrisc
with `js68` (SpiderMonkey's shell, as the organisers ran it) or else under Node with the shell's
functions it calls (`JS68_SHELL`).
`--slack` multiplies the competition's time limits (a loaded machine).

With `--entrant SPEC` a deckopt agent enters as a competition bot (`deckopt bot locm SPEC`, hosted as a
process of its own like the field's bots, its limits x `--entrant-slack`, by default the field's) and
plays every bot of the field `--entrant-deals` deals (Coac `--coac-deals`), both seats of each; each
finished opponent is one line of OUT/entrant.jsonl. Its table: its win rate against each bot with
the 95 % interval and its reply times, and its mean over the field beside Coac's mean in the round
robin.

    .venv/bin/python scripts/results/locm_cec2020.py --competition PATH --out runs/cec2020 --deals 20 \
        --slack 3 --entrant coac+turn:agents/pretrained/locm_league3_0.npz --entrant-deals 150 --coac-deals 500 \
        --entrant-slack 1
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from agents.parallel import Mapper
from agents.spec_match import play_spec_match
from agents.stats import Record, spearman
from games import make

CONTEST = "contest-2020-07-CEC"
#: the field: each bot's build kind, its source in the contest folder and, for C++, the compiler's
#: options the organisers' prepare.sh gives (Coac and ProphetCoac: CMake with no build type, so no
#: optimisation). Fabbiamo's input reader writes each card's seven-byte ability text into a six-byte
#: buffer, whose overflow lands wherever the compiler lays out the stack: built by GCC 12 with the
#: organisers' options it corrupts its draft scores (every pick then ties), with `-fno-inline` added
#: it scores cards as written
FIELD = {
    "AntiSquid": ("python", "AntiSquid/main.py", ()),
    "Baseline1": ("python", "Baseline1/main.py", ()),
    "Baseline2": ("python", "Baseline2/main.py", ()),
    "Chad": ("cargo", "Chad/agent/Cargo.toml", ()),
    "Coac": ("c++", "Coac/main.cpp", ("-std=c++17",)),
    "Conrisc": ("js68", "Conrisc/main.js", ()),
    "Fabbiamo": (
        "c++",
        "Fabbiamo/Fabbiamo.cpp",
        ("-std=c++14", "-DNDEBUG", "-O3", "-march=native", "-msse4.2", "-fno-inline"),
    ),
    "Marasbot": ("c++", "Marasbot/Marasbot.cpp", ("-O2",)),
    "ProphetCoac": ("c++", "ProphetCoac/main.cpp", ("-std=c++17",)),
    "ReinforcedGreediness": ("python", "ReinforcedGreediness/agent.py", ()),
    "UJIAgent1": ("python", "UJIAgent1/main.py", ()),
    "UJIAgent2": ("python", "UJIAgent2/main.py", ()),
    "UJIAgent3": ("python", "UJIAgent3/main.py", ()),
}
FIELD_ORDER = {name: i for i, name in enumerate(FIELD)}
#: seed-key stream of the entrant's matches
ENTRANT_STREAM = 1000
#: the functions of SpiderMonkey's shell a js68 bot calls, for running it under Node: `node SHELL BOT.js`
JS68_SHELL = """\
const fs = require("fs");
const vm = require("vm");
const chunk = Buffer.alloc(1 << 16);
let pending = "";
globalThis.readline = () => {
  while (!pending.includes("\\n")) {
    const n = fs.readSync(0, chunk, 0, chunk.length, null);
    if (n === 0) {
      const rest = pending;
      pending = "";
      return rest.length ? rest : null;
    }
    pending += chunk.toString("utf8", 0, n);
  }
  const end = pending.indexOf("\\n");
  const line = pending.slice(0, end);
  pending = pending.slice(end + 1);
  return line;
};
globalThis.print = (...parts) => fs.writeSync(1, parts.join(" ") + "\\n");
globalThis.printErr = (...parts) => fs.writeSync(2, parts.join(" ") + "\\n");
vm.runInThisContext(fs.readFileSync(process.argv[2], "utf8"), { filename: process.argv[2] });
"""
BUILD_TIMEOUT = 1800
SUMMARY = re.compile(r"^\s*(?P<name>\w+) wins=\s*(?P<wins>[\d.]+)%.*avg=")


def first_error(text: str) -> str:
    """A compiler's first error line (or its first line)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return next((line for line in lines if "error" in line.lower()), lines[0] if lines else "no message")


def build(name: str, contest: Path, out: Path) -> tuple[str | None, str]:
    """Bot `name`'s command, or None and why it does not build here."""
    kind, source, options = FIELD[name]
    path = contest / source
    if not path.exists():
        return None, f"no {source} in the checkout"
    if kind == "python":
        return f"{sys.executable} {path}", "Python"
    if kind == "js68":
        js, node = shutil.which("js68"), shutil.which("node")
        if js:
            return f"{js} {path}", "js68"
        if not node:
            return None, "needs js68 (SpiderMonkey's shell) or node, neither found on PATH"
        shell = out / "js68_shell.js"
        shell.write_text(JS68_SHELL)
        return f"{node} {shell} {path}", "node, with SpiderMonkey's shell functions (readline, print, printErr)"
    if kind == "c++":
        binary = out / name
        if not binary.exists() or binary.stat().st_mtime < path.stat().st_mtime:
            command = ["g++", *options, "-o", str(binary), str(path)]
            done = subprocess.run(command, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
            if done.returncode != 0:
                return None, f"g++ failed: {first_error(done.stderr)}"
        return str(binary), " ".join(["g++", *options])
    binary = out / "chad" / "release" / "agent"
    if not binary.exists():
        command = ["cargo", "build", "--release", "-q", "--manifest-path", str(path), "--target-dir", str(out / "chad")]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
        except FileNotFoundError:
            return None, "needs cargo (Rust), not found"
        if done.returncode != 0:  # cargo's last line is the cause (a registry out of reach)
            return None, f"cargo failed: {(done.stderr.strip().splitlines() or ['no message'])[-1].strip()}"
    return str(binary), "cargo build --release"


def organisers(contest: Path) -> dict[str, float]:
    """Each bot's win rate in the organisers' run, as a fraction: the summary lines at the end of
    graph.data (`NAME wins= 86.07% errs= ... avg= ...`)."""
    path = contest / "graph.data"
    if not path.exists():
        return {}
    lines = (SUMMARY.match(line) for line in path.read_text().splitlines())
    return {m["name"]: float(m["wins"]) / 100 for m in lines if m}


def play_line(game, specs: list[str], games: int, seed: int, slack: float, pmap) -> tuple[dict, dict]:
    """A match of the hosted bots `specs`: its line (seed, slack, games, each side's wins) and each
    hosted side's stats (agents.native.HostStats) by seat."""
    match, hosted = play_spec_match(game, specs, games, seed, pmap)
    line = {"seed": seed, "slack": slack, "games": match.games, "wins": [match.agents[0].wins, match.agents[1].wins]}
    return line, dict(hosted)


def play_pairs(bots: dict[str, str], deals: int, seed: int, slack: float, jobs: int, results: Path) -> list[dict]:
    """Every pair of `bots` not yet in `results` (a JSON line each) played and appended; all pairs' lines."""
    done = [json.loads(line) for line in results.read_text().splitlines()] if results.exists() else []
    played = {(d["a"], d["b"]) for d in done}
    game = make("locm")
    names = sorted(bots)
    with Mapper(jobs) as pmap:
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                if (a, b) in played:
                    continue
                specs = [f"native:{bots[x]},slack={slack:g}" for x in (a, b)]
                pair_seed = int(np.random.SeedSequence([seed, FIELD_ORDER[a], FIELD_ORDER[b]]).generate_state(1)[0])
                played_line, stats = play_line(game, specs, 2 * deals, pair_seed, slack, pmap)
                line = {"a": a, "b": b, **played_line}
                line["failures"] = [len(stats[k].failures) if k in stats else 0 for k in (0, 1)]
                line["late"] = [stats[k].late if k in stats else 0 for k in (0, 1)]
                with results.open("a") as f:
                    f.write(json.dumps(line) + "\n")
                done.append(line)
                print(f"played {a} - {b}: {line['wins'][0]}-{line['wins'][1]}", file=sys.stderr, flush=True)
    return done


def play_entrant(spec: str, bots: dict[str, str], deals: dict[str, int], seed: int, slack: float, own_slack: float,
                 jobs: int, results: Path) -> list[dict]:  # fmt: skip
    """The deckopt bot of agent `spec` (its time limits x `own_slack`) against every bot of `bots`
    (theirs x `slack`; `deals[name]` deals, both seats of each) not yet in `results` (a JSON line
    each, appended); all of the lines of `spec` at `own_slack`."""
    done = [json.loads(line) for line in results.read_text().splitlines()] if results.exists() else []
    done = [d for d in done if d["entrant"] == spec and d["entrant_slack"] == own_slack]
    played = {d["bot"] for d in done}
    game = make("locm")
    entrant = f"native:{sys.executable} -m deckopt bot locm {spec},slack={own_slack:g}"
    with Mapper(jobs) as pmap:
        for name in sorted(bots):
            if name in played:
                continue
            specs = [entrant, f"native:{bots[name]},slack={slack:g}"]
            pair_seed = int(np.random.SeedSequence([seed, ENTRANT_STREAM, FIELD_ORDER[name]]).generate_state(1)[0])
            played_line, stats = play_line(game, specs, 2 * deals[name], pair_seed, slack, pmap)
            line = {"entrant": spec, "entrant_slack": own_slack, "bot": name, **played_line}
            line["entrant_replies"] = stats[0].as_dict()
            line["bot_failures"], line["bot_late"] = len(stats[1].failures), stats[1].late
            with results.open("a") as f:
                f.write(json.dumps(line) + "\n")
            done.append(line)
            print(f"played the entrant - {name}: {line['wins'][0]}-{line['wins'][1]}", file=sys.stderr, flush=True)
    return done


def entrant_table(lines: list[dict], field_rates: dict[str, dict[str, float]]) -> None:
    """Print the entrant's win rate against each bot, its reply times and its mean over the field
    beside Coac's mean over its opponents in the round robin (`field_rates[a][b]`: a's rate against b)."""
    print()
    print(
        "| opponent | games | the entrant's win rate | 95 % CI | its replies (ms): first turns mean / max, "
        "other turns mean / p99 / max | late | failures |"
    )
    print("|---|---|---|---|---|---|---|")
    rates = {}
    for line in sorted(lines, key=lambda d: d["bot"]):
        games, (w, wb) = line["games"], line["wins"]
        r = Record(wins=w, draws=games - w - wb, losses=wb)
        rates[line["bot"]] = r.win_rate
        lo, hi = r.ci95
        rep = line["entrant_replies"]
        first, other = rep["first_turns"], rep["other_turns"]
        times = (
            f"{1000 * first['mean_s']:.0f} / {1000 * first['max_s']:.0f}, "
            f"{1000 * other['mean_s']:.1f} / {1000 * other['p99_s']:.0f} / {1000 * other['max_s']:.0f}"
        )
        print(f"| {line['bot']} | {games} | {r.win_rate:.3f} | [{lo:.3f}, {hi:.3f}] | {times} | {rep['late']} | "
              f"{len(rep['failures'])} |")  # fmt: skip
    if not rates:
        return
    print(f"\nthe entrant's mean win rate over {len(rates)} bots: {np.mean(list(rates.values())):.3f}", end="")
    coac = field_rates.get("Coac", {})
    others = [b for b in rates if b != "Coac" and b in coac]
    if others:
        print(f"; over the {len(others)} bots other than Coac: {np.mean([rates[b] for b in others]):.3f}, "
              f"Coac's over the same bots in the round robin: {np.mean([coac[b] for b in others]):.3f}")  # fmt: skip
    else:
        print()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--competition", type=Path, required=True, help="a checkout of the competition's repository")
    parser.add_argument("--out", type=Path, required=True, help="the run's folder (built bots, pairs.jsonl)")
    parser.add_argument("--deals", type=int, default=10, help="deals per pair of bots, each played in both seats")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--slack", type=float, default=1.0, help="multiplier of the competition's time limits")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--entrant", metavar="SPEC", help="a deckopt agent entered as a bot (deckopt bot locm SPEC)")
    parser.add_argument("--entrant-deals", type=int, default=150, help="the entrant's deals against each bot")
    parser.add_argument("--coac-deals", type=int, default=500, help="the entrant's deals against Coac")
    parser.add_argument(
        "--entrant-slack", type=float, help="multiplier of the entrant's own time limits (default: --slack's)"
    )
    args = parser.parse_args(argv)
    contest = args.competition / CONTEST
    if not contest.is_dir():
        raise SystemExit(f"no {CONTEST} folder in {args.competition}")
    build_dir = args.out / "build"
    build_dir.mkdir(parents=True, exist_ok=True)
    bots = {}
    print("| bot | build |")
    print("|---|---|")
    for name in FIELD:
        command, note = build(name, contest, build_dir.resolve())
        print(f"| {name} | {note if command else 'does not build: ' + note} |")
        if command:
            bots[name] = command
    sys.stdout.flush()
    pairs = play_pairs(bots, args.deals, args.seed, args.slack, args.jobs, args.out / "pairs.jsonl")
    records = {name: Record() for name in bots}
    field_rates: dict[str, dict[str, float]] = {name: {} for name in bots}
    for line in pairs:
        if line["a"] in records and line["b"] in records:
            games, (wa, wb) = line["games"], line["wins"]
            records[line["a"]] += Record(wins=wa, draws=games - wa - wb, losses=wb)
            records[line["b"]] += Record(wins=wb, draws=games - wa - wb, losses=wa)
            field_rates[line["a"]][line["b"]] = wa / games
            field_rates[line["b"]][line["a"]] = wb / games
    theirs = organisers(contest)
    ranked = sorted(records, key=lambda n: -records[n].win_rate)
    print()
    print("| bot | games | win rate (deckopt's host) | 95 % CI | organisers' win rate |")
    print("|---|---|---|---|---|")
    for name in ranked:
        r = records[name]
        lo, hi = r.ci95
        them = f"{theirs[name]:.3f}" if name in theirs else "-"
        print(f"| {name} | {r.games} | {r.win_rate:.3f} | [{lo:.3f}, {hi:.3f}] | {them} |")
    common = [n for n in ranked if n in theirs and records[n].games]
    if len(common) >= 2:
        rho = spearman([records[n].win_rate for n in common], [theirs[n] for n in common])
        print(f"\nSpearman correlation of the rankings over {len(common)} bots: {rho:.3f}")
    if args.entrant:
        deals = {name: args.coac_deals if name == "Coac" else args.entrant_deals for name in bots}
        own = args.slack if args.entrant_slack is None else args.entrant_slack
        lines = play_entrant(
            args.entrant, bots, deals, args.seed, args.slack, own, args.jobs, args.out / "entrant.jsonl"
        )
        entrant_table(lines, field_rates)


if __name__ == "__main__":
    main()
