"""The room's side of a room across processes (engine/room/remote.py), without a
database: a cluster that keeps what it is asked to send, and one table driven here."""

from __future__ import annotations

import asyncio
import itertools
import json

from stacked import quick_policy

from engine import new_match
from engine.room import Registry, Session, publishing, remote, replica
from engine.room.errors import N_, RoomError, Said
from engine.room.frames import Damaged, checked_row, frame_of, pack, unpack
from engine.room.remote import RemoteMember
from engine.room.table import Table


class Kept:
    """A Cluster that sends nothing: what would have gone is kept."""

    def __init__(self, process: str = "p1", token: str = "t1"):
        self.process = process
        self.token = token
        self.published: list[tuple] = []
        self.told: list[tuple] = []
        self.requests: list[tuple] = []
        self.events: list[dict] = []
        self._n = 0

    def new_table_id(self) -> str:
        self._n += 1
        return str(self._n)

    def publish(self, table, row, holders, frame, events=()):
        self.published.append((table.id, row, holders, frame))
        self.events.extend(events)

    def gone(self, table):
        pass

    def request(self, tid, session, body):
        self.requests.append((tid, session, body))

    def tell(self, process, session, message):
        self.told.append((process, session, message))

    def fetch_frame(self, tid, done):
        pass

    def fetch_events(self, tid, after, done):
        pass

    def fetch_rows(self, done):
        pass

    def take_requests(self, tid, done):
        pass

    def login(self, name_key, ident):
        pass


def watched_from_elsewhere() -> tuple[Kept, remote.ClusterSide, Session, Table]:
    """A table driven here (p1, its cluster kept), alice in seat 0: the events tests'."""
    drv = Registry(bot_pause=3600)
    kept = Kept("p1")
    dside = remote.join_cluster(drv, kept)
    alice = Session("alice", "key:a:alice")
    table = drv.create("estimation", 13)
    table.sit(alice, 0)
    return kept, dside, alice, table


def lobby_row(tid: str, status: str = "waiting") -> dict:
    """A table's lobby row as a driver writes it (``Table.summary``)."""
    return {"id": tid, "game": "estimation", "length": 13, "timer": 0, "private": False,
            "status": status, "round": None, "rounds": None, "spectators": 0,
            "seats": [{"kind": "empty", "name": None, "guest": False, "connected": True}] * 4}


def test_frames_come_back_exactly():
    """Views keep int keys, tuples and Said; the history said once comes back in every
    view."""
    m = new_match("estimation", seed=5)
    for _ in range(40):
        m.apply(m.to_act, quick_policy(m, m.to_act))
    views = {None: m.view(None), **{s: m.view(s) for s in range(4)}}
    said = Said(N_("{who} takes the trick"), who="alice")
    obj = {"views": views, "t": (1, 2), "said": said, "err": RoomError("No table {table}.",
                                                                       table="9")}
    back = unpack(pack(obj))
    assert back["views"] == views and back["t"] == (1, 2)
    assert back["said"] == said and back["said"].template == said.template
    assert back["err"] == "No table 9." and back["err"].params == {"table": "9"}


async def test_a_frame_says_the_history_once_and_a_remote_table_shows_it_whole():
    reg = Registry(bot_pause=3600)
    remote.join_cluster(reg, Kept())
    alice = Session("alice", "key:a:alice")
    table = reg.create("estimation", 13)
    table.sit(alice, 0)
    table.fill_with_bots(alice)
    m = table.match
    while len(m.history) < 2:
        m.apply(m.to_act, quick_policy(m, m.to_act))
    table.views = table.runner.snapshot()
    frame = frame_of(table, "p1", 0)
    history = table.views[None]["history"]
    said_once = json.dumps(pack(history))
    assert history and json.dumps(frame).count(said_once) == 1
    other = Registry()
    side = remote.join_cluster(other, Kept("p2", "t2"))
    rt = side.remote_table(table.id)
    bob = Session("bob", "key:b:bob")
    rt.local.add(bob)
    bob.table = rt.table
    rt.apply_frame(frame)
    assert rt.table.view(0) == table.view(0) and rt.table.view(None)["history"] == history


