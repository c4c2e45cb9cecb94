"""Requests between processes: at a table's driver, what members connected to other
processes ask (``RemoteMember``: the table treats one as any member), run in the order
taken and within their rates; at their process, what the driver tells them back (a
seat given, a refusal, a kick). Part of ``ClusterSide`` (``remote.py``); nothing here
does I/O.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from typing import Any, NotRequired, Protocol, Required, TypedDict

from .errors import N_, RoomError
from .events import TableChange
from .frames import RowRead, TableEvent, is_int, pack, unpack
from .members import Member, Session
from .registry import Registry
from .replica import Replica, RequestArgs
from .rows import LobbyRow
from .stats import STATS
from .table import Table

log = logging.getLogger("lamma.cluster")

# What a driver does with a request: the member's op on the real table.
_OPS = ("sit", "watch", "act", "say", "take", "fill", "detach")
# Requests from elsewhere run per loop turn at most (the rest on the next turns: one
# batch taken from the database never holds the loop).
REQUESTS_PER_TURN = 32
TOO_MANY = N_("Too many requests: that was not done. Try again in a moment.")


class RequestBody(TypedDict):
    """A member's request as its process sends it (``ClusterSide.request``): the op and
    who asks (nobody: the room's own)."""
    op: str
    args: RequestArgs
    name: NotRequired[str]
    ident: NotRequired[str]
    guest: NotRequired[bool]
    address: NotRequired[str]


class Request(RequestBody):
    """A request as the driver takes it (``Cluster.take_requests``): its body as the
    member's process wrote it, where it came from and for which table."""
    origin: str             # the member's process
    session: str            # its session there ("": nobody's)
    table: str


class Told(TypedDict, total=False):
    """What a table's driver tells a member connected to another process (its text
    and errors packed: ``frames.pack``), by ``k``: "seated" or "granted" (``seat``,
    and ``at``, the driver's [epoch, version] then), "refused" (``op``, ``error``),
    "dropped" (``seat``, ``reason``), "kick" (``reason``), "notice" (``text``)."""
    k: Required[str]
    table: str
    seat: int
    at: list[int]
    op: str | None
    error: object
    reason: object
    text: object


class Cluster(Protocol):
    """What the room needs of the shared database (``server.cluster.PgCluster``)."""

    process: str
    token: str          # this start of the process (its sessions' ids begin with it)

    def new_table_id(self) -> str: ...

    def publish(self, table: Table, row: LobbyRow, holders: list[str | None],
                frame: dict[str, Any] | None, events: list[TableEvent]) -> None:
        """The table's row (and the events that made it, numbered in the table's order,
        and, when given, its whole frame, which the events after it apply to) for
        everyone, after the table's writes so far. Without a frame or events, nobody
        elsewhere is shown the table; without a frame but with events, the last frame
        written stays."""

    def gone(self, table: Table) -> None: ...

    def request(self, tid: str, session: str, body: RequestBody) -> None:
        """A member's request to the table's driver (in the order sent)."""

    def tell(self, process: str, session: str, message: Told) -> None: ...

    def fetch_frame(self, tid: str, done: Callable[[dict[str, Any] | None], None]) -> None: ...

    def fetch_events(self, tid: str, after: int,
                     done: Callable[[list[Any] | None], None]) -> None:
        """The table's stored events numbered after ``after``, in order (as read: each
        is checked where it is applied)."""

    def fetch_rows(self, done: Callable[[list[RowRead] | None], None]) -> None: ...

    def take_requests(self, tid: str, done: Callable[[list[Request]], None]) -> None: ...

    def fetch_row(self, tid: str | None, code: str | None,
                  done: Callable[[list[RowRead] | None], None]) -> None:
        """One table's row, by its id or its private code."""

    def login(self, name_key: str, ident: str) -> None: ...


class Side(Protocol):
    """What requests ask of this process's side of the room (``remote.ClusterSide``)."""

    registry: Registry
    cluster: Cluster
    process: str
    remote: dict[str, Replica]
    remote_members: dict[tuple[str, str], RemoteMember]

    def own_session(self, sid: str) -> Member | None: ...
    def mark(self, table: Table) -> list[int]: ...
    def request(self, table: Table, member: Member | None, op: str,
                args: RequestArgs) -> None: ...


class RemoteMember(Session):
    """On the driver: a member connected to another process."""

    kind = "remote"

    def __init__(self, side: Side, process: str, session: str, name: str,
                 ident: str, guest: bool):
        super().__init__(name, ident, guest)
        self.side = side
        self.process = process
        self.session = session

    def tell(self, message: Told) -> None:
        if not self.closed:
            self.side.cluster.tell(self.process, self.session, message)

    def seat_granted(self, table: Table, seat: int) -> None:
        self.tell({"k": "granted", "table": table.id, "seat": seat,
                    "at": self.side.mark(table)})

    def request_dropped(self, table: Table, seat: int, reason: str) -> None:
        self.tell({"k": "dropped", "table": table.id, "seat": seat, "reason": pack(reason)})

    def kick(self, reason: str) -> None:
        self.tell({"k": "kick", "reason": pack(reason)})
        self.closed = True
        self.side.remote_members.pop((self.process, self.session), None)

    def notice(self, text: str) -> None:
        self.tell({"k": "notice", "text": pack(text)})


class Requests:
    def __init__(self, side: Side):
        self.side = side
        self._taking: dict[str, bool] = {}      # requests being taken: take again after?
        self._queued: dict[str, deque[Request]] = {}     # requests taken, to run
        # The server's (server/limits.py): is a request from a member elsewhere within
        # what a member here may ask (its session's and its address's rates)?
        self.allowed: Callable[[Request], bool] = lambda req: True

    def waiting(self, tid: str) -> None:
        """A request for ``tid`` was sent: the driver (if it is us) takes what waits,
        one read at a time per table (a word while one is on its way: once more after)."""
        if tid not in self.side.registry.tables or self.side.registry.tables[tid].replica is not None:
            return
        if tid in self._taking:
            self._taking[tid] = True
            return
        self._taking[tid] = False

        def took(requests: list[Request]) -> None:
            again = self._taking.pop(tid, False)
            self.run(tid, requests)
            if again:
                self.waiting(tid)
        self.side.cluster.take_requests(tid, took)

    def run(self, tid: str, requests: list[Request]) -> None:
        """In the order taken, REQUESTS_PER_TURN a loop turn."""
        queued = self._queued.get(tid)
        if queued is not None:
            queued.extend(requests)         # after those still waiting their turn
            return
        self._queued[tid] = deque(requests)
        self._run_queued(tid)

    def _run_queued(self, tid: str) -> None:
        queued = self._queued.get(tid)
        if queued is None:
            return
        table = self.side.registry.tables.get(tid)
        for _ in range(min(REQUESTS_PER_TURN, len(queued))):
            req = queued.popleft()
            if table is None or table.closed:
                self._refuse(req, RoomError("No table {table}.", table=tid))
                continue
            if not self.allowed(req) and req.get("op") != "detach":
                # Over its session's (or address's) rate, as a line here would be. A
                # leave is never refused: its process has let the member go already.
                self._refuse(req, RoomError(TOO_MANY))
                continue
            STATS.cluster_served.inc()
            try:
                self.run_one(table, req)
            except RoomError as e:
                self._refuse(req, e)
            except Exception:
                log.exception("request %s at table %s", req.get("op"), tid)
                self._refuse(req, RoomError("That could not be done (server error); "
                                            "nothing changed."))
        if queued:
            asyncio.get_running_loop().call_soon(self._run_queued, tid)
        else:
            del self._queued[tid]

    def _refuse(self, req: Request, e: RoomError) -> None:
        if req.get("session"):
            self.side.cluster.tell(req["origin"], req["session"],
                              {"k": "refused", "table": req["table"], "op": req.get("op"),
                               "error": pack(e)})

    def member_of(self, req: Request) -> Member:
        if req["origin"] == self.side.process:
            # Sent by one of our own sessions while another process drove the table,
            # before we took it over: that session itself, not a stranger under its name.
            own = self.side.own_session(req["session"])
            if own is not None:
                return own
            raise RoomError("You are not at this table.")
        key = (req["origin"], req["session"])
        rm = self.side.remote_members.get(key)
        if rm is None or rm.closed or rm.ident != req["ident"]:
            rm = RemoteMember(self.side, req["origin"], req["session"], str(req["name"]),
                              str(req["ident"]), bool(req["guest"]))
            self.side.remote_members[key] = rm
        return rm

    def run_one(self, table: Table, req: Request) -> None:
        op = req.get("op")
        args: RequestArgs = req.get("args") or {}
        if op not in _OPS:
            raise RoomError("That could not be done (server error); nothing changed.")
        if not req.get("session"):
            # Who asked decides what may be done (docs/roles.md): a request without a
            # member is nobody's, and does nothing.
            log.warning("request %s at table %s says nobody asked: refused", op, table.id)
            raise RoomError("That could not be done (server error); nothing changed.")
        rm = self.member_of(req)
        if op == "fill":
            table.fill_with_bots(rm, args.get("seats"), args.get("level", "strong"))
            return
        if op in ("act", "say") and rm.table is not table:
            # Let go while its process seemed gone (a late heartbeat): back first.
            held = next((i for i, s in enumerate(table.seats) if s.held_by(rm)), None)
            if held is not None:
                table.sit(rm, held)
            elif op == "say":
                table.watch(rm)
        if op == "sit":
            seat = table.sit(rm, args.get("seat"))
            if isinstance(rm, RemoteMember):
                rm.tell({"k": "seated", "table": table.id, "seat": seat,
                          "at": self.side.mark(table)})
        elif op == "watch":
            table.watch(rm)
        elif op == "act":
            table.act(rm, args.get("action"))
        elif op == "say":
            table.say(rm, args.get("text"))
        elif op == "take":
            table.take_seat(rm, args.get("seat"))
        elif op == "detach":
            if rm.table is table:
                # Left while watching, and a seat came meanwhile (a computer player's
                # taken at the round's end): kept for them, not left (E-37 would end it).
                keep = bool(args.get("keep")) or (args.get("seat") is None
                                                  and rm.seat is not None)
                table.detach(rm, keep_seat=keep)
            self.side.remote_members.pop((req["origin"], req["session"]), None)

    def told(self, session: str, message: Told) -> None:
        """The driver of a table tells one of our members something."""
        member = self.side.own_session(session)
        if member is None:
            return
        k = message.get("k")
        rt = self.side.remote.get(str(message.get("table")))
        if k == "refused":
            error = unpack(message.get("error"))
            if message.get("op") in ("sit", "watch") and rt is not None and member.table is rt.table:
                # Not seated (or watching) there after all: the screen leaves the table.
                rt.local.discard(member)
                rt.pending.pop(member, None)
                rt.awaiting.pop(member, None)
                member.table, member.seat = None, None
                member.table_changed(TableChange(rt.table, "closed"))
            refused = getattr(member, "refused", None)
            (refused or member.notice)(error)
        elif k in ("seated", "granted") and rt is not None:
            seat = message.get("seat")
            if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 4:
                log.warning("table %s: a seat %r given by its driver; ignored", rt.id, seat)
                return
            raw_at = message.get("at")
            at = ((raw_at[0], raw_at[1]) if isinstance(raw_at, list) and len(raw_at) == 2
                  and all(is_int(x) for x in raw_at) else None)
            if k == "seated":
                # The seat asked for (or another the driver found free) is theirs.
                if member.table is rt.table and member in rt.pending:
                    rt.seated(member, seat, at)
                return
            if member.table is not rt.table:
                # Gone elsewhere meanwhile: the seat is held for them, the timer plays.
                self.side.request(rt.table, member, "detach", {"keep": True, "seat": seat})
                return
            rt.seated(member, seat, at)
        elif k == "dropped" and rt is not None:
            member.request_dropped(rt.table, int(message["seat"]), unpack(message["reason"]))
        elif k == "kick":
            if rt is not None:
                rt.local.discard(member)
            member.kick(unpack(message["reason"]))
        elif k == "notice":
            member.notice(unpack(message["text"]))
