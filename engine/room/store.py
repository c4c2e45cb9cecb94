"""The typed store interfaces: what the room and the screens need of the store, by
what it keeps — ``IdentityStore`` (names and keys), ``MatchStore`` (matches and their
action log), ``Records`` (what screens read: settings, profiles, the leaderboard,
replays), ``ModerationStore`` (bans, the operators' log, reports).

``server.store.Store`` (SQLite or PostgreSQL) implements them all on one database;
``server.persistence.TableStore`` turns a table's events into its calls (``TableLog``).
``NullStore`` keeps nothing (tests, and a room without a database).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from engine import Match, Result
from engine.records import SeatRecord, match_record

if TYPE_CHECKING:
    from .table import Table

Points = dict[int, dict[str, Any]]      # per seat: {"points": int, "badge": str | None}


@dataclass
class StoredMatch:
    id: int
    table_id: str
    record: dict[str, Any]       # {"game","length","seed","deals","log"} for engine.replay
    seats: list[str | None]      # per seat: a player name ("guest:NAME"), None: computer
    settings: dict[str, Any]
    humans_throughout: bool


@dataclass(frozen=True)
class FinishedMatch:
    """What the store records of a match that is over: its result, how many rounds it
    had, and what each seat is paid (``engine.records.match_record``)."""
    game: str
    result: Result
    rounds: int
    records: dict[int, SeatRecord]


def finished(match: Match, people_throughout: bool) -> FinishedMatch:
    """``match``, over, as the store records it: what it pays is the rules'."""
    assert match.result is not None
    return FinishedMatch(match.game, match.result, len(match.history),
                         match_record(match, people_throughout=people_throughout))


def people_throughout(stored: StoredMatch) -> bool:
    """Were the stored match's four seats held by people from the first deal on?"""
    return stored.humans_throughout and all(s is not None for s in stored.seats)


class StoreUnavailable(RuntimeError):
    """The database is not answering (its connection is lost, its disk is full or
    locked): nothing was written, and the same call may succeed later (a store's
    ``reconnect``)."""


class LeaseLost(RuntimeError):
    """Another process drives this table now (one room across processes,
    ``server.cluster``): the write was not made, and this process must stop playing it."""


class MatchStore(Protocol):
    """Matches as they are played: every call returns once the write is durable."""

    def create_match(self, table_id: str, record: dict[str, Any], seats: list[str | None],
                     settings: dict[str, Any]) -> int: ...

    def append_action(self, match_id: int, seq: int, seat: int,
                      action: Mapping[str, Any]) -> None: ...

    def set_seats(self, match_id: int, seats: list[str | None],
                  settings: dict[str, Any] | None = None) -> None: ...

    def finish_match(self, match_id: int, finished: FinishedMatch) -> Points | None: ...

    def abandon(self, match_id: int, rounds: int | None = None) -> None: ...

    def unfinished(self) -> list[StoredMatch]: ...


class Records(Protocol):
    """What screens and programs read (and the few settings they write)."""

    def settings(self, name: str) -> dict[str, Any]: ...

    def save_settings(self, name: str, settings: dict[str, Any]) -> None: ...

    def profile(self, name: str) -> dict[str, Any] | None: ...

    def leaderboard(self, limit: int = 20) -> list[dict[str, Any]]: ...

    def finished_matches(self, limit: int = 50) -> list[dict[str, Any]]: ...

    def match(self, match_id: int) -> StoredMatch | None: ...


class IdentityStore(Protocol):
    """Who is who: a name is bound to the first key that proves it; a new name may not
    look like one already bound (Unicode skeletons)."""

    def owner(self, name: str) -> str | None: ...

    def may_use(self, name: str, fingerprint: str) -> bool: ...

    def lookalike_of(self, name: str) -> str | None: ...

    def bind(self, name: str, fingerprint: str) -> bool: ...

    def names_of(self, fingerprint: str) -> int: ...


class ModerationStore(Protocol):
    """Bans (by key, name or address), what operators did, and players' reports."""

    def add_ban(self, kind: str, value: str, until: float | None, author: str,
                reason: str) -> None: ...

    def remove_bans(self, kind: str, value: str) -> int: ...

    def ban_in_force(self, kind: str, value: str) -> dict[str, Any] | None: ...

    def bans(self) -> list[dict[str, Any]]: ...

    def log_action(self, author: str, action: str, detail: str) -> None: ...

    def actions_log(self, limit: int = 50) -> list[dict[str, Any]]: ...

    def add_report(self, author: str, target: str, reason: str) -> None: ...

    def reports(self, limit: int = 50) -> list[dict[str, Any]]: ...


class MatchRef:
    """A stored match's id, filled in by whoever commits its row (the store's writer
    thread): later writes of the match, queued behind that one, find it there."""

    __slots__ = ("broken", "id")

    def __init__(self, match_id: int | None = None):
        self.id = match_id
        self.broken = False         # a write of this match failed: later ones are skipped


class TableLog(Protocol):
    """What a table tells its store. Writes are performed in the order they are
    submitted (maybe on another thread); ``then`` runs a callback on the loop once
    everything submitted before it is committed: a table shows a change only then."""

    records: Records | None         # None: nothing is kept (no profiles, no replays)
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

    def table_removed(self, table: Table) -> None: ...

    def then(self, fn: Callable[[], None]) -> None:
        """``fn()`` on the loop once every write submitted so far is committed (at once
        when none is pending), in the order ``then`` was called."""


class NullStore:
    """Keeps nothing: everything is shown at once."""

    records: Records | None = None
    down = False

    def when_up(self, fn: Callable[[], None]) -> None:
        fn()

    def match_started(self, table: Table) -> None:
        table.match_ref = None

    def action(self, table: Table, seat: int, action: Mapping[str, Any]) -> None:
        pass

    def seats_changed(self, table: Table) -> None:
        pass

    def match_over(self, table: Table, done: Callable[[Points | None], None]) -> None:
        done(None)

    def table_removed(self, table: Table) -> None:
        pass

    def then(self, fn: Callable[[], None]) -> None:
        fn()