async def test_versions_never_go_back_when_another_driver_takes_over_and_chat_is_chat():
    reg = Registry()
    side = remote.join_cluster(reg, Kept("p2"))
    rt = side.remote_table("7")
    heard: list[str] = []

    class Ear(Session):
        def table_changed(self, change):
            heard.append(change.what)
    ear = Ear("ear", "key:e:ear")
    rt.local.add(ear)
    ear.table = rt.table
    base = {"id": "7", "driver": "p1", "epoch": 0, "game": "estimation", "length": 13,
            "timer": 0, "private": False, "code": None, "status": "waiting", "version": 40,
            "views": None, "events": [], "chat": [], "seats": [{"kind": "empty"}] * 4,
            "deadline_in": None, "deadline_seat": None, "points": None, "match_id": None,
            "takeovers": {}, "between": True, "row": lobby_row("7")}
    side.reattach = lambda table: None          # nobody to send to
    rt.apply_frame(pack(base))
    assert rt.table.version == 40
    rt.apply_frame(pack({**base, "chat": [["alice", "hi"]]}))
    assert heard[-1] == "chat"
    rt.apply_frame(pack({**base, "driver": "p3", "epoch": 1, "version": 3}))
    assert rt.table.version > 40
    rt.apply_frame(pack({**base, "driver": "p3", "epoch": 1, "version": 4}))
    assert rt.table.version > 41 and heard[-1] == "state"


async def test_every_line_in_a_frame_reaches_a_program_as_chat_once(monkeypatch):
    """Issue 41: a frame that brings two lines and a move at once (the driver wrote them
    within one frame's interval) gives a program on this process both lines as ``chat``,
    in order, each once; an older driver's frame without ``said`` counts its lines."""
    from server.jsonapi import JsonSession
    reg = Registry()
    side = remote.join_cluster(reg, Kept("p2"))
    side.reattach = lambda table: None
    rt = side.remote_table("8")
    sent: list[dict] = []
    prog = JsonSession.__new__(JsonSession)
    monkeypatch.setattr(prog, "send", sent.append, raising=False)
    prog.name, prog.ident, prog.guest, prog.ignoring = "bob", "key:b:bob", False, set()
    prog.table, prog.seat, prog._chat_at = rt.table, None, None
    prog._board_over = None
    monkeypatch.setattr(prog, "push_view", lambda view: None, raising=False)
    rt.local.add(prog)
    base = {"id": "8", "driver": "p1", "epoch": 0, "game": "estimation", "length": 13,
            "timer": 0, "private": False, "code": None, "status": "waiting", "version": 1,
            "views": None, "events": [], "chat": [], "said": 0,
            "seats": [{"kind": "empty"}] * 4, "deadline_in": None, "deadline_seat": None,
            "points": None, "match_id": None, "takeovers": {}, "between": True,
            "row": lobby_row("8")}
    rt.apply_frame(pack(base))
    rt.apply_frame(pack({**base, "version": 2, "said": 2,
                         "chat": [["ali", "one"], ["cem", "two"]]}))
    rt.apply_frame(pack({**base, "version": 2, "said": 3,
                         "chat": [["ali", "one"], ["cem", "two"], ["ali", "three"]]}))
    rt.apply_frame(pack({**base, "version": 3, "said": 3,
                         "chat": [["ali", "one"], ["cem", "two"], ["ali", "three"]]}))
    chat = [(m["from"], m["text"]) for m in sent if m.get("type") == "chat"]
    assert chat == [("ali", "one"), ("cem", "two"), ("ali", "three")]
    # an ignored name's lines are not said
    prog.ignoring = {"ali"}
    rt.apply_frame(pack({**base, "version": 4, "said": 5, "chat": [
        ["ali", "one"], ["cem", "two"], ["ali", "three"], ["ali", "four"], ["cem", "five"]]}))
    chat = [(m["from"], m["text"]) for m in sent if m.get("type") == "chat"]
    assert chat[-1] == ("cem", "five") and ("ali", "four") not in chat


