"""A table another process drives, as this one shows it (issue 41's replica).

The ``Table`` here holds what every process shows of it — its facts, seats, the shown
views, narration, chat and turn timer — and its ``replica`` (this) stands where the
driving parts (``Seating``, ``Runner``, ``Turns``) stand at the driver: it applies the
driver's frames and lobby rows to the table, answers at once what a frame can answer
(your turn, a free seat, the chat limit: the table's own checks) and sends its members'
requests to the driver, which checks everything again. ``ClusterSide`` (``remote.py``)
keeps the replicas; nothing here does I/O.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Iterator
from typing import Any, Protocol, TypedDict, Unpack

from engine import View

from .errors import N_, RoomError, Said
from .events import TableChange, What
from .frames import (
    Damaged,
    SharedRow,
    checked_frame,
    is_int,
    merged,
    shown_board,
    unpack,
    whole_history,
)
from .members import Member
from .narration import Event
from .rows import LobbyRow
from .seats import Seat
from .table import CHAT_KEEP, Table

log = logging.getLogger("lamma.cluster")


class RequestArgs(TypedDict, total=False):
    """What a member's op asks of the driver (``Replica``), by op; the driver's table
    checks it all again, as a member's own."""
    seat: int | None        # sit, take, detach
    action: object          # act: as the member gave it
    text: str               # say
    seats: list[object] | None      # fill
    level: object           # fill
    keep: bool              # detach: the seat kept for its holder


class Forward(Protocol):
    """What a replica needs of its process's side of the cluster (``ClusterSide``)."""

    def request(self, table: Table, member: Member | None, op: str,
                args: RequestArgs) -> None: ...

    def fetch(self, replica: Replica) -> None: ...

    def reattach(self, replica: Replica) -> None: ...


class _Elsewhere:
    """A seat's holder connected to another process (a frame's "connected")."""

    ident = ""
    name = ""
    table = None
    seat = None


ELSEWHERE: Any = _Elsewhere()


