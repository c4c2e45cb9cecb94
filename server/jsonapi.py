"""``ssh -p PORT NAME@HOST play``: one JSON object per line each way (docs/protocol.md).

The server says first {"type":"hello","protocol":PROTOCOL}.
Client ops: tables, create, join, watch, fill, act, leave, chat, profile, leaderboard,
command, review, hint, and the duplicate events' events, enter, standings, board,
create_event. Server messages: hello, joined, watching, filled, left, tables, view,
chat, profile, leaderboard, command, review, hint, notice, error, bye, pending (a
computer player's seat you asked for is yours when the round ends), and events,
board_over, event_done, standings, board, event.
A program may do at a table what a person in the same role may (docs/roles.md): the
table checks, whichever front end asks.
A bad line of any kind gets ``{"type":"error","message":...}``, changes
nothing and keeps the connection.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable

import asyncssh

from engine import View
from engine.room import (
    DEFAULT_LEVEL,
    LEVELS,
    SEATS,
    Registry,
    RoomError,
    Session,
    Table,
    is_seat,
    parse_seat,
    parse_seats,
    reviews,
)
from engine.room.duplicate import BoardOver, Entered
from engine.room.events import TableChange
from engine.room.moderation import ignores
from engine.room.stats import STATS

from .limits import Allowance, Bucket, Limits

log = logging.getLogger("lamma.json")

MAX_LINE = 64 * 1024          # longer lines are refused (and skipped)
MAX_BACKLOG = 4 * 1024 * 1024  # a client that stops reading is dropped
OPS = ("tables", "create", "join", "watch", "fill", "act", "leave", "chat", "profile",
       "leaderboard", "command", "review", "hint", "events", "enter", "standings", "board",
       "create_event")
# The version of this interface (docs/protocol.md), said first to every program that
# connects: {"type":"hello","protocol":1}. A change a program must know of is a new one.
PROTOCOL = 1


class JsonSession(Session):
    kind = "json"

    def __init__(self, registry: Registry, process: asyncssh.SSHServerProcess,
                 name: str, ident: str, guest: bool = False, requests: Bucket | None = None,
                 address_requests: Bucket | None = None, limits: Limits | None = None):
        super().__init__(name, ident, guest)
        self.registry = registry
        self.process = process
        self.bytes_out = 0
        self._done = asyncio.Event()
        # Requests a second, this session's and its key's (or for a guest its
        # address's: server/limits.py), and what each op costs.
        self.allowance = Allowance(requests, address_requests)
        self._chat_at: tuple[Table, int] | None = None     # (table, its lines said, heard)
        self.limits = limits or Limits()
        self._timed_at: float | None = None     # the accepted action last timed to us
        self._board_over: Table | None = None   # an event's board shown over, to move on

    # ------------------------------------------------------------ sending
    def send(self, obj: dict) -> None:
        if self.closed:
            return
        try:
            chan = self.process.channel
            if chan.get_write_buffer_size() > MAX_BACKLOG:
                log.info("dropping JSON client %s: not reading", self.name)
                self.closed = True
                self.process.close()
                self._done.set()
                return
            data = (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
            self.bytes_out += len(data)
            self.process.stdout.write(data)
        except Exception:
            self.closed = True
            self._done.set()

    def error(self, message: str) -> None:
        self.send({"type": "error", "message": message})

    def push_view(self, view: View | None = None) -> None:
        table = self.table
        if view is None and table is not None:
            view = table.view_of(self)
        if view is None:
            return          # no match shown yet: its start comes as a "state" change
        self.send({"type": "view", "view": view})

    # ----------------------------------------------------- table callbacks
    def table_changed(self, change: TableChange) -> None:
        table, what = change.table, change.what
        if what in ("chat", "state"):
            self._say_new_chat(table, what)
        if what == "state":
            if table is self.table:
                self.push_view(change.view_for(self))
                if (table.event is not None and table.shown_status == "over"
                        and self.seat is not None and self._board_over is not table):
                    # Its score, then the next board: after this change's members
                    # have all been told (a new table is dealt from here).
                    self._board_over = table
                    asyncio.get_running_loop().call_soon(self._next_board, table)
                # once per accepted action shown (a seat change shows no new action)
                at = table.accepted_at
                if at is not None and at != self._timed_at:
                    self._timed_at = at
                    STATS.act_to_view.observe(time.monotonic() - at)
        elif what == "closed":
            self.send({"type": "left", "table": table.id, "reason": "the table was closed"})

    def _say_new_chat(self, table: Table, what: str) -> None:
        """Every line said at ``table`` since this session last heard of it, each once and
        in order, but those it ignores: several may come in one change (a frame from the
        process that drives the table, issue 41), and a line may come with a state."""
        said = table.chat_said
        if self._chat_at is None or self._chat_at[0] is not table:
            # First news of this table: lines from now on (the one this change is for).
            self._chat_at = (table, said - (1 if what == "chat" else 0))
        seen = self._chat_at[1]
        self._chat_at = (table, said)
        new = min(said - seen, len(table.chat))
        if new <= 0:
            return
        for who, text in list(table.chat)[-new:]:
            if not ignores(self, who):
                self.send({"type": "chat", "table": table.id, "from": who, "text": text})

    def seat_granted(self, table: Table, seat: int) -> None:
        self.send(self._joined(table, seat))

    def _hear_from_now(self, table: Table) -> None:
        """Every line said at ``table`` from now on is this session's to hear: counted
        from here, not from the first change it is told of, which may come with lines
        said since (a driver's members are told once the frame is written, and a join,
        a line and a move can share one frame: the first line after a join was lost)."""
        if self._chat_at is None or self._chat_at[0] is not table:
            self._chat_at = (table, table.chat_said)

    def _joined(self, table: Table, seat: int) -> dict:
        """``joined``: ``"practice": true`` at a practice table (hints there), an
        event's and board's number at an event's board."""
        self._hear_from_now(table)
        reply: dict = {"type": "joined", "table": table.id, "seat": seat}
        if table.practice:
            reply["practice"] = True
        if table.event is not None:
            reply["event"] = table.event.event
            reply["board"] = table.event.board
        return reply

    def request_dropped(self, table: Table, seat: int, reason: str) -> None:
        self.send({"type": "pending", "table": table.id, "seat": seat, "cancelled": True,
                   "message": reason})

    def notice(self, text: str) -> None:
        self.send({"type": "notice", "text": text})

    def refused(self, text: str) -> None:
        """A request made at a table driven by another process was refused there."""
        self.error(str(text))

    def kick(self, reason: str) -> None:
        self.send({"type": "bye", "message": reason})
        self.closed = True
        try:
            self.process.close()
        except Exception:
            pass
        self._done.set()

    # ------------------------------------------------------------ reading
    async def run(self) -> None:
        self.send({"type": "hello", "protocol": PROTOCOL})
        held = self.registry.held_seat(self.ident)
        if held is not None:
            table, seat = held
            try:
                table.sit(self, seat)
                if self.seat == seat:       # else "joined" comes when the driver gives it
                    self.send(self._joined(table, seat))
                    self.push_view()
            except RoomError:
                pass
        reader = asyncio.ensure_future(self._read())
        done = asyncio.ensure_future(self._done.wait())
        try:
            await asyncio.wait({reader, done}, return_when=asyncio.FIRST_COMPLETED)
            if reader.done() and not reader.cancelled() and reader.exception() is not None:
                log.error("a JSON session ended on an error", exc_info=reader.exception())
        finally:
            for t in (reader, done):
                t.cancel()
            self.closed = True

    async def _read(self) -> None:
        stdin = self.process.stdin
        buf = bytearray()
        skipping = False
        while not self.closed:
            try:
                chunk = await stdin.read(16384)
            except (asyncssh.TerminalSizeChanged, asyncssh.BreakReceived,
                    asyncssh.SignalReceived):
                continue
            except (asyncssh.Error, OSError, ConnectionError):
                return
            if not chunk:
                if buf and not skipping:
                    waiting = self.handle_line(bytes(buf))
                    if waiting is not None:
                        await waiting
                return
            if isinstance(chunk, str):  # should not happen (encoding=None)
                chunk = chunk.encode("utf-8", "replace")
            buf.extend(chunk)
            while not self.closed:      # kicked, banned or dropped between two lines: stop
                nl = buf.find(b"\n")
                if nl < 0:
                    break
                line = bytes(buf[:nl])
                del buf[: nl + 1]
                if skipping:
                    skipping = False
                    continue
                waiting = self.handle_line(line)
                if waiting is not None:
                    await waiting       # a table looked up elsewhere: lines stay in order
                if len(buf) > 256:
                    # Many lines in one read: the other sessions get the loop between
                    # them, so one client's burst never holds everyone else.
                    await asyncio.sleep(0)
            if len(buf) > MAX_LINE:
                if not skipping:
                    self.error(f"Line too long (at most {MAX_LINE} bytes); it was ignored.")
                skipping = True
                buf.clear()
            await asyncio.sleep(0)  # let others run between bursts

    def handle_line(self, raw: bytes) -> Awaitable[None] | None:
        """One line, handled now; or, for a join or watch of a table this process does
        not list yet (a room of several processes), what to wait for before the next
        line is read: its row is read from the database first."""
        raw = raw.strip()
        if not raw:
            return None
        if not self._allowed():
            return None
        if len(raw) > MAX_LINE:
            self.error(f"Line too long (at most {MAX_LINE} bytes); it was ignored.")
            return None
        try:
            msg = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            self.error("Not a JSON object: send one JSON object per line.")
            return None
        if not isinstance(msg, dict):
            self.error("Not a JSON object: send one JSON object per line.")
            return None
        op = msg.get("op")
        if not isinstance(op, str) or op not in OPS:
            self.error("Unknown op; ops are: " + ", ".join(OPS) + ".")
            return None
        cost = self.limits.op_cost.get(op)
        if cost is not None and not self._allowed(cost - 1):
            return None
        self.allowance.strikes = 0
        if op in ("join", "watch") and self._unknown_here(msg):
            return self._looked_up(op, msg)
        if op == "watch" and self.registry.unshown(msg.get("table")):
            return self._shown_first(op, msg)
        self._run_op(op, msg)
        return None

    async def _shown_first(self, op: str, msg: dict) -> None:
        """A table another process drives, shown here for the first time: its frame is
        read before "watching" is said (the lines said after it are heard as lines)."""
        try:
            await self.registry.shown_first(msg.get("table"))
        except Exception:
            log.exception("showing a table")
        if not self.closed:
            self._run_op(op, msg)
        if self.closed or self.table is None or self.table.id != str(msg.get("table")):
            self.registry.unwatched(msg.get("table"))

    def _run_op(self, op: str, msg: dict) -> None:
        try:
            getattr(self, "op_" + op)(msg)
        except RoomError as exc:
            self.error(str(exc))
        except Exception:
            log.exception("op %s failed", op)
            self.error("That could not be done (server error); nothing changed.")

    def _unknown_here(self, msg: dict) -> bool:
        """A table this process's listing does not know, in a room of several."""
        reg = self.registry
        if reg.side is None:
            return False
        if msg.get("table") is None and msg.get("code") is not None:
            return not reg.knows_code(msg.get("code"))
        return msg.get("table") is not None and not reg.knows(msg.get("table"))

    async def _looked_up(self, op: str, msg: dict) -> None:
        """The table's row read from the database before the op says "No table"."""
        try:
            if msg.get("table") is None:
                self.code_guard.check()     # guessing codes reads nothing more
            await self.registry.refresh(msg.get("table"), msg.get("code"))
        except RoomError as exc:
            self.error(str(exc))
            return
        except Exception:
            log.exception("looking up a table")
        if not self.closed:
            if op == "watch" and self.registry.unshown(msg.get("table")):
                await self._shown_first(op, msg)
            else:
                self._run_op(op, msg)

    def _allowed(self, cost: float = 1.0) -> bool:
        """Within this session's and its address's request rates? A refused line is
        answered and changes nothing (one not yet read is not read: parsing is what a
        flood costs); a session that keeps flooding is closed."""
        allowance = self.allowance
        if allowance.take(cost):
            return True
        if allowance.strikes >= self.limits.request_strikes:
            log.info("closing JSON client %s: %d requests refused in a row", self.name,
                     allowance.strikes)
            self.kick("Too many requests: this connection is closed.")
            return False
        self.error("Too many requests: this line was ignored (see the limits in README).")
        return False

    # ---------------------------------------------------------------- ops
    def op_tables(self, msg: dict) -> None:
        rows = self.registry.listing(self)
        self.allowance.charge_rows(len(rows))      # a listing costs by its size too
        self.send({"type": "tables", "tables": rows})

    def op_create(self, msg: dict) -> None:
        computer = parse_seats(msg.get("computer", []))
        seat = msg.get("seat")
        if seat is None:
            free = [s for s in SEATS if s not in computer]
            if not free:
                raise RoomError("Leave at least one seat for yourself.")
            seat = free[0]
        else:
            seat = parse_seat(seat)
        if seat in computer:
            raise RoomError("Your own seat cannot be a computer seat.")
        level = msg.get("level", DEFAULT_LEVEL)
        if level not in LEVELS:
            raise RoomError("\"level\" of the computer players: "
                            + ", ".join(LEVELS[:-1]) + " or " + LEVELS[-1] + ".")
        if self.table is not None and self.seat is not None and self.table.status == "playing":
            raise RoomError(f"You are playing at table {self.table.id}; leave it first.")
        table = self.registry.create(msg.get("game"), msg.get("length"),
                                     msg.get("timer", 0), msg.get("private", False),
                                     creator=self, practice=msg.get("practice", False))
        try:
            table.sit(self, seat)
        except RoomError:
            self.registry.gc_table(table)
            raise
        reply = self._joined(table, seat)
        if table.code:
            reply["code"] = table.code
        self.send(reply)
        if computer:
            table.fill_with_bots(self, computer, level)   # may start the match: views follow

    def op_join(self, msg: dict) -> None:
        code = msg.get("code")
        if msg.get("table") is None and code is not None:
            table = self.registry.find_code(self, code)      # a code alone names its table
        else:
            table = self.registry.get(msg.get("table"), self)
            self.registry.check_code(self, table, code)
        seat = msg.get("seat")
        if is_seat(seat) and table.seats[seat].kind == "bot":
            # A computer player's seat: "joined" (from seat_granted) when it is ours.
            if not table.take_seat(self, seat):
                self.send({"type": "pending", "table": table.id, "seat": seat,
                           "message": table.request_text(seat) + " The match then no "
                                      "longer counts for level points."})
            return
        seat = table.sit(self, seat)
        if self.seat != seat:
            return      # asked of the table's driver on another process: "joined" (and
                        # the seat's view) when it gives the seat (seat_granted)
        self.send(self._joined(table, seat))
        self.push_view()

    def op_watch(self, msg: dict) -> None:
        table = self.registry.get(msg.get("table"), self)
        self.registry.check_code(self, table, msg.get("code"))
        table.watch(self)
        self._hear_from_now(table)
        self.send({"type": "watching", "table": table.id})
        self.push_view()

    def op_fill(self, msg: dict) -> None:
        """Computer players sit in the empty ``seats`` (all by default) of the table we
        are at, at ``level``: its host's or an operator's choice (docs/roles.md)."""
        table = self.table
        if table is None:
            raise RoomError("You are not at a table.")
        seats = msg.get("seats")
        wanted = None if seats is None else parse_seats(seats, "\"seats\"")
        table.fill_with_bots(self, wanted, msg.get("level", DEFAULT_LEVEL))
        self.send({"type": "filled", "table": table.id})

    def op_act(self, msg: dict) -> None:
        table = self.table
        if table is None or self.seat is None:
            raise RoomError("You are not seated at a table.")
        action = msg.get("action")
        if not isinstance(action, dict):
            # Said in the protocol's words here; the table engine knows no JSON.
            raise RoomError("An action is a JSON object such as {\"type\":\"pass\"}.")
        table.act(self, action)

    def op_leave(self, msg: dict) -> None:
        table = self.table
        if table is None:
            raise RoomError("You are not at a table.")
        table.detach(self, keep_seat=False)     # an event's board waits: "enter" resumes it
        self.send({"type": "left", "table": table.id})

    def op_command(self, msg: dict) -> None:
        """A slash command (``{"op":"command","line":"/ignore bob"}``), as typed in chat."""
        line = msg.get("line")
        if not isinstance(line, str) or not line.startswith("/") or len(line) > 500:
            raise RoomError("\"line\" is a command such as \"/ignore NAME\" (/help lists them).")
        self.send({"type": "command", "reply": self.registry.moderator.command(self, line)})

    def op_chat(self, msg: dict) -> None:
        table = self.table
        if table is None:
            raise RoomError("You are not at a table.")
        table.say(self, msg.get("text"))

    def op_profile(self, msg: dict) -> None:
        """Statistics, level points and badges of a player (yourself by default)."""
        name = msg.get("name", self.name)
        if not isinstance(name, str) or not 0 < len(name) <= 16:
            raise RoomError("\"name\" is a player's name.")
        records = self.registry.records
        profile = records.profile(name) if records is not None else None
        if profile is None:
            raise RoomError("No such player (a guest's statistics are not kept).")
        self.send({"type": "profile", "profile": profile})

    def op_leaderboard(self, msg: dict) -> None:
        records = self.registry.records
        self.send({"type": "leaderboard",
                   "leaderboard": records.leaderboard() if records is not None else []})

    # ------------------------------------------------------------ events
    def op_events(self, msg: dict) -> None:
        """Every event this session may see (a private one once its code was given)."""
        rows = self.registry.events.listing(self)
        self.allowance.charge_rows(len(rows))
        self.send({"type": "events", "events": rows})

    def op_enter(self, msg: dict) -> None:
        """Enter an event (by ``event`` or ``code``), or come back to one's entry."""
        if msg.get("event") is None and msg.get("code") is None:
            raise RoomError("Name the event: {\"op\":\"enter\",\"event\":ID} (or "
                            "\"code\" for a private one).")
        self._sit_board(self.registry.events.enter(self, msg.get("event"), msg.get("code")))

    def _sit_board(self, entered: Entered) -> None:
        """``joined`` (with the event and board) and the board's views."""
        table = entered.table
        if self.seat != entered.seat or self.table is not table:
            return          # asked of the table's driver on another process: "joined"
                            # comes when it gives the seat (seat_granted)
        self._board_over = None
        self.send(self._joined(table, entered.seat))
        entered.go()                    # a new board is dealt now: its views follow
        if entered.resumed:
            self.push_view()

    def _next_board(self, table: Table) -> None:
        if self.closed:
            return
        try:
            over: BoardOver | None = self.registry.events.board_over(self, table)
        except RoomError as exc:
            self.error(str(exc))
            return
        except Exception:
            log.exception("moving on from an event's board failed")
            self.error("That could not be done (server error); enter the event again.")
            return
        if over is None:
            return
        reply: dict = {"type": "board_over", "event": over.event, "board": over.board,
                       "score": over.score}
        if over.side is not None:
            reply["side"] = over.side
        self.send(reply)
        if over.next is None:
            self.send({"type": "event_done", "event": over.event})
            return
        self._sit_board(over.next)

    def op_standings(self, msg: dict) -> None:
        ev, rows = self.registry.events.standings(self, msg.get("event"))
        self.send({"type": "standings", "event": ev.id, "rows": rows})

    def op_board(self, msg: dict) -> None:
        ev, k, results = self.registry.events.board(self, msg.get("event"), msg.get("board"))
        self.send({"type": "board", "event": ev.id, "board": k, "results": results})

    def op_create_event(self, msg: dict) -> None:
        events = self.registry.events
        made = events.create(self, msg.get("game"), msg.get("boards"), msg.get("hours"),
                             msg.get("private", False))
        row = events.row(self, made)
        self.send({"type": "event", "event": row})
    def op_review(self, msg: dict) -> None:
        """A round's review: of your seat at your table (``table``, ``round``), or of
        any seat of a finished match you played (``match``, ``round``, ``seat``)."""
        if "match" in msg:
            fut = reviews.match_review(self.registry.records, self, msg.get("match"),
                                       msg.get("round"), msg.get("seat"))
        else:
            table = self.table
            if table is None or msg.get("table") != table.id:
                raise RoomError("A review is of a table you sit at (\"table\") or of a "
                                "finished match you played (\"match\").")
            fut = reviews.table_review(table, self, msg.get("round"))
        self._answer_later(fut)

    def op_hint(self, msg: dict) -> None:
        """What the strong computer player would do now: at a practice table, on your turn."""
        table = self.table
        if table is None or self.seat is None:
            raise RoomError("A hint is for your own turn: sit at a practice table first.")
        self._answer_later(reviews.hint_for(table, self))

    def _answer_later(self, fut: asyncio.Future) -> None:
        def done(f: asyncio.Future) -> None:
            if f.cancelled():
                return
            exc = f.exception()
            if isinstance(exc, RoomError):
                self.error(str(exc))
            elif exc is not None:
                log.error("a review or hint failed", exc_info=exc)
                self.error("That could not be done (server error); nothing changed.")
            else:
                self.send(f.result())
        fut.add_done_callback(done)
