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
