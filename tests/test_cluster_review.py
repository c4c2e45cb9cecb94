"""Practice tables, reviews and hints across processes (issue 29 in a room on
PostgreSQL): two real ``lamma serve`` processes on one throwaway database, as
tests/test_cluster.py starts them.

alice makes a practice table through p1 (its driver); bob sits at it through p2. On
bob's turn his hint comes from p2, worked out from the match as the store has it (only
from his seat's view); when it is not his turn it is refused. Once the first round is
over bob's review of it comes through p2 too — the very review worked out here from the
stored match with the same seeds (a review is the same whoever asks, wherever) — and is
kept with the match. Then p1 is killed mid-round: p2 takes the table over, and it is
still a practice table there (a hint is given, the listing says so).

And a terminal: bob's screens on p2 at alice's practice table (p1 drives it; rooms in
one test process, tests/test_cluster_rooms.py) give his hint on his turn and the
first round's review once it is over.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time

import pytest
from pg import throwaway_postgres, why_not
from test_cluster import Cluster, Serve, drive, listed, rejoin_while_playing
from test_cluster_rooms import play, rooms, sits_from_the_lobby, until  # noqa: F401  (rooms: a fixture)

from engine.bots.review import review_record
from engine.room import reviews
from engine.room.errors import RoomError

pytestmark = pytest.mark.slow      # two processes on PostgreSQL

GAME, LENGTH = "estimation", 13


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    reason = why_not()
    if reason:
        pytest.skip(reason)
    tmp = tmp_path_factory.mktemp("review")
    keys = tmp / "keys"
    with throwaway_postgres() as (url, admin):
        admin.execute("CREATE DATABASE review")
        database = url.format(db="review")
        procs = {n: Serve(n, database, keys, tmp / f"data-{n}", tmp / f"{n}.log")
                 for n in ("p1", "p2")}
        try:
            procs["p1"].start()
            procs["p1"].wait_ready()
            procs["p2"].start()
            procs["p2"].wait_ready()
            yield Cluster(database, admin, procs)
        finally:
            for p in procs.values():
                with contextlib.suppress(Exception):
                    p.stop()


def has_choice(c, seat: int) -> bool:
    v = c.view
    return (v is not None and v.get("seat") == seat and v["to_act"] == seat
            and len(v["legal"]) > 1)


async def until_choice(c, seat: int, others, timeout: float, what: str) -> None:
    """The ``others`` play (and ``c``, at ``seat``, its forced moves) until ``c`` has a
    choice to make (a hint is worth something)."""

    def ready() -> bool:
        if has_choice(c, seat):
            return True
        v = c.view
        if v is not None and v["to_act"] == v.get("seat") and len(v["legal"]) == 1:
            c.act_if_my_turn()
        return False
    await drive(others, ready, timeout, what)


# A refusal's own words (``Client.ask``'s ``about``): a move refused during the
# takeover says "It is not your turn." too, and may still be queued.
HINT_WORDS = ("A hint", "Hints")
REVIEW_WORDS = ("review", "Round ")


async def hint_on_turn(c) -> dict:
    """``c``'s hint on its turn (its view says so), as ``c``'s process gives it."""
    assert has_choice(c, c.view["seat"]), c.view
    legal = c.view["legal"]
    got = await c.ask({"op": "hint"}, "hint", timeout=60, about=HINT_WORDS)
    assert got["type"] == "hint", got
    assert got["action"] in legal, (got, legal)
    if got["next_best"] is not None:
        assert got["ev"] >= got["next_best"]["ev"]
    return got


def stored_match(cluster: Cluster, table: str):
    """The match row of ``table`` (its id, its settings) and the store's record of it."""
    import psycopg

    from server.store import Store
    with psycopg.connect(cluster.url) as db:
        [(mid, settings)] = db.execute("SELECT id, settings FROM matches WHERE table_id = %s",
                                       (table,)).fetchall()
    store = Store(cluster.url)
    try:
        stored = store.match(mid)
        assert stored is not None
        return mid, json.loads(settings), stored.record
    finally:
        store.close()


