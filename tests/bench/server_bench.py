"""Figures for the server issue (a benchmark, not a test).

    .venv/bin/python tests/bench/server_bench.py [--quick]

Prints: resident memory per connected idle session (server in a subprocess);
keypress-to-own-screen and move-to-the-other-three-screens latency (median,
p95) at one table and with 100 sessions at 25 tables each making a move a
second; bytes a client receives for the first screen, per opponent move, and
for a whole 18-round Estimation match.
"""

from __future__ import annotations

import argparse
import asyncio
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
    k = min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))
    return xs[k]


def fmt_ms(xs):
    return f"median {statistics.median(xs) * 1000:6.1f} ms, p95 {pct(xs, 95) * 1000:6.1f} ms (n={len(xs)})"


class Client:
    """A PTY client that only timestamps bytes (no terminal emulation)."""

    def __init__(self, conn, proc, name):
        self.conn, self.proc, self.name = conn, proc, name
        self.bytes = 0
        self.keep = None
        self.last_rx = time.monotonic()
        self.waiters: list[tuple[float, asyncio.Future]] = []
        self.task = asyncio.ensure_future(self._read())

    async def _read(self):
        while True:
            data = await self.proc.stdout.read(65536)
            if not data:
                return
            now = time.monotonic()
            self.bytes += len(data)
            if self.keep is not None:
                self.keep.append(data)
            self.last_rx = now
            for _, fut in self.waiters:
                if not fut.done():
                    fut.set_result(now)
            self.waiters.clear()

    def next_bytes(self) -> asyncio.Future:
        fut = asyncio.get_running_loop().create_future()
        self.waiters.append((time.monotonic(), fut))
        return fut

    def press(self, data: bytes):
        self.proc.stdin.write(data)

    async def quiet(self, period=0.05, timeout=5):
        end = time.monotonic() + timeout
        while time.monotonic() - self.last_rx < period and time.monotonic() < end:
            await asyncio.sleep(period / 4)


async def connect(port, name, key, size=(80, 24)):
    conn = await asyncssh.connect("127.0.0.1", port, username=name, known_hosts=None,
                                  client_keys=[key], agent_path=None)
    proc = await conn.create_process(term_type="xterm-256color", term_size=size, encoding=None)
    return Client(conn, proc, name)


