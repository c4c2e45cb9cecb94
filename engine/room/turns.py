"""A driven table's turns: the turn timer and the computer players' moves.

Part of a ``Table`` (``table.py``) at the process that drives it. ``schedule`` arranges
the next automatic move for whoever is to act — a computer player after its pause, or
the timer of a person's turn — and every change of the table bumps ``turn`` so that a
timer or a decision made for an older state drops out instead of moving.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from functools import partial

from . import bots
from .table import Part, Table

log = logging.getLogger("lamma.tables")


class Turns(Part):
    def __init__(self, table: Table):
        super().__init__(table)
        self.turn = 0                       # bumped on every change: stale timers drop out
        self.timer: tuple[float | None, int | None] = (None, None)   # the engine side's
        self.handle: asyncio.TimerHandle | None = None
        self.trick_pause = False            # the next automatic move waits for the trick
        self.thinking: asyncio.Task[None] | None = None
        self.thinking_for: tuple[int, int] | None = None    # (seat, turn) it decides

    def bump(self) -> None:
        """The table changed: what was scheduled or decided for before drops out."""
        self.turn += 1

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None
        self.timer = (None, None)

    def hold(self) -> None:
        """No computer player or timer moves here again (a decision on its way is
        dropped: the match stays between two moves)."""
        self.cancel()
        self.turn += 1
        self.timer_changed()

    def timer_changed(self) -> None:
        """The turn timer as it is now, shown after the writes before it."""
        self.table.registry.store.then(partial(self._show_timer, *self.timer))

    def _show_timer(self, deadline: float | None, seat: int | None) -> None:
        t = self.alive()
        if t is not None:
            t.deadline, t.deadline_seat = deadline, seat

    def schedule(self) -> None:
        """Arrange the next automatic move: a computer player, or the timer.

        Each runs in a new, empty context, not a copy of the one whose key press
        scheduled it: a session's, which would keep its Textual app alive as long as
        the table plays on."""
        t = self.table
        self.cancel()
        m = t.match
        if (m is None or t.status != "playing" or m.to_act is None or t.closed
                or t.holding()):
            self.timer_changed()
            return
        seat = m.to_act
        s = t.seats[seat]
        loop = asyncio.get_running_loop()
        reg = t.registry
        pause = reg.trick_pause if self.trick_pause else 0.0
        self.trick_pause = False
        if s.kind == "bot":
            delay = reg.bot_pause + pause
            self.handle = loop.call_later(delay, self._auto, seat, self.turn, "bot",
                                          context=contextvars.Context())
            self.timer_changed()
            return
        limit = t.timer or (reg.absent_timeout if s.member is None else 0)
        if t.event is not None:
            limit = 0                   # an event's board waits for its entrant
        carried = t.carried_deadline
        if carried is not None and (carried[1] != seat or carried[2] != len(m.log)):
            carried = t.carried_deadline = None     # that turn is over
        if carried is not None and t.timer:
            # Taken over from a driver that died: the turn keeps the deadline it had
            # (its people coming back through other processes do not restart it).
            limit, pause = max(0.0, carried[0] - time.time()), 0.0
        if limit:
            self.timer = (loop.time() + limit + pause, seat)
            self.handle = loop.call_later(limit + pause, self._auto, seat,
                                          self.turn, "timer", context=contextvars.Context())
        self.timer_changed()

    def _stale(self, seat: int, version: int) -> bool:
        t = self.alive()
        if t is None:
            return True
        m = t.match
        return (m is None or self.turn != version or m.to_act != seat
                or t.status != "playing" or t.holding())

    def _auto(self, seat: int, version: int, by: str) -> None:
        self.handle = None
        t = self.alive()
        if t is None:
            return
        m = t.match
        if m is None or self._stale(seat, version):
            return
        if t.registry.store.down:
            self._after_store_down()
            return
        if by == "bot" or bots.timer_needs_bot(m):
            # Think in the worker process; apply only if nothing moved meanwhile.
            level = t.seats[seat].level
            if by == "timer" and t.event is not None:
                return                  # (no timer runs at an event's board)
            thinking = self.thinking
            if (thinking is not None and not thinking.done()
                    and self.thinking_for == (seat, version)):
                return                  # this very decision is on its way already (the
                                        # turn was scheduled again: someone came back)
            task = asyncio.get_running_loop().create_task(
                self._auto_bot(seat, version, by, level), context=contextvars.Context())
            self.thinking = task
            self.thinking_for = (seat, version)
            return
        try:
            t.runner.apply(seat, bots.timeout_action(m, seat), by)
        except Exception:
            log.exception("automatic move failed at table %s", t.id)

    def _after_store_down(self) -> None:
        """A timer or a computer player's move while the database does not answer: it
        waits, and the turn starts again (a person's full time) once it answers."""
        t = self.table
        turn = self.turn

        def again() -> None:
            if not t.closed and self.turn == turn and t.status == "playing":
                self.schedule()
        t.registry.store.when_up(again)

    async def _auto_bot(self, seat: int, version: int, by: str, level: str) -> None:
        t = self.table
        try:
            if t.match is None:
                return
            ev = t.event
            if ev is not None:
                # Decided from the board and what has happened on it only: the same
                # replies for every entrant who plays alike (engine.duplicate).
                action = await bots.decide(t.match, seat, level,
                                           seed=ev.decision_seed(t.match.log),
                                           samples=ev.samples, owner=ev.entrant)
            else:
                action = await bots.decide(t.match, seat, level, owner=f"table {t.id}")
            if self._stale(seat, version):
                return
            if t.registry.store.down:
                self._after_store_down()
                return
            t.runner.apply(seat, action, by)
        except Exception:
            log.exception("automatic move failed at table %s", t.id)
