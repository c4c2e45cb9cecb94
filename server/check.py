"""``lamma check [--config FILE]``: is this room ready to start? Before ``lamma serve``
(a service's ``ExecStartPre``, a deploy's last step): the configuration (read already:
a bad one never gets here), the data folder, the keys folder (the host key there and
0600; ``authorized_keys`` and ``operators`` parse, line by line), the database
(reachable; its schema this version's) and the port (free to listen on). One line per
problem and a non-zero exit if there is any; nothing is made, changed or migrated.

What the first start makes — the data folder, the keys folder and its host key, the
database and its tables — is a note, not a problem (issue 45): a fresh install passes,
so a unit can run ``lamma check`` before every start (``ExecStartPre``), the first one
included. It is a problem only if the start could not make it (a parent folder this
account may not write in)."""

from __future__ import annotations

import os
import socket
import sqlite3
import stat
import sys
from collections.abc import Callable
from pathlib import Path

import asyncssh

from .config import Config, database_url
from .store import is_postgres, redact
from .store.database import MIGRATIONS, psycopg_module


def _key_lines(path: Path, what: str, problems: list[str]) -> int:
    """Each non-comment line of ``path`` an OpenSSH public key (with options, for
    authorized_keys); the count of keys."""
    try:
        text = path.read_text()
    except OSError as e:
        problems.append(f"{path}: cannot be read ({e.strerror or e})")
        return 0
    count = 0
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            if what == "authorized_keys":
                asyncssh.import_authorized_keys(line)
            else:
                asyncssh.import_public_key(line)
            count += 1
        except (asyncssh.KeyImportError, ValueError) as e:
            problems.append(f"{path}, line {number}: not a public key ({e})")
    return count


