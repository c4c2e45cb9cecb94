"""A slow mobile link (issue 26): a benchmark, not a test.

    .venv/bin/python tests/bench/slow_link.py [--rtt 0.3] [--kbit 64] [--sizes 80x24,40x20]
        [--compression none,zlib] [--runs 1] [--root CHECKOUT[,CHECKOUT…]]

A terminal player through a link shaper — a TCP proxy in this script that delays every
byte by half the round trip each way and paces each direction at the given rate (the
kernel here has no netem), handing the bytes on as the link would have carried them,
``SLICE`` bytes at a time (two sends the server made one after the other arrive one
after the other, as two TCP segments would, even where the proxy read them at once) —
logs in, waits for the lobby, presses ``p`` (quick play:
three computer players) and plays a whole Estimation round with keys, as a person
would: ``n`` at the dash offer, ``p`` in the auction, Enter for the call, a
declaration and each card. For each size, with SSH compression off and on
(``zlib@openssh.com``, what ``ssh -C`` asks for), it prints:

- the first screen: from the start of the TCP connection to the lobby drawn;
- a move's own echo: from each key that makes a move to the first byte back;
- stalls: the longest time the screen did not change while the round played;
- bytes per move on the wire (the shaper counts them) and in the terminal, over the
  round, a move being a change of the table (a JSON spectator, not shaped, counts them).

The server is ``lamma serve`` with its default pauses (a computer player waits 0.8 s, a
finished trick stays 1 s), in its own process, run from ``--root`` (this checkout by
default; several, comma-separated, are measured in turn, run after run: a before and
an after in one sitting). Everything is on loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import asyncssh
import pyte

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from procs import Lines, stop_popen  # noqa: E402

SLICE = 64              # bytes the shaper hands on at a time (8 ms at 64 kbit/s)


# ------------------------------------------------------------------ the link
class Shaper:
    """A TCP proxy that delays each direction by ``rtt / 2`` and paces it at
    ``rate`` bytes a second, counting the bytes each way."""

    def __init__(self, upstream: int, rtt: float, rate: float):
        self.upstream, self.delay, self.rate = upstream, rtt / 2, rate
        self.down = self.up = 0                     # bytes to the client, to the server
        self.port = 0

    async def start(self) -> Shaper:
        server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self.server = server
        return self

    async def _client(self, reader, writer) -> None:
        up_r, up_w = await asyncio.open_connection("127.0.0.1", self.upstream)
        try:
            await asyncio.gather(self._pipe(reader, up_w, "up"),
                                 self._pipe(up_r, writer, "down"))
        except asyncio.CancelledError:
            pass

    async def _pipe(self, src, dst, way: str) -> None:
        loop = asyncio.get_running_loop()
        free_at = 0.0           # when the link is free again in this direction
        pending: list[asyncio.TimerHandle] = []
        try:
            while data := await src.read(4096):
                # each slice is handed on once the link has carried it: the first bytes
                # of a read do not wait for its last
                free_at = max(loop.time(), free_at)
                for i in range(0, len(data), SLICE):
                    piece = data[i:i + SLICE]
                    free_at += len(piece) / self.rate
                    pending.append(loop.call_at(free_at + self.delay, self._deliver, dst,
                                                piece, way))
        except (ConnectionError, OSError):
            pass
        await asyncio.sleep(max(0.0, free_at + self.delay - loop.time()) + 0.05)
        dst.close()

    def _deliver(self, dst, data: bytes, way: str) -> None:
        if way == "down":
            self.down += len(data)
        else:
            self.up += len(data)
        if not dst.is_closing():
            dst.write(data)

    def close(self) -> None:
        self.server.close()


# -------------------------------------------------------------------- the player
class Terminal:
    """A PTY session whose screen pyte keeps, with the time of every read."""

    def __init__(self, proc, size: tuple[int, int]):
        self.proc = proc
        self.screen = pyte.Screen(*size)
        self.stream = pyte.ByteStream(self.screen)
        self.bytes = 0
        self.reads: list[float] = []
        self.changed = asyncio.Event()
        self.task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        while data := await self.proc.stdout.read(65536):
            self.bytes += len(data)
            self.reads.append(time.monotonic())
            self.stream.feed(data)
            self.changed.set()

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def footer(self) -> str:
        """The footer: the last row, or under 80 columns (the compact layout, whose keys
        take as many rows as they need) the last three."""
        rows = self.screen.display
        return "\n".join(rows[-1:] if self.screen.columns >= 80 else rows[-3:])

    async def wait_for(self, what: str, timeout: float = 30.0) -> float:
        deadline = time.monotonic() + timeout
        while what not in self.text():
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{what!r} never showed:\n{self.text()}")
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
                pass
        return time.monotonic()

    def press(self, key: bytes) -> float:
        self.proc.stdin.write(key)
        return time.monotonic()


def our_turn(footer: str) -> bytes | None:
    """The key a plain player presses now, from what the footer offers (None: not
    our turn)."""
    if "⏎ play" in footer or "⏎ declare" in footer or "⏎ call" in footer:
        return b"\r"
    if re.search(r"\bp pass\b", footer):
        return b"p"
    if "y take" in footer or "n play" in footer or "dash" in footer:
        return b"n"
    return None


async def watcher(port: int, key, table: str, counts: dict[str, int]) -> None:
    """A JSON spectator, not shaped: each view it gets is one change of the table."""
    conn = await asyncssh.connect("127.0.0.1", port, username=f"w{table}", known_hosts=None,
                                  client_keys=[key], agent_path=None)
    proc = await conn.create_process("play", encoding=None)
    proc.stdin.write(json.dumps({"op": "watch", "table": table}).encode() + b"\n")
    try:
        while line := await proc.stdout.readline():
            kind = json.loads(line).get("type")
            if kind == "view":
                counts["views"] += 1
            elif os.environ.get("SLOW_LINK_DEBUG"):
                print("watcher:", line[:200], flush=True)
    finally:
        conn.close()


async def one_run(port: int, size: tuple[int, int], rtt: float, rate: float,
                  compress: bool) -> dict:
    shaper = await Shaper(port, rtt, rate).start()
    key = asyncssh.generate_private_key("ssh-ed25519")
    t0 = time.monotonic()
    conn = await asyncssh.connect(
        "127.0.0.1", shaper.port, username=f"slow{int(t0 * 1000) % 100000}",
        known_hosts=None, client_keys=[key], agent_path=None,
        compression_algs=["zlib@openssh.com"] if compress else ["none"])
    logged_in = time.monotonic()
    proc = await conn.create_process(term_type="xterm-256color", term_size=size,
                                     encoding=None)
    term = Terminal(proc, size)
    out: dict = {"size": f"{size[0]}x{size[1]}", "compression": compress}
    try:
        first = await term.wait_for("you:", 30)        # the lobby's title, at any size
        out["first screen s"] = first - t0
        out["after login s"] = first - logged_in
        out["first screen B"] = term.bytes
        term.press(b"p")
        await term.wait_for("Round 1", 30)              # the table's title: "#1 … Round 1"
        title = next(line for line in term.screen.display if "Round 1" in line)
        table = re.search(r"#(\d+)", title).group(1)
        counts = {"views": 0}
        watch = asyncio.ensure_future(watcher(port, key, table, counts))
        await asyncio.sleep(1.0)
        bytes0, down0, views0 = term.bytes, shaper.down, counts["views"]
        echoes: list[float] = []
        gaps: list[float] = []
        last_change = time.monotonic()
        started = time.monotonic()
        round_over = False
        while not round_over and time.monotonic() - started < 600:
            key_now = our_turn(term.footer())
            if key_now is not None:
                reads = len(term.reads)
                down_before = shaper.down
                pressed = term.press(key_now)
                while len(term.reads) == reads:
                    term.changed.clear()
                    await asyncio.wait_for(term.changed.wait(), 30)
                echoes.append(term.reads[reads] - pressed)
                if os.environ.get("SLOW_LINK_DEBUG"):
                    print(f"echo {echoes[-1] * 1000:.0f} ms for {key_now!r}; "
                          f"{shaper.down - down_before} B down the link before the key",
                          flush=True)
                await asyncio.sleep(rtt)                # the screen settles
            else:
                term.changed.clear()
                try:
                    await asyncio.wait_for(term.changed.wait(), 5)
                except TimeoutError:
                    pass
            if term.reads and term.reads[-1] > last_change:
                gaps.append(term.reads[-1] - last_change)
                last_change = term.reads[-1]
            text = term.text()
            round_over = "Round 1 summary" in text or "ملخص الدور" in text
            if round_over and os.environ.get("SLOW_LINK_DEBUG"):
                print(text)
        out["round played"] = round_over
        moves = max(1, counts["views"] - views0)
        out["moves"] = moves
        out["echo median ms"] = statistics.median(echoes) * 1000 if echoes else float("nan")
        out["echo max ms"] = max(echoes) * 1000 if echoes else float("nan")
        out["longest quiet s"] = max(gaps) if gaps else float("nan")
        out["terminal B/move"] = (term.bytes - bytes0) / moves
        out["wire B/move"] = (shaper.down - down0) / moves
        watch.cancel()
    finally:
        conn.close()
        shaper.close()
    return out


def start_server(folder: Path, root: Path = ROOT) -> tuple[subprocess.Popen, int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--port", str(port),
         "--data", str(folder / "data"), "--keys", str(folder / "keys"),
         "--status-every", "0"], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:        # its output passed over until it listens (another checkout's words too)
        Lines(proc.stdout).wait_for("listening", 30)
    except BaseException:
        stop_popen(proc)
        raise
    return proc, port


async def main(a) -> None:
    roots = a.roots
    servers = []
    try:
        for root in roots:
            folder = Path(tempfile.mkdtemp(prefix="slow_link_"))
            server, port = start_server(folder, root)
            servers.append((server, port, folder))
        rows = []
        for run in range(a.runs):
            for size_text in a.sizes.split(","):
                w, h = (int(x) for x in size_text.split("x"))
                for compress in [c == "zlib" for c in a.compression.split(",")]:
                    for root, (_server, port, _folder) in zip(roots, servers, strict=True):
                        row = await one_run(port, (w, h), a.rtt, a.kbit * 1000 / 8, compress)
                        row["root"], row["run"] = str(root), run + 1
                        row["load"] = os.getloadavg()[0]
                        print(json.dumps(row), flush=True)
                        rows.append(row)
        print(f"\n{a.rtt * 1000:.0f} ms round trip, {a.kbit:g} kbit/s each way; "
              f"load {os.getloadavg()[0]:.1f}\n")
        print("| checkout | run | size | compression | first screen: from connecting / from "
              "login | own echo median / max | longest quiet | bytes per move, terminal / "
              "wire | round |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {Path(r['root']).name} | {r['run']} | {r['size']} | "
                  f"{'zlib' if r['compression'] else 'none'} | "
                  f"{r.get('first screen s', float('nan')):.2f} / "
                  f"{r.get('after login s', float('nan')):.2f} s | "
                  f"{r.get('echo median ms', float('nan')):.0f} / "
                  f"{r.get('echo max ms', float('nan')):.0f} ms | "
                  f"{r.get('longest quiet s', float('nan')):.1f} s | "
                  f"{r.get('terminal B/move', float('nan')):.0f} / "
                  f"{r.get('wire B/move', float('nan')):.0f} | "
                  f"{'whole' if r.get('round played') else 'unfinished'} ({r.get('moves')} moves) |")
    finally:
        for server, _port, folder in servers:
            server.terminate()      # a clean restart: it tells everyone and stores first
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(10)
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rtt", type=float, default=0.3, help="round trip, seconds")
    p.add_argument("--kbit", type=float, default=64.0, help="kbit/s each way")
    p.add_argument("--sizes", default="80x24", help="terminal sizes, e.g. 80x24,40x20")
    p.add_argument("--compression", default="none,zlib",
                   help="SSH compression to measure: none, zlib (what ssh -C asks for)")
    p.add_argument("--runs", type=int, default=1, help="times to measure each")
    p.add_argument("--root", default="",
                   help="checkouts whose server is measured, comma-separated, in turn "
                        "(default: this one)")
    args = p.parse_args()
    args.roots = [Path(r).resolve() for r in args.root.split(",")] if args.root else [ROOT]
    asyncio.run(main(args))
