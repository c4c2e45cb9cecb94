"""The typed store interfaces: what the room and the screens need of the store, by
what it keeps — ``IdentityStore`` (names and keys), ``MatchStore`` (matches and their
action log), ``Records`` (what screens read: settings, profiles, the leaderboard,
replays), ``ModerationStore`` (bans, the operators' log, reports), ``EventStore``
(duplicate events, their entries and each board's result), ``BrowserLinkStore``
(browsers linked to a name, server/web) and ``BrowserLinks`` (what screens may do
about them).

``server.store.Store`` (SQLite or PostgreSQL) implements them all on one database;
``server.persistence.TableStore`` turns a table's events into its calls (``table.TableLog``).
``NullStore`` keeps nothing (tests, and a room without a database).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, NotRequired, Protocol, TypedDict

from engine import Length, Match, MatchRecord, Result
from engine.duplicate import BoardResult
from engine.records import SeatRecord, match_record

from .boards import EventBoard, EventBoardSettings
from .people import Person

if TYPE_CHECKING:
    from engine.bots.review import RoundReview


class Paid(TypedDict):
    """What a finished match paid one seat: its level points and a new badge, if any."""
    points: int
    badge: str | None


Points = dict[int, Paid]                # by seat: what ``finish_match`` paid


SeatKind = Literal["empty", "human", "bot"]


class SeatSettings(TypedDict):
    """A seat as a table's settings keep it (``Seat.settings``): enough to seat the
    same holder again after a restart."""
    kind: SeatKind
    name: str | None
    ident: str | None
    guest: bool
    level: str              # a computer player's level
    replaced: str | None    # the person a computer player replaced
    connected: NotRequired[bool]    # only in a table's frame (frames.py)
    # Who held the seat earlier in the match, once it changed hands: [round, label]
    # pairs, the round the next holder began (absent in what was stored before)
    before: NotRequired[list[list[Any]]]


def held_before(info: Mapping[str, Any]) -> tuple[tuple[int, str], ...]:
    """A seat's earlier holders as its settings keep them (``Seat.before``): none where
    the settings say nothing (stored before they were kept) or nothing sound."""
    pairs = info.get("before")
    if not isinstance(pairs, list):
        return ()
    # a row another process wrote is read as any input: the last HELD_BEFORE, labels cut
    return tuple((r, label[:LABEL_MAX]) for r, label in (
        p for p in pairs[-HELD_BEFORE:] if isinstance(p, list) and len(p) == 2)
        if isinstance(r, int) and not isinstance(r, bool) and isinstance(label, str))


HELD_BEFORE = 64        # earlier holders a seat remembers (a summary names a round's)
LABEL_MAX = 40


class TableSettings(TypedDict):
    """What a restart needs of a table besides its match's log (``stored.table_settings``):
    the timer, visibility, who holds each seat, at an event's board its event, and
    whether it is practice."""
    timer: int
    private: bool
    code: str | None
    seats: list[SeatSettings]
    event: NotRequired[EventBoardSettings]
    practice: NotRequired[bool]


@dataclass
class StoredMatch:
    id: int
    table_id: str
    record: MatchRecord          # as ``Match.to_dict`` made it, for ``engine.replay``
    seats: list[str | None]      # per seat: a player name ("guest:NAME"), None: computer
    settings: TableSettings
    humans_throughout: bool
    finished: bool = False       # its result is recorded (or it was abandoned)


@dataclass(frozen=True)
class FinishedMatch:
    """What the store records of a match that is over: its result, how many rounds it
    had, and what each seat is paid (``engine.records.match_record``)."""
    game: str
    result: Result
    rounds: int
    records: dict[int, SeatRecord]
    practice: bool = False       # a practice table's: no statistics, nothing paid


def finished(match: Match, people_throughout: bool, practice: bool = False) -> FinishedMatch:
    """``match``, over, as the store records it: what it pays is the rules'."""
    assert match.result is not None
    return FinishedMatch(match.game, match.result, len(match.history),
                         match_record(match, people_throughout=people_throughout
                                      and not practice), practice)


