"""Hostile clients against a real server (issue 11): a benchmark, not a test.

    .venv/bin/python tests/bench/hostile_bench.py [--quick] [--only NAME,...]

NAMES (default: all, in this order):

  quiet         no attack: the JSON client in a quiet room (the baseline)
  quiet-pty     no attack: the terminal client in a quiet room (the baseline)
  json-flood    1,024 {"op":"tables"} in one 16 KB write; a steady flood (~5 s);
                then the flooder reopening sessions on its connection (~5 s)
  paste         an unterminated bracketed paste (ESC[200~ then ~12 MB) on a PTY
  guests        500 guest connections at once; each one admitted opens tables
  pty-sessions  100 PTY sessions opened at once on one connection
  key-names     one key logging in under 200 names (per-address limits raised)
  create-leave  300 create/leave cycles (3 connections); rows in the replay list
  resize        10,000 window-change requests in 5 s on a PTY
  lookalike     look-alike and invisible names after 'alice' and 'sea' are bound,
                each with a new key and as a guest (accepted, or the reason)
  key-flood     megabytes of ordinary characters typed on a PTY
  auth-loop     (extra) 16 connections re-asking keyboard-interactive after the
                refusal, as fast as the server answers, for 5 s
  env           (issue 30) 8 guest connections, each one channel with 4,000 env
                requests of 200 KB, never a shell; RSS 5 s after they close
  channels      8 guest connections opening 20,000 session channels each that
                never start
  pty-term      8 guest connections, 2,000 channels each with a 200 KB TERM
  idle-flood    64 addresses x 16 connections that send a version line and wait,
                against a room under 1,024 open files; honest guest logins meanwhile
  proxy-silent  --proxy-protocol without --proxy-from: 512 connections from one
                address that never send a header; the normal client comes through
                a balancer (a relay that sends PROXY v1 headers)
  cluster-quiet no attack: two processes, A and B, on one PostgreSQL; four honest
                people play at a table on B (the baseline of the next two)
  cluster-flood 15 JSON sessions on A from 3 addresses, each alternating watch and
                leave at B's table within every limit (~60 lines a second each), 10 s
  cluster-flood-local  the same flood through B itself (what it costs on one process)

For each attack it prints who was refused at what count, the latency a normal
client sees at the same moment, and the server's memory (RSS) before, after and
at its peak, then one summary table (Markdown) to paste into README.

Three processes, so that no client's work lands on the server's loop:

* the server, started afresh for every attack by this script (``--serve``):
  ``start_server`` with ``Limits()`` (production limits; only ``key-names``
  raises the per-address connection limits, or they would refuse its 200
  connections long before the per-key one is reached, and it says so), the
  default computer-player pause, and ``runtime.tune_gc``/``gc_task`` as
  ``lamma serve`` runs them, logging at WARNING as it does.  Its RSS and CPU
  time are read from /proc; it answers ``stats`` on stdin (tables, sessions,
  and the store's ``finished_matches``, the replay list the TUI shows) and
  ``lag`` (how late its loop woke a 10 ms sleep, sampled all along);
* the normal client (``--probe``), connecting from 127.0.0.2 (another address
  than the attackers' 127.0.0.1, so per-address limits are not shared).  For
  JSON attacks it makes a round trip every ~20 ms: ``{"op":"tables"}`` every
  fourth, ``{"op":"leave"}`` (answered at once with an error: not at a table)
  in between, which keeps it within the 200 tokens/s a session may spend (a
  listing costs 10); for terminal attacks it is a PTY session in the lobby
  with two waiting tables listed (two more JSON clients from 127.0.0.2 made
  them), pressing down and up in turn and timing key press -> first byte of
  the redrawn rows, a press every >= 50 ms once the screen is quiet;
* the attackers, in this process.

The ``cluster-*`` attacks (issue 30) start a throwaway PostgreSQL (durable, as
tests/test_store_postgres.py makes it) and two servers on it, A and B (``--serve``
with ``--database``), and their normal client is four honest people playing at a
table on B as fast as a program would (20 ms after their view), timed from each
move to the mover's own next view. Printed besides: B's loop lag, the requests B
served for A and the frames it wrote for it.

Everything is on loopback and bounded: each attack stops by itself within
about 10 s (``--quick`` shortens them), the whole run takes a few minutes.
Timestamps are CLOCK_MONOTONIC.  The machine's load is printed next to each
attack: on a shared machine compare figures from one run.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import asyncssh

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

PROBE_ADDR = "127.0.0.2"        # the normal client's address (attackers use 127.0.0.1)
TERM = "xterm-256color"
PROBE_KEYS = [b"\x1b[B", b"\x1b[A"]  # the normal terminal client: down, up in the lobby
PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"
TOO_FAST = b"Too much input"    # server/driver.py's notice
PASTE_CUT = b"Paste cut"
ANSI_RE = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|.)")
CUP_RE = re.compile(rb"\x1b\[(\d+);(\d+)H")
LAMMA_SAYS = re.compile(rb"lamma: ([^\r\n]*)")


# ------------------------------------------------------------------- figures
def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, max(0, round(p / 100 * (len(xs) - 1))))]


def fmt_ms(xs) -> str:
    if not xs:
        return "no samples"
    return (f"median {statistics.median(xs) * 1000:.1f} ms, p95 {pct(xs, 95) * 1000:.1f} ms, "
            f"max {max(xs) * 1000:.1f} ms (n={len(xs)})")


def short_ms(xs) -> str:
    if not xs:
        return "no samples"
    return f"{pct(xs, 95) * 1000:.0f} / {max(xs) * 1000:.0f} ms"


def mb(n: float) -> str:
    return f"{n / 2**20:.0f}"


def load() -> str:
    with open("/proc/loadavg") as fh:
        avg = " ".join(fh.read().split()[:3])
    try:
        out = subprocess.run(["ps", "-eo", "pid,ni,pcpu,comm", "--sort=-pcpu", "--no-headers"],
                             capture_output=True, text=True, timeout=5).stdout.splitlines()
        rows = [line.split() for line in out]
        busy = [f"{c}(ni {n}) {p}%" for pid, n, p, c in (r[:4] for r in rows if len(r) >= 4)
                if int(pid) != os.getpid() and float(p) >= 20]
    except Exception:
        busy = []
    return f"load {avg}" + (f"; busy: {', '.join(busy)}" if busy else "")


def say(text: str) -> None:
    print(text, flush=True)


# ====================================================================== server
async def serve_main(folder: str, overrides: dict, database: str | None = None,
                     process: str = "") -> None:
    """``--serve``: the room under attack, as ``lamma serve`` runs it (its own
    process), on a free loopback port; stdin takes ``stats`` and ``stop``. With
    ``database`` (a PostgreSQL URL) it is one process (``process``) of a room that
    several share."""
    import logging
    # WARNING, as `lamma serve` logs by default (at INFO asyncssh writes a line per
    # window change, which would add to what attack 7 costs)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    from server import runtime
    from server.limits import Limits
    from server.service import RoomConfig
    from server.ssh import start_server
    tmp = Path(folder)
    # Settings of the process and the room rather than of Limits (issue 30's attacks).
    nofile = overrides.pop("_nofile", None)
    if nofile:
        import resource
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    proxy = bool(overrides.pop("_proxy", False))
    config = RoomConfig(data=tmp / "data", keys=tmp / "keys", limits=Limits(**overrides),
                        proxy_protocol=proxy, database=database, process=process)
    server, room, _ = await start_server(config, "127.0.0.1", 0)
    runtime.tune_gc()
    gc_task = asyncio.create_task(runtime.gc_task())
    lags: list[float] = []

    async def lag_probe():
        """How late a 10 ms sleep wakes: the loop's own blocking, seen from inside."""
        while True:
            t = loop.time()
            await asyncio.sleep(0.01)
            lags.append(loop.time() - t - 0.01)
    loop = asyncio.get_running_loop()
    lag_task = asyncio.create_task(lag_probe())
    port = server.sockets[0].getsockname()[1]
    out = sys.stdout
    out.write(json.dumps({"port": port}) + "\n")
    out.flush()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = (await reader.readline()).strip()
        if not line or line == b"stop":
            break
        if line == b"lag":
            out.write(json.dumps(lags) + "\n")
            out.flush()
            lags.clear()
        if line == b"stats":
            st: dict = {"tables": len(room.registry.tables), "online": len(room.online),
                        "sessions": len(room.session_tasks), "apps": len(list(room.apps))}
            st["playing"] = sum(1 for t in room.registry.tables.values()
                                if t.status == "playing")
            try:
                st["replays"] = len(room.store.finished_matches(limit=1_000_000))
            except Exception as exc:
                st["replays"] = f"? ({exc!r})"
            try:
                st["matches"] = room.store.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
            except Exception:
                st["matches"] = "?"
            from engine.room.stats import STATS
            st["frames"] = STATS.cluster_frames.value       # written for other processes
            st["served"] = STATS.cluster_served.value       # their members' requests run here
            out.write(json.dumps(st) + "\n")
            out.flush()
    gc_task.cancel()
    lag_task.cancel()
    server.close()
    for member in list(room.online.values()):
        try:
            member.kick("The server is stopping.")
        except Exception:
            pass
    await asyncio.sleep(0.2)
    for task in list(room.session_tasks):
        task.cancel()
    room.close()


