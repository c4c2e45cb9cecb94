"""Every match and every accepted action, committed before anyone is shown it; a
match's result recorded once, with what it pays (``records``)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, cast

from engine import MatchRecord
from engine.room.store import (
    FinishedBoard,
    FinishedMatch,
    FinishedRow,
    LeaseLost,
    Points,
    StoredMatch,
    TableSettings,
)
from engine.room.text import clean_name, name_key

from .database import StoreError, psycopg_module
from .records import RecordRows

if TYPE_CHECKING:
    from engine.bots.review import RoundReview

log = logging.getLogger("lamma.store")


class MatchRows(RecordRows):
    """Matches and their action log (``engine.room.store.MatchStore``)."""


    def create_match(self, table_id: str, record: MatchRecord, seats: list[str | None],
                     settings: TableSettings) -> int:
        humans = all(s is not None for s in seats)
        # An event's board: its round (for the replay), and which board of whose entry.
        board = record.get("board")
        event = settings.get("event")
        event_id, event_board, entrant = ((event.get("id"), event.get("board"),
                                           event.get("entrant")) if event else
                                          (None, None, None))
        # RETURNING (SQLite ≥ 3.35) instead of lastrowid, which psycopg has not;
        # fetchall ends the statement, so SQLite's autocommit commits now.
        rows = self._x(
            "INSERT INTO matches (table_id, game, length, seed, deals, seats, settings, "
            "humans_throughout, created, process, board, event_id, event_board, entrant) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            # One entry, one deal (matches_one_deal): a second match of an entry's board is
            # not stored (the deal is claimed first: Events._deal; this is the floor).
            "ON CONFLICT (event_id, entrant, event_board) WHERE event_id IS NOT NULL "
            "DO NOTHING RETURNING id",
            (table_id, record["game"], json.dumps(record["length"]), str(record["seed"]),
             json.dumps(record["deals"]), json.dumps(seats), json.dumps(settings),
             int(humans), time.time(), self.process,
             None if board is None else json.dumps(board), event_id, event_board,
             entrant)).fetchall()
        if not rows:
            raise StoreError(f"board {event_board} of event {event_id} is "
                             "stored already for this entry: a second deal is not stored")
        return rows[0][0]

    def append_action(self, match_id: int, seq: int, seat: int,
                      action: Mapping[str, Any], epoch: int | None = None) -> None:
        """Durable before anyone sees it (autocommit: one transaction per action).

        Written twice (a commit whose answer was lost with the connection, then tried
        again) it is stored once: the same action at the same place is no error; a
        different one is."""
        text = json.dumps(dict(action), separators=(",", ":"))
        if self.fenced:
            self._append_fenced(match_id, seq, seat, text, epoch)
            return
        try:
            self._x("INSERT INTO actions (match_id, seq, seat, action, at) "
                    "VALUES (?, ?, ?, ?, ?)", (match_id, seq, seat, text, time.time()))
        except self._errors:
            row = self._x("SELECT seat, action FROM actions WHERE match_id = ? AND seq = ?",
                          (match_id, seq)).fetchone()
            if row is None or row[0] != seat or json.loads(row[1]) != json.loads(text):
                raise

    def _taken(self, match_id: int, epoch: int | None) -> str | None:
        """Why the match is no longer this table's to write (None: it still is).

        Its row is read FOR SHARE: a process taking its table over (which makes the
        match its own in the same transaction as its claim: ``take_over``) waits for our
        commit, or we wait for its and are refused. Then, with ``epoch`` (the writing
        table object's turn at driving the table), the table's row is read by a
        statement of its own, so after that wait: one statement would read it as it was
        before the takeover we waited for (READ COMMITTED reads again only the row it
        locked), and this process taking back a table it drove before would pass an
        old copy's late write (the process is ours again). Not locked: the takeover
        locks the table's row before the match's, so ours would wait on it in turn.
        A turn past ours: the table changed hands since this copy was given it. A row
        at an earlier turn (or none yet: a board's is written after its first actions)
        is no other driver's."""
        row = self._x("SELECT process, table_id FROM matches WHERE id = ? FOR SHARE",
                      (match_id,)).fetchone()
        if row is None:
            return None
        if row[0] != self.process:
            return f"process {row[0]} plays match {match_id} now"
        if epoch is None:
            return None
        turn = self._x("SELECT epoch FROM room_tables WHERE id = ?", (row[1],)).fetchone()
        if turn is not None and int(turn[0]) > epoch:
            return (f"table {row[1]} changed hands since this copy of it was given its "
                    f"turn {epoch} (it is at {turn[0]}): another copy plays match "
                    f"{match_id} now")
        return None

    @contextmanager
    def _fenced_tx(self) -> Iterator[None]:
        """The fence's read and the write in one transaction: its own, or the writer's
        when this write is one of a group committed together. Only a transaction under
        way is joined: a lost connection (UNKNOWN) is not one, and the first statement
        would revive it and run the fence's reads and the write each on its own."""
        status = psycopg_module().pq.TransactionStatus
        if self.db.info.transaction_status in (status.INTRANS, status.INERROR):
            yield
            return
        with self._tx():
            yield

    def _append_fenced(self, match_id: int, seq: int, seat: int, text: str,
                       epoch: int | None) -> None:
        """``append_action`` for a process of a room that spans several (server.cluster):
        only while the match's table is still this table object's to drive (``_taken``:
        not another process's, nor taken back by this one since), else ``LeaseLost``."""
        with self._fenced_tx():
            taken = self._taken(match_id, epoch)
            if taken is not None:
                raise LeaseLost(taken)
            done = self._x("INSERT INTO actions (match_id, seq, seat, action, at) "
                           "VALUES (?, ?, ?, ?, ?) ON CONFLICT (match_id, seq) DO NOTHING "
                           "RETURNING seq", (match_id, seq, seat, text, time.time())).fetchall()
            if not done:
                old = self._x("SELECT seat, action FROM actions WHERE match_id = ? AND seq = ?",
                              (match_id, seq)).fetchone()
                if old is None or old[0] != seat or json.loads(old[1]) != json.loads(text):
                    raise StoreError(f"match {match_id}: action {seq} is stored already, "
                                     "and it is another")

    def set_seats(self, match_id: int, seats: list[str | None],
                  settings: TableSettings | None = None, epoch: int | None = None) -> None:
        """A seat changed hands; a computer player anywhere ends level-point eligibility.
        ``settings`` (the table's, with who holds each seat) replaces the stored ones, so a
        restart seats the same people and computer players."""
        if not self.fenced:
            self._set_seats(match_id, seats, settings)
            return
        # Fenced: only a match still ours, at this copy's turn (``_taken``).
        with self._fenced_tx():
            if self._taken(match_id, epoch) is None:
                self._set_seats(match_id, seats, settings)

    def _set_seats(self, match_id: int, seats: list[str | None],
                   settings: TableSettings | None) -> None:
        humans = int(all(s is not None for s in seats))
        if settings is None:
            self._x("UPDATE matches SET seats = ?, humans_throughout = humans_throughout * ? "
                    "WHERE id = ?", (json.dumps(seats), humans, match_id))
        else:
            self._x("UPDATE matches SET seats = ?, settings = ?, "
                    "humans_throughout = humans_throughout * ? WHERE id = ?",
                    (json.dumps(seats), json.dumps(settings), humans, match_id))

    def _load(self, row) -> StoredMatch:
        mid, table_id, game, length, seed, deals, seats, settings, humans, board, done = row
        log = [[seat, json.loads(a)] for seat, a in self._x(
            "SELECT seat, action FROM actions WHERE match_id = ? ORDER BY seq", (mid,))]
        record: MatchRecord = {"game": game, "length": json.loads(length), "seed": int(seed),
                  "deals": json.loads(deals), "log": log}
        if board is not None:
            record["board"] = json.loads(board)
        return StoredMatch(mid, table_id, record, json.loads(seats), json.loads(settings),
                           bool(humans), done is not None)

    _COLUMNS = ("id, table_id, game, length, seed, deals, seats, settings, humans_throughout, "
                "board, finished")

    def review(self, match_id: int, round_no: int, seat: int) -> RoundReview | None:
        """A stored review (``engine.room.reviews``), None if there is none yet."""
        row = self._x("SELECT body FROM reviews WHERE match_id = ? AND round = ? AND seat = ?",
                      (match_id, round_no, seat)).fetchone()
        if row is None:
            return None
        try:
            body = json.loads(row[0])
        except ValueError:
            return None                 # damaged: computed again
        # As it was saved (``save_review``), read back.
        return cast("RoundReview", body) if isinstance(body, dict) else None

    def save_review(self, match_id: int, round_no: int, seat: int, body: RoundReview) -> None:
        """Keep a review with its match (the same for every asker: the first one stays)."""
        self._x("INSERT INTO reviews (match_id, round, seat, body, at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (match_id, round, seat) DO NOTHING",
                (match_id, round_no, seat, json.dumps(body, separators=(",", ":")),
                 time.time()))

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

    def finished_matches(self, limit: int = 50) -> list[FinishedRow]:
        """The newest finished matches with something to replay (a round played); an
        event's boards are not listed (their deals are the event's, secret until it
        closes: its comparisons show them)."""
        rows = self._x("SELECT id, game, length, seats, result, finished FROM matches "
                       "WHERE finished IS NOT NULL AND (rounds IS NULL OR rounds > 0) "
                       "AND event_id IS NULL ORDER BY finished DESC LIMIT ?", (limit,))
        return [{"id": r[0], "game": r[1], "length": json.loads(r[2]),
                 "seats": _shown_seats(json.loads(r[3])),
                 "result": json.loads(r[4]), "finished": r[5]} for r in rows]

    def abandon(self, match_id: int, rounds: int | None = None,
                epoch: int | None = None) -> None:
        """A match nobody will finish (its table was closed before the end) after
        ``rounds`` rounds (None: not known)."""
        if not self.fenced:
            self._finish_row(match_id, {"abandoned": True}, rounds)
            return
        # Fenced, only a match still ours, at this copy's turn (``_taken``): one
        # another process, or a later copy here, took over plays on.
        with self._fenced_tx():
            if self._taken(match_id, epoch) is None:
                self._finish_row(match_id, {"abandoned": True}, rounds, self.process)

    def _finish_row(self, match_id: int, result: Any, rounds: int | None,
                    process: str | None = None):
        """The match's row finished with ``result``, if it was not yet (and, given
        ``process``, is still that process's); the cursor: ``rowcount`` 1 the first time."""
        sql = ("UPDATE matches SET finished = ?, result = ?, rounds = ? "
               "WHERE id = ? AND finished IS NULL")
        args: tuple = (time.time(), json.dumps(result), rounds, match_id)
        if process is not None:
            sql, args = sql + " AND process = ?", (*args, process)
        return self._x(sql, args)

    def finish_match(self, match_id: int, finished: FinishedMatch) -> Points | None:
        """Record the result once, with statistics, level points and badges as the
        rules worked them out (``finished.records``).

        Returns per-seat ``{"points": int, "badge": str|None}`` the first time,
        None if the match was already recorded.
        """
        stored = self.match(match_id)
        if stored is None:
            return None
        game = finished.game
        if finished.practice:
            # A practice table's match: its result is kept (replays, reviews), and nothing
            # else: no statistics, no level points, no badges.
            self._finish_row(match_id, finished.result, finished.rounds)
            return None
        with self._tx():
            # Only the first writer finds the row unfinished: SQLite's write lock, or
            # PostgreSQL's row lock (the second UPDATE waits, then matches nothing).
            cur = self._finish_row(match_id, finished.result, finished.rounds)
            if cur.rowcount != 1:
                return None                   # already recorded; nothing was written
            records = finished.records
            paid: Points = {}
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


    def finish_board(self, match_id: int, board: FinishedBoard) -> bool:
        """An event's board is over: its match finished and the entrant's result
        recorded (a guest's: the match only), together and once. True the first time."""
        with self._tx():
            cur = self._finish_row(match_id, board.match_result, board.rounds)
            if cur.rowcount != 1:
                return False
            if board.ranked:
                self._x("INSERT INTO event_results (event_id, entrant, board, seat, score, "
                        "facts, name, match_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                        "ON CONFLICT (event_id, entrant, board) DO NOTHING",
                        (board.event, board.entrant, board.board, board.seat,
                         board.result.score, json.dumps(board.result.facts()), board.name,
                         match_id, time.time()))
            return True


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
