"""The store's writer thread (issue 12): a room's writes leave the event loop, keep
each table's order, and nothing is shown before it is committed.

A real store (SQLite, and PostgreSQL when its binaries are here) whose writer
connection waits at a gate: while the gate is shut the tables accept actions (the
engine moves on) but no member hears of them and no view, narration line or lobby
row shows them; once it opens, every table's actions are on disk in order and the
members see every change, each after its write.
"""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest
from gated import Gated
from test_server_seats import policy

from engine import replay
from engine.room import Registry, Session
from engine.room.stats import STATS
from server.persistence import TableStore, restore
from server.store import Store

SLOW = 3600.0       # computer players never move by themselves here
TABLES = 12
MOVES = 10          # per table, in a burst


@pytest.fixture(params=["sqlite", "postgres"])
def target(request, tmp_path):
    if request.param == "sqlite":
        return tmp_path / "lamma.db"
    return request.getfixturevalue("pg_url")


def gated_room(target, open_gate: bool = False):
    """A store, its writer's gated connection (shut unless ``open_gate``), the started
    ``TableStore`` and a registry on it."""
    store = Store(target)
    gate = threading.Event()
    if open_gate:
        gate.set()
    writes = Gated(store.another(), gate)
    ts = TableStore(store, writes=writes)
    ts.start(asyncio.get_running_loop())
    return store, gate, writes, ts, Registry(store=ts, bot_pause=SLOW)


class Watcher(Session):
    """A seated member that notes, at every change it hears of, what it is shown and
    how many of its match's actions the database holds at that moment."""

    def __init__(self, name: str, store: Store):
        super().__init__(name, f"key:fp-{name}:{name}")
        self.store = store
        self.seen: list[tuple[int, dict | None, int]] = []   # (version, view, stored)

    def table_changed(self, change):
        table = change.table
        if change.what != "state":
            return
        stored = 0
        if table.match_id is not None:
            stored = self.store._x("SELECT COUNT(*) FROM actions WHERE match_id = ?",
                                   (table.match_id,)).fetchone()[0]
        self.seen.append((table.version, table.view(self.seat), stored))


async def drained(ts: TableStore) -> None:
    while ts.writer is not None and ts.writer.pending:
        await asyncio.sleep(0.005)


def stored_log(store: Store, match_id: int) -> list:
    return [(seq, seat) for seq, seat in store._x(
        "SELECT seq, seat FROM actions WHERE match_id = ? ORDER BY seq", (match_id,))]