class Child:
    """A child process of this script, spoken to in lines on its stdin and stdout."""

    proc: asyncio.subprocess.Process

    def tell(self, command: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + b"\n")

    async def line(self, timeout: float = 30) -> bytes:
        assert self.proc.stdout is not None
        return await asyncio.wait_for(self.proc.stdout.readline(), timeout)

    async def ask(self, command: bytes):
        self.tell(command)
        return json.loads(await self.line())


class Server(Child):
    """The server process, seen from here: its port, RSS, CPU time and stats."""

    def __init__(self, overrides: dict | None = None, database: str | None = None,
                 process: str = ""):
        self.overrides = overrides or {}
        self.room = ["--database", database, "--process", process] if database else []
        self.tmp = Path(tempfile.mkdtemp(prefix="hostile_bench_"))
        self.log = self.tmp / "server.log"
        self.errfh = open(self.log, "wb")      # closed in stop()

    async def start(self) -> Server:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--serve", str(self.tmp), "--limits",
            json.dumps(self.overrides), *self.room, cwd=ROOT, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self.errfh, limit=1 << 24)
        line = await self.line(60)
        if not line:
            raise RuntimeError("the server did not start:\n" + self.log.read_text()[-3000:])
        self.port = json.loads(line)["port"]
        self.pid = self.proc.pid
        return self

    def status(self, field: str) -> int:
        with open(f"/proc/{self.pid}/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
        return 0

    def rss(self) -> int:
        return self.status("VmRSS")

    def peak(self) -> int:
        return self.status("VmHWM")

    def cpu(self) -> float:
        with open(f"/proc/{self.pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    async def lag(self) -> list[float]:
        """The server loop's lateness waking a 10 ms sleep since the last call."""
        return await self.ask(b"lag")

    async def stats(self) -> dict:
        return await self.ask(b"stats")

    async def stop(self) -> None:
        try:
            self.tell(b"stop")
            await asyncio.wait_for(self.proc.wait(), 10)
        except Exception:
            self.proc.kill()
            await self.proc.wait()
        self.errfh.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


# ================================================================ the clients
async def connect(port: int, name: str, key=None, guest: bool = False,
                  local: str | None = None, **kw):
    opts: dict = dict(username=name, known_hosts=None, agent_path=None,
                      login_timeout=15, connect_timeout=15)
    if local:
        opts["local_addr"] = (local, 0)
    if guest:
        opts.update(client_keys=None, password="guest", preferred_auth="keyboard-interactive")
    else:
        opts.update(client_keys=[key or asyncssh.generate_private_key("ssh-ed25519")],
                    preferred_auth="publickey")
    opts.update(kw)
    return await asyncssh.connect("127.0.0.1", port, **opts)


class Json:
    """One JSON-lines session: counts what comes back by type and message."""

    def __init__(self, proc, keep: bool = True):
        self.proc = proc
        self.keep = keep
        self.types: collections.Counter = collections.Counter()
        self.errors: collections.Counter = collections.Counter()
        self.first: dict | None = None
        self.bye: str | None = None
        self.queue: asyncio.Queue = asyncio.Queue()
        self.done = asyncio.Event()
        self.last_rx = time.monotonic()
        self.sent_lines = 0
        self.task = asyncio.ensure_future(self._read())

    @classmethod
    async def open(cls, conn, keep: bool = True) -> Json:
        return cls(await conn.create_process("play", encoding=None), keep)

    async def _read(self) -> None:
        buf = b""
        try:
            while True:
                data = await self.proc.stdout.read(65536)
                if not data:
                    break
                self.last_rx = time.monotonic()
                buf += data
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    if not line.strip():
                        continue
                    try:
                        msg = json.loads(line)
                    except ValueError:
                        msg = {"type": "?", "raw": line[:80].decode(errors="replace")}
                    t = msg.get("type")
                    if t == "hello":
                        continue            # the protocol's version, first
                    if self.first is None:
                        self.first = msg
                    self.types[t] += 1
                    if t == "error":
                        self.errors[msg.get("message", "")] += 1
                    elif t == "bye":
                        self.bye = msg.get("message", "")
                    if self.keep:
                        self.queue.put_nowait(msg)
        except Exception:
            pass
        finally:
            self.done.set()
            if self.keep:
                self.queue.put_nowait(None)

    def send(self, obj) -> bool:
        """False if the channel is closed already (a refused session is closed at once;
        its reason is still read)."""
        data = obj if isinstance(obj, bytes) else (json.dumps(obj) + "\n").encode()
        try:
            self.proc.stdin.write(data)
        except Exception:
            return False
        self.sent_lines += data.count(b"\n")
        return True

    async def expect(self, *types: str, timeout: float = 5.0) -> dict | None:
        """The next message of one of ``types`` (an error always ends the wait)."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return None
            try:
                msg = await asyncio.wait_for(self.queue.get(), left)
            except TimeoutError:
                return None
            if msg is None:
                return {"type": "closed"}
            if msg.get("type") in types or msg.get("type") in ("error", "bye"):
                return msg

    async def settle(self, quiet: float = 0.5, timeout: float = 5.0) -> None:
        """Until the session ends or nothing has come for ``quiet`` seconds."""
        end = time.monotonic() + timeout
        while not self.done.is_set() and time.monotonic() < end:
            if time.monotonic() - self.last_rx >= quiet:
                return
            try:
                await asyncio.wait_for(self.done.wait(), quiet / 2)
            except TimeoutError:
                pass

    @property
    def refused(self) -> int:
        return sum(n for m, n in self.errors.items() if m.startswith("Too many requests"))


class Pty:
    """A PTY session that counts and timestamps bytes and looks for a few texts
    (no terminal emulation: that would cost more than the attack)."""

    KEEP = 1 << 20

    def __init__(self, proc):
        self.proc = proc
        self.total = 0
        self.raw = bytearray()          # the last KEEP bytes
        self.last_rx = time.monotonic()
        self.seen: collections.Counter = collections.Counter()
        self.said: list[str] = []       # "lamma: ..." lines (refusals, goodbyes)
        self.closed = asyncio.Event()
        self.waiters: list[asyncio.Future] = []
        self._tail = b""
        self.task = asyncio.ensure_future(self._read())

    @classmethod
    async def open(cls, conn, size=(80, 24)) -> Pty:
        return cls(await conn.create_process(term_type=TERM, term_size=size, encoding=None))

    async def _read(self) -> None:
        try:
            while True:
                data = await self.proc.stdout.read(65536)
                if not data:
                    break
                now = time.monotonic()
                self.total += len(data)
                self.last_rx = now
                self.raw += data
                if len(self.raw) > self.KEEP:
                    del self.raw[:len(self.raw) - self.KEEP]
                look = self._tail + data
                for text in (TOO_FAST, PASTE_CUT):
                    self.seen[text.decode()] += look.count(text) - self._tail.count(text)
                for m in LAMMA_SAYS.finditer(data):
                    self.said.append(m.group(1).decode(errors="replace"))
                self._tail = data[-64:]
                for fut in self.waiters:
                    if not fut.done():
                        fut.set_result(now)
                self.waiters.clear()
        except Exception:
            pass
        finally:
            self.closed.set()
            for fut in self.waiters:
                if not fut.done():
                    fut.set_result(None)

    def next_bytes(self) -> asyncio.Future:
        fut = asyncio.get_running_loop().create_future()
        if self.closed.is_set():
            fut.set_result(None)
        else:
            self.waiters.append(fut)
        return fut

    def press(self, data: bytes) -> None:
        self.proc.stdin.write(data)

    async def quiet(self, period: float = 0.05, timeout: float = 5.0) -> None:
        end = time.monotonic() + timeout
        while not self.closed.is_set():
            now = time.monotonic()
            left = self.last_rx + period - now
            if left <= 0 or now >= end:
                return
            await asyncio.sleep(left)

    async def ready(self, timeout: float = 15.0) -> None:
        """Until the first screen is drawn (a few KB) and nothing more comes."""
        end = time.monotonic() + timeout
        while self.total < 1500 and not self.closed.is_set() and time.monotonic() < end:
            await asyncio.sleep(0.02)
        await self.quiet(0.3, max(0.5, end - time.monotonic()))

    async def answer_time(self, key: bytes = b"?", timeout: float = 3.0) -> float | None:
        """Seconds from a key press to the first byte of the screen's answer."""
        await self.quiet(0.05, 2.0)
        fut = self.next_bytes()
        t0 = time.monotonic()
        try:
            self.press(key)
            t = await asyncio.wait_for(fut, timeout)
        except Exception:
            return None
        return None if t is None else t - t0

    def notices(self) -> str:
        parts = [f"'{k}' x{v}" for k, v in self.seen.items() if v]
        return ", ".join(parts) if parts else "none"


async def close_all(conns) -> None:
    for c in conns:
        try:
            c.close()
        except Exception:
            pass
    for c in conns:
        try:
            await asyncio.wait_for(c.wait_closed(), 3)
        except Exception:
            pass


def reason_of(exc: BaseException) -> str:
    if isinstance(exc, asyncssh.DisconnectError):
        return re.sub(r" \(error \d+\)$", "", exc.reason or "") or type(exc).__name__
    if isinstance(exc, TimeoutError):
        return "timed out"
    return type(exc).__name__ + (f": {exc}" if str(exc) else "")


# ================================================================ the probe
async def probe_main(kind: str, port: int) -> None:
    """``--probe``: the normal client, in its own process.  Prints ``ready``, then
    answers ``take`` on stdin with the samples since the last ``take``."""
    out = sys.stdout
    lat: list[float] = []
    listing: list[float] = []
    counts: collections.Counter = collections.Counter()
    ready: dict = {"ready": True}
    if kind == "players":
        conn, run, ready["table"] = await players(port, lat)
    else:
        conn = await connect(port, "probe" if kind == "json" else "watcher", local=PROBE_ADDR)
    if kind == "players":
        pass                    # ``run`` plays (players())
    elif kind == "json":
        s = await Json.open(conn)
        s.send({"op": "tables"})
        await s.expect("tables")

        async def run():
            i = 0
            while not s.done.is_set():
                t0 = time.monotonic()
                tables = i % 4 == 0
                s.send({"op": "tables"} if tables else {"op": "leave"})
                msg = await s.expect("tables", timeout=10)
                if msg is None:
                    counts["no answer in 10 s"] += 1
                    continue
                dt = time.monotonic() - t0
                t = msg.get("type")
                if t in ("closed", "bye"):
                    counts["closed"] += 1
                    return
                lat.append(dt)
                if tables and t == "tables":
                    listing.append(dt)
                if t == "error" and msg["message"].startswith("Too many"):
                    counts["refused"] += 1
                i += 1
                await asyncio.sleep(max(0.0, t0 + 0.02 - time.monotonic()))
    else:
        # Two waiting tables (two more people from this address), so that the lobby's
        # cursor has somewhere to go: a press moves it and redraws two rows.
        helpers = []
        for i in range(2):
            hc = await connect(port, f"host{i}", local=PROBE_ADDR)
            hs = await Json.open(hc)
            hs.send({"op": "create", "game": "estimation"})
            await hs.expect("joined")
            helpers.append(hc)
        p = await Pty.open(conn)
        await p.ready()
        keys = PROBE_KEYS

        async def run():
            i = 0
            while not p.closed.is_set():
                t0 = time.monotonic()
                dt = await p.answer_time(keys[i % len(keys)], timeout=5)
                i += 1
                if dt is None:
                    counts["closed" if p.closed.is_set() else "no answer in 5 s"] += 1
                else:
                    lat.append(dt)
                await asyncio.sleep(max(0.0, t0 + 0.05 - time.monotonic()))
            counts["closed"] += 1
    task = asyncio.ensure_future(run())
    await asyncio.sleep(0.5)
    out.write(json.dumps(ready) + "\n")
    out.flush()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = (await reader.readline()).strip()
        if not line or line == b"quit":
            break
        if line == b"take":
            out.write(json.dumps({"lat": lat, "listing": listing, "counts": dict(counts)}) + "\n")
            out.flush()
            lat.clear()
            listing.clear()
            counts.clear()
    task.cancel()
    conn.close()


PLAYERS_THINK = 0.02     # the honest players' pause before each of their moves


async def players(port: int, lat: list[float]):
    """The ``players`` probe: four people at one table (Estimation, 24 rounds, no computer
    player, no timer) on the server at ``port``, each moving PLAYERS_THINK after its view
    asks it to; ``lat`` gets each move's time to the mover's own next view. Returns
    (a connection, the coroutine that plays, the table's id)."""
    from stacked import view_policy
    conns, sessions = [], []
    for i in range(4):
        conns.append(await connect(port, f"honest{i}", local=PROBE_ADDR))
        sessions.append(await Json.open(conns[-1]))
    sessions[0].send({"op": "create", "game": "estimation", "length": 24, "timer": 0})
    made = await sessions[0].expect("joined", timeout=15)
    if made is None or made.get("type") != "joined":
        raise RuntimeError(f"the players' table: {made}")
    table = made["table"]
    for s in sessions[1:]:
        s.send({"op": "join", "table": table})
        joined = await s.expect("joined", timeout=15)
        if joined is None or joined.get("type") != "joined":
            raise RuntimeError(f"joining the players' table: {joined}")

    async def one(s: Json) -> None:
        sent: float | None = None
        while not s.done.is_set():
            msg = await s.queue.get()
            if msg is None:
                return
            if msg.get("type") == "error":
                sent = None
                continue
            if msg.get("type") != "view":
                continue
            if sent is not None:
                lat.append(time.monotonic() - sent)
                sent = None
            v = msg["view"]
            if v["phase"] != "over" and v["to_act"] == v["seat"] and v["legal"]:
                await asyncio.sleep(PLAYERS_THINK)
                sent = time.monotonic()
                s.send({"op": "act", "action": view_policy(v)})

    async def run() -> None:
        await asyncio.gather(*(one(s) for s in sessions))

    class All:
        def close(self) -> None:
            for c in conns:
                c.close()
    return All(), run, table


class Probe(Child):
    def __init__(self, kind: str, port: int):
        self.kind, self.port = kind, port
        self.info: dict = {}

    async def start(self) -> Probe:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--probe", self.kind, "--port", str(self.port), cwd=ROOT,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, limit=1 << 24)
        line = await self.line()
        if not line:
            raise RuntimeError("the probe did not start")
        self.info = json.loads(line)
        return self

    async def take(self) -> dict:
        return await self.ask(b"take")

    async def stop(self) -> None:
        try:
            self.tell(b"quit")
            await asyncio.wait_for(self.proc.wait(), 5)
        except Exception:
            self.proc.kill()
            await self.proc.wait()


def probe_line(sample: dict) -> str:
    c = {k: v for k, v in sample["counts"].items() if v}
    extra = f"; {', '.join(f'{k} {v}' for k, v in c.items())}" if c else ""
    return fmt_ms(sample["lat"]) + extra


# ============================================================== the attacks
class Attack:
    """What an attack hands back: the cell for the summary table."""

    def __init__(self):
        self.outcome = ""
        self.phases: list[tuple[str, dict]] = []     # (label, probe sample) per phase


async def phase(probe: Probe, attack: Attack, label: str) -> None:
    attack.phases.append((label, await probe.take()))


# ---------------------------------------------------------------- 1. JSON flood
async def attack_json_flood(srv: Server, probe: Probe, a) -> Attack:
    out = Attack()
    conn = await connect(srv.port, "flooder")
    line = b'{"op":"tables"}\n'
    # (a) 1,024 lines in one 16 KB write
    s = await Json.open(conn, keep=False)
    s.send(line * 1024)
    await s.settle(0.5, 8)
    handled = s.types["tables"] + s.refused + (1 if s.bye else 0)
    closed = s.done.is_set()
    a_text = (f"{s.types['tables']} answered, then {s.refused} refused; "
              + (f"closed after {handled} lines" if closed else "not closed"))
    say(f"  (a) {len(line) * 1024:,} bytes = 1,024 lines in one write: {a_text}"
        + (f" (bye: {s.bye!r})" if s.bye else "") + f"; other errors: "
        f"{dict((m, n) for m, n in s.errors.items() if not m.startswith('Too many')) or 'none'}")
    await phase(probe, out, "(a) one 16 KB write")

    # (b) a steady flood on a new session of the same connection
    secs = a.flood_seconds
    s2 = await Json.open(conn, keep=False)
    chunk = line * 64
    t0 = time.monotonic()
    sent = 0
    try:
        while time.monotonic() - t0 < secs and not s2.done.is_set():
            s2.send(chunk)
            await s2.proc.stdin.drain()
            sent += 64
            await asyncio.sleep(0.005)
    except Exception:
        pass
    b_secs = time.monotonic() - t0
    await s2.settle(0.5, 3)
    first = s2.first or {}
    if first.get("type") == "error" and not first["message"].startswith("Too many"):
        b_text = f"session refused: {first['message']!r}"
    else:
        handled2 = s2.types["tables"] + s2.refused + (1 if s2.bye else 0)
        b_text = (f"{sent:,} lines sent in {b_secs:.1f} s ({sent / max(b_secs, 1e-9):,.0f}/s): "
                  f"{s2.types['tables']} answered, {s2.refused} refused, "
                  + (f"closed after {handled2} lines" if s2.done.is_set() else "still open"))
    say(f"  (b) steady flood, 64 lines every 5 ms for up to {secs:.0f} s: {b_text}")
    await phase(probe, out, "(b) steady flood")

    # (c) reopening sessions on the connection, flooding each, for ~secs
    got = refused = 0
    reasons: collections.Counter = collections.Counter()
    answered = 0
    t0 = time.monotonic()
    conn_closed = ""
    while time.monotonic() - t0 < secs:
        try:
            s3 = await Json.open(conn, keep=False)
        except Exception as exc:
            conn_closed = reason_of(exc)
            break
        try:
            s3.send(line * 256)
        except Exception:
            pass
        await s3.settle(0.3, 3)
        first = s3.first or {}
        if first.get("type") == "error" and not first["message"].startswith("Too many"):
            refused += 1
            reasons[first["message"]] += 1
        else:
            got += 1
            answered += s3.types["tables"]
        s3.proc.close()
        await asyncio.sleep(0.05)
    c_text = (f"got {got} sessions ({answered} lines answered in them), {refused} refused"
              + (f" ({'; '.join(f'{m!r} x{n}' for m, n in reasons.items())})" if reasons else "")
              + (f"; connection lost: {conn_closed}" if conn_closed else ""))
    say(f"  (c) reopening sessions on its connection for {secs:.0f} s: {c_text}")
    await phase(probe, out, "(c) reopening sessions")
    conn.close()
    sessions = 2 + got
    out.outcome = (f"burst: {a_text}; steady flood: {b_text.split(': ', 1)[-1]}; "
                   f"reopening: {sessions} sessions in all on one connection "
                   f"({got} more in {secs:.0f} s), {refused} refused")
    return out


# ------------------------------------------------------------- 2. bracketed paste
async def attack_paste(srv: Server, probe: Probe, a) -> Attack:
    out = Attack()
    conn = await connect(srv.port, "paster")
    p = await Pty.open(conn)
    await p.ready()
    total = a.paste_mb * 2**20
    block = (b"lorem ipsum dolor sit amet " * 2500)[:65536]
    t0 = time.monotonic()
    sent = 0
    err = ""
    try:
        p.press(PASTE_START)
        while sent < total and time.monotonic() - t0 < a.paste_seconds and not p.closed.is_set():
            p.press(block)
            await asyncio.wait_for(p.proc.stdin.drain(), max(0.1, a.paste_seconds + t0 - time.monotonic()))
            sent += len(block)
    except TimeoutError:
        err = "the server stopped taking bytes (SSH window closed)"
    except Exception as exc:
        err = reason_of(exc)
    secs = time.monotonic() - t0
    await asyncio.sleep(0.5)
    during = await p.answer_time(b"?", timeout=2)          # inside the paste: swallowed?
    p.press(PASTE_END)
    await asyncio.sleep(1.0)        # the notice first (a screen opened at once would hide it)
    await p.quiet(0.2, 3)
    after = await p.answer_time(b"?", timeout=5)
    await p.quiet(0.3, 3)
    alive = not p.closed.is_set()
    text = (f"{sent / 2**20:.1f} MB of paste taken in {secs:.1f} s "
            f"({sent / 2**20 / max(secs, 1e-9):.1f} MB/s){'; ' + err if err else ''}; "
            f"a key inside the open paste: {'answered' if during is not None else 'no screen change'}; "
            f"after the end marker a key is answered "
            + (f"in {after * 1000:.0f} ms" if after is not None else "NOT (no answer in 5 s)")
            + f"; notices: {p.notices()}; session {'alive' if alive else 'closed'}"
            + (f" ({'; '.join(p.said)})" if p.said else ""))
    say(f"  {text}")
    await phase(probe, out, "paste")
    conn.close()
    cut = re.findall(rb"Paste cut to (\d+) characters", bytes(p.raw))
    out.outcome = (f"not refused, cut: {sent / 2**20:.0f} MB sent in {secs:.1f} s"
                   + (f" ({err})" if err else "")
                   + (f", kept {int(cut[-1]):,} characters ('Paste cut' notice)" if cut
                      else ", no 'Paste cut' notice")
                   + f"; session {'alive' if alive else 'closed'}, next key answered "
                   + (f"in {after * 1000:.0f} ms" if after is not None else "NOT"))
    return out


# ------------------------------------------------------------------ 3. guests
async def attack_guests(srv: Server, probe: Probe, a) -> Attack:
    out = Attack()
    n = a.guests
    results: list = [None] * n
    conns = []
    t0 = time.monotonic()

    async def one(i):
        try:
            conn = await connect(srv.port, f"g{i}", guest=True)
        except Exception as exc:
            results[i] = ("refused", reason_of(exc), time.monotonic() - t0)
            return
        conns.append(conn)
        results[i] = ("in", "", time.monotonic() - t0)

    await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(n))), a.guest_seconds + 20)
    secs = time.monotonic() - t0
    admitted = [i for i, r in enumerate(results) if r and r[0] == "in"]
    reasons = collections.Counter(r[1] for r in results if r and r[0] == "refused")
    say(f"  {n} guest connections fired at once: {len(admitted)} got in, "
        f"{n - len(admitted)} refused in {secs:.1f} s: "
        + "; ".join(f"{m!r} x{c}" for m, c in reasons.most_common()))
    await phase(probe, out, "connecting")

    # every admitted guest opens tables with computer players, a session each
    # (a guest's newer session closes its older one; the seat is kept)
    joined: collections.Counter = collections.Counter()
    errors: collections.Counter = collections.Counter()
    sessions = []

    async def tables_of(conn):
        for _ in range(a.tables_per_guest):
            try:
                s = await Json.open(conn)
            except Exception as exc:
                errors[reason_of(exc)] += 1
                return
            sessions.append(s)
            try:
                s.send({"op": "create", "game": "estimation", "computer": [1, 2, 3]})
            except Exception:
                pass
            msg = await s.expect("joined", timeout=5)
            if msg is None:
                errors["no answer"] += 1
            elif msg["type"] == "joined":
                joined[id(conn)] += 1
            else:
                errors[msg.get("message", msg["type"])] += 1
            await asyncio.sleep(0.05)

    await asyncio.gather(*(tables_of(c) for c in list(conns)))
    await asyncio.sleep(1.0)
    st = await srv.stats()
    per = collections.Counter(joined.values())
    say(f"  each admitted guest tried {a.tables_per_guest} tables (computer players in 3 "
        f"seats, a new session for each, as a session at a playing table may not create): "
        f"{sum(joined.values())} creates answered 'joined' "
        f"({', '.join(f'{k} by {v}' for k, v in sorted(per.items()))}); refusals: "
        + ("; ".join(f"{m!r} x{c}" for m, c in errors.most_common()) or "none")
        + f"; the room now has {st['tables']} tables ({st['playing']} playing), "
        f"{st['sessions']} sessions")
    await phase(probe, out, "opening tables")
    await close_all(conns)
    await asyncio.sleep(1.5)
    st2 = await srv.stats()
    say(f"  after the guests left: {st2['tables']} tables, {st2['sessions']} sessions")
    top = reasons.most_common(1)[0][0] if reasons else ""
    out.outcome = (f"{len(admitted)} of {n} got in, {n - len(admitted)} refused"
                   + (f" ({top!r}...)" if top else "")
                   + f"; {sum(joined.values())} creates answered 'joined', the room then held "
                   f"{st['tables']} tables; {st2['tables']} once they went")
    return out


