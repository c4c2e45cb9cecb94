"""``lamma backup PATH`` and ``lamma restore FILE`` (issue 45): a SQLite room's database
copied while the room runs, and put back while it is stopped.

A backup is SQLite's online backup (consistent while the room writes), made into a
hidden file beside the target and renamed into place once whole, so a backup is never
half a file; PATH a folder (one that exists, or a path ending in ``/``) gets a dated
file in it; an existing file is kept unless ``--force``. A restore checks the file
first (SQLite, whole — ``PRAGMA integrity_check`` —, a Lamma database of this version
or an older one, which the next start migrates), refuses while the room runs (its
``admin.sock`` answers), keeps the database it replaces beside it, and copies the file
in the same way. PostgreSQL has its own tools: ``pg_dump`` and ``pg_restore``
(docs/operations.md, "Backups")."""

from __future__ import annotations

import os
import socket
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from .store import StoreError, redact
from .store.database import MIGRATIONS, private_file

STAMP = "%Y-%m-%dT%H%M%SZ"


class BackupError(RuntimeError):
    """What stops a backup or a restore, in words; nothing was changed."""


def pg_words(url: str, what: str) -> str:
    where = redact(url)
    if what == "backup":
        return ("lamma backup copies a SQLite database; back up PostgreSQL with pg_dump, "
                f"e.g. pg_dump -Fc -f lamma-$(date +%F).dump '{where}'")
    return ("lamma restore puts back a SQLite database; with PostgreSQL, stop every "
            "process of the room and use pg_restore, e.g. pg_restore --clean --if-exists "
            f"-d '{where}' lamma.dump")


def _stamp() -> str:
    return time.strftime(STAMP, time.gmtime())


def target_of(path: str) -> Path:
    """Where a backup goes: ``path`` itself, or a dated file in it if it is a folder
    (one that exists, or a path ending in /, made if missing)."""
    p = Path(path)
    if path.endswith(("/", os.sep)) or p.is_dir():
        try:
            p.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as e:
            raise BackupError(f"{p}: cannot make the folder ({e.strerror or e})") from None
        return p / f"lamma-{_stamp()}.db"
    return p


def _copy(source: sqlite3.Connection, target: Path) -> None:
    """SQLite's online backup of ``source`` into ``target``, through a hidden file
    renamed into place once whole (0600: it holds private table codes)."""
    draft = target.with_name(f".{target.name}.{os.getpid()}.part")
    try:
        private_file(draft)
        dest = sqlite3.connect(draft)
        try:
            source.backup(dest)
            ok = dest.execute("PRAGMA quick_check").fetchone()[0]
            if ok != "ok":
                raise BackupError(f"the copy does not check out ({ok}); nothing written")
            # A single file: the copy is not left in WAL mode with -wal and -shm.
            dest.execute("PRAGMA journal_mode=DELETE")
        finally:
            dest.close()
        os.replace(draft, target)
    finally:
        draft.unlink(missing_ok=True)


def _read_only(path: Path) -> sqlite3.Connection:
    """``path`` opened to be read only; BackupError if it cannot be."""
    try:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise BackupError(f"{path}: cannot be read ({e})") from None


def backup(source: Path, path: str, force: bool = False) -> Path:
    """``source`` (a room's SQLite database, running or not) copied to ``path``; the
    file written."""
    if not source.is_file() or source.stat().st_size == 0:
        raise BackupError(f"no database at {source} (is --data, --database or the "
                          "configuration the room's?)")
    target = target_of(path)
    if target.exists() and not force:
        raise BackupError(f"{target} exists: give another name, a folder (a dated file "
                          "is made in it) or --force to replace it")
    if not target.parent.is_dir():
        raise BackupError(f"{target.parent}: no such folder")
    db = _read_only(source)
    try:
        _copy(db, target)
    except sqlite3.Error as e:
        raise BackupError(f"{source} -> {target}: {e}") from None
    finally:
        db.close()
    return target


@dataclass
class Contents:
    version: int
    players: int
    matches: int


def examine(path: Path) -> Contents:
    """``path`` checked as a Lamma database that may be put back: SQLite, whole, of this
    version or older; what it holds."""
    if not path.is_file():
        raise BackupError(f"{path}: no such file")
    with path.open("rb") as f:
        if f.read(16) != b"SQLite format 3\x00":
            raise BackupError(f"{path}: not a SQLite database")
    db = _read_only(path)
    try:
        ok = db.execute("PRAGMA integrity_check").fetchone()[0]
        if ok != "ok":
            raise BackupError(f"{path}: damaged ({ok}); not restored")
        try:
            version = int(db.execute("SELECT version FROM schema_version").fetchone()[0])
            players = int(db.execute("SELECT COUNT(*) FROM players").fetchone()[0])
            matches = int(db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
        except (sqlite3.Error, TypeError) as e:
            raise BackupError(f"{path}: not a Lamma database ({e})") from None
    except sqlite3.DatabaseError as e:
        raise BackupError(f"{path}: not a usable database ({e})") from None
    finally:
        db.close()
    if version > len(MIGRATIONS):
        raise BackupError(f"{path}: schema version {version}, newer than this Lamma's "
                          f"({len(MIGRATIONS)}); restore it with the newer version")
    return Contents(version, players, matches)


def running(data: Path) -> bool:
    """Does a room answer on this data folder's admin socket?"""
    from .admin import SOCKET_NAME
    path = data / SOCKET_NAME
    if not path.exists():
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(2)
        try:
            sock.connect(str(path))
        except OSError:
            return False            # left by a room that was killed
    return True


def restore(file: Path, data: Path, database: Path) -> str:
    """``file`` put back as ``database`` (the room stopped), the database it replaces
    kept beside it; said: what was done."""
    contents = examine(file)
    if running(data):
        raise BackupError(f"the room is running ({data / 'admin.sock'} answers): stop it "
                          "first (systemctl stop lamma, podman stop …), then restore")
    if database.exists() and database.resolve() == file.resolve():
        raise BackupError(f"{file} is the room's database itself")
    database.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    kept = ""
    if database.exists():
        # The database it replaces, with its -wal and -shm (a room that was killed may
        # have writes only there), under one name: nothing is lost by a restore.
        aside = database.with_name(f"{database.name}.before-restore-{_stamp()}")
        for suffix in ("", "-wal", "-shm"):
            p = database.with_name(database.name + suffix)
            if p.exists():
                os.replace(p, aside.with_name(aside.name + suffix))
        kept = f"; the database it replaces is kept as {aside}"
    try:
        src = sqlite3.connect(f"file:{file}?mode=ro", uri=True)
        try:
            _copy(src, database)
        finally:
            src.close()
    except (sqlite3.Error, OSError) as e:
        raise StoreError(f"restoring {file} to {database} failed ({e}){kept}") from None
    older = (f"; schema version {contents.version}, which the next start migrates to "
             f"{len(MIGRATIONS)}" if contents.version < len(MIGRATIONS) else "")
    return (f"Restored {file} to {database} ({contents.players} player(s), "
            f"{contents.matches} match(es)){older}{kept}. Start the room.")