def people_throughout(stored: StoredMatch) -> bool:
    """Were the stored match's four seats held by people from the first deal on?"""
    return stored.humans_throughout and all(s is not None for s in stored.seats)


# ---------------------------------------------------------------- duplicate events

@dataclass(frozen=True)
class EventRow:
    """A duplicate event as kept: ``seed`` (secret until it closes) gives every board's
    deal; ``samples``, its computer players' budget (the same for every entrant);
    ``creator`` the key that made it (None: the room's daily event or an operator's);
    ``daily``, the daily event's key (``estimation:2024-05-01``)."""
    id: int
    game: str
    boards: int
    seed: int
    samples: int
    opens: float
    closes: float
    private: bool = False
    code: str | None = None
    creator: str | None = None
    creator_name: str | None = None
    daily: str | None = None


@dataclass(frozen=True)
class EntryRow:
    event: int
    entrant: str            # a key's fingerprint (every name of the key shares it)
    name: str               # the name it was entered under, as shown in the standings
    started: float


class KeptFacts(TypedDict, total=False):
    """A result's ``BoardResult.facts`` as kept, read back (what is missing or damaged
    reads as nothing said: ``duplicate._result``); a board kept in memory only (a
    guest's) with its match's record."""
    side: int | None
    declared: int
    made: bool
    role: str
    call: str | None
    taken: int
    record: MatchRecord


@dataclass(frozen=True)
class ResultRow:
    """One entrant's finished board: the rules' score for the seat and what was said
    (``BoardResult.facts``); ``match_id``, the board's stored match (its replay)."""
    event: int
    entrant: str
    name: str
    board: int
    seat: int
    score: int
    facts: KeptFacts
    match_id: int | None


@dataclass(frozen=True)
class BoardStarted:
    """A board an entrant has been dealt: ``table_id`` while it is played, ``finished``
    once over (or abandoned when its event closed)."""
    board: int
    table_id: str
    match_id: int | None
    finished: bool


@dataclass(frozen=True)
class FinishedBoard:
    """What the store records of a board that is over: its match as finished, and the
    entrant's result (not ``ranked``: a guest's board, kept nowhere)."""
    event: int
    board: int
    entrant: str
    ranked: bool
    name: str
    seat: int
    result: BoardResult
    match_result: Result
    rounds: int
    record: MatchRecord             # the match's (``Match.to_dict``): its replay


class EventStore(Protocol):
    """Duplicate events, their entries and results (``engine.room.duplicate``); a
    board's result is written with its match's end (``BoardLog.board_over``), once."""

    def create_event(self, event: EventRow) -> EventRow | None:
        """The event with its id (``event.id`` is not read); None if it is a daily
        event made already (by another process of the room)."""

    def event(self, event_id: int) -> EventRow | None: ...

    def events(self, since: float) -> list[EventRow]:
        """Every event that closes at or after ``since``, oldest first."""

    def event_with_code(self, code: str) -> EventRow | None: ...

    def close_event(self, event_id: int, at: float) -> bool:
        """Closes it now (an operator); False if it was closed already."""

    def open_events(self, now: float, creator: str | None) -> int:
        """How many events made by people are open (``creator``: made by that key)."""

    def add_entry(self, event_id: int, entrant: str, name: str, at: float) -> bool:
        """False if the entrant has an entry already (nothing is written)."""

    def entry(self, event_id: int, entrant: str) -> EntryRow | None: ...

    def entries(self, event_id: int) -> list[EntryRow]: ...

    def entered(self, entrant: str) -> dict[int, int]:
        """event id → boards finished, for every event the entrant has entered."""

    def results(self, event_id: int) -> list[ResultRow]: ...

    def boards_started(self, event_id: int, entrant: str) -> list[BoardStarted]: ...

    def claim_board(self, event_id: int, entrant: str, board: int, at: float,
                    stale: float) -> bool:
        """Claims board ``board`` of an entry before it is dealt: True for the one call
        that may deal it (across every process of the room); a claim older than
        ``stale`` seconds whose match was never stored may be claimed again."""


