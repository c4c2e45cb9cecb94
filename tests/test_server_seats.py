"""Private tables by invitation code, and people taking computer players' seats:
the table registry with a real Store (moves made directly, so every state is
reached on purpose), then the real server with JSON clients over SSH."""

from __future__ import annotations

import asyncio
import json

import pytest
from stacked import quick_policy as policy

from engine.room import (
    CODE_ALPHABET,
    CODE_LEN,
    CODE_TRIES,
    CODE_WINDOW,
    NullStore,
    Registry,
    RoomError,
    code_label,
)
from engine.room import Session as Member
from engine.room import codes as tables_mod
from server.persistence import TableStore, restore
from server.store import Store

SLOW = 3600.0      # computer players never move by themselves in these tests


def step(table):
    """One move of whoever is to act, through the table as the room makes it."""
    seat = table.match.to_act
    table.runner.check_and_apply(seat, policy(table.match, seat), "bot")


def to_mid_round(table):
    while table.between_rounds():
        step(table)
    assert len(table.match.log) > 0 and not table.between_rounds()


def finish_round(table):
    rounds = len(table.match.history)
    while len(table.match.history) == rounds and table.match.to_act is not None:
        step(table)


class Recorder(Member):
    def __init__(self, name):
        super().__init__(name, f"key:fp-{name}:{name}")
        self.granted, self.dropped = [], []

    def seat_granted(self, table, seat):
        self.granted.append((table.id, seat))

    def request_dropped(self, table, seat, reason):
        self.dropped.append((table.id, seat, reason))


class CountingStore(NullStore):
    def __init__(self):
        self.seat_changes = []

    def seats_changed(self, table):
        self.seat_changes.append([s.name if s.kind == "human" else None for s in table.seats])


def bot_table(reg, owner, game="estimation", length=13, private=False):
    t = reg.create(game, length, private=private)
    t.sit(owner, 0)
    t.fill_with_bots(owner, [1, 2, 3], "easy")
    assert t.status == "playing"
    return t


# ------------------------------------------------------------ invitation codes

async def test_codes_are_long_unambiguous_and_typed_loosely():
    reg = Registry(bot_pause=SLOW)
    owner = Member("ana", "key:a")
    codes = set()
    for _ in range(40):
        t = reg.create("estimation", private=True)
        assert len(t.code) == CODE_LEN and set(t.code) <= set(CODE_ALPHABET)
        codes.add(t.code)
    assert len(codes) == 40                              # one code, one table
    assert not set("01ILO") & set(CODE_ALPHABET)         # nothing to misread
    t = reg.create("estimation", private=True)
    t.sit(owner, 0)
    label = code_label(t.code)
    assert label == t.code[:4] + "-" + t.code[4:]
    for typed in (label, label.lower(), " " + t.code.lower() + " ", t.code[:4] + " " + t.code[4:]):
        assert t.code_matches(typed), typed
    for typed in (None, 12345678, "", t.code[:-1], t.code + "A", "é" * 8, t.code[1:] + "Z",
                  ["x"], "x" * 10000):
        assert not t.code_matches(typed), typed
    ben = Member("ben", "key:b")
    assert reg.find_code(ben, label.lower()) is t
    assert [r["id"] for r in reg.listing(ben)] == [t.id]   # only the one ben has the code of


