"""What the room offers: the engine's games, lengths, seats and computer-player
levels (one catalogue, ``engine.catalogue``), plus what only the room has: turn
timers, the computer players' names and how a name is shown.

Every check of a client's game, length, seat or level goes through here, so a
refusal reads the same from the screens and from the JSON interface.
"""

from __future__ import annotations

from typing import Any

from engine.catalogue import (
    DEFAULT_LEVEL,
    GAMES,
    LENGTHS,
    LEVELS,
    SEATS,
    TITLES,
    Terms,
    default_length,
    is_seat,
    terms,
    title,
)
from engine.records import ranked

from .errors import RoomError
from .text import clean_name

__all__ = ["BOT_NAMES", "DEFAULT_LEVEL", "GAMES", "GUEST_MARK", "LENGTHS", "LEVELS", "SEATS",
           "TIMERS", "TITLES", "Terms", "default_length", "display_name", "is_seat", "parse_game",
           "parse_length", "parse_level", "parse_seat", "parse_seats", "parse_timer", "ranked",
           "terms", "title"]

TIMERS = (0, 15, 30, 60)                  # seconds a turn may take; 0: no timer (room.md)
BOT_NAMES = ("Bot-1", "Bot-2", "Bot-3", "Bot-4")  # per seat; people cannot take them (text.py)
GUEST_MARK = "°"                          # after a guest's name wherever it is shown


def display_name(name: str, guest: bool) -> str:
    """A name as every screen shows it: cleaned (a stored name from another version,
    a restored backup or a shared database may hold escape sequences; it is drawn
    without them, at most 16 characters), a guest's with the guest mark."""
    shown = clean_name(name)
    return shown + GUEST_MARK if guest else shown


def parse_seat(value: object) -> int:
    """A seat a client named; RoomError unless 0–3 (a real int, not ``True``)."""
    if not is_seat(value):
        raise RoomError("Seats are numbered 0 to 3.")
    return value


def parse_seats(value: object, what: str = "\"computer\"") -> list[int]:
    """A list of seats (e.g. the computer players' of a new table)."""
    if not isinstance(value, list) or not all(is_seat(s) for s in value):
        raise RoomError("{what} is a list of seats 0–3.", what=what)
    return list(value)


def parse_game(value: object) -> str:
    if not isinstance(value, str) or value not in GAMES:
        raise RoomError("Unknown game; choose one of: {games}.", games=", ".join(GAMES))
    return value


def parse_length(game: str, value: object) -> Any:
    """The match length (None: the game's default)."""
    if value is None:
        return default_length(game)
    if isinstance(value, bool) or value not in LENGTHS[game]:
        allowed = ", ".join(str(x) for x in LENGTHS[game] if x is not None)
        if not allowed:
            raise RoomError("Lengths for {game}: none.", game=game)
        raise RoomError("Lengths for {game}: {allowed}.", game=game, allowed=allowed)
    return value


def parse_timer(value: object) -> int:
    if isinstance(value, bool) or value not in TIMERS:
        raise RoomError("Turn timer: 0 (off), 15, 30 or 60 seconds.")
    return TIMERS[TIMERS.index(value)]       # 15.0 is accepted as 15, stored as an int


def parse_level(value: object) -> str:
    if not isinstance(value, str) or value not in LEVELS:
        raise RoomError("Computer player levels: {levels}.", levels=", ".join(LEVELS))
    return value
