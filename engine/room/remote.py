"""One room across processes: every table is *driven* by one process (its engine, timers
and computer players run there); the other processes show it and forward what their
members do.

- On the driver, a member connected to another process is a ``RemoteMember``: the
  table treats it as any member, and what the table tells it (a seat granted, a
  refusal, a kick) goes back to its process.
- Elsewhere, the table is a ``RemoteTable``: it shows the driver's last *frame* (every
  seat's view, the narration, chat, seats, the turn timer — what the driver shows, so
  stored before shown holds) and sends its members' requests to the driver. The checks
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
from collections import deque
from collections.abc import Callable, Iterator
from itertools import count
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard

from engine import View, replay
from engine.duplicate import BOARDS, plan

from .boards import EventBoard
from .catalogue import DEFAULT_LEVEL, parse_game, parse_length, parse_timer
from .errors import N_, RoomError, Said
from .events import TableChange, What
from .members import Member, Session
from .narration import Event
from .seats import Seat
from .stats import STATS
from .store import StoredMatch
from .table import Table
from .text import clean_name

if TYPE_CHECKING:
    from .registry import Registry

log = logging.getLogger("lamma.cluster")


# ------------------------------------------------------------------ exact JSON
# Frames cross processes as JSON that comes back exactly: views have int-keyed dicts
# and the narration is Said (template and parameters, said in each player's language).
def pack(obj: Any) -> Any:
    if isinstance(obj, Said):
        return {"$said": obj.template, "p": {k: pack(v) for k, v in obj.params.items()}}
    if isinstance(obj, RoomError):
        return {"$said": obj.template, "p": {k: pack(v) for k, v in obj.params.items()}}
    if isinstance(obj, dict):
        if all(isinstance(k, str) and not k.startswith("$") for k in obj):
            return {k: pack(v) for k, v in obj.items()}
        return {"$d": [[pack(k), pack(v)] for k, v in obj.items()]}
    if isinstance(obj, tuple):
        return {"$t": [pack(v) for v in obj]}
    if isinstance(obj, list):
        return [pack(v) for v in obj]
    return obj


def unpack(obj: Any) -> Any:
    if isinstance(obj, list):
        return [unpack(v) for v in obj]
    if isinstance(obj, dict):
        if "$said" in obj:
            return Said(obj["$said"], **{k: unpack(v) for k, v in obj.get("p", {}).items()})
        if "$d" in obj:
            return {unpack(k): unpack(v) for k, v in obj["$d"]}
        if "$t" in obj:
            return tuple(unpack(v) for v in obj["$t"])
        return {k: unpack(v) for k, v in obj.items()}
    return obj


# ------------------------------------------------------------------ rows read
# What another process wrote is hostile input (another version, a bug, a hand in the
# database): its types are checked before anything here reads it, and a lobby row is
# built again from the checked fields only, its names cleaned as a restored match's.
class Damaged(ValueError):
    """A table's shared row or frame that cannot be shown here (the message says why)."""


STATUSES = ("waiting", "playing", "over")


