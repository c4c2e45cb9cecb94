"""One room on N processes and one PostgreSQL (issue 13): a benchmark, not a test.

    .venv/bin/python tests/bench/cluster_bench.py [--processes 1,2,4] [--tables 8]
        [--seconds 30] [--seats people|bots] [--game estimation --length 24]
        [--failover-runs 3] [--failover-processes 3] [--only throughput,failover]
        [--no-fsync] [--log-level WARNING]

A throwaway PostgreSQL (tests/test_store_postgres.py; durable, as in production, unless
``--no-fsync``), then for each N of ``--processes``, one after the other, a fresh
database and N ``lamma serve`` processes on it (p1..pN, one keys folder, each its own
data folder, no pauses: computer players and finished tricks do not wait) and
``--tables`` tables of programs playing as fast as they can for ``--seconds``:

- ``--seats people`` (default): four JSON clients at each table, no computer player.
  Table i is made through process i mod N by its first person; in every other round
  of N tables (i // N odd) the three others sit through the next process, (i+1) mod N,
  so with an even number of rounds half the tables have people on another process
  than the one the table was made on, and each process makes as many of either kind
  (with N = 1 every table is local). A finished match is followed by a new one (everyone
  leaves, the first person makes a table again, the others join it).
- ``--seats bots``: one person and three computer players ("easy"); at the tables of
  the other kind the person, once the table is made, connects again through the next
  process and is seated there (the seat is held for their key).

It prints, per N: the moves a second (rows appended to ``actions`` in the window, so
computer players' moves count too), act → view (a person's act sent → the next view
received by that person: median, p95, p99, max; local tables and tables played from
another process apart), PostgreSQL's commits a second (``pg_stat_database.xact_commit``
of the database: every transaction, reads and the processes' own included; its
statistics reach the view about once a second, so ±1 s of commits) and per move, each
server process's CPU, the client process's CPU and the machine's (this is a 2-core
machine: the clients, N servers and PostgreSQL share its two cores, so more processes
cannot mean more moves once both are busy; the clients' encryption alone is a good
part of one core).

Then ``failover`` (``--failover-runs`` times, each on a fresh database with
``--failover-processes`` processes, computer players pausing ``--failover-bot-pause``):
a table of three computer players and one person is made through p1, the person
connects again through p2 (so nobody is on p1 but the table's driving), and when a
computer player is to move p1 is SIGKILLed; printed: the time from the kill to the next
action stored (``actions`` polled every 5 ms) and to the person's first view of it
(both include the successor's computer-player pause), and how many actions follow in
the next 3 s. The table is taken to be driven by the process it was made through.

And ``ceiling``: what this PostgreSQL commits at most (four connections, one small row
a commit, durable and not), to read the per-move figures against (docs/cluster.md,
"How far one primary goes").

Anything that does not work (a table not listed on another process, a seat not given
back, no move after a kill) is printed as "not available" with the reason, and the
rest goes on.

Timestamps are CLOCK_MONOTONIC; the clients all run in this process (asyncssh). On a
shared machine compare figures from one run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent)]

import asyncssh  # noqa: E402
from pg import throwaway_postgres, why_not  # noqa: E402
from test_cluster import Serve, pick, state  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


# ---- measuring --------------------------------------------------------------------------

def cpu_of(pid: int) -> float:
    """CPU seconds (user + system) of a process so far."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return float("nan")


def machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of all CPUs so far."""
    first = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    values = [int(x) for x in first]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def percentiles(samples: list[float]) -> str:
    if not samples:
        return "no samples"
    s = sorted(samples)
    def at(q: float) -> float:
        return 1000 * s[min(len(s) - 1, int(q * len(s)))]
    return (f"median {1000 * statistics.median(s):.1f}, p95 {at(0.95):.1f}, "
            f"p99 {at(0.99):.1f}, max {1000 * s[-1]:.1f} ms ({len(s)} acts)")


def p95(samples: list[float]) -> float | None:
    if not samples:
        return None
    s = sorted(samples)
    return 1000 * s[min(len(s) - 1, int(0.95 * len(s)))]


class Database:
    """The benchmark's own connection to the database the processes share."""

    def __init__(self, url: str, name: str):
        import psycopg
        self.name = name
        self.db = psycopg.connect(url, autocommit=True)

    def actions(self, match_id: int | None = None) -> int:
        if match_id is None:
            return self.db.execute("SELECT count(*) FROM actions").fetchone()[0]
        return self.db.execute("SELECT count(*) FROM actions WHERE match_id = %s",
                               (match_id,)).fetchone()[0]

    def commits(self) -> int:
        self.db.execute("SELECT pg_stat_clear_snapshot()")
        return self.db.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = %s",
                               (self.name,)).fetchone()[0]

    def wal_syncs(self) -> int:
        """The server's WAL flushes to disk (pg_stat_wal, every database): the durable
        commits' real cost (commits that share a flush count once, reads none)."""
        self.db.execute("SELECT pg_stat_clear_snapshot()")
        return int(self.db.execute("SELECT wal_sync FROM pg_stat_wal").fetchone()[0])

    def wal_bytes(self) -> int:
        """The WAL the server wrote (pg_stat_wal, every database): what each move costs
        the disk and every replica of the primary."""
        self.db.execute("SELECT pg_stat_clear_snapshot()")
        return int(self.db.execute("SELECT wal_bytes FROM pg_stat_wal").fetchone()[0])

    def match_of(self, table: str) -> int | None:
        row = self.db.execute("SELECT max(id) FROM matches WHERE table_id = %s",
                              (table,)).fetchone()
        return row[0] if row else None

    def close(self) -> None:
        self.db.close()


# ---- the processes ----------------------------------------------------------------------

class Rooms:
    """N ``lamma serve`` processes on a fresh database of the throwaway PostgreSQL."""

    def __init__(self, url: str, admin, n: int, tag: str, bot_pause: float,
                 trick_pause: float, log_level: str):
        self.tmp = Path(tempfile.mkdtemp(prefix=f"lamma-cluster-{tag}-"))
        self.dbname = f"bench_{tag}"
        admin.execute(f"DROP DATABASE IF EXISTS {self.dbname}")
        admin.execute(f"CREATE DATABASE {self.dbname}")
        self.url = url.format(db=self.dbname)
        keys = self.tmp / "keys"
        self.procs = [Serve(f"p{i + 1}", self.url, keys, self.tmp / f"data-p{i + 1}",
                            self.tmp / f"p{i + 1}.log", bot_pause=bot_pause,
                            trick_pause=trick_pause, log_level=log_level) for i in range(n)]

    def start(self) -> None:
        first, *rest = self.procs
        first.start()               # the host key and the schema, once
        first.wait_ready()
        for p in rest:
            p.start()
        for p in rest:
            p.wait_ready()

    def stop(self, keep_logs: bool = False) -> None:
        for p in self.procs:
            with contextlib.suppress(Exception):
                p.stop()
        if keep_logs:
            print(f"  (logs kept in {self.tmp})")
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def dead(self) -> list[str]:
        return [f"{p.name} exited ({p.proc and p.proc.returncode}):\n{p.tail(15)}"
                for p in self.procs if not p.alive()]


# ---- the clients ------------------------------------------------------------------------

_addresses = iter(range(1, 1 << 16))


def next_source() -> str:
    """A loopback address of its own for each client (127.0.x.y): the per-address
    limits of a public room (16 connections, 1 new one a second) hold per client."""
    n = next(_addresses)
    return f"127.0.{1 + n // 250}.{1 + n % 250}"


