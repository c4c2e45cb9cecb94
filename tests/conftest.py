"""What the tests share: a real Lamma server on a free loopback port in temp dirs, SSH
clients (JSON lines, or a PTY rendered with pyte), the run's throwaway PostgreSQL, and
Textual set up once as ``lamma serve`` sets it up for every session."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import sys
import time
from pathlib import Path

import pytest

from server import runtime

# pytest keeps its assertion rewriting of each test module as bytecode, unless bytecode
# is not to be written (PYTHONDONTWRITEBYTECODE, set on our machines): then every
# process of a run rewrote every test module again, 8 s of CPU each (profiled: 11 of a
# collection's 15 s), five processes a run. The cache is __pycache__ (ignored by git).
sys.dont_write_bytecode = False

# As in the server: one App per session in one process (apps do not swap the process's
# stdout, CSS parsed once...): runtime.patch_textual, once for the whole run.
runtime.patch_textual()

ANSI_RE = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|.)")


class LammaServer:
    def __init__(self, server, room, port: int):
        self.server = server
        self.room = room
        self.port = port
        self.registry = room.registry
        self._keys: dict[str, object] = {}

    def key(self, label: str):
        import asyncssh
        if label not in self._keys:
            self._keys[label] = asyncssh.generate_private_key("ssh-ed25519")
        return self._keys[label]

    async def connect(self, name: str, key=None, keyless: bool = False):
        import asyncssh
        kwargs = dict(username=name, known_hosts=None)
        if keyless:
            kwargs.update(client_keys=None, agent_path=None, password="guest",
                          preferred_auth="keyboard-interactive")
        else:
            kwargs.update(client_keys=[key if key is not None else self.key(name)], agent_path=None,
                          preferred_auth="publickey")
        return await asyncssh.connect("127.0.0.1", self.port, **kwargs)

    async def json_client(self, name: str, key=None) -> JsonClient:
        conn = await self.connect(name, key)
        proc = await conn.create_process("play", encoding=None)
        return JsonClient(conn, proc)

    async def guest_client(self, name: str) -> JsonClient:
        """A JSON session of a guest (no key) under ``name``."""
        conn = await self.connect(name, keyless=True)
        return JsonClient(conn, await conn.create_process("play", encoding=None))

    async def first_reply(self, name: str, key=None, keyless: bool = False,
                          line: bytes = b'{"op":"tables"}\n') -> dict:
        """The first JSON line a new session under ``name`` gets after sending ``line``
        (a refusal arrives before it is read); the connection is then closed."""
        conn = await self.connect(name, key=key, keyless=keyless)
        proc = await conn.create_process("play", encoding=None)
        try:
            proc.stdin.write(line)
        except BrokenPipeError:
            pass                        # refused and closed already: its line is waiting
        try:
            return json.loads(await reply_line(proc.stdout))
        finally:
            conn.close()

    async def pty_client(self, name: str, size=(80, 24), key=None,
                         term: str = "xterm-256color", screen_size=None) -> PtyClient:
        conn = await self.connect(name, key)
        proc = await conn.create_process(term_type=term, term_size=size, encoding=None)
        client = PtyClient(conn, proc, screen_size or size)
        client.name = name
        return client


async def reply_line(stdout, timeout: float = 5) -> bytes:
    """The next line a program is sent after the server's hello (every program is first
    told the protocol's version: docs/protocol.md)."""
    while True:
        line = await asyncio.wait_for(stdout.readline(), timeout)
        if not line.startswith(b'{"type":"hello"'):
            return line


