"""A table: four seats, one engine match, its spectators, timers and chat.

Everything here runs on the server's single asyncio loop. A table applies one
action at a time (``apply`` is synchronous), submits it to the store, and tells every
member that is seated at it or watching it once the store has committed it: what
members see (``view``, ``version``, ``events``, ``points``, the lobby's row, the turn
timer) is the *shown* state, published in order by ``_publish`` when every write
before it is committed (at once with ``NullStore``). The engine's state runs ahead
meanwhile, so the next action, timers and computer players work from it. Members
never touch each other (``members.py``). Legality is the engine's: the table asks
``Match.canonical`` and never re-derives it.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from engine import Action, IllegalAction, Match, View, leaving_ends_match, new_match
from engine.duplicate import board_result

from . import bots
from .boards import NO_CHAT, NO_WATCHING, NOT_YOURS, EventBoard, entrant_of
from .catalogue import DEFAULT_LEVEL, parse_level, parse_seat, ranked, title
from .codes import code_matches, new_code
from .errors import N_, RoomError, Said, quoted
from .events import TableChange, What
from .members import Member
from .narration import Event, describe, round_text
from .seats import Seat
from .stats import STATS
from .store import FinishedBoard, MatchRef, Points
from .text import clean_chat

if TYPE_CHECKING:
    from .registry import Registry

log = logging.getLogger("lamma.tables")

CHAT_KEEP = 50


class _Frame(NamedTuple):
    """A change to show once the writes before it are committed."""
    what: What
    views: dict[int | None, View] | None      # None: the views did not change
    news: list[Event]
    calls: list[Callable[[], None]]           # member callbacks (seat granted, …)
    status: str
    accepted_at: float | None
    lobby: bool


class Table:
    def __init__(self, registry: Registry, tid: str, game: str, length: Any,
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
        self.points: Points | None = None    # level points and badges the store paid
        self.status = "waiting"     # waiting | playing | over (the engine's side)
        # Shown: what members see, published once stored (``_publish``).
        self.version = 0
        self.shown_status = "waiting"
        self.accepted_at: float | None = None   # monotonic time the shown action was accepted
        self._views: dict[int | None, View] | None = None    # per seat, None: a watcher's
        self.chat: deque[tuple[str, str]] = deque(maxlen=CHAT_KEEP)
        # Lines ever said here (the kept ones are the last of them): a member that
        # hears of several at once (a frame from another process) says each once.
        self.chat_said = 0
        self.events: deque[Event] = deque(maxlen=20)
        # narration(): (the deque, its length, first and last event, what it said)
        self._narration: tuple[Any, ...] | None = None
        self.deadline: float | None = None   # loop time the shown turn timer runs out
        self.deadline_seat: int | None = None
        # Not shown yet: narration and member callbacks for the next _publish.
        self._news: list[Event] = []
        self._calls: list[Callable[[], None]] = []
        self._moved = False                  # the engine changed since the views were taken
        self._accepted: float | None = None  # when the newest action not shown was accepted
        self._lobby_due = False              # the lobby's row changes with the next publish
        self._turn = 0                       # bumped on every change: stale timers drop out
        self._timer: tuple[float | None, int | None] = (None, None)   # the engine side's
        self._handle: asyncio.TimerHandle | None = None
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
        self._round_log: int | None = None  # len(match.log) when this round began
        self._trick_pause = False           # the next automatic move waits for the trick
        self._public: View | None = None    # the public view after the last action
        self._thinking: asyncio.Task[None] | None = None
        self._thinking_for: tuple[int, int] | None = None    # (seat, turn) it decides
        self.closed = False
        # (wall-clock deadline, seat, actions played) of the turn timer a dead driver had
        # running (remote.py): kept for that turn only
        self.carried_deadline: tuple[float, int, int] | None = None
        # A duplicate event's board (boards.py): its entrant alone against computer
        # players; None for every other table.
        self.event: EventBoard | None = None

    def code_matches(self, raw: object) -> bool:
        """Constant-time: the time taken says nothing about how close a guess was."""
        return code_matches(self.code, raw)

    def resume(self, match: Match, match_id: int, settings: dict[str, Any],
               stored_seats: list[str | None], counts_for_points: bool) -> None:
        """A stored unfinished match, playing again after a restart (``persistence``)."""
        self.code = settings.get("code")
        if settings.get("event") is not None:
            self.event = EventBoard.from_settings(self.game, settings["event"])
            counts_for_points = False
        for i, info in enumerate(settings.get("seats", [])):
            if stored_seats[i] is None and info.get("kind") == "human":
                # Stored before seat settings were kept on every change: a computer
                # player replaced this person since the start (Tarneeb leave, T-26).
                self.seats[i] = Seat.computer(i, info.get("level", DEFAULT_LEVEL),
                                              replaced=info.get("name"))
                continue
            self.seats[i] = Seat.from_settings(info)
        self.match = match
        self.match_ref = MatchRef(match_id)
        self.status = self.shown_status = "playing"
        self.counts_for_points = counts_for_points
        self.practice = bool(settings.get("practice"))
        if self.practice:
            self.counts_for_points = False
        self._views = self._snapshot()      # stored already: shown at once

    @property
    def match_id(self) -> int | None:
        """The store's id of the match, once its row is committed."""
        return self.match_ref.id if self.match_ref is not None else None

    # ------------------------------------------------------------------ info
    @property
    def title(self) -> str:
        return title(self.game)

    def round_info(self) -> tuple[int | None, int | None]:
        if self.match is None:
            return None, None
        v = self.match.view(None)
        return v.get("round"), v.get("rounds")

    def summary(self) -> dict[str, Any]:
        """The lobby's row: the shown state."""
        pub = self._views[None] if self._views is not None else None
        rnd, rounds = (pub.get("round"), pub.get("rounds")) if pub is not None else (None, None)
        return {
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
            **({"event": {"id": self.event.event, "board": self.event.board,
                          "boards": self.event.boards}}
               if self.event is not None else {}),
            "practice": self.practice,
        }

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
        if self._views is None:
            return None
        return self._views.get(seat)

    def view_of(self, member: Member) -> View | None:
        """The shown view ``member`` is shown here: their seat's, or a watcher's. What
        a screen or a program gets comes from here, never from ``view(member.seat)``:
        a table shown for another process's driver gives a seat's view only to whom
        the driver gave the seat (``RemoteTable.view_of``)."""
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

    def can_fill(self, member: Member) -> bool:
        """May ``member`` fill the empty seats now (the screen offers its key)?"""
        return self.may(member, "fill")

    # --------------------------------------------------------------- seating
    def sit(self, member: Member, seat: int | None = None) -> int:
        """Seat ``member`` (or bring them back to the seat they hold)."""
        seat, held = self.seat_for(member, seat)
        if held:
            self._attach(member, seat)
            return seat
        self.seats[seat] = Seat.person(member)
        self._attach(member, seat)
        self._maybe_start()
        return seat

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

    def _attach(self, member: Member, seat: int) -> None:
        self.registry.detach(member, keep_seat=False, unless=self)
        self.watchers.discard(member)
        self._drop_request(member)
        s = self.seats[seat]
        old = s.member
        s.member = member
        member.table, member.seat = self, seat
        if old is not None and old is not member:
            old.table, old.seat = None, None
            old.kick(N_("You connected from another terminal; this one is closed."))
        if self.status == "playing":
            self._schedule()
        self._changed("seats")

    # ---------------------------------------- a computer player's seat
    def between_rounds(self) -> bool:
        """Waiting, or no action taken yet in the round being played."""
        if self.status == "waiting":
            return True
        return (self.status == "playing" and self.match is not None
                and self._round_log is not None and len(self.match.log) == self._round_log)

    def take_seat(self, member: Member, seat: object) -> bool:
        """``member`` takes the computer player's ``seat``: now (True) if the
        match has not started or is between rounds, else at the end of this
        round (False; ``member`` watches meanwhile).  RoomError if refused."""
        seat = self.check_take(member, seat)
        other = self.takeovers.get(seat)
        if other is not None and other is not member:
            raise RoomError("Seat {seat} at table {table} is already promised to {name} at "
                            "the end of this round.", seat=seat, table=self.id,
                            name=other.display_name)
        if self.between_rounds():
            self._drop_request(member)
            self._swap(seat, member)
            return True
        if member.table is not self or member.seat is not None:
            self.watch(member)
        self._drop_request(member)      # one request per person: the newest
        self.takeovers[seat] = member
        self._publish("seats")
        return False

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
        for seat, m in self.takeovers.items():
            if m is member:
                return seat
        return None

    def request_text(self, seat: int) -> Said:
        return Said(N_("You take seat {seat} ({name}) when this round ends."), seat=seat,
                    name=self.seats[seat].label)

    def _drop_request(self, member: Member) -> None:
        for seat in [s for s, m in self.takeovers.items() if m is member]:
            del self.takeovers[seat]

    def _swap(self, seat: int, member: Member, in_apply: bool = False) -> None:
        """``in_apply``: called from ``_apply``, which reschedules and notifies."""
        bot = self.seats[seat]
        pause = self._trick_pause
        self.seats[seat] = Seat.person(member)
        if self.match is not None:
            # A computer player held this seat in the match: no level points (E-38
            # Decision); the store keeps the new holder so a restart keeps it too.
            self.counts_for_points = False
            self.registry.store.seats_changed(self)
            self._news.append(Event(seat, None, Said(N_("{who} takes {bot}'s seat"),
                                                     who=self.seats[seat].label,
                                                     bot=bot.label), self.round_info()[0]))
        self._turn += 1       # a move the computer player is thinking about is dropped
        self._attach(member, seat)          # reschedules: the seat's timer now applies
        self._calls.append(partial(member.seat_granted, self, seat))
        if in_apply:
            self._trick_pause = pause       # the finished trick still gets its pause
            return
        self._publish("state")
        self._maybe_start()

    def _round_ended(self) -> None:
        """The round boundary: promised seats change hands before anyone acts."""
        assert self.match is not None
        self._round_log = len(self.match.log)
        for seat, member in sorted(self.takeovers.items()):
            del self.takeovers[seat]
            if (member.closed or member.table is not self or member.seat is not None
                    or self.seats[seat].kind != "bot"):
                continue
            self._swap(seat, member, in_apply=True)

    def _drop_all_requests(self, reason: str) -> None:
        pending, self.takeovers = self.takeovers, {}
        for seat, member in pending.items():
            self._calls.append(partial(member.request_dropped, self, seat, reason))

    def watch(self, member: Member) -> None:
        if member.table is self and member.seat is not None:
            raise RoomError("You are seated at this table.")
        if self.event is not None:
            raise RoomError(NO_WATCHING)
        self.registry.detach(member, keep_seat=False)
        self.watchers.add(member)
        member.table, member.seat = self, None
        self._changed("seats")

    def fill_with_bots(self, member: Member, seats: Iterable[object] | None = None,
                       level: object = "strong") -> None:
        """Computer players sit in the empty ``seats`` (all by default), asked by
        ``member``: the match starts if no seat is left empty. RoomError (nothing
        changes) if ``member`` may not (``verify_fill``)."""
        level = parse_level(level)
        self.verify_fill(member)
        self._fill([parse_seat(i) for i in (range(4) if seats is None else seats)], level)

    def _fill(self, wanted: list[int], level: str) -> None:
        """Computer players in the empty ``wanted`` seats, unchecked: the room's own
        doing (a benchmark's tables of four computer players), never a member's."""
        for i in wanted:
            if self.seats[i].kind == "empty":
                self.seats[i] = Seat.computer(i, level)
        self._changed("seats")
        self._maybe_start()

    def detach(self, member: Member, keep_seat: bool) -> None:
        """``member`` goes away: a dropped connection (keep_seat) or a leave."""
        if member in self.watchers:
            self.watchers.discard(member)
            self._drop_request(member)      # leaving or gone: the request ends with it
            member.table = None
            self._changed("seats")
            self.registry.gc_table(self)
            return
        seat = self.seat_of(member)
        if seat is None:
            return
        s = self.seats[seat]
        s.member = None
        member.table, member.seat = None, None
        if self.event is not None:
            keep_seat = True            # the board waits for its entrant (boards.py)
        if keep_seat and self.status == "playing":
            self._schedule()            # the timer now moves for them
        elif self.status == "waiting":
            self.seats[seat] = Seat()
        elif self.status == "playing":
            self._leave_match(seat)
        self._changed("seats")
        self.registry.gc_table(self)

    def _leave_match(self, seat: int) -> None:
        assert self.match is not None
        s = self.seats[seat]
        self._news.append(Event(seat, None, Said(N_("{who} left the table"), who=s.label)))
        before = len(self.match.log)
        self._public = None
        self.match.leave(seat)
        self._moved = True
        if len(self.match.log) > before:          # E-37: the leave is part of the record
            self.registry.store.action(self, seat, self.match.log[-1][1])
        if self.match.to_act is None or self.match.result is not None:
            self._finish()
        else:  # Tarneeb: a computer player takes the seat
            self.seats[seat] = Seat.computer(seat, replaced=s.name)
            self.counts_for_points = False
            self.registry.store.seats_changed(self)
            self._schedule()
        self._turn += 1
        self._publish("state")

    # ------------------------------------------------------------------ play
    def start_when_ready(self) -> None:
        """Starts the match if every seat is taken (an event's board once its computer
        players sit)."""
        self._maybe_start()

    def schedule_turn(self) -> None:
        """The turn's timer and computer player set going (a resumed or adopted table)."""
        self._schedule()

    def changed(self, what: What) -> None:
        """Something of ``what`` changed here that its members and the lobby must see."""
        self._changed(what)

    def notify(self, what: What) -> None:
        """Tell the members (through the other processes' frame first, if any)."""
        self._notify(what)

    def tell_members(self, what: What) -> None:
        """Tell this process's members now."""
        self._tell(what)

    @property
    def views(self) -> dict[int | None, View] | None:
        """The views last shown (per seat; None: a watcher's), or None before a match."""
        return self._views

    def _maybe_start(self) -> None:
        if self.status == "waiting" and all(s.kind != "empty" for s in self.seats):
            ev = self.event
            self.match = new_match(self.game, length=self.length,
                                   seed=ev.seed if ev is not None else self.seed,
                                   deals=None if ev is not None else self.deals,
                                   board=ev.spec if ev is not None else None)
            self.status = "playing"
            self._round_log = 0
            self._public = None
            self.registry.store.match_started(self)
            self._news.append(Event(None, None, Said(N_("The match begins"))))
            self._turn += 1
            self._moved = self._lobby_due = True
            self._schedule()
            self._publish("state")

    def act(self, member: Member, action: object) -> None:
        """A player's action; raises RoomError (and changes nothing) if refused."""
        if member.table is not self or member.seat is None:
            raise RoomError("You are not seated at a table.")
        self._check_and_apply(member.seat, action, by="player")

    def holding(self) -> bool:
        """A clean restart is under way and this table's trick is over (or it is not
        in a trick): it holds as it is, stored, until the room stops — nobody leads
        a new trick, no computer player or timer moves (``Registry.draining``)."""
        if not self.registry.draining:
            return False
        m = self.match
        if m is None or self.status != "playing":
            return True
        view = self._public if self._public is not None else m.view(None)
        return not view.get("trick")

    def hold(self) -> None:
        """The room stops now: no computer player or timer moves here again (a
        decision on its way is dropped: the match stays between two moves)."""
        self._cancel()
        self._turn += 1
        self._timer_changed()

    def _check_and_apply(self, seat: int, action: object, by: str) -> None:
        if self.holding():
            raise RoomError("The room is about to restart: this table waits as it is "
                            "until then, and goes on after it.")
        if self.registry.store.down:
            # It could not be stored, so it is not accepted (nothing is shown unstored).
            raise RoomError("The room cannot store moves just now (its database does not "
                            "answer); nothing was played. Try again in a moment.")
        m = self.match
        if m is None or self.status != "playing":
            if self.status == "waiting":
                raise RoomError("The match has not started.")
            raise RoomError("The match is over.")
        if m.to_act != seat:
            raise RoomError("It is not your turn.")
        if not isinstance(action, dict):
            raise RoomError("That is not an action: an action has a type (pass, bid, play …).")
        canon = m.canonical(seat, action)
        if canon is None:
            raise RoomError("Illegal action {action}.", action=quoted(action))
        self._apply(seat, canon, by)

    def _apply(self, seat: int, action: Action, by: str) -> None:
        m = self.match
        assert m is not None
        before_hist = len(m.history)
        # The public view after the previous action is the one before this one.
        before = self._public if self._public is not None else m.view(None)
        rnd = before.get("round")
        before_trick = len(before["tricks"])
        try:
            m.apply(seat, dict(action))
        except IllegalAction as exc:
            raise RoomError(exc.template, **exc.params) from None
        self._accepted = time.monotonic()
        STATS.moves.inc()
        self._moved = True
        self.registry.store.action(self, seat, action)
        self._turn += 1
        self._news.append(Event(seat, action, describe(self.seats[seat].label, action, by), rnd))
        view = self._public = m.view(None)
        if len(m.history) > before_hist:
            rec = m.history[-1]
            self._news.append(Event(None, None, round_text(self.labels(), rec),
                                    view.get("round")))
            self._trick_pause = True
            self._lobby_due = True
            if m.result is None and m.to_act is not None:
                self._round_ended()
        elif len(view["tricks"]) > before_trick:
            w = view["tricks"][-1]["winner"]
            self._news.append(Event(w, None, Said(N_("{who} takes the trick"),
                                                  who=self.seats[w].label), rnd))
            self._trick_pause = True
        if m.to_act is None or m.result is not None:
            self._finish()
        else:
            self._schedule()
        self._publish("state")

    def _finish(self) -> None:
        self._cancel()
        self._timer_changed()
        if self.takeovers:
            self._drop_all_requests(Said(N_("The match at table {table} ended before the "
                                            "seat came free."), table=self.id))
        if self.status != "over":
            self.status = "over"
            res = self.match.result if self.match is not None else None
            ev = self.event
            if ev is not None and self.match is not None:
                # A board pays no level points: its result is the entrant's score.
                seat = next((i for i, s in enumerate(self.seats) if s.kind == "human"), 0)
                result = board_result(self.match, seat)
                self._news.append(Event(None, None, Said(
                    N_("Board {board} over: {score} points"), board=ev.board,
                    score=result.score)))
                assert res is not None
                self.registry.store.board_over(self, FinishedBoard(
                    ev.event, ev.board, ev.entrant, ev.ranked, self.seats[seat].name or "",
                    seat, result, res, len(self.match.history), self.match.to_dict()))
                self._lobby_due = True
                return
            winners = ", ".join(self.seats[w].label for w in (res["winners"] if res else []))
            self._news.append(Event(None, None,
                                    Said(N_("Match over: {winners} win"), winners=winners)
                                    if winners else Said(N_("Match over"))))
            self.registry.store.match_over(self, self._paid)
            self._lobby_due = True

    def _paid(self, points: Points | None) -> None:
        """The store committed the result: what it paid (shown with the match's end)."""
        if not self.closed:
            self.points = points

    def _cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._timer = (None, None)

    def _timer_changed(self) -> None:
        """The turn timer as it is now, shown after the writes before it."""
        self.registry.store.then(partial(self._show_timer, *self._timer))

    def _show_timer(self, deadline: float | None, seat: int | None) -> None:
        if not self.closed:
            self.deadline, self.deadline_seat = deadline, seat

    def _schedule(self) -> None:
        """Arrange the next automatic move: a computer player, or the timer.

        Each runs in a new, empty context, not a copy of the one whose key press
        scheduled it: a session's, which would keep its Textual app alive as long as
        the table plays on."""
        self._cancel()
        m = self.match
        if (m is None or self.status != "playing" or m.to_act is None or self.closed
                or self.holding()):
            self._timer_changed()
            return
        seat = m.to_act
        s = self.seats[seat]
        loop = asyncio.get_running_loop()
        reg = self.registry
        pause = reg.trick_pause if self._trick_pause else 0.0
        self._trick_pause = False
        if s.kind == "bot":
            delay = reg.bot_pause + pause
            self._handle = loop.call_later(delay, self._auto, seat, self._turn, "bot",
                                           context=contextvars.Context())
            self._timer_changed()
            return
        limit = self.timer or (reg.absent_timeout if s.member is None else 0)
        if self.event is not None:
            limit = 0                   # an event's board waits for its entrant
        carried = self.carried_deadline
        if carried is not None and (carried[1] != seat or carried[2] != len(m.log)):
            carried = self.carried_deadline = None      # that turn is over
        if carried is not None and self.timer:
            # Taken over from a driver that died: the turn keeps the deadline it had
            # (its people coming back through other processes do not restart it).
            limit, pause = max(0.0, carried[0] - time.time()), 0.0
        if limit:
            self._timer = (loop.time() + limit + pause, seat)
            self._handle = loop.call_later(limit + pause, self._auto, seat,
                                           self._turn, "timer", context=contextvars.Context())
        self._timer_changed()

    def _auto(self, seat: int, version: int, by: str) -> None:
        self._handle = None
        m = self.match
        if (m is None or self._turn != version or m.to_act != seat
                or self.status != "playing" or self.holding()):
            return
        if self.registry.store.down:
            self._after_store_down()
            return
        if by == "bot" or bots.timer_needs_bot(m):
            # Think in the worker process; apply only if nothing moved meanwhile.
            level = self.seats[seat].level
            if by == "timer" and self.event is not None:
                return                  # (no timer runs at an event's board)
            thinking = self._thinking
            if (thinking is not None and not thinking.done()
                    and self._thinking_for == (seat, version)):
                return                  # this very decision is on its way already (the
                                        # turn was scheduled again: someone came back)
            task = asyncio.get_running_loop().create_task(
                self._auto_bot(seat, version, by, level), context=contextvars.Context())
            self._thinking = task
            self._thinking_for = (seat, version)
            return
        try:
            self._apply(seat, bots.timeout_action(m, seat), by)
        except Exception:
            log.exception("automatic move failed at table %s", self.id)

    def _after_store_down(self) -> None:
        """A timer or a computer player's move while the database does not answer: it
        waits, and the turn starts again (a person's full time) once it answers."""
        turn = self._turn

        def again() -> None:
            if not self.closed and self._turn == turn and self.status == "playing":
                self._schedule()
        self.registry.store.when_up(again)

    async def _auto_bot(self, seat: int, version: int, by: str, level: str) -> None:
        try:
            if self.match is None:
                return
            ev = self.event
            if ev is not None:
                # Decided from the board and what has happened on it only: the same
                # replies for every entrant who plays alike (engine.duplicate).
                action = await bots.decide(self.match, seat, level,
                                           seed=ev.decision_seed(self.match.log),
                                           samples=ev.samples, owner=ev.entrant)
            else:
                action = await bots.decide(self.match, seat, level, owner=f"table {self.id}")
            m = self.match
            if (m is None or self._turn != version or m.to_act != seat
                    or self.status != "playing" or self.holding()):
                return
            if self.registry.store.down:
                self._after_store_down()
                return
            self._apply(seat, action, by)
        except Exception:
            log.exception("automatic move failed at table %s", self.id)

    # ------------------------------------------------------------------ chat
    def say(self, member: Member, raw: object) -> None:
        text = self.chat_line(member, raw)
        self.chat.append((member.display_name, text))
        self.chat_said += 1
        self._notify("chat")

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
    def _changed(self, what: What) -> None:
        self._lobby_due = True
        self._publish(what)

    def _snapshot(self) -> dict[int | None, View]:
        """Every seat's view and a watcher's, of the engine's state now."""
        m = self.match
        assert m is not None
        pub = self._public if self._public is not None else m.view(None)
        views: dict[int | None, View] = {None: pub}
        for seat in range(4):
            views[seat] = m.view(seat)
        return views

    def _publish(self, what: What) -> None:
        """Show the changes made since the last publish (views taken now, narration,
        member callbacks) once every write submitted before is committed."""
        views = None
        if self._moved and self.match is not None:
            views = self._snapshot()
            self._moved = False
        frame = _Frame(what, views, self._news, self._calls, self.status, self._accepted,
                       self._lobby_due)
        self._news, self._calls, self._accepted, self._lobby_due = [], [], None, False
        self.registry.store.then(lambda: self._show(frame))

    def _show(self, f: _Frame) -> None:
        """The frame's writes are committed: members may see it now."""
        if self.closed:
            return          # its members were told "closed" already
        if f.views is not None:
            self._views = f.views
        self.events.extend(f.news)
        self.shown_status = f.status
        if f.accepted_at is not None:
            self.accepted_at = f.accepted_at
        if f.views is not None or f.what == "state":
            self.version += 1
        for call in f.calls:
            try:
                call()
            except Exception:
                log.exception("notifying a member at table %s failed", self.id)
        self._notify(f.what)
        if f.lobby:
            self.registry.lobby_changed()

    def _notify(self, what: What) -> None:
        side = self.registry.side
        if side is not None and side.frame_written(self, what):
            # Members on other processes show this table: what ours see is written for
            # them first, so no process ever shows less than another has shown (a
            # process that takes the table over from a dead driver starts from it). The
            # side tells ours once the frame is committed.
            return
        self._tell(what)

    def _tell(self, what: What) -> None:
        if self.closed:
            return          # its members were told "closed" already
        change = TableChange(self, what)        # one for all: what they draw from
        for member in list(self.members()):
            try:
                member.table_changed(change)
            except Exception:
                log.exception("notifying %s failed", member.name)

    def close(self) -> None:
        self._cancel()
        self.closed = True
        # A computer player's decision may still be on its way from the worker: the new
        # turn makes _auto_bot drop it, so a closed table never moves (or stores) again.
        self._turn += 1
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

