"""A driven table's seating: people sitting down, watching, leaving, and taking a
computer player's seat at the next round boundary.

Part of a ``Table`` (``table.py``) at the process that drives it. Who *may* sit, take
or fill is the table's (``Table.verify`` and friends, docs/roles.md), asked first here
as everywhere; what changes when they do is here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from functools import partial

from .boards import NO_WATCHING
from .catalogue import parse_level, parse_seat
from .errors import N_, RoomError, Said
from .narration import Event
from .seats import handed_on
from .table import Member, Part, Seat, Table


class Seating(Part):
    def __init__(self, table: Table):
        super().__init__(table)
        # A web page's guest gone from its seat: when the seat stops being held for
        # them (``guest_gone``), by seat.
        self.return_timers: dict[int, asyncio.TimerHandle] = {}

    def sit(self, member: Member, seat: int | None = None) -> int:
        """Seat ``member`` (or bring them back to the seat they hold)."""
        t = self.table
        seat, held = t.seat_for(member, seat)
        if held:
            self._attach(member, seat)
            return seat
        t.seats[seat] = Seat.person(member)
        self._attach(member, seat)
        t.runner.start_when_ready()
        return seat

    def _attach(self, member: Member, seat: int) -> None:
        t = self.table
        t.registry.detach(member, keep_seat=False, unless=t)
        t.watchers.discard(member)
        self._drop_request(member)
        s = t.seats[seat]
        old = s.member
        s.member = member
        member.table, member.seat = t, seat
        if old is not None and old is not member:
            old.table, old.seat = None, None
            old.kick(N_("You connected from another terminal; this one is closed."))
        if t.status == "playing":
            t.turns.schedule()
        t.runner.changed("seats")

    def _hold_for_return(self, seat: int, s: Seat) -> None:
        """A web page's guest (``Seat.returns``) has dropped: its seat is held for the
        page to come back (it tries again by itself) for ``guest_return`` seconds;
        then the guest is gone as an SSH guest is once its connection drops
        (``guest_gone``)."""
        old = self.return_timers.pop(seat, None)
        if old is not None:
            old.cancel()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return                      # no loop (a test driving the table by hand)
        self.return_timers[seat] = loop.call_later(
            self.table.registry.guest_return, self.guest_gone, seat, s)

    def guest_gone(self, seat: int, s: Seat) -> None:
        """A web page's guest has not come back to ``seat``: its seat is a guest's who
        dropped, held no longer (``Seat.held_for_return``), and the table is closed if
        nobody else is at it or may come back to it — the rule and the code path an
        SSH guest's drop takes (``Registry.gc_table``).  A guest is its page as an SSH
        guest is its connection: a tab closed for good left a table the turn timer
        played alone for hours (18 rounds, about five)."""
        self.return_timers.pop(seat, None)
        t = self.alive()
        if t is None or t.seats[seat] is not s or s.member is not None:
            return                      # closed, or back (a new timer if it drops again)
        s.returns = False
        t.registry.gc_table(t)

    def take_seat(self, member: Member, seat: object) -> bool:
        """``member`` takes the computer player's ``seat``: now (True) if the
        match has not started or is between rounds, else at the end of this
        round (False; ``member`` watches meanwhile).  RoomError if refused."""
        t = self.table
        seat = t.check_take(member, seat)
        other = t.takeovers.get(seat)
        if other is not None and other is not member:
            raise RoomError("Seat {seat} at table {table} is already promised to {name} at "
                            "the end of this round.", seat=seat, table=t.id,
                            name=other.display_name)
        if t.between_rounds():
            self._drop_request(member)
            self._swap(seat, member)
            return True
        if member.table is not t or member.seat is not None:
            self.watch(member)
        self._drop_request(member)      # one request per person: the newest
        t.takeovers[seat] = member
        t.runner.publish("seats")
        return False

    def _drop_request(self, member: Member) -> None:
        takeovers = self.table.takeovers
        for seat in [s for s, m in takeovers.items() if m is member]:
            del takeovers[seat]

    def _swap(self, seat: int, member: Member, in_apply: bool = False) -> None:
        """``in_apply``: called while an action is applied, which reschedules and
        notifies."""
        t = self.table
        bot = t.seats[seat]
        pause = t.turns.trick_pause
        t.seats[seat] = handed_on(t, bot, Seat.person(member))
        if t.match is not None:
            # A computer player held this seat in the match: no level points (E-38
            # Decision); the store keeps the new holder so a restart keeps it too.
            t.counts_for_points = False
            t.registry.store.seats_changed(t)
            t.runner.news.append(Event(seat, None, Said(N_("{who} takes {bot}'s seat"),
                                                        who=t.seats[seat].label,
                                                        bot=bot.label), t.round_info()[0]))
        t.turns.bump()        # a move the computer player is thinking about is dropped
        self._attach(member, seat)          # reschedules: the seat's timer now applies
        t.runner.calls.append(partial(member.seat_granted, t, seat))
        if in_apply:
            t.turns.trick_pause = pause     # the finished trick still gets its pause
            return
        t.runner.publish("state")
        t.runner.start_when_ready()

    def round_ended(self) -> None:
        """The round boundary: promised seats change hands before anyone acts."""
        t = self.table
        for seat, member in sorted(t.takeovers.items()):
            del t.takeovers[seat]
            if (member.closed or member.table is not t or member.seat is not None
                    or t.seats[seat].kind != "bot"):
                continue
            self._swap(seat, member, in_apply=True)

    def drop_all_requests(self, reason: str) -> None:
        t = self.table
        pending, t.takeovers = t.takeovers, {}
        for seat, member in pending.items():
            t.runner.calls.append(partial(member.request_dropped, t, seat, reason))

    def watch(self, member: Member) -> None:
        t = self.table
        if member.table is t and member.seat is not None:
            raise RoomError("You are seated at this table.")
        if t.event is not None:
            raise RoomError(NO_WATCHING)
        t.registry.detach(member, keep_seat=False)
        t.watchers.add(member)
        member.table, member.seat = t, None
        t.runner.changed("seats")

    def fill_with_bots(self, member: Member, seats: Iterable[object] | None = None,
                       level: object = "strong") -> None:
        """Computer players sit in the empty ``seats`` (all by default), asked by
        ``member``: the match starts if no seat is left empty. RoomError (nothing
        changes) if ``member`` may not (``verify_fill``)."""
        level = parse_level(level)
        self.table.verify_fill(member)
        self.fill([parse_seat(i) for i in (range(4) if seats is None else seats)], level)

    def fill(self, wanted: list[int], level: str) -> None:
        """Computer players in the empty ``wanted`` seats, unchecked: the room's own
        doing (a benchmark's tables of four computer players), never a member's."""
        t = self.table
        for i in wanted:
            if t.seats[i].kind == "empty":
                t.seats[i] = Seat.computer(i, level)
        t.runner.changed("seats")
        t.runner.start_when_ready()

    def detach(self, member: Member, keep_seat: bool) -> None:
        """``member`` goes away: a dropped connection (keep_seat) or a leave."""
        t = self.table
        if member in t.watchers:
            t.watchers.discard(member)
            self._drop_request(member)      # leaving or gone: the request ends with it
            member.table = None
            t.runner.changed("seats")
            t.registry.gc_table(t)
            return
        seat = t.seat_of(member)
        if seat is None:
            return
        s = t.seats[seat]
        s.member = None
        member.table, member.seat = None, None
        if t.event is not None:
            keep_seat = True            # the board waits for its entrant (boards.py)
        if keep_seat and t.status == "playing":
            t.turns.schedule()          # the timer now moves for them
            if s.guest and s.returns:
                self._hold_for_return(seat, s)
        elif t.status == "waiting":
            t.seats[seat] = Seat()
        elif t.status == "playing":
            t.runner.left(seat)
        t.runner.changed("seats")
        t.registry.gc_table(t)
