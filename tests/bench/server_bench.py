"""Figures for the server issues 3, 5 and 12 (a benchmark, not a test).

    .venv/bin/python tests/bench/server_bench.py [--quick] [--clients process|loop|both]
                     [--only memory,one,match,many,bots,churn,lobby,500|all] [--repeat N]
                     [--profile FILE]

Prints: resident memory per connected idle session (server in a subprocess);
keypress-to-own-screen and move-to-the-other-three-screens latency (median,
p95, max) at one table and with 100 sessions at 25 tables each making a move
a second; bytes a client receives for the first screen, per opponent move,
and for a whole 18-round Estimation match; the pause of one full garbage
collection with the 100 sessions; and (issue 5) the key-press latency at one
table of people while strong computer players at four other tables decide
without pause (100 ms budget), against the same without them and against the
same decisions computed on the event loop, with the decision times.

Issue 12 (a community in one process; run only when named in ``--only``, each
under ~4 minutes, ``--quick`` under one):

- ``churn``: ``--held`` terminals (300) connected, a tenth of them playing at a
  table with three computer players (``--bot-level``), the rest idle in the
  lobby, while ``--churners`` more (8) keep coming and going (each connects,
  waits for its first screen, stays 0.5-2 s, leaves; another takes its place at
  once) for ``--churn-seconds`` (180).  A program (a JSON-lines session) asks
  for the table list every 0.1 s all along: its answer times (p95, p99, max,
  how many over 250 ms, and when) are what another client feels.  Also: every
  collector pause by generation (``gc.callbacks``; the full collections with
  their time), loop lag, the server's RSS each minute (``/proc/self/status``:
  the server runs in this process, the clients do not) and the CPU of each
  client process.  The full-collection task of ``lamma serve`` runs, as in
  production.
- ``lobby``: ``--lobby-tables`` (25) tables of four programs play a move every
  0.25 s each; act -> own view and act -> the other three views, without idle
  terminals and with ``--lobby-idle`` (40) terminals idle in the lobby, in
  alternating blocks (``--lobby-cycles`` x [without, with, without], 60 s with
  and 60 s without in all by default); and the bytes a second an idle lobby
  terminal receives.
- ``500``: ``--big-tables`` (125) tables of four terminal sessions, a move
  every 2 s per table for ``--big-seconds`` (90): own screen and the other
  three screens (p95, p99, max, how many over 250 ms), server CPU per move,
  loop lag, collector pauses (the collector task running, as in ``lamma serve``).

A person's keys are pressed one at a time: a card typed as "qs" is two
presses, each timed to the presser's own screen; the last press of a move is
also timed to the other three screens.

The server runs in this process (the scenarios need its tables to know whose
turn it is and what to press).  The SSH clients run by default in a child
process (``--clients process``): they encrypt, decrypt and timestamp there,
so a figure is the server's time plus the network, not the clients' work on
the server's loop.  Issue 12's scenarios use several: ``--client-procs`` (2)
for the held terminals and the 500 sessions, and in ``churn`` one more for the
churn and one for the program whose answers are timed, so that a busy client
process never shows as a slow server (each prints its client processes' CPU:
near 100% would mean the clients, not the server, are the limit).  They also
print how long the loop's thread waited for a CPU that other processes held
(``/proc/self/schedstat``): on a shared machine that share of the wall time is
noise, not the server.
``--clients loop`` runs them on the server's own loop, as the first version of
this script did (their work then adds to every figure).  Timestamps are
CLOCK_MONOTONIC, the same clock in both processes; the press and the arrival
are both stamped in the client process.  Every scenario prints the machine's
load next to its figures: on a shared machine compare figures from one run,
and repeat.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures as cf
import gc
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncssh

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
from procs import LISTENING, Lines, stop_popen  # noqa: E402


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = min(len(xs) - 1, max(0, round(p / 100 * (len(xs) - 1))))
    return xs[k]


def fmt_ms(xs):
    if not xs:
        return "no samples"
    return (f"median {statistics.median(xs) * 1000:6.1f} ms, p95 {pct(xs, 95) * 1000:6.1f} ms, "
            f"max {max(xs) * 1000:6.1f} ms (n={len(xs)})")


def load() -> str:
    """The machine's load now: loadavg and the busiest other processes."""
    with open("/proc/loadavg") as fh:
        avg = " ".join(fh.read().split()[:3])
    try:
        out = subprocess.run(["ps", "-eo", "pid,ni,pcpu,comm", "--sort=-pcpu", "--no-headers"],
                             capture_output=True, text=True, timeout=5).stdout.splitlines()
        mine = {os.getpid()}
        busy = [line.split() for line in out]
        busy = [f"{c}(ni {n}) {p}%" for pid, n, p, c in (b[:4] for b in busy if len(b) >= 4)
                if int(pid) not in mine and float(p) >= 20]
    except Exception:
        busy = []
    return f"load {avg}" + (f"; busy: {', '.join(busy)}" if busy else "")


# ------------------------------------------------------------- the clients
class Client:
    """A PTY client that only timestamps bytes (no terminal emulation)."""

    def __init__(self, conn, proc, name):
        self.conn, self.proc, self.name = conn, proc, name
        self.bytes = 0
        self.last_rx = time.monotonic()
        self.waiters: list[asyncio.Future] = []
        self.task = asyncio.ensure_future(self._read())

    async def _read(self):
        while True:
            try:
                data = await self.proc.stdout.read(65536)
            except Exception:
                return
            if not data:
                return
            now = time.monotonic()
            self.bytes += len(data)
            self.last_rx = now
            for fut in self.waiters:
                if not fut.done():
                    fut.set_result(now)
            self.waiters.clear()

    def next_bytes(self) -> asyncio.Future:
        fut = asyncio.get_running_loop().create_future()
        self.waiters.append(fut)
        return fut

    def press(self, data: bytes):
        self.proc.stdin.write(data)

    async def quiet(self, period=0.05, timeout=5):
        """Until nothing has arrived for ``period`` (one timer per wait, no polling)."""
        end = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            left = self.last_rx + period - now
            if left <= 0 or now >= end:
                return
            await asyncio.sleep(left)


async def connect(port, name, key, size=(80, 24)):
    conn = await asyncssh.connect("127.0.0.1", port, username=name, known_hosts=None,
                                  client_keys=[key], agent_path=None)
    proc = await conn.create_process(term_type="xterm-256color", term_size=size, encoding=None)
    return Client(conn, proc, name)


class JClient:
    """A JSON-lines client (``ssh NAME@HOST play``) that stamps each line's arrival."""

    def __init__(self, conn, proc, name):
        self.conn, self.proc, self.name = conn, proc, name
        self.bytes = 0
        self.waiters: list[tuple[tuple[str, ...], asyncio.Future]] = []
        self.task = asyncio.ensure_future(self._read())

    async def _read(self):
        buf = b""
        while True:
            try:
                data = await self.proc.stdout.read(65536)
            except Exception:
                return
            if not data:
                return
            now = time.monotonic()
            self.bytes += len(data)
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    kind = json.loads(line).get("type")
                except ValueError:
                    continue
                keep = []
                for kinds, fut in self.waiters:
                    if fut.done():
                        continue
                    if kind in kinds:
                        fut.set_result((now, kind))
                    else:
                        keep.append((kinds, fut))
                self.waiters = keep

    def next_line(self, kinds: tuple[str, ...]) -> asyncio.Future:
        """The (arrival time, type) of the next line of one of these types."""
        fut = asyncio.get_running_loop().create_future()
        self.waiters.append((kinds, fut))
        return fut

    def send(self, obj: dict) -> None:
        self.proc.stdin.write((json.dumps(obj) + "\n").encode())


