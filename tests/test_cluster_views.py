"""Issue 30: a seat's view reaches a member on another process only once the table's
driver has given that member the seat.

Three rooms in one test process on one throwaway PostgreSQL, as in
tests/test_cluster_rooms.py (each with its own connections, threads and cluster, as
three ``lamma serve`` processes have them), with real JSON clients and a terminal over
SSH. The computer players never move (``rooms``: seats stay where a test puts them) but
in the takeover's test (``playing_rooms``).

A process's listing of another process's tables may be a second old (it reads them at
most once a ``lobby_interval``; a person's arrival reads them again, but goes on with
what it has if the database is slow to answer). ``stale`` holds a process's listing as
it is, so the test does not race the second.
"""

from __future__ import annotations

import asyncio
import json
import threading

import psycopg
import pytest
from conftest import start_room, stop_room
from stacked import view_policy
from test_cluster_rooms import listed, until
from test_server_pty import cards_in

from server.cluster import LEASE

pytestmark = pytest.mark.slow      # three processes on PostgreSQL


async def three(tmp_path, pg_url, **config):
    started = []
    keys = tmp_path / "keys"
    try:
        for i in (1, 2, 3):
            started.append(await start_room(tmp_path / f"p{i}", keys=keys, database=pg_url,
                                            process=f"p{i}", **config))
        for srv in started[1:]:
            srv._keys = started[0]._keys        # one person, one key, on any process
        yield started
    finally:
        for srv in started:
            await stop_room(srv)


@pytest.fixture
async def rooms(tmp_path, pg_url):
    """Computer players that never move: seats stay where the test puts them."""
    async for started in three(tmp_path, pg_url):
        yield started


@pytest.fixture
async def playing_rooms(tmp_path, pg_url):
    """Computer players that move at once."""
    async for started in three(tmp_path, pg_url, bot_pause=0.05):
        yield started


async def stale(srv) -> None:
    """``srv``'s listing of other processes' tables stays as it is now: changes are not
    read, and a person arriving finds the rows as they were (as when the database does
    not answer within ``fresh_rows``'s wait)."""
    side = srv.registry.side
    side.rows_changed = lambda: None
    # Nor the rows that notices carry (issue 41): a notice still fetches a frame.
    heard = side.table_changed
    side.table_changed = lambda tid, row=None: heard(tid, None)

    async def slow(within: float = 3.0) -> None:
        return None
    side.fresh_rows = slow
    await asyncio.sleep(0.5)            # a read on its way when frozen has come back


def frame_names(pg_url: str, tid: str) -> list:
    """The seat holders' names in the table as its driver last wrote it: its whole
    frame and the events after it (issue 41), as a process showing it reads them."""
    from engine.room.frames import merged
    with psycopg.connect(pg_url, autocommit=True) as db:
        row = db.execute("SELECT frame FROM room_tables WHERE id = %s", (tid,)).fetchone()
        if row is None or row[0] is None:
            return []
        frame = json.loads(row[0])
        for (body,) in db.execute("SELECT body FROM room_table_events WHERE table_id = %s "
                                  "AND seq > %s ORDER BY seq", (tid, frame["seq"])):
            frame = merged(frame, json.loads(body), 50)
    return [s.get("name") for s in frame["seats"]]


async def messages_until(client, mtypes: tuple[str, ...], timeout: float = 10.0) -> list[dict]:
    """Every message ``client`` gets up to the first of one of ``mtypes`` (included)."""
    got: list[dict] = []
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        left = deadline - asyncio.get_running_loop().time()
        assert left > 0, f"no {mtypes} within {timeout} s: {got}"
        msg = await asyncio.wait_for(client.messages.get(), left)
        assert msg is not None, f"closed while waiting for {mtypes}: {got}"
        got.append(msg)
        if msg.get("type") in mtypes:
            return got


def hands(msgs: list[dict]) -> list[tuple]:
    """(seat, cards) of every view among ``msgs`` that shows a hand."""
    return [(m["view"].get("seat"), m["view"].get("hand")) for m in msgs
            if m.get("type") == "view" and m["view"].get("hand")]


