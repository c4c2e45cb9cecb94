"""A table: four seats, one engine match, its spectators, timers and chat.

Everything here runs on the server's single asyncio loop. ``Table`` is what every
member, screen and adapter holds: the table's facts, its seats, who may do what at it
(docs/roles.md), its *shown* state — what members see (``view``, ``version``,
``events``, ``points``, chat, the lobby's row, the turn timer), published in order once
every write before it is committed — and its members' actions. At the process that
drives it, the actions go to its parts:

- ``Seating`` (``seating.py``): sitting down, watching, leaving, taking a computer
  player's seat;
- ``Runner`` (``running.py``): the match — actions checked by the engine
  (``Match.canonical``, never re-derived here), stored, then shown;
- ``Turns`` (``turns.py``): the turn timer and the computer players' moves.

The engine's state runs ahead of the shown one meanwhile, so the next action, timers
and computer players work from it. Members never touch each other (``members.py``).
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, Protocol

from engine import Action, Match, View, leaving_ends_match
from engine.catalogue import terms

from .boards import NO_CHAT, NO_WATCHING, NOT_YOURS, EventBoard, entrant_of
from .catalogue import BOT_NAMES, DEFAULT_LEVEL, display_name, parse_seat, ranked, title
from .codes import code_label, code_matches, new_code
from .errors import N_, RoomError, Said
from .moderation import Mutes, ignores
from .narration import Event
from .people import Person
from .rows import LobbyRow, SeatRow
from .store import (
    EventStore,
    FinishedBoard,
    MatchRef,
    Paid,
    Points,
    Records,
    SeatKind,
    SeatSettings,
    TableSettings,
    held_before,
)
from .text import clean_chat, clean_name

log = logging.getLogger("lamma.tables")

CHAT_KEEP = 50


# ------------------------------------------------------------------ who is there
class Member(Person, Protocol):
    """A person as a table sees them: at a table (sitting or watching) or not, and
    told what changes there."""

    table: Table | None         # the table it sits at or watches
    seat: int | None            # None while watching

    # Called by the room; must never raise and must not block.
    def table_changed(self, change: TableChange) -> None:
        """The member's table changed (``change.what``: "state", the view changed;
        "seats", "chat", "closed"); the same ``change`` goes to every member."""

    def seat_granted(self, table: Table, seat: int) -> None:
        """A computer player's seat became ours (called before the view is pushed)."""

    def request_dropped(self, table: Table, seat: int, reason: str) -> None:
        """A waiting request for a computer player's seat ended without the seat."""


# A seat at a table: empty, a person's (connected or away), or a computer player's.
EMPTY = N_("(empty)")        # an empty seat's label (said in each player's language)

@dataclass
class Seat:
    kind: SeatKind = "empty"
    name: str | None = None
    ident: str | None = None
    guest: bool = False
    member: Member | None = None   # the connected session, None while away
    replaced: str | None = None    # name of the human a bot replaced
    level: str = DEFAULT_LEVEL     # a computer player's level (issue 5: chosen per seat)
    # A guest who may come back to it all the same: a web page's, which holds a token
    # for its guest identity (server/web); held as a key's seat is, for
    # ``guest_return`` seconds once the page has dropped (``Seating.guest_gone``).
    returns: bool = False
    # Who held it earlier in the match: (the round its next holder began, their label).
    before: tuple[tuple[int, str], ...] = ()

    @classmethod
    def person(cls, member: Member) -> Seat:
        return cls("human", member.name, member.ident, member.guest,
                   returns=bool(getattr(member, "returns", False)))

    @classmethod
    def computer(cls, seat: int, level: str = DEFAULT_LEVEL,
                 replaced: str | None = None) -> Seat:
        return cls("bot", BOT_NAMES[seat], level=level, replaced=replaced)

    def held_by(self, who: Member | str) -> bool:
        """Is this a person's seat held by ``who`` (a member, or an identity)?"""
        ident = who if isinstance(who, str) else who.ident
        return self.kind == "human" and self.ident == ident

    def held_for_return(self) -> bool:
        """A person's seat that its holder may come back to: a key's always (a new
        connection under the same key lands here); a guest's only while connected (a
        guest is its connection: gone, nobody can ever return to the seat — unless it
        ``returns``)."""
        return self.kind == "human" and (not self.guest or self.returns
                                         or self.member is not None)

    @property
    def label(self) -> str:
        """The holder's name as drawn: cleaned (``display_name``), a guest's marked."""
        if self.kind == "empty":
            return Said(EMPTY)
        return display_name(self.name or "?", self.guest)

    def public(self) -> SeatRow:
        """What anyone may see of the seat; the name cleaned (a restored match's seats
        come from the database, which may hold what no client could send)."""
        name = None if self.name is None else clean_name(self.name)
        return {"kind": self.kind, "name": name, "guest": self.guest,
                "connected": self.kind != "human" or self.member is not None}

    def settings(self) -> SeatSettings:
        """What a restart needs to seat the same holder again."""
        out: SeatSettings = {"kind": self.kind, "name": self.name, "ident": self.ident,
                             "guest": self.guest, "level": self.level, "replaced": self.replaced}
        if self.before:
            out["before"] = [[r, label] for r, label in self.before]
        return out

    @classmethod
    def from_settings(cls, info: SeatSettings) -> Seat:
        kind = info.get("kind", "empty")
        if kind not in ("empty", "human", "bot"):
            raise ValueError(f"unknown seat kind {kind!r}")
        return cls(kind, info.get("name"), info.get("ident"), bool(info.get("guest")),
                   replaced=info.get("replaced"), level=info.get("level", DEFAULT_LEVEL),
                   before=held_before(info))


