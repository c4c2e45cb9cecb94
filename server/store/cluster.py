"""One room across processes (PostgreSQL only; ``server.cluster``): every table with
the process that drives it, its lobby row and what it shows; requests of members
connected elsewhere; the processes and their heartbeats (each one's lease on the
tables it drives); the room's table-id counter; and NOTIFY, by which they hear of it.

Times are the database's (``NOW``), so the processes' clocks never have to agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from engine.room.store import StoredMatch

from .database import NOW
from .matches import MatchRows

# The transaction lock under which a table is counted against the room's caps and
# claimed (one creation at a time in the whole room; a few milliseconds each).
CREATION_LOCK = 4_141_041_041


class ClusterRows(MatchRows):
    """The shared tables of a room across processes, each statement named."""

    # ---- the connection ----------------------------------------------------------
    def set_session(self, settings: list[str] | tuple[str, ...]) -> None:
        """``SET`` statements for this connection, now and after a reconnection."""
        self.session = list(settings)
        for setting in self.session:
            self._x(setting)

    @contextmanager
    def durably(self) -> Iterator[None]:
        """Commits that wait for the disk within (a connection whose commits do not)."""
        self._x("SET synchronous_commit = on")
        try:
            yield
        finally:
            self._x("SET synchronous_commit = off")

    def notify(self, channel: str, text: str) -> None:
        self._x("SELECT pg_notify(?, ?)", (channel, text))

    def now(self) -> float:
        return float(self._x(f"SELECT {NOW}").fetchone()[0])

    # ---- processes ---------------------------------------------------------------
    def heartbeat_of(self, process: str) -> tuple[float, float] | None:
        """(when ``process`` was last seen, how long ago), or None."""
        row = self._x(f"SELECT seen, {NOW} - seen FROM room_processes WHERE name = ?",
                      (process,)).fetchone()
        return None if row is None else (float(row[0]), float(row[1]))

    def beat(self, process: str, token: str, at: float | None = None) -> None:
        """``process`` (this start of it: ``token``) is alive at ``at`` (now)."""
        when = "?" if at is not None else NOW
        args: tuple[Any, ...] = (process, at, token) if at is not None else (process, token)
        self._x(f"INSERT INTO room_processes (name, seen, token) VALUES (?, {when}, ?) "
                "ON CONFLICT (name) DO UPDATE SET seen = excluded.seen, "
                "token = excluded.token", args)

    def stop_beating(self, process: str, token: str) -> None:
        """``process`` stops: its leases end at once."""
        self._x("UPDATE room_processes SET seen = 0 WHERE name = ? AND token = ?",
                (process, token))

    def other_processes(self, process: str) -> list[tuple[str, float, str, float]]:
        """(name, last seen, token, when its people's names were written) of every other
        process (database time)."""
        return [(str(n), float(s), str(t), float(a or 0.0)) for n, s, t, a in self._x(
            "SELECT name, seen, token, names_at FROM room_processes WHERE name <> ?",
            (process,)).fetchall()]

    def set_people(self, process: str, people: str) -> None:
        """Who is connected to ``process`` now (JSON: a list of lines for /who)."""
        self._x("UPDATE room_processes SET people = ? WHERE name = ?", (people, process))

    def people_of_processes(self, since: float) -> list[tuple[str, str | None]]:
        """(name, people) of every process seen since ``since`` (database time)."""
        return [(str(n), p) for n, p in self._x(
            "SELECT name, people FROM room_processes WHERE seen >= ? ORDER BY name",
            (since,)).fetchall()]

    def set_names(self, process: str, names: str) -> None:
        """The names of the people connected to ``process`` now (JSON: a list), with
        when they were written (the others read them again only then)."""
        self._x(f"UPDATE room_processes SET names = ?, names_at = {NOW} WHERE name = ?",
                (names, process))

    def names_of_processes(self, processes: list[str]) -> list[tuple[str, str | None]]:
        """(name, names) of these processes."""
        return [(str(n), t) for n, t in self._x(
            "SELECT name, names FROM room_processes WHERE name = ANY(?)",
            (processes,)).fetchall()]

    def forget_processes(self, before: float) -> None:
        self._x("DELETE FROM room_processes WHERE seen < ?", (before,))

    # ---- table ids -------------------------------------------------------------------
    def reserve_table_ids(self, at_least: int, block: int) -> int:
        """Reserves ``block`` table ids above ``at_least`` and every id given before;
        returns the highest."""
        with self._tx():
            self._x("INSERT INTO room_counters (name, value) VALUES ('table', 0) "
                    "ON CONFLICT (name) DO NOTHING")
            return int(self._x("UPDATE room_counters SET value = GREATEST(value, ?) + ? "
                               "WHERE name = 'table' RETURNING value",
                               (at_least, block)).fetchone()[0])

    # ---- tables ------------------------------------------------------------------
    def claim_new_table(self, tid: str, process: str, creator: str | None, here: int,
                        mine_here: int, max_tables: int, per_person: int | None,
                        address: str = "", address_here: int = 0,
                        per_address: int | None = None) -> tuple[str, int] | None:
        """A new table's row, claimed if the room's caps allow it: counted with every
        other process's tables (``here``, ``mine_here``, ``address_here``: this
        process's, as it knows them best) in the transaction that inserts the row, one
        creation at a time room-wide (a transaction lock), so creations racing through
        several processes cannot pass a cap together. None if claimed; else what is
        full: ("room", the tables), ("person", the creator's open tables) or ("address",
        the open tables made from ``address``)."""
        with self._tx():
            # Never a long wait: another process frozen in here is not waited on for
            # long, nor left holding the lock.
            # A claim lost in a database crash is a table nobody has yet: no fsync
            # waited for (nor the lock held meanwhile).
            self._x("SET LOCAL synchronous_commit = off")
            self._x("SET LOCAL lock_timeout = '1s'")
            self._x("SET LOCAL idle_in_transaction_session_timeout = '5s'")
            self._x("SELECT pg_advisory_xact_lock(?)", (CREATION_LOCK,))
            room, mine, theirs = self._x(
                "SELECT COUNT(*), COUNT(*) FILTER (WHERE creator = ? AND status <> 'over'), "
                "COUNT(*) FILTER (WHERE address = ? AND status <> 'over') "
                "FROM room_tables WHERE counted = 1 AND driver <> ?",
                (creator or "", address, process)).fetchone()
            if int(room) + here >= max_tables:
                return "room", int(room) + here
            if creator is not None and per_person is not None and \
                    int(mine) + mine_here >= per_person:
                return "person", int(mine) + mine_here
            if address and per_address is not None and \
                    int(theirs) + address_here >= per_address:
                return "address", int(theirs) + address_here
            self._x("INSERT INTO room_tables (id, driver, epoch, status, row, holders, "
                    f"creator, counted, address, updated) VALUES (?, ?, 0, 'waiting', '{{}}', "
                    f"'[]', ?, 1, ?, {NOW})", (tid, process, creator, address or None))
        return None

    def claim_table(self, tid: str, process: str, match_id: int | None, status: str,
                    private: bool, code: str | None, lease: float,
                    counted: bool = True) -> int | None:
        """A table this process resumed at start-up: ours still, or its driver is
        silent longer than ``lease`` (ours now). Its epoch, or None if another process
        drives it."""
        with self._tx():
            row = self._x(
                "INSERT INTO room_tables (id, driver, epoch, match_id, status, private, "
                f"code, row, holders, counted, updated) VALUES (?, ?, 0, ?, ?, ?, ?, '{{}}', "
                f"'[]', ?, {NOW}) ON CONFLICT (id) DO UPDATE SET driver = excluded.driver, "
                "epoch = room_tables.epoch + 1 WHERE room_tables.driver = excluded.driver "
                "OR NOT EXISTS (SELECT 1 FROM room_processes p WHERE "
                f"p.name = room_tables.driver AND p.seen >= {NOW} - ?) RETURNING epoch",
                (tid, process, match_id, status, int(private), code, int(counted),
                 lease)).fetchone()
        return None if row is None else int(row[0])

    def publish_table(self, tid: str, driver: str, match_id: int | None, status: str,
                      private: int, code: str | None, row: str, holders: str,
                      frame: str | None, creator: str | None = None,
                      keep_frame: bool = False) -> None:
        """A table's row (and frame) as its driver shows it now (only its driver's).
        ``keep_frame``: without a frame, the one written before stays (the events
        written with this row apply to it); else none is shown (nobody elsewhere)."""
        kept = "COALESCE(excluded.frame, room_tables.frame)" if keep_frame else "excluded.frame"
        self._x(
            "INSERT INTO room_tables (id, driver, epoch, match_id, status, private, code, "
            "row, holders, frame, creator, updated) VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, "
            f"{NOW}) ON CONFLICT (id) DO UPDATE SET match_id = excluded.match_id, "
            "status = excluded.status, private = excluded.private, code = excluded.code, "
            f"row = excluded.row, holders = excluded.holders, frame = {kept}, "
            "creator = excluded.creator, updated = excluded.updated "
            "WHERE room_tables.driver = excluded.driver",
            (tid, driver, match_id, status, private, code, row, holders, frame, creator))

    def drop_table(self, tid: str, driver: str | None = None) -> bool:
        """The table and its waiting requests go; with ``driver``, only if that process
        drives it. True if it was there."""
        if driver is None:
            gone = self._x("DELETE FROM room_tables WHERE id = ? RETURNING id",
                           (tid,)).fetchone()
        else:
            gone = self._x("DELETE FROM room_tables WHERE id = ? AND driver = ? RETURNING id",
                           (tid, driver)).fetchone()
        if gone is None:
            return False
        self._x("DELETE FROM room_requests WHERE table_id = ?", (tid,))
        self._x("DELETE FROM room_table_events WHERE table_id = ?", (tid,))
        return True

    # ---- a table's events (issue 41) ------------------------------------------------
    def append_table_events(self, tid: str, driver: str,
                            events: list[tuple[int, str, str]]) -> int:
        """``events`` (seq, kind, body) of table ``tid``, written only while ``driver``
        drives it (a driver whose lease was taken writes none) and each number once.
        How many were written."""
        written = 0
        for seq, kind, body in events:
            cur = self._x(
                "INSERT INTO room_table_events (table_id, seq, driver, epoch, kind, body) "
                "SELECT id, ?, driver, epoch, ?, ? FROM room_tables "
                "WHERE id = ? AND driver = ? ON CONFLICT (table_id, seq) DO NOTHING",
                (seq, kind, body, tid, driver))
            written += max(0, int(cur.rowcount))
        return written

    def table_events(self, tid: str, after: int, limit: int = 500
                     ) -> list[tuple[int, str, int, str, str]]:
        """(seq, driver, epoch, kind, body) of ``tid``'s events numbered after
        ``after``, in order."""
        return [(int(r[0]), r[1], int(r[2]), r[3], r[4]) for r in self._x(
            "SELECT seq, driver, epoch, kind, body FROM room_table_events "
            "WHERE table_id = ? AND seq > ? ORDER BY seq LIMIT ?",
            (tid, after, limit)).fetchall()]

    def last_table_event(self, tid: str) -> int:
        """The number of ``tid``'s last event (0: none)."""
        row = self._x("SELECT MAX(seq) FROM room_table_events WHERE table_id = ?",
                      (tid,)).fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def prune_table_events(self, tid: str, upto: int) -> None:
        """``tid``'s events numbered ``upto`` and before go (a frame holds them)."""
        self._x("DELETE FROM room_table_events WHERE table_id = ? AND seq <= ?",
                (tid, upto))

    def table_frame(self, tid: str) -> str | None:
        row = self._x("SELECT frame FROM room_tables WHERE id = ?", (tid,)).fetchone()
        return row[0] if row and row[0] else None

    def table_rows(self) -> list[tuple[str, str, str, str, str | None, str | None]]:
        """(id, driver, row, holders, code, creator) of every listed table, as written."""
        return [(r[0], r[1], r[2], r[3], r[4], r[5]) for r in self._x(
            "SELECT id, driver, row, holders, code, creator FROM room_tables "
            "WHERE row <> '{}'").fetchall()]

    def table_row(self, tid: str) -> list[tuple[str, str, str, str, str | None, str | None]]:
        """(id, driver, row, holders, code, creator) of one listed table (none if not
        listed)."""
        return [(r[0], r[1], r[2], r[3], r[4], r[5]) for r in self._x(
            "SELECT id, driver, row, holders, code, creator FROM room_tables "
            "WHERE id = ? AND row <> '{}'", (tid,)).fetchall()]

    def table_row_with_code(self, code: str
                            ) -> list[tuple[str, str, str, str, str | None, str | None]]:
        """(id, driver, row, holders, code, creator) of the listed table with this private
        code (as stored: normalised)."""
        return [(r[0], r[1], r[2], r[3], r[4], r[5]) for r in self._x(
            "SELECT id, driver, row, holders, code, creator FROM room_tables "
            "WHERE code = ? AND private = 1 AND row <> '{}'", (code,)).fetchall()]

    def tables_driven_elsewhere(self, tids: list[str], process: str) -> list[str]:
        """Which of ``tids`` another process drives now (we lost their lease)."""
        return [r[0] for r in self._x(
            "SELECT id FROM room_tables WHERE id = ANY(?) AND driver <> ?",
            (tids, process)).fetchall()]

    def orphan_tables(self, process: str, silent_since: float,
                      limit: int) -> list[tuple[str, str]]:
        """(id, driver) of tables not playing a stored match whose driver is gone."""
        return [(r[0], r[1]) for r in self._x(
            "SELECT t.id, t.driver FROM room_tables t LEFT JOIN room_processes p "
            "ON p.name = t.driver WHERE t.driver <> ? AND (p.seen IS NULL OR "
            "p.seen < ?) AND (t.status <> 'playing' OR t.match_id IS NULL) LIMIT ?",
            (process, silent_since, limit)).fetchall()]

    def expired_tables(self, process: str, silent_since: float,
                       limit: int) -> list[tuple[str, int, str]]:
        """(id, match id, driver) of playing tables whose driver's lease ran out."""
        return [(r[0], int(r[1]), r[2]) for r in self._x(
            "SELECT t.id, t.match_id, t.driver FROM room_tables t LEFT JOIN "
            "room_processes p ON p.name = t.driver WHERE t.driver <> ? AND "
            "(p.seen IS NULL OR p.seen < ?) AND t.status = 'playing' AND "
            "t.match_id IS NOT NULL ORDER BY t.updated LIMIT ?",
            (process, silent_since, limit)).fetchall()]

    def take_over(self, tid: str, process: str, driver: str, match_id: int,
                  silent_since: float, now: float
                  ) -> tuple[int, str | None, float, StoredMatch | None] | None:
        """Claims a table whose driver is silent, if it still is and nobody is in the
        middle of writing it (a frozen process's lock is skipped, not waited on); its
        match becomes ours. (epoch, its last frame, that frame's age, the stored
        match), or None if another got it first."""
        with self._tx():
            # The match first, as its writer takes it (an action's fence reads it FOR
            # SHARE, then the same commit may update the table's row): skipped while
            # locked, so a takeover never waits on a writer that waits on it (deadlock).
            if (self._x("SELECT 1 FROM matches WHERE id = ? FOR UPDATE SKIP LOCKED",
                        (match_id,)).fetchone() is None
                    and self._x("SELECT 1 FROM matches WHERE id = ?",
                                (match_id,)).fetchone() is not None):
                return None
            won = self._x(
                "UPDATE room_tables SET driver = ?, epoch = epoch + 1 WHERE id = "
                "(SELECT id FROM room_tables WHERE id = ? AND driver = ? FOR UPDATE "
                "SKIP LOCKED) AND NOT EXISTS (SELECT 1 FROM room_processes p WHERE "
                "p.name = room_tables.driver AND p.seen >= ?) "
                "RETURNING epoch, frame, ? - updated",
                (process, tid, driver, silent_since, now)).fetchone()
            if won is None:
                return None
            self._x("UPDATE matches SET process = ? WHERE id = ? AND finished IS NULL",
                    (process, match_id))
            stored = self.match(match_id)
        return int(won[0]), won[1], float(won[2]), stored

    # ---- requests from members elsewhere ----------------------------------------------
    def add_request(self, tid: str, origin: str, session: str, body: str) -> bool:
        """A request for the table's driver, if the table exists."""
        made = self._x("INSERT INTO room_requests (table_id, origin, session, body, at) "
                       f"SELECT ?, ?, ?, ?, {NOW} WHERE EXISTS (SELECT 1 FROM room_tables "
                       "WHERE id = ?) RETURNING id",
                       (tid, origin, session, body, tid)).fetchone()
        return made is not None

    def take_requests(self, tid: str) -> list[tuple[int, str, str, str]]:
        """The requests waiting for ``tid`` (now taken), in the order made."""
        return sorted((int(i), o, s, b) for i, o, s, b in self._x(
            "DELETE FROM room_requests WHERE table_id = ? RETURNING id, origin, session, "
            "body", (tid,)).fetchall())

    def tables_with_requests(self, tids: list[str]) -> list[str]:
        return [r[0] for r in self._x(
            "SELECT DISTINCT table_id FROM room_requests WHERE table_id = ANY(?)",
            (tids,)).fetchall()]
