"""The registry: every table of this process, the lobby's listing, invitation codes.

One per server process, shared by every session on the one asyncio loop.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Mapping
from typing import NoReturn, Protocol

from engine import Match

from . import bots
from .boards import EventBoard
from .catalogue import DEFAULT_LEVEL, parse_game, parse_length, parse_timer
from .codes import new_code, normalize_code
from .duplicate import Events, EventSettings
from .errors import N_, RoomError, quoted
from .members import Member
from .moderation import Mutes, NoModerator
from .replica import Replica
from .rows import LobbyRow
from .running import new_table
from .store import BrowserLinks, NullStore, Records, TableSettings
from .table import Moderator, Side, Table, TableLog

log = logging.getLogger("lamma.tables")


class Sides(Side, Protocol):
    """What the registry asks of its side of a room across processes
    (``remote.ClusterSide``, made by ``remote.join_cluster``)."""

    @property
    def remote(self) -> Mapping[str, Replica]: ...

    def new_table_id(self) -> str: ...
    def shown(self, table: Table) -> None: ...
    def table_removed(self, table: Table) -> None: ...
    async def fresh_table(self, tid: str | None = None, code: str | None = None,
                          within: float = 1.0) -> None: ...
    async def fresh_rows(self, within: float = 3.0) -> None: ...
    def unshown(self, tid: str) -> bool: ...
    async def shown_first(self, tid: str, within: float = 2.0) -> None: ...
    def unwatched(self, tid: str) -> None: ...


# Lobby screens are told of listing changes at most this often (seconds; issue 41: a
# table made elsewhere is listed within it): the first
# change after a quiet interval at once, later ones folded into one at its end.
LOBBY_INTERVAL = 0.3
# How long a web page's guest's seat is held once the page has dropped (seconds): the
# page tries again by itself, at most 15 s apart (server/web/static/lamma.js), and a
# reload comes back at once; past it the guest is gone, as an SSH guest is when its
# connection drops, and a table nobody else holds is closed (``Seating.guest_gone``).
GUEST_RETURN = 120.0
# Lobby members told per loop iteration: each then redraws its screen, so a flush to
# many is spread out and what other clients sent is read in between.
LOBBY_BATCH = 8


class TableClaims(Protocol):
    """Where a room's tables are counted against its caps when they span several
    processes (``server.cluster``): the count and the new table's claim are one step,
    so creations racing through several processes cannot pass a cap together."""

    def claim_new_table(self, tid: str, creator: str | None, here: int, mine_here: int,
                        max_tables: int, per_person: int | None, address: str = "",
                        address_here: int = 0, per_address: int | None = None
                        ) -> tuple[str, int] | None:
        """Claims table ``tid`` for ``creator`` (``here``: this process's tables that
        count, ``mine_here``: of them the creator's open ones, ``address_here``: those
        made from ``address``) if neither the room's ``max_tables``, the creator's
        ``per_person`` nor the address's ``per_address`` cap is reached counting every
        process's; None when claimed, else ("room" | "person" | "address", the count
        reached). RoomError if it cannot be said now."""


class Registry:
    def __init__(self, store: TableLog | None = None, bot_pause: float = 0.8,
                 trick_pause: float = 1.0, absent_timeout: float = 60.0,
                 max_tables: int = 500, tables_per_identity: int | None = None,
                 lobby_interval: float = LOBBY_INTERVAL,
                 events: EventSettings | None = None):
        self.tables: dict[str, Table] = {}
        self.store: TableLog = store or NullStore()
        self.bot_pause = bot_pause
        self.trick_pause = trick_pause
        self.absent_timeout = absent_timeout
        self.guest_return = GUEST_RETURN
        self.max_tables = max_tables
        self.tables_per_identity = tables_per_identity   # None: no cap (tests)
        # Issue 40: no one address fills a room-wide cap (None: no cap, tests). Event
        # boards have a cap of their own, so a mass of entries never refuses a table.
        self.tables_per_address: int | None = None
        self.max_board_tables = 1000
        self.board_tables_per_address: int | None = None
        self.quick_level = DEFAULT_LEVEL    # the computer players quick play seats
        # A clean restart is under way (``drain``): no new table, and every table
        # holds once its trick is over (``Table.held``).
        self.draining = False
        self.moderator: Moderator = NoModerator()      # the server sets its own
        # Browsers linked to players' names, where the room has a web page (server/web).
        self.browsers: BrowserLinks | None = None
        self.mutes = Mutes()
        self.lobby: set[Member] = set()     # told of listing changes (lobby screens)
        self._ids = itertools.count(1)
        # The listing, computed once per change for everyone (see lobby_rows).
        self.lobby_interval = lobby_interval
        self._rows: list[tuple[Table, LobbyRow]] = []
        self._row_of: dict[str, LobbyRow] = {}
        self._public_rows: list[LobbyRow] = []
        self._any_private = False
        self._rows_dirty = True
        self._notified: list[LobbyRow] = []    # the rows lobby members last heard of
        self._lobby_handle: asyncio.Handle | None = None
        self._lobby_sent = float("-inf")             # loop time of the last notification
        self.lobby_computed = 0     # listings computed (counts for tests and benchmarks)
        self.lobby_notified = 0     # notifications sent to every lobby member
        # One room across processes (server.cluster): None for a room of one process.
        self.side: Sides | None = None
        # ... where its tables are counted against the caps (None: counted here).
        self.claims: TableClaims | None = None
        # The duplicate events (duplicate.py): their boards are tables of this registry.
        self.events = Events(self, events)

    @property
    def records(self) -> Records | None:
        """Players, statistics and finished matches; None when the room keeps nothing."""
        return self.store.records

    def create(self, game: object, length: object = None, timer: object = 0,
               private: object = False, creator: Member | None = None,
               practice: object = False) -> Table:
        game = parse_game(game)
        length = parse_length(game, length)
        timer = parse_timer(timer)
        if self.draining:
            raise RoomError("The room is about to restart: no new table now; connect "
                            "again in a minute.")
        if type(practice) is not bool:
            raise RoomError("\"practice\" is true or false.")
        # Every process's tables (issue 41: one room, one cap): ours, and those of the
        # room's other processes (counted where the table is claimed: ``claims``).
        everywhere = [t for t in self.tables.values() if t.event is None]
        if self.side is not None and self.claims is None:
            everywhere += [t for t in self.side.shown_tables()
                           if t.id not in self.tables and t.event is None]
        mine = sum(1 for t in everywhere if creator is not None
                   and t.creator == creator.ident and t.status != "over")
        per_person = self.tables_per_identity if creator is not None else None
        if len(everywhere) >= self.max_tables:
            self._full("room", len(everywhere))
        if per_person is not None and mine >= per_person:
            self._full("person", mine)
        where = creator.address if creator is not None else ""
        cap = self.tables_per_address
        theirs = sum(1 for t in self.tables.values()
                     if t.event is None and t.creator_address == where and t.status != "over")
        if where and cap is not None and theirs >= cap:
            self._full("address", theirs)
        tid = self.side.new_table_id() if self.side is not None else str(next(self._ids))
        if self.claims is not None:
            # Counted with every process's tables and claimed in one step (last: a
            # claimed table is made).
            full = self.claims.claim_new_table(
                tid, creator.ident if creator is not None else None, len(everywhere), mine,
                self.max_tables, per_person, where, theirs, cap)
            if full is not None:
                self._full(*full)
        table = new_table(self, tid, game, length, timer, bool(private))
        if practice:
            table.practice = True
            table.counts_for_points = False
        table.creator = creator.ident if creator is not None else None
        table.creator_address = where
        while table.private and any(t.code == table.code for t in self.tables.values()):
            table.code = new_code()         # a code names one table
        self.tables[tid] = table
        self.lobby_changed()
        if self.side is not None:
            self.side.shown(table)
        return table

    def _full(self, what: str, count: int) -> NoReturn:
        """RoomError: the room's cap of tables, or the creator's, is reached."""
        if what == "room":
            raise RoomError("The room is full of tables; join one instead.")
        if what == "address":
            raise RoomError("Your address has {cap} open tables already (a share of the "
                            "room's); join one instead.", cap=self.tables_per_address)
        raise RoomError("You have {mine} open tables (at most {cap}); finish or leave one "
                        "first.", mine=count, cap=self.tables_per_identity)

    def board_allowed(self) -> None:
        """RoomError if no new board may be dealt now (a clean restart is under way)."""
        if self.draining:
            raise RoomError("The room is about to restart: no new board now; enter again "
                            "in a minute to go on.")

    def create_board(self, game: str, event: EventBoard, address: str = "") -> Table:
        """A table for an event's board (``Events``): not listed, no code, not counted in
        the room's tables (an entrant plays one board at a time) but in the boards' own
        cap, and the share of it one address may hold. None during a clean restart: a
        board in play holds; the next is dealt after it."""
        self.board_allowed()
        boards = [t for t in self.tables.values() if t.event is not None]
        if len(boards) >= self.max_board_tables:
            raise RoomError("The room is full of event boards just now; try again in a few "
                            "minutes.")
        cap = self.board_tables_per_address
        if address and cap is not None and sum(
                1 for t in boards if t.creator_address == address) >= cap:
            raise RoomError("Your address has {cap} event boards in play already (a share "
                            "of the room's); try again later.", cap=cap)
        tid = self.side.new_table_id() if self.side is not None else str(next(self._ids))
        table = new_table(self, tid, game, None)
        table.event = event
        table.creator_address = address
        table.counts_for_points = False
        self.tables[tid] = table
        if self.side is not None:
            self.side.shown(table)
        return table

    def resume(self, tid: str, match: Match, match_id: int, settings: TableSettings,
               stored_seats: list[str | None], counts_for_points: bool) -> Table:
        """A stored unfinished match as a playing table again (``persistence.restore``);
        ``start_resumed`` then sets its timers and computer players going."""
        table = new_table(self, tid, match.game, match.length, int(settings.get("timer", 0)),
                      bool(settings.get("private")))
        table.resume(match, match_id, settings, stored_seats, counts_for_points)
        self.tables[tid] = table
        self._rows_dirty = True
        return table

    def start_resumed(self) -> None:
        """Once the loop runs: computer players and timers resume where they were."""
        for table in list(self.tables.values()):
            if table.status == "playing":
                table.turns.schedule()
                self.gc_table(table)    # held only by guests, who cannot come back

    def skip_ids(self, highest: int) -> None:
        """Table ids restored from the store are not handed out again."""
        self._ids = itertools.count(max(highest + 1, next(self._ids)))

    def find(self, tid: str) -> Table | None:
        """The table with this id: this process's, or another's (``remote.py``)."""
        table = self.tables.get(tid)
        if table is None and self.side is not None:
            rt = self.side.remote.get(tid)
            table = rt.table if rt is not None else None
        return table

    def knows(self, tid: object) -> bool:
        """A table with this id is listed here (this process's, or another's)."""
        if isinstance(tid, int) and not isinstance(tid, bool):
            tid = str(tid)
        return isinstance(tid, str) and self.find(tid) is not None

    def knows_code(self, raw: object) -> bool:
        """A private table listed here has this code (nothing counted: ``find_code``
        counts the wrong guesses)."""
        others = self.side.shown_tables() if self.side is not None else []
        found = False
        for t in list(self.tables.values()) + others:
            found = (t.private and t.code_matches(raw)) or found
        return found

    async def refresh(self, tid: object = None, code: object = None) -> None:
        """A table this process's listing does not know, by id or code: in a room of
        several processes its row is read now (made through another a moment ago, it
        may not be listed here yet); alone, nothing to read."""
        if self.side is None:
            return
        if isinstance(tid, int) and not isinstance(tid, bool):
            tid = str(tid)
        if isinstance(tid, str) and tid and len(tid) <= 20:
            await self.side.fresh_table(tid=tid)
        elif tid is None and code is not None:
            typed = normalize_code(code)
            if typed is not None:
                # (a guesser's wrong codes are counted by ``find_code`` after this,
                # and one who has too many reads nothing: ``CodeGuard.check`` first)
                await self.side.fresh_table(code=typed)

    def unshown(self, tid: object) -> bool:
        """Is ``tid`` a table another process drives that nobody here shows yet?"""
        if isinstance(tid, int) and not isinstance(tid, bool):
            tid = str(tid)
        return self.side is not None and isinstance(tid, str) and self.side.unshown(tid)

    async def shown_first(self, tid: object) -> None:
        """Such a table's frame read before a member comes to watch it: what is said
        after they are told "watching" reaches them as its events, not as its past."""
        if isinstance(tid, int) and not isinstance(tid, bool):
            tid = str(tid)
        if self.side is not None and isinstance(tid, str):
            await self.side.shown_first(tid)

    def unwatched(self, tid: object) -> None:
        """... and the watch did not happen (refused, or its member gone)."""
        if isinstance(tid, int) and not isinstance(tid, bool):
            tid = str(tid)
        if self.side is not None and isinstance(tid, str):
            self.side.unwatched(tid)

    def get(self, tid: object, member: Member | None = None) -> Table:
        if isinstance(tid, int) and not isinstance(tid, bool):
            tid = str(tid)
        table = self.find(tid) if isinstance(tid, str) else None
        if table is None:
            raise RoomError("No table {table}.", table=quoted(tid))
        return table

    def listing(self, member: Member | None = None) -> list[LobbyRow]:
        """The tables ``member`` may see; a private one (theirs) with its code.

        The rows are shared by every caller until their table changes: read them,
        never change them."""
        return list(self.lobby_view(member))

    def lobby_view(self, member: Member | None) -> list[LobbyRow]:
        """``listing`` for a lobby screen, not to be changed: with no private table
        anywhere, the one list every screen shares (an unchanged listing is the same
        object)."""
        rows = self.lobby_rows()
        if not self._any_private:
            return self._public_rows
        return [row for t, row in rows if not t.private or self.may_see(member, t)]

    def lobby_rows(self) -> list[tuple[Table, LobbyRow]]:
        """Every table with its lobby row, computed again only after a change; a row
        whose table shows the same as before is the very same dict as before, so a
        screen can tell a changed row by identity."""
        if not self._rows_dirty:
            return self._rows
        self._rows_dirty = False
        self.lobby_computed += 1
        old = self._row_of
        rows: list[tuple[Table, LobbyRow]] = []
        row_of: dict[str, LobbyRow] = {}
        for t in self.tables.values():
            row = t.summary()
            if t.private:
                row["code"] = t.code
            prev = old.get(t.id)
            if prev is not None and prev == row:
                row = prev
            rows.append((t, row))
            row_of[t.id] = row
        if self.side is not None:
            # Other processes' tables: their rows as their drivers published them.
            for rt in self.side.remote.values():
                if rt.row and rt.id not in row_of:
                    rows.append((rt.table, rt.row))
                    row_of[rt.id] = rt.row
            rows.sort(key=lambda tr: (len(tr[0].id), tr[0].id))
        # An event's boards are nobody's to join or watch: never listed.
        rows = [(t, row) for t, row in rows if "event" not in row]
        self._rows, self._row_of = rows, row_of
        self._public_rows = [row for t, row in rows if not t.private]
        self._any_private = len(self._public_rows) != len(rows)
        return rows

    def may_see(self, member: Member | None, table: Table) -> bool:
        """Public, or private and ``member`` is at it, holds a seat or gave its code."""
        if not table.private:
            return True
        if member is None:
            return False
        return (member.table is table or table.id in member.unlocked
                or any(s.held_by(member) for s in table.seats))

    # ------------------------------------------------------- invitation codes
    def check_code(self, member: Member, table: Table, raw: object) -> None:
        """The code of a private ``table``; RoomError (nothing changes) if wrong."""
        if self.may_see(member, table):
            return
        if raw is None:
            raise RoomError("Table {table} is private: its code is needed.", table=table.id)
        member.code_guard.check()
        if not table.code_matches(raw):
            raise member.code_guard.failed(N_("No table {table} with that code."), table=table.id)
        member.unlocked.add(table.id)

    def find_code(self, member: Member, raw: object) -> Table:
        """The private table with this code (what a person types in the lobby)."""
        member.code_guard.check()
        found = None
        others = self.side.shown_tables() if self.side is not None else []
        for t in list(self.tables.values()) + others:
            # every private table is compared, found or not: timing says nothing
            if t.private and t.code_matches(raw) and found is None:
                found = t
        if found is None:
            raise member.code_guard.failed(N_("Wrong code: no table has it. Check it with "
                                              "whoever gave it to you."))
        member.unlocked.add(found.id)
        return found

    def held_seat(self, ident: str) -> tuple[Table, int] | None:
        """The seat this identity comes back to in a running match: at a live table
        before an event's board. (An event's board keeps its entrant's seat when they
        leave it on purpose, and they may sit at a live table meanwhile: the seat that
        is waiting for them is the live one. A live seat is held only by a dropped
        connection: sitting elsewhere gives it up.)"""
        others = self.side.shown_tables() if self.side is not None else []
        board: tuple[Table, int] | None = None
        for t in list(self.tables.values()) + others:
            if t.status != "playing":
                continue
            for i, s in enumerate(t.seats):
                if s.held_by(ident):
                    if t.event is None:
                        return t, i
                    board = board or (t, i)
        return board

    def detach(self, member: Member, keep_seat: bool, unless: Table | None = None) -> None:
        table = member.table
        if table is not None and table is not unless:
            table.detach(member, keep_seat=keep_seat)
            # Hints and reviews this person still has waiting: nobody to answer now.
            bots.drop_asks(member.ident)

    def gc_table(self, table: Table) -> None:
        """Drop a table nobody needs any more."""
        if self.tables.get(table.id) is not table:
            return
        if any(True for _ in table.members()):
            return
        if table.status == "playing" and any(s.held_for_return() for s in table.seats):
            return  # seats are held for players who may come back
        self._remove(table)

    def close_table(self, table: Table, reason: str) -> None:
        """An operator closes ``table``: everyone at it is told, an unfinished match is
        recorded as abandoned."""
        for member in list(table.members()):
            member.notice(reason)
        if self.tables.get(table.id) is table:
            self._remove(table)

    def _remove(self, table: Table) -> None:
        table.close()
        del self.tables[table.id]
        # not held until the listing is next computed (nobody may ask for a while)
        self._rows = [(t, row) for t, row in self._rows if t is not table]
        self.store.table_removed(table)
        if self.side is not None:
            self.side.table_removed(table)
        self.lobby_changed()

    def lobby_changed(self) -> None:
        """What the lobby shows changed. The listing is computed again once, when
        next asked for; lobby members are told at most once a ``lobby_interval``:
        the first change after a quiet interval on the next loop iteration, later
        ones folded into one at the interval's end (so the last state is always
        told)."""
        self._rows_dirty = True
        if self._lobby_handle is not None or not self.lobby:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        at = self._lobby_sent + self.lobby_interval
        if loop.time() >= at:
            self._lobby_handle = loop.call_soon(self._flush_lobby)
        else:
            self._lobby_handle = loop.call_at(at, self._flush_lobby)

    def _flush_lobby(self) -> None:
        self._lobby_handle = None
        rows = [row for _, row in self.lobby_rows()]
        old = self._notified
        if len(rows) == len(old) and all(a is b for a, b in zip(rows, old, strict=True)):
            return      # changed and changed back, or already shown: nothing to tell
        self._notified = rows
        loop = asyncio.get_running_loop()
        self._lobby_sent = loop.time()
        self.lobby_notified += 1
        self._tell_lobby(list(self.lobby), loop)

    def _tell_lobby(self, members: list[Member], loop: asyncio.AbstractEventLoop) -> None:
        for member in members[:LOBBY_BATCH]:
            if member not in self.lobby:
                continue        # left the lobby meanwhile
            try:
                member.lobby_changed()
            except Exception:
                log.exception("lobby notify failed")
        if len(members) > LOBBY_BATCH:
            loop.call_soon(self._tell_lobby, members[LOBBY_BATCH:], loop)

    def close(self) -> None:
        self.events.close()
        for t in list(self.tables.values()):
            t.close()
        self.tables.clear()
        self._rows = []
        self._rows_dirty = True
        if self._lobby_handle is not None:
            self._lobby_handle.cancel()
            self._lobby_handle = None