# ------------------------------------------------------------------ what members are told
# What a table tells its members when it changes: one ``TableChange`` per change,
# the same object for every member, carrying what a member draws or sends from — its
# seat's view, the table's facts, what changed — worked out once per change, not
# pulled back by each screen.
#
# What is the same for everyone at the table (``TableChange.facts``: the seats as
# shown, the narration, the code, the points paid) is worked out the first time a
# member asks and then shared; what is one member's own (their view, their chat
# without those they ignore, their wait for a seat, whether they may fill the table)
# is asked of the change with that member.

What = Literal["state", "seats", "chat", "closed"]


class SeatShown(NamedTuple):
    """A seat as every screen shows it (named tuples: made for every change and hashed
    in drawing keys, which a tuple does in C)."""
    label: str                  # the seat's name as shown ("(empty)", "ali", "Bot 2")
    kind: str                   # "empty" | "human" | "bot"
    away: bool = False          # a person's seat whose connection is gone
    before: tuple[tuple[int, str], ...] = ()    # earlier holders (``Seat.before``)


class TableShown(NamedTuple):
    """The table as everyone at it is shown it after a change."""
    id: str
    game: str
    title: str                  # the game's name as people read it
    length: Any
    status: str                 # waiting | playing | over (what is shown)
    seats: tuple[SeatShown, ...]
    code_label: str | None      # a private table's code, as people type it
    deadline_seat: int | None
    # (round, text), moves other than plays: what happened, said in each language
    events: tuple[tuple[int | None, str], ...]
    points: Mapping[int, Paid] | None    # paid at the match end
    host: str | None            # before the start: who may fill it (None: nobody seated)
    board: tuple[int, int, int] | None = None   # an event's board: (event, board, boards)


class TableChange:
    """``table`` changed (``what``); ``version``: the shown version it is at."""

    __slots__ = ("_shown", "table", "version", "what")

    def __init__(self, table: Table, what: What):
        self.table = table
        self.what: What = what
        self.version = table.version
        self._shown: TableShown | None = None

    @property
    def facts(self) -> TableShown:
        """The table as shown to everyone, worked out once for all its members."""
        shown = self._shown
        if shown is None:
            t = self.table
            host = None
            if t.shown_status == "waiting":
                seat = t.host()
                host = t.seats[seat].label if seat is not None else None
            shown = self._shown = TableShown(
                t.id, t.game, title(t.game), t.length, t.shown_status,
                tuple(SeatShown(s.label, s.kind, s.kind == "human" and s.member is None,
                                s.before) for s in t.seats),
                code_label(t.code) if t.private and t.code else None,
                t.deadline_seat, t.narration(), t.points, host,
                (t.event.event, t.event.board, t.event.boards) if t.event is not None
                else None)
        return shown

    # ---- one member's own ------------------------------------------------------------
    def view_for(self, member: Member) -> View | None:
        """``member``'s seat's view (a watcher's while they watch), or None."""
        return self.table.view_of(member)

    def chat_for(self, member: Member, n: int = 2) -> tuple[tuple[str, str], ...]:
        """The last ``n`` chat lines ``member`` does not ignore (read from the end: a
        table keeps 50)."""
        out: list[tuple[str, str]] = []
        for line in reversed(self.table.chat):
            if not ignores(member, line[0]):
                out.append(line)
                if len(out) == n:
                    break
        return tuple(reversed(out))

    def request_for(self, member: Member) -> str | None:
        """``member``'s wait for a computer player's seat, in words (a Said)."""
        seat = self.table.request_of(member)
        return self.table.request_text(seat) if seat is not None else None

    def may_fill(self, member: Member) -> bool:
        """May ``member`` fill the empty seats with computer players now?"""
        return self.table.status == "waiting" and self.table.may(member, "fill")


