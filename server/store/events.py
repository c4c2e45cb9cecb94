"""Duplicate events (``engine.room.store.EventStore``): the events, one entry per key,
each board's result (written with the board's match by ``matches.finish_board``), and
which boards an entrant has been dealt (the matches that are an event's boards)."""

from __future__ import annotations

import json
import logging
import time
from typing import cast

from engine.room.store import BoardStarted, EntryRow, EventRow, KeptFacts, ResultRow

from .database import Database

log = logging.getLogger("lamma.store")

_EVENT = ("id, game, boards, seed, samples, opens, closes, private, code, creator, "
          "creator_name, daily")


def _event(row) -> EventRow:
    (eid, game, boards, seed, samples, opens, closes, private, code, creator, creator_name,
     daily) = row
    return EventRow(int(eid), game, int(boards), int(seed), int(samples), float(opens),
                    float(closes), bool(private), code, creator, creator_name, daily)


class EventRows(Database):
    """Events, entries and results."""

    def create_event(self, event: EventRow) -> EventRow | None:
        rows = self._x(
            "INSERT INTO events (game, boards, seed, samples, opens, closes, private, code, "
            "creator, creator_name, daily, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (daily) DO NOTHING RETURNING id",
            (event.game, event.boards, str(event.seed), event.samples, event.opens,
             event.closes, int(event.private), event.code, event.creator,
             event.creator_name, event.daily, time.time())).fetchall()
        if not rows:
            return None                 # that day's daily event is made already
        return self.event(int(rows[0][0]))

    def event(self, event_id: int) -> EventRow | None:
        row = self._x(f"SELECT {_EVENT} FROM events WHERE id = ?", (event_id,)).fetchone()
        return _event(row) if row else None

    def events(self, since: float) -> list[EventRow]:
        rows = self._x(f"SELECT {_EVENT} FROM events WHERE closes >= ? ORDER BY id",
                       (since,)).fetchall()
        return [_event(r) for r in rows]

    def event_with_code(self, code: str) -> EventRow | None:
        row = self._x(f"SELECT {_EVENT} FROM events WHERE code = ?", (code,)).fetchone()
        return _event(row) if row else None

    def close_event(self, event_id: int, at: float) -> bool:
        cur = self._x("UPDATE events SET closes = ? WHERE id = ? AND closes > ?",
                      (at, event_id, at))
        return cur.rowcount == 1

    def open_events(self, now: float, creator: str | None) -> int:
        if creator is None:
            row = self._x("SELECT COUNT(*) FROM events WHERE closes > ? "
                          "AND creator IS NOT NULL", (now,)).fetchone()
        else:
            row = self._x("SELECT COUNT(*) FROM events WHERE closes > ? AND creator = ?",
                          (now, creator)).fetchone()
        return int(row[0])

    def add_entry(self, event_id: int, entrant: str, name: str, at: float) -> bool:
        rows = self._x("INSERT INTO event_entries (event_id, entrant, name, started) "
                       "VALUES (?, ?, ?, ?) ON CONFLICT (event_id, entrant) DO NOTHING "
                       "RETURNING event_id", (event_id, entrant, name, at)).fetchall()
        return bool(rows)

    def entry(self, event_id: int, entrant: str) -> EntryRow | None:
        row = self._x("SELECT event_id, entrant, name, started FROM event_entries "
                      "WHERE event_id = ? AND entrant = ?", (event_id, entrant)).fetchone()
        return EntryRow(int(row[0]), row[1], row[2], float(row[3])) if row else None

    def entries(self, event_id: int) -> list[EntryRow]:
        rows = self._x("SELECT event_id, entrant, name, started FROM event_entries "
                       "WHERE event_id = ? ORDER BY started", (event_id,)).fetchall()
        return [EntryRow(int(r[0]), r[1], r[2], float(r[3])) for r in rows]

    def entered(self, entrant: str) -> dict[int, int]:
        rows = self._x("SELECT e.event_id, (SELECT COUNT(*) FROM event_results r "
                       "WHERE r.event_id = e.event_id AND r.entrant = e.entrant) "
                       "FROM event_entries e WHERE e.entrant = ?", (entrant,)).fetchall()
        return {int(r[0]): int(r[1]) for r in rows}

    def results(self, event_id: int) -> list[ResultRow]:
        out = []
        for r in self._x("SELECT event_id, entrant, name, board, seat, score, facts, match_id "
                         "FROM event_results WHERE event_id = ? ORDER BY board, entrant",
                         (event_id,)):
            try:
                facts = json.loads(r[6])
            except ValueError:
                log.error("event %s: a result's facts cannot be read; shown without them",
                          event_id)
                facts = {}
            out.append(ResultRow(int(r[0]), r[1], r[2], int(r[3]), int(r[4]), int(r[5]),
                                 # As kept (read with care: duplicate._result).
                                 cast("KeptFacts", facts) if isinstance(facts, dict) else {},
                                 None if r[7] is None else int(r[7])))
        return out

    def claim_board(self, event_id: int, entrant: str, board: int, at: float,
                    stale: float) -> bool:
        # Inserted, or taken again when the claim is older than ``stale`` and no match
        # was ever stored for it (a process died between the claim and the deal).
        rows = self._x(
            "INSERT INTO event_deals (event_id, entrant, board, at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (event_id, entrant, board) DO UPDATE SET at = excluded.at "
            "WHERE event_deals.at < ? AND NOT EXISTS (SELECT 1 FROM matches m WHERE "
            "m.event_id = event_deals.event_id AND m.entrant = event_deals.entrant AND "
            "m.event_board = event_deals.board) RETURNING event_id",
            (event_id, entrant, board, at, at - stale)).fetchall()
        return bool(rows)

    def boards_started(self, event_id: int, entrant: str) -> list[BoardStarted]:
        rows = self._x("SELECT event_board, table_id, id, finished FROM matches "
                       "WHERE event_id = ? AND entrant = ? ORDER BY event_board",
                       (event_id, entrant)).fetchall()
        return [BoardStarted(int(r[0]), r[1], int(r[2]), r[3] is not None) for r in rows]