async def test_changes_cross_as_numbered_events_applied_in_order_and_a_gap_is_read(
        monkeypatch):
    """Issue 41: a driver writes what changed as events numbered in the table's order (a
    line of chat is only its lines); another process applies them in order, telling its
    members what the driver's were told; at a gap it reads the stored events after the
    last it applied, never a snapshot; one it cannot read sends it to the whole frame."""
    from engine.room.people import ChatGuard
    from server.jsonapi import JsonSession
    monkeypatch.setattr(ChatGuard, "lines", 100)
    kept, dside, alice, table = watched_from_elsewhere()
    table.watch(RemoteMember(dside, "p2", "t2-1", "bob", "key:b:bob", False))
    table.say(alice, "one")
    await asyncio.sleep(0.01)
    table.say(alice, "two")
    table.say(alice, "three")
    await asyncio.sleep(0.01)
    table.fill_with_bots(alice)           # the match starts: a state event
    await asyncio.sleep(0.01)
    table.say(alice, "four")
    await asyncio.sleep(0.01)
    table.say(alice, "five")
    await asyncio.sleep(0.01)
    evs = kept.events
    assert [e["seq"] for e in evs] == list(range(1, len(evs) + 1))
    chats = [[line[1] for line in unpack(e["lines"])] for e in evs if e["kind"] == "chat"]
    assert chats == [["one"], ["two", "three"], ["four"], ["five"]]
    assert any(e["kind"] == "state" for e in evs)
    one = next(e["seq"] for e in evs if e["kind"] == "chat")     # "one" said
    first = next(f for _, _, _, f in kept.published if f is not None and f["seq"] == one)

    other = Registry()
    asked: list[tuple] = []

    class Store(Kept):
        def fetch_events(self, tid, after, done):
            asked.append(("events", after))
            self.answer = lambda got: done(got)

        def fetch_frame(self, tid, done):
            asked.append(("frame",))
            done(None)
    store = Store("p2", "t2")
    side = remote.join_cluster(other, store)
    side.reattach = lambda t: None
    rt = side.remote_table(table.id)
    sent: list[dict] = []
    prog = JsonSession.__new__(JsonSession)
    prog.send = sent.append
    prog.name, prog.ident, prog.guest, prog.ignoring = "bob", "key:b:bob", False, set()
    prog.table, prog.seat, prog._chat_at, prog._board_over = rt.table, None, None, None
    prog.push_view = lambda view: None
    rt.local.add(prog)
    rt.apply_frame(first)
    assert rt.seq == one and [c[1] for c in rt.table.chat] == ["one"]
    at = next(i for i, e in enumerate(evs) if e["seq"] == one + 1)
    side.table_changed(table.id, None, one + 1, evs[at:at + 1])
    assert [c[1] for c in rt.table.chat] == ["one", "two", "three"] and not asked
    # the next ones, the first of them unheard: the gap is read from the store
    last = evs[-1]["seq"]
    side.table_changed(table.id, None, last, evs[-1:])
    assert asked == [("events", one + 1)] and rt.seq == one + 1
    side.table_changed(table.id, None, last, evs[-1:])      # heard again while reading
    store.answer(evs[at + 1:])
    assert rt.seq == last and [c[1] for c in rt.table.chat][-2:] == ["four", "five"]
    assert rt.table.views is not None and rt.table.status == "playing"
    said = [m["text"] for m in sent if m.get("type") == "chat"]
    assert said == ["one", "two", "three", "four", "five"]     # each once, in order
    # a damaged stored event: said once, and the whole frame read instead
    store.answer([])            # the read again (it was heard while reading): no more
    side.table_changed(table.id, None, last + 2, None)
    assert asked[-1] == ("events", last)
    store.answer([{**evs[-1], "seq": last + 1, "kind": "gossip"}])
    assert asked[-1] == ("frame",) and rt.seq == last


async def test_the_whole_frame_is_written_with_the_first_event_then_every_sixteenth(
        monkeypatch):
    """Issue 41: the events hold what changed; the whole frame (what a process showing
    the table first, or taking it over, starts from) goes with the first of them and
    then with every CHECKPOINT_EVERY-th, each saying the number of the last it holds."""
    from engine.room.people import ChatGuard
    monkeypatch.setattr(ChatGuard, "lines", 1000)
    kept, dside, alice, table = watched_from_elsewhere()
    table.watch(RemoteMember(dside, "p2", "t2-1", "bob", "key:b:bob", False))
    for i in range(40):
        table.say(alice, f"line {i}")
        await asyncio.sleep(0)
        await asyncio.sleep(0)
    await asyncio.sleep(0.01)
    whole = [f["seq"] for _, _, _, f in kept.published if f is not None]
    last = kept.events[-1]["seq"]
    assert last >= 40 and len(kept.events) == last
    assert whole[0] <= 2 and all(b - a == publishing.CHECKPOINT_EVERY
                                 for a, b in itertools.pairwise(whole))
    assert len(whole) <= 2 + last // publishing.CHECKPOINT_EVERY, whole