class Replica:
    """A table driven by another process, as this one shows it: the part of its
    ``Table`` that stands where the driving parts stand at its driver."""

    def __init__(self, side: Forward, table: Table):
        self.side = side
        self.table = table
        table.replica = self
        self.local: set[Member] = set()     # this process's members at it
        # Seats asked of the driver and not given yet: the member watches meanwhile
        # (``member.seat`` is only ever a seat the driver gave; see ``view_of``).
        self.pending: dict[Member, int] = {}
        self.driver = ""
        self.epoch = -1
        self.row: LobbyRow | None = None   # none read yet: not listed
        self.holders: list[str | None] = [None] * 4
        self.between = False
        self.offset = 0                # added to a later driver's versions
        self.takeover_idents: dict[int, str] = {}
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
        # The driver's frame as last read (packed, unchecked: what events apply to) and
        # the number of the last of its events applied to it (issue 41).
        self.frame: dict[str, Any] | None = None
        self.seq = 0
        # Someone is about to watch it, and waits for its first frame (``shown_first``).
        self.first: asyncio.Future[None] | None = None

    @property
    def id(self) -> str:
        return self.table.id

    @property
    def closed(self) -> bool:
        return self.table.closed

    # ---------------------------------------------------------------- reading
    def apply_row(self, info: SharedRow) -> bool:
        """The lobby's row and seat holders (every table of the room is listed), as
        ``checked_row`` gives them. True if it changed."""
        row, holders = info["row"], info["holders"]
        # Who made it (the cap of open tables per person counts every process's).
        self.table.creator = info.get("creator", self.table.creator)
        if row == self.row and holders == self.holders and info["code"] == self.table.code:
            return False
        self.row, self.holders = row, holders
        self.table.game, self.table.length = row["game"], row["length"]
        self.table.timer, self.table.private = row["timer"], bool(row["private"])
        self.table.practice = bool(row.get("practice"))
        self.table.code = info["code"]
        self.table.event = shown_board(self.table.game, row)
        if self.table.shown_status == "waiting" or not self.local:
            self.table.status = self.table.shown_status = row["status"]
        if not self.local:
            # Seats as the lobby shows them (held_seat and may_see read them).
            seats = []
            for i, pub in enumerate(row["seats"]):
                seat = Seat(pub["kind"], pub["name"], holders[i], bool(pub["guest"]))
                seat.member = ELSEWHERE if pub.get("connected") and pub["kind"] == "human" else None
                seats.append(seat)
            self.table.seats = seats
        return True

    def apply_events(self, events: list[Any]) -> bool:
        """The driver's events, applied in order from the one after the last applied
        (those applied already are passed over); False at a gap in their numbers (the
        rest waits for the stored ones). Damaged, and that one not applied, if one is
        not whole."""
        for ev in events:
            seq = ev.get("seq") if isinstance(ev, dict) else None
            if self.frame is None or not is_int(seq):
                return False
            if seq <= self.seq:
                continue
            if seq != self.seq + 1 or (is_int(ev.get("epoch")) and ev["epoch"] < self.epoch):
                return False        # a gap, or a driver since replaced: the store's say
            self.apply_frame(merged(self.frame, ev, CHAT_KEEP), told=ev.get("kind"))
        return True

    def apply_frame(self, raw: dict[str, Any], told: str | None = None) -> None:
        """The driver's newest frame (or one made by an event of kind ``told``): shown
        to this process's members (Damaged, and nothing changed, if it is not whole)."""
        try:
            f = checked_frame(self.table.id, unpack(raw))
        except Damaged:
            raise
        except Exception as e:      # unpack: a "$d" that is no pairs, a "$said" unsaid
            raise Damaged(f"its frame cannot be read ({e!r})") from None
        seq = raw.get("seq", 0)
        self.frame, self.seq = raw, seq if is_int(seq) and seq >= 0 else 0
        old_version, old_said = self.table.version, self.table.chat_said
        new_driver = (f["driver"], f["epoch"]) != (self.driver, self.epoch)
        first = self.driver == ""
        self.driver, self.epoch = f["driver"], f["epoch"]
        self.table.game, self.table.length, self.table.timer = f["game"], f["length"], f["timer"]
        self.table.private, self.table.code = f["private"], f["code"]
        self.table.status = self.table.shown_status = f["status"]
        # Never backwards (a new driver counts from where the log left it): screens
        # compare versions.
        if new_driver and not first:
            self.offset = max(self.offset, self.table.version + 1 - f["version"])
        self.table.version = f["version"] + self.offset
        self.frame_version = f["version"]
        self.table.views = whole_history(f["views"])
        self.table.events = deque((Event(s, a, t, r) for s, a, t, r in f["events"]), maxlen=20)
        self.table.chat = deque(((c[0], c[1]) for c in f["chat"]),
                                maxlen=self.table.chat.maxlen)
        # Lines said in all (an older driver's frame has none: its kept lines count).
        said = f.get("said")
        self.table.chat_said = said if is_int(said) and said >= len(self.table.chat) else len(self.table.chat)
        seats = []
        for info in f["seats"]:
            seat = Seat.from_settings(info)
            seat.member = ELSEWHERE if info.get("connected") and seat.kind == "human" else None
            seats.append(seat)
        self.table.seats = seats
        for m in self.local:
            if m.seat is not None and 0 <= m.seat < 4 and self.table.seats[m.seat].held_by(m):
                self.table.seats[m.seat].member = m
        loop = asyncio.get_running_loop()
        self.table.deadline = (None if f["deadline_in"] is None
                         else loop.time() + f["deadline_in"])
        self.table.deadline_seat = f["deadline_seat"]
        self.table.points = f["points"]
        self.between = f["between"]
        self.takeover_idents = {int(k): v for k, v in f["takeovers"].items()}
        self.row = f["row"]
        self.table.practice = bool(self.row.get("practice"))
        self.stored_id = f.get("match_id")
        self.table.event = shown_board(self.table.game, self.row)
        self.table.creator = f.get("creator")
        if new_driver and not first:
            self.side.reattach(self)    # another process drives it now: our members again
        self._moves_lost(new_driver and not first)
        shown_now = self.show_awaiting()
        if told in ("state", "seats", "chat"):
            # What the driver's members were told of this event, and no more.
            if shown_now and told != "state":
                self.table.notify("state")
            self.table.notify("chat" if told == "chat" else
                              "state" if self.table.version != old_version else
                              "seats" if told == "seats" else "state")
            return
        what: What
        if self.table.version != old_version or shown_now:
            what = "state"
        elif self.table.chat_said != old_said:
            what = "chat"
        else:
            what = "seats"
        self.table.notify(what)

    def _moves_lost(self, taken_over: bool) -> None:
        """Moves sent before this frame: seen (the frame moved on from where it was when
        sent) they are forgotten; after a takeover, one whose seat is still to act was
        taken by the dead driver and never stored: its sender is told to play it again."""
        pub = self.table.views.get(None) if self.table.views is not None else None
        to_act = pub.get("to_act") if pub is not None else None
        for member, (driver, epoch, version) in list(self.moves_sent.items()):
            if member.closed or member.table is not self.table or member.seat is None:
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

    def summary(self) -> LobbyRow:
        # Only a driven table's row is asked for (a replica's table is listed from
        # ``row``, once there is one).
        assert self.row is not None, f"table {self.id}: no row read yet"
        return self.row

    def members(self) -> Iterator[Member]:
        yield from list(self.local)

    def between_rounds(self) -> bool:
        return self.table.status == "waiting" or self.between

    def round_info(self) -> tuple[int | None, int | None]:
        pub = self.table.views.get(None) if self.table.views is not None else None
        if pub is None:
            return None, None
        return pub.get("round"), pub.get("rounds")

    def view_of(self, member: Member) -> View | None:
        """A seat's view only to the member its driver gave the seat (``seated``) and
        its last frame says holds it; nothing while the seat is asked for. This
        process's listing may be a second old: a seat free in it may be someone's."""
        if member.table is not self.table or member in self.pending or member in self.awaiting:
            return None
        seat = member.seat
        if seat is not None and not (0 <= seat < len(self.table.seats)
                                     and self.table.seats[seat].held_by(member)):
            return None
        return self.table.view(seat)

    def request_of(self, member: Member) -> int | None:
        for seat, ident in self.takeover_idents.items():
            if ident == member.ident and member.table is self.table and member.seat is None:
                return seat
        return None

    # ---------------------------------------------------------------- doing
    def _send(self, member: Member, op: str, **args: Unpack[RequestArgs]) -> None:
        self.side.request(self.table, member, op, args)

    def _join_locally(self, member: Member) -> None:
        """``member`` at this table here, watching until the driver gives a seat."""
        self.table.registry.detach(member, keep_seat=False, unless=self.table)
        if not self.local and self.driver == "":
            self.side.fetch(self)          # the driver's frame now, if it has one
        self.local.add(member)
        self.pending.pop(member, None)
        self.awaiting.pop(member, None)
        member.table, member.seat = self.table, None

    def sit(self, member: Member, seat: int | None = None) -> int:
        """Asks the driver for a seat: ``member.seat`` is set (and the seat's view
        shown) once the driver gives it (``seated``); the seat asked for is returned."""
        named = seat is not None
        chosen, held = self.table.seat_for(member, seat)      # the refusals a frame can tell
        if member.table is self.table and member.seat == chosen:
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
            if m.table is not self.table or m.seat is None:
                del self.awaiting[m]
            elif anyway or self.shows(at):
                del self.awaiting[m]
                if self.table.seats[m.seat].held_by(m):
                    self.table.seats[m.seat].member = m
                m.seat_granted(self.table, m.seat)
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
        member.table, member.seat = self.table, seat
        if at is not None and not self.shows(at):
            # The driver says "seated" apart from its frames (a word is no frame, and
            # it may come first), and our frame may be older than one another process
            # showed (a dead driver's last, whose notice never came): the seat is shown
            # with a frame as new as the driver's table when it seated them
            # (apply_frame), never an older one.
            if not self.awaiting:
                self.awaiting_since = asyncio.get_running_loop().time()
            self.awaiting[member] = at
            self.side.fetch(self)
            return
        if self.table.seats[seat].held_by(member):
            self.table.seats[seat].member = member
        member.seat_granted(self.table, seat)
        member.table_changed(TableChange(self.table, "state"))
        self.side.fetch(self)

    def watch(self, member: Member) -> None:
        if member.table is self.table and member.seat is not None:
            raise RoomError("You are seated at this table.")
        self.table.registry.detach(member, keep_seat=False)
        self._join_locally(member)
        self._send(member, "watch")

    def act(self, member: Member, action: object) -> None:
        if member.table is not self.table or member.seat is None:
            raise RoomError("You are not seated at a table.")
        if self.table.registry.store.down:
            raise RoomError("The room cannot store moves just now (its database does not "
                            "answer); nothing was played. Try again in a moment.")
        if self.table.status != "playing":
            if self.table.status == "waiting":
                raise RoomError("The match has not started.")
            raise RoomError("The match is over.")
        view = self.table.view(member.seat)
        if view is not None and view.get("to_act") != member.seat:
            raise RoomError("It is not your turn.")
        if not isinstance(action, dict):
            raise RoomError("That is not an action: an action has a type (pass, bid, play …).")
        self.moves_sent[member] = (self.driver, self.epoch, self.frame_version)
        self._send(member, "act", action=action)

    def say(self, member: Member, raw: object) -> None:
        self._send(member, "say", text=self.table.chat_line(member, raw))

    def take_seat(self, member: Member, seat: object) -> bool:
        taken = self.table.check_take(member, seat)   # the checks a frame can answer
        if member.table is not self.table:
            self.table.registry.detach(member, keep_seat=False)
            self._join_locally(member)
        self._send(member, "take", seat=taken)
        # Between rounds the driver gives it at once (as the frame says), else at the
        # round's end; either way its "granted" comes back as seat_granted.
        return self.between_rounds()

    def fill_with_bots(self, member: Member, seats: Any = None,
                       level: object = "strong") -> None:
        self.table.verify_fill(member)        # as the frame tells; the driver checks again
        self._send(member, "fill", seats=None if seats is None else list(seats), level=level)

    def detach(self, member: Member, keep_seat: bool) -> None:
        if member not in self.local:
            return
        self.local.discard(member)
        asked = self.pending.pop(member, None)
        self.awaiting.pop(member, None)
        seat = member.seat if member.seat is not None else asked
        if seat is not None and self.table.seats[seat].member is member:
            self.table.seats[seat].member = None
        member.table, member.seat = None, None
        self._send(member, "detach", keep=keep_seat, seat=seat)
        if not self.local:
            self.unseen()

    def unseen(self) -> None:
        """Nobody here shows it now: its events stop being applied, so the frame kept
        would be stale when someone comes back (they see nothing until a fresh one)."""
        self.table.views = None
        self.driver, self.epoch, self.frame_version = "", -1, -1
        self.frame, self.seq = None, 0

    def close(self) -> None:
        self.table.closed = True
        self.table.deadline = self.table.deadline_seat = None
        for member in list(self.local):
            member.table, member.seat = None, None
            try:
                member.table_changed(TableChange(self.table, "closed"))
            except Exception:
                log.exception("notifying %s failed", member.name)
        self.local.clear()
        self.pending.clear()
        self.awaiting.clear()