async def test_wrong_codes_change_nothing_and_are_rate_limited(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(tables_mod.time, "monotonic", lambda: now[0])
    reg = Registry(bot_pause=SLOW)
    t = reg.create("tarneeb41", private=True)
    t.sit(Member("ana", "key:a"), 0)
    eve = Member("eve", "key:e")
    wrong = next(c * CODE_LEN for c in CODE_ALPHABET if c * CODE_LEN != t.code)
    before = (t.summary(), reg.listing(eve))
    for _i in range(CODE_TRIES):
        with pytest.raises(RoomError, match="Wrong code"):
            reg.find_code(eve, wrong)
        now[0] += 1
    with pytest.raises(RoomError, match=r"No table .* with that code"):
        reg.check_code(Member("eve2", "key:e2"), t, wrong)   # another session: own count
    # The limit reached: even the right code is refused, unchecked, until the window passes.
    for check in (lambda: reg.find_code(eve, t.code), lambda: reg.check_code(eve, t, t.code)):
        with pytest.raises(RoomError, match="Too many wrong codes: wait"):
            check()
    assert (t.summary(), reg.listing(eve)) == before and eve.table is None and not eve.unlocked
    now[0] += CODE_WINDOW
    assert reg.find_code(eve, t.code) is t


async def test_every_private_table_is_compared_in_constant_time(monkeypatch):
    calls = []
    real = tables_mod.hmac.compare_digest

    def counting(a, b):
        calls.append((a, b))
        return real(a, b)
    monkeypatch.setattr(tables_mod.hmac, "compare_digest", counting)
    reg = Registry(bot_pause=SLOW)
    made = [reg.create("estimation", private=True) for _ in range(3)]
    reg.create("estimation")                                     # public: no code to compare
    assert reg.find_code(Member("ben", "key:b"), made[0].code) is made[0]
    assert len(calls) == 3                    # found first, and the other two compared all the same


# ------------------------------------------------- a computer player's seat

async def test_take_a_seat_before_the_start_and_between_rounds_at_once():
    store = CountingStore()
    reg = Registry(store=store, bot_pause=SLOW)
    ana, ben, cat = Member("ana", "key:a"), Recorder("ben"), Recorder("cat")
    waiting = reg.create("estimation", 13)
    waiting.sit(ana, 0)
    waiting.fill_with_bots(ana, [1, 2])
    assert waiting.take_seat(ben, 1) is True                     # not started: at once
    assert waiting.seats[1].name == "ben" and ben.seat == 1 and waiting.counts_for_points
    assert store.seat_changes == []                             # nothing started to store
    waiting.detach(ben, keep_seat=False)

    t = bot_table(reg, Member("dee", "key:d"))
    finish_round(t)                                             # round 2 dealt, nobody acted
    assert t.between_rounds()
    version, holder = t.version, t.seats[2]
    assert t.take_seat(cat, 2) is True
    assert t.seats[2].kind == "human" and t.seats[2].name == "cat" and cat.granted == [(t.id, 2)]
    assert t.version > version and holder.kind == "bot"          # a pending bot move is stale
    assert not t.counts_for_points and store.seat_changes[-1][2] == "cat"
    assert any("cat takes Bot-3's seat" in e.text for e in t.events)


async def test_take_a_seat_mid_round_waits_for_the_round_to_end():
    store = CountingStore()
    reg = Registry(store=store, bot_pause=SLOW)
    ana, ben, cat = Member("ana", "key:a"), Recorder("ben"), Recorder("cat")
    t = bot_table(reg, ana)
    to_mid_round(t)
    assert t.take_seat(ben, 1) is False
    assert t.request_of(ben) == 1 and ben.table is t and ben.seat is None   # watches meanwhile
    assert "You take seat 1 (Bot-2) when this round ends." == t.request_text(1)
    with pytest.raises(RoomError, match="already promised to ben"):
        t.take_seat(cat, 1)
    with pytest.raises(RoomError, match="already hold seat 0"):
        t.take_seat(Member("ana", "key:a"), 2)
    with pytest.raises(RoomError, match="not a computer player's"):
        t.take_seat(cat, 0)
    for bad in (True, "1", 4, -1, None, 1.0):
        with pytest.raises(RoomError):
            t.take_seat(cat, bad)
    # The computer player keeps the seat to the last card of the round.
    rounds = len(t.match.history)
    while len(t.match.history) == rounds:
        assert t.seats[1].kind == "bot" and ben.granted == []
        step(t)
    assert t.seats[1].kind == "human" and t.seats[1].name == "ben" and ben.seat == 1
    assert ben.granted == [(t.id, 1)] and t.request_of(ben) is None
    assert t.between_rounds() and store.seat_changes == [["ana", "ben", None, None]]
    assert not t.counts_for_points
    # Now a person: no computer player moves for that seat, the timer rules apply.
    t.registry.bot_pause = 0.0
    while t.match.to_act != 1:
        step(t)
    t.turns.schedule()
    assert t.turns.handle is None and t.deadline is None    # connected, no timer: waits for ben
    t.timer = 15
    t.turns.schedule()
    assert t.deadline_seat == 1 and t.deadline is not None


async def test_request_ends_when_the_person_leaves_or_the_match_ends():
    reg = Registry(bot_pause=SLOW)
    ana, ben, cat = Member("ana", "key:a"), Recorder("ben"), Recorder("cat")
    t = bot_table(reg, ana)
    to_mid_round(t)
    assert not t.take_seat(ben, 1) and not t.take_seat(cat, 2)
    t.detach(ben, keep_seat=True)                 # ben's connection drops
    other = bot_table(reg, Member("dee", "key:d"))
    other.watch(cat)                              # cat goes to watch another table
    assert t.takeovers == {}
    finish_round(t)
    assert [s.kind for s in t.seats] == ["human", "bot", "bot", "bot"]
    assert ben.granted == cat.granted == []
    # A request the end of the match overtakes: told, not seated.
    to_mid_round(other)
    assert not other.take_seat(cat, 3)
    other.detach(other.seats[0].member, keep_seat=False)     # E-37: leaving ends the match
    assert other.status == "over" and other.seats[3].kind == "bot"
    assert cat.dropped and cat.dropped[0][:2] == (other.id, 3)
    with pytest.raises(RoomError, match="is over"):
        other.take_seat(cat, 3)


def finish(table):
    while table.match.to_act is not None:
        step(table)


async def test_no_level_points_after_a_seat_taken_from_a_computer_player(tmp_path):
    """The rules decide (engine.records): a computer player held a seat, so nobody
    earns level points (E-38 Decision); a ranked match (18 rounds, issue 33) held by
    four people from start to end does pay."""
    store = Store(tmp_path / "lamma.db")
    reg = Registry(store=TableStore(store), bot_pause=SLOW)
    names = ["ana", "ben", "cat", "dee"]
    people = {n: Member(n, f"key:fp-{n}:{n}") for n in names}
    for n in names:
        store.bind(n, "fp-" + n)
    # ana alone with three computer players; ben, cat, dee take their seats one by one
    t = bot_table(reg, people["ana"])
    for seat, n in ((1, "ben"), (2, "cat"), (3, "dee")):
        to_mid_round(t)
        assert not t.take_seat(people[n], seat)
        finish_round(t)
        assert t.seats[seat].name == n
    row = store.match(t.match_id)
    assert row.seats == names and row.humans_throughout is False
    finish(t)
    assert t.status == "over"
    assert all(p["points"] == 0 for p in t.points.values()) and len(t.points) == 4
    assert [store.profile(n)["level_points"] for n in names] == [0, 0, 0, 0]
    assert all(store.profile(n)["stats"]["estimation"]["matches"] == 1 for n in names)
    # the same four from the first deal: level points are paid
    t2 = reg.create("estimation", 18)
    for seat, n in enumerate(names):
        t2.sit(people[n], seat)
    finish(t2)
    paid = [t2.points[s]["points"] for s in range(4)]
    assert any(paid) and set(paid) <= {30, 10, -4}


async def test_a_restart_keeps_the_person_in_the_seat_they_took(tmp_path):
    store = Store(tmp_path / "lamma.db")
    reg = Registry(store=TableStore(store), bot_pause=SLOW)
    store.bind("ben", "fp-ben")
    ben = Member("ben", "key:fp-ben:ben")
    t = bot_table(reg, Member("ana", "key:fp-ana:ana"))
    finish_round(t)
    assert t.take_seat(ben, 1)
    again = Registry(store=TableStore(store), bot_pause=SLOW)
    assert restore(again, store) == 1
    seat = again.tables[t.id].seats[1]
    assert (seat.kind, seat.name) == ("human", "ben")
    assert again.held_seat(ben.ident) == (again.tables[t.id], 1)
    # Round 1 was the computer player's: the table keeps it, through a restart too
    # (a round's summary names who played it, not the seat's holder now).
    assert t.seats[1].before == seat.before == ((2, "Bot-2"),)


async def test_a_restart_keeps_the_computer_player_that_replaced_a_tarneeb_leaver(tmp_path):
    """Leaving Tarneeb on purpose hands the seat to a computer player (room.md); after a
    restart that seat is still the computer player's, under its own name, and the
    person who left is not put back in it."""
    store = Store(tmp_path / "lamma.db")
    reg = Registry(store=TableStore(store), bot_pause=SLOW)
    ana, ben = Member("ana", "key:fp-ana:ana"), Member("ben", "key:fp-ben:ben")
    t = reg.create("tarneeb41")
    t.sit(ana, 0)
    t.sit(ben, 1)
    t.fill_with_bots(ana, [2, 3], "easy")
    assert t.status == "playing"
    finish_round(t)
    hand = t.round_info()[0]        # the next hand (2, unless the first was void)
    t.detach(ana, keep_seat=False)
    assert (t.seats[0].kind, t.seats[0].replaced) == ("bot", "ana")
    assert t.seats[0].before == ((hand, "ana"),)        # the hands before were ana's
    again = Registry(store=TableStore(store), bot_pause=SLOW)
    assert restore(again, store) == 1
    seat = again.tables[t.id].seats[0]
    assert (seat.kind, seat.name, seat.replaced) == ("bot", t.seats[0].name, "ana")
    assert seat.before == ((hand, "ana"),)
    assert again.held_seat(ana.ident) is None
    assert again.held_seat(ben.ident) == (again.tables[t.id], 1)


def test_a_seats_earlier_holders_are_kept_with_its_settings_and_old_ones_read():
    """Who held a seat earlier in the match rides with its settings (the store, another
    process's frame); settings stored before they were kept, or unsound, say nobody."""
    from engine.room import Seat
    seat = Seat("human", "ben", "key:fp-ben:ben", before=((2, "Bot-2"), (5, "cem")))
    info = json.loads(json.dumps(seat.settings()))
    assert Seat.from_settings(info).before == ((2, "Bot-2"), (5, "cem"))
    old = {k: v for k, v in info.items() if k != "before"}
    assert Seat.from_settings(old).before == () and "before" not in Seat("bot").settings()
    for bad in ("x", [[True, "a"]], [[1]], [["1", "a"]], [[1, 2]], [None]):
        assert Seat.from_settings({**old, "before": bad}).before == ()


# ------------------------------------------------------- the real server, JSON

async def wait_until(cond, timeout=10.0):
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.005)