async def test_a_match_played_reaches_another_process_as_events_seat_by_seat():
    """Issue 41: a match's moves cross as state events whose history is only what it
    gained since the last (late in a match the history is most of a frame's bytes);
    another process applying them in order, from the first whole frame, shows every
    seat exactly the driver's view."""
    drv = Registry(bot_pause=3600)
    kept = Kept("p1")
    dside = remote.join_cluster(drv, kept)
    people = [Session(n, f"key:{n[0]}:{n}") for n in ("ana", "ben", "cem", "dee")]
    table = drv.create("estimation", 13)
    table.watch(RemoteMember(dside, "p2", "t2-1", "eve", "key:e:eve", False))
    for seat, p in enumerate(people):
        table.sit(p, seat)
        await asyncio.sleep(0)
    from engine.room.store import MatchRef
    table.match_ref = MatchRef(7)       # stored (the store here keeps nothing)
    for _ in range(400):
        m = table.match
        if m is None or m.result is not None:
            break
        seat = m.to_act
        table.act(people[seat], quick_policy(m, seat))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
    await asyncio.sleep(0.01)
    grown = [e for e in kept.events if e["kind"] == "state"
             and "$from" in json.dumps(e["part"].get("views"))]
    assert len(grown) > 100, len(grown)
    # each says at most the round just finished, never the whole history again
    added = [v["history"]["$add"] for e in grown for k, v in e["part"]["views"]["$d"]
             if k is None]
    assert len(added) == len(grown)
    assert all(len(a) <= 1 for a in added) and len(table.views[None]["history"]) >= 3
    whole = next(f for _, _, _, f in kept.published if f is not None)
    side = remote.join_cluster(Registry(), Kept("p2", "t2"))
    side.reattach = lambda t: None
    rt = side.remote_table(table.id)
    watcher = Session("zed", "key:z:zed")
    rt.local.add(watcher)
    watcher.table = rt.table
    rt.apply_frame(whole)
    assert rt.apply_events(kept.events) and rt.seq == kept.events[-1]["seq"]
    for seat in (None, 0, 1, 2, 3):
        assert rt.table.views[seat] == table.views[seat], seat


async def test_a_move_the_dead_driver_never_stored_is_refused_to_its_sender(monkeypatch):
    """Issue 41: a move sent to a driver that died before storing it: the new driver's
    first frame still waits for that seat, and its sender is told to play it again; a
    move the frames show played is forgotten, and told nothing."""
    reg = Registry()
    side = remote.join_cluster(reg, Kept("p2"))
    side.reattach = lambda table: None
    rt = side.remote_table("9")
    told: list[str] = []

    class Player(Session):
        def refused(self, said):
            told.append(said)
    ana = Player("ana", "key:a:ana")
    rt.local.add(ana)
    ana.table, ana.seat = rt.table, 0
    base = {"id": "9", "driver": "p1", "epoch": 0, "game": "estimation", "length": 13,
            "timer": 0, "private": False, "code": None, "status": "playing", "version": 5,
            "views": None, "events": [], "chat": [], "said": 0,
            "seats": [{"kind": "empty"}] * 4, "deadline_in": None, "deadline_seat": None,
            "points": None, "match_id": None, "takeovers": {}, "between": False,
            "row": lobby_row("9", "playing")}
    rt.apply_frame(pack(base))
    rt.moves_sent[ana] = ("p1", 0, 5)                # what act() keeps as it sends
    rt.apply_frame(pack({**base, "version": 6}))     # the move shown by its driver
    assert ana not in rt.moves_sent and not told
    rt.moves_sent[ana] = ("p1", 0, 6)                # the next move; then p1 dies
    # The new driver's first frame: seat 0 still to act (its views, as read).
    monkeypatch.setattr(replica, "whole_history", lambda views: {None: {"to_act": 0}})
    rt.apply_frame(pack({**base, "driver": "p3", "epoch": 1, "version": 2}))
    assert len(told) == 1 and "Play it again" in told[0]
    assert ana not in rt.moves_sent


async def test_session_ids_differ_between_starts_and_a_new_identity_is_a_new_member():
    a, b = Registry(), Registry()
    sa = remote.join_cluster(a, Kept("p1", "aaa"))
    sb = remote.join_cluster(b, Kept("p1", "bbb"))         # the same process name, started again
    one, two = Session("x", "key:1:x"), Session("y", "key:2:y")
    assert sa.session_of(one) != sb.session_of(two)
    driver = Registry()
    side = remote.join_cluster(driver, Kept("p9"))
    req = {"origin": "p1", "session": "s-1", "name": "alice", "ident": "key:a:alice",
           "guest": False}
    first = side.requests.member_of(req)
    assert side.requests.member_of(dict(req)) is first
    other = side.requests.member_of({**req, "name": "eve", "ident": "key:e:eve"})
    assert other is not first and other.name == "eve"


async def test_leaving_while_a_seat_came_meanwhile_keeps_the_seat_not_the_match_ending():
    """carol, on another process, asked for a computer player's seat and left before
    she heard it was hers: her leave (sent as a spectator's) holds the seat for her; it
    does not end the Estimation match for everyone (E-37)."""
    reg = Registry(bot_pause=3600)
    side = remote.join_cluster(reg, Kept("p1"))
    alice = Session("alice", "key:a:alice")
    table = reg.create("estimation", 13)
    table.sit(alice, 0)
    table.fill_with_bots(alice)
    req = {"origin": "p2", "session": "c-1", "name": "carol", "ident": "key:c:carol",
           "guest": False, "table": table.id}
    side.requests.run_one(table, {**req, "op": "take", "args": {"seat": 3}})   # between rounds: now
    assert table.seats[3].name == "carol"
    side.requests.run_one(table, {**req, "op": "detach", "args": {"keep": False, "seat": None}})
    assert table.status == "playing" and table.seats[3].held_by("key:c:carol")
    granted = [m for _, _, m in side.cluster.told if m["k"] == "granted"]
    assert granted and granted[0]["seat"] == 3


