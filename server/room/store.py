"""The typed store interface: what the room and the screens need of the store.

``server.store.Store`` (SQLite or PostgreSQL) implements ``MatchStore`` and
``Records``; ``persistence.TableStore`` turns a table's events into its calls.
``NullStore`` keeps nothing (tests, and a room without a database).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from engine import Match

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


class MatchStore(Protocol):
    """Matches as they are played: every call returns once the write is durable."""

    def create_match(self, table_id: str, record: dict[str, Any], seats: list[str | None],
                     settings: dict[str, Any]) -> int: ...

    def append_action(self, match_id: int, seq: int, seat: int,
                      action: Mapping[str, Any]) -> None: ...

    def set_seats(self, match_id: int, seats: list[str | None],
                  settings: dict[str, Any] | None = None) -> None: ...

    def finish_match(self, match_id: int, match: Match) -> Points | None: ...

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


class TableLog(Protocol):
    """What a table tells its store, in order, before anyone sees the change."""

    records: Records | None         # None: nothing is kept (no profiles, no replays)

    def match_started(self, table: Table) -> int | None:
        """The match id the store gave the match (None: not stored)."""

    def action(self, table: Table, seat: int, action: Mapping[str, Any]) -> None: ...

    def seats_changed(self, table: Table) -> None: ...

    def match_over(self, table: Table) -> Points | None:
        """Level points and badges paid (None: not recorded, or recorded before)."""

    def table_removed(self, table: Table) -> None: ...


class NullStore:
    """Keeps nothing."""

    records: Records | None = None

    def match_started(self, table: Table) -> int | None:
        return None

    def action(self, table: Table, seat: int, action: Mapping[str, Any]) -> None:
        pass

    def seats_changed(self, table: Table) -> None:
        pass

    def match_over(self, table: Table) -> Points | None:
        return None

    def table_removed(self, table: Table) -> None:
        pass
