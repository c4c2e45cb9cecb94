"""Duplicate events with real SSH clients (docs/events.md): three keyed players play
every board of the daily event (one leaves mid-board, reconnects and resumes), a guest
plays unranked; nothing of the comparison shows before an entry is finished; the
standings and each board's matchpoints are those worked out by hand from the stored
scores; and every refusal changes nothing."""

from __future__ import annotations

import sqlite3

import pytest
from conftest import start_room, stop_room
from eventplay import Entrant, ask, by_hand, contrary, event_id, quick, stored_results

from engine.room.duplicate import EventSettings

pytestmark = pytest.mark.slow       # whole events played against computer players

GAMES = ("estimation", "estimation-kotshina", "tarneeb41")
# The rounds of an 8-board event, board by board, as docs/events.md says: the dealer
# goes round; Estimation's last 8*5/18 ~ 2 boards are fast rounds with their trumps (NT,
# then S); the calculator scoring's fixed rounds take the trumps in order; Tarneeb 41
# hands. All at x1.
ROUNDS = {
    "estimation": [("auction", None)] * 6 + [("fast", "NT"), ("fast", "S")],
    "estimation-kotshina": [("fixed", t) for t in ("NT", "S", "H", "D", "C", "NT", "S",
                                                   "H")],
    "tarneeb41": [("hand", None)] * 8,
}


def settings(boards: int = 8) -> EventSettings:
    # The strong computer players with a small budget: quick, and as deterministic.
    return EventSettings(daily_boards=boards, samples=8)


@pytest.fixture
async def events_room(tmp_path):
    srv = await start_room(tmp_path, bot_pause=0.0, events=settings())
    try:
        yield srv
    finally:
        await stop_room(srv)