async def test_a_burst_keeps_each_tables_order_and_shows_nothing_before_its_commit(target):
    store, gate, writes, ts, reg = gated_room(target)
    lobby = Session("lobbyist", "key:l")
    reg.lobby.add(lobby)
    heard_lobby = []
    lobby.lobby_changed = lambda: heard_lobby.append(1)
    moves_before = STATS.moves.value
    commits_before = STATS.store_commit.count
    tables, members = [], {}
    try:
        for i in range(TABLES):
            t = reg.create("estimation", 13)
            ms = [Watcher(f"p{i}x{s}", store) for s in range(4)]
            for s, m in enumerate(ms):
                t.sit(m, s)
            assert t.status == "playing"           # the engine's side: started
            tables.append(t)
            members[t.id] = ms
        # Round-robin over the tables, as a busy room sends them.
        expected = {t.id: [] for t in tables}
        # the public view after k actions, k = 0 (the deal) … MOVES: a view shown can
        # look like several of them (four dash answers bring the turn back round)
        publics = {t.id: [t.match.view(None)] for t in tables}
        for _ in range(MOVES):
            for t in tables:
                seat = t.match.to_act
                t.act(members[t.id][seat], policy(t.match, seat))
                expected[t.id].append(seat)
                publics[t.id].append(t.match.view(None))
        await asyncio.sleep(0.05)                  # time enough to leak, if it would
        # Nothing committed, so nothing shown: no view, no narration, no lobby row.
        for t in tables:
            assert len(t.match.log) == MOVES       # every action was accepted at once
            assert t.view(None) is None and t.view(0) is None and t.version == 0
            assert not t.events and t.summary()["status"] == "waiting"
            assert t.summary()["round"] is None and t.accepted_at is None
            assert all(m.seen == [] for m in members[t.id])
            assert t.match_id is None              # its row is not even written
        assert heard_lobby == [] or all(r["status"] == "waiting" for r in reg.listing())
        assert store._x("SELECT COUNT(*) FROM actions").fetchone()[0] == 0
        assert STATS.moves.value - moves_before == TABLES * MOVES

        gate.set()
        await asyncio.wait_for(drained(ts), 10)
        for t in tables:
            # Every action on disk, in order, exactly the engine's log.
            assert stored_log(store, t.match_id) == list(enumerate(expected[t.id]))
            assert t.view(None) == t.match.view(None) and t.summary()["status"] == "playing"
            assert t.accepted_at is not None
            assert any("The match begins" in e.text for e in t.events)
            for seat, m in enumerate(members[t.id]):
                assert m.seen, "a member heard nothing"
                versions = [v for v, _, _ in m.seen]
                assert versions == sorted(set(versions))      # in order, each once
                assert m.seen[-1][1] == t.match.view(seat)      # ends at the newest
                for _, view, stored in m.seen:
                    # The view shown after k actions needed k of them committed.
                    if view is None:
                        continue
                    shown = view["to_act"], view["tricks"], view["trick"], view["declarations"]
                    ks = [k for k, p in enumerate(publics[t.id])
                          if (p["to_act"], p["tricks"], p["trick"], p["declarations"]) == shown]
                    assert ks and stored >= min(ks), (stored, ks)
        assert STATS.store_commit.count - commits_before >= TABLES * (MOVES + 1)
    finally:
        gate.set()
        ts.close()
        writes.close()
        store.close()


async def test_a_failed_write_is_logged_the_table_goes_on_and_the_disk_keeps_a_prefix(
        tmp_path, caplog):
    """What was chosen until issue 13: the table goes on (people keep playing), the
    error names the table and match, the match's later writes are skipped so that a
    restart replays the stored prefix; other tables are untouched."""
    store, gate, writes, ts, reg = gated_room(tmp_path / "lamma.db", open_gate=True)
    t, u = reg.create("estimation", 13), reg.create("estimation", 13)
    for tab in (t, u):
        for s in range(4):
            tab.sit(Session(f"{tab.id}-{s}", f"key:{tab.id}-{s}"), s)
    await asyncio.wait_for(drained(ts), 10)
    writes.fail.add((t.match_id, 3))
    gate.clear()            # the writes pile up behind the first: committed together
    with caplog.at_level(logging.WARNING, logger="lamma.persist"):
        for _ in range(6):
            for tab in (t, u):
                seat = tab.match.to_act
                tab.runner.check_and_apply(seat, policy(tab.match, seat), "player")
        await asyncio.sleep(0.05)
        gate.set()
        await asyncio.wait_for(drained(ts), 10)
    # The group holding the failing write was rolled back and tried write by write.
    assert any("committed together failed" in r.getMessage() for r in caplog.records)
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1
    assert f"table {t.id}" in errors[0] and f"match {t.match_id}" in errors[0]
    assert "action 3" in errors[0]
    assert t.view(None) == t.match.view(None)          # shown all the same
    assert [s for s, _ in stored_log(store, t.match_id)] == [0, 1, 2]
    assert [s for s, _ in stored_log(store, u.match_id)] == list(range(6))
    ts.close()
    again = Registry(store=TableStore(store), bot_pause=SLOW)
    assert restore(again, store) == 2
    assert len(again.tables[t.id].match.log) == 3 and len(again.tables[u.id].match.log) == 6
    writes.store.close()
    store.close()


