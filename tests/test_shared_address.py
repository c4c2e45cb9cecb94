"""Limits that spare shared addresses (issue 28): 300 people with their own keys behind
one address (a carrier's NAT, a school) all connect to a real ``lamma serve`` with the
production limits and play at 75 tables, while another address floods the room with
connections that never authenticate; they start together (issue 45) and their moves are
answered within 100 ms (p95).
(The 17th guest from one address is still refused: tests/test_limits.py,
tests/test_hostile_battery.py.)"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import time
from pathlib import Path

import asyncssh
import pytest
from procs import LISTENING, OtherLoad, stop_process, wait_line

ROOT = Path(__file__).resolve().parents[1]
PEOPLE = 300
THINK = 1.5             # seconds a person takes over a move
PLAY = 20.0             # seconds of play measured
pytestmark = pytest.mark.slow

FLOOD = r"""
import asyncio, sys, time

async def main(port, seconds):
    held, opened, refused = [], 0, 0
    until = time.monotonic() + seconds
    said = time.monotonic()
    while time.monotonic() < until:
        if time.monotonic() - said > 0.5:
            said = time.monotonic()
            print(opened, refused, len(held), flush=True)
        try:
            r, w = await asyncio.open_connection("127.0.0.1", port,
                                                 local_addr=("127.0.0.2", 0))
            w.write(b"SSH-2.0-flood\r\n")     # and never a word more
            held.append((r, w))
            opened += 1
        except OSError:
            refused += 1
        for r, w in list(held):
            if r.at_eof() or w.is_closing():
                held.remove((r, w))
                w.close()
        await asyncio.sleep(0.01)
    print(opened, refused, len(held), flush=True)

asyncio.run(main(int(sys.argv[1]), float(sys.argv[2])))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Person:
    def __init__(self, name: str):
        self.name = name
        self.key = asyncssh.generate_private_key("ssh-ed25519")
        self.conn: asyncssh.SSHClientConnection | None = None
        self.proc = None
        self.seat: int | None = None
        self.table: str | None = None
        self.joined = asyncio.Event()
        self.acted = 0
        self.sent_at: float | None = None
        self.waits: list[float] = []
        self.errors: list[str] = []
        self.playing = True

    async def connect(self, port: int) -> None:
        self.conn = await asyncssh.connect(
            "127.0.0.1", port, username=self.name, known_hosts=None,
            client_keys=[self.key], agent_path=None, preferred_auth="publickey")
        self.proc = await self.conn.create_process("play", encoding=None)

    def send(self, obj: dict) -> None:
        self.proc.stdin.write((json.dumps(obj) + "\n").encode())

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                return
            msg = json.loads(line)
            kind = msg.get("type")
            if kind == "joined":
                self.seat, self.table = msg["seat"], msg["table"]
                self.joined.set()
            elif kind == "error":
                self.errors.append(msg["message"])
            elif kind == "view":
                now = time.monotonic()
                if self.sent_at is not None:
                    self.waits.append(now - self.sent_at)
                    self.sent_at = None
                view = msg["view"]
                if self.playing and view.get("to_act") == self.seat and view.get("legal"):
                    action = view["legal"][0]
                    loop.call_later(THINK, self._act, action, view.get("version"))

    def _act(self, action: dict, version) -> None:
        if not self.playing or self.sent_at is not None:
            return
        self.sent_at = time.monotonic()
        self.acted += 1
        self.send({"op": "act", "action": action})


async def test_three_hundred_keyed_players_behind_one_address_play_through_a_flood(tmp_path):
    port = free_port()
    people = [Person(f"p{i:03d}") for i in range(PEOPLE)]
    # They have played here before: their names are theirs already (a new name from one
    # address is one of a few an hour: issue 40, tests/test_room_shares.py).
    from server.store import Store
    (tmp_path / "data").mkdir()
    known = Store(tmp_path / "data" / "lamma.db")
    for p in people:
        assert known.bind(p.name, p.key.get_fingerprint("sha256"))
    known.close()
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", "--port", str(port),
        "--data", str(tmp_path / "data"), "--keys", str(tmp_path / "keys"),
        "--status-every", "0", cwd=ROOT, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT)
    flood = None
    readers: list[asyncio.Task] = []
    try:
        assert server.stdout is not None
        await wait_line(server.stdout, LISTENING, 20)
        flood = await asyncio.create_subprocess_exec(
            sys.executable, "-c", FLOOD, str(port), "120", stdout=asyncio.subprocess.PIPE)
        await asyncio.sleep(0.5)
        # Everyone connects from 127.0.0.1 at once: past the 16 handshakes an address
        # may have under way, the others wait for a place (issue 45, server/admission.py).
        async def arrive(p: Person) -> None:
            await p.connect(port)
            readers.append(asyncio.ensure_future(p.run()))
        started = time.monotonic()
        await asyncio.gather(*(arrive(p) for p in people))
        connected = time.monotonic() - started
        # 75 tables of four: the first of each four makes it, the others join it by id.
        for i in range(0, PEOPLE, 4):
            people[i].send({"op": "create", "game": "estimation", "length": 13})
        await asyncio.wait_for(asyncio.gather(*(people[i].joined.wait()
                                                for i in range(0, PEOPLE, 4))), 30)
        for i, p in enumerate(people):
            if i % 4:
                p.send({"op": "join", "table": people[i - i % 4].table})
        await asyncio.wait_for(asyncio.gather(*(p.joined.wait() for p in people)), 30)
        assert len({p.table for p in people}) == PEOPLE // 4
        # The room's own cost is what is bounded: the 300 clients of this process and
        # the flood compete with it for the two cores as other jobs do (under the
        # suite's four workers they kept p95 at 288 ms against a bound of 275 ms that
        # counted them as the room's).
        others = OtherLoad([server.pid])
        await asyncio.sleep(PLAY)
        for p in people:
            p.playing = False
        busy = others.factor()          # 1 on a quiet machine
        waits = sorted(w for p in people for w in p.waits)
        p95 = waits[int(len(waits) * 0.95) - 1]
        print(f"\n{PEOPLE} keyed players connected from one address in {connected:.1f} s; "
              f"{len(waits)} moves answered, p95 {p95 * 1000:.0f} ms, "
              f"max {waits[-1] * 1000:.0f} ms; other jobs' load x{busy:.1f}")
        assert all(p.acted >= 1 for p in people), [p.name for p in people if not p.acted]
        assert not [e for p in people for e in p.errors], \
            {e for p in people for e in p.errors}
        # 100 ms on a quiet machine; as much more as other jobs left us less of it
        assert p95 <= 0.1 * busy, f"p95 {p95 * 1000:.0f} ms (other jobs' load x{busy:.1f})"
        flood.kill()
        out = (await asyncio.wait_for(flood.communicate(), 10))[0].decode().split("\n")
        opened, refused, _ = (int(x) for x in [o for o in out if o.strip()][-1].split())
        print(f"flood from 127.0.0.2: {opened} connections opened that never "
              f"authenticated, {refused} not accepted")
        assert opened > 16                      # it really flooded
    finally:
        for task in readers:
            task.cancel()
        for p in people:
            if p.conn is not None:
                p.conn.close()
        for proc in (flood, server):
            await stop_process(proc)
