"""`python -m deckopt ARGS`: the `deckopt` command."""

from deckopt.cli import main

raise SystemExit(main())