# ------------------------------------------------------------ 4. PTY sessions
async def attack_pty_sessions(srv: Server, probe: Probe, a) -> Attack:
    out = Attack()
    conn = await connect(srv.port, "opener")
    n = a.pty_sessions
    t0 = time.monotonic()
    opened = await asyncio.gather(*(Pty.open(conn) for _ in range(n)), return_exceptions=True)
    open_secs = time.monotonic() - t0
    ptys = [p for p in opened if isinstance(p, Pty)]
    failed = collections.Counter(reason_of(e) for e in opened if not isinstance(e, Pty))
    await asyncio.sleep(a.pty_wait)
    st = await srv.stats()
    alive = [p for p in ptys if not p.closed.is_set()]
    drawn = [p for p in alive if p.total > 500]
    said = collections.Counter(p.said[0] if p.said else "(closed, nothing said)"
                               for p in ptys if p.closed.is_set())
    text = (f"{len(ptys)} of {n} channels opened in {open_secs:.2f} s"
            + (f" ({'; '.join(f'{m} x{c}' for m, c in failed.items())})" if failed else "")
            + f"; after {a.pty_wait:.0f} s {len(alive)} alive ({len(drawn)} with a screen drawn),"
            f" {len(ptys) - len(alive)} closed: "
            + "; ".join(f"{m!r} x{c}" for m, c in said.most_common())
            + f"; server: {st['sessions']} sessions, {st['apps']} apps alive")
    say(f"  {text}")
    await phase(probe, out, "sessions")
    conn.close()
    out.outcome = text.split("; server:")[0]
    return out