async def json_bot_table(srv, client):
    """``client`` opens a 13-round Estimation table with easy computer players in 1-3."""
    client.send({"op": "create", "game": "estimation", "length": 13, "computer": [1, 2, 3],
                 "level": "easy"})
    tid = (await client.expect("joined"))["table"]
    return tid, srv.registry.tables[tid]


async def test_json_private_table_by_code(lamma_server):
    srv = lamma_server
    a = await srv.json_client("anna")
    b = await srv.json_client("badr")
    try:
        a.send({"op": "create", "game": "estimation", "private": True})
        j = await a.expect("joined")
        code, tid = j["code"], j["table"]
        assert len(code) == CODE_LEN
        table = srv.registry.tables[tid]
        b.send({"op": "tables"})
        assert (await b.expect("tables"))["tables"] == []          # hidden from others
        a.send({"op": "tables"})
        mine = (await a.expect("tables"))["tables"]
        assert [(r["id"], r["code"]) for r in mine] == [(tid, code)]
        wrong = next(c * CODE_LEN for c in CODE_ALPHABET if c * CODE_LEN != code)
        for msg in ({"op": "join", "table": tid}, {"op": "join", "table": tid, "code": wrong},
                    {"op": "join", "table": tid, "code": {"$ne": 1}},
                    {"op": "watch", "table": tid, "code": wrong},
                    {"op": "join", "code": wrong}):
            b.send(msg)
            err = (await b.expect("error"))["message"]
            assert "code" in err and code not in err
        assert table.seats[1].kind == "empty" and not table.watchers
        b.send({"op": "join", "table": tid, "code": code_label(code).lower()})
        assert await b.expect("joined") == {"type": "joined", "table": tid, "seat": 1}
        b.send({"op": "tables"})
        assert [r["id"] for r in (await b.expect("tables"))["tables"]] == [tid]
        # a code alone names its table; past the limit even the right code waits
        c = await srv.json_client("cyra")
        d = await srv.json_client("dana")
        for _ in range(CODE_TRIES):
            c.send({"op": "join", "code": wrong})
            assert "Wrong code" in (await c.expect("error"))["message"]
        c.send({"op": "join", "code": code})
        assert "Too many wrong codes" in (await c.expect("error"))["message"]
        d.send({"op": "join", "code": " " + code.lower()})
        assert await d.expect("joined") == {"type": "joined", "table": tid, "seat": 2}
        assert [s.name for s in table.seats] == ["anna", "badr", "dana", None]
        await c.close()
        await d.close()
    finally:
        await a.close()
        await b.close()