async def test_a_seat_taken_meanwhile_shows_its_holders_hand_to_nobody_elsewhere(rooms,
                                                                                 pg_url):
    """The review's attack: dave's table on p2 has one seat free, carol watches it from p3
    (p2 writes frames), frank on p2 takes the free seat; eve on p1, whose listing still
    shows it free, asks for it. She is refused, and never sees frank's cards."""
    p1, p2, p3 = rooms
    dave = await p2.json_client("dave")
    dave.send({"op": "create", "game": "estimation", "length": 13, "computer": [2, 3]})
    tid = (await dave.expect("joined"))["table"]
    carol = await p3.json_client("carol")
    await listed(carol, tid)
    carol.send({"op": "watch", "table": tid})
    await carol.expect("watching")
    eve = await p1.json_client("eve")
    row = await listed(eve, tid)
    assert row["seats"][1]["kind"] == "empty"
    await stale(p1)
    frank = await p2.json_client("frank")
    frank.send({"op": "join", "table": tid, "seat": 1})
    assert (await frank.expect("joined"))["seat"] == 1
    mine = (await frank.expect("view"))["view"]["hand"]
    assert len(mine) == 13
    await until(lambda: "frank" in frame_names(pg_url, tid), what="p2 wrote frank's frame")
    assert p1.registry.find(tid).seats[1].kind == "empty"       # p1 still sees it free
    eve.drain()
    eve.send({"op": "join", "table": tid, "seat": 1})
    got = await messages_until(eve, ("error",))
    await asyncio.sleep(0.5)                # anything said after the refusal too
    got += eve.drain()
    assert not hands(got), f"eve was shown a hand: {got}"
    assert all(m["type"] != "joined" for m in got), got
    refusal = next(m for m in got if m["type"] == "error")
    assert "already playing" in refusal["message"], refusal
    member = p1.room.online["eve"]
    assert member.seat is None
    for c in (dave, carol, eve, frank):
        await c.close()


def before_joined(msgs: list[dict]) -> list[dict]:
    """The messages before the first "joined"."""
    types = [m["type"] for m in msgs]
    return msgs[:types.index("joined")] if "joined" in types else msgs


async def test_a_seat_held_in_a_stale_listing_is_asked_of_its_driver_on_arrival(rooms,
                                                                                pg_url):
    """A person arriving who holds a seat (as far as this process knows) is seated only
    once the driver says so: eve's seat at dave's Tarneeb table went to a computer
    player when she left, then frank took it; p1, whose listing still has eve in it,
    asks p2 for the seat when she arrives there, and shows her nothing of frank's."""
    p1, p2, p3 = rooms
    dave = await p2.json_client("dave")
    dave.send({"op": "create", "game": "tarneeb41", "computer": [2, 3]})
    tid = (await dave.expect("joined"))["table"]
    carol = await p3.json_client("carol")
    await listed(carol, tid)
    carol.send({"op": "watch", "table": tid})
    await carol.expect("watching")
    # An honest seat across processes: "joined" once the driver gave it, then the hand.
    eve = await p1.json_client("eve")
    await listed(eve, tid)
    eve.drain()
    eve.send({"op": "join", "table": tid})
    got = await messages_until(eve, ("joined",))
    assert got[-1]["seat"] == 1 and not hands(got), got
    view = (await eve.expect("view"))["view"]
    assert view["seat"] == 1 and len(view["hand"]) == 13
    await eve.close()
    rt = p1.registry.find(tid)
    assert rt is not None and rt.replica is not None
    ident = p2.registry.tables[tid].seats[1].ident
    await until(lambda: not p1.registry.side.remote[tid].local and rt.seats[1].held_by(ident),
                what="p1 lists eve's seat as held")
    await stale(p1)
    # eve leaves the match through p3: a computer player takes her seat; frank takes it.
    eve3 = await p3.json_client("eve")
    await eve3.expect("joined")
    eve3.send({"op": "leave"})
    await eve3.expect("left")
    table = p2.registry.tables[tid]
    await until(lambda: table.seats[1].kind == "bot", what="a computer player in seat 1")
    await eve3.close()
    frank = await p2.json_client("frank")
    frank.send({"op": "join", "table": tid, "seat": 1})
    assert (await frank.expect("joined"))["seat"] == 1
    assert (await frank.expect("view"))["view"]["hand"] == view["hand"]
    await until(lambda: "frank" in frame_names(pg_url, tid), what="p2 wrote frank's frame")
    assert rt.seats[1].kind == "human" and rt.status == "playing"   # p1: eve's, still
    # eve arrives at p1: held there, as p1 sees it.
    eve1 = await p1.json_client("eve")
    got = await messages_until(eve1, ("error",))
    await asyncio.sleep(0.5)
    got += eve1.drain()
    assert not hands(got) and all(m["type"] != "joined" for m in got), got
    assert p1.room.online["eve"].seat is None
    for c in (dave, carol, frank, eve1):
        await c.close()


