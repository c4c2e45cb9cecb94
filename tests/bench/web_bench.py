"""What a browser's session costs the server beside an SSH one (issue 43).

    .venv/bin/python tests/bench/web_bench.py [--sessions N]

A real ``lamma serve --web`` in a subprocess (limits per address raised: every client
comes from 127.0.0.1). One SSH session and one browser session first (imports and
first-use caches counted once), then N idle SSH terminals in the lobby, the resident
memory they add; then N idle browser sessions (the websocket, permessage-deflate, the
same app) and theirs. Also the bytes of the lobby's first screen at 80x24: what the
SSH client receives, and what the browser's websocket carries on the wire
(compressed) and after it (the terminal's bytes).

Prints the figures; docs/web.md quotes them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import warnings  # noqa: E402

warnings.filterwarnings("ignore", message="DSA is deprecated")     # asyncssh 2.24's
import asyncssh  # noqa: E402
from webclient import WebClient  # noqa: E402

GENEROUS = """
[limits]
handshakes-per-address = 100000
guests-per-address = 100000
connects-rate = 100000.0
connects-burst = 100000.0
key-logins-rate = 100000.0
key-logins-burst = 100000.0
new-names-per-hour = 100000
"""


def rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) * 1024
    return 0


class SshTerminal:
    def __init__(self, conn, proc):
        self.conn, self.proc = conn, proc
        self.bytes = 0
        self.last = time.monotonic()
        self.task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        try:
            while True:
                data = await self.proc.stdout.read(65536)
                if not data:
                    return
                self.bytes += len(data)
                self.last = time.monotonic()
        except Exception:
            pass

    async def quiet(self, period: float = 0.2, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() - self.last < period and time.monotonic() < deadline:
            await asyncio.sleep(period / 3)


async def ssh_terminal(port: int, name: str) -> SshTerminal:
    conn = await asyncssh.connect("127.0.0.1", port, username=name, known_hosts=None,
                                  client_keys=None, agent_path=None, password="x",
                                  preferred_auth="keyboard-interactive")
    proc = await conn.create_process(term_type="xterm-256color", term_size=(80, 24),
                                     encoding=None)
    return SshTerminal(conn, proc)


async def browser(port: int, name: str) -> tuple[WebClient, list[int]]:
    """A browser's session, counting the bytes its websocket carries on the wire."""
    client = await WebClient.open(port, name)
    wire = [0]
    received = client.ws.data_received

    def counted(data: bytes) -> None:
        wire[0] += len(data)
        received(data)

    client.ws.data_received = counted            # (the asyncio transport calls it)
    return client, wire


async def settle(clients, quiet) -> None:
    await asyncio.sleep(2.0)
    for c in clients:
        await quiet(c)


async def main(n: int) -> None:
    tmp = Path(tempfile.mkdtemp())
    config = tmp / "room.toml"
    config.write_text(GENEROUS)
    port = 20000 + os.getpid() % 20000
    web = port + 1
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--config", str(config), "--port",
         str(port), "--web", f"127.0.0.1:{web}", "--data", str(tmp / "data"), "--keys",
         str(tmp / "keys"), "--status-every", "0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 30
        while "Web:" not in (line := proc.stdout.readline()):
            if (not line and proc.poll() is not None) or time.monotonic() > deadline:
                raise SystemExit("the room did not start")
        warm_ssh = await ssh_terminal(port, "warmssh")
        warm_web, first_wire = await browser(web, "warmweb")
        await warm_ssh.quiet()
        await warm_web.quiet(0.2)
        ssh_first, web_first_wire = warm_ssh.bytes, first_wire[0]
        web_first_raw = len(warm_web.raw)

        base = rss(proc.pid)
        terminals = [await ssh_terminal(port, f"s{i}") for i in range(n)]
        await settle(terminals, lambda c: c.quiet())
        after_ssh = rss(proc.pid)
        pages = [(await browser(web, f"w{i}"))[0] for i in range(n)]
        await settle(pages, lambda c: c.quiet(0.2))
        after_web = rss(proc.pid)

        per_ssh = (after_ssh - base) / n / 2**20
        per_web = (after_web - after_ssh) / n / 2**20
        print(f"idle sessions in the lobby, {n} of each (server RSS "
              f"{base / 2**20:.0f} -> {after_ssh / 2**20:.0f} -> {after_web / 2**20:.0f} MB):")
        print(f"  ssh terminal:     {per_ssh:.2f} MB per session")
        print(f"  browser (web):    {per_web:.2f} MB per session")
        print("first screen (the lobby, 80x24):")
        print(f"  ssh terminal:     {ssh_first} bytes of terminal output")
        print(f"  browser (web):    {web_first_wire} bytes on the wire (permessage-deflate), "
              f"{web_first_raw} bytes of terminal output")
        for t in [warm_ssh, *terminals]:
            t.conn.close()
        for p in [warm_web, *pages]:
            await p.close()
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=100)
    args = parser.parse_args()
    asyncio.run(main(args.sessions))