class Player:
    """A JSON-lines session that acts at once whenever its view asks it to and times
    act → next view. Other messages go to ``replies`` for whoever is waiting."""

    def __init__(self, name: str, port: int, latencies: list[float]):
        self.name, self.port = name, port
        self.key = asyncssh.generate_private_key("ssh-ed25519")
        self.source = next_source()
        self.latencies = latencies
        self.view: dict | None = None
        self.view_at = 0.0
        self.views = 0
        self.sent_at: float | None = None
        self.acts = 0
        self.errors: Counter = Counter()
        self.replies: asyncio.Queue = asyncio.Queue()
        self.changed = asyncio.Event()
        self.conn = None
        self.task: asyncio.Future | None = None

    async def open(self, port: int | None = None) -> None:
        if port is not None:
            self.port = port
        self.conn = await asyncio.wait_for(asyncssh.connect(
            "127.0.0.1", self.port, username=self.name, client_keys=[self.key],
            known_hosts=None, agent_path=None, preferred_auth="publickey",
            local_addr=(self.source, 0)), 15)
        self.proc = await self.conn.create_process("play", encoding=None)
        self.view = None
        self.replies = asyncio.Queue()
        self.task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        try:
            while True:
                line = await self.proc.stdout.readline()
                if not line:
                    break
                now = time.monotonic()
                msg = json.loads(line)
                kind = msg.get("type")
                if kind == "view":
                    if self.sent_at is not None:
                        self.latencies.append(now - self.sent_at)
                        self.sent_at = None
                    self.view, self.view_at = msg["view"], now
                    self.views += 1
                    self.changed.set()
                    self.act()
                    continue
                if kind == "error" and self.sent_at is not None:
                    self.sent_at = None         # the act was refused: try again shortly
                    self.errors[msg["message"][:80]] += 1
                    asyncio.get_running_loop().call_later(0.05, self.act)
                    continue
                self.replies.put_nowait(msg)
        except (asyncssh.Error, OSError, ConnectionError, ValueError):
            pass
        finally:
            self.replies.put_nowait(None)
            self.changed.set()

    def act(self) -> None:
        v = self.view
        if (v is None or self.sent_at is not None or v["phase"] == "over"
                or v.get("seat") is None or v["to_act"] != v["seat"] or not v["legal"]):
            return
        self.sent_at = time.monotonic()
        self.acts += 1
        self.send({"op": "act", "action": pick(v)})

    def send(self, obj: dict) -> None:
        with contextlib.suppress(Exception):
            self.proc.stdin.write(json.dumps(obj).encode() + b"\n")

    async def ask(self, obj: dict, kinds: tuple[str, ...], timeout: float = 10.0) -> dict:
        """Send ``obj``; the first reply of one of ``kinds`` or an error."""
        self.send(obj)
        return await self.reply(kinds, timeout)

    async def reply(self, kinds: tuple[str, ...], timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Unavailable(f"no {'/'.join(kinds)} for {self.name} within {timeout} s")
            try:
                msg = await asyncio.wait_for(self.replies.get(), left)
            except TimeoutError:
                continue
            if msg is None:
                raise Unavailable(f"{self.name}'s connection closed")
            if msg.get("type") in (*kinds, "error"):
                return msg

    def over(self) -> bool:
        return self.view is not None and self.view["phase"] == "over"

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        if self.conn is not None:
            self.conn.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.conn.wait_closed(), 5)


class Unavailable(Exception):
    """Something the scenario needs does not work (yet): said, and the run goes on."""


# ---- throughput ---------------------------------------------------------------------------

