"""Admission that spares the shared address (issue 45), from outside: a real ``lamma
serve`` with the production limits; 300 people with their own keys behind one address
start together (no pacing: the issue's club night, where 16–32 of 300 got in before) and
every one of them is admitted, while 30 guests at once from another address still meet
the guest cap, in its words."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import asyncssh
import pytest
from procs import LISTENING, stop_process, wait_line

ROOT = Path(__file__).resolve().parents[1]
PEOPLE = 300
GUESTS = 30
pytestmark = pytest.mark.slow


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def drain(stream: asyncio.StreamReader, into: list[bytes]) -> None:
    """The server's output read on (a pipe left full would stop it)."""
    while line := await stream.readline():
        into.append(line)


async def keyed(port: int, name: str, key: asyncssh.SSHKey) -> str:
    """Connects, opens a program session and has one answer: "in", or why not."""
    try:
        conn = await asyncssh.connect("127.0.0.1", port, username=name, known_hosts=None,
                                      client_keys=[key], agent_path=None,
                                      preferred_auth="publickey", login_timeout=60)
    except (asyncssh.Error, OSError) as e:
        return f"refused: {e}"
    try:
        proc = await conn.create_process("play", encoding=None)
        proc.stdin.write(b'{"op":"tables"}\n')
        async with asyncio.timeout(60):
            while line := await proc.stdout.readline():
                msg = json.loads(line)
                if msg.get("type") == "tables":
                    return "in"
                if msg.get("type") in ("error", "bye"):
                    return f"refused: {msg}"
        return "refused: the session ended"
    finally:
        conn.close()


async def guest(port: int, name: str, held: list) -> str:
    try:
        conn = await asyncssh.connect(
            "127.0.0.1", port, username=name, known_hosts=None, client_keys=None,
            agent_path=None, password="guest", preferred_auth="keyboard-interactive",
            local_addr=("127.0.0.2", 0), login_timeout=60)
    except (asyncssh.Error, OSError) as e:
        return str(e)
    held.append(conn)           # a guest holds its place until the test ends
    return "in"


async def test_three_hundred_keyed_players_start_together_and_all_get_in(tmp_path):
    port = free_port()
    keys = {f"p{i:03d}": asyncssh.generate_private_key("ssh-ed25519") for i in range(PEOPLE)}
    # People who have played here before (issue 40 limits new names from one address):
    # their names are theirs in the store before the room starts.
    from server.store import Store
    (tmp_path / "data").mkdir()
    known = Store(tmp_path / "data" / "lamma.db")
    for name, key in keys.items():
        assert known.bind(name, key.get_fingerprint("sha256"))
    known.close()
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", "--port", str(port),
        "--data", str(tmp_path / "data"), "--keys", str(tmp_path / "keys"),
        "--status-every", "0", cwd=ROOT, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT)
    out: list[bytes] = []
    held: list[asyncssh.SSHClientConnection] = []
    reader = None
    try:
        assert server.stdout is not None
        await wait_line(server.stdout, LISTENING, 20, out)
        reader = asyncio.ensure_future(drain(server.stdout, out))
        started = time.monotonic()
        results = await asyncio.wait_for(asyncio.gather(
            *(keyed(port, name, key) for name, key in keys.items()),
            *(guest(port, f"g{i:02d}", held) for i in range(GUESTS))), 240)
        took = time.monotonic() - started
        people, guests = results[:PEOPLE], results[PEOPLE:]
        print(f"\n{PEOPLE} keyed players at once from one address: "
              f"{people.count('in')} in, in {took:.1f} s; {GUESTS} guests at once from "
              f"another: {guests.count('in')} in")
        assert people.count("in") == PEOPLE, sorted(set(people) - {"in"})
        # The guests' address still holds 16 guests at once, and says so.
        refused = [g for g in guests if g != "in"]
        assert guests.count("in") == 16 and len(refused) == GUESTS - 16, guests
        assert any("at most 16 guests at once" in g for g in refused), refused
        assert all("Too many connections from your address" in g or "too fast" in g
                   for g in refused), refused
    finally:
        for conn in held:
            conn.close()
        await stop_process(server)
        if reader is not None:
            reader.cancel()
