"""Every input has a limit (issue 11): what one client may ask of the room, refused
with words and changing nothing, while the others are served. Real SSH clients."""

from __future__ import annotations

import asyncio
import json
import os
import time

import asyncssh
import pytest
from conftest import LammaServer, reply_line, start_room, stop_room
from procs import OtherLoad

from server.limits import Limits


async def start(tmp_path, limits: Limits | None = None, **kw) -> LammaServer:
    return await start_room(tmp_path, limits=limits or Limits(), **kw)


stop = stop_room


async def first_line(proc) -> dict:
    return json.loads(await reply_line(proc.stdout))


async def test_a_flood_of_requests_is_refused_and_the_flooder_closed_while_others_are_served(room):
    srv = room
    calm = await srv.json_client("calm")
    flood = await srv.json_client("flood")
    flood.send(b'{"op":"tables"}\n' * 1024)              # one 16 KB write
    others = OtherLoad([os.getpid()])           # the room and both clients are here
    times = []
    for _ in range(20):
        started = time.monotonic()
        calm.send({"op": "tables"})
        await calm.expect("tables")
        times.append(time.monotonic() - started)
        await asyncio.sleep(0.01)
    busy = others.factor()                      # 0.1 s on a quiet machine
    assert sorted(times)[int(len(times) * 0.95) - 1] < 0.1 * busy, (times, busy)
    # The flooder: 40 listings answered (the burst: 10 tokens each), the rest refused
    # with words, and after 200 refusals in a row, closed.
    got = []
    while True:
        msg = await asyncio.wait_for(flood.messages.get(), 5)
        if msg is None:
            break
        got.append(msg["type"])
    assert 30 <= got.count("tables") <= 60, got.count("tables")
    assert flood.errors and all("Too many requests" in e for e in flood.errors)
    assert got[-1] == "bye"
    await calm.close()
    await flood.close()


async def test_sessions_per_connection_and_how_fast_they_open(room):
    srv = room
    conn = await srv.connect("multi")
    # Eight sessions at once on one connection: four channels open (a channel too many
    # is refused as it opens, before any state is kept: issue 30), three sessions are
    # served (each newer one takes the name over from the one before), the fourth is
    # told why in its own words.
    opened = await asyncio.gather(*[conn.create_process("play", encoding=None)
                                    for _ in range(8)], return_exceptions=True)
    at_open = [str(p) for p in opened if isinstance(p, asyncssh.ChannelOpenError)]
    procs = [p for p in opened if not isinstance(p, BaseException)]
    assert len(procs) == 4 and len(at_open) == 4, opened
    assert all("At most 4 channels open at once" in r for r in at_open), at_open
    firsts = []
    for p in procs:
        try:
            p.stdin.write(b'{"op":"tables"}\n')
        except BrokenPipeError:
            pass                      # refused and closed already: its line is waiting
        firsts.append(await first_line(p))
    refused = [m["message"] for m in firsts if m["type"] == "error"]
    assert len(refused) >= 1, firsts
    assert all("At most 3 sessions" in r or "too fast" in r for r in refused), refused
    assert any("At most 3 sessions" in r for r in refused)
    conn.close()
    # One at a time, opened and closed quickly: the allowance (6, then one every 5 s) ends.
    conn = await srv.connect("again")
    answers = []
    for _ in range(8):
        p = await conn.create_process("play", encoding=None)
        try:
            p.stdin.write(b'{"op":"tables"}\n')
        except BrokenPipeError:
            pass
        answers.append(await first_line(p))
        p.close()
        await asyncio.sleep(0.05)
    kinds = [m["type"] for m in answers]
    assert kinds[:6] == ["tables"] * 6 and kinds[6] == "error", kinds
    assert "too fast" in answers[6]["message"]
    conn.close()