async def connect_json(port, name, key):
    conn = await asyncssh.connect("127.0.0.1", port, username=name, known_hosts=None,
                                  client_keys=[key], agent_path=None)
    proc = await conn.create_process("play", encoding=None)
    return JClient(conn, proc, name)


class Agent:
    """The clients' side of every scenario: connects, presses keys, stamps bytes.
    Runs on the server's loop (``LocalAgent``) or in a child process
    (``RemoteAgent``); the scenarios talk to both the same way."""

    def __init__(self):
        self.clients: dict[str, Any] = {}      # Client or JClient
        self.key = asyncssh.generate_private_key("ssh-ed25519")

    async def handle(self, cmd: dict) -> dict:
        op = cmd["op"]
        if op == "connect":
            # ``parallel`` handshakes at a time; ``json``: programs, not terminals.
            sem = asyncio.Semaphore(cmd.get("parallel", 1))
            opener = connect_json if cmd.get("json") else connect
            failed: list[str] = []

            async def one(name):
                async with sem:
                    try:
                        self.clients[name] = await asyncio.wait_for(
                            opener(cmd["port"], name, self.key), 60)
                    except Exception:
                        if not cmd.get("may_fail"):
                            raise
                        failed.append(name)
            await asyncio.gather(*(one(n) for n in cmd["names"]))
            return {"failed": failed}
        if op == "quiet":
            for name in cmd["names"]:
                await self.clients[name].quiet(cmd.get("period", 0.1))
            return {}
        if op == "bytes":
            return {"bytes": [self.clients[n].bytes for n in cmd["names"]]}
        if op == "press":
            self.clients[cmd["name"]].press(cmd["data"].encode())
            return {}
        if op == "move":
            # keys[:-1] change only the actor's screen (each timed, then quiet);
            # keys[-1] is the move, timed to the actor's and the others' screens.
            actor = self.clients[cmd["name"]]
            others = [self.clients[n] for n in cmd["others"]]
            out: dict[str, Any] = {"own": [], "other": []}
            keys = cmd["keys"]
            for i, key in enumerate(keys):
                last = i == len(keys) - 1
                watch = others if last else []
                before = [c.bytes for c in watch]
                own_f = actor.next_bytes()
                other_f = [c.next_bytes() for c in watch]
                t0 = time.monotonic()
                actor.press(key.encode())
                try:
                    out["own"].append(await asyncio.wait_for(own_f, 5) - t0)
                except TimeoutError:
                    out["lost"] = out.get("lost", 0) + 1
                for f in other_f:
                    try:
                        out["other"].append(await asyncio.wait_for(f, 5) - t0)
                    except TimeoutError:
                        out["lost"] = out.get("lost", 0) + 1
                for c in [actor, *watch]:
                    await c.quiet(0.03)
                if last:
                    out["bytes"] = [c.bytes - b for c, b in zip(watch, before, strict=False)]
            return out
        if op == "jact":
            return await self.jact(cmd)
        if op == "probe":
            return await self.probe(cmd)
        if op == "churn":
            return await self.churn(cmd)
        if op == "close":
            names = cmd.get("names", list(self.clients))
            for name in names:
                c = self.clients.pop(name, None)
                if c is not None:
                    c.conn.close()
            return {}
        raise ValueError(op)

    async def jact(self, cmd: dict) -> dict:
        """A program's action: the time to its own next view and to the others' next
        views (an error back instead: no other view comes, none is waited for)."""
        actor = self.clients[cmd["name"]]
        others = [self.clients[n] for n in cmd["others"]]
        own_f = actor.next_line(("view", "error"))
        other_f = [c.next_line(("view",)) for c in others]
        t0 = time.monotonic()
        actor.send({"op": "act", "action": cmd["action"]})
        out: dict = {"own": [], "other": [], "refused": 0}
        try:
            t, kind = await asyncio.wait_for(own_f, 5)
        except TimeoutError:
            kind = "timeout"
        if kind != "view":
            out["refused"] = 1
            for f in other_f:
                f.cancel()
            return out
        out["own"].append(t - t0)
        for f in other_f:
            try:
                out["other"].append((await asyncio.wait_for(f, 5))[0] - t0)
            except TimeoutError:
                out["other"].append(5.0)
        return out

    async def probe(self, cmd: dict) -> dict:
        """For ``seconds``: a request, its answer timed, a pause of ``interval``; returns
        [sent, answer time] pairs (an answer not back in 10 s counts as 10 s)."""
        c = self.clients[cmd["name"]]
        end = time.monotonic() + cmd["seconds"]
        out = []
        while time.monotonic() < end:
            fut = c.next_line(tuple(cmd["reply"]))
            t0 = time.monotonic()
            c.send(cmd["request"])
            try:
                t, _ = await asyncio.wait_for(fut, 10)
                out.append([t0, t - t0])
            except TimeoutError:
                out.append([t0, 10.0])
            await asyncio.sleep(cmd["interval"])
        return {"samples": out}

    async def churn(self, cmd: dict) -> dict:
        """``slots`` terminals always coming and going for ``seconds``: each connects,
        waits for its first screen, stays a random ``stay`` seconds and leaves; a new one
        takes its slot at once.  A slot cycles through a few names (each bound once to
        the key, as returning people are), never one still connected."""
        end = time.monotonic() + cmd["seconds"]
        lo, hi = cmd.get("stay", (0.5, 2.0))
        first: list[float] = []
        counts = {"sessions": 0, "failed": 0}
        rng = random.Random(cmd.get("seed", 12))

        async def slot(i):
            k = 0
            while time.monotonic() < end:
                name = f"{cmd['prefix']}{i}n{k % 4}"
                k += 1
                t0 = time.monotonic()
                try:
                    c = await asyncio.wait_for(connect(cmd["port"], name, self.key), 30)
                    try:
                        first.append(await asyncio.wait_for(c.next_bytes(), 10) - t0)
                        await asyncio.sleep(rng.uniform(lo, hi))
                    finally:
                        c.conn.close()
                    await c.conn.wait_closed()
                    counts["sessions"] += 1
                except Exception:
                    counts["failed"] += 1
                    await asyncio.sleep(0.5)
        await asyncio.gather(*(slot(i) for i in range(cmd["slots"])))
        return {**counts, "first": first}


class LocalAgent:
    def __init__(self):
        self.agent = Agent()

    async def call(self, **cmd) -> dict:
        return await self.agent.handle(cmd)

    async def stop(self):
        await self.call(op="close")