def keys_for(m, seat):
    legal = m.legal_actions(seat)
    types = {a["type"] for a in legal}
    if "dash" in types:
        return b"n"
    if "bid" in types or "pass" in types:
        return b"p" if "pass" in types else b"\r"
    if "call" in types:
        return b"\r"
    if "declare" in types:
        nums = sorted(a["n"] for a in legal if a["n"] <= 9)
        return str(nums[len(nums) // 3]).encode() + b"\r"
    if "play" in types:
        cards = [a["card"] for a in legal]
        c = cards[len(cards) // 2]
        return (c[0].lower() + c[1].lower()).encode()
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
        key = asyncssh.generate_private_key("ssh-ed25519")
        # warm up: one session, so imports and first-use caches are counted once
        warm = await connect(port, "warm", key)
        await asyncio.sleep(1.0)
        await warm.quiet(0.2)
        base = rss()
        clients = []
        first_screen = []
        for i in range(n):
            c = await connect(port, f"idle{i}", key)
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
        for c in clients + [warm]:
            c.conn.close()
    finally:
        proc.terminate()
        proc.wait(5)


# --------------------------------------------------- in-process scenarios
async def start_inprocess(bot_pause=0.0):
    from server.ssh import RoomConfig, start_server
    tmp = Path(tempfile.mkdtemp())
    cfg = RoomConfig(data=tmp / "data", keys=tmp / "keys", bot_pause=bot_pause, trick_pause=0.0)
    server, room, _ = await start_server(cfg, "127.0.0.1", 0)
    # as `lamma serve` does (server/cli.py): full collections off the hot path
    from server import runtime
    runtime.tune_gc()
    return server, room, server.sockets[0].getsockname()[1]


async def table_of_four(room, port, key, prefix, game="estimation-kotshina", length="micro"):
    clients = [await connect(port, f"{prefix}{i}", key) for i in range(4)]
    for c in clients:
        await c.quiet(0.1)
    reg = room.registry
    table = reg.create(game, length)
    apps = {a.member.name: a for a in list(room.apps)}
    for i, c in enumerate(clients):
        table.sit(apps[c.name].member, i)
    for c in clients:
        apps[c.name].call_later(apps[c.name].open_table)
    await asyncio.sleep(0.3)
    for c in clients:
        await c.quiet(0.1)
    return table, clients


async def one_move(table, clients, own_lat, other_lat, bytes_per_move):
    m = table.match
    seat = m.to_act
    actor = clients[seat]
    others = [c for i, c in enumerate(clients) if i != seat]
    before = {c.name: c.bytes for c in others}
    own_f = actor.next_bytes()
    other_f = [c.next_bytes() for c in others]
    t0 = time.monotonic()
    actor.press(keys_for(m, seat))
    t_own = await asyncio.wait_for(own_f, 5)
    own_lat.append(t_own - t0)
    for f in other_f:
        try:
            t = await asyncio.wait_for(f, 5)
            other_lat.append(t - t0)
        except asyncio.TimeoutError:
            pass
    for c in clients:
        await c.quiet(0.03)
    if m.view(None)["phase"] == "play":
        for c in others:
            bytes_per_move.append(c.bytes - before[c.name])


async def bench_one_table(moves: int) -> None:
    server, room, port = await start_inprocess()
    key = asyncssh.generate_private_key("ssh-ed25519")
    table, clients = await table_of_four(room, port, key, "one")
    own, other, per_move = [], [], []
    n = 0
    while table.match.to_act is not None and n < moves:
        await one_move(table, clients, own, other, per_move)
        n += 1
    print(f"one table, keypress -> own screen:        {fmt_ms(own)}")
    print(f"one table, move -> other three screens:   {fmt_ms(other)}")
    print(f"bytes per opponent move (card play):      median {statistics.median(per_move):.0f}, "
          f"p95 {pct(per_move, 95):.0f}, max {max(per_move)}")
    for c in clients:
        c.conn.close()
    server.close()


async def bench_many(tables: int, seconds: float) -> None:
    server, room, port = await start_inprocess()
    key = asyncssh.generate_private_key("ssh-ed25519")
    groups = []
    for t in range(tables):
        groups.append(await table_of_four(room, port, key, f"t{t}x"))
    own, other, per_move = [], [], []
    end = time.monotonic() + seconds

    async def driver(table, clients, offset):
        await asyncio.sleep(offset)
        while time.monotonic() < end and table.match.to_act is not None:
            t0 = time.monotonic()
            await one_move(table, clients, own, other, per_move)
            await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - t0)))
    await asyncio.gather(*(driver(t, c, i / tables) for i, (t, c) in enumerate(groups)))
    print(f"{tables * 4} sessions at {tables} tables, a move a second per table:")
    print(f"  keypress -> own screen:        {fmt_ms(own)}")
    print(f"  move -> other three screens:   {fmt_ms(other)}")
    for _, clients in groups:
        for c in clients:
            c.conn.close()
    server.close()


async def bench_whole_match() -> None:
    server, room, port = await start_inprocess(bot_pause=0.0)
    key = asyncssh.generate_private_key("ssh-ed25519")
    c = await connect(port, "solo", key)
    await c.quiet(0.1)
    first = c.bytes
    app = next(iter(room.apps))
    table = room.registry.create("estimation", 18)
    table.sit(app.member, 0)
    app.call_later(app.open_table)
    await asyncio.sleep(0.2)
    start_bytes = c.bytes
    table.fill_with_bots()
    m = table.match
    while m.to_act is not None:
        if m.to_act == 0:
            await asyncio.sleep(0.01)
            if m.to_act == 0:
                v = len(m.log)
                c.press(keys_for(m, 0))
                for _ in range(500):
                    if len(m.log) > v:
                        break
                    await asyncio.sleep(0.005)
        else:
            await asyncio.sleep(0.005)
    await c.quiet(0.2)
    total = c.bytes - first
    print(f"bytes for the first table screen: {start_bytes - first}")
    print(f"bytes for a whole 18-round Estimation match (1 person + 3 computer players, "
          f"{len(m.log)} actions): {total / 1024:.0f} KB")
    c.conn.close()
    server.close()


async def main(args):
    from server import runtime
    runtime.patch_textual()
    await bench_memory(args.sessions)
    await bench_one_table(args.moves)
    await bench_whole_match()
    await bench_many(args.tables, args.seconds)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--sessions", type=int, default=50)
    p.add_argument("--moves", type=int, default=200)
    p.add_argument("--tables", type=int, default=25)
    p.add_argument("--seconds", type=float, default=30)
    a = p.parse_args()
    if a.quick:
        a.sessions, a.moves, a.tables, a.seconds = 10, 60, 5, 8
    asyncio.run(main(a))