@pytest.mark.parametrize("game", GAMES)
async def test_three_entrants_and_a_guest_play_the_daily_event(events_room, tmp_path, game):
    srv = events_room
    alice = Entrant(await srv.json_client("alice"), quick)
    bob = Entrant(await srv.json_client("bob"), quick)          # plays as alice does
    carol = Entrant(await srv.json_client("carol"), contrary)
    eid = await event_id(alice.client, game)
    listed = await ask(alice.client, {"op": "events"})
    row = next(e for e in listed["events"] if e["id"] == eid)
    assert row["boards"] == 8 and row["you"] == "new" and row["entries"] == 0
    assert row["opens"].endswith("T00:00:00Z") and row["status"] == "open"
    # the fields as issue 27 writes them
    assert {"id", "name", "game", "boards", "opens", "closes", "entries", "status",
            "you"} <= set(row)

    # alice plays every board; each board's "joined" says which
    alice.client.send({"op": "enter", "event": eid})
    await alice.play()
    assert alice.boards == list(range(1, 9)) and sorted(alice.scores) == list(range(1, 9))
    assert not alice.errors, alice.errors
    assert {"table", "seat", "event", "board"} <= set(alice.last["joined"])
    assert {"event", "board", "score"} <= set(alice.last["board_over"])
    assert alice.last["event_done"] == {"type": "event_done", "event": eid}
    assert [alice.rounds[k] for k in range(1, 9)] == [
        (kind, trump, (k - 1) % 4, 1) for k, (kind, trump) in enumerate(ROUNDS[game], 1)]
    # Tarneeb 41: the score is personal, the side's beside it; Estimation has no side.
    assert all((side is not None) == (game == "tarneeb41") for side in alice.sides.values())

    # carol: two boards and a half, then leaves her board
    carol.client.send({"op": "enter", "event": eid})
    await carol.play(until=lambda m: m["type"] == "joined" and m.get("board") == 3)
    moves = 0

    def after_moves(m):
        nonlocal moves
        if m["type"] == "view" and m["view"]["to_act"] == m["view"]["seat"]:
            moves += 1
        return moves >= 3
    await carol.play(until=after_moves)
    carol.client.drain()
    carol.client.send({"op": "leave"})
    left = await carol.client.expect("left")
    # Nothing of the comparison before her last board: the others' scores, the ranks
    # and percentages, any board's results.
    for k in (1, 2, 3):
        refused = await ask(carol.client, {"op": "board", "event": eid, "board": k})
        assert refused["type"] == "error" and "Finish every board" in refused["message"]
    early = await ask(carol.client, {"op": "standings", "event": eid})
    assert early["type"] == "standings" and early["event"] == eid
    assert all("percent" not in r and r["rank"] is None for r in early["rows"])
    assert {r["name"]: r["boards"] for r in early["rows"]} == {"alice": 8, "carol": 2}
    # Nobody watches or sits at a board; it is not listed.
    tables = await ask(bob.client, {"op": "tables"}, ("tables",))
    assert all(t["id"] != left["table"] for t in tables["tables"])
    refused = await ask(bob.client, {"op": "watch", "table": left["table"]})
    assert refused["type"] == "error" and "Nobody watches" in refused["message"]
    refused = await ask(bob.client, {"op": "join", "table": left["table"]})
    assert refused["type"] == "error" and "another entrant's" in refused["message"]
    seen = dict(carol.client.view)
    await carol.client.close()

    # She comes back on a new connection: her board where it was.
    carol.client = await srv.json_client("carol")
    joined = await carol.client.expect("joined")
    assert (joined["table"], joined["event"], joined["board"]) == (left["table"], eid, 3)
    back = (await carol.client.expect("view"))["view"]
    # Where she left it, or the computer players' moves after hers further on.
    assert back["seat"] == 0 and back["phase"] != "over"
    assert set(back["hand"]) <= set(seen["hand"])
    assert back["tricks"][:len(seen["tricks"])] == seen["tricks"]
    assert all(d == back["declarations"][i] for i, d in enumerate(seen["declarations"])
               if d is not None)
    carol.client.send({"op": "enter", "event": eid})          # entering again: the same board
    again = await carol.client.expect("joined")
    assert (again["table"], again["board"]) == (left["table"], 3)
    carol.acted_on = None
    if back["to_act"] == back["seat"]:
        carol.acted_on = back
        carol.client.send({"op": "act", "action": carol.policy(back)})
    await carol.play()
    assert carol.boards == list(range(1, 9)) and sorted(carol.scores) == list(range(1, 9))

    # bob plays as alice did: the computer players answer him as they answered her
    bob.client.send({"op": "enter", "event": eid})
    await bob.play()
    assert bob.scores == alice.scores

    # a guest plays a board, unranked
    guest = Entrant(await srv.guest_client("dana"), quick)
    guest.client.send({"op": "enter", "event": eid})
    await guest.play(until=lambda m: m["type"] == "board_over")
    assert 1 in guest.scores
    g = await ask(guest.client, {"op": "board", "event": eid, "board": 1})
    assert g["type"] == "error"

    # What was stored, and the room's answers against matchpoints worked out by hand.
    stored = stored_results(tmp_path / "data" / "lamma.db", eid)
    assert len(stored) == 24 and {name for _k, name, *_ in stored} == {"alice", "bob", "carol"}
    for _key, name, board, _seat, score in stored:
        assert {"alice": alice, "bob": bob, "carol": carol}[name].scores[board] == score
    pct, total = by_hand([(n, b, s, sc) for _k, n, b, s, sc in stored], 8)
    for who in (alice, bob, carol):
        st = await ask(who.client, {"op": "standings", "event": eid})
        assert all(set(r) == {"rank", "name", "percent", "boards"} for r in st["rows"])
        rows = {r["name"]: r for r in st["rows"]}
        assert set(rows) == {"alice", "bob", "carol"}          # the guest is not ranked
        for name, r in rows.items():
            assert r["boards"] == 8 and r["percent"] == pytest.approx(total[name], abs=0.01)
        ranks = sorted(st["rows"], key=lambda r: r["rank"])
        assert [r["name"] for r in ranks] == [r["name"] for r in st["rows"]]
        assert ranks[0]["percent"] == max(total.values()).__round__(2)
        for k in range(1, 9):
            b = await ask(who.client, {"op": "board", "event": eid, "board": k})
            assert b["type"] == "board" and (b["event"], b["board"]) == (eid, k)
            assert all({"name", "seat", "score", "percent"} <= set(r) for r in b["results"])
            assert {r["name"]: (r["score"], r["percent"]) for r in b["results"]} == {
                n: (sc, pytest.approx(pct[(n, k)], abs=0.01))
                for _key, n, bb, _s, sc in stored if bb == k}
    # exactly once: each board a match, finished, its result once
    db = sqlite3.connect(tmp_path / "data" / "lamma.db")
    rows = db.execute("SELECT entrant, event_board, finished FROM matches "
                      "WHERE event_id = ?", (eid,)).fetchall()
    db.close()
    keyed = [r for r in rows if not r[0].startswith("guest:")]
    assert len(keyed) == 24 and all(r[2] is not None for r in keyed)
    assert len({(r[0], r[1]) for r in keyed}) == 24
    listed = await ask(alice.client, {"op": "events"})
    row = next(e for e in listed["events"] if e["id"] == eid)
    assert row["you"] == "finished" and row["entries"] == 3
    for who in (alice, bob, carol, guest):
        await who.client.close()


