"""A table as the store keeps it, and a stored match as the screens read it back:
each seat's stored name, a table's settings, a replay's match and names.

Pure (no I/O): the store (``server.store``) writes and reads these; the writer that
submits a table's writes in order is the server's (``server.persistence``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import Match, replay

from .catalogue import BOT_NAMES, display_name
from .store import StoredMatch, TableSettings
from .text import clean_name

if TYPE_CHECKING:
    from .table import Table


def seat_names(table: Table) -> list[str | None]:
    """Per seat: the player's name, ``guest:NAME`` for a guest, None for a computer player."""
    out: list[str | None] = []
    for s in table.seats:
        if s.kind != "human":
            out.append(None)
        elif s.guest:
            out.append(f"guest:{s.name}")
        else:
            out.append(s.name)
    return out


def seat_label(stored: str | None) -> str:
    """A stored seat name as the screens show it (``seat_names`` read back)."""
    if stored is None:
        return "computer"
    if stored.startswith("guest:"):
        return display_name(stored[6:], guest=True)
    return display_name(stored, guest=False)       # cleaned where it is drawn


def listed_labels(seats: list[str | None]) -> list[str]:
    """Per seat of a stored match as a list of matches says it: the player's name (a
    guest's marked), a computer player's as the table named it (``Bot-2`` in seat 1)."""
    return [BOT_NAMES[i] if name is None and i < len(BOT_NAMES) else seat_label(name)
            for i, name in enumerate(seats)]


def seat_labels(seats: list[str | None], settings: TableSettings | None = None) -> list[str]:
    """Per seat of a stored match: the player's name (a guest's marked), or the name
    of the computer player that held it."""
    held = settings.get("seats") or [] if settings else []
    out = []
    for i, name in enumerate(seats):
        if name is None and i < len(held) and held[i].get("kind") == "bot":
            out.append(clean_name(held[i].get("name") or f"computer {i + 1}"))
        else:
            out.append(seat_label(name))
    return out


def replay_stored(stored: StoredMatch) -> Match:
    """The match of a stored record, rebuilt through the engine (replays)."""
    return replay(stored.record)


def table_settings(table: Table) -> TableSettings:
    """What a restart needs besides the log: the timer, visibility, who holds each seat,
    at an event's board its event (``boards.EventBoard``), and whether it is practice."""
    out: TableSettings = {"timer": table.timer, "private": table.private, "code": table.code,
                          "seats": [s.settings() for s in table.seats]}
    if table.event is not None:
        out["event"] = table.event.settings()
    if table.practice:
        out["practice"] = True
    return out