async def test_guests_per_address_and_how_fast_they_come(tmp_path):
    """Per address: guests (a proven key is not counted with them: issue 28), and how
    fast connections come; a connection that proves a key hands its token of that rate
    back, and spends one of the address's keyed logins instead."""
    srv = await start(tmp_path, Limits(guests_per_address=4, connects_burst=6,
                                       connects_rate=1e-6, key_logins_burst=5,
                                       key_logins_rate=1e-6))
    try:
        guests = [await srv.connect(f"g{i}", keyless=True) for i in range(4)]
        with pytest.raises((asyncssh.DisconnectError, ConnectionError)) as err:
            await srv.connect("g4", keyless=True)
        assert "Too many connections" in str(err.value) and "4 guests" in str(err.value)
        # People with keys behind the same address are not their neighbours' guests,
        # and their logins do not spend the rate: five of them, one token left.
        keyed = [await srv.json_client(f"k{i}") for i in range(5)]
        for k in keyed:
            k.send({"op": "tables"})
            await k.expect("tables")
        address = srv.room.book.addresses["127.0.0.1"]
        assert round(address.connects.level) == 1 and address.logins.level < 1
        said = await srv.first_reply("k5")          # the keyed logins spent: in words
        assert said["type"] == "error" and "too fast" in said["message"], said
        guests.pop().close()
        await asyncio.sleep(0.1)
        # The rate is spent now (4 guests, the refused fifth, k5): the next guest waits.
        with pytest.raises((asyncssh.DisconnectError, ConnectionError)) as err:
            await srv.connect("g6", keyless=True)
        assert "too fast" in str(err.value)
        for c in guests:
            c.close()
        for k in keyed:
            await k.close()
    finally:
        await stop(srv)


@pytest.mark.slow       # the full suite's (the fast tier's 90 s)
async def test_handshakes_per_address(tmp_path):
    """Connections still authenticating are counted by their address: an address that
    opens connections and never authenticates holds at most so many, and the people
    of other addresses log in meanwhile."""
    from test_ceilings import closed, idle
    srv = await start(tmp_path, Limits(handshakes_per_address=3, handshake_queue_seconds=1.0))
    try:
        held = [await idle(srv.port, "127.0.0.5") for _ in range(3)]
        await asyncio.sleep(0.1)
        # The fourth waits for a place (issue 45); none opens (the three never
        # authenticate), so after its second it is refused with the cap's words.
        refused = await idle(srv.port, "127.0.0.5")
        await asyncio.sleep(0.3)
        assert srv.room.admission.waiting == 1
        said = await asyncio.wait_for(refused[0].read(4096), 5)
        said += await asyncio.wait_for(refused[0].read(4096), 5)
        assert b"Too many connections from your address (at most 3 at once)" in said, said
        assert srv.room.admission.waiting == 0
        assert await closed(refused[0], 5)
        other = await asyncssh.connect("127.0.0.1", srv.port, username="ana",
                                       known_hosts=None, client_keys=[srv.key("ana")],
                                       agent_path=None, local_addr=("127.0.0.6", 0))
        other.close()
        assert srv.room.book.addresses["127.0.0.5"].unproven == 3
        for _, writer in [*held, refused]:
            writer.close()
    finally:
        await stop(srv)


@pytest.mark.slow       # the full suite's (the fast tier's 90 s)
async def test_a_connection_over_the_cap_waits_for_a_place(tmp_path):
    """Issue 45: past its address's handshakes a connection waits (a few seconds while
    nothing moves, longer while its queue moves) instead of being refused, and gets the
    first place that opens; those waiting from one address are bounded."""
    from test_ceilings import closed, idle
    srv = await start(tmp_path, Limits(handshakes_per_address=2, handshake_queue_seconds=3.0,
                                       handshake_queue_per_address=2))
    try:
        held = [await idle(srv.port, "127.0.0.5") for _ in range(2)]
        await asyncio.sleep(0.1)

        async def login(name):
            conn = await asyncssh.connect("127.0.0.1", srv.port, username=name,
                                          known_hosts=None, client_keys=[srv.key(name)],
                                          agent_path=None, local_addr=("127.0.0.5", 0))
            conn.close()
            return name
        first, second = (asyncio.ensure_future(login(n)) for n in ("ana", "bea"))
        await asyncio.sleep(0.5)
        assert not first.done() and not second.done()
        assert srv.room.admission.waiting == 2
        # The queue is full: the next is refused at once, in the cap's words.
        extra = await idle(srv.port, "127.0.0.5")
        said = await asyncio.wait_for(extra[0].read(4096), 3)
        said += await asyncio.wait_for(extra[0].read(4096), 3)
        assert b"Too many connections from your address (at most 2 at once)" in said, said
        # A place opens: the oldest waiting gets it, then the next (ana's place frees
        # the one after as her key is proven).
        held[0][1].close()
        assert await asyncio.wait_for(first, 5) == "ana"
        assert await asyncio.wait_for(second, 5) == "bea"
        assert srv.room.admission.waiting == 0 and srv.room.admission.admitted_after_wait == 2
        held[1][1].close()
        assert await closed(extra[0], 5)
    finally:
        await stop(srv)


