"""Who is who: a name belongs to the first key that proves it.

Bindings live in ``DATA/lamma.db`` (SQLite, WAL). The players table is the
seed of the later persistence issue; keep its columns stable.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from .text import name_key

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    name_key    TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    created     REAL NOT NULL,
    last_seen   REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS players_fp ON players(fingerprint);
"""


class IdentityStore:
    def __init__(self, path: Path | str):
        self.path = str(path)
        self.db = sqlite3.connect(self.path, isolation_level=None,
                                  check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def owner(self, name: str) -> str | None:
        """Fingerprint bound to ``name`` or None when the name is free."""
        row = self.db.execute(
            "SELECT fingerprint FROM players WHERE name_key=?", (name_key(name),)
        ).fetchone()
        return row[0] if row else None

    def may_use(self, name: str, fingerprint: str) -> bool:
        owner = self.owner(name)
        return owner is None or owner == fingerprint

    def bind(self, name: str, fingerprint: str) -> bool:
        """Bind a free name to a proven key; True if the key now owns it.

        Only call after the key's signature was verified.
        """
        now = time.time()
        self.db.execute(
            "INSERT OR IGNORE INTO players(name_key, name, fingerprint, created,"
            " last_seen) VALUES (?,?,?,?,?)",
            (name_key(name), name, fingerprint, now, now),
        )
        owner = self.owner(name)
        if owner == fingerprint:
            self.db.execute("UPDATE players SET last_seen=? WHERE name_key=?",
                            (now, name_key(name)))
            return True
        return False
