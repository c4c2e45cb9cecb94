"""Figures for the server issues 3 and 5 (a benchmark, not a test).

    .venv/bin/python tests/bench/server_bench.py [--quick] [--clients process|loop|both]
                     [--only memory,one,match,many,bots] [--repeat N]

Prints: resident memory per connected idle session (server in a subprocess);
keypress-to-own-screen and move-to-the-other-three-screens latency (median,
p95, max) at one table and with 100 sessions at 25 tables each making a move
a second; bytes a client receives for the first screen, per opponent move,
and for a whole 18-round Estimation match; the pause of one full garbage
collection with the 100 sessions; and (issue 5) the key-press latency at one
table of people while strong computer players at four other tables decide
without pause (100 ms budget), against the same without them and against the
same decisions computed on the event loop, with the decision times.

A person's keys are pressed one at a time: a card typed as "qs" is two
presses, each timed to the presser's own screen; the last press of a move is
also timed to the other three screens.

The server runs in this process (the scenarios need its tables to know whose
turn it is and what to press).  The SSH clients run by default in a child
process (``--clients process``): they encrypt, decrypt and timestamp there,
so a figure is the server's time plus the network, not the clients' work on
the server's loop.  ``--clients loop`` runs them on the server's own loop, as
the first version of this script did (their work then adds to every figure).
Timestamps are CLOCK_MONOTONIC, the same clock in both processes; the press
and the arrival are both stamped in the client process.  Every scenario
prints the machine's load next to its figures: on a shared machine compare
figures from one run, and repeat.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures as cf
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import asyncssh

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


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


class Agent:
    """The clients' side of every scenario: connects, presses keys, stamps bytes.
    Runs on the server's loop (``LocalAgent``) or in a child process
    (``RemoteAgent``); the scenarios talk to both the same way."""

    def __init__(self):
        self.clients: dict[str, Client] = {}
        self.key = asyncssh.generate_private_key("ssh-ed25519")

    async def handle(self, cmd: dict) -> dict:
        op = cmd["op"]
        if op == "connect":
            for name in cmd["names"]:
                self.clients[name] = await connect(cmd["port"], name, self.key)
            return {}
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
            out = {"own": [], "other": []}
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
                    pass
                for f in other_f:
                    try:
                        out["other"].append(await asyncio.wait_for(f, 5) - t0)
                    except TimeoutError:
                        pass
                for c in [actor, *watch]:
                    await c.quiet(0.03)
                if last:
                    out["bytes"] = [c.bytes - b for c, b in zip(watch, before, strict=False)]
            return out
        if op == "close":
            for c in self.clients.values():
                c.conn.close()
            self.clients.clear()
            return {}
        raise ValueError(op)


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
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--agent", stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, cwd=str(ROOT))
        self.ids = 0
        self.waiting: dict[int, asyncio.Future] = {}
        self.reader = asyncio.ensure_future(self._read())
        return self

    async def _read(self):
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                for f in self.waiting.values():
                    if not f.done():
                        f.set_exception(RuntimeError("client process ended"))
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
            await asyncio.wait_for(self.proc.wait(), 5)
        except TimeoutError:
            self.proc.kill()
        self.reader.cancel()


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


async def make_agent(mode: str):
    if mode == "loop":
        return LocalAgent()
    return await RemoteAgent().start()


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
    proc.stdout.readline()
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
        proc.terminate()
        proc.wait(5)


# --------------------------------------------------- in-process scenarios
async def start_inprocess(bot_pause=0.0):
    from server.ssh import RoomConfig, start_server
    tmp = Path(tempfile.mkdtemp())
    # Hundreds of clients from one loopback address: the per-address limits would refuse
    # them (issue 11); the per-session ones stay as in production.
    from server.limits import Limits
    cfg = RoomConfig(data=tmp / "data", keys=tmp / "keys", bot_pause=bot_pause, trick_pause=0.0,
                     limits=Limits.generous())
    server, room, _ = await start_server(cfg, "127.0.0.1", 0)
    # as `lamma serve` does (server/cli.py): full collections off the hot path
    from server import runtime
    runtime.tune_gc()
    return server, room, server.sockets[0].getsockname()[1]


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
    if m.view(None)["phase"] == "play":
        bytes_per_move.extend(r["bytes"])


def cpu_ms_per(n: int, cpu0: float) -> str:
    return f"{(time.process_time() - cpu0) * 1000 / max(1, n):.1f} ms"


async def bench_one_table(moves: int, mode: str) -> None:
    server, room, port = await start_inprocess()
    agent = await make_agent(mode)
    table, names = await table_of_four(room, agent, port, "one")
    own, other, per_move = [], [], []
    n = 0
    print(f"one table ({mode} clients), {load()}")
    cpu0 = time.process_time()
    while table.match.to_act is not None and n < moves:
        await one_move(table, agent, names, own, other, per_move)
        n += 1
    cpu = cpu_ms_per(n, cpu0)
    print(f"  keypress -> own screen:        {fmt_ms(own)}")
    print(f"  move -> other three screens:   {fmt_ms(other)}")
    print(f"  bytes per opponent move (card play): median {statistics.median(per_move):.0f}, "
          f"p95 {pct(per_move, 95):.0f}, max {max(per_move)}")
    print(f"  this process's CPU per move: {cpu}"
          + (" (server only)" if mode == "process" else " (server and clients)"))
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
        await asyncio.sleep(offset)
        while time.monotonic() < end and table.match.to_act is not None:
            t0 = time.monotonic()
            await one_move(table, agent, names, own, other, per_move)
            moves[0] += 1
            await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - t0)))
    cpu0 = time.process_time()
    probe = Probe()
    await asyncio.gather(*(driver(t, c, i / tables) for i, (t, c) in enumerate(groups)))
    probe.task.cancel()
    print(f"  keypress -> own screen:        {fmt_ms(own)}")
    print(f"  move -> other three screens:   {fmt_ms(other)}")
    print(f"  loop lag (a 10 ms sleep wakes late by): {fmt_ms(probe.take())}")
    print(f"  this process's CPU per move: {cpu_ms_per(moves[0], cpu0)} ({moves[0]} moves)")
    import gc
    t0 = time.perf_counter()
    found = gc.collect()
    full_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    gc.collect()
    print(f"  one full collection now (server.runtime.gc_task runs one when memory grew by a quarter): "
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
    table.fill_with_bots()
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
        self.task = asyncio.ensure_future(self._run())

    async def _run(self):
        loop = asyncio.get_running_loop()
        while True:
            t = loop.time()
            await asyncio.sleep(0.01)
            self.lags.append(loop.time() - t - 0.01)

    def take(self) -> list[float]:
        out, self.lags = self.lags, []
        return out


async def bench_bots(args, mode: str) -> None:
    """Issue 5: people press keys at one table while computer players at other
    tables decide without pause.  Blocks without bots, with bots thinking in
    the worker process (as the server runs them), and, for contrast, with the
    same decisions computed on the event loop (what the worker saves)."""
    from engine.bots.worker import BotPool
    from server.room import bots

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
        t.fill_with_bots(level="strong")
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


async def main(args):
    from server import runtime
    runtime.patch_textual()
    only = set(args.only.split(",")) if args.only else {"memory", "one", "match", "many", "bots"}
    modes = ["process", "loop"] if args.clients == "both" else [args.clients]
    print(f"start: {load()}")
    if "memory" in only:
        await bench_memory(args.sessions)
    for mode in modes:
        if "one" in only:
            for _ in range(args.repeat):
                await bench_one_table(args.moves, mode)
    if "match" in only:
        await bench_whole_match(modes[0])
    for mode in modes:
        if "many" in only:
            await bench_many(args.tables, args.seconds, mode)
    if "bots" in only:
        await bench_bots(args, modes[0])


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--agent", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--clients", choices=["process", "loop", "both"], default="process")
    p.add_argument("--only", default="", help="comma-separated: memory,one,match,many,bots")
    p.add_argument("--repeat", type=int, default=1, help="runs of the one-table scenario")
    p.add_argument("--sessions", type=int, default=50)
    p.add_argument("--moves", type=int, default=200)
    p.add_argument("--tables", type=int, default=25)
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--bot-tables", type=int, default=4)
    p.add_argument("--bot-moves", type=int, default=300)
    p.add_argument("--budget", type=float, default=100, help="ms per computer-player decision")
    p.add_argument("--worker-nice", type=int, default=None,
                   help="the worker's nice steps below the server (default: server.bots.WORKER_NICE)")
    a = p.parse_args()
    if a.agent:
        asyncio.run(agent_main())
        sys.exit(0)
    if a.quick:
        a.sessions, a.moves, a.tables, a.seconds, a.bot_moves = 10, 60, 5, 8, 90
    asyncio.run(main(a))