# ------------------------------------------------------- what a table asks of others
class TableLog(Protocol):
    """What a table tells its store. Writes are performed in the order they are
    submitted (maybe on another thread); ``then`` runs a callback on the loop once
    everything submitted before it is committed: a table shows a change only then."""

    records: Records | None         # None: nothing is kept (no profiles, no replays)
    events: EventStore              # the duplicate events (in memory for NullStore)
    # True while the database does not answer: the tables accept no move then (one
    # could not be stored) and leave their timers and computer players waiting.
    down: bool

    def when_up(self, fn: Callable[[], None]) -> None:
        """``fn()`` on the loop once the database answers again (at once if it does)."""

    def match_started(self, table: Table) -> None:
        """Sets ``table.match_ref`` (None: not stored); its id comes with the commit."""

    def action(self, table: Table, seat: int, action: Mapping[str, Any]) -> None: ...

    def seats_changed(self, table: Table) -> None: ...

    def match_over(self, table: Table, done: Callable[[Points | None], None]) -> None:
        """``done`` gets the level points and badges paid (None: not recorded, or
        recorded before), on the loop, once committed."""

    def board_over(self, table: Table, board: FinishedBoard) -> None:
        """An event's board is over (``Table.event``): its match and the entrant's
        result recorded together, once (instead of ``match_over``: a board pays no
        level points or statistics)."""

    def table_removed(self, table: Table) -> None: ...

    def then(self, fn: Callable[[], None]) -> None:
        """``fn()`` on the loop once every write submitted so far is committed (at once
        when none is pending), in the order ``then`` was called."""


class Moderator(Protocol):
    """The room's moderation as a table asks it (``server.moderation.Moderation``)."""

    def command(self, member: Member, line: str) -> str:
        """Run ``/cmd args`` typed by ``member``; the reply to show them. RoomError
        (nothing changed) when refused."""

    def is_operator(self, member: Member) -> bool:
        """Is ``member`` one of the room's operators (their rights at every table:
        docs/roles.md)?"""


class Side(Protocol):
    """What a table asks of the room's side across processes (``remote.ClusterSide``)."""

    def frame_written(self, table: Table, what: What = "state") -> bool:
        """True if ``table``'s members are told once its frame is written elsewhere."""

    def shown_tables(self) -> list[Table]:
        """The other processes' tables, as this one shows them."""


class Room(Protocol):
    """What a table and its parts ask of the room (``registry.Registry``)."""

    store: TableLog
    moderator: Moderator
    mutes: Mutes
    draining: bool
    bot_pause: float
    trick_pause: float
    absent_timeout: float
    guest_return: float

    @property
    def records(self) -> Records | None: ...
    @property
    def side(self) -> Side | None: ...

    def detach(self, member: Member, keep_seat: bool, unless: Table | None = None) -> None: ...
    def gc_table(self, table: Table) -> None: ...
    def lobby_changed(self) -> None: ...


# ------------------------------------------------------------------ the table's parts
class Part:
    """A part the table holds (its runner, seating, turns, replica). It reaches back to
    the table by a weak reference: the table holds its parts, and an object that points
    back would make a cycle that outlives the table (the collector never looks at
    what survived, ``server/runtime.py``): a table left behind goes by reference
    counting, parts and all."""

    def __init__(self, table: Table):
        self._table = weakref.ref(table)

    @property
    def table(self) -> Table:
        t = self._table()
        if t is None:
            raise ReferenceError("the table is gone")
        return t

    def alive(self) -> Table | None:
        """The table, unless it is gone or closed (what a callback that comes late asks)."""
        t = self._table()
        return None if t is None or t.closed else t


