"""The `deckopt` command line: parses arguments, calls games/agents/evolution, prints results."""