# --------------------------------------------------------------- 5. names per key
KEY_NAMES_LIMITS = dict(handshakes_per_address=1_000_000, connects_rate=1e9, connects_burst=1e9,
                        key_logins_rate=1e9, key_logins_burst=1e9, connections_per_key=1_000_000)


async def attack_key_names(srv: Server, probe: Probe, a) -> Attack:
    out = Attack()
    key = asyncssh.generate_private_key("ssh-ed25519")
    results = []
    t0 = time.monotonic()
    for i in range(a.names):
        name = f"hoard{i:03d}"
        try:
            conn = await connect(srv.port, name, key)
        except Exception as exc:
            results.append(("auth", reason_of(exc)))
            continue
        try:
            s = await Json.open(conn)
            s.send({"op": "tables"})
            msg = await s.expect("tables", timeout=5)
            if msg and msg["type"] == "tables":
                results.append(("bound", ""))
            else:
                results.append(("refused", (msg or {}).get("message", "no answer")))
        finally:
            conn.close()
    secs = time.monotonic() - t0
    bound = sum(1 for r, _ in results if r == "bound")
    first_no = next((i for i, (r, _) in enumerate(results) if r != "bound"), None)
    reasons = collections.Counter(m for r, m in results if r != "bound")
    text = (f"{bound} of {a.names} names bound"
            + (f", refused from name {first_no + 1} on: "
               + "; ".join(f"{m!r} x{c}" for m, c in reasons.most_common())
               if first_no is not None else " (none refused)")
            + f" ({secs:.1f} s)")
    say(f"  (per-address connection limits raised so that the per-key limit is reached: "
        f"{KEY_NAMES_LIMITS})")
    say(f"  {text}")
    await phase(probe, out, "names")
    out.outcome = text + "; per-address limits raised for this one"
    return out


