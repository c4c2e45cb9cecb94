"""One room across processes: every table is *driven* by one process (its engine, timers
and computer players run there); the other processes show it and forward what their
members do.

- On the driver, a member connected to another process is a ``RemoteMember``
  (``requests.py``): the table treats it as any member, and what the table tells it (a
  seat granted, a refusal, a kick) goes back to its process.
- Elsewhere, the table's ``replica`` (``replica.py``) stands for its driving parts: it
  shows the driver's last *frame* (every seat's view, the narration, chat, seats, the
  turn timer — what the driver shows, so stored before shown holds) and sends its
  members' requests to the driver. The checks
  a frame can answer (your turn, a free seat, the chat limit) are made at once; the
  driver checks everything again, and its refusal comes back as the member's error.
- ``ClusterSide`` keeps both, lists every process's tables in the lobby, takes over a
  table whose driver died (``adopt``: the match replayed from the stored log), and ends
  the seats' connections of a process that died.

The transport (``server.cluster``: PostgreSQL tables, LISTEN/NOTIFY, leases) implements
``Cluster``; nothing here does I/O.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Callable
from itertools import count
from typing import Any

from engine import replay

from .errors import N_, RoomError, Said
from .events import TableChange, What
from .frames import (
    Damaged,
    RowRead,
    checked_frame,
    checked_row,
    is_int,
    unpack,
)
from .members import Member
from .narration import Event
from .publishing import Publisher
from .registry import Registry
from .replica import Replica, RequestArgs
from .requests import Cluster, RemoteMember, RequestBody, Requests, Told
from .running import new_table
from .stats import STATS
from .store import StoredMatch
from .table import Table

log = logging.getLogger("lamma.cluster")


def _back_at(table: Table, member: Member, held_in: Table | None = None) -> bool:
    """``member`` at ``table`` again: in the seat they hold (at ``held_in``, the same
    table as another object), or watching. False if refused."""
    seats = (held_in or table).seats
    seat = next((i for i, s in enumerate(seats) if s.held_by(member)), None)
    try:
        if seat is not None:
            table.sit(member, seat)
        else:
            table.watch(member)
    except RoomError:
        return False
    return True


# A lookup that missed the listing reads the table's row again this often (seconds).
LOOKUP_AGAIN = 0.1
EVENTS_READ = 500       # a table's stored events read at a time (server.cluster's limit)
# A seat given by a driver is shown with a frame at least as new as its table then; if
# none comes within this (seconds), with the one here.
AWAIT_FRAME = 5.0


class ClusterSide:
    """The registry's part of a room that spans processes."""

    def __init__(self, registry: Registry, cluster: Cluster):
        self.registry = registry
        self.cluster = cluster
        self.process = cluster.process
        self.remote: dict[str, Replica] = {}            # every other process's table
        self.remote_members: dict[tuple[str, str], RemoteMember] = {}
        self._sessions: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()
        self._sid: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self._ids = count(1)
        self._sid_prefix = cluster.token
        # What this process writes of the tables it drives (its rows, events, frames).
        self.publisher = Publisher(registry, cluster)
        self.epochs = self.publisher.epochs                 # tables this process drives
        self._rows_due = False
        self._rows_fetching = False
        self._damaged: set[tuple[str, str]] = set()         # (row | frame, table) said
        self.on_login: Callable[[str, str, str], None] | None = None   # the server's
        # Requests from members elsewhere run here, and what drivers tell ours.
        self.requests = Requests(self)

    # ------------------------------------------------------------ sessions
    def own_session(self, sid: str) -> Member | None:
        """This process's member with session id ``sid``, while it is connected."""
        member: Member | None = self._sessions.get(sid)
        return member if member is not None and not member.closed else None

    def session_of(self, member: Member) -> str:
        sid = self._sid.get(member)
        if sid is None:
            sid = f"{self._sid_prefix}-{next(self._ids)}"
            self._sid[member] = sid
            self._sessions[sid] = member
        return sid

    def request(self, table: Table, member: Member | None, op: str,
                args: RequestArgs) -> None:
        body: RequestBody = {"op": op, "args": args}
        sid = ""
        if member is not None:
            sid = self.session_of(member)
            body["name"], body["ident"] = member.name, member.ident
            body["guest"], body["address"] = member.guest, getattr(member, "address", "")
        STATS.cluster_requests.inc()
        self.cluster.request(table.id, sid, body)

    def new_table_id(self) -> str:
        """A table id unique in the whole room."""
        return self.cluster.new_table_id()

    # ------------------------------------------------------------ driving
    def mark(self, table: Table) -> list[int]:
        """``Side``: the publisher's (``Publisher.mark``)."""
        return self.publisher.mark(table)

    def frame_written(self, table: Table, what: What = "state") -> bool:
        """``Side``: the publisher's (``Publisher.frame_written``)."""
        return self.publisher.frame_written(table, what)

    def shown(self, table: Table) -> None:
        """A table made here: its row's first turn (``claim_new_table``; a board's row,
        written with its first frame, begins at it too)."""
        table.epoch = 0
        self.publisher.shown(table)

    def table_removed(self, table: Table) -> None:
        self.publisher.forget(table.id)
        for key, rm in list(self.remote_members.items()):
            if rm.table is None and not any(s.held_by(rm) for s in table.seats):
                self.remote_members.pop(key, None)
        self.cluster.gone(table)

    def requests_waiting(self, tid: str) -> None:
        """A request for ``tid`` was sent: run by ``requests`` if we drive it."""
        self.requests.waiting(tid)


    def process_gone(self, process: str, keep: str | None = None) -> None:
        """Another process stopped answering: its members' seats are held for them (they
        come back through another process), its spectators leave. ``keep``: it started
        again; the sessions of this start (ids ``keep-N``) stay."""
        for key, rm in list(self.remote_members.items()):
            if key[0] != process or (keep is not None and key[1].startswith(keep + "-")):
                continue
            self.remote_members.pop(key, None)
            rm.closed = True
            if rm.table is not None:
                try:
                    rm.table.detach(rm, keep_seat=True)
                except Exception:
                    log.exception("detaching a member of process %s", process)

    def adopt(self, stored: StoredMatch, epoch: int, frame: dict[str, Any] | None,
              seq: int = 0) -> None:
        """This process won the lease of a table whose driver died: the match is
        replayed from the stored log and played on here; members elsewhere come back
        to it (they see the new driver's first event and send their seats again).
        ``seq``: the number of the table's last stored event (ours go on from it)."""
        tid = stored.table_id
        old = self.remote.pop(tid, None)
        match = replay(stored.record)
        if match.result is not None:
            return
        table = self.registry.resume(tid, match, stored.id, stored.settings, stored.seats,
                                     counts_for_points=stored.humans_throughout)
        table.epoch = epoch             # its writes fenced by our turn (``MatchStore``)
        f = None
        if frame is not None:
            try:
                f = checked_frame(tid, unpack(frame))
            except Exception as e:
                log.error("table %s: its last frame is damaged (%s); taken over without "
                          "its chat, narration and turn timer", tid, str(e)[:300])
        if f is not None:
            table.chat.extend((c[0], c[1]) for c in f.get("chat", []))
            said = f.get("said")
            table.chat_said = said if is_int(said) and said >= len(table.chat) \
                else len(table.chat)
            table.events.extend(Event(s, a, t, r) for s, a, t, r in f.get("events", []))
            table.version = int(f.get("version", 0)) + 1
            deadline_in, deadline_seat = f.get("deadline_in"), f.get("deadline_seat")
            if deadline_in is not None and deadline_seat is not None:
                table.carried_deadline = (time.time() + float(deadline_in),
                                          int(deadline_seat), len(match.log))
            if is_int(f.get("seq")):
                seq = max(seq, f["seq"])
        self.publisher.adopted(tid, epoch, seq, table.chat_said)
        if old is not None:
            old.pending.clear()
            for m in list(old.local):
                old.local.discard(m)
                m.table, m.seat = None, None
                # Our own members at it: attached here now (the seat, or watching).
                if _back_at(table, m):
                    m.table_changed(TableChange(table, "state"))
                else:
                    m.table_changed(TableChange(old.table, "closed"))
        table.turns.schedule()
        self.publisher.publish(table, force=True, tells=["state"])
        self.registry.lobby_changed()
        self.requests_waiting(tid)
        STATS.cluster_takeovers.inc()
        log.warning("table %s (match %s) taken over: its driver stopped answering", tid,
                    stored.id, extra={"table": tid, "event": "takeover"})

    def lease_lost(self, tid: str, ref: object = None) -> None:
        """Another process drives this table now (we did not renew in time): ours
        stops; our members show the other's. ``ref``: the match whose write was refused
        (a later copy of the table, taken back since, is not stopped for it)."""
        table = self.registry.tables.get(tid)
        if table is None or table.replica is not None:
            return
        if ref is not None and table.match_ref is not ref:
            return
        log.error("table %s: another process took it over; stopped here", tid,
                  extra={"table": tid, "event": "lease-lost"})
        STATS.cluster_lost.inc()
        local = [m for m in table.members() if not isinstance(m, RemoteMember)]
        if table.match_ref is not None:
            table.match_ref.broken = True       # its writes still queued are not made
        for m in local:
            # Taken off quietly: they are not told "closed", they go on at the copy.
            table.watchers.discard(m)
            for s in table.seats:
                if s.member is m:
                    s.member = None
            m.table, m.seat = None, None
        table.close()
        del self.registry.tables[tid]
        self.publisher.forget(tid)
        rt = self.remote_table(tid)
        for m in local:
            m.notice(Said(N_("This table moved to another server of the room; you are "
                             "back at it.")))
            if _back_at(rt.table, m, held_in=table):
                m.table_changed(TableChange(rt.table, "state"))
            else:
                m.table_changed(TableChange(table, "closed"))
        self.registry.lobby_changed()

    def reattach(self, table: Replica) -> None:
        for m in list(table.local):
            seat = m.seat if m.seat is not None else table.pending.get(m)
            if seat is not None:
                self.request(table.table, m, "sit", {"seat": seat})
            elif table.request_of(m) is None:
                self.request(table.table, m, "watch", {})

    # ------------------------------------------------------------ showing
    def shown_tables(self) -> list[Table]:
        """The other processes' tables, as this one shows them."""
        return [rt.table for rt in list(self.remote.values())]

    def remote_table(self, tid: str) -> Replica:
        rt = self.remote.get(tid)
        if rt is None:
            rt = self.remote[tid] = Replica(self, new_table(self.registry, tid, "estimation", None))
        return rt

    def table_changed(self, tid: str, row: RowRead | None = None,
                      seq: int | None = None, events: list[Any] | None = None) -> None:
        """The driver of ``tid`` published: its row, when the notice carried it, is
        listed at once (checked as a read one is); else every row is read again. A
        table our members are at applies the events up to ``seq`` (the last the driver
        wrote): those the notice carried, in order, else (or at a gap) the stored ones."""
        if row is not None:
            self._apply_one(row)
        else:
            self.rows_changed()
        rt = self.remote.get(tid)
        if rt is None or not (rt.local or rt.first is not None):
            return
        if is_int(seq) and rt.frame is not None and not rt.fetching:
            if seq <= rt.seq:
                return                  # nothing new for us (a row, or a frame carried)
            if events:
                try:
                    if rt.apply_events(events) and rt.seq >= seq:
                        self._damaged.discard(("frame", rt.id))
                        return
                except Damaged as e:
                    self.damaged("frame", rt.id, str(e))
                except Exception:
                    log.exception("showing table %s", rt.id)
        self._fetch(rt)

    def fetch(self, rt: Replica) -> None:
        """``rt``'s frame read again (the cluster: a word for us may have been missed)."""
        self._fetch(rt)

    def publish(self, table: Table, force: bool = False) -> None:
        """``table``'s row (and frame) written now (the cluster: after a takeover)."""
        self.publisher.publish(table, force)

    def _fetch(self, rt: Replica) -> None:
        """``rt``'s stored events after the last it applied, in order; its whole frame
        if it has none yet, or the events it needs are no longer kept."""
        if rt.fetching:
            rt.stale = True
            return
        rt.fetching, rt.stale = True, False

        def got_events(events: list[Any] | None) -> None:
            rt.fetching = False
            if events is None or not (rt.local or rt.first is not None) or rt.closed:
                return self._fetched(rt)
            try:
                if rt.apply_events(events):
                    self._damaged.discard(("frame", rt.id))
                    if len(events) >= EVENTS_READ:
                        rt.stale = True         # more than one read holds
                    return self._fetched(rt)
            except Damaged as e:
                self.damaged("frame", rt.id, str(e))
            except Exception:
                log.exception("showing table %s", rt.id)
            # The next one is not kept (or cannot be read): the whole frame, once.
            rt.fetching = True
            STATS.cluster_frame_reads.inc()
            self.cluster.fetch_frame(rt.id, got)

        def got(frame: dict[str, Any] | None) -> None:
            rt.fetching = False
            seq = frame.get("seq") if frame is not None else None
            if frame is not None and rt.frame is not None and is_int(seq) and seq < rt.seq \
                    and (frame.get("driver"), frame.get("epoch")) == (rt.driver, rt.epoch):
                frame = None        # older than what is shown (its events stopped at a gap)
            if frame is not None and (rt.local or rt.first is not None) and not rt.closed:
                try:
                    rt.apply_frame(frame)
                    self._damaged.discard(("frame", rt.id))
                except Damaged as e:
                    self.damaged("frame", rt.id, str(e))
                except Exception:
                    log.exception("showing table %s", rt.id)
            self._fetched(rt)

        if rt.frame is None:
            STATS.cluster_frame_reads.inc()
            self.cluster.fetch_frame(rt.id, got)
        else:
            STATS.cluster_event_reads.inc()
            self.cluster.fetch_events(rt.id, rt.seq, got_events)

    def unshown(self, tid: str) -> bool:
        rt = self.remote.get(tid)
        return rt is not None and not rt.local and not rt.closed

    def unwatched(self, tid: str) -> None:
        """Someone read ``tid``'s frame to watch it and did not (refused, or gone):
        the frame is not kept for nobody (it would go stale)."""
        rt = self.remote.get(tid)
        if rt is not None and not rt.local and rt.first is None and rt.frame is not None:
            rt.unseen()

    async def shown_first(self, tid: str, within: float = 2.0) -> None:
        """The frame of a table nobody here shows yet, read (``within`` s at most)
        before a member comes to watch it: a line said after they are told "watching"
        is then an event after that frame (heard as a line), not a part of the first
        frame (its past, shown but not said)."""
        rt = self.remote.get(tid)
        if rt is None or rt.local or rt.closed:
            return
        if rt.frame is not None and not rt.fetching:
            rt.unseen()             # its events stopped being applied when it was
        if rt.first is None:
            rt.first = asyncio.get_running_loop().create_future()
        first = rt.first
        self._fetch(rt)
        try:
            await asyncio.wait_for(asyncio.shield(first), within)
        except TimeoutError:
            log.warning("table %s: its frame did not come in %.0f s", tid, within)

    def _fetched(self, rt: Replica) -> None:
        if rt.stale and (rt.local or rt.first is not None):
            self._fetch(rt)
            return
        if rt.first is not None:
            # Shown: the one who waited for it comes (``shown_first``).
            if not rt.first.done():
                rt.first.set_result(None)
            rt.first = None
        if rt.awaiting and not rt.closed:
            # The frame that shows a seat given is not written yet (or its notice was
            # lost): read again soon rather than wait for a notice.
            asyncio.get_running_loop().call_later(LOOKUP_AGAIN, self._await_frame, rt)

    def _await_frame(self, rt: Replica) -> None:
        if rt.closed or not rt.awaiting or rt.fetching:
            return
        if asyncio.get_running_loop().time() - rt.awaiting_since > AWAIT_FRAME:
            log.warning("table %s: no frame as new as its driver's within %.0f s; seats "
                        "shown with the one here", rt.id, AWAIT_FRAME,
                        extra={"table": rt.id, "event": "frame-late"})
            if rt.show_awaiting(anyway=True):
                rt.table.notify("state")
            return
        self._fetch(rt)

    def rows_changed(self) -> None:
        """Some table's row changed: every row is read again, at most once a second."""
        if self._rows_fetching:
            self._rows_due = True
            return
        self._rows_fetching, self._rows_due = True, False
        self.cluster.fetch_rows(self._got_rows)

    def _got_rows(self, rows: list[RowRead] | None) -> None:
        try:
            if rows is not None:
                self._apply_rows(rows)
        finally:
            def again() -> None:
                self._rows_fetching = False
                if self._rows_due:
                    self.rows_changed()
            asyncio.get_running_loop().call_later(self.registry.lobby_interval, again)

    async def fresh_rows(self, within: float = 3.0) -> None:
        """Every table's row as it is now (a person arriving finds a seat they hold
        even at a table that changed within the lobby's second)."""
        got: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def done(rows: list[RowRead] | None) -> None:
            try:
                if rows is not None:
                    self._apply_rows(rows)
            finally:
                if not got.done():
                    got.set_result(None)
        self.cluster.fetch_rows(done)
        try:
            await asyncio.wait_for(got, within)
        except TimeoutError:
            log.warning("cluster: the tables' rows did not come in %.0f s", within)

    async def fresh_table(self, tid: str | None = None, code: str | None = None,
                          within: float = 1.0) -> None:
        """A join, watch or code that this process's listing does not know: the
        table's row read now, and again every ``LOOKUP_AGAIN`` s for ``within`` s (a
        table made through another process a moment ago is listed here as soon as its
        driver has stored its row)."""
        loop = asyncio.get_running_loop()
        until = loop.time() + within
        while True:
            got: asyncio.Future[bool] = loop.create_future()

            def done(rows: list[RowRead] | None, got: asyncio.Future[bool] = got
                     ) -> None:
                found = False
                try:
                    for raw in rows or []:
                        found = self._apply_one(raw) or found
                finally:
                    if not got.done():
                        got.set_result(found)
            self.cluster.fetch_row(tid, code, done)
            try:
                if await asyncio.wait_for(got, max(0.1, until - loop.time() + 1.0)):
                    return
            except TimeoutError:
                return
            if loop.time() + LOOKUP_AGAIN > until:
                return
            await asyncio.sleep(LOOKUP_AGAIN)

    def _apply_one(self, raw: RowRead) -> bool:
        """One table's row as read: listed here (True), or damaged (said once)."""
        try:
            info = checked_row(raw)
        except Damaged as e:
            self.damaged("row", str(raw.get("id")), str(e))
            return False
        tid = info["id"]
        own = self.registry.tables.get(tid)
        if own is not None and own.replica is None:
            return True
        if self.remote_table(tid).apply_row(info):
            self.registry.lobby_changed()
        return True

    def damaged(self, what: str, tid: str, why: str) -> None:
        """A table's shared row (or frame) that cannot be shown: said once (per table,
        here), not on every read, until it reads whole again."""
        if (what, tid) in self._damaged:
            return
        self._damaged.add((what, tid))
        log.error("table %s: its shared %s is damaged (%s); not shown here", tid[:40],
                  what, why[:300])

    def _apply_rows(self, rows: list[RowRead]) -> None:
        changed = False
        seen = set()
        for raw in rows:
            try:
                info = checked_row(raw)
            except Damaged as e:
                tid = str(raw.get("id"))
                self.damaged("row", tid, str(e))
                if tid in self.remote:
                    seen.add(tid)           # shown as last read whole, not closed
                continue
            tid = info["id"]
            self._damaged.discard(("row", tid))
            own = self.registry.tables.get(tid)
            if own is not None and own.replica is None:
                continue
            seen.add(tid)
            rt = self.remote_table(tid)
            changed = rt.apply_row(info) or changed
            if rt.local and rt.driver == "":
                self._fetch(rt)
        for tid in list(self.remote):
            if tid not in seen:
                rt = self.remote.pop(tid)
                rt.close()
                changed = True
        if changed:
            self.registry.lobby_changed()

    def table_gone(self, tid: str) -> None:
        rt = self.remote.pop(tid, None)
        if rt is not None:
            rt.close()
            self.registry.lobby_changed()

    def told(self, session: str, message: Told) -> None:
        """The driver of a table tells one of our members something (``requests``)."""
        self.requests.told(session, message)


def join_cluster(registry: Registry, cluster: Cluster) -> ClusterSide:
    """From now on ``registry`` is one process of a room that spans several: table ids
    are the room's, the lobby lists every process's tables."""
    side = ClusterSide(registry, cluster)
    registry.side = side
    return side