async def test_connections_per_key(tmp_path):
    """A proven key is limited as that key, whatever address: its connections at once
    (every name of it), refused in words."""
    srv = await start(tmp_path, Limits(connections_per_key=2))
    try:
        key = srv.key("ana")
        a = await srv.json_client("ana", key=key)
        b = await srv.json_client("ana2", key=key)
        said = await srv.first_reply("ana3", key=key)
        assert said["type"] == "error" and "2 connections open" in said["message"], said
        await b.close()
        await asyncio.sleep(0.1)
        c = await srv.json_client("ana3", key=key)             # a place again
        c.send({"op": "tables"})
        await c.expect("tables")
        await a.close()
        await c.close()
        await asyncio.sleep(0.1)
        assert not srv.room.book.keys                                # forgotten once idle
    finally:
        await stop(srv)


def test_tables_per_identity():
    """One identity opens at most so many tables that are not over (sitting at a new one
    normally leaves the last, so this is the backstop, checked in the registry)."""
    from engine.room import Registry, RoomError, Session
    reg = Registry(tables_per_identity=2)
    ana, ben = Session("ana", "key:a:ana"), Session("ben", "key:b:ben")
    first = reg.create("estimation", creator=ana)
    reg.create("tarneeb41", creator=ana)
    with pytest.raises(RoomError, match="2 open tables"):
        reg.create("estimation", creator=ana)
    reg.create("estimation", creator=ben)                # another person is not counted
    first.status = "over"                                # a finished match frees its place
    reg.create("estimation", creator=ana)
    assert len(reg.tables) == 4


async def test_a_guests_table_closes_when_nobody_human_is_left(room):
    srv = room
    g = await srv.guest_client("visitor")
    g.send({"op": "create", "game": "estimation", "computer": [1, 2, 3]})
    tid = (await g.expect("joined"))["table"]
    await g.expect("view")
    await g.close()
    for _ in range(100):
        if tid not in srv.registry.tables:
            break
        await asyncio.sleep(0.02)
    assert tid not in srv.registry.tables               # not played on by the timer for hours
    # A key's table is kept: its holder may come back.
    k = await srv.json_client("keeper")
    k.send({"op": "create", "game": "estimation", "computer": [1, 2, 3]})
    tid = (await k.expect("joined"))["table"]
    await k.close()
    await asyncio.sleep(0.2)
    assert tid in srv.registry.tables


async def test_names_per_key(tmp_path):
    srv = await start(tmp_path, Limits(names_per_key=2))
    try:
        key = srv.key("hoarder")
        for name in ("one", "two"):
            c = await srv.json_client(name, key=key)
            c.send({"op": "tables"})
            await c.expect("tables")
            await c.close()
        msg = await srv.first_reply("three", key=key)
        assert msg["type"] == "error" and "already has 2 names" in msg["message"]
        assert srv.room.identity.owner("three") is None
        again = await srv.json_client("one", key=key)        # its own names still work
        again.send({"op": "tables"})
        await again.expect("tables")
        await again.close()
    finally:
        await stop(srv)