async def test_what_may_not_be_done_is_said_and_changes_nothing(events_room, tmp_path):
    """Over SSH, as a program: a guest making an event, too many events, an unknown or
    closed event, a second entry, a board asked for too early — each an error in words,
    and the events, entries and results as they were."""
    srv = events_room
    ada = Entrant(await srv.json_client("ada"), quick)
    gus = await srv.guest_client("gus")
    db = tmp_path / "data" / "lamma.db"

    def kept() -> tuple:
        c = sqlite3.connect(db)
        try:
            return tuple(c.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
                         for t in ("events", "event_entries", "event_results"))
        finally:
            c.close()

    async def refused(client, op: dict, words: str) -> None:
        before = kept()
        listed = (await ask(client, {"op": "events"}))["events"]
        msg = await ask(client, op)
        assert msg["type"] == "error" and words in msg["message"], (op, msg)
        assert kept() == before, op
        assert (await ask(client, {"op": "events"}))["events"] == listed, op

    daily = await event_id(ada.client, "estimation")
    await refused(gus, {"op": "create_event", "game": "estimation", "boards": 4,
                        "hours": 1, "private": False}, "Guests cannot make events")
    await refused(ada.client, {"op": "enter", "event": 999}, "No event 999")
    await refused(ada.client, {"op": "board", "event": daily, "board": 1}, "Finish every board")
    await refused(ada.client, {"op": "create_event", "game": "estimation", "boards": 30,
                               "hours": 1, "private": False}, "4 to 24 boards")
    made = []
    for private in (False, False, True):                # per key: 3 open at once
        ev = await ask(ada.client, {"op": "create_event", "game": "tarneeb41", "boards": 4,
                                    "hours": 1, "private": private})
        assert ev["type"] == "event" and ev["event"]["boards"] == 4, ev
        assert ("code" in ev["event"]) == private            # a private one's code
        made.append(ev["event"]["id"])
    await refused(ada.client, {"op": "create_event", "game": "tarneeb41", "boards": 4,
                               "hours": 1, "private": False}, "3 open events (at most 3)")
    # ada plays her own event's 4 boards; then a second entry is refused, and the
    # comparison is hers to see
    ada.client.drain()
    ada.client.send({"op": "enter", "event": made[0]})
    await ada.play(timeout=120)
    assert sorted(ada.scores) == [1, 2, 3, 4]
    await refused(ada.client, {"op": "enter", "event": made[0]}, "played every board")
    b = await ask(ada.client, {"op": "board", "event": made[0], "board": 4})
    assert b["type"] == "board" and [r["name"] for r in b["results"]] == ["ada"]
    assert b["results"][0]["percent"] == 50.0               # alone on it
    # an event an operator closed (/event close) takes no entry
    said = srv.room.moderation.op_event("op", ["close", str(made[1])])
    assert "closed" in said
    await refused(gus, {"op": "enter", "event": made[1]}, "is closed")
    await refused(ada.client, {"op": "board", "event": made[0], "board": 5},
                  "has boards 1 to 4")
    for c in (ada.client, gus):
        await c.close()


async def test_operators_make_list_and_close_events(events_room):
    """/event for operators (keys/operators): make one (private: its code said), list
    every event with private codes, close one (its board in play ends); an operator's
    events list has the private ones; to anyone else /event is unknown."""
    srv = events_room
    (srv.room.config.keys / "operators").write_text(
        srv.key("opal").export_public_key().decode())
    opal, bob = await srv.json_client("opal"), await srv.json_client("bob")

    async def command(client, line: str) -> dict:
        return await ask(client, {"op": "command", "line": line}, ("command", "error"))

    refused = await command(bob, "/event make estimation 4 2")
    assert refused["type"] == "error" and "Unknown command" in refused["message"]
    made = await command(opal, "/event make tarneeb41 4 2 private")
    assert made["type"] == "command" and "private, code" in made["reply"], made
    eid = int(made["reply"].split()[1].rstrip(":"))
    code = made["reply"].rsplit("code ", 1)[1].rstrip(".")
    listed = (await command(opal, "/event list"))["reply"]
    assert f"{eid} " in listed and f"code {code}" in listed and "Daily" in listed
    assert eid in [e["id"] for e in (await ask(opal, {"op": "events"}))["events"]]
    assert eid not in [e["id"] for e in (await ask(bob, {"op": "events"}))["events"]]
    for bad in ("/event make whist 4 2", "/event make estimation 2 2",
                "/event make estimation 4 2 secret", "/event close 999", "/event"):
        msg = await command(opal, bad)
        assert msg["type"] == "error", (bad, msg)
    assert (await command(opal, "/event list"))["reply"] == listed     # nothing made
    # bob enters by code and is at board 1 when the operator closes it
    bob.drain()
    bob.send({"op": "enter", "code": code})
    joined = await bob.expect("joined")
    assert (joined["event"], joined["board"]) == (eid, 1)
    closed = await command(opal, f"/event close {eid}")
    assert closed["type"] == "command" and "closed" in closed["reply"]
    await bob.expect("left")
    assert joined["table"] not in srv.registry.tables
    again = await ask(bob, {"op": "enter", "event": eid})
    assert again["type"] == "error" and "is closed" in again["message"]
    logged = (await command(opal, "/log"))["reply"]
    assert f"opal: event close {eid}" in logged and "whist" not in logged
    for c in (opal, bob):
        await c.close()