class Throughput:
    def __init__(self, rooms: Rooms, args, n: int):
        self.rooms, self.args, self.n = rooms, args, n
        self.local: list[float] = []          # act → view, tables played where they were made
        self.cross: list[float] = []          # act → view, people on another process
        self.players: list[Player] = []
        self.stop = asyncio.Event()
        self.ready: dict[int, bool] = {}     # table i: seated and playing, or failed
        self.problems: Counter = Counter()
        self.matches = 0

    def ports(self, i: int) -> tuple[int, int, bool]:
        """Where table i is made, where its (other) people sit, and whether they differ."""
        a = i % self.n
        b = (a + 1) % self.n if (i // self.n) % 2 == 1 else a
        return self.rooms.procs[a].port, self.rooms.procs[b].port, a != b

    async def join(self, p: Player, table: str, creator: str, timeout: float = 10.0) -> None:
        """Sit at ``table`` once ``p``'s process lists it with ``creator`` in seat 0 (the
        same table, not another process's table of the same number)."""
        deadline = time.monotonic() + timeout
        while True:
            listing = await p.ask({"op": "tables"}, ("tables",))
            rows = [r for r in listing.get("tables", []) if r.get("id") == table]
            if rows and rows[0]["seats"][0].get("name") == creator:
                break
            if time.monotonic() > deadline:
                raise Unavailable("a table listed through another process "
                                  f"(table {table}: {rows[0]['seats'][0] if rows else 'absent'})")
            await asyncio.sleep(0.2)
        msg = await p.ask({"op": "join", "table": table}, ("joined",))
        if msg["type"] != "joined" or msg["table"] != table:
            raise Unavailable(f"join through another process: {msg.get('message', msg)}")

    async def table(self, i: int) -> None:
        made_on, sit_on, cross = self.ports(i)
        samples = self.cross if cross else self.local
        bots = self.args.seats == "bots"
        people = [Player(f"t{i}s{s}", made_on if s == 0 else sit_on, samples)
                  for s in range(1 if bots else 4)]
        self.players += people
        first = people[0]
        try:
            for p in people:
                await p.open()
            while not self.stop.is_set():
                create = {"op": "create", "game": self.args.game, "length": self.args.length,
                          "timer": 0}
                if bots:
                    create.update(computer=[1, 2, 3], level="easy")
                if first.port != made_on:
                    await first.close()
                    await first.open(made_on)
                made = await first.ask(create, ("joined",))
                if made["type"] != "joined":
                    raise Unavailable(f"create: {made.get('message')}")
                tid = made["table"]
                if bots and cross:
                    # The person comes back through the other process, into their seat.
                    await first.close()
                    await first.open(sit_on)
                    back = await first.reply(("joined",), 10)
                    if back.get("table") != tid:
                        raise Unavailable(f"seat held through another process: {back}")
                for p in people[1:]:
                    await self.join(p, tid, first.name)
                self.ready[i] = True
                self.matches += 1
                while not self.stop.is_set() and not all(p.over() for p in people):
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.stop.wait(), 0.25)
                    if any(p.task is not None and p.task.done() for p in people):
                        raise Unavailable("a connection closed during play")
                if self.stop.is_set():
                    break
                for p in people:
                    await p.ask({"op": "leave"}, ("left",))
                    p.view = None               # the next match's views, not this one's end
        except Unavailable as e:
            self.problems[str(e)] += 1
        except (asyncssh.Error, OSError, TimeoutError) as e:
            self.problems[f"{type(e).__name__}: {e}"] += 1
        finally:
            self.ready.setdefault(i, False)
            if not self.stop.is_set():          # failed: its people play nowhere else
                for p in people:
                    await p.close()

    async def run(self) -> dict:
        args = self.args
        tasks = [asyncio.ensure_future(self.table(i)) for i in range(args.tables)]
        # Every table made and seated, or failed (at most ~20 s).
        deadline = time.monotonic() + 20 + args.tables
        while len(self.ready) < args.tables and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        playing = sum(1 for r in self.ready.values() if r)
        await asyncio.sleep(1.0)                      # warm
        db = Database(self.rooms.url, self.rooms.dbname)
        procs = self.rooms.procs
        before = (time.monotonic(), db.actions(), db.commits(),
                  [cpu_of(p.proc.pid) for p in procs], time.process_time(), machine_busy(),
                  db.wal_syncs(), db.wal_bytes())
        self.local.clear()
        self.cross.clear()
        acts0 = sum(p.acts for p in self.players)
        await asyncio.sleep(args.seconds)
        after = (time.monotonic(), db.actions(), db.commits(),
                 [cpu_of(p.proc.pid) for p in procs], time.process_time(), machine_busy(),
                 db.wal_syncs(), db.wal_bytes())
        acts = sum(p.acts for p in self.players) - acts0
        local, cross = list(self.local), list(self.cross)
        self.stop.set()
        await asyncio.wait(tasks, timeout=15)
        for p in self.players:
            await p.close()
        db.close()
        secs = after[0] - before[0]
        moves = (after[1] - before[1]) / secs
        commits = (after[2] - before[2]) / secs
        syncs = (after[6] - before[6]) / secs
        wal = (after[7] - before[7]) / secs
        busy = (after[5][0] - before[5][0]) / max(1, after[5][1] - before[5][1])
        return {"n": self.n, "tables": args.tables, "playing": playing,
                "moves": moves, "acts": acts / secs, "commits": commits, "syncs": syncs,
                "wal": wal,
                "local": local, "cross": cross,
                "cpu": [(p.name, (a - b) / secs) for p, a, b in zip(procs, after[3], before[3],
                                                                     strict=True)],
                "client_cpu": (after[4] - before[4]) / secs, "machine": busy,
                "problems": self.problems, "matches": self.matches,
                "errors": sum((p.errors for p in self.players), Counter())}


