"""Who is who: each name bound to the first key that proved it, a name's skeleton
(look-alikes), and each player's settings."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import time

from engine.room.text import clean_name, name_key, skeleton

from .database import Database

log = logging.getLogger("lamma.store")


def _digest(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


class IdentityRows(Database):
    """Names, keys and settings (``engine.room.store.Identity``)."""


    def owner(self, name: str) -> str | None:
        """The fingerprint of the key that made ``name``, its identity (names are unique
        case-folded); the keys that may log in under it are ``keys_of``."""
        row = self._x("SELECT fingerprint FROM players WHERE name_key = ?",
                      (name_key(name),)).fetchone()
        return row[0] if row else None

    def may_use(self, name: str, fingerprint: str) -> bool:
        """May this key log in under ``name``: one of its keys, or a name nobody owns.
        (Whether a new name looks like another is ``lookalike_of``; ``bind`` refuses it.)"""
        return self.owner(name) is None or self.holds(name, fingerprint)

    def holds(self, name: str, fingerprint: str) -> bool:
        """Is this key one of ``name``'s?"""
        return any(fp == fingerprint for fp, _ in self.keys_of(name))

    def keys_of(self, name: str) -> list[tuple[str, float]]:
        """The keys that may log in under ``name``: (fingerprint, when added), oldest
        first. A name with none in player_keys (an older schema; a row written by hand)
        has its identity key."""
        rows: list[tuple[str, float]] = []
        if self.keyed:
            rows = [(r[0], r[1]) for r in self._x(
                "SELECT fingerprint, added FROM player_keys WHERE name_key = ? "
                "ORDER BY added", (name_key(name),))]
        if not rows:
            row = self._x("SELECT fingerprint, created FROM players WHERE name_key = ?",
                          (name_key(name),)).fetchone()
            if row is not None:
                rows = [(row[0], row[1])]
        return rows

    def add_key(self, name: str, fingerprint: str) -> bool:
        """Another key for an owned name (a player's one-time code); False if the name
        is nobody's."""
        with self._tx():
            if self.owner(name) is None:
                return False
            self._x("INSERT INTO player_keys (name_key, fingerprint, added) VALUES (?, ?, ?) "
                    "ON CONFLICT (name_key, fingerprint) DO NOTHING",
                    (name_key(name), fingerprint, time.time()))
        return True

    def move_to_key(self, name: str, fingerprint: str) -> bool:
        """An operator's: ``name`` logs in with this key only from now on (its other keys
        no longer). Its identity (players.fingerprint: its seats, its bans) stays."""
        key = name_key(name)
        with self._tx():
            if self.owner(name) is None:
                return False
            self._x("DELETE FROM player_keys WHERE name_key = ?", (key,))
            self._x("DELETE FROM key_codes WHERE name_key = ?", (key,))   # (a thief's)
            self._x("INSERT INTO player_keys (name_key, fingerprint, added) VALUES (?, ?, ?)",
                    (key, fingerprint, time.time()))
        return True

    # A player adds a key (issue 45): their session makes a one-time code; the other
    # device, with the new key, gives it within CODE_SECONDS, in at most CODE_TRIES.
    CODE_SECONDS = 600.0
    CODE_TRIES = 5

    def make_code(self, name: str) -> str:
        """A new one-time code for ``name`` (any earlier one is void); only its hash is
        kept."""
        alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
        raw = "".join(secrets.choice(alphabet) for _ in range(10))
        code = f"{raw[:5]}-{raw[5:]}"
        self._x("DELETE FROM key_codes WHERE name_key = ?", (name_key(name),))
        self._x("INSERT INTO key_codes (name_key, code, expires, tries) VALUES (?, ?, ?, 0)",
                (name_key(name), _digest(code), time.time() + self.CODE_SECONDS))
        return code

    def code_pending(self, name: str) -> bool:
        """Is a code waiting for ``name`` (a new key may then log in to give it)?"""
        if not self.keyed:
            return False
        row = self._x("SELECT expires, tries FROM key_codes WHERE name_key = ?",
                      (name_key(name),)).fetchone()
        return row is not None and row[0] > time.time() and row[1] < self.CODE_TRIES

    def use_code(self, name: str, code: str, fingerprint: str) -> bool:
        """``code`` given with a new key: right (and in time) adds the key to ``name``
        and spends the code; wrong counts a try."""
        key = name_key(name)
        with self._tx():
            row = self._x("SELECT code, expires, tries FROM key_codes WHERE name_key = ?",
                          (key,)).fetchone()
            if row is None or row[1] <= time.time() or row[2] >= self.CODE_TRIES:
                return False
            if not hmac.compare_digest(row[0], _digest(code.strip().lower())):
                self._x("UPDATE key_codes SET tries = tries + 1 WHERE name_key = ?", (key,))
                return False
            self._x("DELETE FROM key_codes WHERE name_key = ?", (key,))
            self._x("INSERT INTO player_keys (name_key, fingerprint, added) VALUES (?, ?, ?) "
                    "ON CONFLICT (name_key, fingerprint) DO NOTHING",
                    (key, fingerprint, time.time()))
        return True

    def rename(self, old: str, new: str) -> str | None:
        """An operator's: ``old`` becomes ``new``, with its keys, settings, points,
        statistics and badges (past matches keep the name they were played under).
        Why not, or None if done."""
        ok, nk = name_key(old), name_key(new)
        with self._tx():
            if self.dialect["name_lock"]:
                self.db.execute(self.dialect["name_lock"])
            if self.owner(old) is None:
                return f"nobody is called {old}"
            if nk != ok and self.owner(new) is not None:
                return f"{new} is taken"
            like = self.lookalike_of(new)
            if like is not None and name_key(like) != ok:
                return f"{new} looks like {like}, which is taken"
            self._x("UPDATE players SET name_key = ?, name = ? WHERE name_key = ?",
                    (nk, new, ok))
            if self.skeletons:
                self._x("UPDATE players SET skeleton = ? WHERE name_key = ?",
                        (skeleton(new), nk))
            self._x("DELETE FROM key_codes WHERE name_key = ?", (ok,))
            for table, column in (("player_keys", "name_key"), ("stats", "name"),
                                  ("badges", "name")):
                self._x(f"UPDATE {table} SET {column} = ? WHERE {column} = ?", (nk, ok))
        return None

    def delete_player(self, name: str) -> bool:
        """An operator's: the name is nobody's again (its keys, settings, points,
        statistics and badges gone; past matches keep the name they were played under)."""
        key = name_key(name)
        with self._tx():
            if self.owner(name) is None:
                return False
            for table, column in (("players", "name_key"), ("player_keys", "name_key"),
                                  ("key_codes", "name_key"), ("stats", "name"),
                                  ("badges", "name")):
                self._x(f"DELETE FROM {table} WHERE {column} = ?", (key,))
        return True

    def players(self, pattern: str = "", limit: int = 50) -> list[dict]:
        """Players whose name holds ``pattern`` (case-folded), most recently seen first:
        name, identity key, keys, when made and last seen, level points."""
        like = "%" + name_key(pattern).replace("%", "").replace("_", "") + "%"
        rows = self._x("SELECT name_key, name, fingerprint, created, last_seen, level_points "
                       "FROM players WHERE name_key LIKE ? ORDER BY last_seen DESC LIMIT ?",
                       (like, limit)).fetchall()
        return [{"name": clean_name(r[1]), "identity": r[2], "created": r[3],
                 "last_seen": r[4], "points": r[5],
                 "keys": [fp for fp, _ in self.keys_of(r[1])]} for r in rows]

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
        """Bind ``name`` to a key (a new name: this key is its identity and its first
        key), or check that the key is one of the name's. Call only once the key's
        signature is verified. False if the name is another key's, or if the name is
        new and looks like one already owned (``lookalike_of`` says which)."""
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
                if owner == fingerprint and self.keyed:
                    self._x("INSERT INTO player_keys (name_key, fingerprint, added) "
                            "VALUES (?, ?, ?) ON CONFLICT (name_key, fingerprint) DO NOTHING",
                            (key, fingerprint, now))
            if not self.holds(name, fingerprint):
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
