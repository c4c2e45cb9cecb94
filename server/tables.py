"""Tables shared by every session: one registry, one engine match per table.

Everything here runs on the server's single asyncio loop.  A table applies one
action at a time (``apply`` is synchronous) and then tells every member that
is seated at it or watching it.  Members never touch each other: a TUI member
only *posts a message* to its own App, a JSON member writes to its own channel.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Iterable

from . import bots
from .text import clean_chat

log = logging.getLogger("lamma.tables")

GAMES = {
    "estimation": {"lengths": [18, 13, 24], "default": 18},
    "estimation-kotshina": {"lengths": ["micro", "mini", "full"], "default": "micro"},
    "tarneeb41": {"lengths": [None], "default": None},
}
GAME_TITLES = {
    "estimation": "Estimation",
    "estimation-kotshina": "Estimation (calc)",
    "tarneeb41": "Tarneeb 41",
}
TIMERS = (0, 15, 30, 60)
CHAT_BURST = 3          # lines ...
CHAT_WINDOW = 5.0       # ... per this many seconds, per player
CHAT_KEEP = 50


class RoomError(Exception):
    """A refusal that is shown to the player as is; nothing changed."""


class Member:
    """A connected session as the tables see it.  Subclassed by the TUI app's
    adapter and by the JSON session."""

    kind = "member"

    def __init__(self, name: str, ident: str, guest: bool = False):
        self.name = name
        self.ident = ident          # "key:<fingerprint>" or "guest:<name>"
        self.guest = guest
        self.table: Table | None = None
        self.seat: int | None = None     # None while watching
        self.closed = False
        self._chat_times: deque[float] = deque(maxlen=CHAT_BURST)

    @property
    def display_name(self) -> str:
        return f"{self.name}°" if self.guest else self.name

    # -- called by tables; must never raise and must not block --------------
    def table_changed(self, table: "Table", what: str) -> None:
        """``what``: "state" (view changed), "seats", "chat", "closed"."""

    def lobby_changed(self) -> None:
        """The list of tables changed."""

    def kick(self, reason: str) -> None:
        """Another terminal took this name over, or the server is stopping."""


@dataclass
class Seat:
    kind: str = "empty"          # "empty" | "human" | "bot"
    name: str | None = None
    ident: str | None = None
    guest: bool = False
    member: Member | None = None  # the connected session, None while away
    replaced: str | None = None   # name of the human a bot replaced
    level: str = "strong"         # a computer player's level (issue 5: chosen per seat)

    @property
    def label(self) -> str:
        if self.kind == "empty":
            return "(empty)"
        name = self.name or "?"
        if self.guest:
            name += "°"
        return name

    def public(self) -> dict:
        return {"kind": self.kind, "name": self.name, "guest": self.guest,
                "connected": self.kind != "human" or self.member is not None}


@dataclass
class Event:
    seat: int | None
    action: dict | None
    text: str
    round: int | None = None      # the round it belongs to (screens show the current one)
    at: float = field(default_factory=time.monotonic)


class Table:
    def __init__(self, registry: "Registry", tid: str, game: str, length: Any,
                 timer: int = 0, private: bool = False):
        self.registry = registry
        self.id = tid
        self.game = game
        self.length = length
        self.timer = timer
        self.private = private
        self.code = secrets.token_hex(3) if private else None
        self.seats = [Seat() for _ in range(4)]
        self.watchers: set[Member] = set()
        self.match = None
        self.status = "waiting"     # waiting | playing | over
        self.version = 0
        self.chat: deque[tuple[str, str]] = deque(maxlen=CHAT_KEEP)
        self.events: deque[Event] = deque(maxlen=20)
        self.deadline: float | None = None   # loop time the turn timer runs out
        self.deadline_seat: int | None = None
        self._handle: asyncio.TimerHandle | None = None
        self.counts_for_points = True
        self.created = time.time()
        self.seed: int | None = None        # fixed by tests / tournaments; None: random
        self.deals: list | None = None

    # ------------------------------------------------------------------ info
    @property
    def title(self) -> str:
        return GAME_TITLES.get(self.game, self.game)

    def round_info(self) -> tuple[int | None, int | None]:
        if self.match is None:
            return None, None
        v = self.match.view(None)
        return v.get("round"), v.get("rounds")

    def summary(self) -> dict:
        rnd, rounds = self.round_info()
        return {
            "id": self.id,
            "game": self.game,
            "length": self.length,
            "timer": self.timer,
            "private": self.private,
            "status": self.status,
            "round": rnd,
            "rounds": rounds,
            "seats": [s.public() for s in self.seats],
            "spectators": len(self.watchers),
        }

    def members(self) -> Iterable[Member]:
        for s in self.seats:
            if s.member is not None:
                yield s.member
        yield from list(self.watchers)

    def seat_of(self, member: Member) -> int | None:
        for i, s in enumerate(self.seats):
            if s.member is member:
                return i
        return None

    def view(self, seat: int | None) -> dict | None:
        if self.match is None:
            return None
        return self.match.view(seat)

    def seconds_left(self) -> float | None:
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - asyncio.get_running_loop().time())

    # --------------------------------------------------------------- seating
    def sit(self, member: Member, seat: int | None = None) -> int:
        """Seat ``member`` (or bring them back to the seat they hold)."""
        for i, s in enumerate(self.seats):
            if s.kind == "human" and s.ident == member.ident:
                if seat is not None and seat != i:
                    raise RoomError(f"You already hold seat {i} at table {self.id}.")
                self._attach(member, i)
                return i
        cur = member.table
        if (cur is not None and cur is not self and member.seat is not None
                and cur.status == "playing"):
            raise RoomError(f"You are playing at table {cur.id}; leave it first.")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)
                                 or not 0 <= seat <= 3):
            raise RoomError("Seats are numbered 0 to 3.")
        if self.status != "waiting":
            raise RoomError(f"Table {self.id} is already playing; you can watch it.")
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
            if not free:
                raise RoomError(f"Table {self.id} is full.")
            seat = free[0]
        s = self.seats[seat]
        if s.kind != "empty":
            raise RoomError(f"Seat {seat} at table {self.id} is taken.")
        self.seats[seat] = Seat("human", member.name, member.ident, member.guest)
        self._attach(member, seat)
        self._maybe_start()
        return seat

    def _attach(self, member: Member, seat: int) -> None:
        self.registry.detach(member, keep_seat=False, unless=self)
        self.watchers.discard(member)
        s = self.seats[seat]
        old = s.member
        s.member = member
        member.table, member.seat = self, seat
        if old is not None and old is not member:
            old.table, old.seat = None, None
            old.kick("You connected from another terminal; this one is closed.")
        if self.status == "playing":
            self._schedule()
        self._changed("seats")

    def watch(self, member: Member) -> None:
        if member.table is self and member.seat is not None:
            raise RoomError("You are seated at this table.")
        self.registry.detach(member, keep_seat=False)
        self.watchers.add(member)
        member.table, member.seat = self, None
        self._changed("seats")

    def fill_with_bots(self, seats: Iterable[int] | None = None, level: Any = "strong") -> None:
        if level not in bots.LEVELS:
            raise RoomError("Computer player levels: easy, normal, strong.")
        if self.status != "waiting":
            raise RoomError("Computer players can fill seats only before the match starts.")
        wanted = range(4) if seats is None else list(seats)
        for i in wanted:
            if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i <= 3:
                raise RoomError("Seats are numbered 0 to 3.")
        for i in wanted:
            if self.seats[i].kind == "empty":
                self.seats[i] = Seat("bot", bots.BOT_NAMES[i], level=level)
        self._changed("seats")
        self._maybe_start()

    def detach(self, member: Member, keep_seat: bool) -> None:
        """``member`` goes away: a dropped connection (keep_seat) or a leave."""
        if member in self.watchers:
            self.watchers.discard(member)
            member.table = None
            self._changed("seats")
            self.registry.gc_table(self)
            return
        seat = self.seat_of(member)
        if seat is None:
            return
        s = self.seats[seat]
        s.member = None
        member.table, member.seat = None, None
        if keep_seat and self.status == "playing":
            self._schedule()            # the timer now moves for them
        elif self.status == "waiting":
            self.seats[seat] = Seat()
        elif self.status == "playing":
            self._leave_match(seat)
        self._changed("seats")
        self.registry.gc_table(self)

    def _leave_match(self, seat: int) -> None:
        s = self.seats[seat]
        self.events.append(Event(seat, None, f"{s.label} left the table"))
        before = len(self.match.log)
        self._public = None
        self.match.leave(seat)
        if len(self.match.log) > before:          # E-37: the leave is part of the record
            self.registry.store.action(self, seat, self.match.log[-1][1])
        if self.match.to_act is None or self.match.result is not None:
            self._finish()
        else:  # Tarneeb: a computer player takes the seat
            self.seats[seat] = Seat("bot", bots.BOT_NAMES[seat], replaced=s.name)
            self.counts_for_points = False
            self.registry.store.seats_changed(self)
            self._schedule()
        self.version += 1
        self._notify("state")

    # ------------------------------------------------------------------ play
    def _maybe_start(self) -> None:
        if self.status == "waiting" and all(s.kind != "empty" for s in self.seats):
            from engine import new_match  # late import: engine is its own package
            self.match = new_match(self.game, length=self.length, seed=self.seed,
                                   deals=self.deals)
            self.status = "playing"
            self.registry.store.match_started(self)
            self.events.append(Event(None, None, "The match begins"))
            self.version += 1
            self._schedule()
            self._notify("state")
            self.registry.lobby_changed()

    def act(self, member: Member, action: Any) -> None:
        """A player's action; raises RoomError (and changes nothing) if refused."""
        if member.table is not self or member.seat is None:
            raise RoomError("You are not seated at a table.")
        self._check_and_apply(member.seat, action, by="player")

    def _check_and_apply(self, seat: int, action: Any, by: str) -> None:
        m = self.match
        if m is None or self.status != "playing":
            raise RoomError("The match has not started." if self.status == "waiting"
                            else "The match is over.")
        if m.to_act != seat:
            raise RoomError("It is not your turn.")
        if not isinstance(action, dict):
            raise RoomError("An action is a JSON object such as {\"type\":\"pass\"}.")
        legal = m.legal_actions(seat)
        canon = canonical(action, legal)
        if canon is None:
            raise RoomError(f"Illegal action {_short(action)}.")
        self._apply(seat, canon, by)

    def _apply(self, seat: int, action: dict, by: str) -> None:
        from engine import IllegalAction
        m = self.match
        before_hist = len(m.history)
        # The public view after the previous action is the one before this one.
        before = self._public if self._public is not None else m.view(None)
        rnd = before.get("round")
        before_trick = len(before["tricks"])
        try:
            m.apply(seat, dict(action))
        except IllegalAction as exc:
            raise RoomError(str(exc)) from None
        self.registry.store.action(self, seat, action)
        self.version += 1
        self.events.append(Event(seat, action, describe(self, seat, action, by), rnd))
        view = self._public = m.view(None)
        if len(m.history) > before_hist:
            rec = m.history[-1]
            self.events.append(Event(None, None, round_text(self, rec), view.get("round")))
            self._trick_pause = True
            self.registry.lobby_changed()
        elif len(view["tricks"]) > before_trick:
            w = view["tricks"][-1]["winner"]
            self.events.append(Event(w, None, f"{self.seats[w].label} takes the trick", rnd))
            self._trick_pause = True
        if m.to_act is None or m.result is not None:
            self._finish()
        else:
            self._schedule()
        self._notify("state")

    def _finish(self) -> None:
        self._cancel()
        if self.status != "over":
            self.status = "over"
            res = self.match.result or {}
            winners = ", ".join(self.seats[w].label for w in res.get("winners", []))
            self.events.append(Event(None, None, "Match over" +
                                     (f": {winners} win" if winners else "")))
            self.registry.store.match_over(self)
            self.registry.lobby_changed()

    _trick_pause = False
    _public: dict | None = None      # the match's public view after the last action

    def _cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self.deadline = None
        self.deadline_seat = None

    def _schedule(self) -> None:
        """Arrange the next automatic move: a computer player, or the timer."""
        self._cancel()
        m = self.match
        if m is None or self.status != "playing" or m.to_act is None:
            return
        seat = m.to_act
        s = self.seats[seat]
        loop = asyncio.get_running_loop()
        reg = self.registry
        pause = reg.trick_pause if self._trick_pause else 0.0
        self._trick_pause = False
        if s.kind == "bot":
            delay = reg.bot_pause + pause
            self._handle = loop.call_later(delay, self._auto, seat, self.version, "bot")
            return
        limit = self.timer or (reg.absent_timeout if s.member is None else 0)
        if limit:
            self.deadline = loop.time() + limit + pause
            self.deadline_seat = seat
            self._handle = loop.call_later(limit + pause, self._auto, seat,
                                           self.version, "timer")

    def _auto(self, seat: int, version: int, by: str) -> None:
        self._handle = None
        m = self.match
        if (m is None or self.version != version or m.to_act != seat
                or self.status != "playing"):
            return
        if by == "bot" or bots.timer_needs_bot(m):
            # Think in the worker process; apply only if nothing moved meanwhile.
            level = getattr(self.seats[seat], "level", None) or bots.DEFAULT_LEVEL
            task = asyncio.get_running_loop().create_task(self._auto_bot(seat, version, by, level))
            self._thinking = task
            return
        try:
            self._apply(seat, bots.timeout_action(m, seat), by)
        except Exception:
            log.exception("automatic move failed at table %s", self.id)

    _thinking = None

    async def _auto_bot(self, seat: int, version: int, by: str, level: str) -> None:
        try:
            action = await bots.decide(self.match, seat, level)
            m = self.match
            if (m is None or self.version != version or m.to_act != seat
                    or self.status != "playing"):
                return
            self._apply(seat, action, by)
        except Exception:
            log.exception("automatic move failed at table %s", self.id)

    # ------------------------------------------------------------------ chat
    def say(self, member: Member, raw: Any) -> None:
        if member.table is not self:
            raise RoomError("You are not at this table.")
        text = clean_chat(raw)
        if not text:
            raise RoomError("Empty message.")
        now = time.monotonic()
        times = member._chat_times
        if len(times) == times.maxlen and now - times[0] < CHAT_WINDOW:
            raise RoomError("Slow down: a few lines every few seconds.")
        times.append(now)
        self.chat.append((member.display_name, text))
        self._notify("chat")

    # ---------------------------------------------------------------- notify
    def _changed(self, what: str) -> None:
        self._notify(what)
        self.registry.lobby_changed()

    def _notify(self, what: str) -> None:
        for member in list(self.members()):
            try:
                member.table_changed(self, what)
            except Exception:
                log.exception("notifying %s failed", member.name)

    def close(self) -> None:
        self._cancel()
        for member in list(self.members()):
            member.table, member.seat = None, None
            try:
                member.table_changed(self, "closed")
            except Exception:
                log.exception("notifying %s failed", member.name)