def show_throughput(r: dict, args) -> None:
    n = r["n"]
    print(f"\n{n} process{'es' if n > 1 else ''}, {r['tables']} tables "
          f"({args.seats}), {args.seconds:.0f} s, load {os.getloadavg()[0]:.1f}")
    print(f"  tables playing: {r['playing']}/{r['tables']} ({r['matches']} matches begun)")
    for problem, count in r["problems"].items():
        print(f"  not available ({count} table{'s' if count > 1 else ''}): {problem}")
    print(f"  moves/s (stored actions): {r['moves']:,.1f}   people's acts/s: {r['acts']:,.1f}")
    print(f"  act → view, tables played where made: {percentiles(r['local'])}")
    if n > 1:
        print(f"  act → view, people on another process: {percentiles(r['cross'])}")
    per_move = r["commits"] / r["moves"] if r["moves"] else float("nan")
    print(f"  PostgreSQL commits/s: {r['commits']:,.1f} ({per_move:.2f} per move); "
          f"WAL flushes/s: {r['syncs']:,.1f} ({r['syncs'] / r['moves'] if r['moves'] else 0:.2f}"
          " per move)")
    print(f"  WAL written: {r['wal'] / 1e6:,.2f} MB/s "
          f"({r['wal'] / r['moves'] / 1e3 if r['moves'] else 0:,.1f} kB per move)")
    cpu = ", ".join(f"{name} {100 * c:.0f}%" for name, c in r["cpu"])
    print(f"  CPU (of one core): {cpu}; clients {100 * r['client_cpu']:.0f}%; "
          f"machine {100 * r['machine']:.0f}% of {os.cpu_count()} cores")
    if r["errors"]:
        print(f"  refused acts: {dict(r['errors'].most_common(3))}")


# ---- failover ---------------------------------------------------------------------------