# ------------------------------------------------------------ 6. create/leave
async def attack_create_leave(srv: Server, probe: Probe, a) -> Attack:
    out = Attack()
    before = await srv.stats()
    per = a.cycles // 3
    done: collections.Counter = collections.Counter()
    errors: collections.Counter = collections.Counter()
    conns = []
    t0 = time.monotonic()

    async def churn(k):
        conn = await connect(srv.port, f"churn{k}")
        conns.append(conn)
        s = await Json.open(conn)
        n = 0
        while n < per and time.monotonic() - t0 < a.cycle_seconds:
            s.send({"op": "create", "game": "estimation", "computer": [1, 2, 3]})
            msg = await s.expect("joined", timeout=5)
            if msg is None or msg["type"] != "joined":
                m = (msg or {}).get("message", "no answer")
                errors[m] += 1
                if msg and msg["type"] in ("closed", "bye"):
                    return
                await asyncio.sleep(0.05 if m.startswith("Too many") else 0.2)
                continue
            for _ in range(100):            # a leave refused by the rate limit is sent again
                s.send({"op": "leave"})
                msg = await s.expect("left", timeout=5)
                if msg is not None and msg["type"] == "left":
                    break
                m = (msg or {}).get("message", "no answer")
                errors["leave: " + m] += 1
                if not m.startswith("Too many"):
                    break
                await asyncio.sleep(0.05)
            n += 1
            done[k] += 1

    await asyncio.gather(*(churn(k) for k in range(3)))
    secs = time.monotonic() - t0
    await asyncio.sleep(1.5)
    st = await srv.stats()
    cycles = sum(done.values())
    text = (f"{cycles} of {per * 3} cycles done in {secs:.1f} s; "
            f"refused: " + ("; ".join(f"{m!r} x{c}" for m, c in errors.most_common()) or "none")
            + f"; replay list (store.finished_matches): {before['replays']} -> {st['replays']} "
            f"rows (the TUI shows at most 200); matches stored {before['matches']} -> "
            f"{st['matches']}; open tables now {st['tables']}")
    say(f"  3 connections, create (3 computer players) then leave, up to {per} times each, "
        f"for at most {a.cycle_seconds:.0f} s")
    say(f"  {text}")
    await phase(probe, out, "cycles")
    await close_all(conns)
    nref = sum(c for m, c in errors.items() if m.startswith("Too many"))
    out.outcome = (f"{cycles} cycles in {secs:.1f} s ({nref} lines refused by the rate limit); "
                   f"{st['replays'] - before['replays']} rows in the replay list, "
                   f"{st['tables']} tables left open")
    return out


