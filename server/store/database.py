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

import logging
import os
import re
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Self, TypedDict
from urllib.parse import urlsplit, urlunsplit

from engine.room.store import StoreUnavailable

log = logging.getLogger("lamma.store")


class Dialect(TypedDict):
    serial: str                  # the id column's type
    param: str                   # the driver's placeholder
    begin: str                   # how a write transaction starts
    migration_lock: str | None   # taken before migrating (processes starting together)
    name_lock: str | None        # taken before binding a name (look-alikes checked first)
    types: dict[str, str]        # column types spelled otherwise
    now: str                     # the database's clock, in seconds since 1970


# The room's rows are timed by the database's clock (``server/store/cluster.py``), so
# the processes' clocks never have to agree; spelled here as PostgreSQL says it.
NOW = "EXTRACT(EPOCH FROM clock_timestamp())::float8"


DIALECTS: dict[str, Dialect] = {
    "sqlite": {
        "serial": "INTEGER PRIMARY KEY", "param": "?",
        # IMMEDIATE takes the write lock at once, so a transaction never fails
        # half-way on a lock upgrade; it also serialises migrations.
        "begin": "BEGIN IMMEDIATE", "migration_lock": None, "name_lock": None,
        "types": {},
        "now": "((julianday('now') - 2440587.5) * 86400.0)",
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
        "now": NOW,
    },
}

