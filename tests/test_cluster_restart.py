"""A room on several processes, restarted one process at a time (issue 28): a process
that drains hands its tables to the others at once (no lease to wait out), and a table
made through one process is joined by its id or code through another at once, before
that process's lobby has read it. Two rooms in one test process on the run's
PostgreSQL, as two ``lamma serve`` processes would be."""

from __future__ import annotations

import asyncio
import os
import time

import pytest
from conftest import start_room, stop_room
from procs import OtherLoad

pytestmark = pytest.mark.slow      # processes on PostgreSQL


async def until(cond, timeout: float = 15.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out: {what}"
        await asyncio.sleep(0.01)


@pytest.fixture
async def two(tmp_path, pg_url):
    started = []
    keys = tmp_path / "keys"
    try:
        for i in (1, 2):
            started.append(await start_room(tmp_path / f"p{i}", keys=keys, database=pg_url,
                                            process=f"p{i}", bot_pause=0.05))
        started[1]._keys = started[0]._keys
        yield started
    finally:
        for srv in started:
            if not getattr(srv, "stopped", False):
                await stop_room(srv)


def deaf(srv) -> None:
    """This process's lobby reads no row of another's any more (only a lookup can)."""
    side = srv.room.registry.side
    side.rows_changed = lambda: None
    # nor a row its notice carries (nor its events: the notice as a whole)
    side.table_changed = lambda tid, row=None, seq=None, events=None: None


async def test_a_fresh_table_is_joined_by_id_and_code_through_another_process(two):
    p1, p2 = two
    # Connected before the tables are made (a login reads every row once).
    bob, carol, eve = [await p2.json_client(n) for n in ("bob", "carol", "eve")]
    deaf(p2)
    alice = await p1.json_client("alice")
    alice.send({"op": "create", "game": "estimation", "length": 13, "computer": [2, 3]})
    tid = (await alice.expect("joined"))["table"]
    assert not p2.registry.knows(tid)
    bob.send({"op": "join", "table": tid})
    bob.send({"op": "chat", "text": "hello"})         # waits for the join before it
    joined = await bob.expect_any(("joined", "error"))
    assert joined == {"type": "joined", "table": tid, "seat": 1}, joined
    carol.send({"op": "watch", "table": tid})
    assert (await carol.expect_any(("watching", "error")))["type"] == "watching"
    msg = await alice.expect("chat")
    assert (msg["from"], msg["text"]) == ("bob", "hello")
    assert not bob.errors and not carol.errors, (bob.errors, carol.errors)
    # A private table, by its code alone.
    dora = await p1.json_client("dora")
    dora.send({"op": "create", "game": "tarneeb41", "private": True})
    code = (await dora.expect("joined"))["code"]
    eve.send({"op": "join", "code": code})
    got = await eve.expect_any(("joined", "error"))
    assert got["type"] == "joined" and got["seat"] == 1, got
    # A table that does not exist is still "No table", after a look.
    eve.send({"op": "watch", "table": "99999"})
    assert "No table" in (await eve.expect("error"))["message"]
    for c in (alice, bob, carol, dora, eve):
        await c.close()


async def test_a_drained_process_s_tables_are_driven_by_the_other_within_a_second(two):
    p1, p2 = two
    alice = await p1.json_client("alice")
    alice.send({"op": "create", "game": "estimation", "length": 13, "computer": [1, 2, 3],
                "level": "easy"})
    tid = (await alice.expect("joined"))["table"]
    await alice.expect("view")
    await until(lambda: tid in p2.registry.side.remote, what="listed on p2")
    # p1 drains: alice is told to reconnect, then her session closes.
    p1.room.start_drain(0.5)
    notice = await alice.expect("notice")
    assert "another of its servers" in notice["text"], notice
    bye = await alice.expect("bye", timeout=5)
    assert "connect again" in bye["message"]
    await asyncio.wait_for(p1.room.finished.wait(), 5)
    stopped = time.monotonic()
    others = OtherLoad([os.getpid()])      # both rooms run in this process
    p1.room.close()                 # what lamma serve does next: writes, then goodbye
    p1.stopped = True
    await until(lambda: tid in p2.registry.tables
                and p2.registry.tables[tid].replica is None, 5, "p2 drives the table")
    took = time.monotonic() - stopped
    busy = others.factor()                  # 1 on a quiet machine
    # A second on a quiet machine; as much more as other jobs left us less of it.
    assert took < 1.0 * busy, f"{took:.2f} s to take the table over (other load x{busy:.1f})"
    # alice, through p2 (a balancer's next pick), lands in her seat.
    again = await p2.json_client("alice")
    assert (await again.expect("joined", timeout=5)) == {"type": "joined", "table": tid,
                                                         "seat": 0}
    view = (await again.expect("view"))["view"]
    assert view["seat"] == 0
    await again.close()
    await alice.close()


async def test_a_process_that_finds_the_database_migrated_by_a_newer_lamma_drains(
        two, pg_url, caplog):
    """A rolling upgrade: the first process of the new version migrates the database;
    every process of the old one sees it at its next heartbeat, takes no table over
    (what the processes share may have changed) and drains to the newer ones."""
    import psycopg

    from server.store import MIGRATIONS
    p1, p2 = two
    p1.room.config.drain_seconds = 0.5
    p2.room.config.drain_seconds = 0.5
    alice = await p1.json_client("alice")
    alice.send({"op": "create", "game": "estimation", "length": 13, "computer": [1, 2, 3],
                "level": "easy"})
    tid = (await alice.expect("joined"))["table"]
    await until(lambda: tid in p2.registry.side.remote, what="listed on p2")
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("UPDATE schema_version SET version = %s", (len(MIGRATIONS) + 1,))
    try:
        notice = await alice.expect("notice", timeout=10)
        assert "another of its servers" in notice["text"], notice
        await asyncio.wait_for(p1.room.finished.wait(), 10)
        await asyncio.wait_for(p2.room.finished.wait(), 10)
        assert any("a newer Lamma migrated" in r.getMessage() for r in caplog.records)
        p1.room.close()             # its lease ends: a process of this version is told
        p1.stopped = True           # to leave the table to the newer ones
        await asyncio.sleep(1.5)    # heartbeats of p2 after it
        assert tid not in p2.registry.tables, "taken over by a process of the old version"
    finally:
        with psycopg.connect(pg_url, autocommit=True) as db:
            db.execute("UPDATE schema_version SET version = %s", (len(MIGRATIONS),))