async def test_a_computer_players_seat_elsewhere_shows_its_hand_once_granted(rooms,
                                                                              pg_url):
    """take_seat: a computer player's seat that frank took meanwhile is refused to eve
    (p1 still lists it as a computer player's) with no hand shown; the one still free
    shows eve her hand after "joined"."""
    p1, p2, p3 = rooms
    dave = await p2.json_client("dave")
    dave.send({"op": "create", "game": "estimation", "length": 13, "computer": [1, 2, 3]})
    tid = (await dave.expect("joined"))["table"]
    carol = await p3.json_client("carol")
    await listed(carol, tid)
    carol.send({"op": "watch", "table": tid})
    await carol.expect("watching")
    eve = await p1.json_client("eve")
    row = await listed(eve, tid)
    assert row["status"] == "playing" and row["seats"][2]["kind"] == "bot"
    await stale(p1)
    frank = await p2.json_client("frank")
    frank.send({"op": "join", "table": tid, "seat": 2})
    assert (await frank.expect("joined"))["seat"] == 2
    await until(lambda: "frank" in frame_names(pg_url, tid), what="p2 wrote frank's frame")
    assert p1.registry.find(tid).seats[2].kind == "bot"
    eve.drain()
    eve.send({"op": "join", "table": tid, "seat": 2})
    got = await messages_until(eve, ("error",))
    await asyncio.sleep(0.5)
    got += eve.drain()
    assert not hands(got) and all(m["type"] != "joined" for m in got), got
    eve.send({"op": "join", "table": tid, "seat": 3})
    got = await messages_until(eve, ("joined",))
    assert got[-1]["seat"] == 3 and not hands(got), got
    view = (await eve.expect("view"))["view"]
    assert view["seat"] == 3 and len(view["hand"]) == 13
    assert p1.room.online["eve"].seat == 3
    for c in (dave, carol, eve, frank):
        await c.close()