def _one_deal_per_board(store: Database) -> None:
    """The migration of matches_one_deal: the copies of an entry's board (dealt twice
    before boards were claimed, schema 11) are set aside, one kept: the one whose result
    is recorded, else one played to its end, else one still in play, else the first. A
    copy keeps its event (never listed among the replays, its record kept) but belongs
    to no entry (entrant NULL), and one never finished is abandoned, so no restart
    resumes it."""
    rows = store._x(
        "SELECT m.id, m.event_id, m.entrant, m.event_board, m.finished, m.result, "
        "r.match_id FROM matches m LEFT JOIN event_results r ON r.event_id = m.event_id "
        "AND r.entrant = m.entrant AND r.board = m.event_board WHERE m.event_id IS NOT NULL "
        "AND m.entrant IS NOT NULL AND m.event_board IS NOT NULL").fetchall()
    boards: dict[tuple, list] = {}
    for row in rows:
        boards.setdefault((row[1], row[2], row[3]), []).append(row)

    def kept_first(row) -> tuple[int, int]:
        mid, finished, result, scored = row[0], row[4], row[5], row[6]
        if scored == mid:
            rank = 0
        elif finished is not None and "abandoned" not in (result or ""):
            rank = 1
        else:
            rank = 2 if finished is None else 3
        return rank, int(mid)

    now = time.time()
    for copies in boards.values():
        if len(copies) < 2:
            continue
        keep, *others = sorted(copies, key=kept_first)
        for row in others:
            store._x("UPDATE matches SET entrant = NULL, finished = COALESCE(finished, ?), "
                     "result = COALESCE(result, ?) WHERE id = ?",
                     (now, '{"abandoned": true}', row[0]))
        log.warning("event %s board %s of %s was dealt %d times: match %s kept, %s set "
                    "aside", keep[1], keep[3], keep[2], len(copies), keep[0],
                    ", ".join(str(r[0]) for r in others))


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
        lambda store: store.backfill_counted_wins(),
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
        lambda store: store.backfill_skeletons(),
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
    [  # 9: duplicate events (engine/room/duplicate.py): the events (a daily one once per
       # game and day), one entry per key, each board's result; a match that is an
       # event's board says which (its round, its event and board, whose entry)
        """CREATE TABLE IF NOT EXISTS events (
            id {serial}, game TEXT NOT NULL, boards INTEGER NOT NULL, seed TEXT NOT NULL,
            samples INTEGER NOT NULL, opens REAL NOT NULL, closes REAL NOT NULL,
            private INTEGER NOT NULL DEFAULT 0, code TEXT, creator TEXT, creator_name TEXT,
            daily TEXT UNIQUE, created REAL NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS events_closes ON events (closes)",
        """CREATE TABLE IF NOT EXISTS event_entries (
            event_id INTEGER NOT NULL, entrant TEXT NOT NULL, name TEXT NOT NULL,
            started REAL NOT NULL, PRIMARY KEY (event_id, entrant))""",
        """CREATE TABLE IF NOT EXISTS event_results (
            event_id INTEGER NOT NULL, entrant TEXT NOT NULL, board INTEGER NOT NULL,
            seat INTEGER NOT NULL, score INTEGER NOT NULL, facts TEXT NOT NULL,
            name TEXT NOT NULL, match_id INTEGER, at REAL NOT NULL,
            PRIMARY KEY (event_id, entrant, board))""",
        lambda store: store._add_column("matches", "board", "TEXT"),
        lambda store: store._add_column("matches", "event_id", "INTEGER"),
        lambda store: store._add_column("matches", "event_board", "INTEGER"),
        lambda store: store._add_column("matches", "entrant", "TEXT"),
        "CREATE INDEX IF NOT EXISTS matches_event ON matches (event_id, entrant)",
    ],
    [  # 10: reviews of finished rounds (engine/bots/review.py), computed once and kept with
       # their match: a replay or a restart shows them without computing them again
        """CREATE TABLE IF NOT EXISTS reviews (
            match_id INTEGER NOT NULL, round INTEGER NOT NULL, seat INTEGER NOT NULL,
            body TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (match_id, round, seat))""",
    ],
    [  # 11: one entry, one deal (issue 41): a board is claimed for an entrant before it is
       # dealt, in one row, so two processes entering for the same key deal it once
        """CREATE TABLE IF NOT EXISTS event_deals (
            event_id INTEGER NOT NULL, entrant TEXT NOT NULL, board INTEGER NOT NULL,
            at REAL NOT NULL, PRIMARY KEY (event_id, entrant, board))""",
    ],
    [  # 12: who made each table, shared (issue 41): the cap of open tables per person
       # counts the tables one made through every process of the room
        lambda store: store._add_column("room_tables", "creator", "TEXT"),
        # ... and who is connected to each process, for /who across the room
        lambda store: store._add_column("room_processes", "people", "TEXT"),
    ],
    [  # 13: the keys that may log in under a name (issue 45): the first, which made the
       # name and stays its identity (players.fingerprint: seats and bans hang on it),
       # a second added by the player with a one-time code, one an operator moved the
       # name to
        """CREATE TABLE IF NOT EXISTS player_keys (
            name_key TEXT NOT NULL, fingerprint TEXT NOT NULL, added REAL NOT NULL,
            PRIMARY KEY (name_key, fingerprint))""",
        "CREATE INDEX IF NOT EXISTS player_keys_fp ON player_keys (fingerprint)",
        "INSERT INTO player_keys (name_key, fingerprint, added) "
        "SELECT name_key, fingerprint, created FROM players WHERE 1 = 1 "
        "ON CONFLICT (name_key, fingerprint) DO NOTHING",
        # ... and the one-time code a player's session makes to add a key (its hash),
        # until it is used, expires, or is tried too often
        """CREATE TABLE IF NOT EXISTS key_codes (
            name_key TEXT PRIMARY KEY, code TEXT NOT NULL, expires REAL NOT NULL,
            tries INTEGER NOT NULL DEFAULT 0)""",
    ],
    [  # 14: the room in a web browser (server/web): the key its tokens are signed with
       # (one for every process of a room), the one-time codes an SSH session shows to
       # link a browser, and the browsers linked to a player's name (only hashes of
       # the codes and the tokens' secrets are kept)
        """CREATE TABLE IF NOT EXISTS web_secret (
            id INTEGER PRIMARY KEY, secret TEXT NOT NULL)""",
        """CREATE TABLE IF NOT EXISTS web_codes (
            code_hash TEXT PRIMARY KEY, name_key TEXT NOT NULL, name TEXT NOT NULL,
            fingerprint TEXT NOT NULL, expires REAL NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS web_codes_name ON web_codes (name_key)",
        """CREATE TABLE IF NOT EXISTS web_links (
            id TEXT PRIMARY KEY, name_key TEXT NOT NULL, name TEXT NOT NULL,
            fingerprint TEXT NOT NULL, secret_hash TEXT NOT NULL, label TEXT NOT NULL,
            created REAL NOT NULL, last_used REAL NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS web_links_name ON web_links (name_key)",
    ],
    [  # 15: one entry, one deal (issue 41), in the matches themselves: the copies of an
       # entry's board made before schema 11 set aside (one kept), every board dealt
       # given its claim, and no second match of one entry's board can be stored
        _one_deal_per_board,
        "INSERT INTO event_deals (event_id, entrant, board, at) "
        "SELECT event_id, entrant, event_board, MIN(created) FROM matches "
        "WHERE event_id IS NOT NULL AND entrant IS NOT NULL AND event_board IS NOT NULL "
        "GROUP BY event_id, entrant, event_board "
        "ON CONFLICT (event_id, entrant, board) DO NOTHING",
        "CREATE UNIQUE INDEX IF NOT EXISTS matches_one_deal "
        "ON matches (event_id, entrant, event_board) WHERE event_id IS NOT NULL",
    ],
    [  # 16: the room's people state, one for every process (issue 41): mutes (each
       # mark a mute set: a name, a key, a guest's address), which tables count for the
       # caps (claimed at creation, under one lock), and the names connected to each
       # process (a guest's look-alike of a name in use anywhere is refused)
        """CREATE TABLE IF NOT EXISTS room_mutes (
            mark TEXT PRIMARY KEY, name_key TEXT NOT NULL, until REAL NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS room_mutes_name ON room_mutes (name_key)",
        lambda store: store._add_column("room_tables", "counted", "INTEGER"),
        lambda store: store._add_column("room_processes", "names", "TEXT"),
        lambda store: store._add_column("room_processes", "names_at", store._ddl("REAL")),
    ],
    [  # 17: a table's changes as the events that made them (issue 41), numbered in the
       # table's order and written by its driver with the table's other writes; the
       # other processes apply them in order and fill a gap from here
        """CREATE TABLE IF NOT EXISTS room_table_events (
            table_id TEXT NOT NULL, seq INTEGER NOT NULL, driver TEXT NOT NULL,
            epoch INTEGER NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL,
            PRIMARY KEY (table_id, seq))""",
    ],
    [  # 18: the address a table was made from (issue 41: the share of the room's tables
       # one address may make counts every process's)
        lambda store: store._add_column("room_tables", "address", "TEXT"),
    ],
]
SKELETONS_FROM = 6   # the schema version with players.skeleton (older: no look-alike check)
KEYS_FROM = 13       # ... with player_keys (older: a name's one key is players.fingerprint)

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


def psycopg_module():
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


class Database:
    """One database and its connection: ``target``, a SQLite file path or a
    ``postgresql://`` URL; ``process``, this server process's name. The SQL of each
    part of the store (``identity``, ``matches``, ``records``, ``moderation``,
    ``cluster``) runs through ``_x`` and ``_tx`` here, in one dialect table."""

    def __init__(self, target: str | Path, process: str = ""):
        self.process = process
        self.target = target
        # Actions only while this process drives their table (server.cluster sets it on
        # the writer's connection of a room that spans processes).
        self.fenced = False
        # SET statements for every connection this store makes (again after a lost one).
        self.session: list[str] = []
        self.skeletons = False        # players.skeleton exists (set by _migrate)
        self.keyed = False            # player_keys exists (set by _migrate)
        self._lost_at: float | None = None    # when the connection was lost (PostgreSQL)
        if is_postgres(target):
            self.kind, self.path, self.where = "postgres", None, redact(str(target))
            self.dialect = DIALECTS["postgres"]
            psycopg = psycopg_module()
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
            db = psycopg_module().connect(self.target, autocommit=True, connect_timeout=5,
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

    def another(self) -> Self:
        """The same database through a connection of its own (already checked and
        migrated by this one), for the room's writer thread."""
        other = object.__new__(type(self))
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
            psycopg = psycopg_module()
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
                if NOW in sql:
                    sql = sql.replace(NOW, self.dialect["now"])
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
                    self.keyed = have >= KEYS_FROM
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

    def _add_column(self, table: str, column: str, kind: str) -> None:
        """ALTER TABLE … ADD COLUMN, unless a database put back to an older schema
        version kept the column (downgraded by hand, or by a test)."""
        if self.kind == "postgres":
            self._x(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {kind}")
            return
        have = {row[1] for row in self._x(f"PRAGMA table_info({table})")}
        if column not in have:
            self._x(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