def _is_int(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _seat_no(v: object, none: bool = False) -> bool:
    """A seat number 0–3 (or None, if ``none``)."""
    return (none and v is None) or (_is_int(v) and 0 <= v < 4)


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise Damaged(what)


def _checked_seat(pub: object) -> dict[str, Any]:
    _need(isinstance(pub, dict), "a seat is not an object")
    assert isinstance(pub, dict)
    kind, name = pub.get("kind"), pub.get("name")
    _need(kind in ("empty", "human", "bot"), f"a seat's kind is {kind!r}")
    _need(name is None or isinstance(name, str), "a seat's name is not text")
    _need(isinstance(pub.get("guest"), bool), "a seat's guest mark is not true or false")
    _need(isinstance(pub.get("connected", True), bool), "a seat's connected is not true "
                                                         "or false")
    return {"kind": kind, "name": None if name is None else clean_name(name),
            "guest": pub["guest"], "connected": pub.get("connected", True)}


def checked_lobby_row(tid: str, row: object) -> dict[str, Any]:
    """``row`` (a table's lobby row, ``Table.summary``) built again from its checked
    fields; Damaged if one is missing or of another type."""
    _need(isinstance(row, dict), "its row is not an object")
    assert isinstance(row, dict)
    _need(row.get("id") == tid, f"its row names table {row.get('id')!r}")
    try:
        game = parse_game(row.get("game"))
        length = parse_length(game, row.get("length"))
        timer = parse_timer(row.get("timer"))
    except RoomError as e:
        raise Damaged(f"{e} (game {row.get('game')!r}, length {row.get('length')!r}, "
                      f"timer {row.get('timer')!r})") from None
    _need(isinstance(row.get("private"), bool), "its private is not true or false")
    _need(row.get("status") in STATUSES, f"its status is {row.get('status')!r}")
    for key in ("round", "rounds"):
        _need(row.get(key) is None or _is_int(row.get(key)), f"its {key} is not a number")
    spectators = row.get("spectators")
    _need(_is_int(spectators) and spectators >= 0, "its spectators are not a count")
    seats = row.get("seats")
    _need(isinstance(seats, list) and len(seats) == 4, "it has not four seats")
    assert isinstance(seats, list)
    out = {"id": tid, "game": game, "length": length, "timer": timer,
           "private": row["private"], "status": row["status"], "round": row.get("round"),
           "rounds": row.get("rounds"), "seats": [_checked_seat(p) for p in seats],
           "spectators": spectators}
    if "code" in row:
        _need(row["code"] is None or isinstance(row["code"], str), "its code is not text")
        out["code"] = row["code"]
    if "practice" in row:
        _need(isinstance(row["practice"], bool), "its practice is not true or false")
        out["practice"] = row["practice"]
    if "event" in row:
        ev = row["event"]
        _need(isinstance(ev, dict) and all(_is_int(ev.get(k)) for k in ("id", "board", "boards"))
              and 1 <= ev["board"] <= ev["boards"] <= BOARDS[1],
              "its event is not an event's board")
        out["event"] = {"id": ev["id"], "board": ev["board"], "boards": ev["boards"]}
    return out


def shown_board(game: str, row: dict[str, Any]) -> EventBoard | None:
    """An event's board as another process's row shows it: which event and board (its
    seed and entrant stay with its driver)."""
    ev = row.get("event")
    if ev is None:
        return None
    return EventBoard(ev["id"], ev["board"], ev["boards"], plan(game, ev["boards"], ev["board"]),
                      0, 0, "")


def checked_row(info: dict[str, Any]) -> dict[str, Any]:
    """A table's shared row as ``Cluster.fetch_rows`` read it, checked (Damaged if not
    whole): its lobby row, seat holders and code."""
    _need("$damaged" not in info, str(info.get("$damaged")))
    tid = info.get("id")
    _need(isinstance(tid, str), "its id is not text")
    assert isinstance(tid, str)
    holders = info.get("holders")
    _need(isinstance(holders, list) and len(holders) == 4
          and all(h is None or isinstance(h, str) for h in holders),
          "its seat holders are not four identities")
    code = info.get("code")
    _need(code is None or isinstance(code, str), "its code is not text")
    creator = info.get("creator")
    _need(creator is None or (isinstance(creator, str) and len(creator) <= 400),
          "its creator is not an identity")
    return {"id": tid, "row": checked_lobby_row(tid, info.get("row")), "holders": holders,
            "code": code, "creator": creator}


def checked_frame(tid: str, f: object) -> dict[str, Any]:
    """A frame (unpacked) whose every field this process reads is of its type; Damaged
    if not. A seat's view is filed under that seat (``view_of`` gives it by seat)."""
    _need(isinstance(f, dict), "its frame is not an object")
    assert isinstance(f, dict)
    _need("$damaged" not in f, f"its frame is not JSON ({f.get('$damaged')})")
    _need(f.get("id") == tid, f"its frame names table {f.get('id')!r}")
    _need(isinstance(f.get("driver"), str) and _is_int(f.get("epoch")),
          "its frame's driver is not named")
    try:
        parse_length(parse_game(f.get("game")), f.get("length"))
        parse_timer(f.get("timer"))
    except RoomError as e:
        raise Damaged(f"its frame: {e}") from None
    _need(isinstance(f.get("private"), bool), "its frame's private is not true or false")
    _need(f.get("code") is None or isinstance(f.get("code"), str),
          "its frame's code is not text")
    _need(f.get("status") in STATUSES, f"its frame's status is {f.get('status')!r}")
    _need(_is_int(f.get("version")), "its frame's version is not a number")
    views = f.get("views")
    if views is not None:
        _need(isinstance(views, dict), "its frame's views are not an object")
        assert isinstance(views, dict)
        for seat, view in views.items():
            _need(_seat_no(seat, none=True) and isinstance(view, dict)
                  and view.get("seat") == seat, "a view in its frame is not its seat's")
            hand = view.get("hand", [])
            _need(isinstance(hand, list) and all(isinstance(c, str) for c in hand),
                  "a hand in its frame is not cards")
    events = f.get("events")
    _need(isinstance(events, list) and all(
        isinstance(e, list) and len(e) == 4 and _seat_no(e[0], none=True)
        and (e[1] is None or isinstance(e[1], dict)) and isinstance(e[2], str)
        and (e[3] is None or _is_int(e[3])) for e in events),
        "its frame's narration is not events")
    chat = f.get("chat")
    _need(isinstance(chat, list) and all(
        isinstance(c, list) and len(c) == 2 and all(isinstance(x, str) for x in c)
        for c in chat), "its frame's chat is not lines")
    seats = f.get("seats")
    _need(isinstance(seats, list) and len(seats) == 4 and all(
        isinstance(x, dict) and x.get("kind") in ("empty", "human", "bot")
        and all(x.get(k) is None or isinstance(x.get(k), str)
                for k in ("name", "ident", "replaced"))
        and isinstance(x.get("level", DEFAULT_LEVEL), str) for x in seats),
        "its frame's seats are not four seats")
    deadline = f.get("deadline_in")
    _need(deadline is None or (isinstance(deadline, (int, float))
                               and not isinstance(deadline, bool)),
          "its frame's turn timer is not a number")
    _need(_seat_no(f.get("deadline_seat"), none=True), "its frame's timed seat is no seat")
    points = f.get("points")
    _need(points is None or (isinstance(points, dict) and all(
        _seat_no(k) and isinstance(v, dict) and _is_int(v.get("points"))
        and (v.get("badge") is None or isinstance(v.get("badge"), str))
        for k, v in points.items())), "its frame's level points are not points")
    _need(isinstance(f.get("between"), bool), "its frame's between is not true or false")
    _need(f.get("match_id") is None or _is_int(f.get("match_id")),
          "its frame's match is not a number")
    takeovers = f.get("takeovers")
    _need(isinstance(takeovers, dict) and all(
        isinstance(k, str) and k in ("0", "1", "2", "3") and isinstance(v, str)
        for k, v in takeovers.items()), "its frame's promised seats are not seats")
    return {**f, "row": checked_lobby_row(tid, f.get("row"))}


def frame_of(table: Table, driver: str, epoch: int) -> dict[str, Any]:
    """What ``table`` shows now, for the processes that show it elsewhere."""
    loop = asyncio.get_running_loop()
    # Seconds left, not a time: another machine's clock may differ.
    deadline_in = None if table.deadline is None else table.deadline - loop.time()
    seats = []
    for s in table.seats:
        info = s.settings()
        info["connected"] = s.kind != "human" or s.member is not None
        seats.append(info)
    frame: dict[str, Any] = pack({
        "id": table.id, "driver": driver, "epoch": epoch,
        "game": table.game, "length": table.length, "timer": table.timer,
        "private": table.private, "code": table.code, "status": table.shown_status,
        "version": table.version, "views": _shared_history(table.views),
        "events": [[e.seat, e.action, e.text, e.round] for e in table.events],
        "chat": [list(c) for c in table.chat], "said": table.chat_said, "seats": seats,
        "deadline_in": deadline_in, "deadline_seat": table.deadline_seat,
        "points": table.points, "match_id": table.match_id,
        "takeovers": {str(seat): m.ident for seat, m in table.takeovers.items()},
        "between": table.between_rounds(), "row": table.summary(),
        "creator": table.creator,       # who decides before the start (docs/roles.md)
    })
    return frame


def _shared_history(views: dict[int | None, Any] | None) -> dict[Any, Any] | None:
    """The views with the match's history (the same in every view, and most of a
    frame's bytes late in a match) said once, under the watcher's view."""
    if views is None:
        return None
    pub = views.get(None)
    history = pub.get("history") if pub is not None else None
    if not history:
        return dict(views)
    out: dict[Any, Any] = {}
    for seat, view in views.items():
        if seat is not None and view.get("history") == history:
            view = dict(view)
            view["history"] = "$history"
        out[seat] = view
    return out


def _whole_history(views: dict[Any, Any] | None) -> dict[Any, Any] | None:
    if views is None or None not in views:
        return views
    history = views[None].get("history")
    for view in views.values():
        if view.get("history") == "$history":
            view["history"] = history
    return views


class Cluster(Protocol):
    """What the room needs of the shared database (``server.cluster.PgCluster``)."""

    process: str
    token: str          # this start of the process (its sessions' ids begin with it)

    def new_table_id(self) -> str: ...

    def publish(self, table: Table, row: dict[str, Any], holders: list[str | None],
                frame: dict[str, Any] | None) -> None:
        """The table's row (and frame) for everyone, after the table's writes so far."""

    def gone(self, table: Table) -> None: ...

    def request(self, tid: str, session: str, body: dict[str, Any]) -> None:
        """A member's request to the table's driver (in the order sent)."""

    def tell(self, process: str, session: str, message: dict[str, Any]) -> None: ...

    def fetch_frame(self, tid: str, done: Callable[[dict[str, Any] | None], None]) -> None: ...

    def fetch_rows(self, done: Callable[[list[dict[str, Any]] | None], None]) -> None: ...

    def take_requests(self, tid: str, done: Callable[[list[dict[str, Any]]], None]) -> None: ...

    def fetch_row(self, tid: str | None, code: str | None,
                  done: Callable[[list[dict[str, Any]] | None], None]) -> None:
        """One table's row, by its id or its private code."""

    def login(self, name_key: str, ident: str) -> None: ...


class _Elsewhere:
    """A seat's holder connected to another process (a frame's "connected")."""

    ident = ""
    name = ""
    table = None
    seat = None


ELSEWHERE: Any = _Elsewhere()


class RemoteMember(Session):
    """On the driver: a member connected to another process."""

    kind = "remote"

    def __init__(self, side: ClusterSide, process: str, session: str, name: str,
                 ident: str, guest: bool):
        super().__init__(name, ident, guest)
        self.side = side
        self.process = process
        self.session = session

    def _tell(self, message: dict[str, Any]) -> None:
        if not self.closed:
            self.side.cluster.tell(self.process, self.session, message)

    def seat_granted(self, table: Table, seat: int) -> None:
        self._tell({"k": "granted", "table": table.id, "seat": seat,
                    "at": self.side.mark(table)})

    def request_dropped(self, table: Table, seat: int, reason: str) -> None:
        self._tell({"k": "dropped", "table": table.id, "seat": seat, "reason": pack(reason)})

    def kick(self, reason: str) -> None:
        self._tell({"k": "kick", "reason": pack(reason)})
        self.closed = True
        self.side.remote_members.pop((self.process, self.session), None)

    def notice(self, text: str) -> None:
        self._tell({"k": "notice", "text": pack(text)})


class RemoteTable(Table):
    """A table driven by another process, as this one shows it."""

    def __init__(self, side: ClusterSide, tid: str):
        super().__init__(side.registry, tid, "estimation", None)
        self.side = side
        self.local: set[Member] = set()     # this process's members at it
        # Seats asked of the driver and not given yet: the member watches meanwhile
        # (``member.seat`` is only ever a seat the driver gave; see ``view_of``).
        self.pending: dict[Member, int] = {}
        self.driver = ""
        self.epoch = -1
        self.row: dict[str, Any] = {}
        self.holders: list[str | None] = [None] * 4
        self._between = False
        self._offset = 0                # added to a later driver's versions
        self._takeover_idents: dict[int, str] = {}
        # The stored match its last frame shows (reviews and hints read it from the
        # store: engine/room/reviews.py); ``match_id`` stays None here (nothing is
        # written for it by this process).
        self.stored_id: int | None = None
        self.fetching = False           # a frame is on its way
        self.stale = False              # changed again while it was
        self.frame_version = -1         # the last frame's own version (no offset)
        # Members seated by the driver whose seat is shown once a frame at least as new
        # as the driver's table when it seated them is here: (epoch, version).
        self.awaiting: dict[Member, tuple[int, int]] = {}
        self.awaiting_since = 0.0       # loop time the first of them was seated
        # A move sent to the driver and not yet seen in a frame: (driver, epoch, its
        # frame version then). A takeover whose first frame still waits for that seat's
        # move means the dead driver took it without storing it: its sender is told
        # (issue 41: refused, "play again"; never dropped in silence).
        self.moves_sent: dict[Member, tuple[str, int, int]] = {}

    # ---------------------------------------------------------------- reading
    def apply_row(self, info: dict[str, Any]) -> bool:
        """The lobby's row and seat holders (every table of the room is listed), as
        ``checked_row`` gives them. True if it changed."""
        row, holders = info["row"], info["holders"]
        # Who made it (the cap of open tables per person counts every process's).
        self.creator = info.get("creator", self.creator)
        if row == self.row and holders == self.holders and info["code"] == self.code:
            return False
        self.row, self.holders = row, holders
        self.game, self.length = row["game"], row["length"]
        self.timer, self.private = row["timer"], bool(row["private"])
        self.practice = bool(row.get("practice"))
        self.code = info["code"]
        self.event = shown_board(self.game, row)
        if self.shown_status == "waiting" or not self.local:
            self.status = self.shown_status = row["status"]
        if not self.local:
            # Seats as the lobby shows them (held_seat and may_see read them).
            seats = []
            for i, pub in enumerate(row["seats"]):
                seat = Seat(pub["kind"], pub["name"], holders[i], bool(pub["guest"]))
                seat.member = ELSEWHERE if pub.get("connected") and pub["kind"] == "human" else None
                seats.append(seat)
            self.seats = seats
        return True

    def apply_frame(self, f: dict[str, Any]) -> None:
        """The driver's newest frame: shown to this process's members (Damaged, and
        nothing changed, if it is not whole)."""
        try:
            f = checked_frame(self.id, unpack(f))
        except Damaged:
            raise
        except Exception as e:      # unpack: a "$d" that is no pairs, a "$said" unsaid
            raise Damaged(f"its frame cannot be read ({e!r})") from None
        old_version, old_said = self.version, self.chat_said
        new_driver = (f["driver"], f["epoch"]) != (self.driver, self.epoch)
        first = self.driver == ""
        self.driver, self.epoch = f["driver"], f["epoch"]
        self.game, self.length, self.timer = f["game"], f["length"], f["timer"]
        self.private, self.code = f["private"], f["code"]
        self.status = self.shown_status = f["status"]
        # Never backwards (a new driver counts from where the log left it): screens
        # compare versions.
        if new_driver and not first:
            self._offset = max(self._offset, self.version + 1 - f["version"])
        self.version = f["version"] + self._offset
        self.frame_version = f["version"]
        self.views = _whole_history(f["views"])
        self.events = deque((Event(s, a, t, r) for s, a, t, r in f["events"]), maxlen=20)
        self.chat = deque((tuple(c) for c in f["chat"]), maxlen=self.chat.maxlen)
        # Lines said in all (an older driver's frame has none: its kept lines count).
        said = f.get("said")
        self.chat_said = said if _is_int(said) and said >= len(self.chat) else len(self.chat)
        seats = []
        for info in f["seats"]:
            seat = Seat.from_settings(info)
            seat.member = ELSEWHERE if info.get("connected") and seat.kind == "human" else None
            seats.append(seat)
        self.seats = seats
        for m in self.local:
            if m.seat is not None and 0 <= m.seat < 4 and self.seats[m.seat].held_by(m):
                self.seats[m.seat].member = m
        loop = asyncio.get_running_loop()
        self.deadline = (None if f["deadline_in"] is None
                         else loop.time() + f["deadline_in"])
        self.deadline_seat = f["deadline_seat"]
        self.points = f["points"]
        self._between = f["between"]
        self._takeover_idents = {int(k): v for k, v in f["takeovers"].items()}
        self.row = f["row"]
        self.practice = bool(self.row.get("practice"))
        self.stored_id = f.get("match_id")
        self.event = shown_board(self.game, self.row)
        self.creator = f.get("creator")
        if new_driver and not first:
            self.side.reattach(self)    # another process drives it now: our members again
        self._moves_lost(new_driver and not first)
        shown_now = self.show_awaiting()
        what: What
        if self.version != old_version or shown_now:
            what = "state"
        elif self.chat_said != old_said:
            what = "chat"
        else:
            what = "seats"
        self.notify(what)

    def _moves_lost(self, taken_over: bool) -> None:
        """Moves sent before this frame: seen (the frame moved on from where it was when
        sent) they are forgotten; after a takeover, one whose seat is still to act was
        taken by the dead driver and never stored: its sender is told to play it again."""
        pub = self.views.get(None) if self.views is not None else None
        to_act = pub.get("to_act") if pub is not None else None
        for member, (driver, epoch, version) in list(self.moves_sent.items()):
            if member.closed or member.table is not self or member.seat is None:
                self.moves_sent.pop(member, None)
            elif taken_over and (driver, epoch) != (self.driver, self.epoch):
                self.moves_sent.pop(member, None)
                if to_act == member.seat:
                    said = Said(N_("The table's process stopped before your move was "
                                   "stored: it was not played. Play it again."))
                    refused = getattr(member, "refused", None)
                    (refused or member.notice)(said)
            elif (driver, epoch) == (self.driver, self.epoch) and self.frame_version > version:
                self.moves_sent.pop(member, None)

    @property
    def match_id(self) -> int | None:
        return None

    def summary(self) -> dict[str, Any]:
        return self.row

    def members(self) -> Iterator[Member]:
        yield from list(self.local)

    def between_rounds(self) -> bool:
        return self.status == "waiting" or self._between

    def round_info(self) -> tuple[int | None, int | None]:
        pub = self.views.get(None) if self.views is not None else None
        if pub is None:
            return None, None
        return pub.get("round"), pub.get("rounds")

    def view_of(self, member: Member) -> View | None:
        """A seat's view only to the member its driver gave the seat (``seated``) and
        its last frame says holds it; nothing while the seat is asked for. This
        process's listing may be a second old: a seat free in it may be someone's."""
        if member.table is not self or member in self.pending or member in self.awaiting:
            return None
        seat = member.seat
        if seat is not None and not (0 <= seat < len(self.seats)
                                     and self.seats[seat].held_by(member)):
            return None
        return self.view(seat)

    def request_of(self, member: Member) -> int | None:
        for seat, ident in self._takeover_idents.items():
            if ident == member.ident and member.table is self and member.seat is None:
                return seat
        return None

    # ---------------------------------------------------------------- doing
    def _send(self, member: Member, op: str, **args: Any) -> None:
        self.side.request(self, member, op, args)

    def _join_locally(self, member: Member) -> None:
        """``member`` at this table here, watching until the driver gives a seat."""
        self.registry.detach(member, keep_seat=False, unless=self)
        if not self.local and self.driver == "":
            self.side._fetch(self)          # the driver's frame now, if it has one
        self.local.add(member)
        self.pending.pop(member, None)
        self.awaiting.pop(member, None)
        member.table, member.seat = self, None

    def sit(self, member: Member, seat: int | None = None) -> int:
        """Asks the driver for a seat: ``member.seat`` is set (and the seat's view
        shown) once the driver gives it (``seated``); the seat asked for is returned."""
        named = seat is not None
        chosen, held = self.seat_for(member, seat)      # the refusals a frame can tell
        if member.table is self and member.seat == chosen:
            # Seated here already: asked again (the driver answers "seated" as before).
            self._send(member, "sit", seat=chosen)
            return chosen
        self._join_locally(member)
        self.pending[member] = chosen
        # The seat as we see it; unless one was named or is held, the driver gives the
        # first free one as it sees it (someone elsewhere may have sat down meanwhile)
        # and tells us which.
        self._send(member, "sit", seat=chosen if (held or named) else None)
        return chosen

    def show_awaiting(self, anyway: bool = False) -> bool:
        """The seats of members ``seated`` whose frame is here now (``anyway``: all of
        them, with what is here) are theirs on the screen: True if any (the caller tells
        them with a "state")."""
        shown = False
        for m, at in list(self.awaiting.items()):
            if m.table is not self or m.seat is None:
                del self.awaiting[m]
            elif anyway or self.shows(at):
                del self.awaiting[m]
                if self.seats[m.seat].held_by(m):
                    self.seats[m.seat].member = m
                m.seat_granted(self, m.seat)
                shown = True
        return shown

    def shows(self, at: tuple[int, int]) -> bool:
        """This process's frame is at least as new as the driver's table at ``at``
        (its epoch, its version): a later driver's, or the same one's as late."""
        return (self.epoch, self.frame_version) >= at

    def seated(self, member: Member, seat: int, at: tuple[int, int] | None = None) -> None:
        """The driver gave ``member`` ``seat`` (a seat asked for, or a computer player's):
        theirs here from now, and its view shown once a frame says so."""
        self.pending.pop(member, None)
        self.local.add(member)
        member.table, member.seat = self, seat
        if at is not None and not self.shows(at):
            # The driver says "seated" apart from its frames (a word is no frame, and
            # it may come first), and our frame may be older than one another process
            # showed (a dead driver's last, whose notice never came): the seat is shown
            # with a frame as new as the driver's table when it seated them
            # (apply_frame), never an older one.
            if not self.awaiting:
                self.awaiting_since = asyncio.get_running_loop().time()
            self.awaiting[member] = at
            self.side._fetch(self)
            return
        if self.seats[seat].held_by(member):
            self.seats[seat].member = member
        member.seat_granted(self, seat)
        member.table_changed(TableChange(self, "state"))
        self.side._fetch(self)

    def watch(self, member: Member) -> None:
        if member.table is self and member.seat is not None:
            raise RoomError("You are seated at this table.")
        self.registry.detach(member, keep_seat=False)
        self._join_locally(member)
        self._send(member, "watch")

    def act(self, member: Member, action: object) -> None:
        if member.table is not self or member.seat is None:
            raise RoomError("You are not seated at a table.")
        if self.registry.store.down:
            raise RoomError("The room cannot store moves just now (its database does not "
                            "answer); nothing was played. Try again in a moment.")
        if self.status != "playing":
            if self.status == "waiting":
                raise RoomError("The match has not started.")
            raise RoomError("The match is over.")
        view = self.view(member.seat)
        if view is not None and view.get("to_act") != member.seat:
            raise RoomError("It is not your turn.")
        if not isinstance(action, dict):
            raise RoomError("That is not an action: an action has a type (pass, bid, play …).")
        self.moves_sent[member] = (self.driver, self.epoch, self.frame_version)
        self._send(member, "act", action=action)

    def say(self, member: Member, raw: object) -> None:
        self._send(member, "say", text=self.chat_line(member, raw))

    def take_seat(self, member: Member, seat: object) -> bool:
        seat = self.check_take(member, seat)    # the checks a frame can answer
        if member.table is not self:
            self.registry.detach(member, keep_seat=False)
            self._join_locally(member)
        self._send(member, "take", seat=seat)
        # Between rounds the driver gives it at once (as the frame says), else at the
        # round's end; either way its "granted" comes back as seat_granted.
        return self.between_rounds()

    def fill_with_bots(self, member: Member, seats: Any = None,
                       level: object = "strong") -> None:
        self.verify_fill(member)        # as the frame tells; the driver checks again
        self._send(member, "fill", seats=None if seats is None else list(seats), level=level)

    def detach(self, member: Member, keep_seat: bool) -> None:
        if member not in self.local:
            return
        self.local.discard(member)
        asked = self.pending.pop(member, None)
        self.awaiting.pop(member, None)
        seat = member.seat if member.seat is not None else asked
        if seat is not None and self.seats[seat].member is member:
            self.seats[seat].member = None
        member.table, member.seat = None, None
        self._send(member, "detach", keep=keep_seat, seat=seat)
        if not self.local:
            # Nobody here shows it now: frames stop being read, so the one kept would be
            # stale when someone comes back (they see nothing until a fresh one).
            self.views = None
            self.driver, self.epoch, self.frame_version = "", -1, -1

    def close(self) -> None:
        self.closed = True
        self.deadline = self.deadline_seat = None
        for member in list(self.local):
            member.table, member.seat = None, None
            try:
                member.table_changed(TableChange(self, "closed"))
            except Exception:
                log.exception("notifying %s failed", member.name)
        self.local.clear()
        self.pending.clear()
        self.awaiting.clear()


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


# What a driver does with a request: the member's op on the real table.
_OPS = ("sit", "watch", "act", "say", "take", "fill", "detach")

# A table's frame is written at the end of the loop turn of a move or a line said (what
# its players wait for); for other changes (people coming to watch and going, seats) at
# most once every FRAME_EVERY seconds, with the state of that moment: a frame is every
# seat's view, and a flood of watch/leave must not write one each.
FRAME_EVERY = 0.1
PROMPT = ("state", "chat")
CARRY_EVERY = 2.0   # seconds: a playing table's frame written at least this often when it
                    # changed, members elsewhere or not (what a takeover starts from)
# Requests from elsewhere run per loop turn at most (the rest on the next turns: one
# batch taken from the database never holds the loop).
REQUESTS_PER_TURN = 32
# A lookup that missed the listing reads the table's row again this often (seconds).
LOOKUP_AGAIN = 0.1
# A seat given by a driver is shown with a frame at least as new as its table then; if
# none comes within this (seconds), with the one here.
AWAIT_FRAME = 5.0
TOO_MANY = N_("Too many requests: that was not done. Try again in a moment.")


class _Frame:
    """A table's frame to write, and what its members here are told once it is."""

    __slots__ = ("handle", "last", "prompt", "table", "tells")

    def __init__(self, table: Table):
        self.table = table
        self.tells: list[What] = []
        self.handle: asyncio.Handle | None = None
        self.prompt = False             # the handle runs at the end of this loop turn
        self.last = float("-inf")       # loop time the last one was written


class ClusterSide:
    """The registry's part of a room that spans processes."""

    def __init__(self, registry: Registry, cluster: Cluster):
        self.registry = registry
        self.cluster = cluster
        self.process = cluster.process
        self.remote: dict[str, RemoteTable] = {}            # every other process's table
        self.remote_members: dict[tuple[str, str], RemoteMember] = {}
        self._sessions: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()
        self._sid: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self._ids = count(1)
        self._sid_prefix = cluster.token
        self._due: dict[str, Table] = {}
        self._published: dict[str, tuple[dict[str, Any], list[str | None]]] = {}
        self.epochs: dict[str, int] = {}                    # tables this process drives
        self._rows_due = False
        self._rows_fetching = False
        self._damaged: set[tuple[str, str]] = set()         # (row | frame, table) said
        self.on_login: Callable[[str, str, str], None] | None = None   # the server's
        self._frames: dict[str, _Frame] = {}                # frames to write, by table
        # Tables nobody elsewhere shows: a frame all the same, at most every CARRY_EVERY
        # s while they play, so a takeover keeps their chat, narration and turn timer.
        self._carry: dict[str, asyncio.TimerHandle] = {}
        self._taking: dict[str, bool] = {}      # requests being taken: take again after?
        self._queued: dict[str, deque[dict[str, Any]]] = {}     # requests taken, to run
        # The server's (server/limits.py): is a request from a member elsewhere within
        # what a member here may ask (its session's and its address's rates)?
        self.allowed: Callable[[dict[str, Any]], bool] = lambda req: True

    # ------------------------------------------------------------ sessions
    def session_of(self, member: Member) -> str:
        sid = self._sid.get(member)
        if sid is None:
            sid = f"{self._sid_prefix}-{next(self._ids)}"
            self._sid[member] = sid
            self._sessions[sid] = member
        return sid

    def request(self, table: RemoteTable, member: Member | None, op: str,
                args: dict[str, Any]) -> None:
        body: dict[str, Any] = {"op": op, "args": args}
        sid = ""
        if member is not None:
            sid = self.session_of(member)
            body.update(name=member.name, ident=member.ident, guest=member.guest,
                        address=getattr(member, "address", ""))
        STATS.cluster_requests.inc()
        self.cluster.request(table.id, sid, body)

    # ------------------------------------------------------------ driving
    def mark(self, table: Table) -> list[int]:
        """Where a table this process drives is now, as its frames will say: [epoch,
        version] (a member elsewhere is shown its seat with a frame at least this new)."""
        return [self.epochs.get(table.id, 0), table.version]

    def frame_written(self, table: Table, what: What = "state") -> bool:
        """``table`` (ours, or shown here for another process) is about to tell its
        members ``what`` changed. With members elsewhere its frame is written first
        (True: ours are told here once it is committed: no process shows less than
        another has shown); otherwise its lobby row goes out at the end of this loop
        turn, if it changed (False: tell them now)."""
        if isinstance(table, RemoteTable):
            return False
        if any(isinstance(m, RemoteMember) for m in table.members()):
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
            self._publish(table, force=True)
        except Exception:
            log.exception("publishing table %s", table.id)

        def tell() -> None:
            for what in tells:
                table.tell_members(what)
        self.registry.store.then(tell)

    def shown(self, table: Table) -> None:
        """A table this process drives showed something: its row (and, when members
        elsewhere show it, its frame) goes to the database once this loop turn is over;
        a playing table's frame within CARRY_EVERY s in any case (``_carry``)."""
        if isinstance(table, RemoteTable):
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
            self._publish(table, force=True)
        except Exception:
            log.exception("publishing table %s", table.id)

    def _publish_due(self) -> None:
        due, self._due = self._due, {}
        for table in due.values():
            if table.closed or self.registry.tables.get(table.id) is not table:
                continue
            try:
                self._publish(table)
            except Exception:
                log.exception("publishing table %s", table.id)

    def _publish(self, table: Table, force: bool = False) -> None:
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
        if frame is not None:
            STATS.cluster_frames.inc()
        self.cluster.publish(table, row, holders, frame)

    def table_removed(self, table: Table) -> None:
        self._due.pop(table.id, None)
        carry = self._carry.pop(table.id, None)
        if carry is not None:
            carry.cancel()
        f = self._frames.pop(table.id, None)
        if f is not None and f.handle is not None:
            f.handle.cancel()
        self._published.pop(table.id, None)
        self.epochs.pop(table.id, None)
        for key, rm in list(self.remote_members.items()):
            if rm.table is None and not any(s.held_by(rm) for s in table.seats):
                self.remote_members.pop(key, None)
        self.cluster.gone(table)

    def requests_waiting(self, tid: str) -> None:
        """A request for ``tid`` was sent: the driver (if it is us) takes what waits,
        one read at a time per table (a word while one is on its way: once more after)."""
        if tid not in self.registry.tables or isinstance(self.registry.tables[tid],
                                                         RemoteTable):
            return
        if tid in self._taking:
            self._taking[tid] = True
            return
        self._taking[tid] = False

        def took(requests: list[dict[str, Any]]) -> None:
            again = self._taking.pop(tid, False)
            self._run_requests(tid, requests)
            if again:
                self.requests_waiting(tid)
        self.cluster.take_requests(tid, took)

    def _run_requests(self, tid: str, requests: list[dict[str, Any]]) -> None:
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
        table = self.registry.tables.get(tid)
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
                self._run_one(table, req)
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

    def _refuse(self, req: dict[str, Any], e: RoomError) -> None:
        if req.get("session"):
            self.cluster.tell(req["origin"], req["session"],
                              {"k": "refused", "table": req["table"], "op": req.get("op"),
                               "error": pack(e)})

    def _member(self, req: dict[str, Any]) -> Member:
        if req["origin"] == self.process:
            # Sent by one of our own sessions while another process drove the table,
            # before we took it over: that session itself, not a stranger under its name.
            own: Member | None = self._sessions.get(req["session"])
            if own is not None and not own.closed:
                return own
            raise RoomError("You are not at this table.")
        key = (req["origin"], req["session"])
        rm = self.remote_members.get(key)
        if rm is None or rm.closed or rm.ident != req["ident"]:
            rm = RemoteMember(self, req["origin"], req["session"], str(req["name"]),
                              str(req["ident"]), bool(req["guest"]))
            self.remote_members[key] = rm
        return rm

    def _run_one(self, table: Table, req: dict[str, Any]) -> None:
        op, args = req.get("op"), req.get("args") or {}
        if op not in _OPS:
            raise RoomError("That could not be done (server error); nothing changed.")
        if not req.get("session"):
            # Who asked decides what may be done (docs/roles.md): a request without a
            # member is nobody's, and does nothing.
            log.warning("request %s at table %s says nobody asked: refused", op, table.id)
            raise RoomError("That could not be done (server error); nothing changed.")
        rm = self._member(req)
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
                rm._tell({"k": "seated", "table": table.id, "seat": seat,
                          "at": self.mark(table)})
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
            self.remote_members.pop((req["origin"], req["session"]), None)

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

    def adopt(self, stored: StoredMatch, epoch: int, frame: dict[str, Any] | None) -> None:
        """This process won the lease of a table whose driver died: the match is
        replayed from the stored log and played on here; members elsewhere come back
        to it (they see the new driver's frame and send their seats again)."""
        tid = stored.table_id
        old = self.remote.pop(tid, None)
        match = replay(stored.record)
        if match.result is not None:
            return
        table = self.registry.resume(tid, match, stored.id, stored.settings, stored.seats,
                                     counts_for_points=stored.humans_throughout)
        self.epochs[tid] = epoch
        f = None
        if frame is not None:
            try:
                f = checked_frame(tid, unpack(frame))
            except Exception as e:
                log.error("table %s: its last frame is damaged (%s); taken over without "
                          "its chat, narration and turn timer", tid, str(e)[:300])
        if f is not None:
            table.chat.extend(tuple(c) for c in f.get("chat", []))
            said = f.get("said")
            table.chat_said = said if _is_int(said) and said >= len(table.chat) \
                else len(table.chat)
            table.events.extend(Event(s, a, t, r) for s, a, t, r in f.get("events", []))
            table.version = int(f.get("version", 0)) + 1
            if f.get("deadline_in") is not None and f.get("deadline_seat") is not None:
                table.carried_deadline = (time.time() + float(f["deadline_in"]),
                                          int(f["deadline_seat"]), len(match.log))
        if old is not None:
            old.pending.clear()
            for m in list(old.local):
                old.local.discard(m)
                m.table, m.seat = None, None
                # Our own members at it: attached here now (the seat, or watching).
                if _back_at(table, m):
                    m.table_changed(TableChange(table, "state"))
                else:
                    m.table_changed(TableChange(old, "closed"))
        table.turns.schedule()
        self._publish(table, force=True)
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
        if table is None or isinstance(table, RemoteTable):
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
        self._published.pop(tid, None)
        self._frames.pop(tid, None)
        self.epochs.pop(tid, None)
        rt = self.remote_table(tid)
        for m in local:
            m.notice(Said(N_("This table moved to another server of the room; you are "
                             "back at it.")))
            if _back_at(rt, m, held_in=table):
                m.table_changed(TableChange(rt, "state"))
            else:
                m.table_changed(TableChange(table, "closed"))
        self.registry.lobby_changed()

    def reattach(self, table: RemoteTable) -> None:
        for m in list(table.local):
            seat = m.seat if m.seat is not None else table.pending.get(m)
            if seat is not None:
                self.request(table, m, "sit", {"seat": seat})
            elif table.request_of(m) is None:
                self.request(table, m, "watch", {})

    # ------------------------------------------------------------ showing
    def remote_table(self, tid: str) -> RemoteTable:
        rt = self.remote.get(tid)
        if rt is None:
            rt = self.remote[tid] = RemoteTable(self, tid)
        return rt

    def table_changed(self, tid: str, row: dict[str, Any] | None = None) -> None:
        """The driver of ``tid`` published: its row, when the notice carried it, is
        listed at once (checked as a read one is); else every row is read again. A
        table our members are at shows its frame."""
        if row is not None:
            self._apply_one(row)
        else:
            self.rows_changed()
        rt = self.remote.get(tid)
        if rt is None or not rt.local:
            return
        self._fetch(rt)

    def fetch(self, rt: RemoteTable) -> None:
        """``rt``'s frame read again (the cluster: a word for us may have been missed)."""
        self._fetch(rt)

    def publish(self, table: Table, force: bool = False) -> None:
        """``table``'s row (and frame) written now (the cluster: after a takeover)."""
        self._publish(table, force)

    def _fetch(self, rt: RemoteTable) -> None:
        if rt.fetching:
            rt.stale = True
            return
        rt.fetching, rt.stale = True, False

        def got(frame: dict[str, Any] | None) -> None:
            rt.fetching = False
            if frame is not None and rt.local and not rt.closed:
                try:
                    rt.apply_frame(frame)
                    self._damaged.discard(("frame", rt.id))
                except Damaged as e:
                    self.damaged("frame", rt.id, str(e))
                except Exception:
                    log.exception("showing table %s", rt.id)
            if rt.stale and rt.local:
                self._fetch(rt)
            elif rt.awaiting and not rt.closed:
                # The frame that shows a seat given is not written yet (or its notice
                # was lost): read again soon rather than wait for a notice.
                asyncio.get_running_loop().call_later(LOOKUP_AGAIN, self._await_frame, rt)
        self.cluster.fetch_frame(rt.id, got)

    def _await_frame(self, rt: RemoteTable) -> None:
        if rt.closed or not rt.awaiting or rt.fetching:
            return
        if asyncio.get_running_loop().time() - rt.awaiting_since > AWAIT_FRAME:
            log.warning("table %s: no frame as new as its driver's within %.0f s; seats "
                        "shown with the one here", rt.id, AWAIT_FRAME,
                        extra={"table": rt.id, "event": "frame-late"})
            if rt.show_awaiting(anyway=True):
                rt.notify("state")
            return
        self._fetch(rt)

    def rows_changed(self) -> None:
        """Some table's row changed: every row is read again, at most once a second."""
        if self._rows_fetching:
            self._rows_due = True
            return
        self._rows_fetching, self._rows_due = True, False
        self.cluster.fetch_rows(self._got_rows)

    def _got_rows(self, rows: list[dict[str, Any]] | None) -> None:
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

        def done(rows: list[dict[str, Any]] | None) -> None:
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

            def done(rows: list[dict[str, Any]] | None, got: asyncio.Future[bool] = got
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

    def _apply_one(self, raw: dict[str, Any]) -> bool:
        """One table's row as read: listed here (True), or damaged (said once)."""
        try:
            info = checked_row(raw)
        except Damaged as e:
            self.damaged("row", str(raw.get("id")), str(e))
            return False
        tid = info["id"]
        own = self.registry.tables.get(tid)
        if own is not None and not isinstance(own, RemoteTable):
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

    def _apply_rows(self, rows: list[dict[str, Any]]) -> None:
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
            if tid in self.registry.tables and not isinstance(self.registry.tables[tid],
                                                                RemoteTable):
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

    def told(self, session: str, message: dict[str, Any]) -> None:
        """The driver of a table tells one of our members something."""
        member = self._sessions.get(session)
        if member is None or member.closed:
            return
        k = message.get("k")
        rt = self.remote.get(str(message.get("table")))
        if k == "refused":
            error = unpack(message.get("error"))
            if message.get("op") in ("sit", "watch") and rt is not None and member.table is rt:
                # Not seated (or watching) there after all: the screen leaves the table.
                rt.local.discard(member)
                rt.pending.pop(member, None)
                rt.awaiting.pop(member, None)
                member.table, member.seat = None, None
                member.table_changed(TableChange(rt, "closed"))
            refused = getattr(member, "refused", None)
            (refused or member.notice)(error)
        elif k in ("seated", "granted") and rt is not None:
            seat = message.get("seat")
            if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 4:
                log.warning("table %s: a seat %r given by its driver; ignored", rt.id, seat)
                return
            raw_at = message.get("at")
            at = ((raw_at[0], raw_at[1]) if isinstance(raw_at, list) and len(raw_at) == 2
                  and all(_is_int(x) for x in raw_at) else None)
            if k == "seated":
                # The seat asked for (or another the driver found free) is theirs.
                if member.table is rt and member in rt.pending:
                    rt.seated(member, seat, at)
                return
            if member.table is not rt:
                # Gone elsewhere meanwhile: the seat is held for them, the timer plays.
                self.request(rt, member, "detach", {"keep": True, "seat": seat})
                return
            rt.seated(member, seat, at)
        elif k == "dropped" and rt is not None:
            member.request_dropped(rt, int(message["seat"]), unpack(message["reason"]))
        elif k == "kick":
            if rt is not None:
                rt.local.discard(member)
            member.kick(unpack(message["reason"]))
        elif k == "notice":
            member.notice(unpack(message["text"]))
