"""One room across processes and machines, on PostgreSQL (issue 13).

Every process sharing a database is a part of one room (``engine.room.remote`` has the
room's side). Here is the transport, PostgreSQL only — no protocol of our own between
processes:

- ``room_tables``: one row per table: the process that drives it (and how many times it
  changed hands, ``epoch``), its lobby row, seat holders and, while members elsewhere
  show it, its frame. The driver writes it through the room's writer thread, after the
  table's own writes: stored before shown, everywhere. A takeover names the new driver
  here and in the match's row (``matches.process``) in one transaction; a driver's
  actions, seat changes and abandons are written only while the match's row names it
  and the table's row is still at the turn the writing table object was given
  (``Table.epoch``: an old copy of a table this process took back is refused too;
  ``Store._taken``).
- ``room_requests``: what members do at a table driven elsewhere, taken by its driver in
  order (``DELETE … RETURNING``).
- ``room_processes``: each process's heartbeat, every ``RENEW`` seconds by the database's
  clock: its lease on every table it drives. One silent for ``LEASE`` seconds loses its
  tables to whoever claims each first (``adopt``: the match replayed from the stored
  action log); silent for ``GONE_AFTER``, its members elsewhere are let go (their seats
  held for them).
- The room's people state (issue 41), one for every process: ``room_mutes`` (read
  again by every process on ``NOTIFY``), a table's claim against the room's caps
  (``claim_new_table``: counted and inserted under one lock), and each process's people
  in its ``room_processes`` row (``/who``, and the names a guest's may not look like).
- ``NOTIFY lamma``: "table changed", "request waiting", "a word for your session",
  "someone logged in under this name", "an operator's command", "the mutes changed",
  heartbeats and a goodbye; every process LISTENs on its own connection.

Store calls never run on the loop: the listener and one worker have threads and
connections of their own; results come back with ``call_soon_threadsafe``. The worker
never waits long on another process's lock (``WORKER_SESSION``), and its heartbeat runs
before whatever else is queued.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import queue
import secrets
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from engine.room.errors import RoomError
from engine.room.frames import RowRead, TableEvent
from engine.room.remote import ClusterSide, join_cluster
from engine.room.requests import Request, RequestBody, Told
from engine.room.rows import LobbyRow
from engine.room.store import StoredMatch, StoreUnavailable, finished, people_throughout
from engine.room.text import clean_name, name_key, skeleton

from .cluster_reads import EVENTS_READ, frame_carried, rows_read, with_events
from .store import MIGRATIONS, StoreError

if TYPE_CHECKING:
    from engine.room.registry import Registry
    from engine.room.table import Table

    from .persistence import TableStore
    from .store import Store

log = logging.getLogger("lamma.cluster")

CHANNEL = "lamma"
# Issue 41: a SIGKILLed driver's table moves again within 2 s: its lease lapses 1.2 s
# after its last heartbeat and another process's next tick (0.3 s) takes it over. A
# heartbeat is one small UPDATE, and goes before any queued work (see _tick).
LEASE = 1.2             # seconds a table's driver may be silent before another takes it
RENEW = 0.3             # seconds between heartbeats (each renews the process's lease)
GONE_AFTER = 10.0       # seconds of silence before a process is taken for dead (its
                        # members elsewhere let go); a table's lease lapses sooner
DEAF_AFTER = 4.0        # seconds without hearing our own heartbeat: listen again
PEOPLE_EVERY = 1.0      # who is connected here, written at most this often (/who)
FORGET_AFTER = 86400.0  # seconds after which a dead process's row is deleted
# The database's clock, not each machine's: leases compared across machines.
WORKER_SESSION = ("SET synchronous_commit = off", "SET lock_timeout = '1s'",
                  "SET statement_timeout = '5s'")
ID_BLOCK = 1000         # table ids reserved at a time
ADOPT_PER_TICK = 20     # tables taken over per heartbeat, at most (a dead process's many)
FLUSH_WAIT = 2.0        # seconds our own writes may take to land before a takeover reads
MAX_PAYLOAD = 7900      # NOTIFY's limit is 8000 bytes
EVENTS_KEPT = 256       # a table's last events kept (issue 41; older ones a frame holds)
PRUNE_EVERY = 64        # ... the older ones deleted once every this many


class ClusterError(StoreError):
    """This process cannot join the room on this database (the message says why)."""


def default_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _notify(store: Store, payload: dict[str, Any]) -> None:
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    if len(text.encode()) > MAX_PAYLOAD:
        log.error("cluster: a message of %d bytes is too long to send; dropped", len(text))
        return
    store.notify(CHANNEL, text)


@dataclass(frozen=True)
class Beat:
    """What a heartbeat found in the database (on the worker), for the loop
    (``PgCluster._ticked``)."""
    lost: list[str]             # tables of ours another process drives now
    dead: list[str]             # processes that stopped answering
    # Tables taken over: the stored match, our epoch, the dead driver's last frame (as
    # read, with the events after it) and the number of its last stored event.
    adopted: list[tuple[StoredMatch, int, dict[str, Any] | None, int]]
    waiting: list[str]          # tables of ours with requests nobody announced
    tokens: dict[str, str]      # process -> its start's token
    # Other processes' names: when each wrote them, and those read (changed) now.
    names: tuple[dict[str, float], list[tuple[str, str | None]]]
    # The database's schema where a newer Lamma migrated it (0: this version's): this
    # process then takes no table over and drains (``PgCluster.on_newer``).
    newer: int = 0


class PgCluster:
    """The room's ``Cluster`` on a PostgreSQL database shared by every process."""

    def __init__(self, store: Store, table_store: TableStore):
        self.store = store
        self.process = store.process
        self.table_store = table_store
        self.side: ClusterSide | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        # This start of the process: a process of the same name started again, or
        # started twice by mistake, is told apart (session ids, heartbeats).
        self.token = secrets.token_hex(6)
        # Told once when a heartbeat finds the database migrated by a newer Lamma (the
        # room's service drains this process: ``RoomService.newer_found``).
        self.on_newer: Callable[[int], None] | None = None
        self._newer_heard = False
        self._ids: list[int] = []
        self._refilling = False
        self._work: queue.SimpleQueue[Callable[[Store], None] | None] = queue.SimpleQueue()
        # Run before whatever waits in _work (the heartbeat: our lease on our tables).
        self._urgent: deque[Callable[[Store], None]] = deque()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._tick_handle: asyncio.Handle | None = None
        self._gone: set[str] = set()         # processes already known to have died
        self._ticking = False                # a heartbeat job is on its way
        self._heard_self = 0.0               # loop time our own heartbeat was last heard
        self._rows_waiting: list[Callable[[list[RowRead] | None], None]] = []
        self._deaf = False                   # set on the loop: the listener connects again
        # An operator's command given through another process (the server's Moderation).
        self.on_moderate: Callable[[str, list[str], str], None] | None = None
        # Who is connected here, as /who lists them (the server's Moderation sets it).
        self.people: Callable[[], list[str]] | None = None
        self._people_said = ""
        self._people_due = 0.0
        # ... and their names (a guest's name may not look like one in use anywhere).
        self.names: Callable[[], list[str]] | None = None
        self._names_said = ""
        self._names_read: dict[str, float] = {}          # process -> its names' time
        self._names_elsewhere: dict[str, dict[str, str]] = {}   # process -> skeletons
        self._mute_writes = 0               # mutes written, not yet committed

    # ------------------------------------------------------------ start, stop
    def prepare(self, registry: Registry) -> None:
        """At start-up, before the loop (blocking calls are fine here): ids above every
        table's, our heartbeat, and the tables this process resumed claimed (one another
        process took over meanwhile is left to it)."""
        side = registry.side if registry.side is not None else join_cluster(registry, self)
        assert isinstance(side, ClusterSide)
        self.side = side
        registry.claims = self              # the caps counted across the room
        highest = 0
        for tid in registry.tables:
            if tid.isdigit():
                highest = max(highest, int(tid))
        self._reserve(self.store, highest)
        other = self.store.heartbeat_of(self.process)
        if other is not None and other[1] < LEASE:
            # A heartbeat under our name, fresh: this process killed a moment ago, or
            # another one running under the same name. Listen for its next beat.
            time.sleep(2 * RENEW)
            again = self.store.heartbeat_of(self.process)
            if again is not None and again[0] > other[0]:
                raise ClusterError(f"another process named {self.process!r} is running on "
                                   "this database: give each process its own --process-name")
        # Our heartbeat from now: the tables we resume are ours, not a dead process's.
        self.store.beat(self.process, self.token)
        self.store.fenced = False
        for tid, table in list(registry.tables.items()):
            # Ours still, or its driver is silent: ours now (another process may have
            # taken it while we were away; then it is left to that one).
            epoch = self.store.claim_table(tid, self.process, table.match_id, table.status,
                                           table.private, table.code, LEASE,
                                           counted=table.event is None)
            if epoch is None:
                log.warning("table %s is driven by another process now; not resumed here", tid)
                table.close()
                del registry.tables[tid]
                continue
            table.epoch = epoch         # its writes fenced by this turn (``MatchStore``)
            # Its events numbered on from the last stored (an earlier run of this
            # process wrote them: numbering from 1 again would be dropped as copies).
            self.side.publisher.adopted(tid, epoch, self.store.last_table_event(tid),
                                        table.chat_said)

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        for target, name in ((self._listen, "lamma-cluster-listen"),
                             (self._work_loop, "lamma-cluster-work")):
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)
        assert self.side is not None
        for table in list(self.side.registry.tables.values()):
            self.side.publish(table, force=True)
        self.side.rows_changed()
        self.load_mutes()
        self._tick_handle = loop.call_soon(self._tick)

    def close(self) -> None:
        """After the tables' writes are flushed: our leases end now (another process
        takes our tables at once, not in LEASE s) and we are gone (the others let our
        members go at once)."""
        self._stopping.set()
        if self._tick_handle is not None:
            self._tick_handle.cancel()
        me = self.process

        def last(store: Store) -> None:
            store.stop_beating(me, self.token)
            _notify(store, {"k": "bye", "p": me})
        self._work.put(last)
        self._work.put(None)
        for t in self._threads:
            t.join(5)

    # ------------------------------------------------------------ threads
    def _on_loop(self, fn: Callable[..., None], *args: Any) -> None:
        if self.loop is None:
            return
        try:
            self.loop.call_soon_threadsafe(self._guarded, fn, *args)
        except RuntimeError:
            pass                            # the loop is closed

    @staticmethod
    def _guarded(fn: Callable[..., None], *args: Any) -> None:
        try:
            fn(*args)
        except Exception:
            log.exception("cluster: handling %s", getattr(fn, "__name__", fn))

    def _work_loop(self) -> None:
        store = self.store.another()
        store.fenced = False
        # What this connection writes is the room's messages and heartbeats, not moves:
        # no fsync to wait for (a lost request is a move not made, asked again). Nothing
        # it does may wait long on a lock another process holds (one frozen mid-write):
        # the heartbeat comes after it.
        store.set_session(WORKER_SESSION)
        while True:
            job = self._work.get()
            while self._urgent:
                try:
                    self._urgent.popleft()(store)
                except Exception:
                    log.exception("cluster: the heartbeat failed")
            if job is None:
                store.close()
                return
            try:
                job(store)
            except StoreUnavailable as e:
                log.warning("cluster: the database does not answer (%s)", e)
            except Exception:
                log.exception("cluster: a job failed")

    def _job(self, job: Callable[[Store], Any], done: Callable[[Any], None] | None = None,
             fallback: Any = None) -> None:
        """``job(store)`` on the worker thread; ``done(result)`` on the loop (with
        ``fallback`` if the job failed)."""
        def run(store: Store) -> None:
            try:
                result = job(store)
            except Exception:
                if done is not None:
                    self._on_loop(done, fallback)
                raise
            if done is not None:
                self._on_loop(done, result)
        self._work.put(run)

    def _listen(self) -> None:
        from .store.database import psycopg_module
        psycopg = psycopg_module()
        wait = 0.25
        first = True
        while not self._stopping.is_set():
            try:
                # TCP keepalives: a connection a firewall dropped silently is noticed
                db = psycopg.connect(self.store.target, autocommit=True, connect_timeout=5,
                                     keepalives=1, keepalives_idle=30, keepalives_interval=10,
                                     keepalives_count=3)
            except psycopg.Error as e:
                log.warning("cluster: cannot listen (%s); again in %.1f s", e, wait)
                self._stopping.wait(wait)
                wait = min(wait * 2, 10.0)
                continue
            wait = 0.25
            try:
                db.execute(f"LISTEN {CHANNEL}")
                if not first:
                    self._on_loop(self._resync)     # what was said meanwhile is unheard
                first = False
                self._deaf = False
                while not self._stopping.is_set() and not self._deaf:
                    for n in db.notifies(timeout=0.5):
                        self._on_loop(self._heard, n.payload)
            except psycopg.Error as e:
                if not self._stopping.is_set():
                    log.warning("cluster: listening stopped (%s); listening again", e)
            finally:
                try:
                    db.close()
                except Exception:
                    pass

    # ------------------------------------------------------------ what is heard
    def _heard(self, payload: str) -> None:
        side = self.side
        if side is None:
            return
        try:
            msg = json.loads(payload)
        except ValueError:
            return
        k = msg.get("k")
        if k == "hb":
            if msg.get("p") == self.process and self.loop is not None:
                self._heard_self = self.loop.time()
            return
        if k == "bye":
            if msg.get("p") != self.process:
                side.process_gone(str(msg.get("p")))
                # Its leases ended with its goodbye (a clean stop): its tables are
                # claimed now, not at the next heartbeat.
                self.tick_now()
            return
        if k == "t":
            if msg.get("p") != self.process:
                row: RowRead | None = ({"id": str(msg.get("id")), "row": msg["row"],
                        "holders": msg.get("holders"), "code": msg.get("code"),
                        "creator": msg.get("creator")}
                       if "row" in msg else None)
                seq, events = msg.get("seq"), msg.get("ev")
                side.table_changed(str(msg.get("id")), row,
                                   seq if isinstance(seq, int) else None,
                                   events if isinstance(events, list) else None)
        elif k == "g":
            if msg.get("p") != self.process:
                side.table_gone(str(msg.get("id")))
                side.rows_changed()
        elif k == "r":
            side.requests_waiting(str(msg.get("id")))
        elif k == "a":
            if msg.get("to") == self.process:
                told = msg.get("m")
                side.told(str(msg.get("s")), told if told else {"k": ""})   # none: nothing
        elif k == "mod":
            if msg.get("p") != self.process and self.on_moderate is not None:
                args = msg.get("a")
                self.on_moderate(str(msg.get("c")), [str(a) for a in args]
                                 if isinstance(args, list) else [], str(msg.get("b")))
        elif k == "mutes":
            self.load_mutes()
        elif k == "i":
            if msg.get("p") != self.process and side.on_login is not None:
                side.on_login(str(msg.get("n")), str(msg.get("id")), str(msg.get("p")))

    def _resync(self) -> None:
        side = self.side
        if side is None:
            return
        side.rows_changed()
        self.load_mutes()
        for tid in list(side.registry.tables):
            side.requests_waiting(tid)
        for rt in list(side.remote.values()):
            if rt.local:
                side.fetch(rt)
                side.reattach(rt)       # a word for us (a seat granted) may have been missed

    # ------------------------------------------------------------ Cluster
    def _reserve(self, store: Store, at_least: int = 0) -> None:
        top = store.reserve_table_ids(at_least, ID_BLOCK)
        self._ids.extend(range(top - ID_BLOCK + 1, top + 1))

    def new_table_id(self) -> str:
        if len(self._ids) < ID_BLOCK // 2 and not self._refilling and self.loop is not None:
            self._refilling = True

            def refilled(_: object) -> None:
                self._refilling = False
            self._job(self._reserve, refilled)
        if not self._ids:
            # Five hundred tables made while the database did not answer: no id to give.
            from engine.room.errors import RoomError
            raise RoomError("The room cannot open tables just now; try again in a moment.")
        return str(self._ids.pop(0))

    def publish(self, table: Table, row: LobbyRow, holders: list[str | None],
                frame: dict[str, Any] | None, events: list[TableEvent]) -> None:
        me = self.process
        args = (table.id, me, table.match_id, table.status, int(table.private), table.code,
                json.dumps(row, separators=(",", ":")), json.dumps(holders),
                None if frame is None else json.dumps(frame, separators=(",", ":")),
                table.creator)
        ref = table.match_ref
        # The events in the writer's transaction with the frame (and with the actions
        # they record, when those are still queued), each numbered once: a driver whose
        # lease was taken writes none (issue 41).
        rows = [(ev["seq"], ev["kind"], json.dumps(ev, separators=(",", ":"),
                                                   ensure_ascii=False)) for ev in events]
        last = (frame.get("seq") if frame is not None
                else events[-1]["seq"] if events else None)

        def job(store: Store) -> bool:
            tid, driver, match_id, status, private, code, row_j, holders_j, frame_j, by = args
            if match_id is None and ref is not None:
                match_id = ref.id           # committed by the writes before this one
            store.publish_table(tid, driver, match_id, status, private, code, row_j,
                                holders_j, frame_j, by, keep_frame=bool(rows))
            if rows:
                if store.append_table_events(tid, driver, rows) < len(rows):
                    return False            # not ours any more: nothing to tell
                if rows[-1][0] // PRUNE_EVERY != (rows[0][0] - 1) // PRUNE_EVERY:
                    # Those a frame holds long since go (a process this far behind reads
                    # the frame: ClusterSide._fetch).
                    store.prune_table_events(tid, rows[-1][0] - EVENTS_KEPT)
            return True

        # The row travels with its notice (issue 41: the lobby by the same road): every
        # process lists the table as soon as it hears, without reading every row again;
        # a row too long for a notice is read as before.
        # (Made into text here, on the loop: the row is not read again in the worker.)
        # Its events too, when they fit: a process showing the table applies them
        # without a read (else it reads them: ``fetch_events``).
        said: dict[str, Any] = {"k": "t", "id": table.id, "p": me, "row": row,
                                "holders": holders, "code": table.code,
                                "creator": table.creator}
        if last is not None:
            said.update(seq=last, ev=events)
        notice = json.dumps(said, separators=(",", ":"), ensure_ascii=False)
        if len(notice.encode()) > MAX_PAYLOAD and events:
            del said["ev"]
            notice = json.dumps(said, separators=(",", ":"), ensure_ascii=False)
        if len(notice.encode()) > MAX_PAYLOAD:
            notice = json.dumps({"k": "t", "id": table.id, "p": me, "seq": last})

        def written(stored: object) -> None:
            # Said by the worker once the row is committed, not inside the writer's
            # transaction: PostgreSQL commits the transactions that NOTIFY one at a
            # time across the whole database, fsync included. Events the store did not
            # take (the table is another driver's now, or the write failed) are not
            # told: another process would apply what never happened.
            if stored is not True:
                return
            self._job(lambda store: store.notify(CHANNEL, notice))
        self.table_store.submit_job(table.id, "publish", job, written)

    def gone(self, table: Table) -> None:
        tid, me = table.id, self.process

        def job(store: Store) -> None:
            if not store.drop_table(tid, me):
                return                      # another process drives it now
            _notify(store, {"k": "g", "id": tid, "p": me})
        self.table_store.submit_job(tid, "gone", job)

    def request(self, tid: str, session: str, body: RequestBody) -> None:
        text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        me = self.process

        def job(store: Store) -> bool:
            # Only to a table that exists (a request to one that went is refused here).
            made = store.add_request(tid, me, session, text)
            if made:
                _notify(store, {"k": "r", "id": tid})
            return made

        def sent(ok: bool | None) -> None:
            if ok is False and self.side is not None and session:
                self.side.told(session, {"k": "refused", "table": tid, "op": body.get("op"),
                                         "error": {"$said": "No table {table}.",
                                                   "p": {"table": tid}}})
        self._job(job, sent)

    def tell(self, process: str, session: str, message: Told) -> None:
        payload = {"k": "a", "to": process, "s": session, "m": message}
        self._job(lambda store: _notify(store, payload))

    def moderate(self, cmd: str, args: list[str], by: str) -> None:
        """An operator's command for every other process (``Moderation.heard``)."""
        payload = {"k": "mod", "c": cmd, "a": [a[:200] for a in args[:40]], "b": by[:40],
                   "p": self.process}
        self._job(lambda store: _notify(store, payload))

    # ------------------------------------------------------------ people, room-wide
    def claim_new_table(self, tid: str, creator: str | None, here: int, mine_here: int,
                        max_tables: int, per_person: int | None, address: str = "",
                        address_here: int = 0, per_address: int | None = None
                        ) -> tuple[str, int] | None:
        """``TableClaims``: a new table counted against the room's caps with every
        process's and claimed in one transaction (on the loop, as a login's reads: one
        short transaction per table made)."""
        try:
            return self.store.claim_new_table(tid, self.process, creator, here, mine_here,
                                              max_tables, per_person, address,
                                              address_here, per_address)
        except Exception as e:
            log.warning("cluster: table %s not claimed (%s)", tid, str(e)[:200])
            raise RoomError("The room cannot open tables just now; try again in a "
                            "moment.") from None

    def save_mute(self, nk: str, marks: list[str], until: float) -> None:
        """A mute, stored for every process (each reads the room's mutes again)."""
        self._mute_writes += 1

        def job(store: Store) -> None:
            store.add_mute(nk, marks, until)
            _notify(store, {"k": "mutes"})
        self._job(job, self._mute_written, fallback=None)

    def lift_mute(self, nk: str) -> None:
        self._mute_writes += 1

        def job(store: Store) -> None:
            store.remove_mutes(nk)
            _notify(store, {"k": "mutes"})
        self._job(job, self._mute_written, fallback=None)

    def _mute_written(self, _: object) -> None:
        self._mute_writes -= 1

    def load_mutes(self) -> None:
        """The room's mutes read again, in place of this process's (unless one of ours
        is on its way: its own notice reads them again once it is stored)."""
        def done(rows: list[tuple[str, str, float]] | None) -> None:
            if rows is not None and self._mute_writes == 0 and self.side is not None:
                self.side.registry.mutes.load(rows)
        self._job(lambda store: store.mutes(), done, fallback=None)

    def lookalike(self, name: str) -> str | None:
        """A name in use on another process of the room that looks like ``name`` (the
        same skeleton, another name), as it may be shown; as of the last heartbeat."""
        look, nk = skeleton(name), name_key(name)
        for names in list(self._names_elsewhere.values()):
            other = names.get(look)
            if other is not None and name_key(other) != nk:
                return other
        return None

    def named_elsewhere(self, name: str) -> bool:
        """Somebody called ``name`` is on another process of the room, as of the last
        heartbeat."""
        look, nk = skeleton(name), name_key(name)
        for names in list(self._names_elsewhere.values()):
            other = names.get(look)
            if other is not None and name_key(other) == nk:
                return True
        return False

    def _names_heard(self, texts: list[tuple[str, str | None]], live: set[str]) -> None:
        """Other processes' names, as read by the heartbeat (on the loop)."""
        for process in list(self._names_elsewhere):
            if process not in live:
                del self._names_elsewhere[process]
        for process, text in texts:
            try:
                names = json.loads(text) if text else []
            except (ValueError, RecursionError):
                names = []
            if not isinstance(names, list):
                names = []
            shown = [clean_name(str(n)[:40]) for n in names[:5000]]
            self._names_elsewhere[process] = {skeleton(n): n for n in shown if n}

    def people_elsewhere(self) -> list[tuple[str, list[str]]]:
        """(process, its /who lines) of every other live process, read now (an operator's
        command: on the loop, like the room's other reads of a person's screen)."""
        out: list[tuple[str, list[str]]] = []
        for name, text in self.store.people_of_processes(self.store.now() - GONE_AFTER):
            if name == self.process:
                continue
            try:
                lines = json.loads(text) if text else []
            except (ValueError, RecursionError):
                lines = []
            if isinstance(lines, list):
                out.append((name, [str(x)[:200] for x in lines[:2000]]))
        return out

    def login(self, name_key: str, ident: str) -> None:
        payload = {"k": "i", "n": name_key, "id": ident, "p": self.process}
        self._job(lambda store: _notify(store, payload))

    def fetch_frame(self, tid: str, done: Callable[[dict[str, Any] | None], None]) -> None:
        def job(store: Store) -> dict[str, Any] | None:
            text = store.table_frame(tid)
            if text is None:
                return None
            try:
                frame: dict[str, Any] = json.loads(text)
            except (ValueError, RecursionError) as e:
                # Said where it is shown (once: ClusterSide.damaged), not as a failed job.
                return {"$damaged": f"{type(e).__name__}: {str(e)[:100]}"}
            if not isinstance(frame, dict):
                return {"$damaged": "not an object"}
            return with_events(store, tid, frame)
        self._job(job, done)

    def fetch_events(self, tid: str, after: int,
                     done: Callable[[list[Any] | None], None]) -> None:
        def job(store: Store) -> list[Any]:
            out: list[Any] = []
            for _seq, _driver, _epoch, _kind, body in store.table_events(tid, after,
                                                                          EVENTS_READ):
                try:
                    out.append(json.loads(body))
                except (ValueError, RecursionError) as e:
                    # Said where it is applied (once: ClusterSide.damaged).
                    out.append({"$damaged": f"{type(e).__name__}: {str(e)[:100]}"})
                    break
            return out
        self._job(job, done, fallback=None)

    def fetch_rows(self, done: Callable[[list[RowRead] | None], None]) -> None:
        """Every table's row; callers asking while a read is on its way share it."""
        self._rows_waiting.append(done)
        if len(self._rows_waiting) > 1:
            return

        def answer(rows: list[RowRead] | None) -> None:
            waiting, self._rows_waiting = self._rows_waiting, []
            for fn in waiting:
                fn(rows)

        def job(store: Store) -> list[RowRead]:
            return rows_read(store.table_rows())
        self._job(job, answer, fallback=None)

    def fetch_row(self, tid: str | None, code: str | None,
                  done: Callable[[list[RowRead] | None], None]) -> None:
        """One table's row: by its id, or by its private code (a lookup that missed
        this process's listing: the table may be a moment old)."""
        def job(store: Store) -> list[RowRead]:
            rows = store.table_row(tid) if tid is not None else \
                store.table_row_with_code(code or "")
            return rows_read(rows)
        self._job(job, done, fallback=None)

    def take_requests(self, tid: str, done: Callable[[list[Request]], None]) -> None:
        def job(store: Store) -> list[Request]:
            out: list[Request] = []
            for _id, origin, session, body in store.take_requests(tid):
                try:
                    req = json.loads(body)
                except ValueError:
                    continue
                if isinstance(req, dict):
                    req.update(origin=origin, session=session, table=tid)
                    # As the member's process wrote it (``RequestBody``): the driver
                    # reads it with care (``Requests.run_one``).
                    out.append(cast("Request", req))
            return out
        self._job(job, done, fallback=[])

    # ------------------------------------------------------------ heartbeat, leases
    def _tick(self) -> None:
        """Every RENEW seconds: our heartbeat (our lease); tables we lost, processes that
        died, tables whose driver died (taken over), requests nobody announced. One
        heartbeat at a time: a slow database gets no pile of them."""
        assert self.loop is not None and self.side is not None
        self._tick_handle = self.loop.call_later(RENEW, self._tick)
        if self._heard_self and self.loop.time() - self._heard_self > DEAF_AFTER:
            log.warning("cluster: our own heartbeat was not heard for %.0f s; listening again",
                        self.loop.time() - self._heard_self)
            self._heard_self = self.loop.time()
            self._deaf = True
        if self._ticking:
            return
        self._ticking = True
        side = self.side
        mine = [tid for tid, t in side.registry.tables.items() if not t.closed]
        me, token = self.process, self.token
        # Who is here, for /who anywhere in the room (issue 41): written when it changed,
        # at most every PEOPLE_EVERY seconds.
        people: str | None = None
        if self.people is not None and self.loop.time() >= self._people_due:
            text = json.dumps(self.people(), separators=(",", ":"), ensure_ascii=False)
            if text != self._people_said:
                people = self._people_said = text
                self._people_due = self.loop.time() + PEOPLE_EVERY
        # Their names at every heartbeat that finds them changed (a login or a goodbye:
        # small), so that a look-alike is refused everywhere within a second.
        names: str | None = None
        if self.names is not None:
            text = json.dumps(sorted(self.names()), separators=(",", ":"),
                              ensure_ascii=False)
            if text != self._names_said:
                names = self._names_said = text
        names_read = dict(self._names_read)

        def job(store: Store) -> Beat:
            now = store.now()
            store.beat(me, token, at=now)
            # A newer Lamma started on this database and migrated it: what the room's
            # processes share may have changed (frames, events), so this one must not
            # take tables over or go on driving its own (``_ticked``).
            schema = store.version()
            newer = schema if schema > len(MIGRATIONS) else 0
            _notify(store, {"k": "hb", "p": me})
            if people is not None:
                store.set_people(me, people)
            if names is not None:
                store.set_names(me, names)
            processes = store.other_processes(me)
            written = [(name, at) for name, seen, _, at in processes
                       if seen >= now - GONE_AFTER]
            changed = [p for p, at in written if names_read.get(p) != at]
            names_got = store.names_of_processes(changed) if changed else []
            lost, waiting = [], []
            if mine:
                lost = store.tables_driven_elsewhere(mine, me)
                waiting = store.tables_with_requests(mine)
            dead = [name for name, seen, _, _ in processes if seen < now - GONE_AFTER]
            tokens = {name: token for name, _, token, _ in processes}
            store.forget_processes(now - FORGET_AFTER)
            adopted: list[tuple[StoredMatch, int, dict[str, Any] | None, int]] = []
            if newer:
                return Beat(lost, dead, adopted, waiting, tokens, (dict(written), names_got),
                            newer)
            # Tables with nobody to go on with them, of processes gone (not merely late).
            for tid, driver in store.orphan_tables(me, now - GONE_AFTER, ADOPT_PER_TICK):
                if store.drop_table(tid, driver):
                    _notify(store, {"k": "g", "id": tid, "p": me})
            # Playing tables whose driver's heartbeat is older than a lease (or who has
            # none): each claimed by naming it, if it is still silent and nobody is in
            # the middle of writing it (a frozen process's lock is skipped, not waited on).
            # A table this process still drives here (its row taken while it stalled) is
            # left until the loop has closed it (``lost``); and our own writes on their
            # way land before a table is read back: an old table's last action stored
            # after the takeover read the match passed the fence (the match is ours) and
            # refused the new driver's own, leaving its match unstored.
            held = set(mine)
            expired = [e for e in store.expired_tables(me, now - LEASE, ADOPT_PER_TICK)
                       if e[0] not in held]
            if expired and not self.table_store.flush(FLUSH_WAIT):
                log.info("cluster: our writes are slow to land; no table taken over this time")
                expired = []
            for tid, match_id, driver in expired:
                try:
                    won = store.take_over(tid, me, driver, match_id, now - LEASE, now)
                    if won is None:
                        continue
                    epoch, frame_text, age, stored = won
                except StoreUnavailable as e:
                    log.info("cluster: table %s not taken over this time (%s)", tid, e)
                    continue
                if stored is None:
                    self._give_up(store, tid, match_id, "its match is not stored")
                    continue
                frame = frame_carried(store, tid, frame_text, age)
                try:
                    from engine import replay
                    over = replay(stored.record)
                except Exception as e:
                    self._give_up(store, tid, match_id, f"it cannot be replayed ({e})")
                    continue
                if over.result is not None:
                    # Its last action was stored, then its driver died before the result:
                    # recorded now (once, durably), and the table goes.
                    with store.durably():
                        store.finish_match(match_id, finished(over, people_throughout(stored)))
                    store.drop_table(tid)
                    _notify(store, {"k": "g", "id": tid, "p": me})
                    continue
                adopted.append((stored, epoch, frame, store.last_table_event(tid)))
            return Beat(lost, dead, adopted, waiting, tokens, (dict(written), names_got))

        def done(result: Beat | None) -> None:
            self._ticking = False
            if result is None:
                self._names_said = ""       # perhaps not written: written again next time
            self._ticked(result)

        def run(store: Store) -> None:
            try:
                result = job(store)
            except Exception:
                self._on_loop(done, None)
                raise
            self._on_loop(done, result)
        self._urgent.append(run)
        self._work.put(lambda store: None)          # wakes the worker if it waits

    def tick_now(self) -> None:
        """The heartbeat's work (claims of tables whose driver is gone included) at
        once; the next one RENEW s after it."""
        if self.loop is None or self._stopping.is_set():
            return
        if self._tick_handle is not None:
            self._tick_handle.cancel()
        if self._ticking:
            self._tick_handle = self.loop.call_later(0.05, self.tick_now)
            return
        self._tick()

    def _give_up(self, store: Store, tid: str, match_id: int, why: str) -> None:
        """A table this process claimed and cannot play (on the worker): its match is
        recorded as abandoned and the table goes, rather than staying listed and
        claimed by us with nobody playing it."""
        log.error("cluster: table %s (match %s) cannot be taken over: %s; closed", tid,
                  match_id, why)
        store.abandon(match_id)
        store.drop_table(tid, self.process)
        _notify(store, {"k": "g", "id": tid, "p": self.process})

    def _ticked(self, result: Beat | None) -> None:
        side = self.side
        if result is None or side is None:
            return
        if result.newer and not self._newer_heard:
            self._newer_heard = True
            log.error("cluster: a newer Lamma migrated the room's database to schema %d "
                      "(this process knows %d): this process drains, its tables go to the "
                      "newer processes; upgrade it", result.newer, len(MIGRATIONS))
            if self.on_newer is not None:
                self.on_newer(result.newer)
        tokens = result.tokens
        written, names_got = result.names
        self._names_read = written
        self._names_heard(names_got, set(written))
        for name in {process for process, session in side.remote_members
                     if process in tokens and not session.startswith(tokens[process] + "-")}:
            # Started again under its name (before it was taken for gone): the members
            # of its earlier start are let go.
            log.warning("cluster: process %s started again", name)
            side.process_gone(name, keep=tokens[name])
        for tid in result.lost:
            side.lease_lost(tid)
        for name in result.dead:
            if name not in self._gone:
                self._gone.add(name)
                log.warning("cluster: process %s stopped answering", name)
                side.process_gone(name)
        self._gone &= set(result.dead)      # one that came back may die again
        for stored, epoch, frame, seq in result.adopted:
            try:
                side.adopt(stored, epoch, frame, seq)
            except Exception:
                log.exception("taking over table %s (match %s)", stored.table_id, stored.id)
                self._job(partial(self._give_up, tid=stored.table_id, match_id=stored.id,
                                  why="it failed to start here"))
        for tid in result.waiting:
            side.requests_waiting(tid)


__all__ = ["LEASE", "RENEW", "ClusterError", "PgCluster", "default_name"]
