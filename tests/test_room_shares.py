"""Limits that free keys cannot fill (issue 40): every room-wide cap has a share per person
and per address, new identities come a few an hour from one address, event boards have a
cap of their own, and listings cost by their size — each shown on a real server."""

from __future__ import annotations

import asyncio

import pytest
from conftest import LammaServer, start_room, stop_room

from server.limits import Bucket, Limits


async def start(tmp_path, limits: Limits, **kw) -> LammaServer:
    return await start_room(tmp_path, limits=limits, **kw)


async def tables_reply(srv: LammaServer, name: str) -> dict:
    return await srv.first_reply(name, line=b'{"op":"tables"}\n')


async def test_new_names_from_one_address_are_capped_and_old_names_spared(tmp_path):
    srv = await start(tmp_path, Limits(new_names_per_hour=3))
    try:
        for i in range(3):
            assert (await tables_reply(srv, f"fresh{i}"))["type"] == "tables"
        refused = await tables_reply(srv, "fresh3")
        assert refused["type"] == "error" and "new names" in refused["message"]
        assert srv.room.identity.owner("fresh3") is None        # nothing bound
        # those who have their names already come in as often as they like
        for _ in range(3):
            assert (await tables_reply(srv, "fresh1"))["type"] == "tables"
    finally:
        await stop_room(srv)


async def test_one_address_cannot_fill_the_rooms_tables(tmp_path):
    srv = await start(tmp_path, Limits(max_tables=6, tables_per_address=3,
                                       tables_per_identity=1))
    try:
        makers = []
        for i in range(4):
            c = await srv.json_client(f"maker{i}")
            makers.append(c)
            c.send({"op": "create", "game": "estimation", "computer": [1, 2, 3]})
            msg = await c.expect_any(("joined", "error"))
            if i < 3:
                assert msg["type"] == "joined", msg
            else:
                assert msg["type"] == "error" and "Your address has 3 open tables" in \
                    msg["message"]
        # someone from another address still gets a table (the room has 3 of 6)
        other = await srv.json_client("honest")
        member = srv.room.online[next(k for k in srv.room.online if "honest" in k)]
        member.address = "203.0.113.9"
        other.send({"op": "create", "game": "estimation", "computer": [1, 2, 3]})
        assert (await other.expect_any(("joined", "error")))["type"] == "joined"
        for c in [*makers, other]:
            await c.close()
    finally:
        await stop_room(srv)


async def test_event_boards_do_not_count_against_the_rooms_tables(tmp_path):
    srv = await start(tmp_path, Limits(max_tables=2, max_board_tables=50,
                                       board_tables_per_address=2))
    try:
        reg = srv.registry
        ev = reg.events.make("estimation-kotshina", 4, 2)
        entrants = []
        for i in range(3):
            c = await srv.json_client(f"entrant{i}")
            entrants.append(c)
            c.send({"op": "enter", "event": ev.id})
            msg = await c.expect_any(("joined", "error"))
            if i < 2:
                assert msg["type"] == "joined", msg
            else:                                   # the address's share of boards
                assert msg["type"] == "error" and "event boards" in msg["message"]
        assert sum(1 for t in reg.tables.values() if t.event is not None) == 2
        # the room's tables are untouched by the boards: a table for each of two people
        for name in ("left", "right"):
            c = await srv.json_client(name)
            entrants.append(c)
            c.send({"op": "create", "game": "estimation", "computer": [1, 2, 3]})
            assert (await c.expect_any(("joined", "error")))["type"] == "joined"
        for c in entrants:
            await c.close()
    finally:
        await stop_room(srv)


async def test_events_per_address(tmp_path):
    srv = await start(tmp_path, Limits(events_per_address=2))
    try:
        made = 0
        for i in range(3):
            c = await srv.json_client(f"host{i}")
            c.send({"op": "create_event", "game": "estimation", "boards": 4, "hours": 1})
            msg = await c.expect_any(("event", "error"))
            if i < 2:
                assert msg["type"] == "event", msg
                made += 1
            else:
                assert msg["type"] == "error" and "open events already" in msg["message"]
            await c.close()
        assert made == 2
    finally:
        await stop_room(srv)


def test_a_listing_is_charged_by_its_size():
    b = Bucket(10.0, 100.0)
    b.charge(150)
    assert -100.0 <= b.level <= -49.0           # below zero: the next requests wait
    assert not b.take(1)


@pytest.mark.parametrize("rows", [0, 40])
async def test_listing_ops_cost_more_with_more_rows(tmp_path, rows):
    srv = await start(tmp_path, Limits(json_rate=0.001, json_burst=60.0,
                                       max_tables=1000, tables_per_identity=1000,
                                       tables_per_address=1000))
    try:
        for _ in range(rows):
            srv.registry.create("estimation")
        c = await srv.json_client("lister")
        answered = 0
        for _ in range(6):
            c.send({"op": "tables"})
            msg = await c.expect_any(("tables", "error"))
            answered += msg["type"] == "tables"
        # 60 tokens: 10 a listing of nothing (6 listings); 18 with 40 rows (3)
        assert answered == (6 if rows == 0 else 3), answered
        await c.close()
    finally:
        await stop_room(srv)
    await asyncio.sleep(0)
