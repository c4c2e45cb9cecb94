"""The store's behaviours on a real, throwaway PostgreSQL (issue 6: several server
processes sharing players, statistics and finished matches through the same SQL).

The server is started once for this module from the PostgreSQL binaries on this
machine (initdb + postgres, as an unprivileged user when we are root, on a Unix
socket in a temporary folder, no TCP port), and every test gets a fresh database.
Skipped, with the reason, when psycopg or the binaries are missing.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from contextlib import contextmanager
from itertools import count
from pathlib import Path

import pytest
from stacked import random_match

# The behaviours shared with SQLite: collected here again, with this module's `opener`.
from test_store import (  # noqa: F401
    stored,
    test_actions_survive_reopen_and_replay,
    test_badge_at_fifth_win,
    test_computer_player_means_statistics_only,
    test_each_process_resumes_only_its_own_matches,
    test_leaderboard_orders_by_points,
    test_name_binding_first_key_wins,
    test_newer_schema_refused,
    test_processes_starting_together_migrate_once,
    test_result_recorded_once_with_points,
    test_settings_and_profile_since,
    test_two_processes_finish_one_match_once,
    test_v2_database_opens_after_upgrade,
)

from server.store import Store, StoreError


def postgres_bin() -> Path | None:
    """The folder with initdb and postgres: $LAMMA_PG_BIN, PATH, or Debian's layout."""
    candidates = [os.environ.get("LAMMA_PG_BIN", "")]
    if shutil.which("initdb"):
        candidates.append(str(Path(shutil.which("initdb")).parent))
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                         key=lambda p: int(p.split("/")[-2]) if p.split("/")[-2].isdigit() else 0,
                         reverse=True)
    for c in candidates:
        if c and (Path(c) / "initdb").exists() and (Path(c) / "postgres").exists():
            return Path(c)
    return None


def why_not() -> str | None:
    """Why a throwaway PostgreSQL cannot be had here, or None."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg not installed (pip install 'lamma[postgres]')"
    if postgres_bin() is None:
        return ("PostgreSQL server binaries (initdb, postgres) not found; "
                "set LAMMA_PG_BIN or install postgresql")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("nobody")
        except KeyError:
            return "running as root and there is no 'nobody' user to run postgres as"
    return None


@contextmanager
def throwaway_postgres(durable: bool = False):
    """Start a private PostgreSQL; yields (conninfo template with {db}, admin connection).

    ``durable=False`` turns fsync off (tests: faster, and a crash of this server loses
    nothing we care about); the benchmark uses the default, durable settings.
    """
    import psycopg

    bindir = postgres_bin()
    root = Path(tempfile.mkdtemp(prefix="lamma-pg-"))
    # postgres refuses to run as root: as root, run it as 'nobody'.
    as_user: dict = {}
    if os.geteuid() == 0:
        pw = pwd.getpwnam("nobody")
        os.chown(root, pw.pw_uid, pw.pw_gid)
        as_user = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}
    data = root / "data"
    proc = None
    try:
        init = subprocess.run([str(bindir / "initdb"), "-D", str(data), "-U", "lamma",
                               "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
                              capture_output=True, text=True, timeout=120, cwd=root, **as_user)
        if init.returncode != 0:
            raise RuntimeError(f"initdb failed: {init.stderr.strip()[-800:]}")
        options = ["-c", "listen_addresses=", "-k", str(root)]   # Unix socket only
        if not durable:
            options += ["-c", "fsync=off", "-c", "synchronous_commit=off",
                        "-c", "full_page_writes=off"]
        log = open(root / "postgres.log", "wb")
        proc = subprocess.Popen([str(bindir / "postgres"), "-D", str(data), *options],
                                stdout=log, stderr=subprocess.STDOUT, cwd=root, **as_user)
        log.close()
        url = f"postgresql://lamma@/{{db}}?host={root}"
        deadline = time.monotonic() + 30
        while True:
            try:
                admin = psycopg.connect(url.format(db="postgres"), autocommit=True)
                break
            except psycopg.OperationalError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("postgres did not start: " + (root / "postgres.log")
                                       .read_text(errors="replace")[-800:]) from None
                time.sleep(0.05)
        try:
            yield url, admin
        finally:
            admin.close()
    finally:
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGINT)                  # fast shutdown
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def postgres():
    reason = why_not()
    if reason:
        pytest.skip(reason)
    with throwaway_postgres() as server:
        yield server


_fresh = count(1)


@pytest.fixture
def pg_url(postgres):
    """A URL to a new, empty database on the throwaway server."""
    url, admin = postgres
    name = f"t{next(_fresh)}"
    admin.execute(f"CREATE DATABASE {name}")
    return url.format(db=name)


@pytest.fixture
def opener(pg_url):
    opened = []

    def open_(process=""):
        opened.append(Store(pg_url, process=process))
        return opened[-1]

    yield open_
    for s in opened:
        try:
            s.close()
        except Exception:
            pass


# ---- PostgreSQL's own ----------------------------------------------------------------

def test_postgres_schema_is_its_own_dialect(opener):
    s = opener()
    assert s.kind == "postgres" and s.path is None
    types = dict(s._x("SELECT column_name, data_type FROM information_schema.columns "
                      "WHERE table_name = 'matches'").fetchall())
    # REAL would be 4 bytes on PostgreSQL; ids are 64-bit serials.
    assert types["created"] == "double precision" and types["finished"] == "double precision"
    assert types["id"] == "bigint" and types["process"] == "text"


def test_backup_is_refused_with_pg_dump(opener, tmp_path):
    with pytest.raises(StoreError, match="pg_dump"):
        opener().backup(tmp_path / "copy.db")


def test_unreachable_database_is_a_clear_error_without_the_password(postgres):
    url, _ = postgres
    bad = url.format(db="no_such_db").replace("lamma@", "lamma:secret@")
    with pytest.raises(StoreError, match="cannot open the PostgreSQL database") as info:
        Store(bad)
    assert "secret" not in str(info.value) and "no_such_db" in str(info.value)


def test_room_restores_only_its_process_tables(pg_url, tmp_path):
    """The setting end to end: `RoomConfig(database=URL, process=NAME)` as `lamma serve
    --database URL --process-name NAME` builds it; each RoomService resumes its own table."""
    from server.service import RoomConfig, RoomService

    writer = Store(pg_url, process="east")
    m = random_match("estimation", 13, seed=8, until=25)
    mid = stored(writer, m)
    writer.close()
    rooms = []
    try:
        for name in ("east", "west"):
            rooms.append(RoomService(RoomConfig(data=tmp_path / name, keys=tmp_path / "keys",
                                         database=pg_url, process=name)))
        east, west = rooms
        assert east.restored == 1 and west.restored == 0
        [table] = east.registry.tables.values()
        assert table.match_id == mid and table.match.to_dict() == m.to_dict()
        assert west.registry.tables == {}
        assert not (tmp_path / "east" / "lamma.db").exists()     # nothing went to SQLite
    finally:
        for room in rooms:
            room.close()
