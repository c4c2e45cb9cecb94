"""Every path into a seat hangs on an identity nobody else can produce (issue 11):
a key, or for a guest the connection itself. Real SSH clients against a real server."""

from __future__ import annotations

import asyncio
import json

import asyncssh
import pytest
from conftest import JsonClient, LammaServer


async def seated_guest(srv: LammaServer, name: str) -> tuple[JsonClient, str]:
    g = await srv.guest_client(name)
    g.send({"op": "create", "game": "estimation", "length": 13, "computer": [1, 2, 3]})
    tid = (await g.expect("joined"))["table"]
    await g.expect("view")
    assert g.view is not None and len(g.view["hand"]) == 13
    return g, tid


async def test_a_guest_who_drops_cannot_be_replaced_by_another_guest_of_that_name(room):
    srv = room
    first = await srv.guest_client("bob")
    first.send({"op": "create", "game": "estimation", "length": 13, "computer": [2, 3]})
    tid = (await first.expect("joined"))["table"]
    kim = await srv.json_client("kim")          # a key at the table keeps it open
    kim.send({"op": "join", "table": tid, "seat": 1})
    await kim.expect("joined")
    hand = (await first.expect("view"))["view"]["hand"]
    await first.close()
    table = srv.registry.tables[tid]
    await asyncio.sleep(0.1)
    assert table.seats[0].member is None and table.seats[0].kind == "human"    # held, away
    # Another guest under the same name (the name is free now): a new guest, no seat.
    other = await srv.guest_client("bob")
    other.send({"op": "tables"})
    await other.expect("tables")
    assert not any(m["type"] in ("joined", "view") for m in other.drain())
    other.send({"op": "join", "table": tid, "seat": 0})
    await asyncio.sleep(0.2)
    assert other.errors and "already playing" in other.errors[-1]
    assert table.seats[0].member is None
    other.send({"op": "watch", "table": tid})
    await other.expect("watching")
    seen = await other.expect("view")
    assert seen["view"]["hand"] == [] and not set(hand) & set(json.dumps(seen["view"]).split('"'))
    await other.close()
    await kim.close()


async def test_a_new_session_on_the_guests_own_connection_comes_back_to_the_seat(room):
    srv = room
    first, tid = await seated_guest(srv, "cleo")
    again = JsonClient(first.conn, await first.conn.create_process("play", encoding=None))
    assert (await again.expect("joined")) == {"type": "joined", "table": tid, "seat": 0}
    assert (await again.expect("view"))["view"]["hand"] == first.view["hand"]
    assert "another terminal" in (await first.expect("bye"))["message"]
    await again.close()


async def test_a_key_reconnects_to_its_seat_and_no_other_key_or_guest_does(room):
    srv = room
    a = await srv.json_client("nadia")
    a.send({"op": "create", "game": "tarneeb41", "computer": [1, 2, 3]})
    tid = (await a.expect("joined"))["table"]
    hand = (await a.expect("view"))["view"]["hand"]
    await a.close()
    await asyncio.sleep(0.1)
    back = await srv.json_client("nadia")                   # the same key
    assert (await back.expect("joined")) == {"type": "joined", "table": tid, "seat": 0}
    assert (await back.expect("view"))["view"]["hand"] == hand
    with pytest.raises(asyncssh.PermissionDenied):
        await srv.connect("nadia", key=srv.key("mallory"))  # another key: not even in
    await back.close()


async def test_taking_a_computer_players_seat_as_a_guest_is_that_connection_only(room):
    srv = room
    owner = await srv.json_client("ines")
    owner.send({"op": "create", "game": "estimation", "length": 13, "computer": [1, 2, 3]})
    tid = (await owner.expect("joined"))["table"]
    g = await srv.guest_client("theo")
    g.send({"op": "join", "table": tid, "seat": 2})
    assert (await g.expect("joined")) == {"type": "joined", "table": tid, "seat": 2}
    await g.close()
    await asyncio.sleep(0.1)
    table = srv.registry.tables[tid]
    assert table.seats[2].name == "theo" and table.seats[2].member is None
    g2 = await srv.guest_client("theo")                           # same name, new connection
    g2.send({"op": "tables"})
    await g2.expect("tables")
    assert table.seats[2].member is None
    assert not any(m["type"] == "joined" for m in g2.drain())
    await g2.close()
    await owner.close()


async def test_a_key_binding_a_guests_name_takes_it_and_the_guest_gives_way(room):
    srv = room
    g, tid = await seated_guest(srv, "zoe")
    # The guest's connection is open; another session on it is still a guest session.
    # Now a key proves the name (it was free in the store): the key wins.
    k = await srv.json_client("zoe")
    bye = await g.expect("bye")
    assert "belongs to its key" in bye["message"]
    k.send({"op": "tables"})
    await k.expect("tables")
    assert srv.room.identity.owner("zoe") is not None
    # The guest's connection may not open a new session under the key's name ...
    late = await g.conn.create_process("play", encoding=None)
    msg = json.loads(await asyncio.wait_for(late.stdout.readline(), 5))
    assert msg["type"] == "error" and "belongs to a key" in msg["message"]
    # ... nor may a new guest connection use it.
    with pytest.raises(asyncssh.PermissionDenied):
        await srv.connect("zoe", keyless=True)
    # The guest's seat was never the key's: with the guest gone, its table (computer
    # players only) is closed rather than handed to the key.
    assert tid not in srv.registry.tables and srv.registry.held_seat(
        srv.room.online["zoe"].ident) is None
    await k.close()
    g.conn.close()



async def test_a_guest_asking_for_its_profile_is_told_its_statistics_are_not_kept(room):
    """A guest plays (its matches are kept, and replayed) but has no statistics, level
    points or badges: the JSON refusal said "guests are not kept"."""
    g = await room.guest_client("gil")
    for ask in ({"op": "profile"}, {"op": "profile", "name": "gil"}):
        g.send(ask)
        said = (await g.expect("error"))["message"]
        assert said == "No such player (a guest's statistics are not kept).", said
    await g.close()