def test_a_remote_table_refuses_at_once_what_its_frame_can_answer():
    reg = Registry()
    side = remote.join_cluster(reg, Kept("p2"))
    rt = side.remote_table("4")
    rt.apply_row({"row": {"game": "estimation", "length": 13, "timer": 0, "private": False,
                          "status": "playing", "seats": [
                              {"kind": "human", "name": "alice", "guest": False,
                               "connected": True}] + [{"kind": "bot", "name": "Bot-2",
                                                       "guest": False}] * 3},
                  "holders": ["key:a:alice", None, None, None], "code": None})
    bob = Session("bob", "key:b:bob")
    try:
        rt.table.sit(bob)
    except RoomError as e:
        assert "watch it or take" in str(e)
    else:
        raise AssertionError("sat at a playing table")
    assert side.cluster.requests == []
    assert isinstance(RemoteMember(side, "p1", "s", "n", "key:n:n", False), Session)
    assert asyncio.iscoroutinefunction(side.fresh_rows)


async def test_a_remote_table_shows_a_seat_only_to_whom_its_driver_gave_it():
    """bob asks for seat 1 as this process's (stale) row shows it free: nothing of the
    seat is shown to him until the driver says it is his, and then only once its frame
    says so too (not frank's cards, whatever this process was told)."""
    reg = Registry()
    side = remote.join_cluster(reg, Kept("p2"))
    side.reattach = lambda table: None
    rt = side.remote_table("7")
    people = [{"kind": "human", "name": "dave", "guest": False, "connected": True},
              {"kind": "empty", "name": None, "guest": False, "connected": True},
              {"kind": "bot", "name": "Bot-3", "guest": False, "connected": True},
              {"kind": "bot", "name": "Bot-4", "guest": False, "connected": True}]
    rt.apply_row({"row": {"game": "estimation", "length": 13, "timer": 0, "private": False,
                          "status": "waiting", "seats": people},
                  "holders": ["key:d:dave", None, None, None], "code": None})
    bob = Session("bob", "key:b:bob")
    assert rt.table.sit(bob, 1) == 1
    assert side.cluster.requests[-1][2]["op"] == "sit"
    assert bob.table is rt.table and bob.seat is None and rt.table.view_of(bob) is None

    def frame(holder: str, ident: str, version: int) -> dict:
        seats = [{"kind": "human", "name": "dave", "ident": "key:d:dave", "guest": False},
                 {"kind": "human", "name": holder, "ident": ident, "guest": False},
                 {"kind": "bot", "name": "Bot-3"}, {"kind": "bot", "name": "Bot-4"}]
        return pack({"id": "7", "driver": "p1", "epoch": 0, "game": "estimation",
                     "length": 13, "timer": 0, "private": False, "code": None,
                     "status": "playing", "version": version,
                     "views": {None: {"seat": None, "hand": []},
                               **{s: {"seat": s, "hand": [f"card{s}"]} for s in range(4)}},
                     "events": [], "chat": [], "seats": seats, "deadline_in": None,
                     "deadline_seat": None, "points": None, "match_id": None,
                     "takeovers": {}, "between": True, "row": lobby_row("7")})
    rt.apply_frame(frame("frank", "key:f:frank", 1))       # frank sat first
    assert rt.table.view_of(bob) is None
    # A driver's word that the seat is bob's, with a frame that still says frank's.
    side.told(side.session_of(bob), {"k": "seated", "table": "7", "seat": 1})
    assert bob.seat == 1 and rt.table.view_of(bob) is None
    rt.apply_frame(frame("bob", "key:b:bob", 2))
    assert rt.table.view_of(bob) == {"seat": 1, "hand": ["card1"]}
    # Another driver's frame (a takeover) in which seat 1 is someone else's: nothing.
    rt.apply_frame(frame("frank", "key:f:frank", 3))
    assert rt.table.view_of(bob) is None
    # A seat "seated" while none was asked for is not taken, nor a seat that is none.
    carol = Session("carol", "key:c:carol")
    rt.table.watch(carol)
    side.told(side.session_of(carol), {"k": "seated", "table": "7", "seat": 2})
    assert carol.seat is None and rt.table.view_of(carol) == {"seat": None, "hand": []}
    side.told(side.session_of(carol), {"k": "granted", "table": "7", "seat": 9})
    assert carol.seat is None


