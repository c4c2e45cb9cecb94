"""Who is who: each name bound to the first key that proved it, a name's skeleton
(look-alikes), and each player's settings."""

from __future__ import annotations

import json
import logging
import time

from engine.room.text import clean_name, name_key, skeleton

from .database import Database

log = logging.getLogger("lamma.store")


class IdentityRows(Database):
    """Names, keys and settings (``engine.room.store.Identity``)."""


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

    def backfill_skeletons(self) -> None:
        """Migration 6: the skeleton of every name already bound."""
        rows = self._x("SELECT name_key, name FROM players").fetchall()
        for key, name in rows:
            self._x("UPDATE players SET skeleton = ? WHERE name_key = ?",
                    (skeleton(name), key))
