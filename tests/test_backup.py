"""Backups that restore (issue 45): ``lamma backup PATH`` (a folder gets a dated file,
an existing file is kept without --force, PATH/ no longer crashes) and ``lamma restore
FILE`` (the room stopped, the file checked first, the database it replaces kept), from
outside with real ``lamma`` processes."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import asyncssh
import pytest
from procs import LISTENING, stop_process, wait_line

from server.store import Store
from server.store.database import MIGRATIONS

ROOT = Path(__file__).resolve().parents[1]


def lamma(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "server.cli", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", **(env or {})})


def names(db: Path) -> list[str]:
    c = sqlite3.connect(db)
    try:
        return sorted(r[0] for r in c.execute("SELECT name FROM players"))
    finally:
        c.close()


@pytest.fixture
def data(tmp_path) -> Path:
    """A data folder whose database knows ana and bo."""
    d = tmp_path / "data"
    s = Store(d / "lamma.db")
    s.bind("ana", "SHA256:a")
    s.bind("bo", "SHA256:b")
    s.close()
    return d


@pytest.mark.slow       # the full suite's (the fast tier's 90 s)
def test_a_folder_gets_a_dated_file_and_a_file_is_kept_without_force(tmp_path, data):
    # PATH/ that does not exist yet: made, and a dated file in it (it crashed before).
    run = lamma("backup", f"{tmp_path / 'backups'}/", "--data", str(data))
    assert run.returncode == 0, run.stderr
    (made,) = (tmp_path / "backups").iterdir()
    assert re.fullmatch(r"lamma-\d{4}-\d\d-\d\dT\d{6}Z\.db", made.name), made
    assert names(made) == ["ana", "bo"] and f"to {made}" in run.stdout
    assert made.stat().st_mode & 0o077 == 0              # private, as the database
    # An existing folder, without the slash: a dated file too.
    (tmp_path / "b2").mkdir()
    assert lamma("backup", str(tmp_path / "b2"), "--data", str(data)).returncode == 0
    assert len(list((tmp_path / "b2").iterdir())) == 1
    # An existing file is refused without --force, and left as it was.
    copy = tmp_path / "copy.db"
    copy.write_text("precious")
    run = lamma("backup", str(copy), "--data", str(data))
    assert run.returncode == 1 and "exists" in run.stderr and "--force" in run.stderr
    assert copy.read_text() == "precious"
    run = lamma("backup", str(copy), "--data", str(data), "--force")
    assert run.returncode == 0 and names(copy) == ["ana", "bo"]
    # One file, no -wal beside it; nothing half-written left.
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("copy")) == \
        ["copy.db"]
    # No database where it looks: said, and nothing made there.
    run = lamma("backup", str(tmp_path / "x.db"), "--data", str(tmp_path / "nowhere"))
    assert run.returncode == 1 and "no database at" in run.stderr
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.slow       # the full suite's (the fast tier's 90 s)
def test_restore_checks_the_file_first_and_keeps_the_database_it_replaces(tmp_path, data):
    copy = tmp_path / "copy.db"
    assert lamma("backup", str(copy), "--data", str(data)).returncode == 0
    s = Store(data / "lamma.db")
    s.bind("cy", "SHA256:c")                            # after the backup
    s.close()
    # Files that are not a backup to put back: refused, nothing changed.
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"not a database" * 100)
    newer = tmp_path / "newer.db"
    newer.write_bytes(copy.read_bytes())
    with sqlite3.connect(newer) as c:
        c.execute("UPDATE schema_version SET version = ?", (len(MIGRATIONS) + 1,))
    damaged = tmp_path / "damaged.db"
    raw = bytearray(copy.read_bytes())
    raw[5000:9000] = b"\xff" * 4000
    damaged.write_bytes(bytes(raw))
    for file, said in ((bad, "not a SQLite database"), (newer, "newer than this Lamma's"),
                       (damaged, "damaged"), (tmp_path / "gone.db", "no such file")):
        run = lamma("restore", str(file), "--data", str(data))
        assert run.returncode == 1 and said in run.stderr, (file, run.stderr)
        assert names(data / "lamma.db") == ["ana", "bo", "cy"]
    run = lamma("restore", str(copy), "--data", str(data))
    assert run.returncode == 0, run.stderr
    assert "(2 player(s), 0 match(es))" in run.stdout, run.stdout
    assert names(data / "lamma.db") == ["ana", "bo"]
    (kept,) = data.glob("lamma.db.before-restore-*")
    assert names(kept) == ["ana", "bo", "cy"] and f"kept as {kept}" in run.stdout
    assert (data / "lamma.db").stat().st_mode & 0o077 == 0


def test_postgres_is_sent_to_its_own_tools_without_the_password():
    url = "postgresql://lamma:secret@db.example/room"
    for command, tool in (("backup", "pg_dump"), ("restore", "pg_restore")):
        run = lamma(command, "x.db", "--database", url)
        assert run.returncode == 1 and tool in run.stderr, run.stderr
        assert "secret" not in run.stderr
    run = lamma("backup", "x.db", env={"LAMMA_SERVE_DATABASE": url})
    assert run.returncode == 1 and "pg_dump" in run.stderr and "secret" not in run.stderr


@pytest.mark.slow
async def test_backup_while_running_and_restore_once_stopped(tmp_path):
    """From outside: a running room backed up (its configuration from the
    environment), refused a restore while it runs, restored once stopped; the room
    started again has what the backup had."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"LAMMA_DATA": str(tmp_path / "data"), "LAMMA_KEYS": str(tmp_path / "keys"),
           "LAMMA_PORT": str(port), "LAMMA_SERVE_STATUS_EVERY": "0"}

    async def start() -> asyncio.subprocess.Process:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server.cli", "serve", cwd=ROOT,
            env={"PATH": "/usr/bin:/bin", **env},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        assert proc.stdout is not None
        await wait_line(proc.stdout, LISTENING, 20)
        return proc

    async def login(name: str, key) -> None:
        conn = await asyncssh.connect("127.0.0.1", port, username=name, known_hosts=None,
                                      client_keys=[key], agent_path=None)
        p = await conn.create_process("play", encoding=None)
        await asyncio.wait_for(p.stdout.readline(), 10)
        conn.close()

    keys = {n: asyncssh.generate_private_key("ssh-ed25519") for n in ("ana", "bo")}
    proc = await start()
    try:
        await login("ana", keys["ana"])
        run = await asyncio.to_thread(lamma, "backup", f"{tmp_path / 'backups'}/", env=env)
        assert run.returncode == 0, run.stderr
        (copy,) = (tmp_path / "backups").iterdir()
        await login("bo", keys["bo"])
        run = await asyncio.to_thread(lamma, "restore", str(copy), env=env)
        assert run.returncode == 1 and "the room is running" in run.stderr, run.stderr
        proc.send_signal(15)
        await asyncio.wait_for(proc.wait(), 15)
        run = await asyncio.to_thread(lamma, "restore", str(copy), env=env)
        assert run.returncode == 0, run.stderr
        proc = await start()
        assert names(tmp_path / "data" / "lamma.db") == ["ana"]
        # bo's name is free again; ana's is still hers.
        with pytest.raises(asyncssh.PermissionDenied):
            await login("ana", keys["bo"])
        await login("ana", keys["ana"])
    finally:
        await stop_process(proc)