async def test_json_join_a_computer_seat_now_or_at_the_round_end(lamma_server):
    srv = lamma_server
    srv.registry.bot_pause = 0.0
    a = await srv.json_client("anna")
    b = await srv.json_client("badr")
    c = await srv.json_client("cyra")
    try:
        tid, table = await json_bot_table(srv, a)
        m = table.match
        await wait_until(lambda: m.to_act == 0)          # the three dash answers: mid-round
        b.send({"op": "join", "table": tid, "seat": 1})
        p = await b.expect("pending")
        assert p["table"] == tid and p["seat"] == 1
        assert "seat 1" in p["message"] and "when this round ends" in p["message"]
        assert "level points" in p["message"]
        c.send({"op": "join", "table": tid, "seat": 1})
        assert "already promised to badr" in (await c.expect("error"))["message"]
        c.send({"op": "join", "table": tid, "seat": 2})
        assert (await c.expect("pending"))["seat"] == 2
        await c.close()                                  # cyra goes: her request goes too
        await wait_until(lambda: 2 not in table.takeovers)
        assert table.seats[1].kind == "bot"
        # anna plays the round out; the computer players play theirs
        while not m.history:
            await wait_until(lambda: m.to_act == 0 or m.history)
            if m.history:
                break
            n = len(m.log)
            a.send({"op": "act", "action": policy(m, 0)})
            await wait_until(lambda n=n: len(m.log) > n)
        j = await b.expect("joined")
        assert j == {"type": "joined", "table": tid, "seat": 1}
        v = (await b.expect("view"))["view"]
        assert v["seat"] == 1 and len(v["hand"]) == 13 and v["round"] == 2
        assert [s.kind for s in table.seats] == ["human", "human", "bot", "bot"]
        b.send({"op": "tables"})
        row = (await b.expect("tables"))["tables"][0]
        assert row["seats"][1] == {"kind": "human", "name": "badr", "guest": False,
                                   "connected": True}
        stored = srv.room.store.match(table.match_id)
        assert stored.seats[1] == "badr" and stored.humans_throughout is False
        # badr's seat now waits for badr: no computer player moves for it
        await wait_until(lambda: m.to_act in (0, 1))
        while m.to_act == 0:
            n = len(m.log)
            a.send({"op": "act", "action": policy(m, 0)})
            await wait_until(lambda n=n: len(m.log) > n)
            await wait_until(lambda: m.to_act in (0, 1))
        n = len(m.log)
        await asyncio.sleep(0.3)
        assert m.to_act == 1 and len(m.log) == n
        b.send({"op": "act", "action": policy(m, 1)})
        await wait_until(lambda: len(m.log) > n)
        # badr drops and comes back: the seat is his
        await b.close()
        await asyncio.sleep(0.05)
        b = await srv.json_client("badr")
        assert await b.expect("joined") == {"type": "joined", "table": tid, "seat": 1}
    finally:
        await a.close()
        await b.close()


