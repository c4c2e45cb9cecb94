"""What players have to show: statistics per game, level points, badges, and the
leaderboard, written as the rules worked them out (``engine.records``)."""

from __future__ import annotations

import json
import logging
import time

from engine.records import BADGE_OF, SeatRecord, badge_due
from engine.room.store import GameStats, LeaderRow, Profile
from engine.room.text import clean_name, name_key

from .database import Database

log = logging.getLogger("lamma.store")


class RecordRows(Database):
    """Statistics, level points, badges; a profile and the leaderboard."""

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

    def backfill_counted_wins(self) -> None:
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


    def profile(self, name: str) -> Profile | None:
        row = self._x("SELECT name, level_points, created FROM players WHERE name_key = ?",
                      (name_key(name),)).fetchone()
        if row is None:
            return None
        stats: dict[str, GameStats] = {}
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

    def leaderboard(self, limit: int = 20) -> list[LeaderRow]:
        rows = self._x("SELECT name, level_points FROM players ORDER BY level_points DESC, name "
                       "LIMIT ?", (limit,))
        return [{"rank": i + 1, "name": clean_name(n), "level_points": p}
                for i, (n, p) in enumerate(rows)]


def _pct(a: int, b: int) -> float | None:
    return round(100.0 * a / b, 1) if b else None
