"""What one client may ask of the one event loop (issue 11): every input has a limit.

A limit refuses with words (a JSON ``error``, a notice on the screen) and changes
nothing; a client that keeps pushing is cut off. The numbers are far above what a
person or a well-behaved program does, and far below what slows the others.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.room.requests import Request


class Bucket:
    """A token bucket: ``rate`` a second on average, ``burst`` at once."""

    __slots__ = ("burst", "level", "rate", "stamp")

    def __init__(self, rate: float, burst: float):
        self.rate = rate
        self.burst = burst
        self.level = burst
        self.stamp = time.monotonic()

    def take(self, amount: float = 1.0) -> bool:
        """Spend ``amount`` if there is that much; False (nothing spent) if not."""
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.level < amount:
            return False
        self.level -= amount
        return True

    def charge(self, amount: float) -> None:
        """Spend ``amount`` after the work (a listing's size, known once it is made):
        the level may go below zero, down to ``-burst``, and the next requests wait."""
        self.take(0)
        self.level = max(-self.burst, self.level - amount)


# JSON lines, per session: tokens a second (sustained, burst). A line costs one token
# before it is read, and what its op costs beyond that once it is (OP_COST: a listing is
# real work, a move is not: a program playing against computer players that never pause
# makes ~120 moves a second). A refused line gets an error; a session refused
# REQUEST_STRIKES times in a row is closed.
JSON_RATE, JSON_BURST = 200.0, 400.0
OP_COST = {"tables": 10, "profile": 10, "leaderboard": 10, "create": 20, "join": 5,
           "watch": 5, "fill": 5, "command": 5, "events": 10, "enter": 10,
           "standings": 10, "board": 10, "create_event": 20,
           # Thinking (issue 40): a hint is up to ~0.8 s of a worker (a card: judged as
           # the review judges it, 128 to 512 samples; ~0.1 s mean), a review's round several
           # seconds; at these costs one session asks at most 10 hints or 5 reviews a
           # second sustained (and the scheduler keeps one hint and two reviews of each
           # person waiting: the rest are told "busy").
           "hint": 20, "review": 40}
REQUEST_STRIKES = 200
# A listing costs its op's price and, once made, this many tokens a row beyond it: 50 events
# or 500 tables cost what they took to make (issue 40: "listing ops cost by their size").
ROWS_PER_TOKEN = 5


class Buckets:
    """A bucket for each key (an address), made on its first request; past ``kept``
    keys, those whose bucket is whole again are forgotten (one-off addresses would
    otherwise pile up)."""

    def __init__(self, rate: float, burst: float, kept: int):
        self.rate, self.burst, self.kept = rate, burst, kept
        self.held: dict[str, Bucket] = {}

    def take(self, key: str) -> bool:
        bucket = self.held.get(key)
        if bucket is None:
            if len(self.held) >= self.kept:
                for k in [k for k, b in self.held.items() if b.take(0) and b.level >= b.burst]:
                    del self.held[k]
            bucket = self.held[key] = Bucket(self.rate, self.burst)
        return bucket.take()


class Allowance:
    """A program's requests as its limits allow them: every line and op spends from its
    session's rate and from its key's (or, for a guest, its address's) together; a
    listing is charged by its size too (``ROWS_PER_TOKEN``); refusals in a row are
    counted (``strikes``: a session that keeps flooding is closed)."""

    def __init__(self, own: Bucket | None = None, together: Bucket | None = None):
        self.own, self.together = own, together
        self.strikes = 0

    def take(self, cost: float = 1.0) -> bool:
        if (self.own is None or self.own.take(cost)) and \
                (self.together is None or self.together.take(cost)):
            return True
        self.strikes += 1
        return False

    def charge_rows(self, rows: int) -> None:
        extra = rows / ROWS_PER_TOKEN
        for bucket in (self.own, self.together):
            if bucket is not None and extra:
                bucket.charge(extra)

# Terminal sessions: input bytes a second (typing is tens of bytes a second; a mouse click
# is a dozen), window changes a second (a drag of the window edge gives a few dozen).
KEY_BYTES_RATE, KEY_BYTES_BURST = 4096.0, 16384.0
RESIZE_RATE, RESIZE_BURST = 10.0, 20.0
PASTE_MAX_BYTES = 8192          # a paste is cut here (the chat line takes 200 characters)

# Connections.
SESSIONS_PER_CONNECTION = 3     # open at once (a terminal, a program, one to spare)
SESSION_OPENS_RATE, SESSION_OPENS_BURST = 0.2, 6.0   # per connection: a new one every 5 s
# What a connection may hold before any session starts (issue 30): asyncssh keeps a
# channel's state (its environment, its terminal) from the moment it opens. Session
# channels open at once, started or not: one more than the sessions, so that a session
# too many is told why in its own words; opened at this rate on one connection.
CHANNELS_PER_CONNECTION = SESSIONS_PER_CONNECTION + 1
CHANNEL_OPENS_RATE, CHANNEL_OPENS_BURST = 1.0, 12.0
# A channel's receive window (bytes a client may send ahead of the server's reading;
# asyncssh's default is 2 MiB, held per channel until a session reads it). Keys and JSON
# lines need far less; a JSON line longer than this still arrives, in pieces.
CHANNEL_WINDOW = 64 * 1024
# The environment: only the variables the room reads are kept (the language, colours),
# each at most this long; any other is refused (an SSH failure, nothing kept).
KEPT_ENV = ("LANG", "LC_ALL", "LC_MESSAGES", "COLORTERM")
ENV_VALUE_MAX = 256
ENV_REQUESTS_MAX = 64           # per channel (OpenSSH's "SendEnv *" sends a few dozen)
TERM_MAX = 64                   # a terminal type's length (terminfo names are short)
# Requests past these limits (a channel too many, env past ENV_REQUESTS_MAX, a TERM too
# long) each count against the connection: at this many it is closed.
REFUSED_REQUESTS_MAX = 16
CONNECTIONS_PER_ADDRESS = 16    # still authenticating at once from one address
# ... and past them (issue 45), connections wait for a place (server/admission.py): so
# long while their address's queue does not move (ten times as long while it does), so
# many from one address, so many in all.
HANDSHAKE_QUEUE_SECONDS = 3.0
HANDSHAKE_QUEUE_PER_ADDRESS = 512
HANDSHAKE_QUEUE_MAX = 4096
CONNECTS_RATE, CONNECTS_BURST = 1.0, 20.0            # per address: new connections a second
# The whole room (issue 30): connections that have not authenticated yet (a client that
# sends a version line and waits holds a socket and asyncssh's state for nothing), and
# how long one may take to; past the cap the oldest of the address holding most of them
# makes way for the newcomer. Every connection together stays under the process's
# open-files limit (raised to its hard limit at start), less what the room needs beside
# its connections: the database, the logs, the computer players' workers, and the
# refused connections lingering (``wire.LINGER_MAX``).
UNAUTHENTICATED_MAX = 256
LOGIN_TIMEOUT = 10.0            # seconds from the handshake's start to a proven identity
OPEN_FILES_RESERVE = 64 + 256   # beside the connections (the second part: lingering ones)
# --proxy-protocol (server/proxyproto.py): a connection's PROXY header must arrive whole
# within this (the specification: "at least 3 seconds to cover a TCP retransmit"), and at
# most this many connections wait for theirs at once (a balancer's take one round trip).
PROXY_HEADER_TIMEOUT = 5.0
PROXY_PENDING = 512
# ... and without --proxy-from (anyone may reach the port and say anything), at most this
# many from one address: a client that opens hundreds and never sends a header would
# otherwise take every place from the balancer's own connections.
PROXY_PENDING_PER_ADDRESS = 16

# The room.
TABLES_PER_IDENTITY = 3         # open tables one person (or guest connection) created
NAMES_PER_KEY = 5               # names one key may bind
NEW_NAMES_PER_HOUR = 10         # names bound for the first time from one address, an hour
TABLES_PER_ADDRESS = 100        # open tables made by one address's people (of MAX_TABLES)
MAX_BOARD_TABLES = 1000         # event boards in play in the room (apart from MAX_TABLES)
BOARD_TABLES_PER_ADDRESS = 100  # ... of them, dealt to one address's people
EVENTS_PER_ADDRESS = 10         # open events made by one address's people (of per-room)


# Per address, for what has not proven anything (issue 28): connections still
# authenticating, and guests. A connection that proves a key is limited as that key
# (CONNECTIONS_PER_KEY, the key's requests), not as its neighbours behind one address
# (a mobile carrier's NAT, an office, a school, a café).
GUESTS_PER_ADDRESS = 16         # guest connections at once from one address
# Keyed logins from one address: a connection that proves a key hands its CONNECTS
# token back and spends one of these instead, so the rate of new connections holds
# what proves nothing (idle sockets, guests) while 400 people behind one address may
# all log in at once, then ten a second.
KEY_LOGINS_RATE, KEY_LOGINS_BURST = 10.0, 400.0
CONNECTIONS_PER_KEY = 8         # connections at once under one key (every name of it)
AUTH_TRIES = 20                 # authentication attempts on one connection
MAX_TABLES = 500                # tables open at once in the room (this process's)
CHAT_CHARS, CHAT_LINES, CHAT_SECONDS = 200, 3, 5.0   # a line's length; lines per seconds

# The per-address limits a trusted network (``[[limits.networks]]`` in the
# configuration) may set for itself.
ADDRESS_LIMITS = ("handshakes_per_address", "guests_per_address", "connects_rate",
                  "connects_burst", "key_logins_rate", "key_logins_burst",
                  "address_json_rate", "address_json_burst", "new_names_per_hour",
                  "handshake_queue_per_address", "handshake_queue_seconds")


@dataclass
class Network:
    """Addresses an operator trusts (a school's, an office's), with limits of their own
    for each address in them (None: the room's)."""

    cidrs: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]
    limits: dict[str, float] = field(default_factory=dict)
    name: str = ""

    def holds(self, key: str) -> bool:
        try:
            net = ipaddress.ip_network(key, strict=False)
        except ValueError:
            return False
        return any(net.version == c.version and net.subnet_of(c)     # type: ignore[arg-type]
                   for c in self.cidrs)


@dataclass
class Limits:
    """The numbers a server runs with: production's by default, every one of them
    settable in the configuration file (server/config.py); tests and benchmarks that
    put hundreds of clients on one loopback address raise the per-address ones."""

    # JSON lines, per session, and all of one key's sessions (or one address's guests')
    json_rate: float = JSON_RATE
    json_burst: float = JSON_BURST
    key_json_rate: float = 5 * JSON_RATE        # all of one key's programs together
    key_json_burst: float = 5 * JSON_BURST
    address_json_rate: float = 5 * JSON_RATE    # all of one address's guests together
    address_json_burst: float = 5 * JSON_BURST
    request_strikes: int = REQUEST_STRIKES
    op_cost: dict[str, int] = field(default_factory=lambda: dict(OP_COST))
    # terminal input
    key_bytes_rate: float = KEY_BYTES_RATE
    key_bytes_burst: float = KEY_BYTES_BURST
    resize_rate: float = RESIZE_RATE
    resize_burst: float = RESIZE_BURST
    paste_max_bytes: int = PASTE_MAX_BYTES
    # sessions and channels, per connection
    sessions_per_connection: int = SESSIONS_PER_CONNECTION
    session_opens_rate: float = SESSION_OPENS_RATE
    session_opens_burst: float = SESSION_OPENS_BURST
    channels_per_connection: int = CHANNELS_PER_CONNECTION
    channel_opens_rate: float = CHANNEL_OPENS_RATE
    channel_opens_burst: float = CHANNEL_OPENS_BURST
    # connections: per address (before a key is proven), per key (after), the room's
    handshakes_per_address: int = CONNECTIONS_PER_ADDRESS
    handshake_queue_seconds: float = HANDSHAKE_QUEUE_SECONDS
    handshake_queue_per_address: int = HANDSHAKE_QUEUE_PER_ADDRESS
    handshake_queue_max: int = HANDSHAKE_QUEUE_MAX
    guests_per_address: int = GUESTS_PER_ADDRESS
    connects_rate: float = CONNECTS_RATE
    connects_burst: float = CONNECTS_BURST
    key_logins_rate: float = KEY_LOGINS_RATE
    key_logins_burst: float = KEY_LOGINS_BURST
    connections_per_key: int = CONNECTIONS_PER_KEY
    auth_tries: int = AUTH_TRIES
    proxy_header_timeout: float = PROXY_HEADER_TIMEOUT
    proxy_pending: int = PROXY_PENDING
    proxy_pending_per_address: int = PROXY_PENDING_PER_ADDRESS
    unauthenticated_max: int = UNAUTHENTICATED_MAX
    login_timeout: float = LOGIN_TIMEOUT
    connections_max: int = 0        # 0: as many as the open-files limit allows
    # the room
    tables_per_identity: int = TABLES_PER_IDENTITY
    names_per_key: int = NAMES_PER_KEY
    max_tables: int = MAX_TABLES
    # Issue 40: keys are free, so the room's caps are shared out by address too. A name
    # bound to a key for the first time is a new identity: a few an hour from one
    # address (people who have their names already are not counted); the tables and
    # events one address's people have open at once, a share of the room's caps.
    new_names_per_hour: int = NEW_NAMES_PER_HOUR
    tables_per_address: int = TABLES_PER_ADDRESS
    max_board_tables: int = MAX_BOARD_TABLES
    board_tables_per_address: int = BOARD_TABLES_PER_ADDRESS
    events_per_address: int = EVENTS_PER_ADDRESS
    chat_chars: int = CHAT_CHARS
    chat_lines: int = CHAT_LINES
    chat_seconds: float = CHAT_SECONDS
    # trusted networks, each with per-address limits of its own
    networks: list[Network] = field(default_factory=list)

    @classmethod
    def generous(cls) -> Limits:
        """For a benchmark's hundreds of clients on one address and one key: the limits
        per address and per key off, per session as in production."""
        return cls(address_json_rate=1e9, address_json_burst=1e9, key_json_rate=1e9,
                   key_json_burst=1e9, handshakes_per_address=1_000_000,
                   guests_per_address=1_000_000, connects_rate=1e9, connects_burst=1e9,
                   key_logins_rate=1e9, key_logins_burst=1e9,
                   connections_per_key=1_000_000,
                   names_per_key=1_000_000,         # its clients share one key
                   new_names_per_hour=1_000_000, tables_per_address=1_000_000,
                   board_tables_per_address=1_000_000, events_per_address=1_000_000)

    def for_address(self, key: str) -> Limits:
        """The limits for one client address: the room's, or those of the first trusted
        network that holds it."""
        for net in self.networks:
            if net.limits and net.holds(key):
                return replace(self, **net.limits)       # type: ignore[arg-type]
        return self


def address_key(host: str) -> str:
    """The unit the per-address limits and address bans hold: an IPv4 address (also one
    seen as ``::ffff:a.b.c.d`` on a dual-stack listener), or an IPv6 client's /64 — one
    machine's prefix holds 2^64 addresses, and each would otherwise be a fresh allowance."""
    try:
        ip = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{ip}/64", strict=False))
    return str(ip)


class RemoteRequests:
    """What members connected to other processes of the room may ask of the tables this
    process drives (``Requests.allowed``, engine/room/requests.py): each session's and each address's requests
    a second as a JSON session's here (``json_rate``, ``op_cost``), whatever its own
    process let through, so that a request from elsewhere costs what it does here.
    Guests are counted by their address, a key's sessions by their key."""

    KEEP = 4096                 # buckets kept before the idle ones are forgotten

    def __init__(self, limits: Limits):
        self.limits = limits
        self.sessions: dict[tuple[str, str], Bucket] = {}
        self.addresses: dict[str, Bucket] = {}
        self.keys: dict[str, Bucket] = {}

    def allow(self, req: Request) -> bool:
        session = req.get("session")
        if not session:
            return True                 # the room's own (computer players to fill seats)
        op_cost = self.limits.op_cost
        cost = float({"sit": op_cost.get("join", 5), "take": op_cost.get("join", 5),
                      "watch": op_cost.get("watch", 5)}.get(str(req.get("op")), 1))
        lim = self.limits
        mine = self._bucket(self.sessions, (str(req.get("origin")), str(session)),
                            lim.json_rate, lim.json_burst)
        if not mine.take(cost):
            return False
        ident = str(req.get("ident") or "")
        if ident.startswith("key:"):
            # A key's sessions together, as here (``KeyHold``), wherever they connect.
            fp = ident[4:].rpartition(":")[0]
            return self._bucket(self.keys, fp, lim.key_json_rate,
                                lim.key_json_burst).take(cost)
        address = req.get("address")
        if isinstance(address, str) and address:
            return self._bucket(self.addresses, address, lim.address_json_rate,
                                lim.address_json_burst).take(cost)
        return True

    def _bucket(self, book: dict, key: object, rate: float, burst: float) -> Bucket:
        b = book.get(key)
        if b is None:
            if len(book) >= self.KEEP:
                # Whole again: forgetting it hands a returning client nothing it would
                # not have had anyway.
                for k in [k for k, v in book.items() if v.take(0) and v.level >= v.burst]:
                    del book[k]
            b = book[key] = Bucket(rate, burst)
        return b


class Address:
    """What one client address holds and may still open: its connections still
    authenticating and its guests (a key's connections are its key's: ``KeyHold``)."""

    __slots__ = ("connections", "connects", "guests", "limits", "logins", "new_names",
                 "requests", "unproven")

    def __init__(self, limits: Limits):
        self.limits = limits                # the room's, or its trusted network's
        self.connections = 0                # open now, of every kind
        self.unproven = 0                   # ... of which not authenticated yet
        self.guests = 0                     # ... and guests
        self.connects = Bucket(limits.connects_rate, limits.connects_burst)
        self.logins = Bucket(limits.key_logins_rate, limits.key_logins_burst)
        self.requests = Bucket(limits.address_json_rate, limits.address_json_burst)
        self.new_names = Bucket(limits.new_names_per_hour / 3600, limits.new_names_per_hour)

    def retune(self, limits: Limits) -> None:
        """The configuration was read again: the new numbers from now on."""
        self.limits = limits
        for bucket, rate, burst in (
                (self.connects, limits.connects_rate, limits.connects_burst),
                (self.logins, limits.key_logins_rate, limits.key_logins_burst),
                (self.requests, limits.address_json_rate, limits.address_json_burst),
                (self.new_names, limits.new_names_per_hour / 3600,
                 limits.new_names_per_hour)):
            bucket.take(0)
            bucket.rate, bucket.burst = rate, burst
            bucket.level = min(bucket.level, burst)

    def idle(self) -> bool:
        """Its allowances are whole again: forgetting it now hands a fast reconnector
        nothing it would not have had anyway."""
        return all(b.take(0) and b.level >= b.burst
                   for b in (self.connects, self.logins, self.requests, self.new_names))


class KeyHold:
    """What one proven key holds, whatever address each of its connections comes from:
    its connections, and one allowance of JSON requests for all its sessions."""

    __slots__ = ("connections", "requests")

    def __init__(self, limits: Limits):
        self.connections = 0
        self.requests = Bucket(limits.key_json_rate, limits.key_json_burst)


def connection_cap(limits: Limits, open_files: int) -> int:
    """How many connections the room holds at once: under the open-files limit by
    ``OPEN_FILES_RESERVE``, and under ``limits.connections_max`` if that is set."""
    cap = max(16, open_files - OPEN_FILES_RESERVE)
    return min(cap, limits.connections_max) if limits.connections_max > 0 else cap


class Tally:
    """An event that can come thousands of times a second under attack (a connection
    refused at a cap): counted, and said in the log at most once every ``every``
    seconds, with how many times it came since — one line, not one per event."""

    __slots__ = ("count", "every", "logger", "said", "text")

    def __init__(self, logger: logging.Logger, text: str, every: float = 10.0):
        self.logger = logger
        self.text = text            # %d (how many since the last line) then %s (detail)
        self.every = every
        self.count = 0
        self.said = -every

    def note(self, detail: str = "") -> None:
        self.count += 1
        now = time.monotonic()
        if now - self.said >= self.every:
            self.logger.warning(self.text, self.count, detail)
            self.count = 0
            self.said = now