class Running(Protocol):
    """The match runner (``running.Runner``)."""

    news: list[Event]
    calls: list[Callable[[], None]]

    def resume(self, match: Match, match_id: int, settings: TableSettings,
               stored_seats: list[str | None], counts_for_points: bool) -> None: ...
    def start_when_ready(self) -> None: ...
    def between_rounds(self) -> bool: ...
    def holding(self) -> bool: ...
    def check_and_apply(self, seat: int, action: object, by: str) -> None: ...
    def check(self, seat: int, action: object) -> Action: ...
    def apply(self, seat: int, action: Action, by: str) -> None: ...
    def left(self, seat: int) -> None: ...
    def changed(self, what: What) -> None: ...
    def publish(self, what: What) -> None: ...
    def snapshot(self) -> dict[int | None, View]: ...


class Sitting(Protocol):
    """Who sits, watches and leaves (``seating.Seating``)."""

    def sit(self, member: Member, seat: int | None = None) -> int: ...
    def take_seat(self, member: Member, seat: object) -> bool: ...
    def round_ended(self) -> None: ...
    def drop_all_requests(self, reason: str) -> None: ...
    def watch(self, member: Member) -> None: ...
    def fill_with_bots(self, member: Member, seats: Iterable[object] | None = None,
                       level: object = "strong") -> None: ...
    def fill(self, wanted: list[int], level: str) -> None: ...
    def detach(self, member: Member, keep_seat: bool) -> None: ...


class Turning(Protocol):
    """The turn timer and the computer players' moves (``turns.Turns``)."""

    trick_pause: bool
    handle: asyncio.TimerHandle | None

    def bump(self) -> None: ...
    def cancel(self) -> None: ...
    def hold(self) -> None: ...
    def timer_changed(self) -> None: ...
    def schedule(self) -> None: ...


class Drive(Protocol):
    """What stands for the driving parts at a process that shows a table another
    process drives (``replica.Replica``): the members' actions go to the driver, and
    what the table answers comes from the driver's last frame."""

    stored_id: int | None       # the stored match its last frame shows

    def members(self) -> Iterator[Member]: ...
    def summary(self) -> LobbyRow: ...
    def round_info(self) -> tuple[int | None, int | None]: ...
    def between_rounds(self) -> bool: ...
    def view_of(self, member: Member) -> View | None: ...
    def request_of(self, member: Member) -> int | None: ...
    def sit(self, member: Member, seat: int | None = None) -> int: ...
    def watch(self, member: Member) -> None: ...
    def take_seat(self, member: Member, seat: object) -> bool: ...
    def fill_with_bots(self, member: Member, seats: Any = None,
                       level: object = "strong") -> None: ...
    def detach(self, member: Member, keep_seat: bool) -> None: ...
    def act(self, member: Member, action: object) -> None: ...
    def say(self, member: Member, raw: object) -> None: ...
    def close(self) -> None: ...