class StoreUnavailable(RuntimeError):
    """The database is not answering (its connection is lost, its disk is full or
    locked): nothing was written, and the same call may succeed later (a store's
    ``reconnect``)."""


class LeaseLost(RuntimeError):
    """Another process drives this table now (one room across processes,
    ``server.cluster``): the write was not made, and this process must stop playing it."""


class MatchStore(Protocol):
    """Matches as they are played: every call returns once the write is durable.

    ``epoch``: the turn at driving the match's table that the writing table object was
    given (``Table.epoch``; a room across processes): a write of an older turn is not
    made (``LeaseLost`` for an action). None: a room of one process, not fenced."""

    def create_match(self, table_id: str, record: MatchRecord, seats: list[str | None],
                     settings: TableSettings) -> int: ...

    def append_action(self, match_id: int, seq: int, seat: int,
                      action: Mapping[str, Any], epoch: int | None = None) -> None: ...

    def set_seats(self, match_id: int, seats: list[str | None],
                  settings: TableSettings | None = None,
                  epoch: int | None = None) -> None: ...

    def finish_match(self, match_id: int, finished: FinishedMatch) -> Points | None: ...

    def finish_board(self, match_id: int, board: FinishedBoard) -> bool:
        """An event's board is over: its match finished and the entrant's result
        recorded together, once (True the first time)."""

    def abandon(self, match_id: int, rounds: int | None = None,
                epoch: int | None = None) -> None: ...

    def unfinished(self) -> list[StoredMatch]: ...


class GameStats(TypedDict):
    """A profile's figures for one game (a share None: nothing to count yet)."""
    matches: int
    wins: int
    draws: int
    losses: int
    rounds: int
    declarations_made_pct: float | None
    calls_made_pct: float | None
    dash_calls_made_pct: float | None


class Profile(TypedDict):
    """A player's profile (``Records.profile``): also the JSON interface's."""
    name: str
    level_points: int
    since: float                # when the name was first bound
    stats: dict[str, GameStats]     # by game
    badges: list[str]           # in the order earned


class LeaderRow(TypedDict):
    rank: int
    name: str
    level_points: int


class Abandoned(TypedDict):
    """A match's result when nobody finished it."""
    abandoned: bool


class FinishedRow(TypedDict):
    """A finished match as the replays' list shows it (``Records.finished_matches``)."""
    id: int
    game: str
    length: Length
    seats: list[str | None]     # names cleaned; None: a computer player
    result: Result | Abandoned
    finished: float             # when


class Records(Protocol):
    """What screens and programs read (and the few settings they write)."""

    def settings(self, name: str) -> dict[str, Any]: ...

    def save_settings(self, name: str, settings: dict[str, Any]) -> None: ...

    def profile(self, name: str) -> Profile | None: ...

    def leaderboard(self, limit: int = 20) -> list[LeaderRow]: ...

    def finished_matches(self, limit: int = 50) -> list[FinishedRow]: ...

    def match(self, match_id: int) -> StoredMatch | None: ...

    def review(self, match_id: int, round_no: int, seat: int) -> RoundReview | None: ...

    def save_review(self, match_id: int, round_no: int, seat: int,
                    body: RoundReview) -> None: ...


class IdentityStore(Protocol):
    """Who is who: a name is bound to the first key that proves it; a new name may not
    look like one already bound (Unicode skeletons)."""

    def owner(self, name: str) -> str | None: ...

    def may_use(self, name: str, fingerprint: str) -> bool: ...

    def lookalike_of(self, name: str) -> str | None: ...

    def bind(self, name: str, fingerprint: str) -> bool: ...

    def names_of(self, fingerprint: str) -> int: ...


@dataclass(frozen=True)
class LinkedBrowser:
    """A web browser linked to a player's name (server/web): shown in the profile."""

    id: str
    label: str          # what the browser said it is (its user agent, shortened)
    created: float
    last_used: float