async def test_a_seat_is_shown_with_a_frame_as_new_as_the_driver_that_gave_it():
    """alice saw a trick's lead at p1; p1 died before p3 heard of its last frame. She
    comes back through p3, and p2 (which took the table over from the stored log) seats
    her: p3 shows her seat only with p2's frame, never the dead driver's older one (she
    would see the lead taken back)."""
    reg = Registry()
    side = remote.join_cluster(reg, Kept("p3"))
    rt = side.remote_table("7")
    reattached: list[str] = []
    side.reattach = lambda table: reattached.append(table.id)

    def frame(driver: str, epoch: int, version: int, trick: list) -> dict:
        seats = [{"kind": "human", "name": "alice", "ident": "key:a:alice", "guest": False},
                 {"kind": "bot", "name": "Bot-2"}, {"kind": "bot", "name": "Bot-3"},
                 {"kind": "bot", "name": "Bot-4"}]
        return pack({"id": "7", "driver": driver, "epoch": epoch, "game": "estimation",
                     "length": 13, "timer": 0, "private": False, "code": None,
                     "status": "playing", "version": version,
                     "views": {None: {"seat": None, "hand": [], "trick": trick},
                               **{s: {"seat": s, "hand": ["KS"], "trick": trick}
                                  for s in range(4)}},
                     "events": [], "chat": [], "seats": seats, "deadline_in": None,
                     "deadline_seat": None, "points": None, "match_id": None,
                     "takeovers": {}, "between": False, "row": lobby_row("7", "playing")})
    heard: list[tuple] = []

    class Alice(Session):
        def seat_granted(self, table, seat):
            heard.append(("granted", seat))

        def table_changed(self, change):
            heard.append((change.what, rt.table.view_of(self)))
    alice = Alice("alice", "key:a:alice")
    watcher = Session("carol", "key:c:carol")
    rt.table.watch(watcher)
    rt.apply_frame(frame("p1", 0, 8, []))           # p1's frame before the lead
    assert rt.table.sit(alice, 0) == 0 and rt.table.view_of(alice) is None
    heard.clear()
    # p2 drives it now (epoch 1) and seats her before p3 has its frame.
    side.told(side.session_of(alice), {"k": "seated", "table": "7", "seat": 0,
                                       "at": [1, 4]})
    assert alice.seat == 0 and rt.table.view_of(alice) is None and heard == []
    rt.apply_frame(frame("p1", 0, 9, []))           # a late frame of the dead driver
    assert rt.table.view_of(alice) is None and heard == [("state", None)]
    heard.clear()
    rt.apply_frame(frame("p2", 1, 4, ["KC"]))       # the new driver's: with the lead
    assert heard == [("granted", 0), ("state", {"seat": 0, "hand": ["KS"],
                                                "trick": ["KC"]})]
    assert reattached == ["7"] and rt.awaiting == {}
    # A word without "at" (an older process) is shown as before, with what is here.
    bob = Alice("bob", "key:b:bob")
    rt.pending[bob] = 1
    rt.local.add(bob)
    bob.table = rt.table
    side.told(side.session_of(bob), {"k": "seated", "table": "7", "seat": 1, "at": "x"})
    assert bob.seat == 1 and bob not in rt.awaiting


async def test_a_seat_whose_frame_never_comes_is_read_again_then_shown(monkeypatch):
    """The driver's frame is read again every LOOKUP_AGAIN s (a lost notice) and, if
    none as new comes within AWAIT_FRAME s, the seat is shown with the frame here."""
    monkeypatch.setattr(remote, "AWAIT_FRAME", 0.3)
    reg = Registry()
    kept = Kept("p3")
    fetched: list[float] = []

    def fetch_frame(tid, done):
        fetched.append(asyncio.get_running_loop().time())
        done(None)                      # nothing newer in the database
    kept.fetch_frame = fetch_frame
    side = remote.join_cluster(reg, kept)
    rt = side.remote_table("7")
    rt.apply_row({"row": lobby_row("7"), "holders": [None] * 4, "code": None})
    heard: list[str] = []

    class Ear(Session):
        def table_changed(self, change):
            heard.append(change.what)
    bob = Ear("bob", "key:b:bob")
    rt.table.sit(bob, 1)
    side.told(side.session_of(bob), {"k": "seated", "table": "7", "seat": 1, "at": [2, 5]})
    assert bob in rt.awaiting and heard == []
    loop = asyncio.get_running_loop()
    start = loop.time()
    while bob in rt.awaiting:                  # (a busy machine's timers run late)
        assert loop.time() - start < 10, fetched
        await asyncio.sleep(0.05)
    assert loop.time() - start >= 0.3          # not before AWAIT_FRAME
    assert heard == ["state"] and bob.seat == 1
    assert len(fetched) >= 3, fetched           # read again meanwhile (LOOKUP_AGAIN)