def canonical(action: dict, legal: list[dict]) -> dict | None:
    """The legal action equal to ``action`` in keys, values *and* types."""
    for cand in legal:
        if cand.keys() != action.keys():
            continue
        if all(type(action[k]) is type(v) and action[k] == v for k, v in cand.items()):
            return dict(cand)
    return None


def _short(obj: Any) -> str:
    import json
    try:
        text = json.dumps(obj, ensure_ascii=True)
    except (TypeError, ValueError):
        text = "?"
    return text if len(text) <= 60 else text[:57] + "..."


SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs", "NT": "no trump"}


def describe(table: Table, seat: int, action: dict, by: str) -> str:
    who = table.seats[seat].label
    t = action.get("type")
    if t == "dash":
        text = f"{who} takes the dash call" if action.get("take") else f"{who} plays normally"
    elif t == "bid":
        suit = action.get("suit")
        text = f"{who} bids {action['n']}" + (suit or "")
    elif t == "with":
        text = f"{who} says With"
    elif t == "pass":
        text = f"{who} passes"
    elif t == "call":
        text = f"{who} calls {action['n']}{action.get('suit') or ''}"
    elif t == "declare":
        text = f"{who} declares {action['n']}"
    elif t == "play":
        text = f"{who} plays {action['card']}"
    else:
        text = f"{who}: {t}"
    if by == "timer":
        text += " (timer)"
    return text


