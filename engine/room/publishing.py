"""What a process writes of the tables it drives, for the room's other processes
(issue 41): each table's lobby row; the events its members are told of, numbered in the
table's order (``frames.events_of``); and the whole frame (what a process showing the
table first, or taking it over, starts from) with the first of them and every
``CHECKPOINT_EVERY`` after. ``remote.ClusterSide`` composes it; the transport
(``requests.Cluster``) writes what it is given, after the table's own writes.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from .events import What
from .frames import TableEvent, events_of, frame_of, watcher_history
from .registry import Registry
from .requests import Cluster, RemoteMember
from .rows import LobbyRow
from .stats import STATS
from .table import Table

log = logging.getLogger("lamma.cluster")

# A table's frame is written at the end of the loop turn of a move or a line said (what
# its players wait for); for other changes (people coming to watch and going, seats) at
# most once every FRAME_EVERY seconds, with the state of that moment: a frame is every
# seat's view, and a flood of watch/leave must not write one each.
FRAME_EVERY = 0.1
PROMPT = ("state", "chat")
CARRY_EVERY = 2.0   # seconds: a playing table's frame written at least this often when it
                    # changed, members elsewhere or not (what a takeover starts from)
CHECKPOINT_EVERY = 16   # a table's whole frame written with every this many events


class _Frame:
    """A table's frame to write, and what its members here are told once it is."""

    __slots__ = ("handle", "last", "prompt", "table", "telling", "tells")

    def __init__(self, table: Table):
        self.table = table
        self.tells: list[What] = []
        self.telling = 0                # frames written whose members are not told yet
        self.handle: asyncio.Handle | None = None
        self.prompt = False             # the handle runs at the end of this loop turn
        self.last = float("-inf")       # loop time the last one was written


