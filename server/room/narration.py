"""What happened at a table, in words: one line per move, trick and round.

The screens show the last few of these under the table; they are built once per
move here, not per screen.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Event:
    seat: int | None
    action: Mapping[str, Any] | None
    text: str
    round: int | None = None      # the round it belongs to (screens show the current one)
    at: float = field(default_factory=time.monotonic)


def describe(who: str, action: Mapping[str, Any], by: str) -> str:
    """``who``'s move in words; ``by``: "player", "bot" or "timer"."""
    t = action.get("type")
    if t == "dash":
        text = f"{who} takes the dash call" if action.get("take") else f"{who} plays normally"
    elif t == "bid":
        text = f"{who} bids {action['n']}" + (action.get("suit") or "")
    elif t == "with":
        text = f"{who} says With"
    elif t == "pass":
        text = f"{who} passes"
    elif t == "call":
        text = f"{who} calls {action['n']}{action.get('suit') or ''}"
    elif t == "declare":
        text = f"{who} declares {action['n']}"
    elif t == "play":
        text = f"{who} plays {action['card']}"
    else:
        text = f"{who}: {t}"
    if by == "timer":
        text += " (timer)"
    return text


def round_text(labels: Sequence[str], rec: Mapping[str, Any]) -> str:
    """A finished round (an entry of the engine's ``history``) in one line."""
    if rec.get("void"):
        return "Hand void: declarations under 11; redeal"
    scores = rec.get("scores") or [0, 0, 0, 0]
    parts = [f"{labels[i]} {scores[i]:+d}" for i in range(4)]
    return f"Round {rec.get('round')}: " + ", ".join(parts)
