"""The room's one error: a refusal shown to the player as it is."""

from __future__ import annotations

import json


class RoomError(Exception):
    """A refusal that is shown to the player as is; nothing changed."""


def quoted(obj: object) -> str:
    """A client's value inside a refusal: JSON, ASCII only, at most 60 characters."""
    try:
        text = json.dumps(obj, ensure_ascii=True)
    except (TypeError, ValueError):
        text = "?"
    return text if len(text) <= 60 else text[:57] + "..."
