"""Everything the room keeps: players, every match and every accepted action,
results, statistics, level points and badges — one SQLite database (WAL).

Nothing is lost: ``append_action`` commits before the table shows anyone the
move, so a server killed at any moment restarts with every unfinished match
(``unfinished``) and replays it through ``engine.replay``. A finished match is
recorded once: ``finish_match`` only acts on a match not yet finished, and pays
statistics, level points and badges in the same transaction.

The SQL is plain enough for PostgreSQL too: ``?`` placeholders are rewritten by
the dialect and the few DDL differences live in ``DIALECTS`` (see README,
"Beyond one machine").
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from .text import name_key

# Room points (E-38 … E-40, the "Room points" sections of the kotshina and Tarneeb rules).
LEVEL_POINTS = {
    "estimation": {"win": 30, "draw": 10, "loss": -4},           # E-38
    "estimation-kotshina": None,                                   # statistics only
    "tarneeb41": {"win": 20, "draw": 0, "loss": -4},               # Tarneeb Decision
}
BADGE_OF = {"estimation": "estimation", "estimation-kotshina": "estimation",  # counts to E-40
            "tarneeb41": "tarneeb41"}
BADGE_WINS = 5                                                     # E-40, Tarneeb Decision

DIALECTS = {
    "sqlite": {"serial": "INTEGER PRIMARY KEY", "param": "?"},
    "postgres": {"serial": "BIGSERIAL PRIMARY KEY", "param": "%s"},
}

# Versioned migrations: never edit a released one, append a new one.
MIGRATIONS: list[list[str]] = [
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
]


class StoreError(RuntimeError):
    """The data folder cannot be used; the message says what to do."""


@dataclass
class StoredMatch:
    id: int
    table_id: str
    record: dict           # {"game","length","seed","deals","log"} for engine.replay
    seats: list            # per seat: a player name, or None for a computer player
    settings: dict
    humans_throughout: bool


class Store:
    def __init__(self, path: str | Path, dialect: str = "sqlite"):
        self.path = Path(path)
        self.dialect = DIALECTS[dialect]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL: a commit survives a killed process (the OS has it);
            # only a power cut could lose the last commits.
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA busy_timeout=5000")
            if not fresh:
                ok = self.db.execute("PRAGMA quick_check").fetchone()[0]
                if ok != "ok":
                    raise StoreError(f"{self.path} is damaged ({ok}); restore it from a "
                                     "backup (lamma backup) or move it away to start empty")
            self._migrate()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path} is not a usable Lamma database ({e}); restore it "
                             "from a backup (lamma backup) or move it away to start empty") from e

    # ---- plumbing -----------------------------------------------------------------

    def _sql(self, sql: str) -> str:
        return sql if self.dialect["param"] == "?" else sql.replace("?", self.dialect["param"])

    def _x(self, sql: str, args=()):
        return self.db.execute(self._sql(sql), args)

    def version(self) -> int:
        try:
            row = self.db.execute("SELECT version FROM schema_version").fetchone()
        except sqlite3.OperationalError:
            return 0
        return row[0] if row else 0

    def _migrate(self) -> None:
        self.db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        have = self.version()
        if have > len(MIGRATIONS):
            raise StoreError(f"{self.path} was written by a newer Lamma (schema {have}); "
                             "upgrade this server")
        for v in range(have, len(MIGRATIONS)):
            self.db.execute("BEGIN IMMEDIATE")
            try:
                for stmt in MIGRATIONS[v]:
                    self.db.execute(stmt.format(**self.dialect))
                self.db.execute("DELETE FROM schema_version")
                self.db.execute("INSERT INTO schema_version VALUES (?)", (v + 1,))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        self.db.close()

    def backup(self, target: str | Path) -> None:
        """SQLite's online backup: consistent while the server runs."""
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
        owner = self.owner(name)
        return owner is None or owner == fingerprint

    def bind(self, name: str, fingerprint: str) -> bool:
        """Bind ``name`` to a key. Call only once the key's signature is verified.
        False if another key owns the name."""
        now = time.time()
        self._x("INSERT INTO players (name_key, name, fingerprint, created, last_seen) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (name_key) DO NOTHING",
                (name_key(name), name, fingerprint, now, now))
        if self.owner(name) != fingerprint:
            return False
        self._x("UPDATE players SET last_seen = ? WHERE name_key = ?", (now, name_key(name)))
        return True

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
        cur = self._x(
            "INSERT INTO matches (table_id, game, length, seed, deals, seats, settings, "
            "humans_throughout, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (table_id, record["game"], json.dumps(record["length"]), str(record["seed"]),
             json.dumps(record["deals"]), json.dumps(seats), json.dumps(settings),
             int(humans), time.time()))
        return cur.lastrowid

    def append_action(self, match_id: int, seq: int, seat: int, action: dict) -> None:
        """Durable before anyone sees it (autocommit: one transaction per action)."""
        self._x("INSERT INTO actions (match_id, seq, seat, action, at) VALUES (?, ?, ?, ?, ?)",
                (match_id, seq, seat, json.dumps(action, separators=(",", ":")), time.time()))

    def set_seats(self, match_id: int, seats: list) -> None:
        """A seat changed hands; a computer player anywhere ends level-point eligibility."""
        self._x("UPDATE matches SET seats = ?, humans_throughout = humans_throughout * ? "
                "WHERE id = ?", (json.dumps(seats), int(all(s is not None for s in seats)),
                                 match_id))

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
        rows = self._x(f"SELECT {self._COLUMNS} FROM matches WHERE finished IS NULL "
                       "ORDER BY id").fetchall()
        return [self._load(r) for r in rows]

    def match(self, match_id: int) -> StoredMatch | None:
        row = self._x(f"SELECT {self._COLUMNS} FROM matches WHERE id = ?", (match_id,)).fetchone()
        return self._load(row) if row else None

    def finished_matches(self, limit: int = 50) -> list[dict]:
        rows = self._x("SELECT id, game, length, seats, result, finished FROM matches "
                       "WHERE finished IS NOT NULL ORDER BY finished DESC LIMIT ?", (limit,))
        return [{"id": r[0], "game": r[1], "length": json.loads(r[2]), "seats": json.loads(r[3]),
                 "result": json.loads(r[4]), "finished": r[5]} for r in rows]

    def abandon(self, match_id: int) -> None:
        """A match nobody will finish (its table was closed before the end)."""
        self._x("UPDATE matches SET finished = ?, result = ? WHERE id = ? AND finished IS NULL",
                (time.time(), json.dumps({"abandoned": True}), match_id))

    def finish_match(self, match_id: int, match) -> dict | None:
        """Record the result once, with statistics, level points and badges.

        Returns per-seat ``{"points": int, "badge": str|None}`` the first time,
        None if the match was already recorded.
        """
        stored = self.match(match_id)
        if stored is None:
            return None
        game = match.game
        result = match.result
        self.db.execute("BEGIN IMMEDIATE")
        try:
            cur = self._x("UPDATE matches SET finished = ?, result = ? "
                          "WHERE id = ? AND finished IS NULL",
                          (time.time(), json.dumps(result), match_id))
            if cur.rowcount != 1:
                self.db.execute("ROLLBACK")
                return None
            humans = stored.humans_throughout and all(s is not None for s in stored.seats)
            table = LEVEL_POINTS[game]
            paid = {}
            for seat, name in enumerate(stored.seats):
                if name is None or name.startswith("guest:"):
                    continue
                outcome = self._outcome(result, seat)
                key = name_key(name)
                self._count(key, game, outcome, seat, match)
                points = table[outcome] if (table and humans) else 0
                badge = None
                if points:
                    self._x("UPDATE players SET level_points = level_points + ? "
                            "WHERE name_key = ?", (points, name_key(name)))
                if humans and outcome == "win":
                    badge = self._maybe_badge(key, BADGE_OF[game])
                paid[seat] = {"points": points, "badge": badge}
            self.db.execute("COMMIT")
            return paid
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    @staticmethod
    def _outcome(result: dict, seat: int) -> str:
        if seat not in result["winners"]:
            return "loss"
        return "draw" if result["draw"] else "win"

    def _count(self, key: str, game: str, outcome: str, seat: int, match) -> None:
        rounds = [r for r in match.history if not r.get("void")]
        decl = made = calls = calls_made = dash = dash_made = 0
        for r in rounds:
            if seat in r["dash_players"]:
                dash += 1
                dash_made += r["tricks_taken"][seat] == 0
                continue
            decl += 1
            made += bool(r["made"][seat])
            if r["caller"] == seat and not r.get("all_pass"):
                calls += 1
                calls_made += bool(r["made"][seat])
        self._x("INSERT INTO stats (name, game) VALUES (?, ?) ON CONFLICT (name, game) DO NOTHING",
                (key, game))
        column = {"win": "wins", "draw": "draws", "loss": "losses"}[outcome]
        self._x(f"""UPDATE stats SET matches = matches + 1, {column} = {column} + 1,
                    rounds = rounds + ?, declarations = declarations + ?,
                    declarations_made = declarations_made + ?, calls = calls + ?,
                    calls_made = calls_made + ?, dash_calls = dash_calls + ?,
                    dash_calls_made = dash_calls_made + ? WHERE name = ? AND game = ?""",
                (len(rounds), decl, made, calls, calls_made, dash, dash_made, key, game))

    def _maybe_badge(self, key: str, badge: str) -> str | None:
        """E-40 (and the Tarneeb Decision): the badge at the fifth counted win, once."""
        games = [g for g, b in BADGE_OF.items() if b == badge]
        if self._human_wins(key, games) < BADGE_WINS:
            return None
        cur = self._x("INSERT INTO badges (name, badge, earned) VALUES (?, ?, ?) "
                      "ON CONFLICT (name, badge) DO NOTHING", (key, badge, time.time()))
        return badge if cur.rowcount == 1 else None

    def _human_wins(self, key: str, games: list[str]) -> int:
        n = 0
        marks = ",".join("?" * len(games))
        for seats, result in self._x(
                f"SELECT seats, result FROM matches WHERE game IN ({marks}) AND humans_throughout = 1 "
                "AND finished IS NOT NULL", games):
            seats, result = json.loads(seats), json.loads(result)
            if "winners" not in result or result.get("draw"):
                continue
            if any(seats[w] and name_key(seats[w]) == key for w in result["winners"]):
                n += 1
        return n

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
        return {"name": row[0], "level_points": row[1], "since": row[2], "stats": stats,
                "badges": badges}

    def leaderboard(self, limit: int = 20) -> list[dict]:
        rows = self._x("SELECT name, level_points FROM players ORDER BY level_points DESC, name "
                       "LIMIT ?", (limit,))
        return [{"rank": i + 1, "name": n, "level_points": p} for i, (n, p) in enumerate(rows)]


def _pct(a: int, b: int) -> float | None:
    return round(100.0 * a / b, 1) if b else None
