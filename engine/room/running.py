"""A driven table's match runner: actions in, stored, then shown.

Part of a ``Table`` (``table.py``) at the process that drives it. An action is checked
by the engine (``Match.canonical``), applied, submitted to the store, and what it
changes — every seat's view, the narration, the member callbacks, the lobby's row — is
gathered into a frame that ``publish`` shows once every write before it is committed
(at once with ``NullStore``). The engine's state runs ahead of the shown one meanwhile,
so the next action, timers and computer players work from it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from engine import Action, IllegalAction, Match, View, new_match, round_began
from engine.duplicate import board_result

from .boards import EventBoard
from .catalogue import DEFAULT_LEVEL
from .errors import N_, RoomError, Said, quoted
from .narration import Event, describe, match_over, round_text
from .seating import Seating
from .seats import handed_on
from .stats import STATS
from .store import FinishedBoard, MatchRef, Points, TableSettings
from .table import Part, Room, Seat, Table, What
from .turns import Turns

log = logging.getLogger("lamma.tables")


class Frame(NamedTuple):
    """What one publish shows, once the writes before it are committed."""
    what: What
    views: dict[int | None, View] | None      # None: the views did not change
    news: list[Event]
    calls: list[Callable[[], None]]           # member callbacks (seat granted, …)
    status: str
    accepted_at: float | None
    lobby: bool


class Runner(Part):
    def __init__(self, table: Table):
        super().__init__(table)
        # Not shown yet: narration and member callbacks for the next publish.
        self.news: list[Event] = []
        self.calls: list[Callable[[], None]] = []
        self.moved = False                  # the engine changed since the views were taken
        self.accepted: float | None = None  # when the newest action not shown was accepted
        self.lobby_due = False              # the lobby's row changes with the next publish
        self.round_log: int | None = None   # len(match.log) when this round began
        self.public: View | None = None     # the public view after the last action

    # ------------------------------------------------------------ the match
    def resume(self, match: Match, match_id: int, settings: TableSettings,
               stored_seats: list[str | None], counts_for_points: bool) -> None:
        """A stored unfinished match, playing again after a restart (``persistence``)."""
        t = self.table
        t.code = settings.get("code")
        if settings.get("event") is not None:
            t.event = EventBoard.from_settings(t.game, settings["event"])
            counts_for_points = False
        for i, info in enumerate(settings.get("seats", [])):
            if stored_seats[i] is None and info.get("kind") == "human":
                # Stored before seat settings were kept on every change: a computer
                # player replaced this person since the start (Tarneeb leave, T-26).
                t.seats[i] = Seat.computer(i, info.get("level", DEFAULT_LEVEL),
                                           replaced=info.get("name"))
                continue
            t.seats[i] = Seat.from_settings(info)
        t.match = match
        t.match_ref = MatchRef(match_id)
        t.status = t.shown_status = "playing"
        t.counts_for_points = counts_for_points
        t.practice = bool(settings.get("practice"))
        if t.practice:
            t.counts_for_points = False
        # Between rounds (nobody has acted in the round yet) as before the restart: a
        # computer player's seat is then taken at once, not at the round's end.
        self.round_log = round_began(match) if match.result is None else None
        t.views = self.snapshot()       # stored already: shown at once

    def start_when_ready(self) -> None:
        """Starts the match if every seat is taken (an event's board once its computer
        players sit)."""
        t = self.table
        if t.status == "waiting" and all(s.kind != "empty" for s in t.seats):
            ev = t.event
            t.match = new_match(t.game, length=t.length,
                                seed=ev.seed if ev is not None else t.seed,
                                deals=None if ev is not None else t.deals,
                                board=ev.spec if ev is not None else None)
            t.status = "playing"
            self.round_log = 0
            self.public = None
            t.registry.store.match_started(t)
            self.news.append(Event(None, None, Said(N_("The match begins"))))
            t.turns.bump()
            self.moved = self.lobby_due = True
            t.turns.schedule()
            self.publish("state")

    def between_rounds(self) -> bool:
        """Waiting, or no action taken yet in the round being played."""
        t = self.table
        if t.status == "waiting":
            return True
        return (t.status == "playing" and t.match is not None
                and self.round_log is not None and len(t.match.log) == self.round_log)

    def holding(self) -> bool:
        """A clean restart is under way and this table's trick is over (or it is not
        in a trick): it holds as it is, stored, until the room stops — nobody leads
        a new trick, no computer player or timer moves (``Registry.draining``)."""
        t = self.table
        if not t.registry.draining:
            return False
        m = t.match
        if m is None or t.status != "playing":
            return True
        view = self.public if self.public is not None else m.view(None)
        return not view.get("trick")

    def check_and_apply(self, seat: int, action: object, by: str) -> None:
        self.apply(seat, self.check(seat, action), by)

    def check(self, seat: int, action: object) -> Action:
        """``action`` as the rules write it, if ``seat`` may take it now; else the
        RoomError that says why (nothing changes either way)."""
        t = self.table
        if self.holding():
            raise RoomError("The room is about to restart: this table waits as it is "
                            "until then, and goes on after it.")
        if t.registry.store.down:
            # It could not be stored, so it is not accepted (nothing is shown unstored).
            raise RoomError("The room cannot store moves just now (its database does not "
                            "answer); nothing was played. Try again in a moment.")
        m = t.match
        if m is None or t.status != "playing":
            if t.status == "waiting":
                raise RoomError("The match has not started.")
            raise RoomError("The match is over.")
        if m.to_act != seat:
            raise RoomError("It is not your turn.")
        if not isinstance(action, dict):
            raise RoomError("That is not an action: an action has a type (pass, bid, play …).")
        canon = m.canonical(seat, action)
        if canon is None:
            # The rules' reason (said in the player's language on a screen), not only
            # the action refused: a program learns why as a person does.
            why = m.refusal(seat, action)
            raise RoomError("Illegal action {action}: {reason}.", action=quoted(action),
                            reason=Said(why.template, **why.params))
        return canon

    def apply(self, seat: int, action: Action, by: str) -> None:
        t = self.table
        m = t.match
        assert m is not None
        before_hist = len(m.history)
        # The public view after the previous action is the one before this one.
        before = self.public if self.public is not None else m.view(None)
        rnd = before.get("round")
        before_trick = len(before["tricks"])
        try:
            m.apply(seat, dict(action))
        except IllegalAction as exc:
            raise RoomError(exc.template, **exc.params) from None
        self.accepted = time.monotonic()
        STATS.moves.inc()
        self.moved = True
        t.registry.store.action(t, seat, action)
        t.turns.bump()
        self.news.append(Event(seat, action, describe(t.seats[seat].label, action, by), rnd))
        view = self.public = m.view(None)
        if len(m.history) > before_hist:
            rec = m.history[-1]
            self.news.append(Event(None, None, round_text(t.labels(), rec),
                                   view.get("round")))
            t.turns.trick_pause = True
            self.lobby_due = True
            if m.result is None and m.to_act is not None:
                self.round_log = len(m.log)
                t.seating.round_ended()
        elif len(view["tricks"]) > before_trick:
            w = view["tricks"][-1]["winner"]
            self.news.append(Event(w, None, Said(N_("{who} takes the trick"),
                                                 who=t.seats[w].label), rnd))
            t.turns.trick_pause = True
        if m.to_act is None or m.result is not None:
            self.finish()
        else:
            t.turns.schedule()
        self.publish("state")

    def left(self, seat: int) -> None:
        """The person in ``seat`` left a match being played (E-37: the leave is part of
        the record; in Tarneeb a computer player takes the seat)."""
        t = self.table
        assert t.match is not None
        s = t.seats[seat]
        self.news.append(Event(seat, None, Said(N_("{who} left the table"), who=s.label)))
        before = len(t.match.log)
        self.public = None
        t.match.leave(seat)
        self.moved = True
        if len(t.match.log) > before:
            t.registry.store.action(t, seat, t.match.log[-1][1])
        # A new turn before the next is scheduled: a timer or a computer player's move
        # set going below is for this state, not dropped as an older one's.
        t.turns.bump()
        if t.match.to_act is None or t.match.result is not None:
            self.finish()
        else:
            t.seats[seat] = handed_on(t, s, Seat.computer(seat, replaced=s.name))
            t.counts_for_points = False
            t.registry.store.seats_changed(t)
            t.turns.schedule()
        self.publish("state")

    def finish(self) -> None:
        t = self.table
        t.turns.cancel()
        t.turns.timer_changed()
        if t.takeovers:
            t.seating.drop_all_requests(Said(N_("The match at table {table} ended before "
                                                "the seat came free."), table=t.id))
        if t.status == "over":
            return
        t.status = "over"
        res = t.match.result if t.match is not None else None
        ev = t.event
        if ev is not None and t.match is not None:
            # A board pays no level points: its result is the entrant's score.
            seat = next((i for i, s in enumerate(t.seats) if s.kind == "human"), 0)
            result = board_result(t.match, seat)
            self.news.append(Event(None, None, Said(
                N_("Board {board} over: {score} points"), board=ev.board,
                score=result.score)))
            assert res is not None
            t.registry.store.board_over(t, FinishedBoard(
                ev.event, ev.board, ev.entrant, ev.ranked, t.seats[seat].name or "",
                seat, result, res, len(t.match.history), t.match.to_dict()))
            self.lobby_due = True
            return
        winners = [t.seats[w].label for w in (res["winners"] if res else [])]
        self.news.append(Event(None, None, match_over(winners, bool(res and res.get("draw")))))
        t.registry.store.match_over(t, self._paid)
        self.lobby_due = True

    def _paid(self, points: Points | None) -> None:
        """The store committed the result: what it paid (shown with the match's end)."""
        t = self.alive()
        if t is not None:
            t.points = points

    # ------------------------------------------------------------ showing
    def changed(self, what: What) -> None:
        """Something of ``what`` changed here that its members and the lobby must see."""
        self.lobby_due = True
        self.publish(what)

    def snapshot(self) -> dict[int | None, View]:
        """Every seat's view and a watcher's, of the engine's state now."""
        m = self.table.match
        assert m is not None
        pub = self.public if self.public is not None else m.view(None)
        views: dict[int | None, View] = {None: pub}
        for seat in range(4):
            views[seat] = m.view(seat)
        return views

    def publish(self, what: What) -> None:
        """Show the changes made since the last publish (views taken now, narration,
        member callbacks) once every write submitted before is committed."""
        t = self.table
        views = None
        if self.moved and t.match is not None:
            views = self.snapshot()
            self.moved = False
        frame = Frame(what, views, self.news, self.calls, t.status, self.accepted,
                      self.lobby_due)
        self.news, self.calls, self.accepted, self.lobby_due = [], [], None, False
        t.registry.store.then(lambda: self._show(frame))

    def _show(self, f: Frame) -> None:
        """The frame's writes are committed: members may see it now."""
        t = self.alive()
        if t is None:
            return          # its members were told "closed" already
        if f.views is not None:
            t.views = f.views
        t.events.extend(f.news)
        t.shown_status = f.status
        if f.accepted_at is not None:
            t.accepted_at = f.accepted_at
        if f.views is not None or f.what == "state":
            t.version += 1
        for call in f.calls:
            try:
                call()
            except Exception:
                log.exception("notifying a member at table %s failed", t.id)
        t.notify(f.what)
        if f.lobby:
            t.registry.lobby_changed()


def new_table(registry: Room, tid: str, game: str, length: Any, timer: int = 0,
              private: bool = False) -> Table:
    """A table with its driving parts: the match runner, its seating and its turns (a
    table another process drives keeps them idle: its ``replica`` stands for them)."""
    table = Table(registry, tid, game, length, timer, private)
    table.runner = Runner(table)
    table.seating = Seating(table)
    table.turns = Turns(table)
    return table