# ------------------------------------------------------------------ 7. resize
async def attack_resize(srv: Server, probe: Probe, a) -> Attack:
    out = Attack()
    conn = await connect(srv.port, "resizer")
    p = await Pty.open(conn)
    await p.ready()
    sizes = [(80, 24), (120, 40), (100, 30), (200, 60), (60, 20)]
    n, secs = a.resizes, a.resize_seconds
    ticks = max(1, int(secs / 0.01))
    per_tick = max(1, n // ticks)
    bytes0 = p.total
    t0 = time.monotonic()
    sent = 0
    err = ""
    try:
        for t in range(ticks):
            for _ in range(per_tick):
                if sent >= n:
                    break
                w, h = sizes[sent % len(sizes)]
                p.proc.change_terminal_size(w, h)
                sent += 1
            await asyncio.sleep(max(0.0, t0 + (t + 1) * 0.01 - time.monotonic()))
            if p.closed.is_set():
                break
    except Exception as exc:
        err = reason_of(exc)
    flood_secs = time.monotonic() - t0
    final = (91, 29)
    if not p.closed.is_set():
        try:
            p.proc.change_terminal_size(*final)
        except Exception:
            pass
    t_end = time.monotonic()
    redrawn = p.total - bytes0
    # Ctrl+L (the whole screen again) once a second until the last size is drawn
    answer = None
    rows = 0
    applied = f"not within {a.resize_settle:.0f} s"
    while time.monotonic() - t_end < a.resize_settle and not p.closed.is_set():
        await asyncio.sleep(0.5)
        await p.quiet(0.2, 5)
        mark = p.total
        dt = await p.answer_time(b"\x0c", timeout=5)
        if answer is None:
            answer = dt
        await p.quiet(0.2, 5)
        tail = bytes(p.raw[-(p.total - mark):]) if p.total > mark else b""
        rows = max((int(r) for r, _ in CUP_RE.findall(tail)), default=0)
        if rows == final[1]:
            applied = f"after {time.monotonic() - t_end:.1f} s"
            break
    if not applied.startswith("after"):
        applied += f" (drawn to row {rows}, not {final[1]})"
    alive = not p.closed.is_set()
    text = (f"{sent:,} window changes sent in {flood_secs:.1f} s{'; ' + err if err else ''}; "
            f"the server sent {redrawn / 1024:,.0f} KB of screen meanwhile "
            f"(the first 80x24 lobby was {bytes0 / 1024:.1f} KB); the last size "
            f"({final[0]}x{final[1]}) drawn {applied}; the first Ctrl+L answered "
            + (f"in {answer * 1000:.0f} ms" if answer is not None else "NOT (no answer in 5 s)"))
    text += f"; session {'alive' if alive else 'closed'}" + (f" ({'; '.join(p.said)})" if p.said else "")
    say(f"  {text}")
    await phase(probe, out, "resizes")
    conn.close()
    out.outcome = (f"{sent:,} changes in {flood_secs:.1f} s, not refused (applied at a limited "
                   f"rate): {redrawn / 1024:,.0f} KB of screen sent; the last size drawn "
                   f"{applied}; session {'alive' if alive else 'closed'}")
    return out


# -------------------------------------------------------------- 8. look-alikes
LOOKALIKES = [
    ("alice", "alice (the owned name, another key)"),
    ("Alice", "Alice (case)"),
    ("\u0430lice", "аlice (Cyrillic а)"),
    ("\u0455\u0435\u0430", "ѕеа (all Cyrillic, looks like 'sea')"),
    ("alice\u17b4", "alice+U+17B4 (invisible Khmer vowel)"),
    ("\u1160", "U+1160 (Hangul filler, invisible)"),
    ("r\u043e\u043et", "rооt (Cyrillic о)"),
    ("B\u043et-1", "Bоt-1 (Cyrillic о)"),
    ("a" + "\u0301" * 15, "a + 15 stacked combining acutes"),
]


class ReasonClient(asyncssh.SSHClient):
    """Keeps what the server says during keyboard-interactive login (its refusals).
    Asks for keyboard-interactive at most ``tries`` times, as OpenSSH does
    (NumberOfPasswordPrompts, 3); None: forever (the auth-loop attack)."""

    def __init__(self, tries: int | None = 3):
        self.said: list[str] = []
        self.tries = tries
        self.asked = 0

    def auth_banner_received(self, msg, lang):
        self.said.append(msg.strip())

    def kbdint_auth_requested(self):
        self.asked += 1
        if self.tries is not None and self.asked > self.tries:
            return None
        return ""

    def kbdint_challenge_received(self, name, instructions, lang, prompts):
        if instructions:
            self.said.append(instructions.strip())
        return ["guest"] * len(prompts)


async def try_name(port: int, name: str, key) -> str:
    """Log in as OpenSSH would (the key first, then keyboard-interactive, where this
    room admits guests and says why it refuses); what the room made of it."""
    client = ReasonClient()
    opts: dict = dict(username=name, known_hosts=None, agent_path=None, login_timeout=10)
    if key is None:
        opts.update(client_keys=None, preferred_auth="keyboard-interactive")
    else:
        opts.update(client_keys=[key], preferred_auth="publickey,keyboard-interactive")
    try:
        conn, _ = await asyncssh.create_connection(lambda: client, "127.0.0.1", port, **opts)
    except Exception as exc:
        why = " / ".join(dict.fromkeys(client.said)) or reason_of(exc)
        return f"refused at login: {why!r}"
    try:
        s = await Json.open(conn)
        s.send({"op": "profile"})
        msg = await s.expect("profile", timeout=5) or {"type": "error", "message": "no answer"}
        if msg["type"] == "profile":
            return "ACCEPTED, the name bound to the key"
        if msg["type"] == "error" and "statistics are not kept" in msg["message"]:
            return "ACCEPTED as a guest" + (" (the key was refused)" if key is not None else "")
        return f"refused: {msg.get('message', msg['type'])!r}"
    finally:
        conn.close()


async def attack_lookalike(srv: Server, probe: Probe, a) -> Attack:
    out = Attack()
    owner = asyncssh.generate_private_key("ssh-ed25519")
    for name in ("alice", "sea"):
        first = await try_name(srv.port, name, owner)
        say(f"  {name!r} with its own key first: {first}")
    accepted = refused = 0
    for name, label in LOOKALIKES:
        for who, key in (("a new key", asyncssh.generate_private_key("ssh-ed25519")),
                         ("a guest", None)):
            res = await try_name(srv.port, name, key)
            if res.startswith("ACCEPTED"):
                accepted += 1
            else:
                refused += 1
            say(f"  {label:40s} as {who:9s}: {res}")
    await phase(probe, out, "names")
    out.outcome = (f"{refused} of {refused + accepted} attempts refused, {accepted} accepted "
                   f"({len(LOOKALIKES)} names, each with a new key and as a guest)")
    return out


# ------------------------------------------------- 10. keyboard-interactive loop
async def attack_auth_loop(srv: Server, probe: Probe, a) -> Attack:
    """Found while writing attack 8: after a refusal the server answers a new
    keyboard-interactive request at once, as often as it is asked (asyncssh has
    no limit on attempts; only login_timeout, 60 s, ends the connection).  An
    SSH client that keeps asking (OpenSSH asks three times) makes it loop."""
    out = Attack()
    n, secs = a.auth_loops, a.auth_seconds
    clients = [ReasonClient(tries=None) for _ in range(n)]
    ends: collections.Counter = collections.Counter()

    async def one(client):
        opts = dict(username="root", known_hosts=None, agent_path=None, client_keys=None,
                    preferred_auth="keyboard-interactive", login_timeout=secs + 30)
        try:
            conn, _ = await asyncio.wait_for(
                asyncssh.create_connection(lambda: client, "127.0.0.1", srv.port, **opts), secs)
        except TimeoutError:
            ends[f"still logging in after {secs:.0f} s (stopped by the attacker)"] += 1
            return
        except Exception as exc:
            ends[reason_of(exc)] += 1
            return
        ends["admitted"] += 1
        conn.close()

    t0 = time.monotonic()
    cpu0 = srv.cpu()
    await asyncio.gather(*(one(c) for c in clients))
    took = time.monotonic() - t0
    cpu = srv.cpu() - cpu0
    asked = sum(c.asked for c in clients)
    said = collections.Counter(x for c in clients for x in c.said)
    text = (f"{n} connections as 'root' re-asking keyboard-interactive after the refusal: "
            f"{asked:,} requests answered in {took:.1f} s ({asked / max(took, 1e-9):,.0f}/s), "
            f"server CPU {cpu:.1f} s ({cpu / max(took, 1e-9):.0%} of a core); ends: "
            + "; ".join(f"{m} x{c}" for m, c in ends.most_common())
            + f"; refusal shown {sum(said.values())} times")
    say(f"  {text}")
    await phase(probe, out, "auth loop")
    out.outcome = (f"NOT refused: {asked:,} keyboard-interactive requests answered in "
                   f"{took:.0f} s by {n} connections ({cpu / max(took, 1e-9):.0%} of a core), "
                   f"each only ended by login_timeout (60 s)"
                   if not ends.get("admitted") and any(k.startswith("still") for k in ends)
                   else text)
    return out


# ---------------------------------------------------------------- 9. key flood
async def attack_key_flood(srv: Server, probe: Probe, a) -> Attack:
    out = Attack()
    conn = await connect(srv.port, "typist")
    p = await Pty.open(conn)
    await p.ready()
    # letters with no binding in the lobby (q would quit, p would open a table, o the
    # options, whose a/m/e/k then toggled settings: '?' there shows nothing)
    block = (b"xzaeghkmcuvy" * 6000)[:65536]
    total = a.keys_mb * 2**20
    t0 = time.monotonic()
    sent = 0
    err = ""
    try:
        while sent < total and time.monotonic() - t0 < a.keys_seconds and not p.closed.is_set():
            p.press(block)
            await asyncio.wait_for(p.proc.stdin.drain(), max(0.1, a.keys_seconds + t0 - time.monotonic()))
            sent += len(block)
    except TimeoutError:
        err = "the server stopped taking bytes (SSH window closed)"
    except Exception as exc:
        err = reason_of(exc)
    secs = time.monotonic() - t0
    t_end = time.monotonic()
    answer = None
    for _ in range(10):
        answer = await p.answer_time(b"?", timeout=1.0)
        if answer is not None or p.closed.is_set():
            break
    back = time.monotonic() - t_end
    alive = not p.closed.is_set()
    text = (f"{sent / 2**20:.1f} MB typed in {secs:.1f} s "
            f"({sent / 2**20 / max(secs, 1e-9):.1f} MB/s taken){'; ' + err if err else ''}; "
            f"notices: {p.notices()}; afterwards a key is answered "
            + (f"after {back:.1f} s (last press {answer * 1000:.0f} ms)" if answer is not None
               else "NOT within 10 s")
            + f"; session {'alive' if alive else 'closed'}"
            + (f" ({'; '.join(p.said)})" if p.said else ""))
    say(f"  {text}")
    await phase(probe, out, "typing")
    conn.close()
    out.outcome = (f"{sent / 2**20:.0f} MB typed in {secs:.1f} s ({sent / 2**20 / max(secs, 1e-9):.1f} MB/s "
                   f"taken by the transport){', ' + err if err else ''}; "
                   + ("'Too much input' shown" if p.seen.get(TOO_FAST.decode()) else "no notice")
                   + f"; session {'alive' if alive else 'closed'}, keys answered again "
                   + (f"after {back:.1f} s" if answer is not None else "NOT within 10 s"))
    return out


# ------------------------------------------- 11-14. beneath the limits (issue 30)
def raw_session_channel(conn):
    """A session channel opened and left there, as a hostile client may: no shell,
    no command (asyncssh's client has no public way to open one and wait)."""
    import asyncssh.channel
    return asyncssh.channel.SSHClientChannel(conn, asyncio.get_running_loop(), "strict",
                                             None, "strict", 2 * 1024 * 1024, 32768)


async def rss_after_close(srv: Server, before: int, seconds: float = 5.0) -> str:
    await asyncio.sleep(seconds)
    return f"RSS {seconds:.0f} s after the close {mb(srv.rss() - before)} MB above before"


async def pre_session(srv: Server, probe: Probe, a, what: str) -> Attack:
    """One of the review's attacks before any session: ``env`` (4,000 requests of
    200 KB on one channel), ``channels`` (20,000 session channels that never start),
    ``pty`` (2,000 channels, each a pty-req with a 200 KB TERM); on ``a.pre_conns``
    guest connections at once."""
    from asyncssh.packet import String, UInt32
    out = Attack()
    before = srv.rss()
    big = b"x" * 200_000
    tally: collections.Counter = collections.Counter()

    async def one(i: int) -> None:
        try:
            conn = await connect(srv.port, f"m{what[:3]}{i}", guest=True)
        except Exception as exc:
            tally["not connected: " + reason_of(exc)] += 1
            return
        sent = 0
        try:
            if what == "env":
                chan = raw_session_channel(conn)
                await chan._open(b"session")
                for k in range(a.env_requests):
                    chan._send_request(b"env", String(b"V%d" % k), String(big))
                    sent += 1
                    if k % 50 == 49:
                        await asyncio.sleep(0.005)
            else:
                for _ in range(a.channels if what == "channels" else a.pty_reqs):
                    chan = raw_session_channel(conn)
                    sent += 1
                    try:
                        await chan._open(b"session")
                    except asyncssh.ChannelOpenError as exc:
                        tally["channels refused: " + exc.reason] += 1
                        continue
                    if what == "pty":
                        chan._send_request(b"pty-req", String(big), UInt32(80) + UInt32(24)
                                           + UInt32(0) + UInt32(0), String(b""))
        except Exception:
            pass
        try:
            await asyncio.wait_for(conn.wait_closed(), 2.0)
            tally["connection closed by the room"] += 1
        except TimeoutError:
            tally["connection still open"] += 1
        tally["sent"] += sent
        conn.close()
    t0 = time.monotonic()
    await asyncio.gather(*(one(i) for i in range(a.pre_conns)))
    peak = srv.peak()
    await phase(probe, out, what)
    after = await rss_after_close(srv, before)
    text = (f"{a.pre_conns} connections, {tally.pop('sent')} requests sent in "
            f"{time.monotonic() - t0:.1f} s; "
            + "; ".join(f"{k} x{v}" for k, v in tally.items())
            + f"; peak RSS {mb(peak)} MB; {after}")
    say(f"  {text}")
    out.outcome = text
    return out


async def attack_env(srv: Server, probe: Probe, a) -> Attack:
    return await pre_session(srv, probe, a, "env")


async def attack_channels(srv: Server, probe: Probe, a) -> Attack:
    return await pre_session(srv, probe, a, "channels")


async def attack_pty_term(srv: Server, probe: Probe, a) -> Attack:
    return await pre_session(srv, probe, a, "pty")


IDLE_FLOOD_LIMITS = {"_nofile": 1024}


async def attack_idle_flood(srv: Server, probe: Probe, a) -> Attack:
    """64 addresses x 16 connections that send a version line and wait (reconnecting
    when closed), against a room under 1,024 open files; meanwhile honest guests log
    in from yet another address, one after another, and say how long it took."""
    out = Attack()
    stop = asyncio.Event()
    opened = collections.Counter()

    async def hold(host: str) -> None:
        while not stop.is_set():
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", srv.port,
                                                               local_addr=(host, 0))
                opened["opened"] += 1
                writer.write(b"SSH-2.0-idle\r\n")
                while await reader.read(4096):
                    pass
                writer.close()
            except Exception:
                opened["failed to connect"] += 1
                await asyncio.sleep(0.2)
    tasks = [asyncio.create_task(hold(f"127.0.1.{n}"))
             for n in range(1, a.idle_addresses + 1) for _ in range(16)]
    await asyncio.sleep(3.0)
    logins: list[float] = []
    failed: collections.Counter = collections.Counter()
    deadline = time.monotonic() + a.idle_seconds
    i = 0
    while time.monotonic() < deadline:
        t = time.monotonic()
        try:
            conn = await connect(srv.port, f"honest{i}", guest=True, local="127.0.0.3",
                                 login_timeout=10, connect_timeout=10)
            logins.append(time.monotonic() - t)
            conn.close()
        except Exception as exc:
            failed[reason_of(exc)] += 1
        i += 1
        await asyncio.sleep(0.5)
    await phase(probe, out, "idle flood")
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    lines = srv.log.read_text(errors="replace").count("\n")
    text = (f"{a.idle_addresses} addresses x 16 idle ({opened['opened']} opened, "
            f"{opened['failed to connect']} failed to connect); honest logins "
            f"{len(logins)} of {i} in {fmt_ms(logins)}"
            + (f", failed: {dict(failed)}" if failed else "")
            + f"; {lines} lines of log")
    say(f"  {text}")
    out.outcome = text
    return out


