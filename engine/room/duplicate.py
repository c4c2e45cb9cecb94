"""Duplicate events in the room: the daily events and those people make, entering and
resuming an entry, a board after another, and who may see what of the results.

The rules are the engine's (``engine.duplicate``: the boards, the computer players'
determinism, matchpoints, the standings); a board is played at a table of its own
(``Table.event``, ``boards.py``), stored as any match, its result recorded with its
end (``TableLog.board_over``); the events, entries and results are kept by the store
(``store.EventStore``), shared by every process of a room on PostgreSQL.

Who may see what (no spoilers): the deals stay secret until the event closes (a board
is played at a table nobody else can sit at, watch or chat at, and its replay is not
listed); an entrant sees the others' scores, the standings' percentages and the board
by board comparison only once they have finished every board, or once the event has
closed; an operator sees everything.

Settings the room's configuration may set (``server.service.RoomConfig``) are
``EventSettings``' fields; their defaults are the module's constants.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, Protocol, TypedDict

from engine import GAMES, MatchRecord, replay
from engine.duplicate import (
    BOARDS,
    DAILY_BOARDS,
    BoardResult,
    Played,
    board_seed,
    common_bids,
    distribution,
    entrant_seat,
    percentages,
    plan,
    result_of,
    standings,
)

from .boards import EventBoard, entrant_of
from .catalogue import DEFAULT_LEVEL, parse_game, title
from .codes import code_matches, new_code, normalize_code
from .errors import N_, RoomError, Said
from .members import Member
from .store import BoardStarted, EventRow, EventStore, ResultRow
from .table import Room, Table

log = logging.getLogger("lamma.events")


class Boards(Room, Protocol):
    """What the events ask of the room (``registry.Registry``): what a table asks of
    it, and its tables and the boards' own tables."""

    tables: dict[str, Table]

    def board_allowed(self) -> None: ...
    def create_board(self, game: str, event: EventBoard, address: str = "") -> Table: ...
    def close_table(self, table: Table, reason: str) -> None: ...


DAY = 86400.0
DAILY_HOURS = 24.0          # a daily event is open from 00:00 UTC for this long
HOURS = (1, 72)             # how long an event people make may stay open, at least, most
SAMPLES = 256               # the computer players' samples per card at an event's board
PER_KEY = 3                 # open events one key may have made at once
PER_ROOM = 50               # open events made by people in the whole room
PER_ADDRESS = 10            # ... of which by the people of one address (issue 40)
CLAIM_STALE = 60.0          # a board claimed this long ago and never stored: dealt again
TICK = 30.0                 # seconds between looks for a new day and for closed events
KEEP_DAYS = 30              # events listed until this many days after they closed


@dataclass
class EventSettings:
    """The room's events: how many boards the daily events have and how long they stay
    open, the computer players' budget, the caps on events people make."""
    daily_boards: int = DAILY_BOARDS
    daily_hours: float = DAILY_HOURS
    daily_games: tuple[str, ...] = GAMES
    samples: int = SAMPLES
    per_key: int = PER_KEY
    per_room: int = PER_ROOM
    per_address: int = PER_ADDRESS


@dataclass
class Entered:
    """A board ``member`` sits at: a new one (``go`` deals it, once the front end has
    said where they sit) or one resumed where it was."""
    table: Table
    seat: int
    event: int
    board: int
    resumed: bool
    go: Callable[[], None] = field(default=lambda: None)


@dataclass
class BoardOver:
    """An entrant's board is over: its score (the side's beside it in Tarneeb 41) and
    what comes next: the next board, or the entry is done."""
    event: int
    board: int
    score: int
    side: int | None
    next: Entered | None


class EventListing(TypedDict):
    """An event as the listing shows it (``Events.row``): the JSON interface's too."""
    id: int
    name: str
    game: str
    boards: int
    opens: str                  # ISO 8601, UTC
    closes: str
    entries: int
    status: Literal["open", "closed"]
    you: str                    # "new", "playing" or "finished" (``Events.you``)
    private: NotRequired[bool]
    code: NotRequired[str | None]    # a private one's, to its maker and the operators


class Standing(TypedDict):
    """A line of an event's standings; before the member may see the others' scores,
    no rank (None) and no percentage."""
    rank: int | None
    name: str
    boards: int
    percent: NotRequired[float]


class BoardScore(TypedDict):
    """An entrant's result on one board, as the field's list shows it."""
    name: str
    seat: int
    score: int
    percent: float


