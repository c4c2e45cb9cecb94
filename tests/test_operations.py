"""Operations: several ``lamma serve`` processes on one machine share one port
(``--reuse-port``, SO_REUSEPORT) and one host key (one ``--keys`` folder)."""

from __future__ import annotations

import asyncio
import json
import socket
import stat
import sys
import time
from pathlib import Path

import asyncssh
import pytest
from procs import LISTENING, stop_process, wait_line

from server.service import RoomConfig
from server.ssh import HOST_KEY_NAME, start_server

ROOT = Path(__file__).resolve().parents[1]
CONNECTIONS = 20


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def serve(port: int, data: Path, keys: Path, *extra: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", "--port", str(port),
        "--data", str(data), "--keys", str(keys), *extra,
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)


async def started(proc: asyncio.subprocess.Process, seen: list | None = None) -> str:
    """The host-key fingerprint a started server prints (after its "listening" line;
    what it printed before is passed over, and kept in ``seen``)."""
    assert proc.stdout is not None
    seen = [] if seen is None else seen
    await wait_line(proc.stdout, LISTENING, 20, seen)
    said = (await wait_line(proc.stdout, "Host key fingerprint: ", 5, seen)).decode()
    assert said.startswith("Host key fingerprint: "), said
    return said.split(": ", 1)[1].strip()


async def reply(proc, mtype: str, timeout: float = 5.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"no {mtype!r} within {timeout} s"
        line = await asyncio.wait_for(proc.stdout.readline(), left)
        assert line, f"closed while waiting for {mtype!r}"
        msg = json.loads(line)
        assert msg.get("type") != "error", msg
        if msg.get("type") == mtype:
            return msg


@pytest.mark.slow          # two real server processes
async def test_two_processes_share_one_port_and_one_host_key(tmp_path):
    port, keys = free_port(), tmp_path / "keys"        # keys: empty, made at the start
    procs = []
    conns: list[asyncssh.SSHClientConnection] = []
    try:
        # Started together on an empty keys folder: both must take one key. Each new
        # player below is a new name from one address: the room's cap on those is
        # raised, as a trusted network's would be (tests/test_room_shares.py keeps it).
        cfg = tmp_path / "many-names.toml"
        cfg.write_text("[limits]\nnew-names-per-hour = 1000\n")
        for name in ("a", "b"):
            procs.append(await serve(port, tmp_path / name, keys, "--reuse-port",
                                     "--process-name", name, "--config", str(cfg)))
        printed = await asyncio.gather(*(started(p) for p in procs))
        on_disk = asyncssh.read_public_key(str(keys / (HOST_KEY_NAME + ".pub")))
        assert printed == [on_disk.get_fingerprint("sha256")] * 2
        assert sorted(p.name for p in keys.iterdir()) == [HOST_KEY_NAME, HOST_KEY_NAME + ".pub"]
        assert stat.S_IMODE((keys / HOST_KEY_NAME).stat().st_mode) == 0o600

        # Each process is its own room (its own SQLite): the first connection to reach
        # a process finds its lobby empty and makes a table there; every later one that
        # reaches it finds that table, and so says which process answered.
        answered: dict[str, int] = {}
        seen_keys = set()
        for i in range(CONNECTIONS):
            conn = await asyncssh.connect(
                "127.0.0.1", port, username=f"p{i}", known_hosts=None, agent_path=None,
                client_keys=[asyncssh.generate_private_key("ssh-ed25519")],
                preferred_auth="publickey")
            host_key = conn.get_server_host_key()
            assert host_key is not None
            seen_keys.add(host_key.get_fingerprint("sha256"))
            proc = await conn.create_process("play", encoding=None)
            proc.stdin.write(b'{"op":"tables"}\n')
            tables = (await reply(proc, "tables"))["tables"]
            if not tables:
                proc.stdin.write(b'{"op":"create","game":"tarneeb41"}\n')
                await reply(proc, "joined")
                answered[f"p{i}"] = 1
                conns.append(conn)          # the table's creator stays
                continue
            assert len(tables) == 1, tables
            creator = tables[0]["seats"][0]["name"]
            answered[creator] += 1
            conn.close()
        assert seen_keys == {on_disk.get_fingerprint("sha256")}
        assert len(answered) == 2, f"one process answered every connection: {answered}"
        assert sum(answered.values()) == CONNECTIONS
        assert all(p.returncode is None for p in procs)

        # Off by default: a process without --reuse-port cannot take the port.
        third = await serve(port, tmp_path / "c", keys)
        procs.append(third)
        out = (await asyncio.wait_for(third.communicate(), 10))[0].decode()
        assert third.returncode == 1, out
        assert "cannot start" in out and "address already in use" in out, out
    finally:
        for conn in conns:
            conn.close()
        for p in procs:
            await stop_process(p)


@pytest.mark.parametrize("platform", ["no SO_REUSEPORT", "refused"])
async def test_reuse_port_where_the_platform_lacks_it(tmp_path, monkeypatch, platform):
    """A clear refusal before anything is opened, not asyncio's ValueError."""
    if platform == "no SO_REUSEPORT":
        monkeypatch.delattr(socket, "SO_REUSEPORT", raising=False)
        said = "this platform has no SO_REUSEPORT"
    else:
        monkeypatch.setattr(socket, "SO_REUSEPORT", 0x7FFF, raising=False)   # no such option
        said = "SO_REUSEPORT is refused here"
    config = RoomConfig(data=tmp_path / "data", keys=tmp_path / "keys", reuse_port=True)
    with pytest.raises(OSError, match=said) as refused:
        await start_server(config, "127.0.0.1", 0)
    assert "--reuse-port" in str(refused.value) and "load balancer" in str(refused.value)
    assert not config.data.exists() and not config.keys.exists()
