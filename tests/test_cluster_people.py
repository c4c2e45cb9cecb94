"""The room's people state across processes (issue 41, item 3): the caps of tables,
mutes, bans, guests' look-alike names and /who are one state in the database, held by
every process within a second or two. Three rooms in one test process on one throwaway
PostgreSQL (``three_rooms``), as in tests/test_cluster_rooms.py."""

from __future__ import annotations

import asyncio
import threading

import pytest
from test_cluster_rooms import made, seated, three_rooms, until
from test_names import guest, guest_refusal

from engine.room import RoomError, Session

pytestmark = pytest.mark.slow      # processes on PostgreSQL


@pytest.fixture
async def rooms(tmp_path, pg_url):
    async with three_rooms(tmp_path, pg_url) as started:
        yield started


def attempt(srv, who: Session) -> str:
    """A table made by ``who`` through ``srv`` ("made"), or the refusal's words."""
    try:
        srv.registry.create("tarneeb41", creator=who)
    except RoomError as e:
        return str(e)
    return "made"


async def test_tables_made_back_to_back_through_every_process_stay_within_the_caps(rooms):
    """One key's tables made through p1, p2, p3, p1, ... with no pause (faster than any
    process hears of another's table): three in all, the cap, and every later one
    refused with the cap's words. Counted where the row is claimed, not from what each
    process has heard."""
    who = Session("hoarder", "key:fp-hoarder:hoarder")
    said = [attempt(rooms[i % 3], who) for i in range(7)]
    assert said.count("made") == 3, said
    assert all("open tables (at most 3)" in s for s in said if s != "made"), said
    # Someone else still may: the room's cap is not reached.
    assert attempt(rooms[2], Session("other", "key:fp-other:other")) == "made"


async def test_the_rooms_cap_holds_for_tables_made_back_to_back(tmp_path, pg_url):
    from server.limits import Limits
    async with three_rooms(tmp_path, pg_url, limits=Limits(max_tables=2)) as rooms:
        said = [attempt(srv, Session(f"m{i}", f"key:fp-m{i}:m{i}"))
                for i, srv in enumerate(rooms)]
        assert said[:2] == ["made", "made"], said
        assert "full of tables" in said[2], said


