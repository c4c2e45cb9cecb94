"""One room across three processes on one PostgreSQL (issue 13, "Done when").

A throwaway PostgreSQL (tests/test_store_postgres.py) and three real ``lamma serve``
processes on one database, p1, p2 and p3, sharing one keys folder (one host key), each
with its own data folder; programs talk to them over SSH as JSON-lines clients, each
person with their own key (the name is bound to it, so the seat is held for them when
they come back; a guest could not come back).

``test_three_processes_serve_one_database`` proves the harness: PostgreSQL starts, the
three processes start on it and answer JSON clients, and a match is played to its end in
one process and recorded once.

``test_one_room_across_processes`` is the issue's scenario, through the JSON interface
only: a table made through p1 is listed, joined and watched through p2 and p3; chat
crosses processes; p1 (the table's driver) is SIGKILLed mid-trick; alice comes back
through p3 and lands in her seat, the computer players keep moving, the match ends with
the same totals for everyone and is recorded exactly once (and its stored actions replay
to the same result); a second login by bob through p3 closes his session on p2.

The match is the calculator scoring's shortest (``estimation-kotshina`` micro: five
rounds, ~280 actions); Estimation's shortest (13 rounds, ~830 actions) would take the
computer players alone ~40 s at the 0.05 s pauses used here. The processes' logs are
printed when a test fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import asyncssh
import pytest
from pg import throwaway_postgres, why_not
from stacked import view_policy
from test_crash import consistent

from engine import replay

pytestmark = pytest.mark.slow      # three processes on PostgreSQL

ROOT = Path(__file__).resolve().parents[1]
GAME, LENGTH = "estimation-kotshina", "micro"
PAUSE = 0.05                 # the computer players' pause and the finished trick's
REJOIN_WITHIN = 10.0         # seconds from the kill to alice's "joined" through p3
BOTS = (2, 3)                # the computer players' seats in the scenario


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Serve:
    """One ``lamma serve`` process on the shared database, logging to a file."""

    def __init__(self, name: str, database: str, keys: Path, data: Path, log: Path,
                 bot_pause: float = PAUSE, trick_pause: float = PAUSE,
                 log_level: str = "INFO"):
        self.name, self.database, self.keys, self.data, self.log = name, database, keys, data, log
        self.options = ["--bot-pause", str(bot_pause), "--trick-pause", str(trick_pause),
                        "--status-every", "0", "--log-level", log_level]
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.since = 0

    def start(self) -> None:
        self.since = self.log.stat().st_size if self.log.exists() else 0  # this start's lines
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "server.cli", "serve", "--port", str(self.port),
                 "--database", self.database, "--process-name", self.name,
                 "--keys", str(self.keys), "--data", str(self.data), *self.options],
                cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"})

    def wait_ready(self, timeout: float = 30.0) -> None:
        """Until it says it listens and answers on its port with an SSH banner."""
        deadline = time.monotonic() + timeout
        while b"Lamma is listening" not in self.log.read_bytes()[self.since:]:
            assert self.proc is not None and self.proc.poll() is None, \
                f"{self.name} exited ({self.proc and self.proc.returncode}):\n{self.tail()}"
            assert time.monotonic() < deadline, f"{self.name} did not start:\n{self.tail()}"
            time.sleep(0.05)
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            s.settimeout(10)
            assert s.recv(64).startswith(b"SSH-2.0-"), f"{self.name}: no SSH banner"

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if not self.alive():
            return
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)

    def text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def tail(self, lines: int = 60) -> str:
        """The log's last lines, without asyncssh's INFO lines (a few per connection)."""
        kept = [x for x in self.text().splitlines() if " asyncssh INFO " not in x]
        return "\n".join(kept[-lines:])


class Cluster:
    def __init__(self, url: str, admin, procs: dict[str, Serve]):
        self.url = url                  # the shared database
        self.admin = admin              # an autocommit connection to the server's "postgres"
        self.procs = procs
        self.keys: dict[str, asyncssh.SSHKey] = {}

    def key(self, name: str) -> asyncssh.SSHKey:
        """Each person's own key (the first key that logs in under a name binds it)."""
        if name not in self.keys:
            self.keys[name] = asyncssh.generate_private_key("ssh-ed25519")
        return self.keys[name]

    async def client(self, name: str, process: str) -> Client:
        c = Client(name, process, self.procs[process].port, self.key(name))
        await c.open()
        return c

    def dump(self) -> None:
        """The processes' logs, for a failed test's output."""
        for p in self.procs.values():
            state = "running" if p.alive() else f"exited {p.proc and p.proc.returncode}"
            print(f"\n===== {p.name} (port {p.port}, {state}) log tail =====\n{p.tail()}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    reason = why_not()
    if reason:
        pytest.skip(reason)
    tmp = tmp_path_factory.mktemp("cluster")
    keys = tmp / "keys"                 # ONE keys folder: one host key for all three
    with throwaway_postgres() as (url, admin):
        admin.execute("CREATE DATABASE cluster")
        database = url.format(db="cluster")
        procs = {n: Serve(n, database, keys, tmp / f"data-{n}", tmp / f"{n}.log")
                 for n in ("p1", "p2", "p3")}
        try:
            # p1 first: it makes the host key and the schema; then the other two together.
            procs["p1"].start()
            procs["p1"].wait_ready()
            for n in ("p2", "p3"):
                procs[n].start()
            for n in ("p2", "p3"):
                procs[n].wait_ready()
            yield Cluster(database, admin, procs)
        finally:
            for p in procs.values():
                with contextlib.suppress(Exception):
                    p.stop()


# ---- JSON clients ------------------------------------------------------------------------

class Client:
    """A JSON-lines session (``NAME@host play``) with its own key. Every message is kept
    (``log``, with its arrival time); ``view`` is the latest view; ``expect`` waits for a
    message matching a predicate, passing over the others."""

    def __init__(self, name: str, process: str, port: int, key):
        self.name, self.process, self.port, self.key = name, process, port, key
        self.log: list[tuple[float, dict]] = []
        self.views: list[tuple[float, dict]] = []
        self.view: dict | None = None
        self.errors: list[str] = []
        self.closed = False
        self.changed = asyncio.Event()
        self.moves = 0
        self._queue: asyncio.Queue = asyncio.Queue()

    async def open(self) -> None:
        self.conn = await asyncio.wait_for(asyncssh.connect(
            "127.0.0.1", self.port, username=self.name, client_keys=[self.key],
            known_hosts=None, agent_path=None, preferred_auth="publickey"), 10)
        self.proc = await self.conn.create_process("play", encoding=None)
        self._task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        try:
            while True:
                line = await self.proc.stdout.readline()
                if not line:
                    break
                msg = json.loads(line)
                now = time.monotonic()
                self.log.append((now, msg))
                if msg.get("type") == "view":
                    self.view = msg["view"]
                    self.views.append((now, msg["view"]))
                elif msg.get("type") == "error":
                    self.errors.append(msg["message"])
                self._queue.put_nowait(msg)
                self.changed.set()
        except (asyncssh.Error, OSError, ConnectionError):
            pass
        finally:
            self.closed = True
            self._queue.put_nowait(None)
            self.changed.set()

    def send(self, obj: dict) -> None:
        self.proc.stdin.write(json.dumps(obj).encode() + b"\n")

    async def expect(self, match, timeout: float = 10.0, what: str = "") -> dict:
        """The next message for which ``match(msg)`` is true (those before are passed over)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self}: no {what or 'matching message'} within "
                                     f"{timeout} s; last messages: {self.last()}")
            try:
                msg = await asyncio.wait_for(self._queue.get(), left)
            except TimeoutError:
                continue
            if msg is None:
                raise AssertionError(f"{self}: connection closed while waiting for "
                                     f"{what or 'a message'}; last messages: {self.last()}")
            if match(msg):
                return msg

    async def ask(self, obj: dict, mtype: str, timeout: float = 10.0,
                  about: tuple[str, ...] | None = None) -> dict:
        """``obj``'s answer: a message of ``mtype``, or an error. An error carries no
        request of its own, and older requests' may still be queued (a player's moves
        refused while a table was taken over, one per view): with ``about``, only an
        error whose message says one of those words is taken (``()``: none, for a
        request that is never refused)."""
        self.send(obj)

        def answer(m: dict) -> bool:
            if m.get("type") == mtype:
                return True
            if m.get("type") != "error":
                return False
            return about is None or any(w in m.get("message", "") for w in about)
        return await self.expect(answer, timeout, mtype)

    def act_if_my_turn(self) -> None:
        v = self.view
        if (v is not None and not self.closed and v["phase"] != "over"
                and v.get("seat") is not None and v["to_act"] == v["seat"] and v["legal"]
                and v is not getattr(self, "_acted_on", None)):
            self._acted_on = v              # once per view: the next view says what came of it
            self.send({"op": "act", "action": pick(v)})
            self.moves += 1

    def retry_after_error(self) -> None:
        self._acted_on = None

    def last(self, n: int = 6) -> list:
        return [json.dumps(m)[:300] for _, m in self.log[-n:]]

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            self._task.cancel()
            self.conn.close()
            await asyncio.wait_for(self.conn.wait_closed(), 5)

    def __str__(self) -> str:
        return f"{self.name}@{self.process}"


pick = view_policy      # a legal action that moves a round along, from the view


async def drive(players: list[Client], until, timeout: float, what: str) -> None:
    """The people act whenever their view asks them to, until ``until()``."""
    deadline = time.monotonic() + timeout
    errors = {p.name: len(p.errors) for p in players}
    while True:
        for p in players:
            p.changed.clear()
        if any(len(p.errors) > errors[p.name] for p in players):
            # A refusal is tried again, not at once: a view that says "your turn" while
            # a table is taken over would otherwise be refused a thousand times a
            # second (and the room's rate limit would refuse what comes after).
            await asyncio.sleep(0.05)
        for p in players:
            if len(p.errors) > errors[p.name]:          # refused: try again on the next message
                errors[p.name] = len(p.errors)
                p.retry_after_error()
            p.act_if_my_turn()
        if until():
            return
        gone = [str(p) for p in players if p.closed]
        assert not gone, f"{gone} closed while {what}; last: {[p.last() for p in players]}"
        left = deadline - time.monotonic()
        assert left > 0, (f"timed out: {what}; views: "
                          f"{[(str(p), brief(p.view)) for p in players]}")
        waits = [asyncio.ensure_future(p.changed.wait()) for p in players]
        try:
            await asyncio.wait(waits, timeout=min(left, 1.0),
                               return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()


def over(c: Client) -> bool:
    return c.view is not None and c.view["phase"] == "over"


def mid_trick(v: dict | None) -> bool:
    """Cards on the table, the trick not complete, past the round's first trick, a
    computer player to move: the moment to kill the driver."""
    return (v is not None and v["phase"] == "play" and 1 <= len(v["trick"]) <= 3
            and len(v["tricks"]) >= 1 and v["to_act"] in BOTS)


def brief(v: dict | None) -> dict | None:
    if v is None:
        return None
    return {k: v.get(k) for k in ("phase", "round", "to_act", "trick", "totals")}


def state(v: dict) -> str:
    """What changes with every action (a view pushed for a seat change repeats it)."""
    return json.dumps({k: v.get(k) for k in (
        "phase", "round", "to_act", "trick", "tricks", "declarations", "auction",
        "dash_players", "call", "history", "totals")}, sort_keys=True)


def bot_moves_after(c: Client, since: float) -> list[float]:
    """When ``c`` saw a computer player's move after ``since``: a view in which the state
    changed while a computer player was the one to act."""
    out = []
    prev = None
    for t, v in c.views:
        if prev is not None and t > since and prev["to_act"] in BOTS and state(v) != state(prev):
            out.append(t)
        prev = v
    return out


def recorded(cluster: Cluster, table: str) -> tuple[int, dict, int]:
    """The one match row of ``table``: (its id, its result, its stored actions)."""
    import psycopg
    with psycopg.connect(cluster.url) as db:
        rows = db.execute("SELECT id, finished, result FROM matches WHERE table_id = %s",
                          (table,)).fetchall()
        assert len(rows) == 1, f"table {table} has {len(rows)} match rows: {rows}"
        [(mid, finished, result)] = rows
        assert finished is not None and result is not None, rows
        (n,) = db.execute("SELECT count(*) FROM actions WHERE match_id = %s", (mid,)).fetchone()
    return mid, json.loads(result), n


def replayed(cluster: Cluster, mid: int):
    """The stored record of match ``mid`` through the engine."""
    from server.store import Store
    store = Store(cluster.url)
    try:
        stored = store.match(mid)
        assert stored is not None
        return replay(stored.record)
    finally:
        store.close()


def check_end(cluster: Cluster, table: str, clients: list[Client]) -> None:
    """Everyone saw the same end; the database has it once, and it replays to it."""
    finals = {str(c): (c.view["totals"], c.view["result"]) for c in clients}
    totals, result = next(iter(finals.values()))
    assert result is not None and all(f == (totals, result) for f in finals.values()), finals
    mid, stored_result, actions = recorded(cluster, table)
    assert stored_result == result
    m = replayed(cluster, mid)
    assert m.to_act is None and m.result == result and list(m.totals) == totals
    assert len(m.log) == actions


# ---- the harness ---------------------------------------------------------------------------

async def test_three_processes_serve_one_database(cluster):
    # Each process answers a JSON client (one name, one key, one session at a time),
    # and all three present the one host key of the shared keys folder.
    host_keys = set()
    for name in ("p1", "p2", "p3"):
        c = await cluster.client("probe", name)
        try:
            reply = await c.ask({"op": "tables"}, "tables")
            assert reply["type"] == "tables" and isinstance(reply["tables"], list), reply
            host_keys.add(c.conn.get_server_host_key().get_fingerprint())
        finally:
            await c.close()
    assert len(host_keys) == 1, host_keys
    # A match in one process: two people and two computer players, to the end.
    dora, eve = await cluster.client("dora", "p1"), await cluster.client("eve", "p1")
    try:
        made = await dora.ask({"op": "create", "game": GAME, "length": LENGTH,
                               "computer": list(BOTS), "level": "easy", "timer": 0}, "joined")
        assert made["type"] == "joined" and made["seat"] == 0, made
        table = made["table"]
        joined = await eve.ask({"op": "join", "table": table}, "joined")
        assert joined == {"type": "joined", "table": table, "seat": 1}, joined
        await drive([dora, eve], lambda: over(dora) and over(eve), 60, "playing in p1")
        assert dora.moves and eve.moves and not dora.errors and not eve.errors
        check_end(cluster, table, [dora, eve])
    except BaseException:
        cluster.dump()
        raise
    finally:
        await dora.close()
        await eve.close()


# ---- the scenario ---------------------------------------------------------------------------

async def listed(c: Client, table: str, timeout: float = 5.0) -> dict:
    """The row of ``table`` in ``c``'s process's lobby, asking until it is there."""
    deadline = time.monotonic() + timeout
    while True:
        reply = await c.ask({"op": "tables"}, "tables", about=())
        rows = [r for r in reply.get("tables", []) if r.get("id") == table]
        if rows:
            return rows[0]
        assert time.monotonic() < deadline, \
            f"{c}: table {table} not listed within {timeout} s: {reply}"
        await asyncio.sleep(0.25)


async def rejoin(cluster: Cluster, name: str, process: str, table: str, seat: int,
                 since: float) -> Client:
    """``name`` connects through ``process`` until a session lands in its seat (a player
    whose first attempt finds nothing tries again), within REJOIN_WITHIN of ``since``."""
    attempts = []
    while True:
        left = since + REJOIN_WITHIN - time.monotonic()
        assert left > 0, f"{name} not back in seat {seat} of table {table} through " \
                         f"{process} within {REJOIN_WITHIN} s: {attempts}"
        c = await cluster.client(name, process)
        try:
            msg = await c.expect(lambda m: m.get("type") == "joined", min(left, 4.0), "joined")
        except AssertionError as e:
            attempts.append(str(e)[:300])
            await c.close()
            continue
        assert (msg["table"], msg["seat"]) == (table, seat), msg
        return c


async def rejoin_while_playing(cluster: Cluster, name: str, process: str, table: str,
                               seat: int, since: float, playing: list[Client]) -> Client:
    """``rejoin``, while the clients ``playing`` play on (their turns are taken as they
    come: the table does not wait for whoever is away)."""
    async def play_on() -> None:
        await drive(playing, lambda: False, 3600, "playing on")
    beside = asyncio.ensure_future(play_on())
    try:
        return await rejoin(cluster, name, process, table, seat, since)
    finally:
        beside.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beside


async def test_one_room_across_processes(cluster):
    p1 = cluster.procs["p1"]
    clients: list[Client] = []

    async def client(name: str, process: str) -> Client:
        clients.append(await cluster.client(name, process))
        return clients[-1]

    try:
        # 1. alice makes a table through p1: herself, a free seat, two computer players.
        alice = await client("alice", "p1")
        made = await alice.ask({"op": "create", "game": GAME, "length": LENGTH,
                                "computer": list(BOTS), "level": "easy", "timer": 0}, "joined")
        assert made["type"] == "joined" and made["seat"] == 0, made
        table = made["table"]

        # 2. p2 and p3 list it, under the same id.
        bob, carol = await client("bob", "p2"), await client("carol", "p3")
        for c in (bob, carol):
            row = await listed(c, table)
            assert row["game"] == GAME, row

        # 3. bob joins it through p2 (the match starts), carol watches it through p3.
        joined = await bob.ask({"op": "join", "table": table}, "joined")
        assert joined == {"type": "joined", "table": table, "seat": 1}, joined
        watching = await carol.ask({"op": "watch", "table": table}, "watching")
        assert watching == {"type": "watching", "table": table}, watching
        for c in (alice, bob, carol):
            await c.expect(lambda m: m.get("type") == "view", 10, "the match's first view")
        assert carol.view["seat"] is None and carol.view["hand"] == []

        # 4. Chat crosses processes, both ways.
        alice.send({"op": "chat", "text": "hello from p1"})
        for c in (bob, carol):
            said = await c.expect(lambda m: m.get("type") == "chat", 10, "alice's chat")
            assert (said["table"], said["from"], said["text"]) == (table, "alice",
                                                                   "hello from p1"), said
        bob.send({"op": "chat", "text": "hello from p2"})
        for c in (alice, carol):
            said = await c.expect(lambda m: m.get("type") == "chat" and m["from"] == "bob",
                                  10, "bob's chat")
            assert (said["table"], said["text"]) == (table, "hello from p2"), said

        # 5. Both people play until a trick is in progress, then p1 (alice's process, the
        #    table's driver) is killed.
        await drive([alice, bob], lambda: mid_trick(alice.view), 30, "playing to mid-trick")
        seen = alice.view
        p1.kill()
        killed = time.monotonic()

        # 6. alice comes back through p3 into her seat while bob plays on through p2.
        back = await rejoin_while_playing(cluster, "alice", "p3", table, 0, killed, [bob])
        clients.append(back)
        rejoined = time.monotonic() - killed
        if back.view is None:
            await back.expect(lambda m: m.get("type") == "view", 10, "the view after joined")
        consistent(seen, back.view)          # where it was when p1 died, or further on
        alice = back
        await drive([alice, bob], lambda: over(alice) and over(bob) and over(carol), 90,
                    "playing to the end after the kill")
        moved = bot_moves_after(bob, killed)
        assert moved, "no computer player's move was seen after the kill"
        print(f"alice back in her seat {rejoined:.2f} s after the kill; first computer "
              f"move seen through p2 {moved[0] - killed:.2f} s after it; {len(moved)} since")

        # 7. The same end for everyone, recorded once, and the stored log replays to it.
        check_end(cluster, table, [alice, bob, carol])

        # 8. One identity across processes: bob's second login (p3) closes his p2 session.
        again = await client("bob", "p3")
        bye = await bob.expect(lambda m: m.get("type") == "bye", 10, "bye")
        assert bye["message"], bye
        reply = await again.ask({"op": "tables"}, "tables")
        assert reply["type"] == "tables", reply
        assert cluster.procs["p2"].alive() and cluster.procs["p3"].alive()
    except BaseException:
        cluster.dump()
        for c in clients:
            print(f"{c}: errors {c.errors[-5:]}; last {c.last()}")
        raise
    finally:
        for c in clients:
            await c.close()
