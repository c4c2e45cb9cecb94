"""What every process of the room lists of a table: its lobby row (``Table.summary``),
the same at every process (``frames.checked_lobby_row`` builds one again from another
process's) and what the JSON interface sends as it is."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from engine import Length

from .store import SeatKind


class SeatRow(TypedDict):
    """A seat as the lobby's row lists it (``Seat.public``): what anyone may see."""
    kind: SeatKind
    name: str | None
    guest: bool
    connected: bool


class BoardMark(TypedDict):
    """Which board of which event a table deals (a lobby row's "event")."""
    id: int
    board: int
    boards: int


class LobbyRow(TypedDict):
    """A table as the lobby lists it (``Table.summary``), the same at every process
    (``frames.checked_lobby_row`` builds one again from another process's) and what the
    JSON interface sends as it is."""
    id: str
    game: str
    length: Length
    timer: int
    private: bool
    status: str                 # waiting | playing | over (``Table.shown_status``)
    round: int | None
    rounds: int | None
    seats: list[SeatRow]
    spectators: int
    ranked: NotRequired[bool]   # not in a row another process wrote (checked_lobby_row)
    event: NotRequired[BoardMark]       # an event's board: never listed
    practice: NotRequired[bool]
    code: NotRequired[str | None]       # a private table's, in the listing and shared
