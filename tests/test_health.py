"""``lamma health`` (issue 45): the container's health check follows the port the room
really listens on and works under --proxy-protocol (it was fixed to port 2222, and a
room behind a balancer waits for a PROXY header before its banner)."""

from __future__ import annotations

import asyncio
import io
import re
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from conftest import start_room, stop_room
from procs import LISTENING, stop_process, wait_line

from server.health import run_health
from server.proxyproto import parse_networks

ROOT = Path(__file__).resolve().parents[1]


async def health(data: Path) -> tuple[int, str]:
    """run_health in a thread (the room answers on this loop)."""
    def run() -> tuple[int, str]:
        out = io.StringIO()
        with redirect_stdout(out):
            code = run_health(data, 3.0)
        return code, out.getvalue()
    return await asyncio.to_thread(run)


@pytest.mark.parametrize("proxy", [False, True], ids=["plain", "proxy-protocol"])
async def test_health_follows_the_port_and_the_proxy_header(tmp_path, proxy):
    srv = await start_room(tmp_path, proxy_protocol=proxy)
    try:
        code, said = await health(tmp_path / "data")
        assert code == 0, said
        assert re.match(rf"healthy: SSH-2\.0-\S+ on port {srv.port}\b", said), said
        assert ("behind a PROXY header" in said) == proxy
        srv.room.start_drain(30)
        code, said = await health(tmp_path / "data")
        assert code == 1 and "restarting" in said, said
    finally:
        await stop_room(srv)
    code, said = await health(tmp_path / "data")
    assert code == 1 and said.startswith("unhealthy: no room answers"), said


async def test_behind_balancers_that_are_not_this_machine(tmp_path):
    srv = await start_room(tmp_path, proxy_protocol=True,
                           proxy_from=parse_networks("192.0.2.10"))
    try:
        code, said = await health(tmp_path / "data")
        assert code == 0 and "left to the balancer" in said, said
    finally:
        await stop_room(srv)


@pytest.mark.slow
async def test_lamma_health_from_outside_on_a_port_set_by_the_environment(tmp_path):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"PATH": "/usr/bin:/bin", "LAMMA_PORT": str(port),
           "LAMMA_DATA": str(tmp_path / "data"), "LAMMA_KEYS": str(tmp_path / "keys")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", "--proxy-protocol", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        assert proc.stdout is not None
        await wait_line(proc.stdout, LISTENING, 20)
        check = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server.cli", "health", "--data", str(tmp_path / "data"),
            cwd=ROOT, env={"PATH": "/usr/bin:/bin"}, stdout=asyncio.subprocess.PIPE)
        out = (await asyncio.wait_for(check.communicate(), 30))[0].decode()
        assert check.returncode == 0, out
        assert f"on port {port} behind a PROXY header" in out, out
    finally:
        await stop_process(proc)
