"""Our games in other people's tools: a PettingZoo AEC environment (`games.interop.pettingzoo_env`)
and OpenSpiel Python games (`games.interop.openspiel_game`) for every registered game.

Both need the optional `interop` extra (`pip install 'deckopt[interop]'`: pettingzoo, open_spiel); this
package imports them only when one of its modules is imported, so `import games` never pays for them.
"""

from __future__ import annotations


def missing_extra(what: str, exc: ImportError) -> ImportError:
    """The one-line ImportError a module of this package raises when the extra it needs is missing:
    `import pyspiel` failing in `what` says which extra to install."""
    module = getattr(exc, "name", None) or str(exc)
    return ImportError(
        f"{what} needs the optional interop extra (missing module {module!r}): pip install 'deckopt[interop]'"
    )
