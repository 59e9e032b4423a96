"""Speed benchmarks: tools on top of every layer (games, agents, evolution), beside the CLI.

One module per benchmark, each with `run(progress=None, log=None, ...) -> {"bench", "results",
"ratios"}`; they share one timing helper (`timing`: medians of interleaved repeats) and one
implementation of the ancestor project's play (`ancestor`). Nothing in the library imports this.
"""
