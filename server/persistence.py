"""Tables write through to a ``MatchStore`` and come back after a restart.

Order matters: ``Table`` applies an action to the engine, submits it here (one
committed INSERT), and shows it to anyone only once it is committed (``then``). A
server killed at any moment therefore has on disk every action any player has seen.

Once ``start``ed, the writes run on one ``Writer`` thread with its own connection, in
the order submitted, so a slow commit (PostgreSQL's durable one) never stops the
event loop; before that (restore at start-up, tests) they run at once on the caller's.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

from engine import Match, replay
from engine.duplicate import board_result
from engine.room.boards import EventBoard
from engine.room.stats import STATS
from engine.room.store import (
    EventStore,
    FinishedBoard,
    LeaseLost,
    MatchRef,
    MatchStore,
    Points,
    Records,
    StoredMatch,
    StoreUnavailable,
    finished,
    people_throughout,
)
from engine.room.stored import seat_names, table_settings

if TYPE_CHECKING:
    from engine.room import Registry, Table

log = logging.getLogger("lamma.persist")


class Store(MatchStore, Records, EventStore, Protocol):
    """A store that keeps matches and events and answers the screens (SQLite,
    PostgreSQL)."""


class _Write:
    """One write: ``job`` runs on the writer thread; ``done(result)`` and then the
    ``after`` callbacks run on the loop, in the order the writes were submitted."""

    __slots__ = ("after", "done", "failed", "group", "job", "ref", "result", "table", "what")

    def __init__(self, job: Callable[[], Any], done: Callable[[Any], None] | None,
                 what: str, table: str, ref: MatchRef | None, group: bool = True):
        self.job = job
        self.done = done
        self.after: list[Callable[[], None]] = []      # touched on the loop only
        self.what = what
        self.table = table
        self.ref = ref
        self.group = group          # one statement: may share a transaction with others
        self.result: Any = None
        self.failed: Exception | None = None    # why it was not made (logged)


def _skipped(w: _Write) -> bool:
    """Its match was never stored, or an earlier write of it failed."""
    ref = w.ref
    return ref is not None and (ref.broken or (ref.id is None and w.what != "match"))


def _perform(w: _Write) -> None:
    """Run one write (on whichever thread performs writes), timed; a failure is logged
    with its table and match, and the match's later writes are skipped: the stored
    log stays a prefix of the match that a restart can replay. A database that does
    not answer (``StoreUnavailable``) is not the write's failure: it goes up to the
    writer, which tries the same write again."""
    ref = w.ref
    if _skipped(w):
        return
    t0 = time.perf_counter()
    try:
        w.result = w.job()
    except StoreUnavailable:
        raise
    except Exception as e:
        w.failed = e
        if ref is not None:
            ref.broken = True
        if isinstance(e, LeaseLost):
            log.warning("store: %s at table %s not made: %s", w.what, w.table, e)
            return
        log.error("store: %s at table %s (match %s) failed (%s: %s); the table goes on, "
                  "its match is no longer stored", w.what, w.table,
                  ref.id if ref is not None else "-", type(e).__name__, e)
        return
    STATS.store_commit.observe(time.perf_counter() - t0)


def _perform_group(ws: list[_Write], transaction: Callable[[], AbstractContextManager[Any]]
                   ) -> None:
    """Writes that piled up, in one transaction: one commit (one fsync on a durable
    PostgreSQL) for all. If it fails, it is rolled back and each write is tried again on
    its own, so that only the failing one (and its match's later ones) is lost."""
    t0 = time.perf_counter()
    ran: list[_Write] = []
    try:
        with transaction():
            for w in ws:
                if not _skipped(w):
                    ran.append(w)
                    w.result = w.job()
    except Exception as e:
        for w in ran:
            w.result = None
            if w.what == "match" and w.ref is not None:
                w.ref.id = None             # that row was rolled back
        if isinstance(e, StoreUnavailable):
            raise
        log.warning("store: %d writes committed together failed (%s: %s); each again "
                    "on its own", len(ws), type(e).__name__, e)
        for w in ws:
            _perform(w)
        return
    took = time.perf_counter() - t0         # each write waited that long for its commit
    for _ in ran:
        STATS.store_commit.observe(took)


_NOTHING = object()


class Writer:
    """One thread that performs writes in the order submitted and hands each result
    back to the loop, in the same order, after each commit."""

    BATCH = 64          # writes per transaction, at most
    RETRY = (0.25, 10.0)    # seconds before trying a database that does not answer: first, most

    def __init__(self, loop: asyncio.AbstractEventLoop,
                 transaction: Callable[[], AbstractContextManager[Any]] | None = None,
                 name: str = "lamma-store-writer",
                 reconnect: Callable[[], None] | None = None,
                 health: Callable[[bool], None] | None = None,
                 failed: Callable[[_Write], None] | None = None):
        self.loop = loop
        self.transaction = transaction      # None: every write commits alone
        self.reconnect = reconnect          # a new connection (StoreUnavailable: not yet)
        self.health = health                # on the loop: True when down, False when back
        self.failed = failed                # on the loop, before a failed write's callbacks
        self.pending = 0                # loop side: submitted, results not yet handed back
        self.last: _Write | None = None
        self.down = False               # writer side: the database does not answer
        # Writer side, read once it has stopped: writes committed, and those given up
        # (stopped while the database did not answer), for the room's "stopped" line.
        self.committed = 0
        self.lost = 0
        self._stopping = threading.Event()
        self._q: queue.SimpleQueue[_Write | threading.Event | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, w: _Write) -> None:
        self.pending += 1
        self.last = w
        self._q.put(w)

    def then(self, fn: Callable[[], None]) -> None:
        if self.pending == 0 or self.last is None:
            fn()
        else:
            self.last.after.append(fn)

    def _run(self) -> None:
        done: list[_Write] = []
        held: object = _NOTHING
        while True:
            item = self._q.get() if held is _NOTHING else held
            held = _NOTHING
            if isinstance(item, _Write):
                group = [item]
                # What piled up behind it (while the loop went on) shares its commit.
                while item.group and self.transaction is not None and len(group) < self.BATCH:
                    try:
                        more = self._q.get_nowait()
                    except queue.Empty:
                        break
                    if isinstance(more, _Write) and more.group:
                        group.append(more)
                    else:
                        held = more
                        break
                if not self._write(group):
                    return              # stopped while the database was down
                # Handed back after every commit, never held for the next: a move is
                # shown as soon as it is stored, whatever is queued behind it.
                done.extend(group)
            if done:
                try:
                    self.loop.call_soon_threadsafe(self._deliver, done)
                except RuntimeError:
                    pass                # the loop is closed: nobody is left to show
                done = []
            if isinstance(item, threading.Event):
                item.set()
            elif item is None:
                return

    def _write(self, group: list[_Write]) -> bool:
        """Perform ``group``; while the database does not answer, try the same writes
        again (a new connection each time, waiting longer each time, up to
        ``RETRY[1]``), in order, holding back everything behind them. False: stopped
        before they could be stored."""
        wait = self.RETRY[0]
        while True:
            try:
                if len(group) > 1 and self.transaction is not None:
                    _perform_group(group, self.transaction)
                else:
                    _perform(group[0])
            except StoreUnavailable as e:
                if not self.down:
                    self.down = True
                    log.error("store: the database does not answer (%s); moves wait until "
                              "it does", e)
                    self._tell(True)
                if self._stopping.wait(wait):
                    log.error("store: stopped while the database did not answer: %d "
                              "writes and what was queued behind them are not stored",
                              len(group))
                    self.lost = len(group) + self._left()
                    return False
                wait = min(wait * 2, self.RETRY[1])
                if self.reconnect is not None:
                    try:
                        self.reconnect()
                    except StoreUnavailable:
                        pass
                continue
            if self.down:
                self.down = False
                log.warning("store: the database answers again")
                self._tell(False)
            self.committed += sum(1 for w in group if w.failed is None and not _skipped(w))
            return True

    def _left(self) -> int:
        """The writes still queued (the writer is stopping: taken off, counted)."""
        left = 0
        while True:
            try:
                item = self._q.get_nowait()
            except queue.Empty:
                return left
            if isinstance(item, _Write):
                left += 1
            elif isinstance(item, threading.Event):
                item.set()              # whoever waits for a flush waits no longer

    def _tell(self, down: bool) -> None:
        if self.health is None:
            return
        try:
            self.loop.call_soon_threadsafe(self.health, down)
        except RuntimeError:
            pass                        # the loop is closed

    def _deliver(self, writes: list[_Write]) -> None:
        """On the loop: each write's callbacks, in order; one failing stops no other."""
        for w in writes:
            self.pending -= 1
            if self.last is w:
                self.last = None
            if w.failed is not None and self.failed is not None:
                try:
                    self.failed(w)
                except Exception:
                    log.exception("after the failed %s write at table %s", w.what, w.table)
            for fn in ([] if w.done is None else [lambda w=w: w.done(w.result)]) + w.after:
                try:
                    fn()
                except Exception:
                    log.exception("after the %s write at table %s", w.what, w.table)

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait (blocking) until every write submitted so far is performed."""
        mark = threading.Event()
        self._q.put(mark)
        return mark.wait(timeout)

    def stop(self, timeout: float = 30.0) -> None:
        self._stopping.set()            # a write waiting for the database gives up
        self._q.put(None)
        self._thread.join(timeout)


class TableStore:
    """A table's events (``TableLog``) as calls to a ``Store``: performed at once, or
    once ``start``ed, on a ``Writer`` thread through ``writes`` (its own connection)."""

    def __init__(self, store: Store, writes: MatchStore | None = None):
        self.store = store
        self.writes: MatchStore = writes if writes is not None else store
        self.records: Records | None = store
        self.events: EventStore = store
        self.writer: Writer | None = None
        self.committed = self.lost = 0  # the writer's, once it is closed
        self.down = False               # loop side (TableLog.down)
        self._when_up: list[Callable[[], None]] = []
        # Told (on the loop) when the database stops and starts answering: the room
        # says so to everyone connected.
        self.listeners: list[Callable[[bool], None]] = []
        # Told (on the loop) that another process drives this table now (server.cluster):
        # the table's id and the match whose write was refused.
        self.on_lease_lost: Callable[[str, MatchRef | None], None] | None = None

    def flush(self, timeout: float) -> bool:
        """Wait (blocking, off the loop) until every write submitted so far is performed;
        False if that took longer than ``timeout`` seconds."""
        writer = self.writer
        return writer is None or writer.flush(timeout)

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """From now on the writes run on their own thread (``close`` ends it)."""
        if self.writer is None:
            self.writer = Writer(loop, getattr(self.writes, "transaction", None),
                                 reconnect=getattr(self.writes, "reconnect", None),
                                 health=self._health, failed=self._failed)

    def _failed(self, w: _Write) -> None:
        if isinstance(w.failed, LeaseLost) and self.on_lease_lost is not None:
            self.on_lease_lost(w.table, w.ref)

    def _health(self, down: bool) -> None:
        self.down = down
        for listener in list(self.listeners):
            try:
                listener(down)
            except Exception:
                log.exception("telling that the database %s", "is down" if down else "is back")
        if not down:
            waiting, self._when_up = self._when_up, []
            for fn in waiting:
                try:
                    fn()
                except Exception:
                    log.exception("after the database came back")

    def when_up(self, fn: Callable[[], None]) -> None:
        if self.down:
            self._when_up.append(fn)
        else:
            fn()

    def close(self) -> None:
        """Perform every write submitted, then end the thread (the server's stop, before
        the store closes). Their callbacks are already queued on the loop; on a closed
        table they do nothing."""
        writer, self.writer = self.writer, None
        if writer is not None:
            if not writer.flush():
                log.error("store: the writer did not finish its writes in time")
            writer.stop()
            self.committed, self.lost = writer.committed, writer.lost

    def _submit(self, table: Table, what: str, job: Callable[[], Any],
                done: Callable[[Any], None] | None = None, group: bool = True) -> None:
        w = _Write(job, done, what, table.id, table.match_ref, group)
        if self.writer is None:
            _perform(w)
            if done is not None:
                done(w.result)
            return
        self.writer.submit(w)

    def submit_job(self, table_id: str, what: str, job: Callable[[Any], Any],
                   done: Callable[[Any], None] | None = None) -> None:
        """``job(store)`` on the writes' connection, after every write submitted so far
        (the room's rows for other processes: ``server.cluster``); ``done(result)`` on
        the loop once it is committed. Its failure is logged; it breaks no match."""
        writes = self.writes
        w = _Write(lambda: job(writes), done, what, table_id, None)
        if self.writer is None:
            _perform(w)
            if done is not None:
                done(w.result)
        else:
            self.writer.submit(w)

    def then(self, fn: Callable[[], None]) -> None:
        if self.writer is None:
            fn()
        else:
            self.writer.then(fn)

    # What a write needs is read from the table now, on the loop: the table moves on
    # while the write waits its turn.
    def match_started(self, table: Table) -> None:
        assert table.match is not None
        ref = table.match_ref = MatchRef()
        writes = self.writes
        # (the record and the settings are written as the row's JSON objects)
        args = (table.id, table.match.to_dict().copy(), seat_names(table),
                table_settings(table).copy())

        def create() -> int:
            ref.id = writes.create_match(*args)
            return ref.id

        self._submit(table, "match", create)

    def action(self, table: Table, seat: int, action: Mapping[str, Any]) -> None:
        ref = table.match_ref
        if ref is None or table.match is None:
            return
        seq, act, epoch = len(table.match.log) - 1, dict(action), table.epoch
        self._submit(table, f"action {seq}",
                     lambda: self.writes.append_action(_id(ref), seq, seat, act, epoch))

    def seats_changed(self, table: Table) -> None:
        ref = table.match_ref
        if ref is not None:
            names, settings = seat_names(table), table_settings(table).copy()
            epoch = table.epoch
            self._submit(table, "seats",
                         lambda: self.writes.set_seats(_id(ref), names, settings, epoch))

    def match_over(self, table: Table, done: Callable[[Points | None], None]) -> None:
        ref, m = table.match_ref, table.match
        if ref is None or m is None:
            done(None)
            return
        # What it pays is worked out here, by the rules (engine.records), from the
        # match as it is now; the store writes it.
        people = table.counts_for_points and all(s.kind == "human" for s in table.seats)
        over = finished(m, people, practice=table.practice)
        self._submit(table, "result",
                     lambda: self.writes.finish_match(_id(ref), over),
                     done, group=False)     # its own transaction, read first

    def board_over(self, table: Table, board: FinishedBoard) -> None:
        ref = table.match_ref
        if ref is None:
            return
        writes = self.writes
        self._submit(table, "board",
                     lambda: writes.finish_board(_id(ref), board),
                     group=False)       # its own transaction

    def table_removed(self, table: Table) -> None:
        ref = table.match_ref
        if ref is not None and table.status == "playing":
            rounds = len(table.match.history) if table.match is not None else None
            epoch = table.epoch
            self._submit(table, "abandon",
                         lambda: self.writes.abandon(_id(ref), rounds, epoch))


def _id(ref: MatchRef) -> int:
    assert ref.id is not None       # _perform skips the writes of a match never stored
    return ref.id


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
            try:
                if sm.settings.get("event") is not None:
                    finish_board(store, sm, match)
                else:
                    store.finish_match(sm.id, finished(match, people_throughout(sm)))
            except Exception as e:
                log.error("match %s: its result cannot be recorded (%s)", sm.id, e)
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


def finish_board(store: MatchStore, sm: StoredMatch, match: Match) -> None:
    """An event's board found over at a restart: recorded as its table would have."""
    ev = EventBoard.from_settings(match.game, sm.settings["event"])
    seat = next((i for i, name in enumerate(sm.seats) if name is not None), 0)
    name = sm.seats[seat] or ""
    assert match.result is not None
    store.finish_board(sm.id, FinishedBoard(
        ev.event, ev.board, ev.entrant, ev.ranked, name.removeprefix("guest:"), seat,
        board_result(match, seat), match.result, len(match.history), match.to_dict()))
