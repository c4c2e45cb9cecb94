"""The room's book of who is here: who is online under which name, and what each
client address and proven key holds of the room's limits (connections, those still
authenticating, the caps on them all). Every transport's handlers keep it — an SSH
connection (server/connections.py), a session (server/sessions.py), the web page's
websocket (server/web/listener.py) — and the composition root (server/service.py)
owns the one of its process. It imports none of them: what it needs of a connection
is ``Unproven``, what they need of moderation is ``Bans``."""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable
from typing import Protocol

import asyncssh

from engine.room import Member
from engine.room.text import clean_name, name_key, skeleton

from .limits import Address, KeyHold, Limits, Tally, connection_cap

log = logging.getLogger("lamma.ssh")

ADDRESS_BOOK_SWEEP = 4096   # addresses remembered before idle ones are forgotten


def key_of(ident: str) -> str | None:
    """The key fingerprint in a key identity ``key:<fingerprint>:<name>``."""
    if not ident.startswith("key:"):
        return None
    return ident[4:].rpartition(":")[0] or None


class Unproven(Protocol):
    """A connection admitted and not authenticated yet, as the book counts it (and may
    close it to make way for a newer one)."""

    address_key: str
    counted: bool
    conn: asyncssh.SSHServerConnection | None


class Bans(Protocol):
    """Moderation as the transports ask it (server/moderation.py): why a connection,
    a key or a name is refused now, or None."""

    def banned(self, *, address: str | None = None, fingerprint: str | None = None,
               name: str | None = None) -> str | None: ...


class Book:
    """Who is here and what they hold, for one process's room."""

    def __init__(self, limits: Limits):
        self.limits = limits                        # the room's (changed in place on reload)
        self.online: dict[str, Member] = {}         # name_key -> Member
        self.addresses: dict[str, Address] = {}     # client address -> what it holds
        self.keys: dict[str, KeyHold] = {}          # proven key -> what it holds
        # Every connection admitted and open now, and those of them not authenticated
        # yet, oldest first (issue 30: ``make_way``).
        self.connections = 0
        self.unproven: dict[Unproven, None] = {}
        self.connection_cap = connection_cap(limits, 1024)   # start_server sets it
        self.full = Tally(log, "%d connection(s) refused: the room holds its most at once "
                               "(the latest from %s)")
        self.made_way = Tally(log, "%d unauthenticated connection(s) closed to make way "
                                   "for new ones (the latest from %s)")
        self.apps: weakref.WeakSet = weakref.WeakSet()     # terminal sessions' apps
        self.session_tasks: set[asyncio.Task] = set()
        # The name in use on the room's other processes that looks like a given one
        # (server/cluster.py, issue 41); None: a room of one process.
        self.elsewhere: Callable[[str], str | None] | None = None

    # ------------------------------------------------------------ addresses
    def address(self, key: str) -> Address:
        """What ``key`` holds, made on its first connection (idle addresses forgotten
        once the book holds many: refused ones from many addresses would pile up)."""
        address = self.addresses.get(key)
        if address is None:
            if len(self.addresses) >= ADDRESS_BOOK_SWEEP:
                self.forget_idle_addresses()
            address = self.addresses[key] = Address(self.limits.for_address(key))
        return address

    def forget_idle_addresses(self) -> None:
        """Addresses that hold nothing and whose allowance is whole again."""
        for key, address in list(self.addresses.items()):
            if address.connections == 0 and address.idle():
                del self.addresses[key]

    def key_hold(self, fingerprint: str) -> KeyHold:
        """What a proven key holds (its connections and requests), made on its first."""
        hold = self.keys.get(fingerprint)
        if hold is None:
            hold = self.keys[fingerprint] = KeyHold(self.limits)
        return hold

    def release_key(self, fingerprint: str, hold: KeyHold) -> None:
        """One of a key's connections ended: the key forgotten with its last (its
        allowance comes back whole with a new login: a whole SSH login costs the client
        more than the requests it could make with it)."""
        hold.connections -= 1
        if hold.connections == 0:
            self.keys.pop(fingerprint, None)

    # ------------------------------------------------------------ connections
    def make_way(self) -> bool:
        """Room for one more connection? At the cap on connections not yet
        authenticated, or on all of them, the oldest unauthenticated connection of the
        address that holds most of them is closed to make way: a flood of idle
        connections from many addresses cannot keep an honest login out (a login takes
        well under a second; a connection that never proves anything is the flood's).
        False if every connection is authenticated and the room is full."""
        if len(self.unproven) < self.limits.unauthenticated_max and \
                self.connections < self.connection_cap:
            return True
        if self.unproven:
            held: dict[str, int] = {}
            for srv in self.unproven:
                held[srv.address_key] = held.get(srv.address_key, 0) + 1
            most = max(held, key=held.__getitem__)
            victim = next(srv for srv in self.unproven if srv.address_key == most)
            self.made_way.note(most)
            # Not counted from now on: its socket lingers a moment at most (wire.linger,
            # bounded and within OPEN_FILES_RESERVE).
            self.disconnected(victim)
            if victim.conn is not None:
                victim.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS,
                                       "The room is busy; connect again.")
        return self.connections < self.connection_cap

    def connected(self, srv: Unproven) -> None:
        self.connections += 1
        self.unproven[srv] = None
        srv.counted = True

    def disconnected(self, srv: Unproven) -> None:
        if srv.counted:
            srv.counted = False
            self.connections -= 1
            self.unproven.pop(srv, None)

    def kinds(self, waiting: int) -> dict[str, int]:
        """Connections now by what they are: ``waiting`` for a handshake's place, still
        authenticating, a key's, a guest's (read from the metrics' thread: each count
        one read)."""
        guests = sum(a.guests for a in list(self.addresses.values()))
        keyed = sum(h.connections for h in list(self.keys.values()))
        return {"waiting": waiting, "authenticating": len(self.unproven),
                "key": keyed, "guest": guests}

    # ------------------------------------------------------------ people
    def online_lookalike(self, name: str) -> str | None:
        """Someone online now under another name that looks like ``name`` (the same
        skeleton; ``online`` is keyed by the exact name's key), as it may be shown."""
        nk, look = name_key(name), skeleton(name)
        for key, member in list(self.online.items()):
            if key != nk and skeleton(member.name) == look:
                return clean_name(member.name)
        return self.elsewhere(name) if self.elsewhere is not None else None
