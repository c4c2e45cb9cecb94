"""The registry's store: tables write through to ``store.Store`` and come back
after a restart.

Order matters: ``Table._apply`` applies to the engine, calls ``action`` here
(one committed INSERT), and only then notifies anyone. A server killed at any
moment therefore has on disk every action any player has seen.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .store import Store

if TYPE_CHECKING:  # pragma: no cover
    from .tables import Registry, Table

log = logging.getLogger("lamma.persist")


def seat_names(table: "Table") -> list:
    """Per seat: the player's name, ``guest:NAME`` for a guest, None for a computer player."""
    out = []
    for s in table.seats:
        if s.kind != "human":
            out.append(None)
        elif s.guest:
            out.append(f"guest:{s.name}")
        else:
            out.append(s.name)
    return out


def table_settings(table: "Table") -> dict:
    """What a restart needs besides the log: the timer, visibility and who holds each seat."""
    return {"timer": table.timer, "private": table.private, "code": table.code,
            "seats": [{"kind": s.kind, "name": s.name, "ident": s.ident, "guest": s.guest,
                       "level": s.level, "replaced": s.replaced} for s in table.seats]}


class TableStore:
    """What ``Registry`` calls (the NullStore interface), backed by SQLite."""

    def __init__(self, store: Store):
        self.store = store

    def table_created(self, table: "Table") -> None:
        pass                                  # nothing to keep until the match starts

    def match_started(self, table: "Table") -> None:
        record = table.match.to_dict()
        table.match_id = self.store.create_match(table.id, record, seat_names(table),
                                                 table_settings(table))

    def action(self, table: "Table", seat: int, action: dict) -> None:
        mid = getattr(table, "match_id", None)
        if mid is None:
            return
        self.store.append_action(mid, len(table.match.log) - 1, seat, action)

    def seats_changed(self, table: "Table") -> None:
        mid = getattr(table, "match_id", None)
        if mid is not None:
            self.store.set_seats(mid, seat_names(table), table_settings(table))

    def match_over(self, table: "Table") -> None:
        mid = getattr(table, "match_id", None)
        if mid is None:
            return
        table.points = self.store.finish_match(mid, table.match)

    def table_removed(self, table: "Table") -> None:
        mid = getattr(table, "match_id", None)
        if mid is not None and table.status == "playing":
            self.store.abandon(mid)


def restore(registry: "Registry", store: Store) -> int:
    """Bring back every unfinished match as a playing table; returns how many."""
    from engine import replay

    from . import bots
    from .tables import Seat, Table

    n = 0
    highest = 0
    for sm in store.unfinished():
        try:
            match = replay(sm.record)
        except Exception:
            log.exception("match %s cannot be replayed; left as it is", sm.id)
            continue
        if sm.table_id.isdigit():
            highest = max(highest, int(sm.table_id))
        if match.result is not None:
            # The last action was stored, then the process died before the result was:
            # record it now (once), and list no table for a match that is over.
            store.finish_match(sm.id, match)
            continue
        settings = sm.settings
        table = Table(registry, sm.table_id, match.game, match.length,
                      int(settings.get("timer", 0)), bool(settings.get("private")))
        table.code = settings.get("code")
        for i, info in enumerate(settings.get("seats", [])):
            kind = info.get("kind", "empty")
            if sm.seats[i] is None and kind == "human":
                # Stored before seat settings were kept on every change: a computer
                # player replaced this person since the start (Tarneeb leave, T-26).
                table.seats[i] = Seat("bot", bots.BOT_NAMES[i], replaced=info.get("name"),
                                      level=info.get("level", "strong"))
                continue
            table.seats[i] = Seat(kind, info.get("name"), info.get("ident"),
                                  bool(info.get("guest")), replaced=info.get("replaced"),
                                  level=info.get("level", "strong"))
        table.match = match
        table.match_id = sm.id
        table.status = "playing"
        table.counts_for_points = sm.humans_throughout
        registry.tables[table.id] = table
        n += 1
    registry.skip_ids(highest)
    return n


def schedule_restored(registry: "Registry") -> None:
    """Once the loop runs: computer players and timers resume where they were."""
    for table in registry.tables.values():
        if table.status == "playing":
            table._schedule()