class RemoteAgent:
    """The clients in a child process, spoken to in JSON lines."""

    async def start(self):
        # A reply can be long (the churn's program: 1,800 timed answers in 80 KB on one
        # line); asyncio's 64 KiB line limit made the reader fail and the call wait forever.
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--agent", stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, cwd=str(ROOT), limit=2**26)
        self.ids = 0
        self.waiting: dict[int, asyncio.Future] = {}
        self.reader = asyncio.ensure_future(self._read())
        return self

    async def _read(self):
        while True:
            try:
                line = await self.proc.stdout.readline()
            except ValueError as exc:       # a line over the limit: said, not waited for
                line, ended = b"", f"a reply the benchmark cannot read: {exc}"
            else:
                ended = "client process ended"
            if not line:
                for f in self.waiting.values():
                    if not f.done():
                        f.set_exception(RuntimeError(ended))
                return
            msg = json.loads(line)
            fut = self.waiting.pop(msg["id"], None)
            if fut is not None and not fut.done():
                if "error" in msg:
                    fut.set_exception(RuntimeError(msg["error"]))
                else:
                    fut.set_result(msg)

    async def call(self, **cmd) -> dict:
        self.ids += 1
        cmd["id"] = self.ids
        fut = asyncio.get_running_loop().create_future()
        self.waiting[self.ids] = fut
        self.proc.stdin.write((json.dumps(cmd) + "\n").encode())
        return await fut

    async def stop(self):
        await self.call(op="close")
        self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 15)    # hundreds of clients close
        except TimeoutError:
            try:
                self.proc.kill()
            except ProcessLookupError:                     # it ended meanwhile
                pass
        self.reader.cancel()

    def cpu(self) -> float:
        """The child process's CPU seconds so far (user + system)."""
        try:
            with open(f"/proc/{self.proc.pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return float("nan")


async def agent_main() -> None:
    """``--agent``: the child process's side of ``RemoteAgent``."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    agent = Agent()
    out = sys.stdout

    async def run(cmd):
        try:
            reply = await agent.handle(cmd)
        except Exception as exc:
            reply = {"error": repr(exc)}
        reply["id"] = cmd["id"]
        out.write(json.dumps(reply) + "\n")
        out.flush()
    tasks = set()
    while True:
        line = await reader.readline()
        if not line:
            break
        t = asyncio.ensure_future(run(json.loads(line)))
        tasks.add(t)
        t.add_done_callback(tasks.discard)
    await agent.handle({"op": "close"})


class Agents:
    """Several client processes spoken to as one: ``connect`` puts its names in one
    process (round robin, or ``agent=i``), and every command about a client goes to the
    process that holds it.  One process's clients should not wait for its CPU: a
    scenario with hundreds of clients spreads them (and says how busy each was)."""

    def __init__(self, agents: list):
        self.agents = agents
        self.where: dict[str, int] = {}
        self.turn = 0

    async def call(self, agent: int | None = None, **cmd) -> dict:
        op = cmd["op"]
        if op == "connect":
            if agent is None:
                agent, self.turn = self.turn, self.turn + 1
            agent %= len(self.agents)
            r = await self.agents[agent].call(**cmd)
            for n in cmd["names"]:
                if n not in r.get("failed", ()):
                    self.where[n] = agent
            return r
        if agent is not None:
            return await self.agents[agent % len(self.agents)].call(**cmd)
        if "name" in cmd:
            return await self.agents[self.where[cmd["name"]]].call(**cmd)
        names = cmd.get("names")
        if names is None:                   # about every client: every process
            await asyncio.gather(*(a.call(**cmd) for a in self.agents))
            return {}
        groups: dict[int, list[str]] = {}
        for n in names:
            groups.setdefault(self.where[n], []).append(n)
        replies = await asyncio.gather(*(self.agents[i].call(**{**cmd, "names": ns})
                                         for i, ns in groups.items()))
        if op == "bytes":
            got = {n: b for ns, r in zip(groups.values(), replies, strict=True)
                   for n, b in zip(ns, r["bytes"], strict=True)}
            return {"bytes": [got[n] for n in names]}
        return {}

    def cpu(self) -> list[float]:
        return [a.cpu() if hasattr(a, "cpu") else float("nan") for a in self.agents]

    async def stop(self):
        await asyncio.gather(*(a.stop() for a in self.agents))


async def make_agent(mode: str, processes: int = 1) -> Agents:
    if mode == "loop":
        return Agents([LocalAgent()])
    return Agents([await RemoteAgent().start() for _ in range(max(1, processes))])


def cpu_share(agents: Agents, cpu0: list[float], seconds: float) -> str:
    """Each client process's CPU over ``seconds``, as a share of one core."""
    return ", ".join(f"{(c - c0) / max(seconds, 1e-9) * 100:.0f}%"
                     for c, c0 in zip(agents.cpu(), cpu0, strict=True))


def keys_for(m, seat) -> list[str]:
    """The keys a person presses for a plausible move, one at a time: all but
    the last change only their own screen, the last one is the move."""
    legal = m.legal_actions(seat)
    types = {a["type"] for a in legal}
    if "dash" in types:
        return ["n"]
    if "bid" in types or "pass" in types:
        return ["p"] if "pass" in types else ["\r"]
    if "call" in types:
        return ["\r"]
    if "declare" in types:
        nums = sorted(a["n"] for a in legal if a["n"] <= 9)
        return [str(nums[len(nums) // 3]), "\r"]
    if "play" in types:
        cards = [a["card"] for a in legal]
        c = cards[len(cards) // 2]
        return [c[0].lower(), c[1].lower()]
    raise RuntimeError(legal)


# --------------------------------------------------------------- memory
async def bench_memory(n: int) -> None:
    tmp = Path(tempfile.mkdtemp())
    port = 20000 + os.getpid() % 20000
    proc = subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--port", str(port),
                             "--data", str(tmp / "data"), "--keys", str(tmp / "keys")],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    t0 = time.monotonic()
    out = Lines(proc.stdout)
    try:
        out.wait_for(LISTENING, 30)
    except BaseException:
        stop_popen(proc)
        raise
    start_s = time.monotonic() - t0

    def rss():
        for line in open(f"/proc/{proc.pid}/status"):
            if line.startswith("VmRSS"):
                return int(line.split()[1]) * 1024
        return 0
    try:
        # a key per person: one key binds at most a few names (issue 11)
        def key():
            return asyncssh.generate_private_key("ssh-ed25519")
        # warm up: one session, so imports and first-use caches are counted once
        warm = await connect(port, "warm", key())
        await asyncio.sleep(1.0)
        await warm.quiet(0.2)
        base = rss()
        clients = []
        first_screen = []
        for i in range(n):
            c = await connect(port, f"idle{i}", key())
            clients.append(c)
        await asyncio.sleep(2.0)
        for c in clients:
            await c.quiet(0.2)
            first_screen.append(c.bytes)
        after = rss()
        print(f"server start (process spawn to 'listening' line): {start_s:.2f} s")
        print(f"memory: {n} idle sessions in the lobby add {(after - base) / 2**20:.1f} MB "
              f"RSS = {(after - base) / n / 2**20:.2f} MB per session "
              f"(server RSS {base / 2**20:.0f} -> {after / 2**20:.0f} MB)")
        print(f"bytes for the first screen (lobby, 80x24): median {statistics.median(first_screen):.0f}")
        for c in [*clients, warm]:
            c.conn.close()
    finally:
        stop_popen(proc, grace=5)
        out.close()


# --------------------------------------------------- in-process scenarios
async def start_inprocess(bot_pause=0.0, trick_pause=0.0, collector=False):
    """The server on this loop.  ``collector``: also the full-collection task `lamma serve`
    runs (server/cli.py), for the scenarios that last minutes and count collections."""
    from server.service import RoomConfig
    from server.ssh import start_server
    tmp = Path(tempfile.mkdtemp())
    # Hundreds of clients from one loopback address: the per-address limits would refuse
    # them (issue 11); the per-session ones stay as in production (each client here opens
    # one session per connection, and a program's requests stay far under its rate).
    from server.limits import Limits
    cfg = RoomConfig(data=tmp / "data", keys=tmp / "keys", bot_pause=bot_pause,
                     trick_pause=trick_pause, limits=Limits.generous())
    server, room, _ = await start_server(cfg, "127.0.0.1", 0)
    # as `lamma serve` does (server/cli.py): full collections off the hot path
    from server import runtime
    runtime.tune_gc()
    if collector and hasattr(runtime, "gc_task"):
        _collectors.append(asyncio.ensure_future(runtime.gc_task()))
    return server, room, server.sockets[0].getsockname()[1]


_collectors: list[asyncio.Future] = []


def stop_inprocess(server) -> None:
    for t in _collectors:
        t.cancel()
    _collectors.clear()
    server.close()


async def table_of_four(room, agent, port, prefix, game="estimation-kotshina", length="micro"):
    names = [f"{prefix}{i}" for i in range(4)]
    await agent.call(op="connect", port=port, names=names)
    await agent.call(op="quiet", names=names, period=0.1)
    reg = room.registry
    table = reg.create(game, length)
    apps = {a.member.name: a for a in list(room.apps)}
    for i, name in enumerate(names):
        table.sit(apps[name].member, i)
    for name in names:
        apps[name].call_later(apps[name].open_table)
    await asyncio.sleep(0.3)
    await agent.call(op="quiet", names=names, period=0.1)
    return table, names


async def one_move(table, agent, names, own_lat, other_lat, bytes_per_move):
    m = table.match
    seat = m.to_act
    others = [n for i, n in enumerate(names) if i != seat]
    r = await agent.call(op="move", name=names[seat], others=others, keys=keys_for(m, seat))
    own_lat.extend(r["own"])
    other_lat.extend(r["other"])
    if m.phase == "play":          # (a view would be work the server does not do)
        bytes_per_move.extend(r["bytes"])


class Pace:
    """A driver's timetable: a move every ``period`` seconds at ``offset`` into it.  Slots
    missed during a stall are skipped, so the drivers keep their spread.  Sleeping
    ``period`` minus the last move's time instead put every driver that waited through a
    stall (40 terminals connecting take the loop for a moment) on the same beat, for the
    rest of the run: the tables then moved all together, as no independent players do,
    and every later latency measured that queue.  In the lobby scenario the server's own
    accepted -> shown median went 0.6 -> 2.8–3.7 ms after the idle terminals came and
    stayed there after they left; paced, 0.6 ms before, during and after."""

    def __init__(self, period: float, offset: float):
        self.period = period
        self.start = time.monotonic() + offset
        self.slot = 0

    async def first(self) -> None:
        await asyncio.sleep(max(0.0, self.start - time.monotonic()))

    async def next(self) -> None:
        now = time.monotonic()
        self.slot = max(self.slot + 1, math.ceil((now - self.start) / self.period))
        await asyncio.sleep(max(0.0, self.start + self.slot * self.period - now))


def cpu_ms_per(n: int, cpu0: float) -> str:
    return f"{(time.process_time() - cpu0) * 1000 / max(1, n):.1f} ms"


async def bench_one_table(moves: int, mode: str, profile: str = "") -> None:
    server, room, port = await start_inprocess()
    agent = await make_agent(mode)
    table, names = await table_of_four(room, agent, port, "one")
    own, other, per_move = [], [], []
    n = 0
    print(f"one table ({mode} clients), {load()}")
    prof = None
    if profile:
        # The loop's thread only, its CPU (not the wall: a loaded machine's waits are
        # not the server's), over the moves alone.  The profiler multiplies the CPU
        # (2-4 times here), most where calls are many: every figure of a profiled run
        # is inflated; read the shares, and time without ``--profile``.
        import cProfile
        prof = cProfile.Profile(time.thread_time)
        prof.enable()
    cpu0 = time.process_time()
    while table.match.to_act is not None and n < moves:
        await one_move(table, agent, names, own, other, per_move)
        n += 1
    cpu = cpu_ms_per(n, cpu0)
    if prof is not None:
        prof.disable()
        prof.dump_stats(profile)
        import pstats
        print(f"  profile of the moves (loop thread, CPU) in {profile}; by own time:")
        pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(25)
    print(f"  keypress -> own screen:        {fmt_ms(own)}")
    print(f"  move -> other three screens:   {fmt_ms(other)}")
    print(f"  bytes per opponent move (card play): median {statistics.median(per_move):.0f}, "
          f"p95 {pct(per_move, 95):.0f}, max {max(per_move)}")
    print(f"  this process's CPU per move: {cpu}"
          + (" (server only)" if mode == "process" else " (server and clients)")
          + (" under the profiler" if prof is not None else ""))
    print(f"  after: {load()}")
    await agent.stop()
    server.close()


async def bench_many(tables: int, seconds: float, mode: str) -> None:
    server, room, port = await start_inprocess()
    agent = await make_agent(mode)
    groups = []
    for t in range(tables):
        groups.append(await table_of_four(room, agent, port, f"t{t}x"))
    own, other, per_move = [], [], []
    end = time.monotonic() + seconds
    print(f"{tables * 4} sessions at {tables} tables, a move a second per table "
          f"({mode} clients), {load()}")

    moves = [0]

    async def driver(table, names, offset):
        pace = Pace(1.0, offset)
        await pace.first()
        while time.monotonic() < end and table.match.to_act is not None:
            await one_move(table, agent, names, own, other, per_move)
            moves[0] += 1
            await pace.next()
    cpu0 = time.process_time()
    probe = Probe()
    await asyncio.gather(*(driver(t, c, i / tables) for i, (t, c) in enumerate(groups)))
    probe.task.cancel()
    print(f"  keypress -> own screen:        {fmt_ms(own)}")
    print(f"  move -> other three screens:   {fmt_ms(other)}")
    print(f"  loop lag (a 10 ms sleep wakes late by): {fmt_ms(probe.take())}")
    print(f"  this process's CPU per move: {cpu_ms_per(moves[0], cpu0)} ({moves[0]} moves)")
    t0 = time.perf_counter()
    found = gc.collect()
    full_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    gc.collect()
    print(f"  one full collection now (of what is not frozen: server.runtime.gc_task collects and freezes): "
          f"{full_ms:.0f} ms ({found} objects freed); at once again: "
          f"{(time.perf_counter() - t0) * 1000:.0f} ms; {len(gc.get_objects())} objects "
          f"tracked, {gc.get_freeze_count()} frozen")
    print(f"  after: {load()}")
    await agent.stop()
    server.close()


async def bench_whole_match(mode: str) -> None:
    server, room, port = await start_inprocess(bot_pause=0.0)
    agent = await make_agent(mode)
    await agent.call(op="connect", port=port, names=["solo"])
    await agent.call(op="quiet", names=["solo"], period=0.1)
    first = (await agent.call(op="bytes", names=["solo"]))["bytes"][0]
    app = next(iter(room.apps))
    table = room.registry.create("estimation", 18)
    table.sit(app.member, 0)
    app.call_later(app.open_table)
    for _ in range(500):
        if getattr(app.screen, "rendered_version", -1) >= 0 and app.displayed_version >= 0:
            break
        await asyncio.sleep(0.01)
    await agent.call(op="quiet", names=["solo"], period=0.2)
    start_bytes = (await agent.call(op="bytes", names=["solo"]))["bytes"][0]
    table.fill_with_bots(app.member)
    m = table.match
    while m.to_act is not None:
        if m.to_act == 0:
            await asyncio.sleep(0.01)
            if m.to_act == 0:
                v = len(m.log)
                await agent.call(op="press", name="solo", data="".join(keys_for(m, 0)))
                for _ in range(500):
                    if len(m.log) > v:
                        break
                    await asyncio.sleep(0.005)
        else:
            await asyncio.sleep(0.005)
    await agent.call(op="quiet", names=["solo"], period=0.2)
    total = (await agent.call(op="bytes", names=["solo"]))["bytes"][0] - first
    print(f"bytes for the first table screen: {start_bytes - first}")
    print(f"bytes for a whole 18-round Estimation match (1 person + 3 computer players, "
          f"{len(m.log)} actions): {total / 1024:.0f} KB")
    await agent.stop()
    server.close()


# ------------------------------------------- issue 5: thinking computer players
def _timed_decide(view, level, budget_ms):
    """Runs in the worker process: the decision and its own CPU-side wall time."""
    from engine.bots.worker import _decide
    t0 = time.perf_counter()
    action = _decide(view, level, budget_ms)
    return action, time.perf_counter() - t0, view.get("phase")


class Probe:
    """How late the loop wakes a 10 ms sleep: the loop's own blocking, seen from inside."""

    def __init__(self):
        self.lags: list[float] = []
        self.worst = (0.0, 0.0)         # (monotonic time it ended, lag): the longest
        self.task = asyncio.ensure_future(self._run())

    async def _run(self):
        loop = asyncio.get_running_loop()
        while True:
            t = loop.time()
            await asyncio.sleep(0.01)
            lag = loop.time() - t - 0.01
            self.lags.append(lag)
            if lag > self.worst[1]:
                self.worst = (time.monotonic(), lag)

    def take(self) -> list[float]:
        out, self.lags = self.lags, []
        return out


async def bench_bots(args, mode: str) -> None:
    """Issue 5: people press keys at one table while computer players at other
    tables decide without pause.  Blocks without bots, with bots thinking in
    the worker process (as the server runs them), and, for contrast, with the
    same decisions computed on the event loop (what the worker saves)."""
    from engine.bots.worker import BotPool
    from engine.room import bots

    server, room, port = await start_inprocess(bot_pause=0.0)
    reg = room.registry
    bots.BUDGET_MS = args.budget
    think: list[tuple[str, float, str]] = []   # (block kind, decision time, phase)
    wall: list[tuple[str, float]] = []         # (block kind, submit -> answer on the loop)
    kind = ["none"]

    class TimedPool(BotPool):
        on_loop = False

        def submit(self, view, level="strong", budget_ms=100):
            outer: cf.Future = cf.Future()
            k = kind[0]
            if self.on_loop:        # the contrast: the decision blocks the loop
                action, dt, phase = _timed_decide(view, level, budget_ms)
                think.append((k, dt, phase))
                outer.set_result(action)
                return outer
            inner = self._pool.submit(_timed_decide, view, level, budget_ms)

            def done(f):
                try:
                    action, dt, phase = f.result()
                except BaseException as exc:
                    outer.set_exception(exc)
                    return
                think.append((k, dt, phase))
                outer.set_result(action)
            inner.add_done_callback(done)
            return outer

    bots.close_pool()
    pool = bots._pool = TimedPool()
    nice = bots.WORKER_NICE if args.worker_nice is None else args.worker_nice
    if hasattr(bots, "lower_priority"):
        bots.lower_priority(pool, nice)         # as bots.pool() does in the server
    orig_decide = bots.decide

    async def timed_decide(match, seat, level=bots.DEFAULT_LEVEL):
        t0 = time.monotonic()
        try:
            return await orig_decide(match, seat, level)
        finally:
            wall.append((kind[0], time.monotonic() - t0))
    bots.decide = timed_decide
    await asyncio.sleep(1.0)                 # the worker starts and imports the engine

    agent = await make_agent(mode)
    people, names = await table_of_four(room, agent, port, "bp", game="estimation", length=18)
    running: list = []
    stop = asyncio.Event()

    def start_bot_table():
        t = reg.create("estimation", 18)
        t.seating.fill([0, 1, 2, 3], "strong")       # the room's own: nobody's to check
        running.append(t)

    async def keep_bots():
        while not stop.is_set():
            for t in list(running):
                if t.status != "playing":
                    running.remove(t)
                    start_bot_table()
            await asyncio.sleep(0.2)

    def stop_bots():
        for t in running:
            t.close()
            t.status = "over"      # an answer still in the worker is then dropped
            reg.tables.pop(t.id, None)
        running.clear()

    probe = Probe()
    kinds = ["none", "worker", "loop"]
    results = {k: {"own": [], "other": [], "lag": [], "answers": 0, "secs": 0.0} for k in kinds}
    labels = {"none": "no computer players      ",
              "worker": "bots thinking (worker)   ",
              "loop": "bots thinking ON THE LOOP"}
    per_block = max(1, args.bot_moves // 6)
    print(f"people at one table press keys while {args.bot_tables} tables of strong computer "
          f"players decide without pause (budget {args.budget} ms, worker nice +{nice}, "
          f"{mode} clients), {load()}")
    for block, k in enumerate(kinds * 2):
        kind[0] = k
        if k != "none":
            pool.on_loop = k == "loop"
            for _ in range(args.bot_tables):
                start_bot_table()
            keeper = asyncio.ensure_future(keep_bots())
            await asyncio.sleep(1.0)
        probe.take()
        r = results[k]
        t0 = time.monotonic()
        answered = len(wall)
        n = 0
        while n < per_block and people.match.to_act is not None:
            await one_move(people, agent, names, r["own"], r["other"], [])
            n += 1
            await asyncio.sleep(0.05)        # a person's pace: the bots keep thinking between keys
        r["secs"] += time.monotonic() - t0
        r["lag"] += probe.take()
        r["answers"] += len(wall) - answered
        if k != "none":
            stop.set()
            await keeper
            stop.clear()
            stop_bots()
        print(f"  block {block + 1} ({k}): {n} moves, {load()}")
    probe.task.cancel()
    for k in kinds:
        r = results[k]
        print(f"  {labels[k]}: keypress -> own screen:      {fmt_ms(r['own'])}")
        print(f"  {labels[k]}: move -> other three screens: {fmt_ms(r['other'])}")
        print(f"  {labels[k]}: loop lag (a 10 ms sleep wakes late by): {fmt_ms(r['lag'])}")
        if k != "none":
            print(f"  {labels[k]}: decisions answered {r['answers']} "
                  f"({r['answers'] / max(r['secs'], 1e-9):.1f}/s)")
    for k in ("worker", "loop"):
        plays = [d for kk, d, ph in think if kk == k and ph == "play"]
        others = [d for kk, d, ph in think if kk == k and ph != "play"]
        print(f"  decision time ({k}), card play: {fmt_ms(plays)}")
        print(f"  decision time ({k}), bids and declarations: {fmt_ms(others)}")
    print(f"  a table's wait for its answer (queue in the one worker + decision): "
          f"{fmt_ms([d for kk, d in wall if kk == 'worker'])}")
    bots.decide = orig_decide
    await agent.stop()
    server.close()
    bots.close_pool()


# ------------------------------------------------ issue 12: a community
def rss_mb() -> float:
    """This process's resident memory (the server's: it runs here; the clients do not)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return float("nan")


def run_delay() -> float:
    """Seconds the loop's thread has waited for a CPU while runnable (other processes
    had it): the share of a figure that is the machine's load, not the server."""
    try:
        with open("/proc/self/schedstat") as fh:
            return int(fh.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return float("nan")


class GcWatch:
    """Every collection's pause, by generation (``gc.callbacks``): the loop stands still
    for each one.  Wall time, and the collecting thread's CPU time: on a shared machine
    the difference is time the collection waited for a CPU others held."""

    def __init__(self):
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.cpu: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.full: list[tuple[float, float, float]] = []    # (when, wall, CPU) of gen-2 ones
        self._t0 = self._c0 = 0.0
        gc.callbacks.append(self._cb)

    def _cb(self, phase, info):
        if phase == "start":
            self._t0, self._c0 = time.perf_counter(), time.thread_time()
            return
        dt, dc = time.perf_counter() - self._t0, time.thread_time() - self._c0
        g = info["generation"]
        self.pauses[g].append(dt)
        self.cpu[g].append(dc)
        if g == 2:
            self.full.append((time.monotonic(), dt, dc))

    def stop(self) -> None:
        gc.callbacks.remove(self._cb)

    def summary(self) -> str:
        return "; ".join(
            f"gen{g} {len(p)}x, max {max(p) * 1000:.1f} ms (CPU {max(self.cpu[g]) * 1000:.1f} ms)"
            if p else f"gen{g} 0x" for g, p in self.pauses.items())

    def fulls(self, since: float) -> str:
        """The ten longest full collections, in the order they came (with one every
        0.1 s, the first few say nothing)."""
        longest = sorted(sorted(self.full, key=lambda f: -f[1])[:10])
        return ", ".join(f"{t - since:.1f}: {d * 1000:.0f} (CPU {c * 1000:.0f})"
                         for t, d, c in longest)


class ServerStats:
    """What the server counts itself (engine/room/stats.py, the figures its metrics
    endpoint exports) over a scenario's window: a cross-check of the clients' figures
    by whoever records into them (a histogram nobody records into is left out)."""

    def __init__(self):
        try:
            from engine.room.stats import STATS
        except ImportError:
            self.stats = None
            return
        self.stats = STATS
        self.moves0 = STATS.moves.value
        self.snaps = {h.name: h.snapshot()[0] for h in STATS.histograms()}

    def summary(self) -> str:
        if self.stats is None:
            return "(no engine/room/stats.py)"
        parts = [f"moves {self.stats.moves.value - self.moves0}"]
        for h in self.stats.histograms():
            counts = [b - a for a, b in zip(self.snaps.get(h.name, [0] * len(h.counts)),
                                            h.snapshot()[0], strict=True)]
            n = sum(counts)
            if n:
                q = [h.quantile(x, counts) for x in (0.95, 0.99, 1.0)]
                parts.append(f"{h.name.removeprefix('lamma_')} n={n} p95<={q[0]} p99<={q[1]} "
                             f"max<={q[2]} s")
        return "; ".join(parts)


def fmt_tail(xs, limit=0.25) -> str:
    """The tail of answer times: p95, p99, max, and how many were over ``limit``."""
    if not xs:
        return "no samples"
    over = sum(1 for x in xs if x > limit)
    return (f"median {statistics.median(xs) * 1000:.1f} ms, p95 {pct(xs, 95) * 1000:.1f} ms, "
            f"p99 {pct(xs, 99) * 1000:.1f} ms, max {max(xs) * 1000:.1f} ms, "
            f"{over} over {limit * 1000:.0f} ms (n={len(xs)})")


def action_for(m, seat) -> dict:
    """A program's plausible action (as keys_for's person's): the middle card, a low
    declaration, a pass where there is one, no dash."""
    legal = m.legal_actions(seat)
    by_type: dict[str, list] = {}
    for a in legal:
        by_type.setdefault(a["type"], []).append(a)
    if "play" in by_type:
        plays = by_type["play"]
        return dict(plays[len(plays) // 2])
    if "declare" in by_type:
        nums = sorted((a for a in by_type["declare"] if a.get("n", 99) <= 9),
                      key=lambda a: a["n"])
        if nums:
            return dict(nums[len(nums) // 3])
    for kind in ("pass", "call"):
        if kind in by_type:
            return dict(by_type[kind][0])
    for a in by_type.get("dash", []):
        if a.get("take") is False:
            return dict(a)
    return dict(legal[0])


async def connect_many(agents: Agents, port: int, groups: list[list[str]], procs: int,
                       json_mode: bool = False, first: int = 0) -> list[str]:
    """Connect groups of names in parallel batches (a group stays in one client process:
    process ``first + i % procs``); returns the names that failed."""
    sem = asyncio.Semaphore(2 * procs)
    failed: list[str] = []

    async def one(i, names):
        async with sem:
            r = await agents.call(op="connect", agent=first + i % procs, port=port,
                                  names=names, parallel=4, json=json_mode, may_fail=True)
            failed.extend(r.get("failed", []))
    await asyncio.gather(*(one(i, g) for i, g in enumerate(groups)))
    return failed


async def until(pred, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > end:
            return False
        await asyncio.sleep(0.1)
    return True


def apps_by_name(room) -> dict:
    return {a.member.name: a for a in list(room.apps)}


async def bench_churn(args, mode: str) -> None:
    """Issue 12's freezes: N terminals held (most in the lobby, some at tables of
    computer players, playing), M more always coming and going, and a program's
    requests timed all along."""
    server, room, port = await start_inprocess(bot_pause=0.8, trick_pause=1.0, collector=True)
    reg = room.registry
    procs = args.client_procs
    agents = await make_agent(mode, procs + 2)      # the held ones, then churn, then probe
    churn_at, probe_at = procs, procs + 1
    held = [f"h{i}" for i in range(args.held)]
    t0 = time.monotonic()
    failed = await connect_many(agents, port, [held[i:i + 10] for i in range(0, len(held), 10)],
                                procs)
    held = [n for n in held if n not in failed]
    await until(lambda: len(room.apps) >= len(held), 60)
    connect_s = time.monotonic() - t0
    players = held[:args.held // 10]
    apps = apps_by_name(room)
    tables = []
    for n in players:
        t = reg.create("estimation", 18)
        t.sit(apps[n].member, 0)
        apps[n].call_later(apps[n].open_table)
        t.fill_with_bots(apps[n].member, level=args.bot_level)
        tables.append((n, t))
    await agents.call(op="connect", agent=probe_at, port=port, names=["probe"], json=True)
    await asyncio.sleep(2.0)
    await agents.call(op="quiet", names=held, period=0.1)
    print(f"churn: {len(held)} terminals held ({len(players)} of them playing with three "
          f"{args.bot_level} computer players each, the rest in the lobby; connected in "
          f"{connect_s:.0f} s{', ' + str(len(failed)) + ' failed' if failed else ''}), "
          f"{args.churners} more always coming and going (0.5-2 s each) for "
          f"{args.churn_seconds:.0f} s; a program asks for the table list every 0.1 s "
          f"({mode} clients: {procs} process(es) for the held terminals, one for the "
          f"churn, one for the program), {load()}")
    stop = asyncio.Event()
    own: list[float] = []

    async def person(name, table):
        rng = random.Random(name)
        while not stop.is_set():
            m = table.match
            if m is None or m.to_act is None:
                return
            if m.to_act != 0:
                await asyncio.sleep(0.2)
                continue
            await asyncio.sleep(rng.uniform(0.3, 1.2))        # a person's pace
            if stop.is_set() or m.to_act != 0:
                continue
            r = await agents.call(op="move", name=name, others=[], keys=keys_for(m, 0))
            own.extend(r["own"])

    every = 60.0 if args.churn_seconds >= 120 else args.churn_seconds / 4
    mem: list[tuple[float, float, int, int]] = []

    async def sampler():
        start = time.monotonic()
        while True:
            mem.append((time.monotonic() - start, rss_mb(), len(room.online),
                        sys.getallocatedblocks()))
            await asyncio.sleep(every)

    watch = GcWatch()
    own_stats = ServerStats()
    lag = Probe()
    sampling = asyncio.ensure_future(sampler())
    people = [asyncio.ensure_future(person(n, t)) for n, t in tables]
    cpu0, pcpu0, w0, wait0 = agents.cpu(), time.process_time(), time.monotonic(), run_delay()
    churn, probe = await asyncio.gather(
        agents.call(op="churn", agent=churn_at, port=port, slots=args.churners,
                    seconds=args.churn_seconds, prefix="c"),
        agents.call(op="probe", agent=probe_at, name="probe", seconds=args.churn_seconds,
                    interval=0.1, request={"op": "tables"}, reply=["tables", "error"]))
    wall = time.monotonic() - w0
    mem.append((wall, rss_mb(), len(room.online), sys.getallocatedblocks()))
    sampling.cancel()
    stop.set()
    await asyncio.gather(*people)
    lags = lag.take()
    lag.task.cancel()
    watch.stop()
    answers = [d for _, d in probe["samples"]]
    print(f"  a program's request answered (table list, another client's view of the "
          f"server): {fmt_tail(answers)}")
    slow = [(t - w0, d) for t, d in probe["samples"] if d > 0.25]
    if slow:
        print("  slow answers (s into the run: ms): "
              + ", ".join(f"{t:.0f}: {d * 1000:.0f}" for t, d in slow[:12])
              + (" ..." if len(slow) > 12 else ""))
    print(f"  playing terminals, keypress -> own screen: {fmt_tail(own)}")
    print(f"  sessions that came and went: {churn['sessions']} ({churn['failed']} failed); "
          f"connect -> first screen bytes: {fmt_ms(churn['first'])}")
    print(f"  collector pauses: {watch.summary()}")
    if watch.full:
        print(f"  the longest full collections (s into the run: ms): {watch.fulls(w0)}")
    print(f"  loop lag (a 10 ms sleep wakes late by): {fmt_tail(lags)}")
    print(f"  the server's own counts: {own_stats.summary()}")
    print("  server RSS (s into the run: MB, sessions, allocated blocks): "
          + ", ".join(f"{t:.0f}: {r:.0f} MB, {n}, {b / 1e6:.2f}M" for t, r, n, b in mem))
    after_first = [r for t, r, _, _ in mem if t >= min(60.0, every) - 1]
    if len(after_first) >= 2:
        print(f"  RSS growth after the first {min(60.0, every):.0f} s: "
              f"{after_first[-1] - after_first[0]:+.0f} MB")
    print(f"  server CPU {(time.process_time() - pcpu0) / wall * 100:.0f}% of a core, the loop "
          f"waited for a CPU {(run_delay() - wait0) / wall * 100:.0f}% of the time; "
          f"client processes' CPU (held x{procs}, churn, program): "
          f"{cpu_share(agents, cpu0, wall)}")
    print(f"  after: {load()}")
    await agents.stop()
    stop_inprocess(server)


async def bench_lobby(args, mode: str) -> None:
    """Issue 12's lobby storms: program tables (four JSON sessions each) at a move every
    0.25 s; idle lobby terminals present in the middle block only (before and after:
    none), so both figures come from the same minutes."""
    server, room, port = await start_inprocess()
    reg = room.registry
    agents = await make_agent(mode, 2)      # 0: the programs, 1: the idle terminals
    from engine.room.text import name_key
    n_tables, n_idle, secs = args.lobby_tables, args.lobby_idle, args.lobby_seconds
    period = 0.25
    prog = [[f"p{t}s{i}" for i in range(4)] for t in range(n_tables)]
    flat = [n for g in prog for n in g]
    await agents.call(op="connect", agent=0, port=port, names=flat, json=True, parallel=8)
    await until(lambda: all(name_key(n) in room.online for n in flat), 30)
    sessions = {n: room.online[name_key(n)] for n in flat}
    tables: dict[int, Any] = {}

    def new_table(t):
        table = reg.create("estimation", 18)
        for i, n in enumerate(prog[t]):
            table.sit(sessions[n], i)
        tables[t] = table
    for t in range(n_tables):
        new_table(t)
    await asyncio.sleep(1.0)
    kinds = ("none", "idle", "skip")
    res: dict[str, dict[str, Any]] = {k: {"own": [], "other": [], "errors": 0, "moves": 0, "lag": [], "cpu": 0.0,
               "secs": 0.0} for k in kinds}
    phase = ["skip"]
    stop = asyncio.Event()

    async def driver(t):
        pace = Pace(period, t / n_tables * period)
        await pace.first()
        while not stop.is_set():
            table = tables[t]
            m = table.match
            if table.status != "playing" or m is None or m.to_act is None:
                new_table(t)
                await asyncio.sleep(0.5)
                continue
            seat = m.to_act
            r = res[phase[0]]
            got = await agents.call(op="jact", name=prog[t][seat], action=action_for(m, seat),
                                    others=[n for i, n in enumerate(prog[t]) if i != seat])
            r["own"] += got["own"]
            r["other"] += got["other"]
            r["errors"] += got["refused"]
            r["moves"] += 1 - got["refused"]
            await pace.next()

    lag = Probe()

    async def block(kind, seconds):
        lag.take()
        phase[0] = kind
        cpu0, w0, wait0 = time.process_time(), time.monotonic(), run_delay()
        await asyncio.sleep(seconds)
        r = res[kind]
        r["cpu"] += time.process_time() - cpu0
        r["secs"] += time.monotonic() - w0
        r["wait"] = r.get("wait", 0.0) + run_delay() - wait0
        r["lag"] += lag.take()
        phase[0] = "skip"

    cycles = max(1, args.lobby_cycles)
    part = secs / cycles
    print(f"lobby: {n_tables} program tables (4 JSON sessions each, Estimation) at a move "
          f"every {period} s; {n_idle} idle lobby terminals present in alternate blocks "
          f"({cycles} x [{part / 2:.0f} s without, {part:.0f} s with, {part / 2:.0f} s "
          f"without]; {mode} clients), {load()}")
    cpu0 = agents.cpu()
    w0 = time.monotonic()
    own_stats = ServerStats()
    drivers = [asyncio.ensure_future(driver(t)) for t in range(n_tables)]
    await asyncio.sleep(2.0)                       # warm-up, not counted
    per_s: list[float] = []
    for c in range(cycles):
        await block("none", part / 2)
        idle = [f"idle{c}x{i}" for i in range(n_idle)]
        if idle:
            await agents.call(op="connect", agent=1, port=port, names=idle, parallel=8)
            await asyncio.sleep(2.0)                # their first screens, not counted
            b0 = (await agents.call(op="bytes", names=idle))["bytes"]
        tb = time.monotonic()
        await block("idle", part)
        if idle:
            b1 = (await agents.call(op="bytes", names=idle))["bytes"]
            per_s += [(y - x) / (time.monotonic() - tb) for x, y in zip(b0, b1, strict=True)]
            await agents.call(op="close", names=idle)
            await asyncio.sleep(2.0)
        await block("none", part / 2)
    stop.set()
    await asyncio.gather(*drivers)
    wall = time.monotonic() - w0
    lag.task.cancel()
    for kind, label in (("none", f"{0:3d} idle terminals"), ("idle", f"{n_idle:3d} idle terminals")):
        r = res[kind]
        print(f"  {label}: act -> own view:          {fmt_ms(r['own'])}")
        print(f"  {label}: act -> other three views: {fmt_ms(r['other'])}")
        print(f"  {label}: {r['moves'] / max(r['secs'], 1e-9):.0f} moves/s, server CPU per move "
              f"{r['cpu'] * 1000 / max(1, r['moves']):.2f} ms, {r['errors']} refused; the loop "
              f"waited for a CPU {r['wait'] / max(r['secs'], 1e-9) * 100:.0f}% of the time; "
              f"loop lag {fmt_ms(r['lag'])}")
    if per_s:
        print(f"  an idle lobby terminal receives: median {statistics.median(per_s):.0f} B/s, "
              f"max {max(per_s):.0f} B/s")
    print(f"  the server's own counts (whole run): {own_stats.summary()}")
    print(f"  client processes' CPU (programs, terminals): {cpu_share(agents, cpu0, wall)}")
    print(f"  after: {load()}")
    await agents.stop()
    stop_inprocess(server)


async def bench_500(args, mode: str) -> None:
    """Issue 12's 500 sessions: tables of four terminal sessions, a move every two
    seconds per table (one_move: keys pressed one at a time, each timed).  The
    collector task runs, as in `lamma serve`."""
    server, room, port = await start_inprocess(collector=True)
    reg = room.registry
    procs = args.client_procs
    agents = await make_agent(mode, procs)
    n = args.big_tables
    groups = [[f"b{t}x{i}" for i in range(4)] for t in range(n)]
    rss0 = rss_mb()
    t0 = time.monotonic()
    failed = set(await connect_many(agents, port, groups, procs))
    groups = [g for g in groups if not failed & set(g)]
    await until(lambda: len(room.apps) >= 4 * n - len(failed), 60)
    connect_s = time.monotonic() - t0
    apps = apps_by_name(room)
    tables = []
    for g in groups:
        t = reg.create("estimation", 18)
        for i, name in enumerate(g):
            t.sit(apps[name].member, i)
            apps[name].call_later(apps[name].open_table)
        tables.append((t, g))
    await asyncio.sleep(2.0)
    await agents.call(op="quiet", names=[x for g in groups for x in g], period=0.1)
    seat_s = time.monotonic() - t0 - connect_s
    rss1 = rss_mb()
    print(f"{len(groups) * 4} sessions at {len(groups)} tables, a move every 2 s per table "
          f"({mode} clients in {procs} process(es); connected in {connect_s:.0f} s, their "
          f"table screens open in {seat_s:.0f} s"
          f"{', ' + str(len(failed)) + ' failed' if failed else ''}; server RSS "
          f"{rss0:.0f} -> {rss1:.0f} MB, {(rss1 - rss0) / max(1, 4 * len(groups)):.2f} MB a "
          f"session), {load()}")
    own: list[float] = []
    other: list[float] = []
    lost = [0]
    moves = [0]
    end = time.monotonic() + args.big_seconds

    async def driver(table, names, offset):
        pace = Pace(2.0, offset)
        await pace.first()
        while time.monotonic() < end and table.match.to_act is not None:
            m = table.match
            seat = m.to_act
            r = await agents.call(op="move", name=names[seat], keys=keys_for(m, seat),
                                  others=[x for i, x in enumerate(names) if i != seat])
            own.extend(r["own"])
            other.extend(r["other"])
            lost[0] += r.get("lost", 0)
            moves[0] += 1
            await pace.next()
    watch = GcWatch()
    own_stats = ServerStats()
    lag = Probe()
    cpu0, pcpu0, w0, wait0 = agents.cpu(), time.process_time(), time.monotonic(), run_delay()
    await asyncio.gather(*(driver(t, g, 2.0 * i / len(tables))
                           for i, (t, g) in enumerate(tables)))
    wall = time.monotonic() - w0
    lags = lag.take()
    lag.task.cancel()
    watch.stop()
    print(f"  keypress -> own screen:        {fmt_tail(own)}")
    print(f"  move -> other three screens:   {fmt_tail(other)}")
    print(f"  answers not seen within 5 s: {lost[0]}")
    print(f"  server CPU per move: {(time.process_time() - pcpu0) * 1000 / max(1, moves[0]):.1f} ms "
          f"({moves[0]} moves, {moves[0] / wall:.0f}/s; server CPU "
          f"{(time.process_time() - pcpu0) / wall * 100:.0f}% of a core; the loop waited for "
          f"a CPU {(run_delay() - wait0) / wall * 100:.0f}% of the time)")
    print(f"  loop lag (a 10 ms sleep wakes late by): {fmt_tail(lags)}, the longest "
          f"{lag.worst[0] - w0:.1f} s into the run")
    print(f"  collector pauses: {watch.summary()}")
    if watch.full:
        print(f"  the longest full collections (s into the run: ms): {watch.fulls(w0)}")
    print(f"  the server's own counts: {own_stats.summary()}")
    print(f"  client processes' CPU: {cpu_share(agents, cpu0, wall)}; server RSS {rss_mb():.0f} MB")
    print(f"  after: {load()}")
    await agents.stop()
    stop_inprocess(server)


async def main(args):
    from server import runtime
    runtime.patch_textual()
    only = set(args.only.split(",")) if args.only else {"memory", "one", "match", "many", "bots"}
    if "all" in only:
        only = {"memory", "one", "match", "many", "bots", "churn", "lobby", "500"}
    modes = ["process", "loop"] if args.clients == "both" else [args.clients]
    print(f"start: {load()}")
    if "memory" in only:
        await bench_memory(args.sessions)
    for mode in modes:
        if "one" in only:
            for _ in range(args.repeat):
                await bench_one_table(args.moves, mode, args.profile)
    if "match" in only:
        await bench_whole_match(modes[0])
    for mode in modes:
        if "many" in only:
            await bench_many(args.tables, args.seconds, mode)
    if "bots" in only:
        await bench_bots(args, modes[0])
    if "churn" in only:
        await bench_churn(args, modes[0])
    if "lobby" in only:
        await bench_lobby(args, modes[0])
    if "500" in only:
        await bench_500(args, modes[0])


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--agent", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--clients", choices=["process", "loop", "both"], default="process")
    p.add_argument("--only", default="",
                   help="comma-separated: memory,one,match,many,bots (the default), "
                        "churn,lobby,500 (issue 12: only when named), or all")
    p.add_argument("--repeat", type=int, default=1, help="runs of the one-table scenario")
    p.add_argument("--profile", default="", metavar="FILE",
                   help="one: cProfile the moves (the loop thread's CPU) into FILE")
    p.add_argument("--sessions", type=int, default=50)
    p.add_argument("--moves", type=int, default=200)
    p.add_argument("--tables", type=int, default=25)
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--bot-tables", type=int, default=4)
    p.add_argument("--bot-moves", type=int, default=300)
    p.add_argument("--budget", type=float, default=100, help="ms per computer-player decision")
    p.add_argument("--worker-nice", type=int, default=None,
                   help="the worker's nice steps below the server (default: server.bots.WORKER_NICE)")
    # issue 12
    p.add_argument("--client-procs", type=int, default=2,
                   help="client processes for churn's held terminals and 500's sessions")
    p.add_argument("--held", type=int, default=300, help="churn: terminals held")
    p.add_argument("--churners", type=int, default=8, help="churn: terminals coming and going")
    p.add_argument("--churn-seconds", type=float, default=180)
    p.add_argument("--bot-level", default="normal",
                   help="churn: the computer players' level at the held players' tables")
    p.add_argument("--lobby-tables", type=int, default=25)
    p.add_argument("--lobby-idle", type=int, default=40)
    p.add_argument("--lobby-seconds", type=float, default=60,
                   help="lobby: the block with idle terminals (each block without: half)")
    p.add_argument("--lobby-cycles", type=int, default=2,
                   help="lobby: without/with/without cycles (alternation evens out the "
                        "machine's other load)")
    p.add_argument("--big-tables", type=int, default=125, help="500: tables of four terminals")
    p.add_argument("--big-seconds", type=float, default=90)
    a = p.parse_args()
    if a.agent:
        asyncio.run(agent_main())
        sys.exit(0)
    if a.quick:
        a.sessions, a.moves, a.tables, a.seconds, a.bot_moves = 10, 60, 5, 8, 90
        a.held, a.churners, a.churn_seconds = 30, 4, 20
        a.lobby_tables, a.lobby_idle, a.lobby_seconds, a.lobby_cycles = 5, 8, 10, 1
        a.big_tables, a.big_seconds = 10, 10
    asyncio.run(main(a))