class BrowserLinkStore(Protocol):
    """The browsers linked to players' names, and the one-time codes that link them
    (server/store/web.py)."""

    def web_secret(self) -> str: ...

    def add_link_code(self, code_hash: str, name: str, fingerprint: str,
                      expires: float) -> None: ...

    def take_link_code(self, code_hash: str) -> tuple[str, str] | None: ...

    def add_link(self, link_id: str, name: str, fingerprint: str, secret_hash: str,
                 label: str) -> None: ...

    def link(self, link_id: str) -> tuple[str, str, str, float] | None: ...

    def touch_link(self, link_id: str) -> None: ...

    def links_of(self, name: str) -> list[LinkedBrowser]: ...

    def remove_links(self, name: str, link_id: str | None = None,
                     older_than: float | None = None) -> int: ...


class BrowserLinks(Protocol):
    """What a player's screens may do about their linked browsers (the room's web page,
    when it has one: ``Registry.browsers``)."""

    def new_code(self, member: Person) -> str:
        """A one-time code that links a browser to ``member``'s name (RoomError if it
        cannot have one: a guest)."""
        ...

    def linked(self, member: Person) -> list[LinkedBrowser]: ...

    def unlink(self, member: Person, link_id: str | None = None) -> int:
        """Unlink one browser (or every one) of ``member``'s: how many; their sessions
        end."""
        ...


class Ban(TypedDict):
    """A ban in force on one name, key or address (``ban_in_force``)."""
    until: float | None         # None: for good
    by: str
    reason: str


class BanRow(Ban):
    """A ban in force, with what it bans (``bans``)."""
    kind: str                   # name | key | addr
    value: str


class LoggedAction(TypedDict):
    """What an operator did (``actions_log``)."""
    at: float
    by: str
    action: str
    detail: str


class Report(TypedDict):
    """A player's report of another (``reports``)."""
    at: float
    by: str
    target: str
    reason: str


class ModerationStore(Protocol):
    """Bans (by key, name or address), what operators did, and players' reports."""

    def add_ban(self, kind: str, value: str, until: float | None, author: str,
                reason: str) -> None: ...

    def remove_bans(self, kind: str, value: str) -> int: ...

    def ban_in_force(self, kind: str, value: str) -> Ban | None: ...

    def bans(self) -> list[BanRow]: ...

    def log_action(self, author: str, action: str, detail: str) -> None: ...

    def actions_log(self, limit: int = 50) -> list[LoggedAction]: ...

    def add_report(self, author: str, target: str, reason: str) -> None: ...

    def reports(self, limit: int = 50) -> list[Report]: ...


class MatchRef:
    """A stored match's id, filled in by whoever commits its row (the store's writer
    thread): later writes of the match, queued behind that one, find it there."""

    __slots__ = ("broken", "id")

    def __init__(self, match_id: int | None = None):
        self.id = match_id
        self.broken = False         # a write of this match failed: later ones are skipped


class Stored(Protocol):
    """What ``NullStore`` reads of a table (``table.TableLog`` is what a table tells its
    store; a store that keeps matches reads the whole ``Table``)."""

    id: str
    match_ref: MatchRef | None
    event: EventBoard | None


class NullStore:
    """Keeps no matches: everything is shown at once. Events are kept in memory, for as
    long as the process runs (``MemoryEvents``)."""

    records: Records | None = None
    down = False

    def __init__(self) -> None:
        self.events: EventStore = MemoryEvents()

    def when_up(self, fn: Callable[[], None]) -> None:
        fn()

    def match_started(self, table: Stored) -> None:
        table.match_ref = None
        if table.event is not None:
            memory = self.events
            assert isinstance(memory, MemoryEvents)
            memory.started(table.event.event, table.event.entrant, table.event.board, table.id)

    def board_over(self, table: Stored, board: FinishedBoard) -> None:
        memory = self.events
        assert isinstance(memory, MemoryEvents)
        memory.finished(board)

    def action(self, table: Stored, seat: int, action: Mapping[str, Any]) -> None:
        pass

    def seats_changed(self, table: Stored) -> None:
        pass

    def match_over(self, table: Stored, done: Callable[[Points | None], None]) -> None:
        done(None)

    def table_removed(self, table: Stored) -> None:
        pass

    def then(self, fn: Callable[[], None]) -> None:
        fn()


