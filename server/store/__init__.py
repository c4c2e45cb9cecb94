"""Everything the room keeps, split by what it keeps (one database, one connection):

- ``identity``: who is who (names bound to keys, look-alike skeletons, settings);
- ``matches``: every match and every accepted action, and a result recorded once;
- ``records``: statistics, level points and badges (as the rules pay them), a profile,
  the leaderboard;
- ``moderation``: bans, what operators did, players' reports;
- ``events``: duplicate events, one entry per key, each board's result;
- ``web``: browsers linked to a player's name, the codes that link them (server/web);
- ``cluster``: a room across processes (tables, requests, heartbeats; PostgreSQL);
- ``database``: the connection, the SQL dialect table (SQLite or PostgreSQL) and the
  migrations every part's tables come from.

Each part answers a typed interface of the table engine (``engine.room.store``);
``Store`` is all of them on one database, so one transaction can span them (a
match's result and what it pays).
"""

from __future__ import annotations

from .cluster import ClusterRows
from .database import DIALECTS, MIGRATIONS, SKELETONS_FROM, StoreError, is_postgres, redact
from .events import EventRows
from .identity import IdentityRows
from .moderation import ModerationRows
from .web import WebRows


class Store(IdentityRows, ModerationRows, EventRows, WebRows, ClusterRows):
    """The room's database: ``Store(path)`` (SQLite) or ``Store(url)`` (PostgreSQL)."""


__all__ = ["DIALECTS", "MIGRATIONS", "SKELETONS_FROM", "Store", "StoreError", "is_postgres",
           "redact"]
