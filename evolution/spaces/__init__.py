"""The deck spaces: one module per deck game implementing the protocol of evolution/decks/base.py
(`head_to_head` the base of spaces whose decks play each other), listed in `registry`; `check` is the
spaces' part of `deckopt check`."""