def round_text(table: Table, rec: dict) -> str:
    if rec.get("void"):
        return "Hand void: declarations under 11; redeal"
    scores = rec.get("scores") or [0, 0, 0, 0]
    parts = [f"{table.seats[i].label} {scores[i]:+d}" for i in range(4)]
    return f"Round {rec.get('round')}: " + ", ".join(parts)


class NullStore:
    """Where match logs will be persisted (issue 6).  Matches round-trip via
    ``match.to_dict()`` / ``engine.from_dict``."""

    def table_created(self, table: Table) -> None: ...
    def match_started(self, table: Table) -> None: ...
    def action(self, table: Table, seat: int, action: dict) -> None: ...
    def match_over(self, table: Table) -> None: ...
    def seats_changed(self, table: Table) -> None: ...
    def table_removed(self, table: Table) -> None: ...


class Registry:
    def __init__(self, store: Any = None, bot_pause: float = 0.8,
                 trick_pause: float = 1.0, absent_timeout: float = 60.0,
                 max_tables: int = 500):
        self.tables: dict[str, Table] = {}
        self.store = store or NullStore()
        self.bot_pause = bot_pause
        self.trick_pause = trick_pause
        self.absent_timeout = absent_timeout
        self.max_tables = max_tables
        self.lobby: set[Member] = set()
        self._ids = itertools.count(1)
        self._lobby_pending = False

    def create(self, game: Any, length: Any = None, timer: Any = 0,
               private: Any = False) -> Table:
        if not isinstance(game, str) or game not in GAMES:
            raise RoomError("Unknown game; choose one of: " + ", ".join(GAMES) + ".")
        spec = GAMES[game]
        if length is None:
            length = spec["default"]
        if isinstance(length, bool) or length not in spec["lengths"]:
            allowed = ", ".join(str(x) for x in spec["lengths"] if x is not None) or "none"
            raise RoomError(f"Lengths for {game}: {allowed}.")
        if isinstance(timer, bool) or timer not in TIMERS:
            raise RoomError("Turn timer: 0 (off), 15, 30 or 60 seconds.")
        if len(self.tables) >= self.max_tables:
            raise RoomError("The room is full of tables; join one instead.")
        tid = str(next(self._ids))
        table = Table(self, tid, game, length, int(timer), bool(private))
        self.tables[tid] = table
        self.store.table_created(table)
        self.lobby_changed()
        return table

    def skip_ids(self, highest: int) -> None:
        """Table ids restored from the store are not handed out again."""
        self._ids = itertools.count(max(highest + 1, next(self._ids)))

    def get(self, tid: Any, member: Member | None = None) -> Table:
        if isinstance(tid, int) and not isinstance(tid, bool):
            tid = str(tid)
        table = self.tables.get(tid) if isinstance(tid, str) else None
        if table is None:
            raise RoomError(f"No table {_short(tid)}.")
        return table

    def listing(self, member: Member | None = None) -> list[dict]:
        out = []
        for t in self.tables.values():
            if t.private and (member is None or member.table is not t):
                continue
            out.append(t.summary())
        return out

    def held_seat(self, ident: str) -> tuple[Table, int] | None:
        """A seat this identity holds in a running match (to come back to)."""
        for t in self.tables.values():
            if t.status != "playing":
                continue
            for i, s in enumerate(t.seats):
                if s.kind == "human" and s.ident == ident:
                    return t, i
        return None

    def detach(self, member: Member, keep_seat: bool, unless: Table | None = None) -> None:
        table = member.table
        if table is not None and table is not unless:
            table.detach(member, keep_seat=keep_seat)

    def gc_table(self, table: Table) -> None:
        """Drop a table nobody needs any more."""
        if self.tables.get(table.id) is not table:
            return
        if any(True for _ in table.members()):
            return
        humans_hold = any(s.kind == "human" for s in table.seats)
        if table.status == "playing" and humans_hold:
            return  # seats are held for players who may come back
        table.close()
        del self.tables[table.id]
        self.store.table_removed(table)
        self.lobby_changed()

    def lobby_changed(self) -> None:
        """Coalesce lobby notifications to one per loop iteration."""
        if self._lobby_pending or not self.lobby:
            return
        self._lobby_pending = True
        try:
            asyncio.get_running_loop().call_soon(self._flush_lobby)
        except RuntimeError:
            self._lobby_pending = False

    def _flush_lobby(self) -> None:
        self._lobby_pending = False
        for member in list(self.lobby):
            try:
                member.lobby_changed()
            except Exception:
                log.exception("lobby notify failed")

    def close(self) -> None:
        for t in list(self.tables.values()):
            t.close()
        self.tables.clear()
