"""``lamma check`` (issue 28): before the room starts, each kind of problem found and
said in one line, the exit non-zero; a room ready to start passes."""

from __future__ import annotations

import io
import os
import socket
import sqlite3
from contextlib import redirect_stdout
from pathlib import Path

import asyncssh
import pytest

from server.cli import main
from server.ssh import HOST_KEY_NAME, load_host_key
from server.store import Store
from server.store.database import MIGRATIONS


def check(*argv: str) -> tuple[int, list[str]]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["check", *argv])
    return code, out.getvalue().splitlines()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def ready(tmp_path) -> tuple[Path, list[str]]:
    """A room ready to start: a host key, a database of this version, a free port."""
    keys, data = tmp_path / "keys", tmp_path / "data"
    load_host_key(keys)
    data.mkdir(mode=0o700)
    Store(data / "lamma.db").close()
    return tmp_path, ["--keys", str(keys), "--data", str(data), "--port", str(free_port())]


def test_a_ready_room_passes(ready):
    _, args = ready
    code, lines = check(*args)
    assert code == 0 and len(lines) == 1 and lines[0].startswith("Ready:"), lines


def test_the_keys_folder(ready):
    tmp, args = ready
    keys = tmp / "keys"
    host = keys / HOST_KEY_NAME
    host.chmod(0o644)
    op_key = asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode()
    (keys / "operators").write_text(f"# the operators\n{op_key}not a key at all\n")
    (keys / "authorized_keys").write_text(f'from="10.0.0.0/8" {op_key}ssh-ed25519 AAAA\n')
    code, lines = check(*args)
    assert code == 1
    assert len(lines) == 3, lines
    assert lines[0] == f"{host}: mode 0644, readable by others; chmod 600 it"
    assert lines[1].startswith(f"{keys / 'authorized_keys'}, line 2: not a public key (")
    assert lines[2].startswith(f"{keys / 'operators'}, line 3: not a public key (")
    host.unlink()
    # No host key yet: the first start makes one (issue 45), a note; the others stay.
    code, lines = check(*args)
    assert code == 1 and not any("no host key" in line for line in lines), lines
    (keys / "operators").unlink()
    (keys / "authorized_keys").unlink()
    code, lines = check(*args)
    assert code == 0 and lines[0].startswith(f"note: {host}: no host key yet; the first "
                                             "start makes one"), lines
    assert lines[-1].startswith("Ready:")
    # allow-list without a list to allow
    code, lines = check(*args, "--allow-list")
    assert any("authorized_keys: missing, and allow-list admits only" in x for x in lines)
    code, lines = check("--keys", str(tmp / "nowhere"), *args[2:])
    assert code == 0 and lines[0] == (f"note: {tmp / 'nowhere'}: the keys folder will be "
                                      "made at the first start, with a new host key in it "
                                      "(several processes or machines must share one: "
                                      "copy it there before)"), lines
    # ... unless it cannot be made there.
    locked = tmp / "locked"
    locked.mkdir(mode=0o500)
    try:
        if not os.access(locked, os.W_OK):      # (root may write anywhere)
            code, lines = check("--keys", str(locked / "keys"), *args[2:])
            assert code == 1 and lines[0] == (f"{locked / 'keys'}: the keys folder does not "
                                              f"exist, and {locked} does not let this "
                                              "account make it"), lines
    finally:
        locked.chmod(0o700)


def test_a_fresh_install_passes_with_notes(tmp_path):
    """Issue 45, from outside: nothing made yet (no keys folder, no data folder, no
    database): `lamma check` exits 0 and says what the first start makes, so a unit can
    run it before every start (ExecStartPre), the first included."""
    import subprocess
    import sys
    root = Path(__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, "-m", "server.cli", "check", "--keys",
                          str(tmp_path / "keys"), "--data", str(tmp_path / "data"),
                          "--port", str(free_port())], cwd=root, capture_output=True,
                         text=True, timeout=60, env={"PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run
    lines = run.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["note", "note", "note", "Ready"], lines
    assert "the data folder will be made at the first start" in lines[0]
    assert "the keys folder will be made at the first start" in lines[1]
    assert f"database {tmp_path / 'data' / 'lamma.db'}: the first start makes it" in lines[2]
    assert not (tmp_path / "keys").exists() and not (tmp_path / "data").exists()
    assert run.stderr == "", run.stderr


def test_the_database(ready):
    tmp, args = ready
    db = tmp / "data" / "lamma.db"
    with sqlite3.connect(db) as c:
        c.execute("UPDATE schema_version SET version = ?", (len(MIGRATIONS) + 1,))
    code, lines = check(*args)
    assert code == 1 and lines == [f"database {db}: schema version {len(MIGRATIONS) + 1}, "
                                   f"newer than this Lamma's ({len(MIGRATIONS)}); run the "
                                   "newer version"], lines
    with sqlite3.connect(db) as c:
        c.execute("UPDATE schema_version SET version = 2")
    code, lines = check(*args)
    assert code == 1 and "migrates it at start (back it up first)" in lines[0], lines
    db.write_bytes(b"this is not a database" * 100)
    code, lines = check(*args)
    assert code == 1 and lines[0].startswith(f"database {db}: not a usable Lamma database")
    # PostgreSQL that does not answer
    code, lines = check(*args, "--database", "postgresql://lamma@127.0.0.1:1/lamma")
    assert code == 1 and any("not reachable" in x for x in lines), lines
    assert all("@127.0.0.1:1" in x or "database" not in x for x in lines)


def test_the_port_and_the_data_folder(ready):
    tmp, args = ready
    port = int(args[-1])
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen()
        code, lines = check(*args)
    assert code == 1 and lines == [f"port {port} on 127.0.0.1: cannot listen (Address "
                                   "already in use)"], lines
    (tmp / "file").write_text("")
    code, lines = check(*args[:2], "--data", str(tmp / "file"), *args[4:])
    assert code == 1 and lines[0] == f"{tmp / 'file'}: the data folder is not a folder"


def test_a_bad_configuration_is_said_before_anything(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("[serve]\nport = 2222\nguests = maybe\n")
    err = io.StringIO()
    from contextlib import redirect_stderr
    with redirect_stderr(err):
        assert main(["check", "--config", str(path)]) == 2
    assert f"{path}, line 3: not TOML" in err.getvalue()
