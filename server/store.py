"""Everything the room keeps: players, every match and every accepted action,
results, statistics, level points and badges — in one SQLite file (WAL), or in a
PostgreSQL database that several server processes share (``Store(URL)``).

Nothing is lost: ``append_action`` commits before the table shows anyone the
move (the server runs the room's writes on a thread of their own, through a second
connection: ``another``), so a server killed at any moment restarts with every unfinished match
(``unfinished``) and replays it through ``engine.replay``. A finished match is
recorded once: ``finish_match`` only acts on a match not yet finished, and pays
statistics, level points and badges in the same transaction.

Both databases run the same SQL: ``?`` placeholders are rewritten per dialect and
the few differences live in ``DIALECTS`` (see README, "Beyond one machine").
Each process has a name (``process``); a match belongs to the process that
created it, and ``unfinished`` returns only that process's matches.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
import time
from collections.abc import Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypedDict
from urllib.parse import urlsplit, urlunsplit

from engine.records import BADGE_OF, SeatRecord, badge_due
from engine.room.store import FinishedMatch, LeaseLost, StoredMatch, StoreUnavailable
from engine.room.text import clean_chat, clean_name, name_key, skeleton

log = logging.getLogger("lamma.store")


class Dialect(TypedDict):
    serial: str                  # the id column's type
    param: str                   # the driver's placeholder
    begin: str                   # how a write transaction starts
    migration_lock: str | None   # taken before migrating (processes starting together)
    name_lock: str | None        # taken before binding a name (look-alikes checked first)
    types: dict[str, str]        # column types spelled otherwise


DIALECTS: dict[str, Dialect] = {
    "sqlite": {
        "serial": "INTEGER PRIMARY KEY", "param": "?",
        # IMMEDIATE takes the write lock at once, so a transaction never fails
        # half-way on a lock upgrade; it also serialises migrations.
        "begin": "BEGIN IMMEDIATE", "migration_lock": None, "name_lock": None,
        "types": {},
    },
    "postgres": {
        "serial": "BIGSERIAL PRIMARY KEY", "param": "%s",
        "begin": "BEGIN",
        # Several processes may start at once on one database: one migrates,
        # the others wait and then find the schema current.
        "migration_lock": "SELECT pg_advisory_xact_lock(48151623)",
        # Two processes binding look-alike names at once: one checks and inserts, then
        # the other (SQLite's BEGIN IMMEDIATE does the same for one file).
        "name_lock": "SELECT pg_advisory_xact_lock(48151624)",
        # PostgreSQL's REAL is 4 bytes: a time.time() would be rounded to minutes.
        "types": {"REAL": "DOUBLE PRECISION"},
    },
}

# Versioned migrations: never edit a released one, append a new one.
# A step is SQL, or a function of the Store for data SQL cannot derive alone.
MIGRATIONS: list[list] = [
    [  # 1: players, matches, actions
        """CREATE TABLE players (
            name_key TEXT PRIMARY KEY, name TEXT NOT NULL, fingerprint TEXT NOT NULL,
            created REAL NOT NULL, last_seen REAL NOT NULL,
            settings TEXT NOT NULL DEFAULT '{{}}', level_points INTEGER NOT NULL DEFAULT 0)""",
        "CREATE INDEX players_fp ON players (fingerprint)",
        """CREATE TABLE matches (
            id {serial}, table_id TEXT NOT NULL, game TEXT NOT NULL, length TEXT NOT NULL,
            seed TEXT NOT NULL, deals TEXT NOT NULL, seats TEXT NOT NULL,
            settings TEXT NOT NULL, humans_throughout INTEGER NOT NULL,
            created REAL NOT NULL, finished REAL, result TEXT)""",
        """CREATE TABLE actions (
            match_id INTEGER NOT NULL, seq INTEGER NOT NULL, seat INTEGER NOT NULL,
            action TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (match_id, seq))""",
    ],
    [  # 2: statistics and badges
        """CREATE TABLE stats (
            name TEXT NOT NULL, game TEXT NOT NULL,
            matches INTEGER NOT NULL DEFAULT 0, wins INTEGER NOT NULL DEFAULT 0,
            draws INTEGER NOT NULL DEFAULT 0, losses INTEGER NOT NULL DEFAULT 0,
            rounds INTEGER NOT NULL DEFAULT 0, declarations INTEGER NOT NULL DEFAULT 0,
            declarations_made INTEGER NOT NULL DEFAULT 0, calls INTEGER NOT NULL DEFAULT 0,
            calls_made INTEGER NOT NULL DEFAULT 0, dash_calls INTEGER NOT NULL DEFAULT 0,
            dash_calls_made INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (name, game))""",
        """CREATE TABLE badges (
            name TEXT NOT NULL, badge TEXT NOT NULL, earned REAL NOT NULL,
            PRIMARY KEY (name, badge))""",
        "CREATE INDEX matches_unfinished ON matches (finished)",
    ],
    [  # 3: the server process that owns an unfinished match ('' for a lone process,
       # so matches from before this migration stay with it)
        "ALTER TABLE matches ADD COLUMN process TEXT NOT NULL DEFAULT ''",
        "CREATE INDEX matches_process ON matches (process, finished)",
    ],
    [  # 4: wins that count for badges (people from first deal to end), kept per player
       # and game, so the fifth win is found without reading every finished match
        "ALTER TABLE stats ADD COLUMN counted_wins INTEGER NOT NULL DEFAULT 0",
        lambda store: store._backfill_counted_wins(),
    ],
    [  # 5: rounds played in a finished match: one with none has nothing to replay and is
       # not listed (300 tables opened and left would crowd the replays); NULL: recorded
       # before this migration, listed as before
        lambda store: store._add_column("matches", "rounds", "INTEGER"),
    ],
    [  # 6: each player's name skeleton (Unicode TR39, case-folded: text.skeleton), so a
       # new name that looks like an owned one is refused. Indexed, not unique: names
       # bound before this migration may already look alike, and keep working.
        lambda store: store._add_column("players", "skeleton", "TEXT"),
        lambda store: store._backfill_skeletons(),
        "CREATE INDEX IF NOT EXISTS players_skeleton ON players (skeleton)",
    ],
    [  # 7: moderation: bans (by key, name or address, for a while or for good),
       # what operators did, and players' reports
        """CREATE TABLE IF NOT EXISTS bans (
            id {serial}, kind TEXT NOT NULL, value TEXT NOT NULL, until REAL,
            author TEXT NOT NULL, reason TEXT NOT NULL, at REAL NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS bans_target ON bans (kind, value)",
        """CREATE TABLE IF NOT EXISTS moderation_log (
            id {serial}, at REAL NOT NULL, author TEXT NOT NULL, action TEXT NOT NULL,
            detail TEXT NOT NULL)""",
        """CREATE TABLE IF NOT EXISTS reports (
            id {serial}, at REAL NOT NULL, author TEXT NOT NULL, target TEXT NOT NULL,
            reason TEXT NOT NULL)""",
    ],
    [  # 8: one room across processes (PostgreSQL; server/cluster.py): every table with the
       # process that drives it, its lobby row and what it shows; requests of members
       # connected elsewhere; processes and their heartbeats (each one's lease on the
       # tables it drives); the global table id counter
        """CREATE TABLE IF NOT EXISTS room_tables (
            id TEXT PRIMARY KEY, driver TEXT NOT NULL, epoch INTEGER NOT NULL DEFAULT 0, match_id INTEGER, status TEXT NOT NULL,
            private INTEGER NOT NULL DEFAULT 0, code TEXT, row TEXT NOT NULL,
            holders TEXT NOT NULL, frame TEXT, updated REAL NOT NULL)""",
        """CREATE TABLE IF NOT EXISTS room_requests (
            id {serial}, table_id TEXT NOT NULL, origin TEXT NOT NULL, session TEXT NOT NULL,
            body TEXT NOT NULL, at REAL NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS room_requests_table ON room_requests (table_id, id)",
        """CREATE TABLE IF NOT EXISTS room_processes (
            name TEXT PRIMARY KEY, seen REAL NOT NULL, token TEXT NOT NULL DEFAULT '')""",
        """CREATE TABLE IF NOT EXISTS room_counters (
            name TEXT PRIMARY KEY, value INTEGER NOT NULL)""",
    ],
]
SKELETONS_FROM = 6   # the schema version with players.skeleton (older: no look-alike check)

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres(target) -> bool:
    return isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        netloc = netloc.replace(":" + parts.password + "@", ":***@", 1)
    query = re.sub(r"(password=)[^&]*", r"\1***", parts.query)
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def _psycopg():
    """psycopg 3, imported only when a PostgreSQL URL is asked for."""
    try:
        import psycopg
    except ImportError:
        raise StoreError("PostgreSQL needs psycopg 3, which is not installed: "
                         "pip install 'lamma[postgres]'") from None
    return psycopg


def private_file(path: Path) -> None:
    """The database holds private table codes and who plays whom: readable by its
    owner only (0600), and so are SQLite's -wal and -shm files beside it."""
    if not path.exists():
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            os.chmod(p, 0o600)
        except FileNotFoundError:
            pass


class StoreError(RuntimeError):
    """The data folder cannot be used; the message says what to do."""


# SQLite's OperationalError is also what a wrong statement raises; these words mark
# the trouble of the moment (a full disk, a lock held too long, a file gone).
_SQLITE_TRANSIENT = ("disk", "full", "locked", "busy", "unable to open", "i/o", "readonly")


class Store:
    """``target``: a SQLite file path, or a ``postgresql://`` URL.
    ``process``: this server process's name; its unfinished matches are its own."""

    def __init__(self, target: str | Path, process: str = ""):
        self.process = process
        self.target = target
        # Actions only while this process drives their table (server.cluster sets it on
        # the writer's connection of a room that spans processes).
        self.fenced = False
        # SET statements for every connection this store makes (again after a lost one).
        self.session: list[str] = []
        self.skeletons = False        # players.skeleton exists (set by _migrate)
        self._lost_at: float | None = None    # when the connection was lost (PostgreSQL)
        if is_postgres(target):
            self.kind, self.path, self.where = "postgres", None, redact(str(target))
            self.dialect = DIALECTS["postgres"]
            psycopg = _psycopg()
            self._errors = psycopg.Error
            try:
                self.db = self._connect()
            except psycopg.Error as e:
                raise StoreError(f"cannot open the PostgreSQL database {self.where} "
                                 f"({str(e).strip()})") from e
            try:
                self._migrate()
            except psycopg.Error as e:
                self.db.close()
                raise StoreError(f"cannot prepare the PostgreSQL database {self.where} "
                                 f"({str(e).strip()})") from e
            return
        if isinstance(target, str) and "://" in target:
            raise StoreError(f"unknown database URL {redact(target)}: give a postgresql:// "
                             "URL or the path of a SQLite file")
        self.kind, self.path = "sqlite", Path(target)
        self.where = str(self.path)
        self.dialect = DIALECTS["sqlite"]
        self._errors = sqlite3.Error
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        private_file(self.path)
        try:
            self.db = self._connect()
            if not fresh:
                ok = self.db.execute("PRAGMA quick_check").fetchone()[0]
                if ok != "ok":
                    raise StoreError(f"{self.path} is damaged ({ok}); restore it from a "
                                     "backup (lamma backup) or move it away to start empty")
            self._migrate()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path} is not a usable Lamma database ({e}); restore it "
                             "from a backup (lamma backup) or move it away to start empty") from e

    def _connect(self):
        if self.kind == "postgres":
            # connect_timeout: a database that does not answer is given up on in
            # seconds (and tried again later), not after the kernel's TCP timeout.
            # TCP keepalives: a connection a network dropped silently is noticed in
            # about a minute, not the kernel's two hours.
            db = _psycopg().connect(self.target, autocommit=True, connect_timeout=5,
                                    keepalives=1, keepalives_idle=30, keepalives_interval=10,
                                    keepalives_count=3)
            for setting in self.session:
                db.execute(setting)
            return db
        # isolation_level=None: autocommit, transactions only where BEGIN says so.
        # check_same_thread=False: opened on the loop, a writer's is used on its thread.
        assert self.path is not None
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        # Readers on other connections go on. Processes opening a new file together:
        # turning it to WAL takes a lock SQLite does not wait for (it answers "locked"
        # at once to all but one), so it is tried again for a few seconds.
        for attempt in range(50):
            try:
                db.execute("PRAGMA journal_mode=WAL")
                break
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) or attempt == 49:
                    raise
                time.sleep(0.1)
        # NORMAL in WAL: a commit survives a killed process (the OS has it);
        # only a power cut could lose the last commits.
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA busy_timeout=5000")
        return db

    def another(self) -> Store:
        """The same database through a connection of its own (already checked and
        migrated by this one), for the room's writer thread."""
        other = object.__new__(Store)
        other.__dict__.update(self.__dict__)
        try:
            other.db = self._connect()
        except self._errors as e:
            raise StoreError(f"cannot open {self.where} again ({str(e).strip()})") from e
        return other

    # ---- plumbing -----------------------------------------------------------------

    def _sql(self, sql: str) -> str:
        return sql if self.dialect["param"] == "?" else sql.replace("?", self.dialect["param"])

    def transient(self, e: BaseException) -> bool:
        """Is ``e`` the database's trouble of the moment (try again later), not a
        wrong statement or a broken rule of the data?"""
        if self.kind == "postgres":
            psycopg = _psycopg()
            return (isinstance(e, (psycopg.OperationalError, psycopg.InterfaceError))
                    or bool(getattr(self.db, "closed", False)))
        return (isinstance(e, sqlite3.OperationalError)
                and any(w in str(e).lower() for w in _SQLITE_TRANSIENT))

    REVIVE_EVERY = 2.0      # seconds between tries of a lost PostgreSQL connection

    def _x(self, sql: str, args=()):
        if self._lost_at is not None:
            self._revive()
        try:
            if self.kind == "sqlite":
                return self.db.execute(sql, args)
            # None, not (): with nothing to bind psycopg leaves the text alone.
            return self.db.execute(self._sql(sql), args or None)
        except self._errors as e:
            if self.transient(e):
                if self.kind == "postgres" and (self.db.closed or self.db.broken):
                    # The connection is gone (not a lock or statement timeout on a
                    # connection that still works): a new one, after a while.
                    self._lost_at = time.monotonic()
                raise StoreUnavailable(f"{self.where}: {str(e).strip()}") from e
            raise

    def _revive(self) -> None:
        """The connection was lost: a new one, tried at most every REVIVE_EVERY
        seconds (in between, the call fails at once instead of waiting for it)."""
        assert self._lost_at is not None
        if time.monotonic() - self._lost_at < self.REVIVE_EVERY:
            raise StoreUnavailable(f"{self.where}: the database does not answer")
        self._lost_at = time.monotonic()
        self.reconnect()

    def reconnect(self) -> None:
        """A new connection in place of one that failed; StoreUnavailable if the
        database still does not answer."""
        try:
            self.db.close()
        except Exception:
            pass
        try:
            self.db = self._connect()
        except self._errors as e:
            raise StoreUnavailable(f"{self.where}: {str(e).strip()}") from e
        self._lost_at = None

    def _ddl(self, stmt: str) -> str:
        stmt = stmt.format(serial=self.dialect["serial"])
        for word, instead in self.dialect["types"].items():
            stmt = re.sub(rf"\b{word}\b", instead, stmt)
        return stmt

    @contextmanager
    def _tx(self):
        """One transaction: committed at the end of the block, rolled back on an error."""
        self._x(self.dialect["begin"])
        try:
            yield
        except BaseException:
            try:
                self.db.execute("ROLLBACK")
            except self._errors:
                pass                        # the connection is gone: nothing was committed
            raise
        self._x("COMMIT")

    def transaction(self):
        """Several writes committed together (the room's writer thread groups the
        writes that piled up: one commit for all)."""
        return self._tx()

    def version(self) -> int:
        try:
            row = self.db.execute("SELECT version FROM schema_version").fetchone()
        except self._errors:
            return 0
        return row[0] if row else 0

    def _migrate(self) -> None:
        """One transaction per migration, each re-reading the version under the lock,
        so two processes starting together on one database migrate it once."""
        while True:
            with self._tx():
                if self.dialect["migration_lock"]:
                    self.db.execute(self.dialect["migration_lock"])
                self.db.execute("CREATE TABLE IF NOT EXISTS schema_version "
                                "(version INTEGER NOT NULL)")
                have = self.version()
                if have > len(MIGRATIONS):
                    raise StoreError(f"{self.where} was written by a newer Lamma "
                                     f"(schema {have}); upgrade this server")
                if have == len(MIGRATIONS):
                    self.skeletons = have >= SKELETONS_FROM
                    return
                for stmt in MIGRATIONS[have]:
                    if callable(stmt):
                        stmt(self)
                    else:
                        self.db.execute(self._ddl(stmt))
                self.db.execute("DELETE FROM schema_version")
                self._x("INSERT INTO schema_version VALUES (?)", (have + 1,))

    def close(self) -> None:
        self.db.close()

    def backup(self, target: str | Path) -> None:
        """SQLite's online backup: consistent while the server runs."""
        if self.kind != "sqlite":
            raise StoreError("lamma backup copies a SQLite database; back up PostgreSQL "
                             "with its own tools (pg_dump)")
        private_file(Path(target))
        dest = sqlite3.connect(target)
        try:
            self.db.backup(dest)
        finally:
            dest.close()

    # ---- players --------------------------------------------------------------------

    def owner(self, name: str) -> str | None:
        """The fingerprint of the key that owns ``name`` (names are unique case-folded)."""
        row = self._x("SELECT fingerprint FROM players WHERE name_key = ?",
                      (name_key(name),)).fetchone()
        return row[0] if row else None

    def may_use(self, name: str, fingerprint: str) -> bool:
        """May this key log in under ``name``: its own, or a name nobody owns. (Whether a
        new name looks like another is ``lookalike_of``; ``bind`` refuses it.)"""
        owner = self.owner(name)
        return owner is None or owner == fingerprint

    def lookalike_of(self, name: str) -> str | None:
        """The owned name that ``name`` looks like (the same skeleton, another name),
        cleaned for a message; None if there is none. The very same name (in any case)
        is ``owner``'s business, not this."""
        if not self.skeletons:
            return None
        row = self._x("SELECT name FROM players WHERE skeleton = ? AND name_key <> ? "
                      "ORDER BY created LIMIT 1", (skeleton(name), name_key(name))).fetchone()
        return clean_name(row[0]) if row else None

    def bind(self, name: str, fingerprint: str) -> bool:
        """Bind ``name`` to a key. Call only once the key's signature is verified.
        False if another key owns the name, or if the name is new and looks like one
        already owned (``lookalike_of`` says which)."""
        now = time.time()
        key = name_key(name)
        with self._tx():
            if self.dialect["name_lock"]:
                self.db.execute(self.dialect["name_lock"])
            owner = self.owner(name)
            if owner is None:
                if self.lookalike_of(name) is not None:
                    return False
                if self.skeletons:
                    self._x("INSERT INTO players (name_key, name, fingerprint, created, "
                            "last_seen, skeleton) VALUES (?, ?, ?, ?, ?, ?) "
                            "ON CONFLICT (name_key) DO NOTHING",
                            (key, name, fingerprint, now, now, skeleton(name)))
                else:
                    self._x("INSERT INTO players (name_key, name, fingerprint, created, "
                            "last_seen) VALUES (?, ?, ?, ?, ?) ON CONFLICT (name_key) DO NOTHING",
                            (key, name, fingerprint, now, now))
                owner = self.owner(name)
            if owner != fingerprint:
                return False
            self._x("UPDATE players SET last_seen = ? WHERE name_key = ?", (now, key))
            return True

    def names_of(self, fingerprint: str) -> int:
        """How many names this key has bound (issue 11 caps them)."""
        row = self._x("SELECT COUNT(*) FROM players WHERE fingerprint = ?",
                      (fingerprint,)).fetchone()
        return int(row[0])

    def settings(self, name: str) -> dict:
        row = self._x("SELECT settings FROM players WHERE name_key = ?",
                      (name_key(name),)).fetchone()
        return json.loads(row[0]) if row else {}

    def save_settings(self, name: str, settings: dict) -> None:
        self._x("UPDATE players SET settings = ? WHERE name_key = ?",
                (json.dumps(settings), name_key(name)))

    # ---- matches ----------------------------------------------------------------------

    def create_match(self, table_id: str, record: dict, seats: list, settings: dict) -> int:
        humans = all(s is not None for s in seats)
        # RETURNING (SQLite ≥ 3.35) instead of lastrowid, which psycopg has not;
        # fetchall ends the statement, so SQLite's autocommit commits now.
        rows = self._x(
            "INSERT INTO matches (table_id, game, length, seed, deals, seats, settings, "
            "humans_throughout, created, process) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "RETURNING id",
            (table_id, record["game"], json.dumps(record["length"]), str(record["seed"]),
             json.dumps(record["deals"]), json.dumps(seats), json.dumps(settings),
             int(humans), time.time(), self.process)).fetchall()
        return rows[0][0]

    def append_action(self, match_id: int, seq: int, seat: int,
                      action: Mapping[str, Any]) -> None:
        """Durable before anyone sees it (autocommit: one transaction per action).

        Written twice (a commit whose answer was lost with the connection, then tried
        again) it is stored once: the same action at the same place is no error; a
        different one is."""
        text = json.dumps(dict(action), separators=(",", ":"))
        if self.fenced:
            self._append_fenced(match_id, seq, seat, text)
            return
        try:
            self._x("INSERT INTO actions (match_id, seq, seat, action, at) "
                    "VALUES (?, ?, ?, ?, ?)", (match_id, seq, seat, text, time.time()))
        except self._errors:
            row = self._x("SELECT seat, action FROM actions WHERE match_id = ? AND seq = ?",
                          (match_id, seq)).fetchone()
            if row is None or row[0] != seat or json.loads(row[1]) != json.loads(text):
                raise

    def _check_owner(self, match_id: int) -> None:
        """The match is still this process's (a process taking its table over makes it
        its own in the same transaction as its claim); read FOR SHARE, so that claim
        waits for our commit, or we wait for its and are refused (LeaseLost)."""
        row = self._x("SELECT process FROM matches WHERE id = ? FOR SHARE",
                      (match_id,)).fetchone()
        if row is not None and row[0] != self.process:
            raise LeaseLost(f"process {row[0]} plays match {match_id} now")

    def _append_fenced(self, match_id: int, seq: int, seat: int, text: str) -> None:
        """``append_action`` for a process of a room that spans several (server.cluster):
        only while the match's table is still this process's to drive. The table's row
        is read FOR SHARE, so a process taking the table over waits for this commit (and
        then replays this action), or this write waits for its and is refused."""
        psycopg = _psycopg()
        own = self.db.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        if own:
            self._x("BEGIN")
        try:
            self._check_owner(match_id)
            done = self._x("INSERT INTO actions (match_id, seq, seat, action, at) "
                           "VALUES (?, ?, ?, ?, ?) ON CONFLICT (match_id, seq) DO NOTHING "
                           "RETURNING seq", (match_id, seq, seat, text, time.time())).fetchall()
            if not done:
                old = self._x("SELECT seat, action FROM actions WHERE match_id = ? AND seq = ?",
                              (match_id, seq)).fetchone()
                if old is None or old[0] != seat or json.loads(old[1]) != json.loads(text):
                    raise StoreError(f"match {match_id}: action {seq} is stored already, "
                                     "and it is another")
        except BaseException:
            if own:
                try:
                    self.db.execute("ROLLBACK")
                except self._errors:
                    pass
            raise
        if own:
            self._x("COMMIT")

    def set_seats(self, match_id: int, seats: list, settings: dict | None = None) -> None:
        """A seat changed hands; a computer player anywhere ends level-point eligibility.
        ``settings`` (the table's, with who holds each seat) replaces the stored ones, so a
        restart seats the same people and computer players."""
        humans = int(all(s is not None for s in seats))
        # Fenced: only a match still ours (another process may have taken it over).
        ours, mine = (" AND process = ?", (self.process,)) if self.fenced else ("", ())
        if settings is None:
            self._x("UPDATE matches SET seats = ?, humans_throughout = humans_throughout * ? "
                    "WHERE id = ?" + ours, (json.dumps(seats), humans, match_id, *mine))
        else:
            self._x("UPDATE matches SET seats = ?, settings = ?, "
                    "humans_throughout = humans_throughout * ? WHERE id = ?" + ours,
                    (json.dumps(seats), json.dumps(settings), humans, match_id, *mine))

    def _load(self, row) -> StoredMatch:
        mid, table_id, game, length, seed, deals, seats, settings, humans = row
        log = [[seat, json.loads(a)] for seat, a in self._x(
            "SELECT seat, action FROM actions WHERE match_id = ? ORDER BY seq", (mid,))]
        return StoredMatch(mid, table_id, {"game": game, "length": json.loads(length),
                                           "seed": int(seed), "deals": json.loads(deals),
                                           "log": log},
                           json.loads(seats), json.loads(settings), bool(humans))

    _COLUMNS = "id, table_id, game, length, seed, deals, seats, settings, humans_throughout"

    def unfinished(self) -> list[StoredMatch]:
        """This process's unfinished matches (another process sharing the database
        resumes its own)."""
        rows = self._x(f"SELECT {self._COLUMNS} FROM matches WHERE finished IS NULL "
                       "AND process = ? ORDER BY id", (self.process,)).fetchall()
        out = []
        for row in rows:
            try:
                out.append(self._load(row))
            except (ValueError, TypeError) as e:     # bad JSON, a column of the wrong kind
                log.error("match %s: its stored row cannot be read (%s); left as it is, "
                          "not resumed", row[0], e)
        return out

    def match(self, match_id: int) -> StoredMatch | None:
        row = self._x(f"SELECT {self._COLUMNS} FROM matches WHERE id = ?", (match_id,)).fetchone()
        return self._load(row) if row else None

    def finished_matches(self, limit: int = 50) -> list[dict]:
        """The newest finished matches with something to replay (a round played)."""
        rows = self._x("SELECT id, game, length, seats, result, finished FROM matches "
                       "WHERE finished IS NOT NULL AND (rounds IS NULL OR rounds > 0) "
                       "ORDER BY finished DESC LIMIT ?", (limit,))
        return [{"id": r[0], "game": r[1], "length": json.loads(r[2]),
                 "seats": _shown_seats(json.loads(r[3])),
                 "result": json.loads(r[4]), "finished": r[5]} for r in rows]

    def abandon(self, match_id: int, rounds: int | None = None) -> None:
        """A match nobody will finish (its table was closed before the end) after
        ``rounds`` rounds (None: not known)."""
        if self.fenced:
            # Only a match still ours: one another process took over plays on.
            self._x("UPDATE matches SET finished = ?, result = ?, rounds = ? "
                    "WHERE id = ? AND finished IS NULL AND process = ?",
                    (time.time(), json.dumps({"abandoned": True}), rounds, match_id,
                     self.process))
            return
        self._x("UPDATE matches SET finished = ?, result = ?, rounds = ? "
                "WHERE id = ? AND finished IS NULL",
                (time.time(), json.dumps({"abandoned": True}), rounds, match_id))

    def finish_match(self, match_id: int, finished: FinishedMatch) -> dict | None:
        """Record the result once, with statistics, level points and badges as the
        rules worked them out (``finished.records``).

        Returns per-seat ``{"points": int, "badge": str|None}`` the first time,
        None if the match was already recorded.
        """
        stored = self.match(match_id)
        if stored is None:
            return None
        game = finished.game
        with self._tx():
            # Only the first writer finds the row unfinished: SQLite's write lock, or
            # PostgreSQL's row lock (the second UPDATE waits, then matches nothing).
            cur = self._x("UPDATE matches SET finished = ?, result = ?, rounds = ? "
                          "WHERE id = ? AND finished IS NULL",
                          (time.time(), json.dumps(finished.result), finished.rounds,
                           match_id))
            if cur.rowcount != 1:
                return None                   # already recorded; nothing was written
            records = finished.records
            paid = {}
            for seat, name in enumerate(stored.seats):
                if name is None or name.startswith("guest:"):
                    continue
                rec = records[seat]
                key = name_key(name)
                self._count(key, game, rec)
                badge = None
                if rec.level_points:
                    self._x("UPDATE players SET level_points = level_points + ? "
                            "WHERE name_key = ?", (rec.level_points, key))
                if rec.counted_win:
                    self._x("UPDATE stats SET counted_wins = counted_wins + 1 "
                            "WHERE name = ? AND game = ?", (key, game))
                    badge = self._maybe_badge(key, rec.badge)
                paid[seat] = {"points": rec.level_points, "badge": badge}
            return paid

    def _count(self, key: str, game: str, rec: SeatRecord) -> None:
        st = rec.stats
        self._x("INSERT INTO stats (name, game) VALUES (?, ?) ON CONFLICT (name, game) DO NOTHING",
                (key, game))
        column = {"win": "wins", "draw": "draws", "loss": "losses"}[rec.outcome]
        self._x(f"""UPDATE stats SET matches = matches + 1, {column} = {column} + 1,
                    rounds = rounds + ?, declarations = declarations + ?,
                    declarations_made = declarations_made + ?, calls = calls + ?,
                    calls_made = calls_made + ?, dash_calls = dash_calls + ?,
                    dash_calls_made = dash_calls_made + ? WHERE name = ? AND game = ?""",
                (st.rounds, st.declarations, st.declarations_made, st.calls, st.calls_made,
                 st.dash_calls, st.dash_calls_made, key, game))

    def _maybe_badge(self, key: str, badge: str) -> str | None:
        """The badge once its wins are due (engine.records.badge_due), once."""
        games = [g for g, b in BADGE_OF.items() if b == badge]
        marks = ",".join("?" * len(games))
        wins = self._x(f"SELECT COALESCE(SUM(counted_wins), 0) FROM stats "
                       f"WHERE name = ? AND game IN ({marks})", (key, *games)).fetchone()[0]
        if not badge_due(wins):
            return None
        cur = self._x("INSERT INTO badges (name, badge, earned) VALUES (?, ?, ?) "
                      "ON CONFLICT (name, badge) DO NOTHING", (key, badge, time.time()))
        return badge if cur.rowcount == 1 else None

    # ---- moderation (issue 11): bans, what operators did, players' reports -------------

    def add_ban(self, kind: str, value: str, until: float | None, author: str,
                reason: str) -> None:
        self._x("INSERT INTO bans (kind, value, until, author, reason, at) "
                "VALUES (?, ?, ?, ?, ?, ?)", (kind, value, until, author, reason, time.time()))

    def remove_bans(self, kind: str, value: str) -> int:
        """Lift every ban on ``kind``/``value``; how many there were in force."""
        now = time.time()
        cur = self._x("DELETE FROM bans WHERE kind = ? AND value = ? "
                      "AND (until IS NULL OR until > ?)", (kind, value, now))
        return int(cur.rowcount)

    def ban_in_force(self, kind: str, value: str) -> dict | None:
        """The longest ban in force on ``kind`` (name, key, addr) ``value``, if any."""
        row = self._x("SELECT until, author, reason FROM bans WHERE kind = ? AND value = ? "
                      "AND (until IS NULL OR until > ?) "
                      "ORDER BY CASE WHEN until IS NULL THEN 1 ELSE 0 END DESC, until DESC "
                      "LIMIT 1", (kind, value, time.time())).fetchone()
        return None if row is None else {"until": row[0], "by": clean_chat(row[1]),
                                         "reason": clean_chat(row[2])}

    def bans(self) -> list[dict]:
        rows = self._x("SELECT kind, value, until, author, reason FROM bans "
                       "WHERE until IS NULL OR until > ? ORDER BY at", (time.time(),))
        # Cleaned as read: operators see these on their screens and in a terminal.
        return [{"kind": clean_chat(r[0]), "value": clean_chat(r[1]), "until": r[2],
                 "by": clean_chat(r[3]), "reason": clean_chat(r[4])} for r in rows]

    def log_action(self, author: str, action: str, detail: str) -> None:
        """An operator's action, with who did it (kept for good)."""
        self._x("INSERT INTO moderation_log (at, author, action, detail) VALUES (?, ?, ?, ?)",
                (time.time(), author, action, detail))

    def actions_log(self, limit: int = 50) -> list[dict]:
        rows = self._x("SELECT at, author, action, detail FROM moderation_log "
                       "ORDER BY id DESC LIMIT ?", (limit,))
        return [{"at": r[0], "by": clean_chat(r[1]), "action": clean_chat(r[2]),
                 "detail": clean_chat(r[3])} for r in rows]

    def add_report(self, author: str, target: str, reason: str) -> None:
        self._x("INSERT INTO reports (at, author, target, reason) VALUES (?, ?, ?, ?)",
                (time.time(), author, target, reason))

    def reports(self, limit: int = 50) -> list[dict]:
        rows = self._x("SELECT at, author, target, reason FROM reports ORDER BY id DESC "
                       "LIMIT ?", (limit,))
        return [{"at": r[0], "by": clean_chat(r[1]), "target": clean_chat(r[2]),
                 "reason": clean_chat(r[3])} for r in rows]

    def _add_column(self, table: str, column: str, kind: str) -> None:
        """ALTER TABLE … ADD COLUMN, unless a database put back to an older schema
        version kept the column (downgraded by hand, or by a test)."""
        if self.kind == "postgres":
            self._x(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {kind}")
            return
        have = {row[1] for row in self._x(f"PRAGMA table_info({table})")}
        if column not in have:
            self._x(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")

    def _backfill_skeletons(self) -> None:
        """Migration 6: the skeleton of every name already bound."""
        rows = self._x("SELECT name_key, name FROM players").fetchall()
        for key, name in rows:
            self._x("UPDATE players SET skeleton = ? WHERE name_key = ?",
                    (skeleton(name), key))

    def _backfill_counted_wins(self) -> None:
        """Migration 4: count the wins already recorded (people throughout, not a draw)."""
        rows = self._x("SELECT game, seats, result FROM matches WHERE humans_throughout = 1 "
                       "AND finished IS NOT NULL").fetchall()
        for game, seats, result in rows:
            seats, result = json.loads(seats), json.loads(result)
            if "winners" not in result or result.get("draw"):
                continue
            for w in result["winners"]:
                if seats[w] and not seats[w].startswith("guest:"):
                    self._x("UPDATE stats SET counted_wins = counted_wins + 1 "
                            "WHERE name = ? AND game = ?", (name_key(seats[w]), game))

    # ---- reading for screens and the JSON ops --------------------------------------------

    def profile(self, name: str) -> dict | None:
        row = self._x("SELECT name, level_points, created FROM players WHERE name_key = ?",
                      (name_key(name),)).fetchone()
        if row is None:
            return None
        stats = {}
        for r in self._x("SELECT game, matches, wins, draws, losses, rounds, declarations, "
                         "declarations_made, calls, calls_made, dash_calls, dash_calls_made "
                         "FROM stats WHERE name = ? ORDER BY game", (name_key(name),)):
            (game, matches, wins, draws, losses, rounds, decl, made, calls, calls_made,
             dash, dash_made) = r
            stats[game] = {
                "matches": matches, "wins": wins, "draws": draws, "losses": losses,
                "rounds": rounds,
                "declarations_made_pct": _pct(made, decl),
                "calls_made_pct": _pct(calls_made, calls),
                "dash_calls_made_pct": _pct(dash_made, dash),
            }
        badges = [b for (b,) in self._x("SELECT badge FROM badges WHERE name = ? ORDER BY earned",
                                        (name_key(name),))]
        return {"name": clean_name(row[0]), "level_points": row[1], "since": row[2],
                "stats": stats, "badges": badges}

    def leaderboard(self, limit: int = 20) -> list[dict]:
        rows = self._x("SELECT name, level_points FROM players ORDER BY level_points DESC, name "
                       "LIMIT ?", (limit,))
        return [{"rank": i + 1, "name": clean_name(n), "level_points": p}
                for i, (n, p) in enumerate(rows)]


def _shown_seats(stored: object) -> list[str | None]:
    """A match's stored seat names (``guest:NAME``, a name, None for a computer player)
    as the screens may draw them: each name cleaned (``clean_name``)."""
    if not isinstance(stored, list):
        return []
    out: list[str | None] = []
    for name in stored:
        if name is None:
            out.append(None)
        elif isinstance(name, str) and name.startswith("guest:"):
            out.append("guest:" + clean_name(name[6:]))
        else:
            out.append(clean_name(name))
    return out


def _pct(a: int, b: int) -> float | None:
    return round(100.0 * a / b, 1) if b else None
