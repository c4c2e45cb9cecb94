"""Who may touch a table (docs/roles.md): each role's rights, checked by the table
engine, over both front ends — programs (JSON lines over real SSH) and terminals (a PTY
over real SSH, drawn with pyte) — and across the processes of one room.

The reported attack first: a terminal spectator at another player's table that
waits for people presses ``b``; the table must not change, and the spectator is told
why.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from conftest import LammaServer, PtyClient
from test_cluster_rooms import listed, rooms  # noqa: F401  (the fixture: three processes)

from engine.room import Registry, RoomError, Session
from engine.room.frames import frame_of
from engine.room.remote import RemoteMember, join_cluster

GAME, LENGTH = "estimation-kotshina", "micro"
ONLY_HOST = "Only {name}, the host, may add computer players at table {table}."


async def until(check, what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not so after {timeout} s: {what}")
        await asyncio.sleep(0.02)


async def waiting_table(srv: LammaServer, name: str = "owner", computer=(), guest=False):
    """A public table that ``name`` (a program) opened and sits at in seat 0, waiting for
    people: (its client, the table)."""
    owner = await (srv.guest_client(name) if guest else srv.json_client(name))
    owner.send({"op": "create", "game": GAME, "length": LENGTH, "computer": list(computer)})
    joined = await owner.expect("joined")
    return owner, srv.registry.tables[joined["table"]]


async def refused(client, msg: dict) -> str:
    """The error ``msg`` is answered with (nothing else may answer it)."""
    client.drain()
    client.send(msg)
    reply = await client.expect_any(("error", "filled", "joined", "watching", "left"))
    assert reply["type"] == "error", reply
    return reply["message"]


def kinds(table) -> list[str]:
    return [s.kind for s in table.seats]


def operators(srv: LammaServer, *names: str) -> None:
    """``names``' keys are the room's operators (keys/operators)."""
    (srv.room.config.keys / "operators").write_text(
        "".join(srv.key(n).export_public_key().decode() for n in names))


def member_of(srv: LammaServer, name: str):
    for m in list(srv.room.apps):
        if m.member.name == name:
            return m.member
    return None


async def guest_pty(srv: LammaServer, name: str) -> PtyClient:
    conn = await srv.connect(name, keyless=True)
    proc = await conn.create_process(term_type="xterm-256color", term_size=(80, 24),
                                     encoding=None)
    return PtyClient(conn, proc, (80, 24))


def footer(client: PtyClient) -> str:
    return client.screen.display[-1]


# ------------------------------------------------------------------ the attack
@pytest.mark.parametrize("guest", [False, True], ids=["key", "guest"])
async def test_a_spectators_b_at_a_waiting_table_changes_nothing(room, guest):
    """eve watches owner's table, which waits for people, and presses b: no computer
    player sits down, the match does not begin, and eve is told who may. (Before the
    table checked, the screen's b filled the three seats and started the match.)"""
    owner, table = await waiting_table(room)
    eve = await (guest_pty(room, "eve") if guest else room.pty_client("eve"))
    try:
        await eve.wait_for("card room")
        await eve.wait_for("owner")
        eve.press("w")
        await until(lambda: member_of(room, "eve") in table.watchers, "eve watches")
        await eve.wait_for("waiting for players")
        eve.press("b")
        # Whichever comes first: the screen says why not (whole: on a busy machine a
        # screen's update can arrive in pieces further apart than quiet's period), or
        # the table changed.
        said = ONLY_HOST.format(table=table.id, name="owner")
        await until(lambda: said in eve.text() or table.status != "waiting"
                    or "bot" in kinds(table), "b answered")
        await eve.quiet()
        assert kinds(table) == ["human", "empty", "empty", "empty"]
        assert table.status == "waiting" and table.match is None
        assert ONLY_HOST.format(table=table.id, name="owner") in eve.text(), eve.text()
        assert "computer players" not in footer(eve), footer(eve)
        assert "The host, owner, may add computer players" in eve.text()
        assert owner.view is None           # no match began for the owner either
    finally:
        await eve.close()
        await owner.close()


# ------------------------------------------------------------ the terminal
async def test_terminal_host_is_offered_b_and_it_fills_and_starts(room):
    """ana opens a table that waits for people: the footer offers her b, and b fills
    the empty seats; the match begins."""
    ana = await room.pty_client("ana")
    try:
        await ana.wait_for("card room")
        ana.press("n")
        await ana.wait_for("New table")
        ana.press("down", "down", "down", "down", "right")       # empty seats: wait
        await ana.wait_for("wait for people")
        ana.press("enter")
        await ana.wait_for("waiting for players")
        table = member_of(room, "ana").table
        assert table.creator == member_of(room, "ana").ident and table.host() == 0
        await until(lambda: "b computer players" in footer(ana), "b offered")
        assert "b  fill the empty seats with computer players" in ana.text()
        ana.press("b")
        await until(lambda: table.status == "playing", "the match begins")
        assert kinds(table) == ["human", "bot", "bot", "bot"]
    finally:
        await ana.close()


async def test_terminal_seated_player_is_not_offered_b_and_its_b_is_refused(room):
    """ben sits at owner's waiting table (Enter in the lobby): he is told the host
    decides, is not offered b, and his b changes nothing; his /close is an unknown
    command; q takes him back to the lobby and frees the seat."""
    owner, table = await waiting_table(room)
    ben = await room.pty_client("ben")
    try:
        await ben.wait_for("owner")
        ben.press("enter")
        await until(lambda: table.seats[1].name == "ben", "ben sits")
        await ben.wait_for("The host, owner, may add computer players")
        assert "computer players" not in footer(ben)
        ben.press("b")
        await ben.wait_for(ONLY_HOST.format(table=table.id, name="owner"))
        assert kinds(table) == ["human", "human", "empty", "empty"]
        assert table.status == "waiting"
        ben.press("/")
        await ben.quiet()
        ben.press(f"/close {table.id}", "enter")
        await ben.wait_for("Unknown command")
        assert table.id in room.registry.tables and not table.closed
        ben.press("q")
        await until(lambda: table.seats[1].kind == "empty", "ben's seat is free again")
        await ben.wait_for("card room")
    finally:
        await ben.close()
        await owner.close()


async def test_terminal_operator_watching_is_offered_b_and_fills(room):
    operators(room, "opal")
    owner, table = await waiting_table(room)
    opal = await room.pty_client("opal")
    try:
        await opal.wait_for("owner")
        opal.press("w")
        await until(lambda: member_of(room, "opal") in table.watchers, "opal watches")
        await until(lambda: "b computer players" in footer(opal), "b offered")
        opal.press("b")
        await until(lambda: table.status == "playing", "the match begins")
        assert kinds(table) == ["human", "bot", "bot", "bot"]
        await owner.expect("view")
    finally:
        await opal.close()
        await owner.close()


# -------------------------------------------------------------- programs
async def test_json_host_fills_the_empty_seats_and_the_match_begins(room):
    owner, table = await waiting_table(room)
    assert table.host() == 0
    owner.send({"op": "fill", "seats": [2], "level": "easy"})
    assert (await owner.expect("filled"))["table"] == table.id
    assert kinds(table) == ["human", "empty", "bot", "empty"]
    assert table.seats[2].level == "easy" and table.status == "waiting"
    owner.send({"op": "fill"})
    await owner.expect("filled")
    assert (await owner.expect("view"))["view"]["seat"] == 0
    assert kinds(table) == ["human", "bot", "bot", "bot"] and table.status == "playing"
    # The match has begun: nobody fills any more, not even the host.
    assert "only before the match starts" in await refused(owner, {"op": "fill"})
    # Computer players chosen at the table's making are its creator's own choice.
    maker, made = await waiting_table(room, "maker", computer=[1, 2, 3])
    await maker.expect("view")
    assert kinds(made) == ["human", "bot", "bot", "bot"] and made.status == "playing"
    for c in (owner, maker):
        await c.close()


async def test_json_seated_player_may_not_fill_but_may_leave(room):
    owner, table = await waiting_table(room)
    bob = await room.json_client("bob")
    bob.send({"op": "join", "table": table.id})
    assert (await bob.expect("joined"))["seat"] == 1
    said = await refused(bob, {"op": "fill"})
    assert said.startswith(ONLY_HOST.format(table=table.id, name="owner")), said
    assert kinds(table) == ["human", "human", "empty", "empty"] and table.status == "waiting"
    # Nor may he move to another seat, or take one.
    assert "already hold seat 1" in await refused(bob, {"op": "join", "table": table.id,
                                                        "seat": 2})
    bob.send({"op": "leave"})
    await bob.expect("left")
    assert kinds(table) == ["human", "empty", "empty", "empty"]
    for c in (owner, bob):
        await c.close()


async def test_json_spectator_may_not_fill_but_may_sit_or_take_a_computer_players_seat(room):
    owner, table = await waiting_table(room, computer=[3])
    carol = await room.json_client("carol")
    carol.send({"op": "watch", "table": table.id})
    await carol.expect("watching")
    said = await refused(carol, {"op": "fill"})
    assert said.startswith(ONLY_HOST.format(table=table.id, name="owner")), said
    assert kinds(table) == ["human", "empty", "empty", "bot"]
    # She may take the computer player's seat the host chose (before the start: at once)
    carol.send({"op": "join", "table": table.id, "seat": 3})
    assert (await carol.expect("joined"))["seat"] == 3
    assert kinds(table) == ["human", "empty", "empty", "human"]
    # ... and, seated now but not the host, still may not fill.
    assert (await refused(carol, {"op": "fill"})).startswith(
        ONLY_HOST.format(table=table.id, name="owner"))
    # A spectator may sit in a free seat.
    dan = await room.json_client("dan")
    dan.send({"op": "watch", "table": table.id})
    await dan.expect("watching")
    dan.send({"op": "join", "table": table.id})
    assert (await dan.expect("joined"))["seat"] == 1
    dan.send({"op": "leave"})
    await dan.expect("left")
    carol.send({"op": "leave"})
    await carol.expect("left")
    assert kinds(table) == ["human", "empty", "empty", "empty"]
    for c in (owner, carol, dan):
        await c.close()


async def test_json_guest_hosts_its_own_table_and_watches_others_like_anyone(room):
    """A guest's rights are a person's of the same role: host of the table it opened,
    a spectator with no say at someone else's."""
    owner, table = await waiting_table(room)
    zed, own = await waiting_table(room, "zed", guest=True)
    assert own.host() == 0 and own.seats[0].guest
    zed.send({"op": "leave"})
    await zed.expect("left")
    zed.send({"op": "watch", "table": table.id})
    await zed.expect("watching")
    assert (await refused(zed, {"op": "fill"})).startswith(
        ONLY_HOST.format(table=table.id, name="owner"))
    assert kinds(table) == ["human", "empty", "empty", "empty"]
    # Its own new table, as its host: filled.
    zed.send({"op": "create", "game": GAME, "length": LENGTH, "computer": []})
    mine = room.registry.tables[(await zed.expect("joined"))["table"]]
    zed.send({"op": "fill", "level": "easy"})
    await zed.expect("filled")
    assert mine.status == "playing" and kinds(mine) == ["human", "bot", "bot", "bot"]
    for c in (owner, zed):
        await c.close()


async def test_json_the_host_passes_on_when_the_creator_leaves(room):
    owner, table = await waiting_table(room)
    bob = await room.json_client("bob")
    bob.send({"op": "join", "table": table.id, "seat": 2})
    await bob.expect("joined")
    owner.send({"op": "leave"})
    await owner.expect("left")
    assert table.host() == 2           # the lowest seat's person: nobody else decides
    owner.send({"op": "join", "table": table.id, "seat": 3})
    await owner.expect("joined")
    assert table.host() == 3           # the creator, back at the table, decides again
    assert (await refused(bob, {"op": "fill"})).startswith(
        ONLY_HOST.format(table=table.id, name="owner"))
    owner.send({"op": "leave"})
    await owner.expect("left")
    bob.send({"op": "fill"})
    await bob.expect("filled")
    assert table.status == "playing" and kinds(table) == ["bot", "bot", "human", "bot"]
    for c in (owner, bob):
        await c.close()


async def test_json_operator_fills_any_waiting_table_and_alone_closes_one(room):
    operators(room, "opal")
    owner, table = await waiting_table(room)
    opal = await room.json_client("opal")
    # Closing: nobody but an operator, the host included.
    owner.send({"op": "command", "line": f"/close {table.id}"})
    assert "Unknown command" in (await owner.expect("error"))["message"]
    assert table.id in room.registry.tables and not table.closed
    opal.send({"op": "watch", "table": table.id})
    await opal.expect("watching")
    opal.send({"op": "fill", "level": "easy"})
    await opal.expect("filled")
    assert table.status == "playing" and kinds(table) == ["human", "bot", "bot", "bot"]
    await owner.expect("view")
    opal.send({"op": "command", "line": f"/close {table.id}"})
    assert "closed" in (await opal.expect("command"))["reply"]
    assert "closed" in (await owner.expect("left"))["reason"]
    assert table.id not in room.registry.tables and table.closed
    for c in (owner, opal):
        await c.close()


# ------------------------------------------------ the table engine itself
def test_the_table_answers_may_for_each_role_and_action():
    """``Table.may`` / ``verify`` per role, as docs/roles.md's table says (the front ends
    above go through the same methods)."""
    reg = Registry(bot_pause=3600)
    ops = {"key:o:opal"}
    reg.moderator.is_operator = lambda m: m.ident in ops      # type: ignore[method-assign]
    ana, bob, cat, dee = (Session(n, f"key:{n[0]}:{n}") for n in ("ana", "bob", "cat", "dee"))
    opal = Session("opal", "key:o:opal")
    t = reg.create("estimation", 13, creator=ana)
    t.sit(ana, 0)
    t.sit(bob, 1)
    t.watch(cat)
    t.seating.fill([3], "easy")
    rights = {who.name: {a: t.may(who, a, 3 if a == "take" else None) for a in t.ACTIONS}
              for who in (ana, bob, cat, dee, opal)}
    assert rights == {
        "ana": {"sit": True, "watch": False, "take": False, "fill": True, "leave": True},
        "bob": {"sit": True, "watch": False, "take": False, "fill": False, "leave": True},
        "cat": {"sit": True, "watch": True, "take": True, "fill": False, "leave": True},
        "dee": {"sit": True, "watch": True, "take": True, "fill": False, "leave": False},
        "opal": {"sit": True, "watch": True, "take": True, "fill": True, "leave": False},
    }
    # ("sit" for ana and bob: their own seat again, as coming back.)
    with pytest.raises(RoomError, match="already hold seat 0"):
        t.verify(ana, "sit", 2)
    with pytest.raises(ValueError):
        t.verify(ana, "start")


# ------------------------------------------------ across processes
class Kept:
    """A Cluster that sends nothing: what would have gone is kept."""

    def __init__(self, process: str, token: str = "t"):
        self.process, self.token = process, token
        self.requests: list[tuple] = []
        self.told: list[tuple] = []
        self._n = 0

    def new_table_id(self) -> str:
        self._n += 1
        return str(self._n)

    def publish(self, table, row, holders, frame, events=()): pass
    def gone(self, table): pass
    def request(self, tid, session, body): self.requests.append((tid, session, body))
    def tell(self, process, session, message): self.told.append((process, session, message))
    def fetch_frame(self, tid, done): pass
    def fetch_events(self, tid, after, done): pass
    def fetch_rows(self, done): pass
    def take_requests(self, tid, done): pass
    def login(self, name_key, ident): pass


async def test_a_driver_checks_who_asked_to_fill_and_refuses_a_request_of_nobody():
    """The driver runs a "fill" request as the member who sent it: a spectator's is
    refused (and they are told), one that names nobody does nothing, the host's fills.
    Elsewhere, a table shown from its frame refuses a spectator at once and sends the
    host's request with who asked."""
    reg = Registry(bot_pause=3600)
    side = join_cluster(reg, Kept("p1"))
    ana = Session("ana", "key:a:ana")
    t = reg.create("estimation", 13, creator=ana)
    t.sit(ana, 0)
    frame = frame_of(t, "p1", 0)
    req = {"origin": "p2", "table": t.id, "op": "fill", "args": {"seats": None,
                                                                  "level": "easy"}}
    carol = {"session": "c-1", "name": "carol", "ident": "key:c:carol", "guest": False}
    side.requests.run_one(t, {**req, **carol, "op": "watch", "args": {}})
    side.requests.run(t.id, [{**req, **carol}])
    assert kinds(t) == ["human", "empty", "empty", "empty"] and t.status == "waiting"
    told = side.cluster.told[-1]
    assert told[:2] == ("p2", "c-1") and told[2]["k"] == "refused"
    assert "the host, may add" in told[2]["error"]["$said"]
    with pytest.raises(RoomError):                  # as a member-less request was run
        side.requests.run_one(t, {**req, "session": ""})
    assert kinds(t) == ["human", "empty", "empty", "empty"]
    # Another process shows the table; ana there is its host, carol a spectator.
    other = Registry()
    there = join_cluster(other, Kept("p2"))
    rt = there.remote_table(t.id)
    there.reattach = lambda table: None
    rt.apply_frame(frame)
    assert rt.table.creator == ana.ident and rt.table.host() == 0
    spectator = Session("carol", "key:c:carol")
    rt.local.add(spectator)
    spectator.table = rt.table
    with pytest.raises(RoomError, match="the host, may add"):
        rt.table.fill_with_bots(spectator)
    assert there.cluster.requests == []
    ana_there = Session("ana", "key:a:ana")
    rt.local.add(ana_there)
    ana_there.table, ana_there.seat = rt.table, 0
    rt.table.fill_with_bots(ana_there, None, "easy")
    (tid, session, body), = there.cluster.requests
    assert tid == t.id and session and body["op"] == "fill" and body["ident"] == ana.ident
    # The driver runs it as ana (she sits there through p2): filled, the match begins.
    side.requests.run_one(t, {**req, "origin": "p2", "session": session, "name": "ana",
                      "ident": ana.ident, "guest": False, "args": body["args"]})
    assert t.status == "playing" and kinds(t) == ["human", "bot", "bot", "bot"]
    assert isinstance(side.requests.member_of({"origin": "p2", "session": session, "name": "ana",
                                    "ident": ana.ident, "guest": False}), RemoteMember)


async def test_across_processes_a_spectator_may_not_fill_and_the_host_there_may(rooms):  # noqa: F811
    """On one PostgreSQL, three processes: a table made through p1 waits for people;
    through p2 a spectator's fill is refused and the table stays as it was; once its
    creator has left, the person seated through p2 is its host, and their fill (sent
    to the driver with who asked) fills it and the match begins."""
    p1, p2, _ = rooms
    alice = await p1.json_client("alice")
    alice.send({"op": "create", "game": "estimation", "length": 13, "computer": []})
    tid = (await alice.expect("joined"))["table"]
    table = p1.registry.tables[tid]
    carol = await p2.json_client("carol")
    await listed(carol, tid)
    carol.send({"op": "watch", "table": tid})
    await carol.expect("watching")
    await until(lambda: any(isinstance(m, RemoteMember) for m in table.watchers),
                "carol watches at the driver")
    said = await refused(carol, {"op": "fill"})
    assert said.startswith(ONLY_HOST.format(table=tid, name="alice")), said
    dave = await p2.json_client("dave")
    await listed(dave, tid)
    dave.send({"op": "join", "table": tid, "seat": 1})
    await dave.expect("joined")
    await until(lambda: table.seats[1].name == "dave", "dave sits at the driver")
    alice.send({"op": "leave"})
    await alice.expect("left")
    await until(lambda: p2.registry.find(tid).host() == 1, "p2 sees dave as the host",
                timeout=15)
    dave.send({"op": "fill", "level": "easy"})
    await dave.expect("filled")
    await until(lambda: table.status == "playing", "the match begins at the driver")
    assert kinds(table) == ["bot", "human", "bot", "bot"]
    assert (await dave.expect("view"))["view"]["seat"] == 1
    for c in (alice, carol, dave):
        await c.close()