async def test_reviews_and_hints_for_a_member_attached_through_another_process(two):
    clients = []

    async def client(name: str, process: str):
        clients.append(await two.client(name, process))
        return clients[-1]

    try:
        # alice's practice table, driven by p1; bob sits at it through p2.
        alice = await client("alice", "p1")
        made = await alice.ask({"op": "create", "game": GAME, "length": LENGTH,
                                "computer": [2, 3], "level": "easy", "timer": 0,
                                "practice": True}, "joined")
        assert made.get("practice") is True, made
        table = made["table"]
        bob = await client("bob", "p2")
        row = await listed(bob, table)
        assert row.get("practice") is True, row          # said by p2's listing too
        joined = await bob.ask({"op": "join", "table": table}, "joined")
        assert joined["seat"] == 1, joined

        # bob's turn (the dash offer): his hint, from p2.
        await until_choice(bob, 1, [alice], 30, "bob's first turn")
        await hint_on_turn(bob)
        # alice's turn, not bob's: refused.
        await until_choice(alice, 0, [bob], 30, "alice's turn")
        refused = await bob.ask({"op": "hint"}, "hint", timeout=30, about=HINT_WORDS)
        assert refused["type"] == "error", refused
        assert refused["message"].startswith("A hint is for your own turn"), refused

        # Round 1 over: bob's review of it through p2; round 2's refused.
        await drive([alice, bob], lambda: bool(bob.view and bob.view["history"]), 120,
                    "round 1")
        early = await bob.ask({"op": "review", "table": table, "round": 2}, "review",
                            about=REVIEW_WORDS)
        assert early["type"] == "error" and "has not ended" in early["message"], early
        got = await bob.ask({"op": "review", "table": table, "round": 1}, "review",
                            timeout=120, about=REVIEW_WORDS)
        assert got["type"] == "review" and got["seat"] == 1, got
        assert got["decisions"], got
        mid, settings, record = stored_match(two, table)
        assert settings.get("practice") is True
        for d in got["decisions"]:
            assert record["log"][d["index"]] == [1, d["chosen"]]
        # The review its driver (or anyone) would give: the same seeds, the same data.
        here = review_record(record, 1, 1)
        assert {k: v for k, v in got.items() if k != "type"} == here
        import psycopg
        with psycopg.connect(two.url) as db:
            kept = db.execute("SELECT count(*) FROM reviews WHERE match_id = %s AND "
                              "round = 1 AND seat = 1", (mid,)).fetchone()
        assert kept == (1,)

        # p1 dies mid-round; p2 takes the table over: still a practice table.
        await drive([alice, bob], lambda: bool(bob.view and bob.view["phase"] == "play"
                                               and bob.view["tricks"]), 60, "into round 2")
        two.procs["p1"].kill()
        killed = time.monotonic()

        alice = await rejoin_while_playing(two, "alice", "p2", table, 0, killed, [bob])
        clients.append(alice)
        row = await listed(bob, table)
        assert row.get("practice") is True, row
        await until_choice(bob, 1, [alice], 60, "bob's turn after the takeover")
        await hint_on_turn(bob)
        await until_choice(alice, 0, [bob], 60, "alice's turn after it")
        await hint_on_turn(alice)
        # Round 1's review for bob now comes from p2's own table: read back, the same.
        again = await bob.ask({"op": "review", "table": table, "round": 1}, "review",
                              timeout=60, about=REVIEW_WORDS)
        assert again == got
    except BaseException:
        for p in two.procs.values():
            print(f"===== {p.name} =====\n{p.tail()}")
        for c in clients:
            print(f"{c}: errors {c.errors[-5:]}; last {c.last()}")
        raise
    finally:
        for c in clients:
            await c.close()


async def test_a_terminal_elsewhere_gets_its_hint_and_its_review(rooms, monkeypatch):  # noqa: F811
    for k, v in {"min": 16, "max": 64, "hint": 24}.items():
        monkeypatch.setitem(reviews.SAMPLES, k, v)
    reviews.forget()
    p1, p2, _ = rooms
    alice = await p1.json_client("alice")
    alice.send({"op": "create", "game": "estimation", "length": 13, "computer": [2, 3],
                "level": "easy", "practice": True})
    tid = (await alice.expect("joined"))["table"]
    bob = await p2.pty_client("bob", size=(100, 30))
    try:
        await sits_from_the_lobby(bob, "alice")
        member = next(m for m in p2.room.online.values() if m.name == "bob")
        await until(lambda: member.seat == 1, what="bob seated through p2")
        table = member.table
        assert table is not None and table is not p1.registry.tables[tid]    # shown here
        await until(lambda: table.practice, what="p2 shows the table as practice")

        def bobs_turn() -> bool:
            v = table.view_of(member)
            return bool(v and v["to_act"] == 1 and len(v["legal"]) > 1)
        await play([alice], bobs_turn, timeout=30)
        phase = table.view_of(member)["phase"]
        bob.press("H" if phase in ("auction", "call") else "h")
        await bob.wait_for("Hint:", timeout=30)
        # Round 1 to its end: bob's moves made for him at p2's table, as his keys would.
        # The view acted on is kept (not its id: a freed view's id is soon a new
        # view's), and a move still unanswered after 2 s is sent again (a refusal, or
        # one lost in a driver's takeover, leaves the same view shown).
        loop = asyncio.get_running_loop()
        acted: list = [None, 0.0]

        def over() -> bool:
            v = table.view_of(member)
            if v is None:
                return False
            if v["history"]:
                return True
            if v["to_act"] == 1 and v["legal"] and (
                    v is not acted[0] or loop.time() - acted[1] > 2.0):
                acted[:] = [v, loop.time()]
                with contextlib.suppress(RoomError):
                    table.act(member, v["legal"][0])
            return False
        await play([alice], over, timeout=120)
        bob.press("v")
        await bob.wait_for("You chose", timeout=60)
    finally:
        await bob.close()
        await alice.close()
