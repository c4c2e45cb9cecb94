"""The one hook through which computer players (and the turn timer) choose.

Until the computer-players issue lands, a computer seat plays the engine's
``auto_action`` (a simple legal player).  When ``engine.bots.choose(view,
level=...)`` exists it is used instead; whatever it returns must be legal.
"""

from __future__ import annotations

import logging

log = logging.getLogger("lamma.bots")

try:  # pragma: no cover - depends on a later issue
    from engine import bots as _engine_bots  # type: ignore
except Exception:  # ImportError, or an engine still being written
    _engine_bots = None


def choose(match, seat: int, level: str = "simple") -> dict:
    """A legal action for ``seat`` chosen by a computer player."""
    if _engine_bots is not None and hasattr(_engine_bots, "choose"):
        try:
            action = _engine_bots.choose(match.view(seat), level=level)
            if action in match.legal_actions(seat):
                return action
            log.warning("bot chose an illegal action %r; using auto_action", action)
        except Exception:
            log.exception("engine.bots.choose failed; using auto_action")
    return match.auto_action(seat)


def timeout_action(match, seat: int) -> dict:
    """What the turn timer does for a player who let it run out."""
    return match.auto_action(seat)


BOT_NAMES = ["Bot-1", "Bot-2", "Bot-3", "Bot-4"]
