"""``--log-format json`` (issue 28): one JSON object a line, with the fields an operator
filters on (session, name, address, table, event) where they are known."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path

import asyncssh
import pytest
from procs import LISTENING, stop_process, wait_line

from server.logs import JsonFormatter

ROOT = Path(__file__).resolve().parents[1]


def test_a_record_with_its_fields():
    record = logging.LogRecord("lamma.ssh", logging.INFO, __file__, 1, "hello %s", ("ana",),
                               None)
    for key, value in {"session": "s3", "player": "ana", "address": "203.0.113.9",
                       "table": "12", "event": "session-open"}.items():
        setattr(record, key, value)
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "hello ana" and line["level"] == "INFO"
    assert line["logger"] == "lamma.ssh" and line["time"].endswith("Z")
    assert {k: line[k] for k in ("session", "name", "address", "table", "event")} == {
        "session": "s3", "name": "ana", "address": "203.0.113.9", "table": "12",
        "event": "session-open"}
    plain = logging.LogRecord("lamma", logging.WARNING, __file__, 1, "plain", (), None)
    assert set(json.loads(JsonFormatter().format(plain))) == {"time", "level", "logger",
                                                              "message"}


@pytest.mark.slow
async def test_lamma_serve_logs_json_lines(tmp_path):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--data",
        str(tmp_path / "data"), "--keys", str(tmp_path / "keys"), "--log-format", "json",
        "--log-level", "INFO", "--status-every", "0", cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        await wait_line(proc.stdout, LISTENING, 20)
        conn = await asyncssh.connect("127.0.0.1", port, username="ana", known_hosts=None,
                                      client_keys=[asyncssh.generate_private_key(
                                          "ssh-ed25519")], agent_path=None)
        p = await conn.create_process("play", encoding=None)
        await asyncio.wait_for(p.stdout.readline(), 10)
        conn.close()
        seen = []

        def session_close(line: bytes) -> bool:
            try:
                seen.append(json.loads(line))       # every line is one JSON object
            except ValueError:
                raise AssertionError(f"not a JSON line: {line!r}") from None
            return seen[-1].get("event") == "session-close"
        await wait_line(proc.stderr, session_close, 10)
        opened = next(e for e in seen if e.get("event") == "session-open")
        assert opened["name"] == "ana" and opened["address"] == "127.0.0.1"
        assert opened["session"].startswith("s") and opened["level"] == "INFO"
    finally:
        await stop_process(proc, grace=10)


class Stream:
    """Every line of one of the server's streams, read as it comes (a full pipe would
    stop the server), each checked to be one JSON object."""

    def __init__(self, stream: asyncio.StreamReader, name: str):
        self.lines: list[dict] = []
        self.bad: list[bytes] = []
        self.name = name
        self.task = asyncio.ensure_future(self._read(stream))

    async def _read(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            try:
                obj = json.loads(line)
                assert isinstance(obj, dict)
                self.lines.append(obj)
            except (ValueError, AssertionError):
                self.bad.append(line)

    async def wait(self, check, timeout: float = 15) -> dict:
        """The first line (from the start) for which ``check`` holds."""
        async with asyncio.timeout(timeout):
            while True:
                for line in self.lines:
                    if check(line):
                        return line
                if self.task.done():
                    raise AssertionError(f"{self.name} ended: {self.lines[-5:]}")
                await asyncio.sleep(0.05)


@pytest.mark.slow
async def test_json_logs_from_start_to_stop_say_sessions_refusals_reloads_and_the_stop(
        tmp_path):
    """Issue 45, from outside: with --log-format json and the default level, every line
    on stdout and stderr of a start, sessions (one at a table of computer players, one
    refused), a reload and a stop is one JSON object; sessions and refusals are there
    with the address and the key; the reload says what changed, old → new, and tells
    systemd RELOADING=1 then READY=1; the stop says "stopped" and what it stored."""
    import signal
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = tmp_path / "lamma.toml"
    config.write_text(f'[serve]\nport = {port}\ndata = "{tmp_path / "data"}"\n'
                      f'keys = "{tmp_path / "keys"}"\nlog-format = "json"\n'
                      'status-every = 0.0\n\n[play]\nbot-pause = 0.0\n\n'
                      '[limits]\nguests-per-address = 16\n')
    where = tmp_path / "notify"
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(where))
    notify.setblocking(False)
    loop = asyncio.get_running_loop()
    env = {"NOTIFY_SOCKET": str(where), "PATH": "/usr/bin:/bin"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", "--config", str(config), cwd=ROOT,
        env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    out, err = Stream(proc.stdout, "stdout"), Stream(proc.stderr, "stderr")

    async def told() -> bytes:
        return await asyncio.wait_for(loop.sock_recv(notify, 200), 15)
    try:
        assert await told() == b"READY=1"
        banner = await out.wait(lambda e: e["message"].startswith(LISTENING))
        assert banner["event"] == "start"
        key = asyncssh.generate_private_key("ssh-ed25519")
        fp = key.get_fingerprint("sha256")
        conn = await asyncssh.connect("127.0.0.1", port, username="ana", known_hosts=None,
                                      client_keys=[key], agent_path=None)
        p = await conn.create_process("play", encoding=None)
        p.stdin.write(b'{"op":"create","game":"estimation","length":13,'
                      b'"computer":[1,2,3],"level":"easy"}\n')
        views = 0
        async with asyncio.timeout(30):
            # Ana plays her turns; the computer players think in worker processes,
            # whose output is the room's too.
            while views < 12:
                msg = json.loads(await p.stdout.readline())
                if msg.get("type") != "view":
                    continue
                views += 1
                view = msg["view"]
                if view.get("to_act") == 0 and view.get("legal"):
                    p.stdin.write((json.dumps({"op": "act", "action": view["legal"][0]})
                                   + "\n").encode())
        opened = await err.wait(lambda e: e.get("event") == "session-open")
        assert (opened["name"], opened["address"], opened["key"]) == ("ana", "127.0.0.1", fp)
        assert opened["level"] == "INFO" and fp in opened["message"]
        # A refusal at the default level: ana's name with another key.
        with pytest.raises((asyncssh.PermissionDenied, asyncssh.DisconnectError)):
            other = await asyncssh.connect(
                "127.0.0.1", port, username="ana", known_hosts=None, agent_path=None,
                client_keys=[asyncssh.generate_private_key("ssh-ed25519")],
                preferred_auth="publickey")
            other.close()
        refused = await err.wait(lambda e: e.get("event") == "refused")
        assert refused["address"] == "127.0.0.1" and refused["name"] == "ana"
        assert refused["reason"] == "auth-failed" and refused["level"] == "INFO"
        # A reload that changes one limit and one setting that waits for a restart.
        config.write_text(config.read_text().replace("guests-per-address = 16",
                                                     "guests-per-address = 8")
                          .replace(f"port = {port}", f"port = {port + 1}"))
        proc.send_signal(signal.SIGHUP)
        reloading = await told()
        assert reloading.startswith(b"RELOADING=1\nMONOTONIC_USEC="), reloading
        assert await told() == b"READY=1"
        reload = await err.wait(lambda e: e.get("event") == "reload" and "changes" in e)
        assert "[limits] guests-per-address 16 → 8" in reload["message"], reload
        assert f"Not applied until a restart: [serve] port {port} → {port + 1}" in \
            reload["message"], reload
        assert {"setting": "[limits] guests-per-address", "old": "16", "new": "8",
                "applied": True} in reload["changes"]
        # The port back as it runs: nothing differs from the running room now.
        config.write_text(config.read_text().replace(f"port = {port + 1}", f"port = {port}"))
        proc.send_signal(signal.SIGHUP)
        assert (await told()).startswith(b"RELOADING=1")
        assert await told() == b"READY=1"
        again = await err.wait(lambda e: e.get("event") == "reload"
                               and "nothing changed" in e["message"])
        assert again["changes"] == []
        conn.close()
        await err.wait(lambda e: e.get("event") == "session-close")
        proc.send_signal(signal.SIGTERM)
        assert await told() == b"STOPPING=1"
        await asyncio.wait_for(proc.wait(), 15)
        assert proc.returncode == 0
        await asyncio.wait_for(asyncio.gather(out.task, err.task), 5)
        stopped = next(e for e in err.lines if e.get("event") == "stop"
                       and e["message"].startswith("stopped"))
        # ana left her table to the computer players; it is kept, its match stored.
        assert stopped["stored"]["tables"] == 1 and stopped["stored"]["writes"] > 0
        assert stopped["stored"]["unstored"] == 0
        assert not out.bad and not err.bad, (out.bad, err.bad)
        assert all(line.get("logger") == "lamma.banner" for line in out.lines)
    finally:
        notify.close()
        await stop_process(proc, grace=10)