PROXY_SILENT_LIMITS = {"_proxy": True}


class Relay:
    """A balancer in front of a room with --proxy-protocol: each connection is given a
    PROXY v1 header naming the client's address, then piped both ways."""

    def __init__(self, port: int):
        self.room_port = port
        self.port = 0
        self.server: asyncio.Server | None = None

    async def start(self) -> Relay:
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def _relay(self, reader, writer) -> None:
        host, port = writer.get_extra_info("peername")[:2]
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.room_port)
        except OSError:
            writer.close()
            return
        up_w.write(f"PROXY TCP4 {host} 127.0.0.1 {port} {self.room_port}\r\n".encode())

        async def pipe(src, dst) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            dst.close()
        await asyncio.gather(pipe(reader, up_w), pipe(up_r, writer))

    def close(self) -> None:
        if self.server is not None:
            self.server.close()


async def attack_proxy_silent(srv: Server, probe: Probe, a) -> Attack:
    """--proxy-protocol without --proxy-from: 512 connections from one address that
    never send a header; meanwhile the balancer's connections (the probe's) go on."""
    out = Attack()
    held = []
    closed = 0
    for _ in range(a.proxy_silent):
        try:
            held.append(await asyncio.open_connection("127.0.0.1", srv.port,
                                                      local_addr=("127.0.0.6", 0)))
        except OSError:
            closed += 1
    await asyncio.sleep(1.0)
    for reader, _ in held:
        if reader.at_eof():
            closed += 1
    await asyncio.sleep(2.0)
    await phase(probe, out, "silent connections")
    for _, writer in held:
        writer.close()
    text = (f"{a.proxy_silent} silent connections from one address: "
            f"{closed} closed at once (the rest wait for their header)")
    say(f"  {text}")
    out.outcome = text
    return out


async def attack_quiet(srv: Server, probe: Probe, a) -> Attack:
    out = Attack()
    await asyncio.sleep(a.quiet_seconds)
    await phase(probe, out, "quiet")
    out.outcome = "no attack (baseline)"
    return out


# ------------------------------------------------- 11. across processes (issue 30)
FLOOD_ADDRESSES = ("127.0.0.3", "127.0.0.4", "127.0.0.5")
FLOOD_SESSIONS = 15             # five from each address
FLOOD_PACE = 1 / 60             # a line every ~17 ms a session: watch (5 tokens) and
                                # leave (1) in turn spend ~180 of the 200 a second


async def flood_watch_leave(port: int, table: str, seconds: float) -> str:
    """FLOOD_SESSIONS JSON sessions on the server at ``port``, from three addresses,
    each alternating watch and leave at ``table`` within every per-session and
    per-address limit, for ``seconds``. Returns what came of it."""
    conns, sessions = [], []
    for i in range(FLOOD_SESSIONS):
        conns.append(await connect(port, f"flood{i}",
                                   local=FLOOD_ADDRESSES[i % len(FLOOD_ADDRESSES)]))
        sessions.append(await Json.open(conns[-1], keep=False))
    # The flooders' process lists the table (another process's: within a second). Asked
    # under a name of its own: a second session of a flooder's name would close its first.
    look = await connect(port, "floodlook", local=FLOOD_ADDRESSES[0])
    probe = await Json.open(look)
    end = time.monotonic() + 15
    while time.monotonic() < end:
        probe.send({"op": "tables"})
        msg = await probe.expect("tables", timeout=5)
        if msg and any(r.get("id") == table for r in msg.get("tables", [])):
            break
        await asyncio.sleep(0.2)
    look.close()

    async def one(s: Json) -> None:
        t0 = time.monotonic()
        n = 0
        while time.monotonic() - t0 < seconds and not s.done.is_set():
            s.send({"op": "watch", "table": table} if n % 2 == 0 else {"op": "leave"})
            n += 1
            await asyncio.sleep(max(0.0, t0 + n * FLOOD_PACE - time.monotonic()))
    t0 = time.monotonic()
    await asyncio.gather(*(one(s) for s in sessions))
    secs = time.monotonic() - t0
    for s in sessions:
        await s.settle(0.5, 5)
    sent = sum(s.sent_lines for s in sessions)
    types: collections.Counter = collections.Counter()
    errors: collections.Counter = collections.Counter()
    for s in sessions:
        types.update(s.types)
        errors.update(s.errors)
    closed = sum(1 for s in sessions if s.done.is_set())
    await close_all(conns)
    other = {m[:60]: n for m, n in errors.items() if not m.startswith("Too many")}
    return (f"{sent:,} lines in {secs:.1f} s ({sent / secs:,.0f}/s): {types['watching']:,} "
            f"watching, {types['left']:,} left, {sum(errors.values()):,} errors"
            + (f" ({other})" if other else "") + (f", {closed} sessions closed" if closed else ""))


async def run_cluster(name: str, a) -> tuple[str, str, str, str]:
    """Two processes, A and B, on one PostgreSQL (durable); four honest people play at a
    table on B (the ``players`` probe, from PROBE_ADDR); the flood comes through A (or B
    itself for ``cluster-flood-local``; none for ``cluster-quiet``)."""
    from pg import throwaway_postgres, why_not
    title = ATTACKS[name][2]
    reason = why_not()
    if reason:
        raise RuntimeError(f"no PostgreSQL here: {reason}")
    with throwaway_postgres(durable=True) as (url, admin):
        admin.execute("CREATE DATABASE hostile")
        database = url.format(db="hostile")
        b = await Server(database=database, process="B").start()
        other = probe = None
        try:
            other = await Server(database=database, process="A").start()
            probe = await Probe("players", b.port).start()
            table = probe.info["table"]
            await asyncio.sleep(1.0)
            await probe.take()
            await b.lag()
            await other.lag()
            before, cpu0, st0 = b.rss(), b.cpu(), await b.stats()
            via = {"cluster-flood": other, "cluster-flood-local": b}.get(name)
            say(f"\n== {title} [{name}] (Limits(); two processes on one PostgreSQL; four "
                f"people play at table {table} on B from {PROBE_ADDR}, moving "
                f"{PLAYERS_THINK * 1000:.0f} ms after their view); {load()}")
            t0 = time.monotonic()
            if via is None:
                await asyncio.sleep(a.cluster_seconds)
                outcome = "no attack (baseline)"
            else:
                outcome = await flood_watch_leave(via.port, table, a.cluster_seconds)
            secs = time.monotonic() - t0
            sample = await probe.take()
            lag_b, lag_a = await b.lag(), await other.lag()
            st1 = await b.stats()
            cpu = b.cpu() - cpu0
            after, peak = b.rss(), b.peak()
            frames, served = st1["frames"] - st0["frames"], st1["served"] - st0["served"]
            outcome += (f"; B served {served:,} requests from A and wrote {frames:,} frames; "
                        f"B's loop late by p95 {pct(lag_b, 95) * 1000:.0f} ms, "
                        f"max {max(lag_b, default=0) * 1000:.0f} ms")
            say(f"  {outcome}")
            say(f"  honest players, move -> own view: {probe_line(sample)}")
            say(f"  B: RSS {mb(before)} -> {mb(after)} MB (peak {mb(peak)} MB), CPU {cpu:.1f} s "
                f"in {secs:.1f} s; its loop woke a 10 ms sleep late by {fmt_ms(lag_b)}; A's "
                f"by {fmt_ms(lag_a)}; {load()}")
            return (title, outcome, short_ms(sample["lat"]),
                    f"{mb(before)} → {mb(after)} MB (peak {mb(peak)})")
        finally:
            if probe is not None:
                await probe.stop()
            if other is not None:
                await other.stop()
            await b.stop()