class Publisher:
    """The tables this process drives, as the other processes are told of them."""

    def __init__(self, registry: Registry, cluster: Cluster):
        self.registry = registry
        self.cluster = cluster
        self.process = cluster.process
        self.epochs: dict[str, int] = {}                    # tables this process drives
        self._due: dict[str, Table] = {}
        self._published: dict[str, tuple[LobbyRow, list[str | None]]] = {}
        self._frames: dict[str, _Frame] = {}                # frames to write, by table
        # The number of the last event written, the lines said and the version then,
        # the number of the last whole frame written and its match's history.
        self._seqs: dict[str, int] = {}
        self._said: dict[str, int] = {}
        self._versions: dict[str, int] = {}
        self._whole: dict[str, int] = {}
        self._histories: dict[str, tuple[int | None, list[Any] | None]] = {}
        # Tables nobody elsewhere shows: a frame all the same, at most every CARRY_EVERY
        # s while they play, so a takeover keeps their chat, narration and turn timer.
        self._carry: dict[str, asyncio.TimerHandle] = {}

    def adopted(self, tid: str, epoch: int, seq: int, said: int) -> None:
        """A table taken over here: its events numbered on from ``seq``."""
        self.epochs[tid] = epoch
        self._seqs[tid], self._said[tid], self._versions[tid] = seq, said, -1

    def mark(self, table: Table) -> list[int]:
        """Where a table this process drives is now, as its frames will say: [epoch,
        version] (a member elsewhere is shown its seat with a frame at least this new)."""
        return [self.epochs.get(table.id, 0), table.version]

    def frame_written(self, table: Table, what: What = "state") -> bool:
        """``table`` (ours, or shown here for another process) is about to tell its
        members ``what`` changed. With members elsewhere, or for a line of chat (a
        takeover keeps every line heard), its frame is written first (True: ours are
        told once it is committed, and every later change waits its turn behind it);
        otherwise its lobby row goes out at the end of this loop turn (False)."""
        if table.replica is not None:
            return False
        f = self._frames.get(table.id)
        waiting = f is not None and f.table is table and bool(f.tells or f.telling)
        if (what == "chat" or waiting
                or any(isinstance(m, RemoteMember) for m in table.members())):
            self._due.pop(table.id, None)
            self._frame_due(table, what)
            return True
        self.shown(table)
        return False

    def _frame_due(self, table: Table, what: What) -> None:
        f = self._frames.get(table.id)
        if f is None or f.table is not table:
            f = self._frames[table.id] = _Frame(table)
        f.tells.append(what)
        loop = asyncio.get_running_loop()
        if what in PROMPT:
            if not f.prompt:
                if f.handle is not None:
                    f.handle.cancel()
                f.handle, f.prompt = loop.call_soon(self._write_frame, f), True
        elif f.handle is None:
            f.handle = loop.call_at(max(loop.time(), f.last + FRAME_EVERY),
                                    self._write_frame, f)

    def _write_frame(self, f: _Frame) -> None:
        f.handle, f.prompt = None, False
        tells, f.tells = f.tells, []
        table = f.table
        if table.closed or self.registry.tables.get(table.id) is not table:
            return          # its members were told it closed (or moved)
        f.last = asyncio.get_running_loop().time()
        try:
            self.publish(table, force=True, tells=tells)
        except Exception:
            log.exception("publishing table %s", table.id)

        def tell() -> None:
            f.telling -= 1
            for what in tells:
                table.tell_members(what)
        f.telling += 1
        self.registry.store.then(tell)

    def shown(self, table: Table) -> None:
        """A table this process drives showed something: its row (and, when members
        elsewhere show it, its frame) goes to the database once this loop turn is over;
        a playing table's frame within CARRY_EVERY s in any case (``_carry``)."""
        if table.replica is not None:
            return
        if table.status == "playing" and table.id not in self._carry:
            self._carry[table.id] = asyncio.get_running_loop().call_later(
                CARRY_EVERY, self._write_carried, table)
        if table.id in self._due:
            return
        self._due[table.id] = table
        if len(self._due) == 1:
            asyncio.get_running_loop().call_soon(self._publish_due)

    def _write_carried(self, table: Table) -> None:
        """The frame of a table nobody elsewhere shows (issue 41: a takeover remembers
        its chat, narration and the turn's time left)."""
        self._carry.pop(table.id, None)
        if table.closed or self.registry.tables.get(table.id) is not table:
            return
        if any(isinstance(m, RemoteMember) for m in table.members()):
            return          # its frames are written as it changes
        try:
            self.publish(table, force=True)
        except Exception:
            log.exception("publishing table %s", table.id)

    def _publish_due(self) -> None:
        due, self._due = self._due, {}
        for table in due.values():
            if table.closed or self.registry.tables.get(table.id) is not table:
                continue
            try:
                self.publish(table)
            except Exception:
                log.exception("publishing table %s", table.id)

    def publish(self, table: Table, force: bool = False,
                 tells: list[What] | None = None) -> None:
        row = table.summary()
        if table.private:
            row["code"] = table.code
        holders = [s.ident if s.kind == "human" else None for s in table.seats]
        elsewhere = any(isinstance(m, RemoteMember) for m in table.members())
        if not elsewhere and not force and self._published.get(table.id) == (row, holders):
            return
        self._published[table.id] = (row, holders)
        epoch = self.epochs.setdefault(table.id, 0)
        frame = frame_of(table, self.process, epoch) if (elsewhere or force) else None
        events: list[TableEvent] = []
        if frame is not None:
            STATS.cluster_frames.inc()
            tid = table.id
            last = self._seqs.get(tid, 0)
            if tells:
                # What its members here are told once it is stored, as the events that
                # made it, numbered on from the last (issue 41).
                match, history = self._histories.get(tid, (None, None))
                events = events_of(frame, list(tells), last + 1, self._said.get(tid, 0),
                                   self._versions.get(tid, table.version),
                                   history if match == table.match_id is not None else None)
                self._said[tid], self._versions[tid] = table.chat_said, table.version
                if any(ev["kind"] != "chat" for ev in events):
                    self._histories[tid] = (table.match_id, watcher_history(frame))
                if events:
                    last = self._seqs[tid] = events[-1]["seq"]
                    STATS.cluster_events.inc(len(events))
            frame["seq"] = last         # the events it holds: those after it apply to it
            # The events hold what changed: the whole frame (what a process showing the
            # table first, or taking it over, starts from, with the events after it) is
            # written with the first of them and then every CHECKPOINT_EVERY.
            whole = self._whole.get(tid)
            if events and whole is not None and last - whole < CHECKPOINT_EVERY:
                frame = None
            else:
                self._whole[tid] = last
        else:
            # No frame and no event: the stored frame goes (nobody elsewhere shows the
            # table), so the next events go with a whole one.
            self._whole.pop(table.id, None)
        self.cluster.publish(table, row, holders, frame, events)

    def forget(self, tid: str) -> None:
        """A table this process no longer drives (closed, or taken over by another)."""
        self._due.pop(tid, None)
        carry = self._carry.pop(tid, None)
        if carry is not None:
            carry.cancel()
        f = self._frames.pop(tid, None)
        if f is not None and f.handle is not None:
            f.handle.cancel()
        self._published.pop(tid, None)
        self.epochs.pop(tid, None)
        self._whole.pop(tid, None)
        self._histories.pop(tid, None)
        self._seqs.pop(tid, None)
        self._said.pop(tid, None)
        self._versions.pop(tid, None)
