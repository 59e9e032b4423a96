"""`python -m deckopt ARGS`: the `deckopt` command. `python -m deckopt bot ...` loads that command
alone: a competition bot's first reply is timed from its start, and the other commands take seconds to
load."""

import sys

from deckopt.commands import bot

if sys.argv[1:2] == ["bot"]:
    raise SystemExit(bot.main(sys.argv[2:]))

from deckopt.cli import main  # noqa: E402 - every other command, loaded only when one is asked for

raise SystemExit(main())
