"""A database that stops answering (issue 13, "database trouble is survivable").

A real PostgreSQL whose connections are cut, then refused for a while: the writer
keeps the write it was doing, tries it again on a new connection with growing waits,
and holds everything behind it; meanwhile the tables accept no move (it could not be
stored), computer players and timers wait, everyone connected is told; when the
database answers again every table goes on, and the stored log is exactly the
engine's, each action once. SQLite's trouble of the moment (a full disk, a lock) is
the same path, checked with a writer connection that fails on purpose.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time

import pytest
from test_server_seats import policy
from test_store_writer import drained, stored_log

from engine.room import Registry, RoomError, Session
from engine.room.store import StoreUnavailable
from server.persistence import TableStore, Writer
from server.store import Store

FAST = 0.01         # computer players' pause


class Heard(Session):
    def __init__(self, name: str):
        super().__init__(name, f"key:{name}")
        self.changes = 0

    def table_changed(self, change):
        self.changes += 1


async def until(cond, timeout: float = 15.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not cond():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.01)


@pytest.fixture
def database(request):
    """A new database on the throwaway PostgreSQL: (its URL, its name, the admin
    connection that can cut its connections)."""
    url = request.getfixturevalue("pg_url")
    _, admin = request.getfixturevalue("postgres")
    return url, url.split("@/", 1)[1].split("?")[0], admin


def room_on(target):
    store = Store(target)
    writes = store.another()
    ts = TableStore(store, writes=writes)
    ts.start(asyncio.get_running_loop())
    told: list[bool] = []
    ts.listeners.append(told.append)
    return store, writes, ts, told


def cut(admin, db: str, allow: bool | None = None) -> None:
    """End every connection to ``db`` but the admin's (and refuse new ones, or allow
    them again)."""
    if allow is not None:
        admin.execute(f"ALTER DATABASE {db} ALLOW_CONNECTIONS {'true' if allow else 'false'}")
    admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                  "WHERE datname = %s AND pid <> pg_backend_pid()", (db,))


async def test_a_lost_connection_is_retried_and_the_action_stored_once(database):
    url, db, admin = database
    store, writes, ts, told = room_on(url)
    Writer.RETRY = (0.05, 0.2)
    try:
        reg = Registry(store=ts, bot_pause=3600)
        t = reg.create("estimation", 13)
        people = [Heard(f"p{s}") for s in range(4)]
        for s, p in enumerate(people):
            t.sit(p, s)
        await asyncio.wait_for(drained(ts), 10)
        seat = t.match.to_act
        cut(admin, db)                       # the writer's connection is gone
        t.act(people[seat], policy(t.match, seat))
        await asyncio.wait_for(drained(ts), 10)
        # Tried again on a new connection: stored once, and shown.
        assert stored_log(store.another(), t.match_id) == [(0, seat)]
        assert t.view(None) == t.match.view(None)
        assert told in ([], [True, False])   # a short cut may be over before anyone hears
        assert not ts.down
    finally:
        Writer.RETRY = (0.25, 10.0)
        ts.close()
        writes.close()
        store.close()


async def test_while_the_database_is_down_no_move_is_accepted_and_then_play_goes_on(
        database):
    url, db, admin = database
    store, writes, ts, told = room_on(url)
    Writer.RETRY = (0.05, 0.2)
    try:
        reg = Registry(store=ts, bot_pause=FAST, trick_pause=0)
        # One person and three computer players at one table; four people at another.
        t = reg.create("estimation", 13)
        alone = Heard("alone")
        t.sit(alone, 0)
        t.fill_with_bots(alone, [1, 2, 3], "easy")
        u = reg.create("estimation", 13)
        people = [Heard(f"q{s}") for s in range(4)]
        for s, p in enumerate(people):
            u.sit(p, s)
        await asyncio.wait_for(drained(ts), 10)

        cut(admin, db, allow=False)          # down, and it stays down
        seat = u.match.to_act
        u.act(people[seat], policy(u.match, seat))    # accepted: nobody knew yet
        await until(lambda: ts.down)
        assert told == [True]
        # Nothing more is accepted, and the refusal says why.
        seat = u.match.to_act
        with pytest.raises(RoomError, match="database"):
            u.act(people[seat], policy(u.match, seat))
        # The computer players wait too: the log does not grow while it is down.
        if t.match.to_act == 0:
            with pytest.raises(RoomError, match="database"):
                t.act(alone, policy(t.match, 0))
        held = len(t.match.log), len(u.match.log)
        shown = u.version
        await asyncio.sleep(0.5)
        assert (len(t.match.log), len(u.match.log)) == held
        assert u.version == shown            # the move made as it went down is not shown

        cut(admin, db, allow=True)           # back
        await until(lambda: not ts.down)
        assert told == [True, False]
        await asyncio.wait_for(drained(ts), 10)
        assert u.view(None) == u.match.view(None)
        # Play goes on at both tables: people move again, computer players move by
        # themselves.
        for _ in range(3):
            seat = u.match.to_act
            u.act(people[seat], policy(u.match, seat))
        # The computer players move by themselves again (the person answers when asked).
        deadline = asyncio.get_running_loop().time() + 15
        while len(t.match.log) <= held[0] + 2:
            assert asyncio.get_running_loop().time() < deadline, "the computer players wait"
            if t.match.to_act == 0 and t.view(0) is not None and t.view(0)["to_act"] == 0:
                t.act(alone, policy(t.match, 0))
            await asyncio.sleep(0.01)
        await asyncio.wait_for(drained(ts), 10)
        check = store.another()
        for tab in (t, u):
            # Exactly the engine's log, each action once, in order.
            logged = [(i, seat) for i, (seat, _action) in enumerate(tab.match.log)]
            assert stored_log(check, tab.match_id) == logged
        check.close()
    finally:
        Writer.RETRY = (0.25, 10.0)
        cut(admin, db, allow=True)
        ts.close()
        writes.close()
        store.close()


class Flaky:
    """The writer's own SQLite Store, whose writes fail as a full disk would while
    ``trouble`` is set; ``reconnect`` counts."""

    def __init__(self, store: Store):
        self.store = store
        self.trouble = threading.Event()
        self.reconnects = 0

    def reconnect(self) -> None:
        self.reconnects += 1
        if self.trouble.is_set():
            raise StoreUnavailable("database or disk is full")

    def __getattr__(self, name):
        attr = getattr(self.store, name)
        if name not in ("create_match", "append_action", "set_seats", "finish_match"):
            return attr

        def write(*args):
            if self.trouble.is_set():
                raise StoreUnavailable("database or disk is full")
            return attr(*args)
        return write


async def test_sqlite_trouble_of_the_moment_holds_the_writes_in_order(tmp_path):
    store = Store(tmp_path / "lamma.db")
    flaky = Flaky(store.another())
    ts = TableStore(store, writes=flaky)
    ts.start(asyncio.get_running_loop())
    Writer.RETRY = (0.02, 0.05)
    try:
        reg = Registry(store=ts, bot_pause=3600)
        t = reg.create("estimation", 13)
        people = [Heard(f"p{s}") for s in range(4)]
        for s, p in enumerate(people):
            t.sit(p, s)
        await asyncio.wait_for(drained(ts), 10)
        flaky.trouble.set()
        seats = []
        for _ in range(3):                  # accepted before the loop hears of it
            seat = t.match.to_act
            t.act(people[seat], policy(t.match, seat))
            seats.append(seat)
        await until(lambda: ts.down)
        await asyncio.sleep(0.2)
        assert flaky.reconnects >= 2        # tried again, waiting longer each time
        assert stored_log(store, t.match_id) == []
        flaky.trouble.clear()
        await until(lambda: not ts.down)
        await asyncio.wait_for(drained(ts), 10)
        assert stored_log(store, t.match_id) == list(enumerate(seats))
        assert t.view(None) == t.match.view(None)
    finally:
        Writer.RETRY = (0.25, 10.0)
        flaky.trouble.clear()
        ts.close()
        flaky.store.close()
        store.close()


def test_an_action_written_twice_is_stored_once_and_a_different_one_is_refused(tmp_path):
    store = Store(tmp_path / "lamma.db")
    try:
        mid = store.create_match("1", {"game": "estimation", "length": 13, "seed": 1,
                                       "deals": None}, ["a", "b", "c", "d"], {})
        store.append_action(mid, 0, 1, {"type": "dash", "take": False})
        store.append_action(mid, 0, 1, {"type": "dash", "take": False})   # the retry
        assert stored_log(store, mid) == [(0, 1)]
        with pytest.raises(sqlite3.IntegrityError):
            store.append_action(mid, 0, 2, {"type": "dash", "take": False})
    finally:
        store.close()


def test_the_rooms_own_connection_comes_back_for_reads(database):
    """Profiles, names and settings are read on the room's own connection: lost, it
    fails at once with StoreUnavailable (no wait per call), and is made again."""
    url, db, admin = database
    store = Store(url)
    Store.REVIVE_EVERY = 0.2
    try:
        assert store.bind("alice", "SHA256:alice")
        store.save_settings("alice", {"look": {"colour": False}})
        assert store.settings("alice") == {"look": {"colour": False}}
        cut(admin, db)
        with pytest.raises(StoreUnavailable):
            store.settings("alice")
        with pytest.raises(StoreUnavailable):
            store.settings("alice")             # too soon to try again: at once
        time.sleep(0.25)
        assert store.settings("alice") == {"look": {"colour": False}}
    finally:
        Store.REVIVE_EVERY = 2.0
        store.close()
