"""What happened at a table, in words: one line per move, trick and round.

The screens show the last few of these under the table; they are built once per
move here, not per screen.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import N_, Said


@dataclass
class Event:
    seat: int | None
    action: Mapping[str, Any] | None
    text: str
    round: int | None = None      # the round it belongs to (screens show the current one)
    at: float = field(default_factory=time.monotonic)


# A move in words, by action type (``{by}``: " (timer)" when the turn timer chose it).
_MOVES = {
    "with": N_("{who} says With{by}"),
    "pass": N_("{who} passes{by}"),
    "call": N_("{who} calls {n}{suit}{by}"),
    "bid": N_("{who} bids {n}{suit}{by}"),
    "declare": N_("{who} declares {n}{by}"),
    "play": N_("{who} plays {card}{by}"),
}


def describe(who: str, action: Mapping[str, Any], by: str) -> Said:
    """``who``'s move in words; ``by``: "player", "bot" or "timer"."""
    t = action.get("type")
    timer = N_(" (timer)") if by == "timer" else ""
    if t == "dash":
        dash = (N_("{who} takes the dash call{by}") if action.get("take")
                else N_("{who} plays normally{by}"))
        return Said(dash, who=who, by=timer)
    move = _MOVES.get(t) if isinstance(t, str) else None
    if move is None:
        return Said(N_("{who}: {action}{by}"), who=who, action=str(t), by=timer)
    return Said(move, who=who, by=timer, n=action.get("n"),
                suit=action.get("suit") or "", card=action.get("card"))


def round_text(labels: Sequence[str], rec: Mapping[str, Any]) -> Said:
    """A finished round (an entry of the engine's ``history``) in one line."""
    if rec.get("void"):
        return Said(N_("Hand void: declarations under 11; redeal"))
    scores = rec.get("scores") or [0, 0, 0, 0]
    parts = [f"{labels[i]} {scores[i]:+d}" for i in range(4)]
    return Said(N_("Round {round}: {scores}"), round=rec.get("round"), scores=", ".join(parts))
