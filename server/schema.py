"""Every setting of the room once (``SETTINGS``): its section and key, default, unit,
comment, the check of its value, whether a reload applies it and whether ``lamma serve``
takes it as a flag. What a configuration is made of; reading it from a file, the
environment and flags, and printing it, is server/config.py's.

A new area is a new table: its settings are declared in ``SETTINGS`` below and nothing
else needs to change — ``lamma config`` prints it, a file is checked against it."""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine import duplicate as rules
from engine.catalogue import DEFAULT_LEVEL, GAMES, LEVELS
from engine.room import duplicate

from .limits import ADDRESS_LIMITS, OP_COST, Limits


class ConfigError(ValueError):
    """A configuration that cannot be used: the file, the line and what is wrong."""


# ------------------------------------------------------------------ value checks
# Each takes the value as TOML gave it and returns it as the room uses it, or raises
# ValueError with what was expected.
Check = Callable[[Any], Any]


# Issue 40: a number is finite and within bounds; past NUMBER_MAX a limit is no limit and
# a duration never ends (a pause of inf or nan stopped every table for good).
NUMBER_MAX = 1_000_000_000
TEXT_MAX = 4096             # characters of one text setting
FILE_MAX = 256 * 1024       # bytes of a configuration file
DEPTH_MAX = 8               # tables and lists inside each other in a configuration file


def _number(minimum: float = 0.0, integer: bool = False,
            maximum: float = NUMBER_MAX) -> Check:
    def check(v: Any) -> Any:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"expected {'a whole number' if integer else 'a number'}")
        if integer and not isinstance(v, int):
            raise ValueError("expected a whole number")
        if not math.isfinite(v):
            raise ValueError(f"expected a finite number, {minimum:g} to {maximum:g}")
        if v < minimum:
            raise ValueError(f"expected at least {minimum:g}")
        if v > maximum:
            raise ValueError(f"expected at most {maximum:g}")
        return int(v) if integer else float(v)
    return check


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError("expected true or false")
    return v