async def test_matches_left_before_a_round_are_not_listed_as_replays(room):
    srv = room
    c = await srv.json_client("leaver")
    for _ in range(5):
        c.send({"op": "create", "game": "estimation", "computer": [1, 2, 3]})
        await c.expect("joined")
        c.send({"op": "leave"})
        await c.expect("left")
    writer = srv.registry.store.writer
    if writer is not None:      # the writes run on the store's own thread: let them land
        assert await asyncio.to_thread(writer.flush)
    store = srv.room.store
    rows = store._x("SELECT COUNT(*) FROM matches WHERE finished IS NOT NULL").fetchone()[0]
    assert rows == 5 and store.finished_matches() == []
    await c.close()


async def test_a_client_that_keeps_asking_to_log_in_is_disconnected(room):
    """asyncssh puts no limit on authentication attempts (only login_timeout, 60 s): the
    room counts them, and a client re-asking after a refusal is cut off at once."""
    srv = room
    asked = []

    class Pest(asyncssh.SSHClient):
        def kbdint_auth_requested(self):
            asked.append(1)
            return ""

        def kbdint_challenge_received(self, name, instructions, lang, prompts):
            return []

    started = time.monotonic()
    with pytest.raises((asyncssh.DisconnectError, ConnectionError)):
        await asyncssh.create_connection(Pest, "127.0.0.1", srv.port, username="root",
                                         known_hosts=None, agent_path=None, client_keys=None,
                                         preferred_auth="keyboard-interactive",
                                         login_timeout=30)
    assert time.monotonic() - started < 5
    assert 3 <= len(asked) <= 25


async def test_the_address_book_forgets_idle_addresses(room):
    """Refused connections from many addresses do not pile up in memory."""
    from server.book import ADDRESS_BOOK_SWEEP
    from server.limits import Address
    book = room.room.book.addresses
    for i in range(ADDRESS_BOOK_SWEEP):
        book[f"10.0.{i // 256}.{i % 256}"] = Address(room.room.config.limits)
    busy = book["10.0.0.1"]
    busy.connections = 1                                 # holds a connection: kept
    spent = book["10.0.0.2"]
    assert spent.connects.take(5)                        # allowance not whole: kept
    (await room.connect("newcomer")).close()
    assert "10.0.0.1" in book and "10.0.0.2" in book
    assert len(book) < 10


def test_requests_from_other_processes_spend_a_session_s_and_an_address_s_tokens():
    """``RemoteRequests``: a request from a member elsewhere costs what its JSON line
    would here (a watch 5, an act 1), from its session's bucket and its address's."""
    from server.limits import Limits, RemoteRequests
    slow = dict(json_rate=1e-6, json_burst=10, address_json_rate=1e-6,
                address_json_burst=16)
    limits = RemoteRequests(Limits(**slow))

    def req(op, session, address="10.0.0.1", origin="p1"):
        return {"op": op, "origin": origin, "session": session, "address": address}
    assert limits.allow(req("watch", "a")) and limits.allow(req("watch", "a"))
    assert not limits.allow(req("watch", "a"))          # its 10 tokens are spent
    assert limits.allow(req("act", "b"))                # the address: 16 - 10 - 1 left
    assert limits.allow(req("watch", "b"))
    assert not limits.allow(req("sit", "b"))            # the address's are spent
    assert limits.allow(req("take", "c", address="10.0.0.2"))
    assert limits.allow(req("watch", "a", address="10.0.0.3", origin="p2"))  # p2's "a"
    assert limits.allow({"op": "fill", "origin": "p1", "session": ""})   # the room's own


async def test_the_seventeenth_guest_from_one_address_is_refused_in_words(room):
    """The production limits: 16 guests from one address, the 17th refused with why
    (and a person with a key from the same address still comes in)."""
    guests = [await room.connect(f"guest{i}", keyless=True) for i in range(16)]
    try:
        with pytest.raises((asyncssh.DisconnectError, ConnectionError)) as err:
            await room.connect("guest16", keyless=True)
        assert str(err.value).startswith("Too many connections from your address (at most "
                                         "16 guests at once; players with an SSH key are "
                                         "not counted)."), str(err.value)
        keyed = await room.json_client("keyed")
        keyed.send({"op": "tables"})
        await keyed.expect("tables")
        await keyed.close()
    finally:
        for g in guests:
            g.close()
