"""``lamma admin``: an operator's commands from the server machine.

The running server listens on a Unix socket in its data folder (``DATA/admin.sock``,
mode 0600 in a 0700 folder: only the account that runs the room can reach it); each
line is one command, as an operator types it in the room (``kick bob spam``), and the
answer is one JSON line. Nothing here listens on the network.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol, TypedDict

from engine.room import RoomError

log = logging.getLogger("lamma.admin")

SOCKET_NAME = "admin.sock"
MAX_LINE = 4096


class Listening(TypedDict):
    """The answer to ``ping`` (``RoomService.listening``, read by ``lamma health``):
    where the room listens, whether connections begin with a PROXY header, whether a
    probe from this machine is let through, whether it is restarting."""
    listen: list[list[Any]]         # [host, port] of each listening socket
    proxy: bool
    probe: bool
    draining: bool


class Operator(Protocol):
    """Moderation (server/moderation.py), as the socket's commands reach it."""

    def admin(self, line: str) -> str: ...


async def serve_admin(moderation: Operator, ping: Callable[[], Listening],
                      data: Path) -> asyncio.AbstractServer:
    """The socket; each line ``moderation``'s command, or ``ping`` (``lamma health``:
    where the room listens)."""
    path = data / SOCKET_NAME
    path.unlink(missing_ok=True)       # left by a server that was killed

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    line = await reader.readuntil(b"\n")
                except asyncio.IncompleteReadError as e:
                    line = e.partial
                except asyncio.LimitOverrunError:
                    break
                if not line.strip():
                    break
                answer: Mapping[str, object]
                try:
                    if line.strip() == b"ping":         # lamma health (server/health.py)
                        answer = ping()
                    else:
                        answer = {"reply": moderation.admin(line.decode("utf-8", "replace"))}
                except RoomError as exc:
                    answer = {"error": str(exc)}
                except Exception:
                    log.exception("admin command failed")
                    answer = {"error": "That could not be done (server error)."}
                writer.write((json.dumps(answer, ensure_ascii=False) + "\n").encode())
                await writer.drain()
        finally:
            writer.close()

    old = os.umask(0o177)                # the socket is born 0600
    try:
        server = await asyncio.start_unix_server(handle, path=str(path), limit=MAX_LINE)
    finally:
        os.umask(old)
    return server


def exchange(path: Path, line: str, timeout: float = 10) -> bytes:
    """One line to the socket at ``path``, and its answer's line (OSError if nothing
    answers there)."""
    import socket
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(str(path))
        sock.sendall(line.encode() + b"\n")
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            buf += chunk
    return buf


def ask_admin(data: Path, line: str, timeout: float = 10) -> str | None:
    """One command to the room running on ``data``; its answer (or its refusal, in
    words), or None if no room answers there."""
    try:
        answer = json.loads(exchange(data / SOCKET_NAME, line, timeout))
    except (OSError, ValueError):
        return None
    return str(answer.get("reply", answer.get("error", "")))


def run_admin(data: Path, words: list[str]) -> int:
    """The CLI side: send one command, print the answer; 0 if done, 1 if refused."""
    path = data / SOCKET_NAME
    line = " ".join(words) or "help"
    try:
        buf = exchange(path, line)
    except OSError as exc:
        print(f"lamma: no running room answers at {path} ({exc.strerror or exc}); is "
              "`lamma serve` running with this --data?")
        return 1
    try:
        answer = json.loads(buf)
    except ValueError:
        print("lamma: the server's answer could not be read")
        return 1
    if "error" in answer:
        print(answer["error"])
        return 1
    print(answer["reply"])
    return 0