async def test_claims_racing_on_separate_connections_never_pass_the_cap(rooms):
    """The claim itself, from six threads on six connections at once (as six processes
    would): one key gets exactly its cap of three, the room never more than its cap."""
    store = rooms[0].room.store
    conns = [store.another() for _ in range(6)]
    go = threading.Barrier(len(conns))
    results: list[tuple[str, int] | None] = []
    lock = threading.Lock()

    def claim(i: int) -> None:
        go.wait(timeout=10)
        for j in range(2):
            got = conns[i].claim_new_table(f"race-{i}-{j}", f"px{i}-{j}", "key:fp-r:r", 0, 0,
                                           500, 3)
            with lock:
                results.append(got)
    threads = [threading.Thread(target=claim, args=(i,)) for i in range(len(conns))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    for c in conns:
        c.close()
    assert len(results) == 12
    assert results.count(None) == 3, results
    assert all(r == ("person", 3) for r in results if r is not None), results


async def chat_said(client, text: str) -> str:
    """What the room answers a chat line: "said", or the refusal's words."""
    client.send({"op": "chat", "text": text})
    msg = await client.expect_any(("chat", "error"))
    return "said" if msg["type"] == "chat" else msg["message"]


async def muted_within(client, seconds: float = 2.0) -> None:
    """The client's chat lines are refused as muted within ``seconds`` (a line a
    twentieth of a second until then)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while (told := await chat_said(client, "can you hear me?")) == "said":
        assert loop.time() < deadline, f"the mute did not hold within {seconds} s"
        await asyncio.sleep(0.05)
    assert "muted you" in told, told


async def test_a_mute_is_the_rooms_on_every_process_and_lifted_everywhere(rooms):
    """Muted through p1, a guest on p2 cannot chat within two seconds; back as another
    guest name through p3 (the same address: the mute's mark stored by p2) still
    cannot; a room that starts after the mute holds it too; unmuted through p2, they
    may chat again through p3."""
    p1, p2, p3 = rooms
    zed = await p2.guest_client("zed")
    zed.send({"op": "create", "game": "tarneeb41"})
    await zed.expect("joined")
    assert await chat_said(zed, "hello") == "said"
    assert p1.room.moderation.admin("mute zed 10m") == "zed is muted for 10 min."
    await muted_within(zed)
    await zed.close()
    # The address's mark came from p2 (zed's process) through the database.
    await until(lambda: any(m.startswith("addr:") for m in p3.registry.mutes.until),
                timeout=5, what="p3 holds the mute's marks p2 stored")
    yan = await p3.guest_client("yan")
    yan.send({"op": "create", "game": "tarneeb41"})
    await yan.expect("joined")
    assert "muted you" in await chat_said(yan, "it is me again")
    assert p2.room.moderation.admin("unmute zed") == "zed may chat again."
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 2.0
    while (told := await chat_said(yan, "free?")) != "said":
        assert "muted you" in told, told
        assert loop.time() < deadline, "the unmute did not reach p3 within 2 s"
        await asyncio.sleep(0.05)
    await yan.close()


async def test_a_mute_holds_at_a_table_another_process_drives(rooms):
    """kim, on p3, sits at ana's table (p1 drives it); muted through p2, her next lines
    are refused within two seconds, and ana hears none of them."""
    p1, p2, p3 = rooms
    ana, tid = await made(p1, "ana", [2, 3])
    kim = await seated(p3, "kim", tid)
    assert await chat_said(kim, "hi all") == "said"
    p2.room.moderation.admin("mute kim 1h")
    await muted_within(kim)
    kim.send({"op": "chat", "text": "through the back door"})
    await kim.expect("error")
    ana.send({"op": "chat", "text": "still here"})
    while (msg := await ana.expect("chat"))["text"] != "still here":
        assert msg["text"] != "through the back door", msg
    await kim.close()
    await ana.close()


async def test_a_room_started_after_a_mute_holds_it(tmp_path, pg_url):
    from conftest import start_room, stop_room
    async with three_rooms(tmp_path, pg_url) as (p1, _, _):
        p1.room.moderation.admin("mute quinn 1h")
        late = await start_room(tmp_path / "p4", keys=tmp_path / "keys", database=pg_url,
                                process="p4", bot_pause=0.05)
        try:
            await until(lambda: "name:quinn" in late.registry.mutes.until, timeout=5,
                        what="p4 reads the room's mutes as it starts")
            late._keys = p1._keys
            quinn = await late.json_client("quinn")
            quinn.send({"op": "create", "game": "tarneeb41"})
            await quinn.expect("joined")
            assert "muted you" in await chat_said(quinn, "hi")
            await quinn.close()
        finally:
            await stop_room(late)


async def test_a_ban_closes_the_session_on_another_process_and_holds_on_every_one(rooms):
    p1, p2, p3 = rooms
    bob = await p2.json_client("bob")
    bob.send({"op": "tables"})
    await bob.expect("tables")
    reply = p1.room.moderation.admin("ban bob 1h spam")
    assert reply.startswith("Banned name bob for 1 h"), reply
    bye = await bob.expect("bye", timeout=2)
    assert "banned" in bye["message"]
    p3._keys = p1._keys
    told = await p3.first_reply("bob")
    assert told.get("type") == "error" and "banned" in told["message"], told


async def test_a_guest_cannot_take_a_look_alike_of_a_name_in_use_on_another_process(rooms):
    """paul on p1: a guest "pau1" is refused through p2 and p3 within a second (the
    refusal names paul); once paul has gone, the name is free again everywhere."""
    p1, p2, p3 = rooms
    paul = await p1.guest_client("paul")      # a guest: the name is nobody's to own
    paul.send({"op": "tables"})
    await paul.expect("tables")
    await until(lambda: p2.room.book.online_lookalike("pau1") == "paul" and
                p3.room.book.online_lookalike("pau1") == "paul", timeout=1.5,
                what="p2 and p3 know paul's name within a second or so")
    for srv in (p2, p3):
        told = await guest_refusal(srv, "pau1")
        assert "looks like 'paul'" in told and "here now" in told, told
    assert p2.room.book.online_lookalike("paul") is None       # the same name: not this check
    await paul.close()
    await until(lambda: p2.room.book.online_lookalike("pau1") is None, timeout=5,
                what="paul's name is free again on p2")
    conn = await guest(p2, "pau1")
    conn.close()


async def test_who_says_every_process_s_people_within_a_second_or_two(rooms):
    p1, _, p3 = rooms
    cem = await p3.json_client("cem")
    cem.send({"op": "tables"})
    await cem.expect("tables")
    await until(lambda: "cem " in p1.room.moderation.admin("who"), timeout=2,
                what="/who on p1 lists a login on p3 within 2 s")
    assert "@p3" in p1.room.moderation.admin("who").split("cem ", 1)[1][:300]
    await cem.close()


async def test_close_through_any_process_closes_any_table_of_the_room(rooms):
    """A table p1 drives, closed through p3; one p2 drives, closed through p1."""
    p1, p2, p3 = rooms
    for driver, by in ((p1, p3), (p2, p1)):
        maker = await driver.json_client(f"maker-{driver.room.cluster.process}")
        maker.send({"op": "create", "game": "tarneeb41"})
        tid = (await maker.expect("joined"))["table"]
        await until(lambda tid=tid, by=by: by.registry.find(tid) is not None, timeout=2,
                    what="the closing process lists the table")
        reply = by.room.moderation.admin(f"close {tid}")
        assert f"Table {tid}" in reply and "close" in reply, reply
        await maker.expect("left", timeout=2)
        await until(lambda tid=tid: all(s.registry.find(tid) is None for s in rooms),
                    timeout=2, what="the table is gone from every process")
        await maker.close()


async def test_ignore_knows_a_guest_on_another_process(rooms):
    """/ignore of a guest here through another process of the room is taken (the name
    is somebody's, as of the heartbeat); once the guest has gone, the name is nobody's."""
    from test_moderation import command
    p1, p2, _p3 = rooms
    nadia = await p1.guest_client("nadia")
    nadia.send({"op": "tables"})
    await nadia.expect("tables")
    cluster = p2.room.cluster
    assert cluster is not None
    await until(lambda: cluster.named_elsewhere("nadia"), timeout=1.5,
                what="p2 knows nadia's name within a second or so")
    ann = await p2.json_client("ann")
    assert "no longer see" in (await command(ann, "/ignore nadia"))["reply"]
    await nadia.close()
    await until(lambda: not cluster.named_elsewhere("nadia"), timeout=5,
                what="nadia's name is nobody's on p2 once she has gone")
    reply = await command(ann, "/ignore Nadia")
    assert reply["type"] == "command"               # ignored already: kept as it is
    reply = await command(ann, "/ignore nadia2")
    assert reply["type"] == "error" and "Nobody is called nadia2" in reply["message"]
    await ann.close()
