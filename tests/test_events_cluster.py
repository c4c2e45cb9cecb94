"""Duplicate events in a room of two processes on one PostgreSQL (docs/cluster.md): the
events and entries are the room's; an entry started through one process is resumed
through the other (its board driven where it was dealt, shown and played from the
other), and its boards and results are the same whichever process asks."""

from __future__ import annotations

import threading

import pytest
from conftest import start_room, stop_room
from eventplay import Entrant, ask, contrary, event_id, quick, wait_until

from engine.room.duplicate import EventSettings

pytestmark = pytest.mark.slow      # processes on PostgreSQL


@pytest.fixture
async def two(tmp_path, pg_url):
    started = []
    keys = tmp_path / "keys"
    try:
        for i in (1, 2):
            started.append(await start_room(
                tmp_path / f"p{i}", keys=keys, database=pg_url, process=f"p{i}",
                bot_pause=0.0, events=EventSettings(daily_boards=4, samples=8)))
        started[1]._keys = started[0]._keys        # one key per person, either process
        yield started
    finally:
        for srv in started:
            await stop_room(srv)


@pytest.mark.parametrize("game", ["estimation", "estimation-kotshina", "tarneeb41"])
async def test_an_entry_started_on_one_process_is_resumed_on_the_other(two, game):
    p1, p2 = two
    ana = Entrant(await p1.json_client("ana"), quick)
    eid = await event_id(ana.client, game)
    bob = await p2.json_client("bob")
    listed = await ask(bob, {"op": "events"})
    assert eid in [e["id"] for e in listed["events"]]          # the same events there
    ana.client.send({"op": "enter", "event": eid})
    await ana.play(until=lambda m: m["type"] == "joined" and m.get("board") == 2)
    moves = 0

    def some(m):
        nonlocal moves
        moves += m["type"] == "view" and m["view"]["to_act"] == m["view"]["seat"]
        return moves >= 2
    await ana.play(until=some)
    here = await ask(ana.client, {"op": "enter", "event": eid}, ("joined",))
    assert here["board"] == 2                                  # entering again: the same
    table = here["table"]
    assert table in p1.registry.tables                         # driven by p1
    seen = ana.client.view
    await ana.client.close()

    # ana comes back through p2: the board where it was, driven by p1, played from p2
    ana.client = await p2.json_client("ana")
    joined = await ana.client.expect("joined", timeout=20)
    assert (joined["table"], joined["event"], joined["board"]) == (table, eid, 2)
    back = await ana.client.expect("view", timeout=20)
    assert set(back["view"]["hand"]) <= set(seen["hand"])
    assert back["view"]["tricks"][:len(seen["tricks"])] == seen["tricks"]
    assert table not in p2.registry.tables and table in p2.registry.side.remote
    ana.acted_on = None
    v = back["view"]
    if v["to_act"] == v["seat"] and v["legal"]:
        ana.acted_on = v
        ana.client.send({"op": "act", "action": ana.policy(v)})
    await ana.play(timeout=180)
    assert sorted(ana.scores) == [1, 2, 3, 4] and ana.boards[-2:] == [3, 4]
    # boards 1 and 2 were dealt on p1, 3 and 4 where she was then: on p2
    rows = p1.room.store._x("SELECT event_board, process FROM matches WHERE event_id = ? "
                            "ORDER BY event_board", (eid,)).fetchall()
    assert rows == [(1, "p1"), (2, "p1"), (3, "p2"), (4, "p2")]
    # every process answers alike: her standings, each board's result
    cat = Entrant(await p1.json_client("cat"), contrary)
    cat.client.send({"op": "enter", "event": eid})
    await cat.play(timeout=180)
    for srv in (p1, p2):
        c = await srv.json_client("ana")
        st = await ask(c, {"op": "standings", "event": eid})
        assert {r["name"]: r["boards"] for r in st["rows"]} == {"ana": 4, "cat": 4}
        assert all("percent" in r for r in st["rows"])
        b = await ask(c, {"op": "board", "event": eid, "board": 2})
        assert {r["name"]: r["score"] for r in b["results"]}["ana"] == ana.scores[2]
        await c.close()
    for c in (ana.client, cat.client, bob):
        await c.close()



def _deals(srv, eid: int) -> list[tuple[int, str]]:
    """(board, process) of every stored match of the event (every deal of it)."""
    return srv.room.store._x("SELECT event_board, process FROM matches WHERE event_id = ? "
                             "ORDER BY id", (eid,)).fetchall()


async def test_one_key_entering_through_both_processes_at_once_is_dealt_once(two):
    """One entry, one deal (issue 41): the same key enters an event through both
    processes at the same moment (once for each daily event: three tries). Board 1 is
    dealt once, to one of them; the other is told it is being played, then and when it
    asks again, and is never dealt a copy (which would show it the deal for free)."""
    p1, p2 = two
    key = p1.key("ana")
    a = await p1.json_client("ana", key)
    b = await p2.json_client("ana2", key)        # another name of the same key
    for game in ("estimation", "estimation-kotshina", "tarneeb41"):
        eid = await event_id(a, game)
        assert await event_id(b, game) == eid
        for c in (a, b):
            c.drain()
        # A board's match is stored on the writer's thread just after it is dealt; that
        # moment is held open here on both processes, so that each enters while the
        # other's deal is not stored yet, every time (a test that cannot miss the race).
        gate = threading.Event()
        for srv in (p1, p2):
            assert srv.registry.store.writer is not None
            srv.registry.store.submit_job("-", "held by the test", lambda _s, g=gate: g.wait(30))
        try:
            a.send({"op": "enter", "event": eid})
            b.send({"op": "enter", "event": eid})
            first = [await c.expect_any(("joined", "error"), timeout=30) for c in (a, b)]
        finally:
            gate.set()
        assert sorted(m["type"] for m in first) == ["error", "joined"], first
        won = 0 if first[0]["type"] == "joined" else 1
        winner, loser = (a, b) if won == 0 else (b, a)
        assert first[won]["board"] == 1
        assert "being played" in first[1 - won]["message"], first
        await winner.expect("view", timeout=30)        # dealt: its match is being stored
        await wait_until(lambda e=eid: _deals(p1, e), 30, "board 1 stored")
        # asked again (the board is known everywhere by now): still not a second deal
        again = await ask(loser, {"op": "enter", "event": eid}, ("joined", "error"))
        assert again["type"] == "error", again
        assert _deals(p1, eid) == [(1, "p1" if won == 0 else "p2")]
        loser.drain()
        await ask(winner, {"op": "leave"}, ("left", "error"))
    for c in (a, b):
        await c.close()