class JsonClient:
    def __init__(self, conn, proc):
        self.conn = conn
        self.proc = proc
        self.messages: asyncio.Queue = asyncio.Queue()
        self.view: dict | None = None
        self.errors: list[str] = []
        self.bytes_in = 0
        self.hello: dict | None = None      # the server's first line (its protocol)
        self._task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                await self.messages.put(None)
                return
            self.bytes_in += len(line)
            msg = json.loads(line)
            if msg.get("type") == "hello":
                self.hello = msg
                continue
            if msg.get("type") == "view":
                self.view = msg["view"]
            elif msg.get("type") == "error":
                self.errors.append(msg["message"])
            await self.messages.put(msg)

    def send(self, obj) -> None:
        data = obj if isinstance(obj, (bytes, str)) else json.dumps(obj)
        if isinstance(data, str):
            data = data.encode()
        if not data.endswith(b"\n"):
            data += b"\n"
        self.proc.stdin.write(data)

    async def expect(self, mtype: str, timeout: float = 10.0) -> dict:
        return await self.expect_any((mtype,), timeout)

    async def expect_any(self, mtypes: tuple[str, ...], timeout: float = 10.0) -> dict:
        """The next message of any of these types."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {' or '.join(mtypes)!r} message")
            msg = await asyncio.wait_for(self.messages.get(), left)
            if msg is None:
                raise AssertionError(f"connection closed while waiting for {mtypes!r}")
            if msg.get("type") in mtypes:
                return msg

    def drain(self) -> list[dict]:
        out = []
        while not self.messages.empty():
            m = self.messages.get_nowait()
            if m is not None:
                out.append(m)
        return out

    async def close(self) -> None:
        self._task.cancel()
        self.conn.close()
        try:
            await asyncio.wait_for(self.conn.wait_closed(), 5)
        except Exception:
            pass


class PtyClient:
    def __init__(self, conn, proc, size):
        import pyte
        self.conn = conn
        self.proc = proc
        self.screen = pyte.Screen(*size)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.chunks: list[bytes] = []
        self.last_rx = time.monotonic()
        self.closed = False
        self._task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        try:
            while True:
                data = await self.proc.stdout.read(65536)
                if not data:
                    break
                self.raw.extend(data)
                self.chunks.append(data)
                self.last_rx = time.monotonic()
                self.stream.feed(data)
        finally:
            self.closed = True

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def plain_since(self, offset: int) -> str:
        """Text received since ``offset``: colour codes dropped, every other
        escape sequence (cursor moves...) becomes a line break, so text from
        different places on the screen is never glued together."""
        def sub(m):
            return b"" if m.group(0).endswith(b"m") else b"\n"
        return ANSI_RE.sub(sub, bytes(self.raw[offset:])).decode("utf-8", "replace")

    def press(self, *keys: str | bytes) -> None:
        names = {"enter": b"\r", "left": b"\x1b[D", "right": b"\x1b[C", "up": b"\x1b[A",
                 "down": b"\x1b[B", "escape": b"\x1b", "space": b" ", "tab": b"\t"}
        for k in keys:
            data = k if isinstance(k, bytes) else names.get(k, k.encode())
            self.proc.stdin.write(data)

    async def wait_for(self, text: str, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.text():
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not on screen:\n{self.text()}")
            await asyncio.sleep(0.02)

    async def quiet(self, period: float = 0.03, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() - self.last_rx < period and time.monotonic() < deadline:
            await asyncio.sleep(period / 3)

    async def close(self) -> None:
        self.conn.close()
        try:
            await asyncio.wait_for(self.conn.wait_closed(), 5)
        except Exception:
            pass
        self._task.cancel()


async def start_room(tmp_path: Path, **config) -> LammaServer:
    """A real server on a free loopback port, with RoomConfig's ``config`` (by default
    computer players that never move, so seats stay where a test puts them)."""
    from server.service import RoomConfig
    from server.ssh import start_server

    settings = {"bot_pause": 3600.0, "trick_pause": 0.0, **config}
    keys = settings.pop("keys", tmp_path / "keys")
    cfg = RoomConfig(data=tmp_path / "data", keys=keys, **settings)
    server, room, _ = await start_server(cfg, "127.0.0.1", 0)
    return LammaServer(server, room, server.sockets[0].getsockname()[1])


async def stop_room(srv: LammaServer) -> None:
    srv.server.close()
    for member in list(srv.room.online.values()):
        try:
            member.kick("test over")
        except Exception:
            pass
    await asyncio.sleep(0.05)
    for task in list(srv.room.session_tasks):
        task.cancel()
    srv.room.close()


@pytest.fixture
async def room(tmp_path: Path):
    """A real server whose computer players never move: seats stay where a test puts
    them (the tests of identity, limits, names and the hostile battery)."""
    srv = await start_room(tmp_path)
    try:
        yield srv
    finally:
        await stop_room(srv)


@pytest.fixture
async def lamma_server(tmp_path: Path):
    """A real server on a free loopback port; computer players move at once."""
    srv = await start_room(tmp_path, bot_pause=0.0)
    try:
        yield srv
    finally:
        await stop_room(srv)


# ------------------------------------------------------------- PostgreSQL
@pytest.fixture(scope="session")
def postgres():
    """One throwaway PostgreSQL for the whole run (tests/pg.py): (URL template with
    {db}, an admin connection). Skipped with the reason where it cannot be had."""
    from pg import throwaway_postgres, why_not

    reason = why_not()
    if reason:
        pytest.skip(reason)
    with throwaway_postgres() as server:
        yield server


_fresh_db = itertools.count(1)


@pytest.fixture
def pg_url(postgres):
    """A URL to a new, empty database on the run's PostgreSQL."""
    url, admin = postgres
    name = f"t{next(_fresh_db)}"
    admin.execute(f"CREATE DATABASE {name}")
    return url.format(db=name)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="write tests/golden/ again from the screens as they are now "
                          "(review the diff before committing)")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The collector's timing callback (runtime.measure_gc, as the server installs it)
    goes with the run: else the collections at the interpreter's exit log 'slow
    collection' warnings after pytest's summary."""
    import gc
    if runtime._on_gc in gc.callbacks:
        gc.callbacks.remove(runtime._on_gc)

