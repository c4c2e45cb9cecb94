"""The room in a web browser (server/web): the key its tokens are signed with, the
one-time codes that link a browser to a player's name, and the linked browsers
(``engine.room.store.BrowserLinkStore``). Only hashes of the codes and of the tokens'
secrets are kept: a copy of the database links no browser."""

from __future__ import annotations

import secrets
import time

from engine.room.store import LinkedBrowser
from engine.room.text import name_key

from .database import Database

LINKS_PER_NAME = 20          # browsers linked to one name; the oldest goes past it


class WebRows(Database):
    """Web secrets, link codes and linked browsers."""

    def web_secret(self) -> str:
        """The room's signing key for browser tokens: made once, shared by every
        process of the room (the first to ask writes it)."""
        row = self._x("SELECT secret FROM web_secret WHERE id = 1").fetchone()
        if row is None:
            self._x("INSERT INTO web_secret (id, secret) VALUES (1, ?) "
                    "ON CONFLICT (id) DO NOTHING", (secrets.token_hex(32),))
            row = self._x("SELECT secret FROM web_secret WHERE id = 1").fetchone()
        return str(row[0])

    def add_link_code(self, code_hash: str, name: str, fingerprint: str,
                      expires: float) -> None:
        """A new code for ``name`` (its key's): any earlier code of that name goes, and
        so do expired codes of everyone."""
        with self._tx():
            self._x("DELETE FROM web_codes WHERE name_key = ? OR expires < ?",
                    (name_key(name), time.time()))
            self._x("INSERT INTO web_codes (code_hash, name_key, name, fingerprint, expires) "
                    "VALUES (?, ?, ?, ?, ?)", (code_hash, name_key(name), name, fingerprint,
                                               expires))

    def take_link_code(self, code_hash: str) -> tuple[str, str] | None:
        """The name and key fingerprint a code was made for, once: the code is used up
        (None if there is no such code in force)."""
        with self._tx():
            row = self._x("SELECT name, fingerprint, expires FROM web_codes "
                          "WHERE code_hash = ?", (code_hash,)).fetchone()
            if row is None:
                return None
            self._x("DELETE FROM web_codes WHERE code_hash = ?", (code_hash,))
        if row[2] < time.time():
            return None
        return str(row[0]), str(row[1])

    def add_link(self, link_id: str, name: str, fingerprint: str, secret_hash: str,
                 label: str) -> None:
        now = time.time()
        nk = name_key(name)
        with self._tx():
            self._x("INSERT INTO web_links (id, name_key, name, fingerprint, secret_hash, "
                    "label, created, last_used) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (link_id, nk, name, fingerprint, secret_hash, label[:80], now, now))
            old = self._x("SELECT id FROM web_links WHERE name_key = ? "
                          "ORDER BY last_used DESC, created DESC", (nk,)).fetchall()
            for (gone,) in old[LINKS_PER_NAME:]:
                self._x("DELETE FROM web_links WHERE id = ?", (gone,))

    def link(self, link_id: str) -> tuple[str, str, str, float] | None:
        """(name, fingerprint, secret hash, last used) of a linked browser, or None."""
        row = self._x("SELECT name, fingerprint, secret_hash, last_used FROM web_links "
                      "WHERE id = ?", (link_id,)).fetchone()
        return None if row is None else (str(row[0]), str(row[1]), str(row[2]), float(row[3]))

    def touch_link(self, link_id: str) -> None:
        self._x("UPDATE web_links SET last_used = ? WHERE id = ?", (time.time(), link_id))

    def links_of(self, name: str) -> list[LinkedBrowser]:
        """The browsers linked to ``name``, the most recently used first."""
        rows = self._x("SELECT id, label, created, last_used FROM web_links "
                       "WHERE name_key = ? ORDER BY last_used DESC, created DESC",
                       (name_key(name),)).fetchall()
        return [LinkedBrowser(str(r[0]), str(r[1]), float(r[2]), float(r[3])) for r in rows]

    def remove_links(self, name: str, link_id: str | None = None,
                     older_than: float | None = None) -> int:
        """Unlink one browser of ``name`` (or all of them); with ``older_than``, those
        of everyone unused since then. How many went."""
        if older_than is not None:
            cur = self._x("DELETE FROM web_links WHERE last_used < ?", (older_than,))
        elif link_id is None:
            cur = self._x("DELETE FROM web_links WHERE name_key = ?", (name_key(name),))
        else:
            cur = self._x("DELETE FROM web_links WHERE name_key = ? AND id = ?",
                          (name_key(name), link_id))
        return int(cur.rowcount)