@dataclass(frozen=True)
class MyBoard:
    """The member's own result on a board compared: what the rules gave the seat
    (its score, what was said and made) and its matchpoints' percentage."""
    result: BoardResult
    percent: float


@dataclass
class Comparison:
    """One board after an event, as a player may see it: their result and percentage,
    the field in their seat (scores and how many had each, what was said and how often
    it was made), and the records of their board and of the best one in their seat."""
    event: EventRow
    board: int
    seat: int
    results: list[BoardScore]
    mine: MyBoard | None
    scores: list[tuple[int, int]]
    bids: list[tuple[tuple[str, int, str | None], int, int]]
    my_record: MatchRecord | None
    best_record: MatchRecord | None
    best_name: str | None


def _result(row: ResultRow) -> BoardResult:
    """A stored result as the rules gave it (``BoardResult.facts`` read back: what is
    missing or damaged reads as nothing said)."""
    f = row.facts
    return BoardResult(row.score, f.get("side"), int(f.get("declared", 0)), bool(f.get("made")),
                       str(f.get("role", "")), f.get("call"), int(f.get("taken", 0)))


def iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def _number(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit() and len(value) < 12:
        return int(value)
    return None


class Events:
    """This process's side of the room's duplicate events (one per registry)."""

    def __init__(self, registry: Boards, settings: EventSettings | None = None,
                 clock: Callable[[], float] = time.time):
        self.registry = registry
        self.settings = settings or EventSettings()
        self.clock = clock
        self._handle: asyncio.TimerHandle | None = None
        self._daily_done: str | None = None       # the day whose daily events exist
        # (closes, address) of the events people made through this process: the cap
        # per address (issue 40).
        self._made_from: list[tuple[float, str]] = []

    @property
    def store(self) -> EventStore:
        return self.registry.store.events

    # ------------------------------------------------------------------ the clock
    def start(self) -> None:
        """Daily events made as each day begins, boards of closed events ended."""
        self.tick()

    def tick(self) -> None:
        self._handle = None
        try:
            self.ensure_daily()
            self.sweep()
        except Exception:
            log.exception("events: the periodic look failed")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._handle = loop.call_later(TICK, self.tick)

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def ensure_daily(self) -> None:
        """Today's daily event of each game (made once in the room: another process may
        have made it first)."""
        now = self.clock()
        day = time.strftime("%Y-%m-%d", time.gmtime(now))
        if self._daily_done == day:
            return
        opens = now - now % DAY
        s = self.settings
        for game in s.daily_games:
            self.store.create_event(EventRow(
                0, game, s.daily_boards, secrets.randbits(62), s.samples, opens,
                opens + s.daily_hours * 3600, daily=f"{game}:{day}"))
        self._daily_done = day

    def sweep(self) -> None:
        """The boards still in play here of events that have closed end (abandoned: a
        board not finished in time is not scored)."""
        now = self.clock()
        closed: dict[int, bool] = {}
        for table in list(self.registry.tables.values()):
            ev = table.event
            if ev is None or table.status != "playing" or table.replica is not None:
                continue
            if ev.event not in closed:
                row = self.store.event(ev.event)
                closed[ev.event] = row is None or row.closes <= now
            if closed[ev.event]:
                self.registry.close_table(table, Said(N_(
                    "Event {event} has closed: board {board} was not finished in time."),
                    event=ev.event, board=ev.board))

    # ------------------------------------------------------------------ reading
    def name(self, ev: EventRow) -> Said:
        """The event's name, said in each player's language."""
        if ev.daily is not None:
            return Said(N_("Daily {game} {date}"), game=title(ev.game),
                        date=ev.daily.partition(":")[2])
        if ev.creator_name:
            return Said(N_("{name}'s {game}"), name=ev.creator_name, game=title(ev.game))
        return Said(N_("{game} event {event}"), game=title(ev.game), event=ev.id)

    def is_open(self, ev: EventRow) -> bool:
        now = self.clock()
        return ev.opens <= now < ev.closes

    def _operator(self, member: Member | None) -> bool:
        return member is not None and self.registry.moderator.is_operator(member)

    def visible(self, member: Member | None, ev: EventRow) -> bool:
        """A public event to everyone; a private one to whoever gave its code (this
        session), made it or entered it, and to operators."""
        if not ev.private or self._operator(member):
            return True
        if member is None:
            return False
        entrant, _ranked = entrant_of(member.ident)
        return (f"event:{ev.id}" in member.unlocked or ev.creator == entrant
                or self.store.entry(ev.id, entrant) is not None)

    def progress(self, ev: EventRow, entrant: str) -> tuple[list[BoardStarted], int | None]:
        """The boards an entrant has been dealt, and the board they play next (the one in
        play, else the first not dealt yet; None: every board is finished)."""
        started = self.store.boards_started(ev.id, entrant)
        for b in started:
            if not b.finished:
                return started, b.board
        dealt = {b.board for b in started}
        nxt = next((k for k in range(1, ev.boards + 1) if k not in dealt), None)
        return started, nxt

    def finished(self, ev: EventRow, entrant: str) -> bool:
        """Every board of the event played to its end (distinct boards: a copy of one,
        from before boards were claimed, is not another)."""
        started = self.store.boards_started(ev.id, entrant)
        return (len({b.board for b in started}) >= ev.boards
                and all(b.finished for b in started))

    def may_see(self, member: Member, ev: EventRow) -> bool:
        """Others' scores and the comparisons: once the event has closed, once the
        member's entry has finished every board, or for an operator."""
        if self.clock() >= ev.closes or self._operator(member):
            return True
        entrant, _ranked = entrant_of(member.ident)
        return self.finished(ev, entrant)

    def you(self, member: Member, ev: EventRow) -> str:
        entrant, ranked = entrant_of(member.ident)
        started = self.store.boards_started(ev.id, entrant)
        if not started and (not ranked or self.store.entry(ev.id, entrant) is None):
            return "new"
        if len({b.board for b in started}) >= ev.boards and all(b.finished for b in started):
            return "finished"
        return "playing"

    def row(self, member: Member, ev: EventRow) -> EventListing:
        """The event as the listing shows it."""
        out: EventListing = {
            "id": ev.id, "name": str(self.name(ev)), "game": ev.game, "boards": ev.boards,
            "opens": iso(ev.opens), "closes": iso(ev.closes),
            "entries": len(self.store.entries(ev.id)),
            "status": "open" if self.is_open(ev) else "closed",
            "you": self.you(member, ev)}
        if ev.private:
            out["private"] = True
            entrant, _ranked = entrant_of(member.ident)
            if ev.creator == entrant or self._operator(member):
                out["code"] = ev.code
        return out

    def listing(self, member: Member) -> list[EventListing]:
        """Every event ``member`` may see (``rows``), as the JSON interface lists it."""
        return [row for _ev, row in self.rows(member)]

    def rows(self, member: Member) -> list[tuple[EventRow, EventListing]]:
        """Every event ``member`` may see, with its listing's row: open ones first (the
        soonest to close first), then those closed lately (the latest first)."""
        self.ensure_daily()
        now = self.clock()
        found = [e for e in self.store.events(now - KEEP_DAYS * DAY)
                 if e.opens <= now and self.visible(member, e)]
        found.sort(key=lambda e: (e.closes <= now, e.closes if e.closes > now else -e.closes,
                                  e.id))
        return [(e, self.row(member, e)) for e in found]

    def named(self, member: Member, event: object = None, code: object = None) -> EventRow:
        """The event a member names by id or by code; RoomError if there is none they
        may see (a private one by its id only once its code was given)."""
        if event is None and code is not None:
            member.code_guard.check()
            typed = normalize_code(code)
            ev = self.store.event_with_code(typed) if typed is not None else None
            if ev is None or not code_matches(ev.code, code):
                raise member.code_guard.failed(N_("No event has that code. Check it with "
                                                  "whoever gave it to you."))
            member.unlocked.add(f"event:{ev.id}")
            return ev
        eid = _number(event)
        found = self.store.event(eid) if eid is not None else None
        if found is None or found.opens > self.clock():
            raise RoomError("No event {event}.", event=str(event)[:20])
        if not self.visible(member, found):
            if code is None:
                raise RoomError("Event {event} is private: its code is needed.",
                                event=found.id)
            member.code_guard.check()
            if not code_matches(found.code, code):
                raise member.code_guard.failed(N_("No event {event} with that code."),
                                               event=found.id)
            member.unlocked.add(f"event:{found.id}")
        return found

    def _played(self, ev: EventRow) -> tuple[list[ResultRow], list[Played]]:
        rows = self.store.results(ev.id)
        return rows, [Played(r.entrant, r.board, r.seat, r.score) for r in rows]

    def _names(self, ev: EventRow) -> dict[str, str]:
        return {e.entrant: e.name for e in self.store.entries(ev.id)}

    def standings(self, member: Member, event: object) -> tuple[EventRow, list[Standing]]:
        """The standings: rank, name, percentage, boards played. Before the member may
        see the others' scores: names and boards played only (no rank, no percentage)."""
        ev = self.named(member, event)
        _rows, played = self._played(ev)
        names = self._names(ev)
        if not self.may_see(member, ev):
            count: dict[str, int] = {e: 0 for e in names}
            for p in played:
                count[p.entrant] = count.get(p.entrant, 0) + 1
            order = sorted(count, key=lambda e: (-count[e], names.get(e, "").casefold()))
            return ev, [{"rank": None, "name": names.get(e, "?"), "boards": count[e]}
                        for e in order]
        return ev, [{"rank": st.rank, "name": names.get(st.entrant, "?"),
                     "percent": st.percent, "boards": st.boards}
                    for st in standings(ev.boards, played)]

    def _board_no(self, ev: EventRow, board: object) -> int:
        k = _number(board)
        if k is None or not 1 <= k <= ev.boards:
            raise RoomError("Event {event} has boards 1 to {boards}.", event=ev.id,
                            boards=ev.boards)
        return k

    def board(self, member: Member, event: object, board: object
              ) -> tuple[EventRow, int, list[BoardScore]]:
        """Everyone's result on one board (name, seat, score, percentage), best first;
        RoomError saying why not while the member may not see it."""
        ev = self.named(member, event)
        k = self._board_no(ev, board)
        self.check_may_see(member, ev)
        rows, played = self._played(ev)
        pct = percentages(played)
        names = self._names(ev)
        mine = [r for r in rows if r.board == k]
        mine.sort(key=lambda r: (-r.score, names.get(r.entrant, r.name).casefold()))
        return ev, k, [{"name": names.get(r.entrant, r.name), "seat": r.seat,
                        "score": r.score, "percent": round(pct[(r.entrant, k)], 2)}
                       for r in mine]

    def check_may_see(self, member: Member, ev: EventRow) -> None:
        if self.may_see(member, ev):
            return
        entrant, ranked = entrant_of(member.ident)
        if not ranked and not self.store.boards_started(ev.id, entrant):
            raise RoomError("The results of event {event} are shown once it closes, or to "
                            "those who have played every board.", event=ev.id)
        raise RoomError("Finish every board of event {event} first: the others' results "
                        "are shown once you have (or once it closes).", event=ev.id)

    def comparison(self, member: Member, event: object, board: object) -> Comparison:
        """One board compared (``Comparison``), for the screens."""
        ev, k, results = self.board(member, event, board)
        rows = [r for r in self.store.results(ev.id) if r.board == k]
        entrant, _ranked = entrant_of(member.ident)
        own = next((r for r in rows if r.entrant == entrant), None)
        seat = own.seat if own is not None else entrant_seat(ev.game, ev.boards, k)
        field_rows = [r for r in rows if r.seat == seat]
        mine: MyBoard | None = None
        if own is not None:
            pct = percentages([Played(r.entrant, r.board, r.seat, r.score) for r in rows])
            mine = MyBoard(_result(own), round(pct[(entrant, k)], 2))
        said = [_result(r) for r in field_rows]
        # The best board in the seat beside one's own: another entrant's (the first of
        # them to play it, on a tie), one's own only when nobody else played it.
        others = [r for r in field_rows if r is not own] or field_rows
        best = max(others, key=lambda r: (r.score, -r.board, -(r.match_id or 0)),
                   default=None)
        names = self._names(ev)
        return Comparison(ev, k, seat, results, mine,
                          distribution(r.score for r in field_rows), common_bids(said),
                          self._record(own), self._record(best),
                          names.get(best.entrant, best.name) if best is not None else None)

    def _record(self, row: ResultRow | None) -> MatchRecord | None:
        if row is None:
            return None
        if row.match_id is None:
            kept = row.facts.get("record")      # a board kept in memory only (a guest's)
            return kept if isinstance(kept, dict) else None
        records = self.registry.records
        stored = records.match(row.match_id) if records is not None else None
        return stored.record if stored is not None else None

    # ------------------------------------------------------------------ making
    def create(self, member: Member, game: object, boards: object, hours: object,
               private: object = False) -> EventRow:
        """An event a person makes for friends (RoomError, and nothing made, if not)."""
        if member.guest:
            raise RoomError("Guests cannot make events: connect with an SSH key.")
        entrant, _ranked = entrant_of(member.ident)
        ev = self._new(game, boards, hours, private, entrant, member.name)
        s = self.settings
        mine = self.store.open_events(self.clock(), entrant)
        if mine >= s.per_key:
            raise RoomError("You have {mine} open events (at most {cap}); wait until one "
                            "closes.", mine=mine, cap=s.per_key)
        if self.store.open_events(self.clock(), None) >= s.per_room:
            raise RoomError("The room has as many open events as it holds; try again "
                            "later.")
        now = self.clock()
        where = member.address
        if where:
            # Who made which event from where is this process's memory (a restart
            # forgets it; the per-key and per-room caps are the store's).
            self._made_from = [(c, a) for c, a in self._made_from if c > now]
            if sum(1 for _, a in self._made_from if a == where) >= s.per_address:
                raise RoomError("Your address has {cap} open events already (a share of "
                                "the room's); wait until one closes.", cap=s.per_address)
        made = self.store.create_event(ev)
        assert made is not None
        if where:
            self._made_from.append((made.closes, where))
        if made.private:
            member.unlocked.add(f"event:{made.id}")
        return made

    def make(self, game: object, boards: object, hours: object, private: object = False
             ) -> EventRow:
        """An operator's event (no cap; the room's, not a key's)."""
        made = self.store.create_event(self._new(game, boards, hours, private, None, None))
        assert made is not None
        return made

    def _new(self, game: object, boards: object, hours: object, private: object,
             creator: str | None, creator_name: str | None) -> EventRow:
        game = parse_game(game)
        if isinstance(boards, bool) or not isinstance(boards, int) \
                or not BOARDS[0] <= boards <= BOARDS[1]:
            raise RoomError("An event has {least} to {most} boards.", least=BOARDS[0],
                            most=BOARDS[1])
        if isinstance(hours, bool) or not isinstance(hours, (int, float)) \
                or not HOURS[0] <= hours <= HOURS[1]:
            raise RoomError("An event stays open {least} to {most} hours.", least=HOURS[0],
                            most=HOURS[1])
        if not isinstance(private, bool):
            raise RoomError("\"private\" is true or false.")
        now = self.clock()
        code = None
        if private:
            code = new_code()
            while self.store.event_with_code(code) is not None:
                code = new_code()
        return EventRow(0, game, boards, secrets.randbits(62), self.settings.samples, now,
                        now + float(hours) * 3600, private, code, creator, creator_name)

    def close_event(self, event: object) -> EventRow:
        """An operator closes an event now: its boards in play end (here at once, on the
        room's other processes at their next look)."""
        eid = _number(event)
        ev = self.store.event(eid) if eid is not None else None
        if ev is None:
            raise RoomError("No event {event}.", event=str(event)[:20])
        if not self.store.close_event(ev.id, self.clock()):
            raise RoomError("Event {event} is closed already.", event=ev.id)
        self.sweep()
        return ev

    # ------------------------------------------------------------------ playing
    def enter(self, member: Member, event: object = None, code: object = None) -> Entered:
        """``member`` enters an event, or comes back to their entry: the board in play
        where it was, else the next board. RoomError (nothing changes) if the event is
        unknown or closed, or the entry has played every board."""
        ev = self.named(member, event, code)
        if not self.is_open(ev):
            raise RoomError("Event {event} is closed.", event=ev.id)
        entrant, ranked = entrant_of(member.ident)
        table = member.table
        if table is not None and table.event is not None and table.event.event == ev.id \
                and member.seat is not None:
            return Entered(table, member.seat, ev.id, table.event.board, True)
        if table is not None and member.seat is not None and table.status == "playing":
            raise RoomError("You are playing at table {table}; leave it first.",
                            table=table.id)
        started, nxt = self.progress(ev, entrant)
        if nxt is None:
            raise RoomError("You have played every board of event {event}: one entry per "
                            "player.", event=ev.id)
        here = self._table_of(ev, entrant, nxt)
        in_play = next((b for b in started if b.board == nxt and not b.finished), None)
        if here is not None:
            return self._resume(member, here, ev)
        if in_play is not None:
            raise RoomError("Your board {board} of event {event} is being brought back; "
                            "try again in a moment.", board=nxt, event=ev.id)
        self.registry.board_allowed()          # before the entry is written
        if ranked and self.store.entry(ev.id, entrant) is None:
            self.store.add_entry(ev.id, entrant, member.name, self.clock())
        return self._deal(member, ev, entrant, ranked, nxt)

    def _table_of(self, ev: EventRow, entrant: str, board: int) -> Table | None:
        """The table where ``entrant`` plays ``board`` of ``ev`` (this process's, or
        another's of the room)."""
        side = self.registry.side
        tables = list(self.registry.tables.values())
        if side is not None:
            tables += side.shown_tables()
        for t in tables:
            e = t.event
            if e is None or e.event != ev.id or e.board != board or t.status != "playing":
                continue
            if any(s.kind == "human" and s.ident is not None
                   and entrant_of(s.ident)[0] == entrant for s in t.seats):
                return t
        return None

    def _resume(self, member: Member, table: Table, ev: EventRow) -> Entered:
        held = next((i for i, s in enumerate(table.seats) if s.held_by(member)), None)
        assert table.event is not None
        if held is None:
            other = next((s.name for s in table.seats if s.kind == "human"), "?")
            raise RoomError("Board {board} of event {event} is in play under your other "
                            "name {name}: come back as {name} to finish it.",
                            board=table.event.board, event=ev.id, name=other)
        seat = table.sit(member, held)
        return Entered(table, seat, ev.id, table.event.board, True)

    def _deal(self, member: Member, ev: EventRow, entrant: str, ranked: bool,
              k: int) -> Entered:
        """Board ``k`` at a new table: the entrant in their seat, computer players in the
        others, dealt once the front end has said where they sit (``Entered.go``)."""
        reg = self.registry
        reg.board_allowed()
        # One entry, one deal (issue 41): the board is claimed in the store first, so
        # that two processes entering for one key at once deal it once. In a room of one
        # process a claim never stored is its own previous run's (killed as it dealt):
        # dealt again at once.
        stale = CLAIM_STALE if reg.side is not None else 0.0
        if not self.store.claim_board(ev.id, entrant, k, self.clock(), stale):
            # Claimed by another session of the key (through any process), its match not
            # stored yet: that deal is the entry's; this session is not shown another.
            raise RoomError("Your board {board} of event {event} is already being played "
                            "in another session; try again in a moment.", board=k,
                            event=ev.id)
        table = reg.create_board(ev.game, EventBoard(
            ev.id, k, ev.boards, plan(ev.game, ev.boards, k), board_seed(ev.seed, k),
            ev.samples, entrant, ranked), member.address)
        seat = entrant_seat(ev.game, ev.boards, k)
        try:
            table.sit(member, seat)
        except RoomError:
            reg.gc_table(table)
            raise

        def go() -> None:
            # Computer players in the other seats, unchecked (the room's own doing):
            # the table's seating says so to everyone and starts the match.
            table.seating.fill(list(range(4)), DEFAULT_LEVEL)
        return Entered(table, seat, ev.id, k, False, go)

    def board_over(self, member: Member, table: Table) -> BoardOver | None:
        """The member's board is shown over: they leave it, and the next board is dealt
        (``BoardOver.next``: ``go`` it once said), unless the entry is done or the
        event closed. None if this is no board of theirs that is over."""
        ev_board = table.event
        seat = member.seat
        if ev_board is None or member.table is not table or seat is None \
                or table.shown_status != "over":
            return None
        view = table.view_of(member)
        if view is None or not view.get("history"):
            return None
        result = result_of(view["history"], seat)
        table.detach(member, keep_seat=False)
        ev = self.store.event(ev_board.event)
        nxt: Entered | None = None
        if ev is not None and self.is_open(ev):
            entrant, ranked = entrant_of(member.ident)
            started, k = self.progress(ev, entrant)
            if k == ev_board.board:         # its end not read back yet: the one after
                dealt = {b.board for b in started} | {k}
                k = next((b for b in range(1, ev.boards + 1) if b not in dealt), None)
            if k is not None:
                try:
                    nxt = self._deal(member, ev, entrant, ranked, k)
                except RoomError as exc:
                    member.notice(Said(exc.template, **exc.params))
        return BoardOver(ev_board.event, ev_board.board, result.score, result.side, nxt)

    def replay_of(self, record: MatchRecord | None) -> Any:
        """A board's match rebuilt from its record (None: none kept)."""
        return replay(record) if record is not None else None


__all__ = ["BoardOver", "BoardScore", "Comparison", "Entered", "EventListing", "EventSettings",
           "Events", "MyBoard", "Standing", "iso"]