class MemoryEvents:
    """``EventStore`` in memory (a room that keeps nothing, and tests)."""

    def __init__(self) -> None:
        self._events: dict[int, EventRow] = {}
        self._entries: dict[tuple[int, str], EntryRow] = {}
        self._results: dict[tuple[int, str, int], ResultRow] = {}
        self._started: dict[tuple[int, str, int], BoardStarted] = {}
        self._claims: dict[tuple[int, str, int], float] = {}

    def create_event(self, event: EventRow) -> EventRow | None:
        if event.daily is not None and any(e.daily == event.daily
                                           for e in self._events.values()):
            return None
        made = replace(event, id=len(self._events) + 1)
        self._events[made.id] = made
        return made

    def event(self, event_id: int) -> EventRow | None:
        return self._events.get(event_id)

    def events(self, since: float) -> list[EventRow]:
        return [e for e in self._events.values() if e.closes >= since]

    def event_with_code(self, code: str) -> EventRow | None:
        return next((e for e in self._events.values() if e.code == code), None)

    def close_event(self, event_id: int, at: float) -> bool:
        e = self._events.get(event_id)
        if e is None or e.closes <= at:
            return False
        self._events[event_id] = replace(e, closes=at)
        return True

    def open_events(self, now: float, creator: str | None) -> int:
        return sum(1 for e in self._events.values()
                   if e.closes > now and e.creator is not None
                   and (creator is None or e.creator == creator))

    def add_entry(self, event_id: int, entrant: str, name: str, at: float) -> bool:
        if (event_id, entrant) in self._entries:
            return False
        self._entries[(event_id, entrant)] = EntryRow(event_id, entrant, name, at)
        return True

    def entry(self, event_id: int, entrant: str) -> EntryRow | None:
        return self._entries.get((event_id, entrant))

    def entries(self, event_id: int) -> list[EntryRow]:
        return [e for (eid, _), e in self._entries.items() if eid == event_id]

    def entered(self, entrant: str) -> dict[int, int]:
        out = {eid: 0 for (eid, who) in self._entries if who == entrant}
        for (eid, who, _board) in self._results:
            if who == entrant:
                out[eid] = out.get(eid, 0) + 1
        return out

    def results(self, event_id: int) -> list[ResultRow]:
        return [r for (eid, _, _), r in sorted(self._results.items()) if eid == event_id]

    def boards_started(self, event_id: int, entrant: str) -> list[BoardStarted]:
        return [b for (eid, who, _), b in sorted(self._started.items())
                if eid == event_id and who == entrant]

    def claim_board(self, event_id: int, entrant: str, board: int, at: float,
                    stale: float) -> bool:
        key = (event_id, entrant, board)
        claimed = self._claims.get(key)
        if claimed is not None and (claimed >= at - stale or key in self._started):
            return False
        self._claims[key] = at
        return True

    # What the tables tell it (NullStore): a board dealt, a board over.
    def started(self, event_id: int, entrant: str, board: int, table_id: str) -> None:
        self._started[(event_id, entrant, board)] = BoardStarted(board, table_id, None, False)

    def finished(self, board: FinishedBoard) -> None:
        key = (board.event, board.entrant, board.board)
        started = self._started.get(key)
        if started is not None:
            self._started[key] = replace(started, finished=True)
        if not board.ranked or key in self._results:
            return
        entry = self._entries.get((board.event, board.entrant))
        self._results[(board.event, board.entrant, board.board)] = ResultRow(
            board.event, board.entrant, entry.name if entry else board.name, board.board,
            board.seat, board.result.score, {**board.result.facts(), "record": board.record},
            None)
