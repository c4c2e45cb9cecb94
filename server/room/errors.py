"""The room's one error: a refusal shown to the player as it is."""

from __future__ import annotations


class RoomError(Exception):
    """A refusal that is shown to the player as is; nothing changed."""