async def failover(rooms: Rooms, bot_pause: float) -> dict:
    """Kill the process a table was made through while a computer player is to move; the
    table's one person is on p2. Times to the next stored action and to its view."""
    db = Database(rooms.url, rooms.dbname)
    p1, p2 = rooms.procs[0], rooms.procs[1]
    person = Player("fo", p1.port, [])
    try:
        await person.open()
        made = await person.ask({"op": "create", "game": "estimation", "length": 24,
                                 "computer": [1, 2, 3], "level": "easy", "timer": 0},
                                ("joined",))
        if made["type"] != "joined":
            raise Unavailable(f"create: {made.get('message')}")
        tid = made["table"]
        await person.close()
        await person.open(p2.port)
        back = await person.reply(("joined",), 10)
        if back.get("type") != "joined" or back.get("table") != tid:
            raise Unavailable(f"the seat through p2: {back}")
        mid = db.match_of(tid)
        # A computer player to move, shown just now (it waits bot_pause before moving).
        deadline = time.monotonic() + 30
        while True:
            person.changed.clear()
            v = person.view
            if (v is not None and v["phase"] == "play" and v["to_act"] != v["seat"]
                    and time.monotonic() - person.view_at < min(0.02, bot_pause / 4)):
                break
            if time.monotonic() > deadline:
                raise Unavailable("no computer player's turn seen through p2 in 30 s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(person.changed.wait(), 1)
        at_kill = state(v)
        p1.kill()
        killed = time.monotonic()
        stored0 = db.actions(mid)
        stored_at = seen_at = None
        deadline = killed + 30
        while (stored_at is None or seen_at is None) and time.monotonic() < deadline:
            if stored_at is None and db.actions(mid) > stored0:
                stored_at = time.monotonic()
            w = person.view
            if seen_at is None and w is not None and state(w) != at_kill:
                seen_at = person.view_at
            await asyncio.sleep(0.005)
        if stored_at is None:
            raise Unavailable("no action stored within 30 s of the kill")
        n0 = db.actions(mid)
        await asyncio.sleep(3)
        return {"stored": stored_at - killed,
                "seen": None if seen_at is None else seen_at - killed,
                "then": db.actions(mid) - n0}
    finally:
        await person.close()
        db.close()


# ---- main -------------------------------------------------------------------------------

def ceiling(url: str, admin, seconds: float) -> None:
    """What this PostgreSQL commits at most: four connections, each committing one
    small row at a time (the shape of a move's action row), durable (a flush waited
    for) and then as the room's worker commits (``synchronous_commit = off``); read
    with the per-move figures above, it says how many moves (and tables) one primary
    on this machine can carry."""
    import threading

    import psycopg
    admin.execute("DROP DATABASE IF EXISTS bench_ceiling")
    admin.execute("CREATE DATABASE bench_ceiling")
    target = url.format(db="bench_ceiling")
    with psycopg.connect(target, autocommit=True) as db:
        db.execute("CREATE TABLE rows (id BIGSERIAL PRIMARY KEY, body TEXT NOT NULL)")
    body = "x" * 120
    print(f"\nceiling of this PostgreSQL: 4 connections committing one row at a time, "
          f"{seconds:.0f} s each way, load {os.getloadavg()[0]:.1f}")
    for how in ("on", "off"):
        counts = [0] * 4
        stop = time.monotonic() + seconds

        def run(i: int, how: str = how, counts: list[int] = counts,
                stop: float = stop) -> None:
            with psycopg.connect(target, autocommit=True) as db:
                db.execute(f"SET synchronous_commit = {how}")
                while time.monotonic() < stop:
                    db.execute("INSERT INTO rows (body) VALUES (%s)", (body,))
                    counts[i] += 1
        threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(f"  synchronous_commit = {how}: {sum(counts) / seconds:,.0f} commits/s")
    admin.execute("DROP DATABASE IF EXISTS bench_ceiling WITH (FORCE)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--processes", default="1,2,4",
                    help="process counts to measure, one after the other (default 1,2,4)")
    ap.add_argument("--tables", type=int, default=8, help="tables of programs (default 8; a multiple of 2N gives every process as many tables of each kind)")
    ap.add_argument("--seconds", type=float, default=30.0, help="measured seconds per count")
    ap.add_argument("--seats", choices=("people", "bots"), default="people",
                    help="four JSON clients a table, or one and three computer players")
    ap.add_argument("--game", default="estimation")
    ap.add_argument("--length", default="24", help="match length (default 24: long matches)")
    ap.add_argument("--failover-runs", type=int, default=3)
    ap.add_argument("--failover-processes", type=int, default=3)
    ap.add_argument("--failover-bot-pause", type=float, default=0.2,
                    help="the computer players' pause in the failover runs (default 0.2 s)")
    ap.add_argument("--only", default="throughput,failover",
                    help="throughput, failover, ceiling (the database's commits/s)")
    ap.add_argument("--ceiling-seconds", type=float, default=5.0)
    ap.add_argument("--no-fsync", action="store_true",
                    help="PostgreSQL without fsync (default: durable, as in production)")
    ap.add_argument("--log-level", default="WARNING", help="the processes' (default WARNING)")
    ap.add_argument("--keep-logs", action="store_true", help="keep the processes' logs")
    args = ap.parse_args()
    if args.length.isdigit():
        args.length = int(args.length)
    counts = [int(x) for x in args.processes.split(",") if x.strip()]
    only = set(args.only.split(","))
    reason = why_not()
    if reason:
        print(f"not available: {reason}")
        return
    print(f"cluster_bench: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
          f"PostgreSQL {'without fsync' if args.no_fsync else 'durable (fsync on)'}")
    results = []
    failovers: list[dict] = []
    with throwaway_postgres(durable=not args.no_fsync) as (url, admin):
        if "throughput" in only:
            for n in counts:
                rooms = Rooms(url, admin, n, f"n{n}", 0.0, 0.0, args.log_level)
                try:
                    rooms.start()
                    r = asyncio.run(Throughput(rooms, args, n).run())
                    show_throughput(r, args)
                    results.append(r)
                    for dead in rooms.dead():
                        print(f"  not available: {dead}")
                except Exception as e:
                    print(f"\n{n} processes: not available: {type(e).__name__}: {e}")
                finally:
                    rooms.stop(args.keep_logs)
                    admin.execute(f"DROP DATABASE IF EXISTS {rooms.dbname} WITH (FORCE)")
        if "ceiling" in only:
            ceiling(url, admin, args.ceiling_seconds)
        if "failover" in only:
            print(f"\nfailover: {args.failover_processes} processes, the computer players "
                  f"pause {args.failover_bot_pause} s (included in the times)")
            for run in range(args.failover_runs):
                rooms = Rooms(url, admin, max(2, args.failover_processes), f"f{run}",
                              args.failover_bot_pause, args.failover_bot_pause,
                              args.log_level)
                try:
                    rooms.start()
                    f = asyncio.run(failover(rooms, args.failover_bot_pause))
                    seen = "—" if f["seen"] is None else f"{f['seen']:.2f} s"
                    print(f"  run {run + 1}: kill → next action stored {f['stored']:.2f} s, "
                          f"→ seen by the person {seen}; {f['then']} actions in the next 3 s")
                    failovers.append(f)
                except (Unavailable, asyncssh.Error, OSError, TimeoutError) as e:
                    print(f"  run {run + 1}: not available: {e}")
                finally:
                    rooms.stop(args.keep_logs)
                    admin.execute(f"DROP DATABASE IF EXISTS {rooms.dbname} WITH (FORCE)")
    if results:
        print("\n| processes | tables | moves/s | act → view p95 (local / other process) "
              "| commits/s | WAL flushes/s | WAL kB/move |")
        print("|---|---|---|---|---|---|---|")
        for r in results:
            loc, cro = p95(r["local"]), p95(r["cross"])
            lat = f"{loc:.1f} ms" if loc is not None else "—"
            if r["n"] > 1:
                lat += f" / {cro:.1f} ms" if cro is not None else " / not available"
            print(f"| {r['n']} | {r['playing']}/{r['tables']} | {r['moves']:,.0f} | {lat} "
                  f"| {r['commits']:,.0f} | {r['syncs']:,.0f} "
                  f"| {r['wal'] / r['moves'] / 1e3 if r['moves'] else 0:,.1f} |")
    if failovers:
        stored = [f["stored"] for f in failovers]
        print(f"\nfailover: kill → next stored action median {statistics.median(stored):.2f} s "
              f"(max {max(stored):.2f} s, {len(stored)} runs)")


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.default_int_handler)   # the finally blocks run
    main()
