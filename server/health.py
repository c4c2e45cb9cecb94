"""``lamma health``: is the room alive, on the port it really listens on? For a
container's HEALTHCHECK (deploy/Containerfile) or a monitor on the machine.

The running room is asked through its admin socket (``ping``: RoomService.listening) (``DATA/admin.sock``: its loop
answers) where it listens and whether connections begin with a PROXY header; then that
port is reached on this machine and must answer with an SSH banner — after a PROXY v2
``LOCAL`` header, as a balancer's own health check sends, when --proxy-protocol is on
(the room keeps the real peer for it). So the check follows the configured port, however
it was configured (file, LAMMA_PORT, a flag), and works behind a balancer. With
--proxy-from naming no address of this machine the room would close the probe unread:
the port is then left to the balancer's checks, and the loop's answer is the health.
One line, exit 0 (healthy) or 1."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import cast

from .admin import SOCKET_NAME, Listening
from .proxyproto import V2_SIGNATURE

# A PROXY v2 header with the LOCAL command (the balancer's own connection: no address).
LOCAL_HEADER = V2_SIGNATURE + bytes([0x20, 0x00, 0x00, 0x00])


def ask(data: Path, timeout: float) -> Listening:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(str(data / SOCKET_NAME))
        sock.sendall(b"ping\n")
        buf = b""
        while not buf.endswith(b"\n") and len(buf) < 65536:
            chunk = sock.recv(4096)
            if not chunk:
                break
            buf += chunk
    answer = json.loads(buf)
    if not isinstance(answer, dict) or "listen" not in answer:
        raise ValueError(f"an answer that is not the room's: {buf[:80]!r}")
    return cast("Listening", answer)


def probe(host: str, port: int, proxy: bool, timeout: float) -> str:
    """The SSH banner at ``host:port`` (after a LOCAL header if ``proxy``)."""
    if host in ("0.0.0.0", "", "::"):
        host = "::1" if host == "::" else "127.0.0.1"
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        if proxy:
            sock.sendall(LOCAL_HEADER)
        buf = b""
        while b"\n" not in buf and len(buf) < 255:
            chunk = sock.recv(255)
            if not chunk:
                break
            buf += chunk
    line = buf.split(b"\n")[0].strip()
    if not line.startswith(b"SSH-2.0-"):
        raise ValueError(f"no SSH banner at {host}:{port} ({line[:40]!r})")
    return line.decode("ascii", "replace")


def run_health(data: Path, timeout: float = 3.0) -> int:
    started = time.monotonic()
    try:
        answer = ask(data, timeout)
    except (OSError, ValueError) as e:
        print(f"unhealthy: no room answers at {data / SOCKET_NAME} ({e})")
        return 1
    if answer.get("draining"):
        print("unhealthy: the room is restarting")
        return 1
    checked = []
    if answer.get("proxy") and not answer.get("probe"):
        checked.append("the port left to the balancer (--proxy-from names no address of "
                       "this machine)")
    else:
        for host, port in answer["listen"]:
            try:
                banner = probe(str(host), int(port), bool(answer.get("proxy")), timeout)
            except (OSError, ValueError) as e:
                print(f"unhealthy: the room answers, its port {port} does not ({e})")
                return 1
            checked.append(f"{banner} on port {port}"
                           + (" behind a PROXY header" if answer.get("proxy") else ""))
    print(f"healthy: {'; '.join(checked) or 'no listener'} "
          f"({(time.monotonic() - started) * 1000:.0f} ms)")
    return 0
