"""Our games in other people's tools: a PettingZoo AEC environment (`games.interop.pettingzoo_env`)
and OpenSpiel Python games (`games.interop.openspiel_game`) for every registered game.

Both need the optional `interop` extra (`pip install 'deckopt[interop]'`: pettingzoo, open_spiel); this
package imports them only when one of its modules is imported, so `import games` never pays for them.
"""

from __future__ import annotations

import importlib


def require(module: str, what: str):
    """`module` imported, or an ImportError in one line saying which extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(
            f"{what} needs the optional interop extra (missing module {module!r}): pip install 'deckopt[interop]'"
        ) from None