async def test_json_pending_request_is_cancelled_by_leave_and_told_when_the_match_ends(
        lamma_server):
    srv = lamma_server
    srv.registry.bot_pause = 0.0
    a = await srv.json_client("anna")
    b = await srv.json_client("badr")
    try:
        tid, table = await json_bot_table(srv, a)
        await wait_until(lambda: table.match.to_act == 0)
        b.send({"op": "join", "table": tid, "seat": 3})
        await b.expect("pending")
        b.send({"op": "leave"})
        assert await b.expect("left") == {"type": "left", "table": tid}
        assert table.takeovers == {}
        b.send({"op": "join", "table": tid, "seat": 3})
        await b.expect("pending")
        a.send({"op": "leave"})                    # E-37: the match ends before the round
        d = await b.expect("pending")
        assert d["cancelled"] is True and d["seat"] == 3 and "ended" in d["message"]
        assert table.seats[3].kind == "bot"
        b.send(json.dumps({"op": "join", "table": tid, "seat": 3}))
        assert "over" in (await b.expect("error"))["message"]
    finally:
        await a.close()
        await b.close()


async def test_a_closed_table_drops_a_computer_players_decision_in_flight(tmp_path, monkeypatch):
    """A table is closed (the registry drops it, or the server stops) while a computer
    player is thinking in the worker: the answer that arrives afterwards is neither
    applied nor stored, and nothing is scheduled again (a closed table must not play
    on by itself, out of sight)."""
    from engine.room import bots as bots_mod
    release = asyncio.Event()
    asked = []

    async def slow_decide(match, seat, level="strong", **how):
        asked.append(seat)
        await release.wait()
        return match.legal_actions(seat)[0]

    monkeypatch.setattr(bots_mod, "decide", slow_decide)
    store = Store(tmp_path / "lamma.db")
    reg = Registry(store=TableStore(store), bot_pause=0.0)
    reg.trick_pause = 0.0
    ana = Member("ana", "key:fp-ana:ana")
    t = reg.create("tarneeb41")
    t.sit(ana, 0)
    t.fill_with_bots(ana, [1, 2, 3], "strong")
    while not asked:                       # a computer player is thinking now
        if t.match.to_act == 0:
            t.act(ana, t.match.legal_actions(0)[0])
        await asyncio.sleep(0.01)
    moves = len(t.match.log)
    t.close()
    release.set()
    await asyncio.sleep(0.2)
    assert len(t.match.log) == moves       # the computer player's answer was dropped
    assert len(store.match(t.match_id).record["log"]) == moves
    assert asked == [asked[0]]             # and nobody was asked to think again


def test_a_seats_earlier_holders_from_a_stored_row_are_read_as_hostile_input():
    """``before`` in a row another process wrote: only sound [round, label] pairs, the
    last HELD_BEFORE of them, labels cut (a row of 100,000 pairs is not a seat's)."""
    from engine.room.store import HELD_BEFORE, LABEL_MAX, held_before
    assert held_before({}) == () and held_before({"before": "ali"}) == ()
    assert held_before({"before": [[1, "ali"], [True, "x"], [2, 3], [3], "y", [4, "bo"]]}) \
        == ((1, "ali"), (4, "bo"))
    many = held_before({"before": [[r, "n" * 500] for r in range(10 ** 5)]})
    assert len(many) == HELD_BEFORE and many[-1] == (10 ** 5 - 1, "n" * LABEL_MAX)
