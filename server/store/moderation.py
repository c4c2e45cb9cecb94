"""Moderation (issue 11): bans by key, name or address, what operators did, and
players' reports."""

from __future__ import annotations

import logging
import time

from engine.room.store import Ban, BanRow, LoggedAction, Report
from engine.room.text import clean_chat

from .database import Database

log = logging.getLogger("lamma.store")


class ModerationRows(Database):
    """Bans, the operators' log and reports."""


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

    def ban_in_force(self, kind: str, value: str) -> Ban | None:
        """The longest ban in force on ``kind`` (name, key, addr) ``value``, if any."""
        row = self._x("SELECT until, author, reason FROM bans WHERE kind = ? AND value = ? "
                      "AND (until IS NULL OR until > ?) "
                      "ORDER BY CASE WHEN until IS NULL THEN 1 ELSE 0 END DESC, until DESC "
                      "LIMIT 1", (kind, value, time.time())).fetchone()
        return None if row is None else {"until": row[0], "by": clean_chat(row[1]),
                                         "reason": clean_chat(row[2])}

    def bans(self) -> list[BanRow]:
        rows = self._x("SELECT kind, value, until, author, reason FROM bans "
                       "WHERE until IS NULL OR until > ? ORDER BY at", (time.time(),))
        # Cleaned as read: operators see these on their screens and in a terminal.
        return [{"kind": clean_chat(r[0]), "value": clean_chat(r[1]), "until": r[2],
                 "by": clean_chat(r[3]), "reason": clean_chat(r[4])} for r in rows]

    # ---- mutes, the room's (issue 41): every process of a room enforces them
    def add_mute(self, nk: str, marks: list[str], until: float) -> None:
        """``nk``'s mute: each of ``marks`` (a name, a key, a guest's address) until
        ``until`` (wall-clock seconds); expired mutes go."""
        with self._tx():
            self._x("DELETE FROM room_mutes WHERE until <= ?", (time.time(),))
            for mark in marks:
                self._x("INSERT INTO room_mutes (mark, name_key, until) VALUES (?, ?, ?) "
                        "ON CONFLICT (mark) DO UPDATE SET name_key = excluded.name_key, "
                        "until = excluded.until", (mark, nk, until))

    def remove_mutes(self, nk: str) -> int:
        """``nk``'s mute lifted (every mark it set); how many marks there were."""
        return int(self._x("DELETE FROM room_mutes WHERE name_key = ?", (nk,)).rowcount)

    def mutes(self) -> list[tuple[str, str, float]]:
        """(mark, name key, until) of every mute in force."""
        return [(str(m), str(n), float(u)) for m, n, u in self._x(
            "SELECT mark, name_key, until FROM room_mutes WHERE until > ?",
            (time.time(),)).fetchall()]

    def log_action(self, author: str, action: str, detail: str) -> None:
        """An operator's action, with who did it (kept for good)."""
        self._x("INSERT INTO moderation_log (at, author, action, detail) VALUES (?, ?, ?, ?)",
                (time.time(), author, action, detail))

    def actions_log(self, limit: int = 50) -> list[LoggedAction]:
        rows = self._x("SELECT at, author, action, detail FROM moderation_log "
                       "ORDER BY id DESC LIMIT ?", (limit,))
        return [{"at": r[0], "by": clean_chat(r[1]), "action": clean_chat(r[2]),
                 "detail": clean_chat(r[3])} for r in rows]

    def add_report(self, author: str, target: str, reason: str) -> None:
        self._x("INSERT INTO reports (at, author, target, reason) VALUES (?, ?, ?, ?)",
                (time.time(), author, target, reason))

    def reports(self, limit: int = 50) -> list[Report]:
        rows = self._x("SELECT at, author, target, reason FROM reports ORDER BY id DESC "
                       "LIMIT ?", (limit,))
        return [{"at": r[0], "by": clean_chat(r[1]), "target": clean_chat(r[2]),
                 "reason": clean_chat(r[3])} for r in rows]
