"""The bottom of deck evolution, importing only games/: what a deck is and what a run's game settles.

The deck-space protocol (`base`: `DeckSpace`, `canonical`), the settings of every deck game of ours
(`settings`: the bases; one `*_settings.py` a game) and their registry (`settings_registry`: a
game's settings class by name, without loading its space), and the operators on Gwent Lite's power
multisets (`genome`, `constraints`). The spaces themselves are in evolution/spaces.
"""