async def test_a_driver_says_where_its_table_was_when_it_seated_someone():
    reg = Registry(bot_pause=3600)
    side = remote.join_cluster(reg, Kept("p2"))
    side.epochs["1"] = 3
    alice = Session("alice", "key:a:alice")
    table = reg.create("estimation", 13)
    table.sit(alice, 0)
    table.version = 17
    req = {"origin": "p3", "session": "c-1", "name": "carol", "ident": "key:c:carol",
           "guest": False, "table": table.id}
    side.requests.run_one(table, {**req, "op": "sit", "args": {"seat": 2}})
    seated = [m for _, _, m in side.cluster.told if m["k"] == "seated"]
    assert seated == [{"k": "seated", "table": table.id, "seat": 2, "at": [3, 17]}]


async def test_a_frame_without_what_is_read_of_it_or_with_a_stranger_creator_is_damaged():
    """A frame missing a field the replica reads (or whose creator is no identity) is
    said damaged where it is read, not a KeyError later."""
    from engine.room.frames import checked_frame
    reg = Registry(bot_pause=3600)
    remote.join_cluster(reg, Kept())
    table = reg.create("estimation", 13)
    frame = unpack(frame_of(table, "p1", 0))
    assert checked_frame(table.id, frame)["id"] == table.id
    for key in ("views", "deadline_in", "points", "match_id", "code"):
        try:
            checked_frame(table.id, {k: v for k, v in frame.items() if k != key})
        except Damaged as e:
            assert key in str(e)
        else:
            raise AssertionError(f"a frame without {key} was taken")
    for creator in (7, "x" * 401, ["key"]):
        try:
            checked_frame(table.id, {**frame, "creator": creator})
        except Damaged:
            pass
        else:
            raise AssertionError(f"a frame's creator {creator!r} was taken")


def test_a_row_another_process_wrote_is_checked_field_by_field_and_built_again():
    row = lobby_row("5")
    row["seats"] = [{"kind": "human", "name": "\x1b[2Jeve", "guest": False,
                     "connected": True}, *row["seats"][1:]]
    row["extra"] = {"x": 1}
    got = checked_row({"id": "5", "row": row, "holders": ["key:e:eve", None, None, None],
                       "code": None})
    assert "\x1b" not in got["row"]["seats"][0]["name"] and "extra" not in got["row"]
    # A ranked table is marked as one in every process's lobby (it was left out).
    assert checked_row({"id": "5", "row": {**row, "ranked": True}, "code": None,
                        "holders": [None] * 4})["row"]["ranked"] is True
    # A practice table is said as one elsewhere too (its hints: engine/room/reviews.py).
    assert checked_row({"id": "5", "row": {**row, "practice": True}, "code": None,
                        "holders": [None] * 4})["row"]["practice"] is True
    for change in ({"timer": True}, {"spectators": -1}, {"status": "won"}, {"id": "6"},
                   {"private": "no"}, {"round": "1"}, {"length": [13]}, {"game": None},
                   {"practice": "yes"}):
        try:
            checked_row({"id": "5", "row": {**row, **change}, "code": None,
                         "holders": [None] * 4})
        except Damaged:
            continue
        raise AssertionError(f"{change} passed as whole")
    for holders in (None, [None] * 3, [1, None, None, None]):
        try:
            checked_row({"id": "5", "row": row, "holders": holders, "code": None})
        except Damaged:
            continue
        raise AssertionError(f"holders {holders} passed as whole")


