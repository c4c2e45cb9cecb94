"""A throwaway PostgreSQL for the tests and benchmarks: started from the binaries on
this machine (initdb + postgres, as an unprivileged user when we run as root, on a Unix
socket in a temporary folder, no TCP port). The fixtures that use it are in conftest.py
(one server for the whole run, a fresh database for each test)."""

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
from pathlib import Path


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
                admin = psycopg.connect(url.format(db="postgres"), autocommit=True,
                                        connect_timeout=10)
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
