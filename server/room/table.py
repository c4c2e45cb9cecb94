"""A table: four seats, one engine match, its spectators, timers and chat.

Everything here runs on the server's single asyncio loop. A table applies one
action at a time (``apply`` is synchronous), stores it, and then tells every member
that is seated at it or watching it. Members never touch each other (``members.py``).
Legality is the engine's: the table asks ``Match.canonical`` and never re-derives it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from engine import Action, IllegalAction, Match, View, new_match

from . import bots
from .catalogue import DEFAULT_LEVEL, parse_level, parse_seat, title
from .codes import code_matches, new_code
from .errors import RoomError, quoted
from .members import Member
from .narration import Event, describe, round_text
from .seats import Seat
from .store import Points
from .text import clean_chat

if TYPE_CHECKING:
    from .registry import Registry

log = logging.getLogger("lamma.tables")

CHAT_KEEP = 50


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
        self.match: Match | None = None
        self.match_id: int | None = None     # the store's id, once the match started
        self.points: Points | None = None    # level points and badges the store paid
        self.status = "waiting"     # waiting | playing | over
        self.version = 0
        self.chat: deque[tuple[str, str]] = deque(maxlen=CHAT_KEEP)
        self.events: deque[Event] = deque(maxlen=20)
        self.deadline: float | None = None   # loop time the turn timer runs out
        self.deadline_seat: int | None = None
        self._handle: asyncio.TimerHandle | None = None
        self.counts_for_points = True
        self.created = time.time()
        self.creator: str | None = None      # the identity that opened it (caps per person)
        self.seed: int | None = None        # fixed by tests / tournaments; None: random
        self.deals: list[Any] | None = None
        # Computer players' seats promised to people at the next round boundary.
        self.takeovers: dict[int, Member] = {}
        self._round_log: int | None = None  # len(match.log) when this round began
        self._trick_pause = False           # the next automatic move waits for the trick
        self._public: View | None = None    # the public view after the last action
        self._thinking: asyncio.Task[None] | None = None
        self.closed = False

    def code_matches(self, raw: object) -> bool:
        """Constant-time: the time taken says nothing about how close a guess was."""
        return code_matches(self.code, raw)

    def resume(self, match: Match, match_id: int, settings: dict[str, Any],
               stored_seats: list[str | None], counts_for_points: bool) -> None:
        """A stored unfinished match, playing again after a restart (``persistence``)."""
        self.code = settings.get("code")
        for i, info in enumerate(settings.get("seats", [])):
            if stored_seats[i] is None and info.get("kind") == "human":
                # Stored before seat settings were kept on every change: a computer
                # player replaced this person since the start (Tarneeb leave, T-26).
                self.seats[i] = Seat.computer(i, info.get("level", DEFAULT_LEVEL),
                                              replaced=info.get("name"))
                continue
            self.seats[i] = Seat.from_settings(info)
        self.match = match
        self.match_id = match_id
        self.status = "playing"
        self.counts_for_points = counts_for_points

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
        rnd, rounds = self.round_info()
        return {
            "id": self.id,
            "game": self.game,
            "length": self.length,
            "timer": self.timer,
            "private": self.private,
            "status": self.status,
            "round": rnd,
            "rounds": rounds,
            "seats": [s.public() for s in self.seats],
            "spectators": len(self.watchers),
        }

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
        if self.match is None:
            return None
        return self.match.view(seat)

    def seconds_left(self) -> float | None:
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - asyncio.get_running_loop().time())

    # --------------------------------------------------------------- seating
    def sit(self, member: Member, seat: int | None = None) -> int:
        """Seat ``member`` (or bring them back to the seat they hold)."""
        for i, s in enumerate(self.seats):
            if s.held_by(member):
                if seat is not None and seat != i:
                    raise RoomError(f"You already hold seat {i} at table {self.id}.")
                self._attach(member, i)
                return i
        cur = member.table
        if (cur is not None and cur is not self and member.seat is not None
                and cur.status == "playing"):
            raise RoomError(f"You are playing at table {cur.id}; leave it first.")
        if seat is not None:
            seat = parse_seat(seat)
        if self.status != "waiting":
            bots_here = self.status == "playing" and any(s.kind == "bot" for s in self.seats)
            raise RoomError(f"Table {self.id} is already playing; you can watch it"
                            + (" or take a computer player's seat." if bots_here else "."))
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
            if not free:
                raise RoomError(f"Table {self.id} is full.")
            seat = free[0]
        s = self.seats[seat]
        if s.kind != "empty":
            raise RoomError(f"Seat {seat} at table {self.id} is taken.")
        self.seats[seat] = Seat.person(member)
        self._attach(member, seat)
        self._maybe_start()
        return seat

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
            old.kick("You connected from another terminal; this one is closed.")
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
        seat = parse_seat(seat)
        if self.status == "over":
            raise RoomError(f"The match at table {self.id} is over.")
        if self.seats[seat].kind != "bot":
            raise RoomError(f"Seat {seat} at table {self.id} is not a computer player's.")
        for i, s in enumerate(self.seats):
            if s.held_by(member):
                raise RoomError(f"You already hold seat {i} at table {self.id}.")
        cur = member.table
        if (cur is not None and cur is not self and member.seat is not None
                and cur.status == "playing"):
            raise RoomError(f"You are playing at table {cur.id}; leave it first.")
        if member.table is self and member.seat is not None:
            raise RoomError(f"You are seated at table {self.id}.")
        other = self.takeovers.get(seat)
        if other is not None and other is not member:
            raise RoomError(f"Seat {seat} at table {self.id} is already promised to "
                            f"{other.display_name} at the end of this round.")
        if self.between_rounds():
            self._drop_request(member)
            self._swap(seat, member)
            return True
        if member.table is not self or member.seat is not None:
            self.watch(member)
        self._drop_request(member)      # one request per person: the newest
        self.takeovers[seat] = member
        self._notify("seats")
        return False

    def request_of(self, member: Member) -> int | None:
        """The seat ``member`` waits for at this table, if any."""
        for seat, m in self.takeovers.items():
            if m is member:
                return seat
        return None

    def request_text(self, seat: int) -> str:
        return f"You take seat {seat} ({self.seats[seat].label}) when this round ends."

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
            self.events.append(Event(seat, None, f"{self.seats[seat].label} takes "
                                     f"{bot.label}'s seat", self.round_info()[0]))
        self.version += 1     # a move the computer player is thinking about is dropped
        self._attach(member, seat)          # reschedules: the seat's timer now applies
        try:
            member.seat_granted(self, seat)
        except Exception:
            log.exception("notifying %s failed", member.name)
        if in_apply:
            self._trick_pause = pause       # the finished trick still gets its pause
            return
        self._notify("state")
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
            try:
                member.request_dropped(self, seat, reason)
            except Exception:
                log.exception("notifying %s failed", member.name)

    def watch(self, member: Member) -> None:
        if member.table is self and member.seat is not None:
            raise RoomError("You are seated at this table.")
        self.registry.detach(member, keep_seat=False)
        self.watchers.add(member)
        member.table, member.seat = self, None
        self._changed("seats")

    def fill_with_bots(self, seats: Iterable[object] | None = None,
                       level: object = "strong") -> None:
        level = parse_level(level)
        if self.status != "waiting":
            raise RoomError("Computer players can fill seats only before the match starts.")
        wanted = [parse_seat(i) for i in (range(4) if seats is None else seats)]
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
        self.events.append(Event(seat, None, f"{s.label} left the table"))
        before = len(self.match.log)
        self._public = None
        self.match.leave(seat)
        if len(self.match.log) > before:          # E-37: the leave is part of the record
            self.registry.store.action(self, seat, self.match.log[-1][1])
        if self.match.to_act is None or self.match.result is not None:
            self._finish()
        else:  # Tarneeb: a computer player takes the seat
            self.seats[seat] = Seat.computer(seat, replaced=s.name)
            self.counts_for_points = False
            self.registry.store.seats_changed(self)
            self._schedule()
        self.version += 1
        self._notify("state")

    # ------------------------------------------------------------------ play
    def _maybe_start(self) -> None:
        if self.status == "waiting" and all(s.kind != "empty" for s in self.seats):
            self.match = new_match(self.game, length=self.length, seed=self.seed,
                                   deals=self.deals)
            self.status = "playing"
            self._round_log = 0
            self.match_id = self.registry.store.match_started(self)
            self.events.append(Event(None, None, "The match begins"))
            self.version += 1
            self._schedule()
            self._notify("state")
            self.registry.lobby_changed()

    def act(self, member: Member, action: object) -> None:
        """A player's action; raises RoomError (and changes nothing) if refused."""
        if member.table is not self or member.seat is None:
            raise RoomError("You are not seated at a table.")
        self._check_and_apply(member.seat, action, by="player")

    def _check_and_apply(self, seat: int, action: object, by: str) -> None:
        m = self.match
        if m is None or self.status != "playing":
            raise RoomError("The match has not started." if self.status == "waiting"
                            else "The match is over.")
        if m.to_act != seat:
            raise RoomError("It is not your turn.")
        if not isinstance(action, dict):
            raise RoomError("An action is a JSON object such as {\"type\":\"pass\"}.")
        canon = m.canonical(seat, action)
        if canon is None:
            raise RoomError(f"Illegal action {quoted(action)}.")
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
            raise RoomError(str(exc)) from None
        self.registry.store.action(self, seat, action)
        self.version += 1
        self.events.append(Event(seat, action, describe(self.seats[seat].label, action, by), rnd))
        view = self._public = m.view(None)
        if len(m.history) > before_hist:
            rec = m.history[-1]
            self.events.append(Event(None, None, round_text(self.labels(), rec),
                                     view.get("round")))
            self._trick_pause = True
            self.registry.lobby_changed()
            if m.result is None and m.to_act is not None:
                self._round_ended()
        elif len(view["tricks"]) > before_trick:
            w = view["tricks"][-1]["winner"]
            self.events.append(Event(w, None, f"{self.seats[w].label} takes the trick", rnd))
            self._trick_pause = True
        if m.to_act is None or m.result is not None:
            self._finish()
        else:
            self._schedule()
        self._notify("state")

    def _finish(self) -> None:
        self._cancel()
        if self.takeovers:
            self._drop_all_requests(f"The match at table {self.id} ended before the seat "
                                    "came free.")
        if self.status != "over":
            self.status = "over"
            res = self.match.result if self.match is not None else None
            winners = ", ".join(self.seats[w].label for w in (res["winners"] if res else []))
            self.events.append(Event(None, None, "Match over" +
                                     (f": {winners} win" if winners else "")))
            self.points = self.registry.store.match_over(self)
            self.registry.lobby_changed()

    def _cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self.deadline = None
        self.deadline_seat = None

    def _schedule(self) -> None:
        """Arrange the next automatic move: a computer player, or the timer."""
        self._cancel()
        m = self.match
        if m is None or self.status != "playing" or m.to_act is None or self.closed:
            return
        seat = m.to_act
        s = self.seats[seat]
        loop = asyncio.get_running_loop()
        reg = self.registry
        pause = reg.trick_pause if self._trick_pause else 0.0
        self._trick_pause = False
        if s.kind == "bot":
            delay = reg.bot_pause + pause
            self._handle = loop.call_later(delay, self._auto, seat, self.version, "bot")
            return
        limit = self.timer or (reg.absent_timeout if s.member is None else 0)
        if limit:
            self.deadline = loop.time() + limit + pause
            self.deadline_seat = seat
            self._handle = loop.call_later(limit + pause, self._auto, seat,
                                           self.version, "timer")

    def _auto(self, seat: int, version: int, by: str) -> None:
        self._handle = None
        m = self.match
        if (m is None or self.version != version or m.to_act != seat
                or self.status != "playing"):
            return
        if by == "bot" or bots.timer_needs_bot(m):
            # Think in the worker process; apply only if nothing moved meanwhile.
            level = self.seats[seat].level
            task = asyncio.get_running_loop().create_task(self._auto_bot(seat, version, by, level))
            self._thinking = task
            return
        try:
            self._apply(seat, bots.timeout_action(m, seat), by)
        except Exception:
            log.exception("automatic move failed at table %s", self.id)

    async def _auto_bot(self, seat: int, version: int, by: str, level: str) -> None:
        try:
            if self.match is None:
                return
            action = await bots.decide(self.match, seat, level)
            m = self.match
            if (m is None or self.version != version or m.to_act != seat
                    or self.status != "playing"):
                return
            self._apply(seat, action, by)
        except Exception:
            log.exception("automatic move failed at table %s", self.id)

    # ------------------------------------------------------------------ chat
    def say(self, member: Member, raw: object) -> None:
        if member.table is not self:
            raise RoomError("You are not at this table.")
        text = clean_chat(raw)
        if not text:
            raise RoomError("Empty message.")
        self.registry.mutes.check(member)
        member.chat_guard.check()
        self.chat.append((member.display_name, text))
        self._notify("chat")

    # ---------------------------------------------------------------- notify
    def _changed(self, what: str) -> None:
        self._notify(what)
        self.registry.lobby_changed()

    def _notify(self, what: str) -> None:
        for member in list(self.members()):
            try:
                member.table_changed(self, what)
            except Exception:
                log.exception("notifying %s failed", member.name)

    def close(self) -> None:
        self._cancel()
        self.closed = True
        # A computer player's decision may still be on its way from the worker: the new
        # version makes _auto_bot drop it, so a closed table never moves (or stores) again.
        self.version += 1
        self.takeovers.clear()
        for member in list(self.members()):
            member.table, member.seat = None, None
            try:
                member.table_changed(self, "closed")
            except Exception:
                log.exception("notifying %s failed", member.name)

    def labels(self) -> list[str]:
        return [s.label for s in self.seats]