async def test_close_flushes_every_submitted_write(tmp_path):
    """The server's stop: ``close`` returns once every write is on disk."""
    store, gate, writes, ts, reg = gated_room(tmp_path / "lamma.db")
    t = reg.create("tarneeb41")
    for s in range(4):
        t.sit(Session(f"n{s}", f"key:n{s}"), s)
    for _ in range(8):
        seat = t.match.to_act
        t.runner.check_and_apply(seat, policy(t.match, seat), "player")
    assert t.view(None) is None
    threading.Timer(0.05, gate.set).start()          # the commits come a moment later
    ts.close()                                       # blocks until they did
    assert ts.writer is None
    mid = store._x("SELECT id FROM matches").fetchone()[0]
    assert [s for s, _ in stored_log(store, mid)] == list(range(8))
    writes.store.close()
    store.close()


async def test_without_a_writer_everything_is_shown_at_once(tmp_path):
    """Before ``start`` (restore at start-up, tests) writes happen on the caller's
    thread and a change is shown as the call returns, as with NullStore."""
    store = Store(tmp_path / "lamma.db")
    reg = Registry(store=TableStore(store), bot_pause=SLOW)
    ms = [Watcher(f"w{s}", store) for s in range(4)]
    t = reg.create("estimation", 13)
    for s, m in enumerate(ms):
        t.sit(m, s)
    seat = t.match.to_act
    t.act(ms[seat], policy(t.match, seat))
    assert t.view(None) == t.match.view(None) and ms[0].seen[-1][2] == 1
    store.close()


async def test_the_end_of_a_match_and_its_points_show_once_the_result_is_committed(tmp_path):
    store, gate, writes, ts, reg = gated_room(tmp_path / "lamma.db", open_gate=True)
    ms = [Watcher(n, store) for n in ("ana", "ben", "cat", "dee")]
    for m in ms:
        store.bind(m.name, f"fp-{m.name}")
    t = reg.create("estimation-kotshina", "micro")
    for s, m in enumerate(ms):
        t.sit(m, s)
    while True:
        seat = t.match.to_act
        action = policy(t.match, seat)
        probe = replay(t.match.to_dict())
        probe.apply(seat, action)
        if probe.result is not None:
            await asyncio.wait_for(drained(ts), 10)
            gate.clear()                        # the last action's and the result's writes wait
        t.act(ms[seat], action)
        if t.status == "over":
            break
    await asyncio.sleep(0.05)
    assert t.points is None and t.summary()["status"] == "playing"
    assert not any("Match over" in e.text for e in t.events)
    assert t.view(None)["result"] is None
    gate.set()
    await asyncio.wait_for(drained(ts), 10)
    assert t.summary()["status"] == "over" and t.view(None)["result"] is not None
    assert sorted(t.points) == [0, 1, 2, 3]                 # paid (statistics only: 0)
    assert any("Match over" in e.text for e in t.events)
    assert ms[0].seen[-1][1]["result"] is not None
    assert store.match(t.match_id) is not None
    assert store._x("SELECT finished FROM matches WHERE id = ?",
                    (t.match_id,)).fetchone()[0] is not None
    ts.close()
    writes.store.close()
    store.close()


async def test_a_result_is_handed_back_at_its_commit_not_held_for_the_next_write():
    """A write committed while the next one waits (a slow commit behind it) is shown
    at once: a move never waits for the writes queued after it."""
    from server.persistence import Writer, _Write

    writer = Writer(asyncio.get_running_loop())
    first_may, second_may = threading.Event(), threading.Event()
    done: list[str] = []
    writer.submit(_Write(lambda: first_may.wait(10), lambda _r: done.append("first"),
                         "first", "1", None, group=False))
    writer.submit(_Write(lambda: second_may.wait(10), lambda _r: done.append("second"),
                         "second", "1", None, group=False))
    try:
        first_may.set()
        for _ in range(400):
            if done:
                break
            await asyncio.sleep(0.005)
        assert done == ["first"], "the first result waited for the second write"
    finally:
        second_may.set()
        assert await asyncio.to_thread(writer.flush)
        writer.stop()
    for _ in range(200):
        if len(done) == 2:
            break
        await asyncio.sleep(0.005)
    assert done == ["first", "second"]