class Table:
    # The parts that drive it, given by whoever makes it (``running.new_table``).
    runner: Running
    seating: Sitting
    turns: Turning

    def __init__(self, registry: Room, tid: str, game: str, length: Any,
                 timer: int = 0, private: bool = False):
        self.registry = registry
        self.id = tid
        self.game = game
        self.length = length
        self.timer = timer
        self.private = private
        self.code = new_code() if private else None
        self.seats = [Seat() for _ in range(4)]
        self.watchers: set[Member] = set()
        self.match: Match | None = None      # the engine's state: ahead of the shown one
        self.match_ref: MatchRef | None = None   # the store's record of the match
        # Its turn at being driven by this process (a room across processes: the epoch
        # of its row when this copy was made or claimed here): its match's writes are
        # made only while the row is still at that turn (``MatchStore``). None: a
        # room of one process.
        self.epoch: int | None = None
        self.points: Points | None = None    # level points and badges the store paid
        self.status = "waiting"     # waiting | playing | over (the engine's side)
        # Shown: what members see, published once stored (``Runner.publish``).
        self.version = 0
        self.shown_status = "waiting"
        self.accepted_at: float | None = None   # monotonic time the shown action was accepted
        # The views last shown, per seat (None: a watcher's); None before a match.
        self.views: dict[int | None, View] | None = None
        self.chat: deque[tuple[str, str]] = deque(maxlen=CHAT_KEEP)
        # Lines ever said here (the kept ones are the last of them): a member that
        # hears of several at once (a frame from another process) says each once.
        self.chat_said = 0
        self.events: deque[Event] = deque(maxlen=20)
        # narration(): (the deque, its length, first and last event, what it said)
        self._narration: tuple[Any, ...] | None = None
        self.deadline: float | None = None   # loop time the shown turn timer runs out
        self.deadline_seat: int | None = None
        self.counts_for_points = True
        # A practice table: hints on one's turn; no level points, no statistics.
        self.practice = False
        self.created = time.time()
        self.creator: str | None = None      # the identity that opened it (caps per person)
        self.creator_address = ""            # ... and its address (the caps per address)
        self.seed: int | None = None        # fixed by tests / tournaments; None: random
        self.deals: list[Any] | None = None
        # Computer players' seats promised to people at the next round boundary.
        self.takeovers: dict[int, Member] = {}
        self.closed = False
        # (wall-clock deadline, seat, actions played) of the turn timer a dead driver had
        # running (remote.py): kept for that turn only
        self.carried_deadline: tuple[float, int, int] | None = None
        # A duplicate event's board (boards.py): its entrant alone against computer
        # players; None for every other table.
        self.event: EventBoard | None = None
        # Another process drives it: what stands for the parts above here (held by the
        # cluster's side; a weak reference here, so that the two make no cycle).
        self._replica: weakref.ref[Drive] | None = None

    @property
    def replica(self) -> Drive | None:
        """What stands for the driving parts when another process drives the table."""
        return self._replica() if self._replica is not None else None

    @replica.setter
    def replica(self, drive: Drive | None) -> None:
        self._replica = weakref.ref(drive) if drive is not None else None

    def code_matches(self, raw: object) -> bool:
        """Constant-time: the time taken says nothing about how close a guess was."""
        return code_matches(self.code, raw)

    def resume(self, match: Match, match_id: int, settings: TableSettings,
               stored_seats: list[str | None], counts_for_points: bool) -> None:
        """A stored unfinished match, playing again after a restart (``persistence``)."""
        self.runner.resume(match, match_id, settings, stored_seats, counts_for_points)

    @property
    def match_id(self) -> int | None:
        """The store's id of the match, once its row is committed."""
        return self.match_ref.id if self.match_ref is not None else None

    # ------------------------------------------------------------------ info
    @property
    def title(self) -> str:
        return title(self.game)

    def round_info(self) -> tuple[int | None, int | None]:
        if self.replica is not None:
            return self.replica.round_info()
        if self.match is None:
            return None, None
        v = self.match.view(None)
        return v.get("round"), v.get("rounds")

    def summary(self) -> LobbyRow:
        """The lobby's row: the shown state."""
        if self.replica is not None:
            return self.replica.summary()
        pub = self.views[None] if self.views is not None else None
        rnd, rounds = (pub.get("round"), pub.get("rounds")) if pub is not None else (None, None)
        row: LobbyRow = {
            "id": self.id,
            "game": self.game,
            "length": self.length,
            "timer": self.timer,
            "private": self.private,
            "status": self.shown_status,
            "round": rnd,
            "rounds": rounds,
            "seats": [s.public() for s in self.seats],
            "spectators": len(self.watchers),
            "ranked": self.ranked(),
        }
        if self.event is not None:
            row["event"] = {"id": self.event.event, "board": self.event.board,
                            "boards": self.event.boards}
        row["practice"] = self.practice         # after "event": the keys' order as sent
        return row

    def ranked(self) -> bool:
        """Does this match pay level points and count badge wins (engine.records:
        ranked play is the 18-round Estimation match and Tarneeb 41), as far as can be
        told now: not once a computer player sits or sat at it (E-38's Decision)."""
        return (ranked(self.game, self.length) and self.counts_for_points
                and self.event is None and not self.practice
                and not any(s.kind == "bot" for s in self.seats))

    def leaving_ends_match(self) -> bool:
        """Would a seated player who leaves now end the match for everyone (E-37), or
        does a computer player take their seat (Tarneeb 41)? Asked before a leave. An
        event's board neither: it waits for its entrant (``boards.py``)."""
        return (self.status == "playing" and self.event is None
                and leaving_ends_match(self.game))

    def members(self) -> Iterator[Member]:
        if self.replica is not None:
            yield from self.replica.members()
            return
        for s in self.seats:
            if s.member is not None:
                yield s.member
        yield from list(self.watchers)

    def seat_of(self, member: Member) -> int | None:
        for i, s in enumerate(self.seats):
            if s.member is member:
                return i
        return None

    def view(self, seat: int | None) -> View | None:
        """The shown view of ``seat`` (None: a watcher's); one object per version,
        shared by every member who asks: read it, never change it."""
        if self.views is None:
            return None
        return self.views.get(seat)

    def view_of(self, member: Member) -> View | None:
        """The shown view ``member`` is shown here: their seat's, or a watcher's. What
        a screen or a program gets comes from here, never from ``view(member.seat)``:
        a table shown for another process's driver gives a seat's view only to whom
        the driver gave the seat (``Replica.view_of``)."""
        if self.replica is not None:
            return self.replica.view_of(member)
        if member.table is not self:
            return None
        return self.view(member.seat)

    def narration(self) -> tuple[tuple[int | None, str], ...]:
        """(round, text) of the shown events but plays (the cards are on the table
        to see), worked out once per change of ``events``: every screen at the
        table reads it on every frame.  A change is a new deque or events added
        (new objects, kept here, so their ids are not reused)."""
        events = self.events
        memo = self._narration
        if (memo is not None and memo[0] is events and memo[1] == len(events)
                and (not events or (events[0] is memo[2] and events[-1] is memo[3]))):
            shown: tuple[tuple[int | None, str], ...] = memo[4]
            return shown
        said = tuple((e.round, e.text) for e in events
                     if not (e.action and e.action.get("type") == "play"))
        self._narration = (events, len(events), events[0] if events else None,
                           events[-1] if events else None, said)
        return said

    def seconds_left(self) -> float | None:
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - asyncio.get_running_loop().time())

    # ------------------------------------------------------- who may do what
    # docs/roles.md says this section in words. ``verify(member, action)`` says why not
    # (RoomError), ``may`` answers a screen deciding which keys to offer; the method that
    # does the action (``sit``, ``fill_with_bots`` …) verifies first, whoever calls it.
    # Closing a table is an operator's command (``server.moderation``), not an action here.
    ACTIONS = ("sit", "watch", "take", "fill", "leave")

    def host(self) -> int | None:
        """The seat of the person who decides for a table waiting for people (fills its
        empty seats with computer players): its creator while they sit at it, else the
        person in the lowest seat; None while nobody sits at it."""
        people = [i for i, s in enumerate(self.seats) if s.kind == "human"]
        creator = self.creator
        if creator is not None:
            for i in people:
                if self.seats[i].held_by(creator):
                    return i
        return people[0] if people else None

    def is_operator(self, member: Member) -> bool:
        return self.registry.moderator.is_operator(member)

    def verify(self, member: Member, action: str, seat: object = None) -> None:
        """RoomError saying why ``member`` may not do ``action`` here now (one of
        ``ACTIONS``; ``seat``: the seat asked for by "sit" and "take")."""
        if action == "sit":
            self.seat_for(member, seat)
        elif action == "watch":
            if member.table is self and member.seat is not None:
                raise RoomError("You are seated at this table.")
            if self.event is not None:
                raise RoomError(NO_WATCHING)
        elif action == "take":
            self.check_take(member, seat)
        elif action == "fill":
            self.verify_fill(member)
        elif action == "leave":
            if member.table is not self:
                raise RoomError("You are not at this table.")
        else:
            raise ValueError(f"no action {action!r} at a table")

    def may(self, member: Member, action: str, seat: object = None) -> bool:
        """Would ``verify`` let ``member`` do ``action`` now?"""
        try:
            self.verify(member, action, seat)
        except RoomError:
            return False
        return True

    def verify_fill(self, member: Member) -> None:
        """Only the host (``host``) or an operator fills a table waiting for people
        with computer players: filling starts the match, and a table that waits for
        people waits until its host says otherwise."""
        if self.status != "waiting":
            raise RoomError("Computer players can fill seats only before the match starts.")
        host = self.host()
        if host is not None and self.seats[host].held_by(member):
            return
        if self.is_operator(member):
            return
        if host is None:
            raise RoomError("Only a player seated at table {table} may add computer "
                            "players.", table=self.id)
        raise RoomError("Only {name}, the host, may add computer players at table {table}.",
                        name=self.seats[host].label, table=self.id)


    # --------------------------------------------------------------- seating
    def sit(self, member: Member, seat: int | None = None) -> int:
        """Seat ``member`` (or bring them back to the seat they hold)."""
        if self.replica is not None:
            return self.replica.sit(member, seat)
        return self.seating.sit(member, seat)

    def seat_for(self, member: Member, seat: object = None) -> tuple[int, bool]:
        """The seat ``member`` would sit in, and whether they hold it already (coming
        back); RoomError if they may not sit here."""
        for i, s in enumerate(self.seats):
            if s.held_by(member):
                if seat is not None and seat != i:
                    raise RoomError("You already hold seat {seat} at table {table}.", seat=i,
                                    table=self.id)
                return i, True
        cur = member.table
        if (cur is not None and cur is not self and member.seat is not None
                and cur.status == "playing"):
            raise RoomError("You are playing at table {table}; leave it first.", table=cur.id)
        if seat is not None:
            seat = parse_seat(seat)
        if self.event is not None and (self.status != "waiting"
                                       or entrant_of(member.ident)[0] != self.event.entrant):
            # An event's board is its entrant's alone (held above when coming back).
            raise RoomError(NOT_YOURS, board=self.event.board, event=self.event.event)
        if self.status == "over":
            raise RoomError("Table {table}'s match is over; you can look at its score sheet "
                            "by watching it.", table=self.id)
        if self.status != "waiting":
            bots_here = self.status == "playing" and any(s.kind == "bot" for s in self.seats)
            if bots_here:
                raise RoomError("Table {table} is already playing; you can watch it or take "
                                "a computer player's seat.", table=self.id)
            raise RoomError("Table {table} is already playing; you can watch it.",
                            table=self.id)
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
            if not free:
                raise RoomError("Table {table} is full.", table=self.id)
            seat = free[0]
        assert isinstance(seat, int)
        if self.seats[seat].kind != "empty":
            raise RoomError("Seat {seat} at table {table} is taken.", seat=seat, table=self.id)
        return seat, False


    def between_rounds(self) -> bool:
        """Waiting, or no action taken yet in the round being played."""
        if self.replica is not None:
            return self.replica.between_rounds()
        return self.runner.between_rounds()

    def take_seat(self, member: Member, seat: object) -> bool:
        """``member`` takes the computer player's ``seat``: now (True) if the
        match has not started or is between rounds, else at the end of this
        round (False; ``member`` watches meanwhile).  RoomError if refused."""
        if self.replica is not None:
            return self.replica.take_seat(member, seat)
        return self.seating.take_seat(member, seat)

    def check_take(self, member: Member, seat: object) -> int:
        """The computer player's seat ``member`` may ask for here (RoomError if not)."""
        seat = parse_seat(seat)
        if self.event is not None:
            raise RoomError(NOT_YOURS, board=self.event.board, event=self.event.event)
        if self.status == "over":
            raise RoomError("The match at table {table} is over.", table=self.id)
        if self.seats[seat].kind != "bot":
            raise RoomError("Seat {seat} at table {table} is not a computer player's.", seat=seat,
                            table=self.id)
        for i, s in enumerate(self.seats):
            if s.held_by(member):
                raise RoomError("You already hold seat {seat} at table {table}.", seat=i,
                                table=self.id)
        cur = member.table
        if (cur is not None and cur is not self and member.seat is not None
                and cur.status == "playing"):
            raise RoomError("You are playing at table {table}; leave it first.", table=cur.id)
        if member.table is self and member.seat is not None:
            raise RoomError("You are seated at table {table}.", table=self.id)
        return seat

    def request_of(self, member: Member) -> int | None:
        """The seat ``member`` waits for at this table, if any."""
        if self.replica is not None:
            return self.replica.request_of(member)
        for seat, m in self.takeovers.items():
            if m is member:
                return seat
        return None

    def request_text(self, seat: int) -> Said:
        said = (N_("You take seat {seat} ({name}) when this hand ends.") if terms(self.game).hands
                else N_("You take seat {seat} ({name}) when this round ends."))
        return Said(said, seat=seat, name=self.seats[seat].label)


    def watch(self, member: Member) -> None:
        if self.replica is not None:
            self.replica.watch(member)
            return
        self.seating.watch(member)

    def fill_with_bots(self, member: Member, seats: Iterable[object] | None = None,
                       level: object = "strong") -> None:
        """Computer players sit in the empty ``seats`` (all by default), asked by
        ``member``: the match starts if no seat is left empty. RoomError (nothing
        changes) if ``member`` may not (``verify_fill``)."""
        if self.replica is not None:
            self.replica.fill_with_bots(member, seats, level)
            return
        self.seating.fill_with_bots(member, seats, level)

    def detach(self, member: Member, keep_seat: bool) -> None:
        """``member`` goes away: a dropped connection (keep_seat) or a leave."""
        if self.replica is not None:
            self.replica.detach(member, keep_seat)
            return
        self.seating.detach(member, keep_seat)

    # ------------------------------------------------------------------ play
    def act(self, member: Member, action: object, only_check: bool = False) -> None:
        """A player's action; raises RoomError (and changes nothing) if refused.
        ``only_check``: the RoomError it would raise (the rules' reason), nothing
        applied — a screen says why a choice cannot be made before it is sent; at a table
        another process drives only the driver can tell, and nothing is raised."""
        if self.replica is not None:
            if not only_check:
                self.replica.act(member, action)
            return
        if member.table is not self or member.seat is None:
            raise RoomError("You are not seated at a table.")
        if only_check:
            self.runner.check(member.seat, action)
        else:
            self.runner.check_and_apply(member.seat, action, by="player")

    def holding(self) -> bool:
        """A clean restart is under way and this table's trick is over (or it is not
        in a trick): it holds as it is, stored, until the room stops (``Runner``)."""
        return self.runner.holding()

    # ------------------------------------------------------------------ chat
    def say(self, member: Member, raw: object) -> None:
        if self.replica is not None:
            self.replica.say(member, raw)
            return
        text = self.chat_line(member, raw)
        self.chat.append((member.display_name, text))
        self.chat_said += 1
        self.notify("chat")

    def chat_line(self, member: Member, raw: object) -> str:
        """``raw`` cleaned, if ``member`` may say it here now (RoomError if not)."""
        if member.table is not self:
            raise RoomError("You are not at this table.")
        if self.event is not None:
            raise RoomError(NO_CHAT)
        text = clean_chat(raw)
        if not text:
            raise RoomError("Empty message.")
        self.registry.mutes.check(member)
        member.chat_guard.check()
        return text

    # ---------------------------------------------------------------- notify
    def notify(self, what: What) -> None:
        """Tell the members (through the other processes' frame first, if any)."""
        side = self.registry.side
        if side is not None and side.frame_written(self, what):
            # Members on other processes show this table: what ours see is written for
            # them first, so no process ever shows less than another has shown (a
            # process that takes the table over from a dead driver starts from it). The
            # side tells ours once the frame is committed.
            return
        self.tell_members(what)

    def tell_members(self, what: What) -> None:
        """Tell this process's members now."""
        if self.closed:
            return          # its members were told "closed" already
        change = TableChange(self, what)        # one for all: what they draw from
        for member in list(self.members()):
            try:
                member.table_changed(change)
            except Exception:
                log.exception("notifying %s failed", member.name)

    def close(self) -> None:
        if self.replica is not None:
            self.replica.close()
            return
        self.turns.cancel()
        self.closed = True
        # A computer player's decision may still be on its way from the worker: the new
        # turn makes it drop out (``Turns``), so a closed table never moves or stores again.
        self.turns.bump()
        self.deadline = self.deadline_seat = None
        self.takeovers.clear()
        for member in list(self.members()):
            member.table, member.seat = None, None
            try:
                member.table_changed(TableChange(self, "closed"))
            except Exception:
                log.exception("notifying %s failed", member.name)

    def labels(self) -> list[str]:
        return [s.label for s in self.seats]