class Findings:
    """What the checks found: problems (the start would fail, or do harm) and notes
    (what the first start makes)."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.notes: list[str] = []


def _makeable(path: Path) -> Path | None:
    """The nearest existing folder above ``path`` if this account may not make
    ``path`` in it; None if it may."""
    parent = path.resolve().parent
    while not parent.exists():
        parent = parent.parent
    return None if os.access(parent, os.W_OK | os.X_OK) else parent


def _to_make(folder: Path, found: Findings, missing: str, made: str) -> None:
    """A folder not there yet: a problem if this account may not make it (said as
    ``missing``), else a note of what the first start makes (``made``)."""
    blocked = _makeable(folder)
    if blocked is not None:
        found.problems.append(f"{folder}: {missing}, and {blocked} does not let this "
                              "account make it")
    else:
        found.notes.append(f"{folder}: {made}")


def check_keys(config: Config, found: Findings) -> None:
    from .hostkeys import HOST_KEY_NAME
    problems = found.problems
    keys = Path(config.serve("keys"))
    if not keys.exists():
        _to_make(keys, found, "the keys folder does not exist",
                 "the keys folder will be made at the first start, with a new host key "
                 "in it (several processes or machines must share one: copy it there "
                 "before)")
        if config.serve("allow-list"):
            problems.append(f"{keys / 'authorized_keys'}: missing, and allow-list admits "
                            "only the keys in it")
        return
    if not keys.is_dir():
        problems.append(f"{keys}: the keys folder is not a folder")
        return
    host = keys / HOST_KEY_NAME
    if not host.exists():
        if not os.access(keys, os.W_OK | os.X_OK):
            problems.append(f"{host}: no host key, and this account cannot write one in "
                            f"{keys}")
        else:
            found.notes.append(f"{host}: no host key yet; the first start makes one "
                               "(several processes or machines must share one: copy it)")
    else:
        mode = stat.S_IMODE(host.stat().st_mode)
        if mode & 0o077:
            problems.append(f"{host}: mode {mode:04o}, readable by others; chmod 600 it")
        try:
            asyncssh.read_private_key(str(host))
        except (OSError, asyncssh.KeyImportError, ValueError) as e:
            problems.append(f"{host}: not a usable private key ({e})")
    allowed = keys / "authorized_keys"
    if allowed.exists():
        if not _key_lines(allowed, "authorized_keys", problems) and config.serve("allow-list"):
            problems.append(f"{allowed}: no key in it, and allow-list admits only those")
    elif config.serve("allow-list"):
        problems.append(f"{allowed}: missing, and allow-list admits only the keys in it")
    operators = keys / "operators"
    if operators.exists():
        _key_lines(operators, "operators", problems)


def check_data(config: Config, found: Findings) -> None:
    problems = found.problems
    data = Path(config.serve("data"))
    if data.exists():
        if not data.is_dir():
            problems.append(f"{data}: the data folder is not a folder")
        elif not os.access(data, os.W_OK | os.X_OK):
            problems.append(f"{data}: this account cannot write in the data folder")
    else:
        _to_make(data, found, "missing", "the data folder will be made at the first "
                 "start (0700)")


def check_database(config: Config, found: Findings) -> None:
    problems = found.problems
    target = database_url(config) or str(Path(config.serve("data")) / "lamma.db")
    want = len(MIGRATIONS)
    if is_postgres(target):
        where = redact(target)
        try:
            psycopg = psycopg_module()
        except Exception as e:
            problems.append(f"database {where}: {e}")
            return
        try:
            with psycopg.connect(target, autocommit=True, connect_timeout=5) as db:
                try:
                    row = db.execute("SELECT version FROM schema_version").fetchone()
                except psycopg.Error:
                    row = None          # a new database: lamma serve prepares it
        except psycopg.Error as e:
            problems.append(f"database {where}: not reachable ({str(e).strip()})")
            return
        if row is None:
            found.notes.append(f"database {where}: empty; the first start makes its tables")
        _schema(where, 0 if row is None else int(row[0]), want, problems)
        return
    path = Path(target)
    if not path.exists() or path.stat().st_size == 0:
        found.notes.append(f"database {path}: the first start makes it")
        return
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            ok = db.execute("PRAGMA quick_check").fetchone()[0]
            if ok != "ok":
                problems.append(f"database {path}: damaged ({ok}); restore a backup")
                return
            try:
                row = db.execute("SELECT version FROM schema_version").fetchone()
            except sqlite3.OperationalError:
                row = None
        finally:
            db.close()
    except sqlite3.DatabaseError as e:
        problems.append(f"database {path}: not a usable Lamma database ({e})")
        return
    _schema(str(path), 0 if row is None else int(row[0]), want, problems)


def _schema(where: str, have: int, want: int, problems: list[str]) -> None:
    if have > want:
        problems.append(f"database {where}: schema version {have}, newer than this "
                        f"Lamma's ({want}); run the newer version")
    elif 0 < have < want:
        problems.append(f"database {where}: schema version {have}, this Lamma's is "
                        f"{want}; lamma serve migrates it at start (back it up first)")


def check_port(config: Config, found: Findings) -> None:
    problems = found.problems
    host, port = config.serve("host"), config.serve("port")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        problems.append(f"host {host}: {e.strerror}")
        return
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if config.serve("reuse-port") and hasattr(socket, "SO_REUSEPORT"):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            sock.bind(address)
        except OSError as e:
            problems.append(f"port {port} on {host}: cannot listen ({e.strerror or e})")


CHECKS: tuple[Callable[[Config, Findings], None], ...] = (
    check_data, check_keys, check_database, check_port)


def findings_of(config: Config) -> Findings:
    found = Findings()
    for check in CHECKS:
        try:
            check(config, found)
        except Exception as e:          # a check that fails is a problem, said
            found.problems.append(f"{check.__name__}: {type(e).__name__}: {e}")
    return found


def run_checks(config: Config) -> int:
    found = findings_of(config)
    for line in found.problems:
        print(line)
    if found.problems:
        return 1
    for line in found.notes:
        print(f"note: {line}")
    where = f"{config.path}" if config.path is not None else "the defaults"
    print(f"Ready: {where}, keys in {config.serve('keys')}, data in "
          f"{config.serve('data')}, port {config.serve('port')} free.")
    sys.stdout.flush()
    return 0
