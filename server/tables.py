"""Tables shared by every session: one registry, one engine match per table.

Everything here runs on the server's single asyncio loop.  A table applies one
action at a time (``apply`` is synchronous) and then tells every member that
is seated at it or watching it.  Members never touch each other: a TUI member
only *posts a message* to its own App, a JSON member writes to its own channel.
"""

from __future__ import annotations

import asyncio
import hmac
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
# Invitation codes are typed by people: no 0/O, 1/I/L; case and dashes ignored.
# 8 characters of 31 are about 40 bits: with CODE_TRIES wrong codes per
# CODE_WINDOW per session, guessing one takes years, not hours.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LEN = 8
CODE_TRIES = 5          # wrong codes ...
CODE_WINDOW = 60.0      # ... per this many seconds, per session; then every try is refused


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LEN))


def normalize_code(raw: Any) -> str | None:
    """What a person typed, as the stored form: upper case, no spaces or dashes."""
    if not isinstance(raw, str) or len(raw) > 40:
        return None
    text = "".join(ch for ch in raw if ch not in " -\t").upper()
    if not text or not text.isascii() or not text.isalnum():
        return None
    return text


def code_label(code: str | None) -> str:
    """K7QMR2XD -> K7QM-R2XD (easier to read out); older codes as they are."""
    if code and len(code) == CODE_LEN:
        return code[:4] + "-" + code[4:]
    return code or ""


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
        self._code_fails: deque[float] = deque(maxlen=CODE_TRIES)
        self.unlocked: set[str] = set()  # private tables this session gave the code of

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

    def seat_granted(self, table: "Table", seat: int) -> None:
        """A computer player's seat became ours (called before the view is pushed)."""

    def request_dropped(self, table: "Table", seat: int, reason: str) -> None:
        """A waiting request for a computer player's seat ended without the seat."""


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
        self.code = new_code() if private else None
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
        # Computer players' seats promised to people at the next round boundary.
        self.takeovers: dict[int, Member] = {}
        self._round_log: int | None = None  # len(match.log) when this round began

    def code_matches(self, raw: Any) -> bool:
        """Constant-time: the time taken says nothing about how close a guess was."""
        code = normalize_code(raw)
        if code is None or not self.code:
            return False
        return hmac.compare_digest(code.encode(), normalize_code(self.code).encode())

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
            bots_here = self.status == "playing" and any(s.kind == "bot" for s in self.seats)
            raise RoomError(f"Table {self.id} is already playing; you can watch it"
                            + (" or take a computer player's seat." if bots_here else "."))
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
        self._drop_request(member)
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

    # ---------------------------------------- a computer player's seat
    def between_rounds(self) -> bool:
        """Waiting, or no action taken yet in the round being played."""
        if self.status == "waiting":
            return True
        return (self.status == "playing" and self.match is not None
                and self._round_log is not None and len(self.match.log) == self._round_log)

    def take_seat(self, member: Member, seat: Any) -> bool:
        """``member`` takes the computer player's ``seat``: now (True) if the
        match has not started or is between rounds, else at the end of this
        round (False; ``member`` watches meanwhile).  RoomError if refused."""
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
            raise RoomError("Seats are numbered 0 to 3.")
        if self.status == "over":
            raise RoomError(f"The match at table {self.id} is over.")
        if self.seats[seat].kind != "bot":
            raise RoomError(f"Seat {seat} at table {self.id} is not a computer player's.")
        for i, s in enumerate(self.seats):
            if s.kind == "human" and s.ident == member.ident:
                raise RoomError(f"You already hold seat {i} at table {self.id}.")
        cur = member.table
        if (cur is not None and cur is not self and member.seat is not None
                and cur.status == "playing"):
            raise RoomError(f"You are playing at table {cur.id}; leave it first.")
        if member.table is self and member.seat is not None:
            raise RoomError(f"You are seated at table {self.id}.")
        other = self.takeovers.get(seat)
        if other is not None and other is not member:
            raise RoomError(f"Seat {seat} at table {self.id} is already promised to "
                            f"{other.display_name} at the end of this round.")
        if self.between_rounds():
            self._drop_request(member)
            self._swap(seat, member)
            return True
        if member.table is not self or member.seat is not None:
            self.watch(member)
        self._drop_request(member)      # one request per person: the newest
        self.takeovers[seat] = member
        self._notify("seats")
        return False

    def request_of(self, member: Member) -> int | None:
        """The seat ``member`` waits for at this table, if any."""
        for seat, m in self.takeovers.items():
            if m is member:
                return seat
        return None

    def request_text(self, seat: int) -> str:
        return f"You take seat {seat} ({self.seats[seat].label}) when this round ends."

    def _drop_request(self, member: Member) -> None:
        for seat in [s for s, m in self.takeovers.items() if m is member]:
            del self.takeovers[seat]

    def _swap(self, seat: int, member: Member, in_apply: bool = False) -> None:
        """``in_apply``: called from ``_apply``, which reschedules and notifies."""
        bot = self.seats[seat]
        pause = self._trick_pause
        self.seats[seat] = Seat("human", member.name, member.ident, member.guest)
        if self.match is not None:
            # A computer player held this seat in the match: no level points (E-38
            # Decision); the store keeps the new holder so a restart keeps it too.
            self.counts_for_points = False
            self.registry.store.seats_changed(self)
            self.events.append(Event(seat, None, f"{self.seats[seat].label} takes "
                                     f"{bot.label}'s seat", self.round_info()[0]))
        self.version += 1     # a move the computer player is thinking about is dropped
        self._attach(member, seat)          # reschedules: the seat's timer now applies
        try:
            member.seat_granted(self, seat)
        except Exception:
            log.exception("notifying %s failed", member.name)
        if in_apply:
            self._trick_pause = pause       # the finished trick still gets its pause
            return
        self._notify("state")
        self._maybe_start()

    def _round_ended(self) -> None:
        """The round boundary: promised seats change hands before anyone acts."""
        self._round_log = len(self.match.log)
        for seat, member in sorted(self.takeovers.items()):
            del self.takeovers[seat]
            if (member.closed or member.table is not self or member.seat is not None
                    or self.seats[seat].kind != "bot"):
                continue
            self._swap(seat, member, in_apply=True)

    def _drop_all_requests(self, reason: str) -> None:
        pending, self.takeovers = self.takeovers, {}
        for seat, member in pending.items():
            try:
                member.request_dropped(self, seat, reason)
            except Exception:
                log.exception("notifying %s failed", member.name)

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
            self._drop_request(member)      # leaving or gone: the request ends with it
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
            self._round_log = 0
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
            if m.result is None and m.to_act is not None:
                self._round_ended()
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
        if self.takeovers:
            self._drop_all_requests(f"The match at table {self.id} ended before the seat "
                                    "came free.")
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
        if m is None or self.status != "playing" or m.to_act is None or self.closed:
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
    closed = False

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
        self.closed = True
        # A computer player's decision may still be on its way from the worker: the new
        # version makes _auto_bot drop it, so a closed table never moves (or stores) again.
        self.version += 1
        self.takeovers.clear()
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
        while table.private and any(t.code == table.code for t in self.tables.values()):
            table.code = new_code()         # a code names one table
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
        """The tables ``member`` may see; a private one (theirs) with its code."""
        out = []
        for t in self.tables.values():
            if not self.may_see(member, t):
                continue
            row = t.summary()
            if t.private:
                row["code"] = t.code
            out.append(row)
        return out

    def may_see(self, member: Member | None, table: Table) -> bool:
        """Public, or private and ``member`` is at it, holds a seat or gave its code."""
        if not table.private:
            return True
        if member is None:
            return False
        return (member.table is table or table.id in member.unlocked
                or any(s.kind == "human" and s.ident == member.ident for s in table.seats))

    # ------------------------------------------------------- invitation codes
    def _code_guard(self, member: Member) -> None:
        """While a session has too many recent wrong codes, every try is refused
        unchecked, so guessing costs wall-clock time and not only requests."""
        fails = member._code_fails
        now = time.monotonic()
        if len(fails) == fails.maxlen and now - fails[0] < CODE_WINDOW:
            wait = int(CODE_WINDOW - (now - fails[0])) + 1
            raise RoomError(f"Too many wrong codes: wait {wait} s and try again.")

    def _code_failed(self, member: Member, text: str) -> None:
        member._code_fails.append(time.monotonic())
        raise RoomError(text)

    def check_code(self, member: Member, table: Table, raw: Any) -> None:
        """The code of a private ``table``; RoomError (nothing changes) if wrong."""
        if self.may_see(member, table):
            return
        if raw is None:
            raise RoomError(f"Table {table.id} is private: its code is needed.")
        self._code_guard(member)
        if not table.code_matches(raw):
            self._code_failed(member, f"No table {table.id} with that code.")
        member.unlocked.add(table.id)

    def find_code(self, member: Member, raw: Any) -> Table:
        """The private table with this code (what a person types in the lobby)."""
        self._code_guard(member)
        found = None
        for t in list(self.tables.values()):
            # every private table is compared, found or not: timing says nothing
            if t.private and t.code_matches(raw) and found is None:
                found = t
        if found is None:
            self._code_failed(member, "Wrong code: no table has it. Check it with "
                                      "whoever gave it to you.")
        member.unlocked.add(found.id)
        return found

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