async def test_an_event_is_applied_by_its_counts_and_a_malformed_one_is_damaged_only():
    """A whole frame written while a line's event was due holds the line already: the
    event adds it once, by the count of lines said. Whatever shape an event another
    process wrote has, applying it raises Damaged and nothing else."""
    from engine.room.frames import merged
    frame = {"id": "1", "driver": "p1", "epoch": 0, "version": 3, "seq": 4, "said": 2,
             "chat": [["ana", "one"], ["ben", "two"]],
             "views": {"$d": [[None, {"seat": None, "history": [{"r": 1}]}]]}}
    ev = {"seq": 5, "kind": "chat", "driver": "p1", "epoch": 0, "version": 3,
          "lines": [["ben", "two"]], "said": 2}
    assert merged(frame, ev, 50)["chat"] == frame["chat"]
    ev2 = {**ev, "lines": [["ben", "two"], ["cem", "three"]], "said": 3}
    assert [c[1] for c in merged(frame, ev2, 50)["chat"]] == ["one", "two", "three"]
    state = {"seq": 5, "kind": "state", "driver": "p1", "epoch": 0, "version": 4}
    side = remote.join_cluster(Registry(), Kept("p2", "t2"))
    rt = side.remote_table("1")
    for part in ({"views": {"$d": [7]}}, {"views": {"$d": [[None, 1, 2]]}},
                 {"views": {"$d": [[None, {"history": {"$from": 1, "$add": 5}}]]}},
                 {"views": {"$d": [[None, {"history": {"$from": 9, "$add": []}}]]}},
                 {"views": {"$d": [[None, {"history": {"$from": 1}}], [None, 7]]}},
                 ["not", "a", "part"], {"chat": []}):
        try:
            # applied as a replica applies one: merged, then the frame checked whole
            rt.apply_frame(merged(frame, {**state, "part": part}, 50), told="state")
        except Damaged:
            pass
        else:
            raise AssertionError(f"{part!r} was applied")


async def test_the_stored_frame_dropped_means_the_next_events_bring_a_whole_one(
        monkeypatch):
    """A watcher from elsewhere leaves; a change nobody elsewhere sees drops the stored
    frame; the next events (a line of chat) go with a whole frame again, so a process
    showing the table next has one to start from."""
    from engine.room.people import ChatGuard
    monkeypatch.setattr(ChatGuard, "lines", 1000)
    kept, dside, alice, table = watched_from_elsewhere()
    far = RemoteMember(dside, "p2", "t2-1", "bob", "key:b:bob", False)
    table.watch(far)
    table.say(alice, "one")
    await asyncio.sleep(0.01)
    table.detach(far, keep_seat=False)
    await asyncio.sleep(0.2)
    bea = Session("bea", "key:b:bea")
    table.sit(bea, 1)                       # seen by nobody elsewhere: no frame kept
    await asyncio.sleep(0.2)
    assert kept.published[-1][3] is None and not kept.published[-1][4:]
    n = len(kept.published)
    table.say(alice, "two")
    await asyncio.sleep(0.01)
    written = [p for p in kept.published[n:] if p[3] is not None]
    assert written and written[-1][3]["seq"] == kept.events[-1]["seq"]


async def test_a_replaced_drivers_event_is_left_to_the_store():
    """An event from a driver older than the one the replica shows (a notice sent after
    its lease was taken) is not applied: the stored events decide."""
    side = remote.join_cluster(Registry(), Kept("p2", "t2"))
    side.reattach = lambda t: None
    rt = side.remote_table("8")
    base = {"id": "8", "driver": "p3", "epoch": 2, "game": "estimation", "length": 13,
            "timer": 0, "private": False, "code": None, "status": "waiting", "version": 9,
            "views": None, "events": [], "chat": [], "said": 0, "seq": 4,
            "seats": [{"kind": "empty"}] * 4, "deadline_in": None, "deadline_seat": None,
            "points": None, "match_id": None, "takeovers": {}, "between": True,
            "row": lobby_row("8")}
    rt.apply_frame(pack(base))
    ghost = {"seq": 5, "kind": "chat", "driver": "p1", "epoch": 1, "version": 9,
             "lines": [["x", "never said"]], "said": 1}
    assert not rt.apply_events([ghost]) and rt.seq == 4 and not rt.table.chat


async def test_a_line_said_before_a_program_is_first_told_of_its_table_is_heard():
    """A driver's members are told once the frame is written, so a join, a line said
    and a move can reach a program as one change, a state: the lines since it sat are
    its to hear, not only those after that first change (the first line after a
    join was lost; a cluster test saw it under load)."""
    from engine.room.table import TableChange
    from server.jsonapi import JsonSession
    _, _, alice, table = watched_from_elsewhere()
    sent: list[dict] = []
    prog = JsonSession.__new__(JsonSession)
    prog.send = sent.append
    prog.name, prog.ident, prog.guest, prog.ignoring = "bob", "key:b:bob", False, set()
    prog.table, prog.seat, prog._chat_at, prog._board_over = table, 1, None, None
    prog.push_view = lambda view=None: None
    prog.seat_granted(table, 1)           # "joined"; nothing told of the table yet
    table.say(alice, "hello")             # said, told to bob only with the next frame
    prog.table_changed(TableChange(table, "state"))
    chat = [(m["from"], m["text"]) for m in sent if m.get("type") == "chat"]
    assert chat == [("alice", "hello")], sent