# name: (function, probe kind, title, limits overrides)
ATTACKS = {
    "quiet": (attack_quiet, "json", "quiet room, JSON client", None),
    "quiet-pty": (attack_quiet, "pty", "quiet room, terminal client", None),
    "json-flood": (attack_json_flood, "json", "1. JSON flood", None),
    "paste": (attack_paste, "pty", "2. unterminated paste", None),
    "guests": (attack_guests, "json", "3. guest connections", None),
    "pty-sessions": (attack_pty_sessions, "pty", "4. PTY sessions on one connection", None),
    "key-names": (attack_key_names, "json", "5. one key, many names", KEY_NAMES_LIMITS),
    "create-leave": (attack_create_leave, "json", "6. create/leave cycles", None),
    "resize": (attack_resize, "pty", "7. window-change flood", None),
    "lookalike": (attack_lookalike, "json", "8. look-alike names", None),
    "key-flood": (attack_key_flood, "pty", "9. key-input flood", None),
    "auth-loop": (attack_auth_loop, "json", "10. keyboard-interactive loop (extra)", None),
    "env": (attack_env, "json", "11. env requests before a session", None),
    "channels": (attack_channels, "json", "12. session channels that never start", None),
    "pty-term": (attack_pty_term, "json", "13. pty-req with a 200 KB TERM", None),
    "idle-flood": (attack_idle_flood, "json", "14. 64 addresses x 16 idle connections",
                   IDLE_FLOOD_LIMITS),
    "proxy-silent": (attack_proxy_silent, "json", "15. PROXY mode: silent connections",
                     PROXY_SILENT_LIMITS),
    # Two processes on one PostgreSQL (run_cluster): the probe is four honest players.
    "cluster-quiet": (None, "cluster", "quiet room of two processes, players on B", None),
    "cluster-flood": (None, "cluster", "11. watch/leave flood through another process",
                      None),
    "cluster-flood-local": (None, "cluster", "11b. the same flood on the table's process",
                            None),
}


async def run_one(name: str, a) -> tuple[str, str, str, str]:
    fn, kind, title, overrides = ATTACKS[name]
    srv = await Server(dict(overrides or {})).start()
    probe = None
    relay = None
    try:
        if overrides and overrides.get("_proxy"):
            relay = await Relay(srv.port).start()       # the probe comes through it
        probe = await Probe(kind, relay.port if relay else srv.port).start()
        await asyncio.sleep(1.0)                       # the probe's session warms up
        await probe.take()
        await srv.lag()
        before = srv.rss()
        cpu0 = srv.cpu()
        t0 = time.monotonic()
        lim = f"Limits() with {overrides}" if overrides else "Limits()"
        say(f"\n== {title} [{name}] ({lim}; normal client: "
            f"{'JSON round trips' if kind == 'json' else 'PTY key press -> screen'} "
            f"from {PROBE_ADDR}); {load()}")
        try:
            result = await asyncio.wait_for(fn(srv, probe, a), a.attack_timeout)
        except TimeoutError:
            result = Attack()
            result.outcome = f"did not finish within {a.attack_timeout:.0f} s (stopped)"
            result.phases.append(("unfinished", await probe.take()))
        secs = time.monotonic() - t0
        cpu = srv.cpu() - cpu0
        lag = await srv.lag()
        await asyncio.sleep(1.0)
        after, peak = srv.rss(), srv.peak()
        lat: list[float] = []
        counts: collections.Counter = collections.Counter()
        for label, sample in result.phases:
            lat += sample["lat"]
            counts.update(sample["counts"])
            if len(result.phases) > 1:
                say(f"  normal client during {label}: {probe_line(sample)}")
        say(f"  normal client, whole attack: {fmt_ms(lat)}"
            + (f"; {', '.join(f'{k} {v}' for k, v in counts.items() if v)}" if counts else ""))
        say(f"  server: RSS {mb(before)} -> {mb(after)} MB (peak {mb(peak)} MB), "
            f"CPU {cpu:.1f} s in {secs:.1f} s; its loop woke a 10 ms sleep late by "
            f"{fmt_ms(lag)}; {load()}")
        probe_cell = short_ms(lat)
        if counts.get("refused"):
            probe_cell += f" ({counts['refused']} of its lines refused)"
        if counts.get("closed"):
            probe_cell += " (its session was closed)"
        lost = sum(v for k, v in counts.items() if k.startswith("no answer"))
        if lost:
            probe_cell += f" ({lost} unanswered)"
        mem = f"{mb(before)} → {mb(after)} MB (peak {mb(peak)})"
        return title, result.outcome, probe_cell, mem
    finally:
        if probe is not None:
            await probe.stop()
        if relay is not None:
            relay.close()
        await srv.stop()


async def main(a) -> None:
    names = [n.strip() for n in a.only.split(",") if n.strip()] if a.only else list(ATTACKS)
    bad = [n for n in names if n not in ATTACKS]
    if bad:
        raise SystemExit(f"unknown attack(s) {bad}; choose from {', '.join(ATTACKS)}")
    say(f"hostile clients against a fresh server per attack ({'quick' if a.quick else 'full'} run); "
        f"{load()}")
    rows = []
    t0 = time.monotonic()
    for name in names:
        try:
            rows.append(await run_one(name, a))
        except Exception as exc:
            say(f"  {name} FAILED: {reason_of(exc)}")
            rows.append((ATTACKS[name][2], f"benchmark failed: {reason_of(exc)}", "", ""))
    say(f"\nwhole run {time.monotonic() - t0:.0f} s; {load()}\n")
    say("| attack | refused at / outcome | other client's p95 / max | server memory before → after |")
    say("|---|---|---|---|")
    for r in rows:
        say("| " + " | ".join(c.replace("|", "/") for c in r) + " |")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--serve", help=argparse.SUPPRESS)
    p.add_argument("--limits", default="{}", help=argparse.SUPPRESS)
    p.add_argument("--probe", choices=["json", "pty", "players"], help=argparse.SUPPRESS)
    p.add_argument("--database", help=argparse.SUPPRESS)
    p.add_argument("--process", default="", help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    p.add_argument("--quick", action="store_true", help="shorter attacks (about a minute in all)")
    p.add_argument("--only", default="", help="comma-separated: " + ",".join(ATTACKS))
    a = p.parse_args()
    # the sizes of the attacks (issue 11), and --quick's
    a.flood_seconds = 5.0
    a.paste_mb, a.paste_seconds = 12, 10.0
    a.guests, a.guest_seconds, a.tables_per_guest = 500, 10.0, 4
    a.pty_sessions, a.pty_wait = 100, 4.0
    a.names = 200
    a.cycles, a.cycle_seconds = 300, 10.0
    a.resizes, a.resize_seconds, a.resize_settle = 10_000, 5.0, 10.0
    a.keys_mb, a.keys_seconds = 16, 8.0
    a.quiet_seconds = 4.0
    a.auth_loops, a.auth_seconds = 16, 5.0
    a.pre_conns, a.env_requests, a.channels, a.pty_reqs = 8, 4000, 20_000, 2000
    a.idle_addresses, a.idle_seconds = 64, 10.0
    a.proxy_silent = 512
    a.attack_timeout = 60.0
    if a.quick:
        a.flood_seconds = 2.0
        a.paste_mb, a.paste_seconds = 3, 4.0
        a.guests, a.tables_per_guest = 150, 4
        a.pty_sessions, a.pty_wait = 30, 2.0
        a.names = 30
        a.cycles, a.cycle_seconds = 60, 4.0
        a.resizes, a.resize_seconds = 3_000, 1.5
        a.keys_mb, a.keys_seconds = 4, 3.0
        a.quiet_seconds = 2.0
        a.auth_loops, a.auth_seconds = 4, 2.0
        a.pre_conns, a.env_requests, a.channels, a.pty_reqs = 2, 500, 2000, 300
        a.idle_seconds = 5.0
    return a


if __name__ == "__main__":
    args = parse_args()
    if args.serve:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        asyncio.run(serve_main(args.serve, json.loads(args.limits), args.database,
                               args.process))
    elif args.probe:
        asyncio.run(probe_main(args.probe, args.port))
    else:
        asyncio.run(main(args))