async def test_a_table_taken_over_shows_each_member_their_own_seat_only(playing_rooms,
                                                                      pg_url):
    """lease_lost, adopt, reattach: p1 loses its table's lease and another process takes
    it over; alice (at p1) is seated again by the new driver before she is shown her
    hand again, bob (p2) and carol (p3, watching) go on; nobody is ever shown a seat's
    view but their own, and the match goes on."""
    p1, p2, p3 = playing_rooms
    alice = await p1.json_client("alice")
    alice.send({"op": "create", "game": "estimation", "length": 13, "computer": [2, 3]})
    tid = (await alice.expect("joined"))["table"]
    bob = await p2.json_client("bob")
    await listed(bob, tid)
    bob.send({"op": "join", "table": tid})
    await bob.expect("joined")
    carol = await p3.json_client("carol")
    await listed(carol, tid)
    carol.send({"op": "watch", "table": tid})
    await carol.expect("watching")
    table = p1.registry.tables[tid]
    seen: dict[str, list[dict]] = {"alice": [], "bob": [], "carol": []}
    people = {"alice": alice, "bob": bob, "carol": carol}

    def keep() -> None:
        for name, c in people.items():
            seen[name] += c.drain()

    async def play(stop, timeout: float = 60.0) -> None:
        """alice and bob act on their newest view when it is their turn (every message
        kept), until ``stop()``."""
        deadline = asyncio.get_running_loop().time() + timeout
        acted: dict[str, object] = {}
        while not stop():
            assert asyncio.get_running_loop().time() < deadline, "play did not get there"
            keep()
            for name in ("alice", "bob"):
                c = people[name]
                v = c.view
                if v and v.get("to_act") == v["seat"] and v.get("legal") and \
                        acted.get(name) is not v:
                    acted[name] = v
                    c.send({"op": "act", "action": view_policy(v)})
            await asyncio.sleep(0.02)
        keep()
    await play(lambda: table.match is not None and len(table.match.log) > 6)
    # p1 stalls (its heartbeat with it) past its lease: another process takes the table.
    stuck = threading.Event()
    mark = len(seen["alice"])
    p1.room.cluster._work.put(lambda store: stuck.wait(30))
    try:
        await until(lambda: tid in p2.registry.tables or tid in p3.registry.tables,
                    timeout=20, what="another process takes the table over")
    finally:
        stuck.set()
    await until(lambda: table.closed, what="p1 stops driving the table")

    def moved() -> list[dict]:
        """alice's messages from being told the table moved to her "joined" again."""
        keep()
        types = [m["type"] for m in seen["alice"]]
        if "notice" not in types[mark:]:
            return []
        at = types.index("notice", mark)
        return seen["alice"][at:types.index("joined", at) + 1] if "joined" in types[at:] else []
    await until(lambda: bool(moved()), timeout=20, what="alice seated by the new driver")
    got = moved()
    assert "moved" in got[0]["text"] and got[-1]["seat"] == 0, got
    assert not hands(got), got
    driver = p2 if tid in p2.registry.tables else p3
    new = driver.registry.tables[tid]
    done = len(new.match.log) + 8
    await play(lambda: len(new.match.log) > done)
    for name, seat in (("alice", 0), ("bob", 1), ("carol", None)):
        views = [m["view"] for m in seen[name] if m["type"] == "view"]
        assert views, name
        assert {v["seat"] for v in views} == {seat}, (name, {v["seat"] for v in views})
        if seat is None:
            assert not any(v["hand"] for v in views)
    assert p1.room.online["alice"].seat == 0 and not alice.errors
    for c in people.values():
        await c.close()


async def test_a_terminal_asking_for_a_seat_taken_meanwhile_draws_no_hand(rooms, pg_url):
    """The attack through the card room: eve's terminal on p1 sits (Enter in the lobby)
    at the seat frank took meanwhile on p2. Her screen goes back to the lobby with the
    driver's refusal, and never draws a card."""
    p1, p2, p3 = rooms
    dave = await p2.json_client("dave")
    dave.send({"op": "create", "game": "estimation", "length": 13, "computer": [2, 3]})
    tid = (await dave.expect("joined"))["table"]
    carol = await p3.json_client("carol")
    await listed(carol, tid)
    carol.send({"op": "watch", "table": tid})
    await carol.expect("watching")
    eve = await p1.pty_client("eve", size=(100, 30))
    try:
        await eve.wait_for("card room")
        await eve.wait_for("dave")
        await stale(p1)
        frank = await p2.json_client("frank")
        frank.send({"op": "join", "table": tid, "seat": 1})
        assert (await frank.expect("view"))["view"]["seat"] == 1
        await until(lambda: "frank" in frame_names(pg_url, tid), what="p2 wrote frank's frame")
        # p2 is busy (as under a flood): its answer comes later — but within its lease
        # (its heartbeat waits behind the same work): a longer stall is a dead driver,
        # and p1 would take the table over and seat eve there as a spectator.
        busy = threading.Event()
        p2.room.cluster._work.put(lambda store: busy.wait(LEASE / 2))
        start = len(eve.raw)
        eve.press("enter")                       # sit at the selected (only) table
        await eve.wait_for("already playing", timeout=10)
        await asyncio.sleep(0.5)
        assert not cards_in(eve.plain_since(start)), eve.plain_since(start)
        assert p1.room.online["eve"].table is None
    finally:
        await eve.close()
    for c in (dave, carol, frank):
        await c.close()