def text_of(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError("expected text in quotes")
    if len(v) > TEXT_MAX:
        raise ValueError(f"expected at most {TEXT_MAX} characters")
    return v


def _choice(*options: str) -> Check:
    def check(v: Any) -> str:
        if v not in options:
            raise ValueError("expected one of " + ", ".join(repr(o) for o in options))
        return str(v)
    return check


def _port(v: Any) -> int:
    n = _number(0, integer=True)(v)
    if n > 65535:
        raise ValueError("expected a port, 0-65535")
    return int(n)


def cidrs_of(v: Any) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    if isinstance(v, str):
        v = [p.strip() for p in v.split(",") if p.strip()]
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ValueError("expected a list of addresses or CIDRs, e.g. [\"10.0.0.0/8\"]")
    out = []
    for part in v:
        try:
            out.append(ipaddress.ip_network(part.strip(), strict=False))
        except ValueError:
            raise ValueError(f"not an address or CIDR: {part!r}") from None
    return tuple(out)


def _listen(v: Any) -> str:
    text = text_of(v)
    if text:
        from .metrics import parse_listen
        parse_listen(text)
    return text


def _log_level(v: Any) -> str:
    text = text_of(v).upper()
    if text not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        raise ValueError("expected DEBUG, INFO, WARNING, ERROR or CRITICAL")
    return text


def _keys_lines(v: Any) -> tuple[str, ...]:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ValueError("expected a list of OpenSSH public-key lines")
    import asyncssh
    for line in v:
        try:
            asyncssh.import_public_key(line)
        except (asyncssh.KeyImportError, ValueError):
            raise ValueError(f"not an OpenSSH public key: {line[:40]!r}") from None
    return tuple(v)


def _origins(v: Any) -> tuple[str, ...]:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ValueError("expected a list of origins, e.g. [\"https://cards.example.org\"]")
    out = []
    for origin in v:
        m = re.fullmatch(r"(https?)://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?", origin)
        if not m:
            raise ValueError(f"not an origin (scheme://host[:port]): {origin[:60]!r}")
        out.append(origin.lower())
    return tuple(out)


def _range(lo: int, hi: int, integer: bool = True) -> Check:
    def check(v: Any) -> Any:
        n = _number(lo, integer=integer)(v)
        if n > hi:
            raise ValueError(f"expected {lo} to {hi}")
        return n
    return check


def _games(v: Any) -> tuple[str, ...]:
    if not isinstance(v, list) or not all(isinstance(x, str) and x in GAMES for x in v):
        raise ValueError("expected a list of games among " + ", ".join(GAMES))
    return tuple(dict.fromkeys(v))


def _op_cost(v: Any) -> dict[str, int]:
    if not isinstance(v, dict):
        raise ValueError("expected a table of op = tokens")
    out = dict(OP_COST)
    for op, cost in v.items():
        if op not in OP_COST:
            raise ValueError(f"no op {op!r} has a cost (ops: {', '.join(OP_COST)})")
        out[op] = int(_number(1, integer=True)(cost))
    return out


# ------------------------------------------------------------------ the settings
@dataclass(frozen=True)
class Setting:
    section: str
    key: str                # as in the file: the flag's own name, words joined by -
    default: Any
    unit: str               # said in the comment: "seconds", "a second", "" …
    comment: str
    check: Check
    live: bool              # a reload applies it to the running room
    flag: bool = False      # ``lamma serve --KEY``
    option: str = ""        # the flag's name where it is not the key (``--web``)

    @property
    def attr(self) -> str:
        return self.key.replace("-", "_")


S = Setting
any_number = _number()
_pause = _number(0.0, maximum=60.0)
_i = _number(0, integer=True)
_i1 = _number(1, integer=True)


def _limit(key: str, unit: str, comment: str, check: Check = any_number) -> Setting:
    default = getattr(Limits(), key.replace("-", "_"))
    return S("limits", key, default, unit, comment, check, True)


SETTINGS: tuple[Setting, ...] = (
    # ---- [serve]: the options of lamma serve
    S("serve", "host", "127.0.0.1", "", "address to listen on; 0.0.0.0 (or ::) accepts "
      "other machines", text_of, False, True),
    S("serve", "port", 2222, "", "the SSH port", _port, False, True),
    S("serve", "reuse-port", False, "", "listen with SO_REUSEPORT: several processes on "
      "this machine share the port (docs/cluster.md)", _bool, False, True),
    S("serve", "proxy-protocol", False, "", "every connection begins with a PROXY "
      "protocol header from a balancer, which names the client", _bool, False, True),
    S("serve", "proxy-from", (), "", "with proxy-protocol: the balancers' addresses "
      "(CIDRs); [] takes headers from any address", cidrs_of, False, True),
    S("serve", "data", "./data", "", "the data folder: the SQLite database, lamma "
      "admin's socket", text_of, False, True),
    S("serve", "keys", "./keys", "", "the keys folder: the host key (made on first "
      "start), authorized_keys, operators", text_of, False, True),
    S("serve", "database", "", "", "a postgresql://USER@HOST/DB URL to share one room "
      "between processes, or a SQLite file; \"\": DATA/lamma.db", text_of, False, True),
    S("serve", "database-password-file", "", "", "a file holding the PostgreSQL "
      "database's password (e.g. a container's secret), added to the URL when it "
      "connects and never printed; \"\": the URL's own, or libpq's PGPASSWORD or "
      "~/.pgpass", text_of, False, True),
    S("serve", "process-name", "", "", "this process's name in a room on PostgreSQL "
      "(\"\": HOST:PID)", text_of, False, True),
    S("serve", "guests", True, "", "admit clients without a key as guests", _bool, True,
      True),
    S("serve", "allow-list", False, "", "admit only keys listed in KEYS/authorized_keys "
      "(no guests)", _bool, False, True),
    S("serve", "metrics", "", "", "HOST:PORT of a Prometheus endpoint (no "
      "authentication: bind it to localhost); \"\": off", _listen, False, True),
    S("serve", "status-every", 60.0, "seconds", "a status line in the log this often; "
      "0: never (at most a day)", _number(0.0, maximum=86400), False, True),
    S("serve", "log-level", "INFO", "", "DEBUG, INFO (sessions and refusals, each with "
      "its address and key; a flood's refusals summed), WARNING, ERROR", _log_level,
      True, True),
    S("serve", "log-format", "text", "", "text, or json: one JSON object a line with "
      "time, level, logger, message and session, name, address, table, event where "
      "known", _choice("text", "json"), False, True),
    # ---- [play]
    S("play", "bot-pause", 0.8, "seconds", "a computer player waits this long before it "
      "moves (0 to 60)", _pause, True, True),
    S("play", "trick-pause", 1.0, "seconds", "a finished trick stays on the table this "
      "long (0 to 60)", _pause, True, True),
    S("play", "absent-timeout", 60.0, "seconds", "a person away from an untimed table is "
      "played for after this long (1 to 3600)", _number(1.0, maximum=3600), True),
    S("play", "quick-play-level", DEFAULT_LEVEL, "", "the computer players quick play "
      "(p in the lobby) seats: " + ", ".join(LEVELS), _choice(*LEVELS), True),
    S("play", "bot-workers", 0, "processes", "worker processes the computer players "
      "think in; 0: one less than the cores (at least one; at most 256)",
      _number(0, integer=True, maximum=256), False),
    # ---- [restart]
    S("restart", "drain-seconds", 30.0, "seconds", "on SIGTERM (and lamma admin drain): "
      "how long people are told to wait, and play goes on until the trick ends (at most "
      "3600)", _number(0.0, maximum=3600), True, True),
    S("restart", "notice", "", "", "said to everyone as the restart begins, instead of "
      "the room's own words (which are said in each person's language; {seconds} is "
      "replaced)", text_of, True),
    # ---- [moderation]
    S("moderation", "operators", (), "", "operators' OpenSSH public keys, beside those "
      "in KEYS/operators", _keys_lines, True),
    # ---- [events]: duplicate events
    S("events", "daily-boards", rules.DAILY_BOARDS, "boards", "the boards of each daily "
      "event (applies to the next day's)", _range(1, 24), True),
    S("events", "daily-hours", duplicate.DAILY_HOURS, "hours", "a daily event is open from "
      "00:00 UTC for this long (applies to the next day's)", _range(1, 24, False), True),
    S("events", "daily-games", GAMES, "", "the games with a daily event",
      _games, True),
    S("events", "samples", duplicate.SAMPLES, "samples", "what the computer players at an "
      "event's board think with, per card (kept with each event made after)",
      _range(1, 4096), True),
    S("events", "per-key", duplicate.PER_KEY, "events", "open events one key may have "
      "made at once", _i1, True),
    S("events", "per-room", duplicate.PER_ROOM, "events", "open events people made, in the "
      "whole room", _i1, True),
    # ---- [web]: the room in a web browser (docs/web.md)
    S("web", "listen", "", "", "HOST:PORT of the room's web page and its websocket, for "
      "players without an SSH client (TLS by a reverse proxy: docs/web.md); \"\": off",
      _listen, False, True, option="web"),
    S("web", "origins", (), "", "pages besides the room's own address that may open its "
      "websocket (scheme://host[:port]); the page's own host is always allowed",
      _origins, True),
    S("web", "proxies", (), "", "reverse proxies (CIDRs) whose X-Forwarded-For and "
      "X-Forwarded-Proto name the client; from any other address they are ignored",
      cidrs_of, True),
    S("web", "link-days", 90.0, "days", "a browser linked to a player's name stays linked "
      "this long after its last visit (1 to 3650)", _number(1.0, maximum=3650), True),
    S("web", "code-minutes", 10.0, "minutes", "a link code shown in an SSH session (/web) "
      "can be used this long, once (1 to 60)", _number(1.0, maximum=60), True),
    # ---- [limits]: every limit of "A public room"
    _limit("json-rate", "tokens a second", "JSON lines, per session: a line costs 1, and "
           "an op its cost in [limits.op-cost]"),
    _limit("json-burst", "tokens", "... at once"),
    _limit("key-json-rate", "tokens a second", "all the JSON sessions of one key together"),
    _limit("key-json-burst", "tokens", "... at once"),
    _limit("address-json-rate", "tokens a second", "all the guests' JSON sessions of one "
           "address together"),
    _limit("address-json-burst", "tokens", "... at once"),
    _limit("request-strikes", "lines", "a JSON session refused this many times in a row "
           "is closed", _i1),
    _limit("key-bytes-rate", "bytes a second", "terminal input, per session"),
    _limit("key-bytes-burst", "bytes", "... at once"),
    _limit("resize-rate", "a second", "window changes applied, per session (the last one "
           "always)"),
    _limit("resize-burst", "changes", "... at once"),
    _limit("paste-max-bytes", "bytes", "a paste is cut here", _i1),
    _limit("sessions-per-connection", "sessions", "open at once on one connection", _i1),
    _limit("session-opens-rate", "a second", "sessions opened on one connection"),
    _limit("session-opens-burst", "sessions", "... at once"),
    _limit("channels-per-connection", "channels", "open at once on one connection, "
           "started or not", _i1),
    _limit("channel-opens-rate", "a second", "channels opened on one connection"),
    _limit("channel-opens-burst", "channels", "... at once"),
    _limit("handshakes-per-address", "connections", "from one address, still "
           "authenticating at once (an IPv6 client counted by its /64)", _i1),
    _limit("handshake-queue-seconds", "seconds", "... past them a connection waits for "
           "a place this long while its address's queue does not move (ten times as long "
           "while it does), then is refused; 0: refused at once",
           _number(0.0, maximum=60.0)),
    _limit("handshake-queue-per-address", "connections", "... at most this many wait "
           "from one address", _i),
    _limit("handshake-queue-max", "connections", "... and in the whole room", _i),
    _limit("guests-per-address", "connections", "guests from one address at once "
           "(players with a key are counted by their key)", _i),
    _limit("connects-rate", "a second", "new connections from one address; a "
           "connection that proves a key gives its token back"),
    _limit("connects-burst", "connections", "... at once"),
    _limit("key-logins-rate", "a second", "logins with a proven key from one address "
           "(people behind one carrier's NAT, a school, an office)"),
    _limit("key-logins-burst", "logins", "... at once"),
    _limit("connections-per-key", "connections", "open at once under one key, from any "
           "address", _i1),
    _limit("auth-tries", "attempts", "authentication attempts on one connection", _i1),
    _limit("proxy-header-timeout", "seconds", "with proxy-protocol: a header must arrive "
           "whole within this"),
    _limit("proxy-pending", "connections", "... at most this many wait for theirs at "
           "once", _i1),
    _limit("proxy-pending-per-address", "connections", "... from one address (without "
           "proxy-from)", _i1),
    _limit("unauthenticated-max", "connections", "not authenticated yet, in the whole "
           "room (past it the oldest of the address holding most makes way)", _i1),
    _limit("login-timeout", "seconds", "from the handshake's start to a proven identity"),
    _limit("connections-max", "connections", "in the whole room; 0: as many as the "
           "open-files limit allows", _i),
    _limit("tables-per-identity", "tables", "open tables one person (or guest) created",
           _i1),
    _limit("names-per-key", "names", "names one key may bind", _i1),
    _limit("new-names-per-hour", "names", "names bound to a key for the first time from "
           "one address, an hour (those who have their names already are not counted)",
           _i1),
    _limit("max-tables", "tables", "open at once in the room (every process of a room on "
           "PostgreSQL together)", _i1),
    _limit("tables-per-address", "tables", "... of which made by the people of one "
           "address (a share no one address can fill the room past)", _i1),
    _limit("max-board-tables", "tables", "event boards in play at once in the room "
           "(apart from max-tables)", _i1),
    _limit("board-tables-per-address", "tables", "... of which dealt to the people of one "
           "address", _i1),
    _limit("events-per-address", "events", "open events made by the people of one "
           "address (of [events] per-room)", _i1),
    _limit("chat-chars", "characters", "a chat line is cut here", _i1),
    _limit("chat-lines", "lines", "chat lines one person may say ...", _i1),
    _limit("chat-seconds", "seconds", "... within this many seconds"),
    S("limits", "op-cost", dict(OP_COST), "tokens", "what a JSON op costs beyond its "
      "line", _op_cost, True),
)

BY_KEY = {(s.section, s.key): s for s in SETTINGS}
SECTIONS = tuple(dict.fromkeys(s.section for s in SETTINGS))
SECTION_NOTES = {
    "serve": "The options of `lamma serve`, under the flags' own names (a flag given "
             "overrides the file).",
    "play": "Play at the tables.",
    "restart": "A clean restart: SIGTERM, or `lamma admin drain [SECONDS]`.",
    "moderation": "Operators (docs/operations.md, Moderation).",
    "events": "Duplicate events (docs/events.md): the daily events and the caps on "
              "those people make.",
    "web": "The room in a web browser (docs/web.md): the same room, sessions and limits as "
           "over SSH.",
    "limits": "Every limit of a public room (docs/operations.md, \"A public room\"). A "
              "reload (SIGHUP, `lamma admin reload`) applies them.",
}
# Per-address limits a trusted network may set for itself ([[limits.networks]]).
NETWORK_KEYS = tuple(a.replace("_", "-") for a in ADDRESS_LIMITS)
