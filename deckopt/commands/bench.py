"""`deckopt bench engines|selfplay|evolution|search|alphazero|locm [--json]`: speed benchmarks."""

from __future__ import annotations

from deckopt.bench import alphazero, engines, evolution, locm, search, selfplay
from deckopt.commands._common import Progress, print_json

# bench name -> module whose run(progress=None, log=None) -> {"bench", "results", "ratios"}
BENCHES = {
    "engines": engines,
    "selfplay": selfplay,
    "evolution": evolution,
    "search": search,
    "alphazero": alphazero,
    "locm": locm,
}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "bench",
        help="speed benchmarks (engines, self-play, evolution, search, alphazero, locm against gym-locm)",
        description="Run a speed benchmark; progress goes to stderr. Numbers on a shared machine "
        "are noisy: each measure is a median of repeats.",
    )
    p.add_argument("which", choices=sorted(BENCHES), help="what to measure")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    p.set_defaults(func=main)


def format_table(report: dict) -> str:
    rows = [(r["name"], _number(r["value"]), r["unit"]) for r in report.get("results", [])]
    rows += [(name, _number(value), "ratio") for name, value in report.get("ratios", {}).items()]
    if not rows:
        return f"bench {report.get('bench', '?')}: no results"
    w_name = max(len(r[0]) for r in rows)
    w_value = max(len(r[1]) for r in rows)
    lines = [f"bench {report.get('bench', '?')}"]
    lines += [f"  {n:<{w_name}}  {v:>{w_value}}  {u}" for n, v, u in rows]
    return "\n".join(lines)


def _number(value) -> str:
    value = float(value)
    if value != value:  # nan
        return "nan"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def main(args) -> int:
    bench = BENCHES[args.which]
    with Progress(unit="run") as progress:
        report = bench.run(progress=progress, log=lambda line: progress.log(f"[bench] {line}"))
    if args.json:
        print_json(report)
    else:
        print(format_table(report))
    return 0
