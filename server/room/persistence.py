"""Tables write through to a ``MatchStore`` and come back after a restart.

Order matters: ``Table`` applies an action to the engine, calls ``action`` here (one
committed INSERT), and only then notifies anyone. A server killed at any moment
therefore has on disk every action any player has seen.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from engine import Match, replay

from .catalogue import display_name
from .store import MatchStore, Points, Records, StoredMatch
from .text import clean_name

if TYPE_CHECKING:
    from .registry import Registry
    from .table import Table

log = logging.getLogger("lamma.persist")


class Store(MatchStore, Records, Protocol):
    """A store that keeps matches and answers the screens (SQLite, PostgreSQL)."""


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


def seat_labels(seats: list[str | None], settings: dict[str, Any] | None = None) -> list[str]:
    """Per seat of a stored match: the player's name (a guest's marked), or the name
    of the computer player that held it."""
    held = (settings or {}).get("seats") or []
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


def table_settings(table: Table) -> dict[str, Any]:
    """What a restart needs besides the log: the timer, visibility and who holds each seat."""
    return {"timer": table.timer, "private": table.private, "code": table.code,
            "seats": [s.settings() for s in table.seats]}


class TableStore:
    """A table's events (``TableLog``) as calls to a ``Store``."""

    def __init__(self, store: Store):
        self.store = store
        self.records: Records | None = store

    def match_started(self, table: Table) -> int | None:
        assert table.match is not None
        return self.store.create_match(table.id, table.match.to_dict(), seat_names(table),
                                       table_settings(table))

    def action(self, table: Table, seat: int, action: Mapping[str, Any]) -> None:
        if table.match_id is None or table.match is None:
            return
        self.store.append_action(table.match_id, len(table.match.log) - 1, seat, action)

    def seats_changed(self, table: Table) -> None:
        if table.match_id is not None:
            self.store.set_seats(table.match_id, seat_names(table), table_settings(table))

    def match_over(self, table: Table) -> Points | None:
        if table.match_id is None or table.match is None:
            return None
        return self.store.finish_match(table.match_id, table.match)

    def table_removed(self, table: Table) -> None:
        if table.match_id is not None and table.status == "playing":
            rounds = len(table.match.history) if table.match is not None else None
            self.store.abandon(table.match_id, rounds)


def restore(registry: Registry, store: MatchStore) -> int:
    """Bring back every unfinished match as a playing table; returns how many."""
    n = 0
    highest = 0
    for sm in store.unfinished():
        # One damaged row (another version, a hand edit, a restored backup) is reported
        # with its match id and skipped: it never stops the room from starting.
        try:
            match = replay(sm.record)
        except Exception as e:
            log.error("match %s cannot be replayed (%s); left as it is", sm.id, e)
            continue
        if sm.table_id.isdigit():
            highest = max(highest, int(sm.table_id))
        if match.result is not None:
            # The last action was stored, then the process died before the result was:
            # record it now (once), and list no table for a match that is over.
            store.finish_match(sm.id, match)
            continue
        try:
            registry.resume(sm.table_id, match, sm.id, sm.settings, sm.seats,
                            counts_for_points=sm.humans_throughout)
        except Exception as e:
            log.error("match %s: its stored seats or settings are damaged (%s); left as "
                      "it is", sm.id, e)
            continue
        n += 1
    registry.skip_ids(highest)
    return n
