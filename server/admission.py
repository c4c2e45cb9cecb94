"""Admission that spares the shared address (issue 45): connections wait their turn for
a handshake instead of being refused in a burst.

Each address may have ``handshakes-per-address`` connections authenticating at once
(``LammaSSHServer.connection_made`` counts them). 300 people with keys behind one
address (a school, an office, a carrier's NAT at the start of a club night) who start
together arrive in one burst: before this, the 17th and every later one was refused
(16–32 of 300 got in). Now a connection over the cap waits here, before asyncssh ever
sees it, for a place among its address's handshakes: its socket is accepted and its
first bytes (the client's version line and key exchange, a few hundred bytes) kept,
nothing else — no SSH state, no key exchange, no timer but its own. A place opens each
time a connection of that address proves who it is (a key takes a few milliseconds)
or ends; the oldest waiting connection of that address then gets it. A queue that does
not move for ``handshake-queue-seconds`` (idle connections hold every place, as in a
flood) hands its connections to asyncssh, which refuses them with the cap's words as
before; a queue that moves keeps them, up to ten times as long.

Guests and connections that never authenticate are held exactly as before: a guest is
still one of ``guests-per-address``, a connection still spends its address's
``connects`` rate (a proven key hands its token back), and what the queue cannot hold
(``handshake-queue-per-address`` from one address, ``handshake-queue-max`` in all, and
never past the room's open-files budget) is refused at once, in the same words.

It sits where the PROXY protocol reader sits (server/proxyproto.py): asyncssh's
``tunnel`` listener, here on plain TCP (``Gate``), or after the PROXY header has named
the client (``ProxyListener`` hands the connection on to ``Admission.enter``). Handing a
connection to asyncssh is what ProxyListener did already: asyncssh's own connection is
made by its factory, given the socket's transport and fed the bytes kept so far.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections import deque
from collections.abc import Callable
from typing import Any

from .book import Book
from .limits import Limits, address_key

log = logging.getLogger("lamma.ssh")

# Bytes a waiting connection's client may send before its socket is no longer read
# (an SSH client sends its version line and KEXINIT, ~1.5 KB, then waits for ours).
WAIT_BUFFER = 16 * 1024
# A queue that keeps moving holds a connection at most this many times
# ``handshake-queue-seconds`` (the rest of the login is asyncssh's login timeout).
MOVING_FACTOR = 10

Factory = Callable[[str, int], Any]


class Admission:
    """The room's queues of connections waiting for a handshake, one per address."""

    def __init__(self, book: Book, limits: Limits):
        self.book = book            # who holds what: each address's handshakes
        self.limits = limits        # the room's (changed in place on reload)
        self.lines: dict[str, deque[Waiting]] = {}
        self.moved: dict[str, float] = {}       # address -> when its queue last moved
        self.waiting = 0
        self.admitted_after_wait = 0            # since the start (tests, the status)
        self.closed = False
        self._pumps: set[str] = set()

    # ------------------------------------------------------------ arrivals
    def may_begin(self, key: str) -> bool:
        """A place among ``key``'s handshakes now? (What ``connection_made`` refuses
        past; the checks that no wait can help — a ban, the room full — are its own.)"""
        address = self.book.addresses.get(key)
        return address is None or address.unproven < address.limits.handshakes_per_address

    def enter(self, factory: Factory, transport: asyncio.Transport,
              source: tuple[str, int] | None = None, balancer: Any = None,
              rest: bytes = b"") -> None:
        """A connection accepted (and its PROXY header read, if any): to asyncssh now,
        or into its address's queue."""
        peer = source or transport.get_extra_info("peername")
        key = address_key(str(peer[0])) if peer else "?"
        line = self.lines.get(key)
        if self.closed or (not line and self.may_begin(key)) or not self._room_for(key):
            # A place, or no room to wait in: asyncssh has it (and refuses it in words
            # if it is over a limit).
            hand_over(factory, transport, source, balancer, rest)
            return
        if line is None:
            line = self.lines[key] = deque()
            self.moved[key] = asyncio.get_running_loop().time()
        waiting = Waiting(self, key, factory, transport, source, balancer, rest)
        line.append(waiting)
        self.waiting += 1
        transport.set_protocol(waiting)
        self.pump(key)

    def _room_for(self, key: str) -> bool:
        """May one more connection from ``key`` wait? Its own queue, every queue, and
        the open files the room keeps for its connections (a waiting one holds one)."""
        book = self.book
        address = book.addresses.get(key)
        limits = address.limits if address is not None else self.limits.for_address(key)
        line = self.lines.get(key)
        return (limits.handshake_queue_seconds > 0
                and (len(line) if line else 0) < limits.handshake_queue_per_address
                and self.waiting < self.limits.handshake_queue_max
                and book.connections + self.waiting < book.connection_cap)

    # ------------------------------------------------------------ places
    def freed(self, key: str) -> None:
        """A place among ``key``'s handshakes opened (a connection proved itself or
        ended): its queue moves, once the callback that freed it is over."""
        if key in self.lines and key not in self._pumps:
            self._pumps.add(key)
            asyncio.get_running_loop().call_soon(self._pump_soon, key)

    def _pump_soon(self, key: str) -> None:
        self._pumps.discard(key)
        self.pump(key)

    def pump(self, key: str) -> None:
        """As many of ``key``'s waiting connections to asyncssh as there are places."""
        line = self.lines.get(key)
        while line and self.may_begin(key):
            waiting = line.popleft()
            self.waiting -= 1
            if waiting.go():
                self.moved[key] = asyncio.get_running_loop().time()
                self.admitted_after_wait += 1
        if line is not None and not line:
            del self.lines[key]
            self.moved.pop(key, None)

    def left(self, waiting: Waiting) -> None:
        """A waiting connection ended (the client gave up) or waited its longest."""
        line = self.lines.get(waiting.key)
        if line is None:
            return
        try:
            line.remove(waiting)
        except ValueError:
            return
        self.waiting -= 1
        if not line:
            del self.lines[waiting.key]
            self.moved.pop(waiting.key, None)

    def close(self) -> None:
        """The room stops taking connections (a drain): those waiting are closed."""
        self.closed = True
        for line in list(self.lines.values()):
            for waiting in list(line):
                waiting.abort()
        self.lines.clear()
        self.moved.clear()
        self.waiting = 0


class Waiting(asyncio.Protocol):
    """A connection waiting for its place: what it sends is kept (up to WAIT_BUFFER,
    then it is no longer read), nothing is answered."""

    def __init__(self, admission: Admission, key: str, factory: Factory,
                 transport: asyncio.Transport, source: tuple[str, int] | None,
                 balancer: Any, rest: bytes):
        self.admission = admission
        self.key = key
        self.factory = factory
        self.transport: asyncio.Transport | None = transport
        self.source = source
        self.balancer = balancer
        self.buffer = bytearray(rest)
        self.paused = False
        loop = asyncio.get_running_loop()
        self.since = loop.time()
        limits = admission.limits.for_address(key)
        self.patience = limits.handshake_queue_seconds
        self.timer: asyncio.TimerHandle | None = loop.call_later(self.patience, self._check)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) >= WAIT_BUFFER and not self.paused and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()

    def eof_received(self) -> bool:
        return False                        # the client gave up: closed, and it leaves

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        if self.transport is not None:
            self.transport = None
            self.admission.left(self)

    def _check(self) -> None:
        """Its patience is over unless its queue moved meanwhile (then it waits on, at
        most MOVING_FACTOR times as long)."""
        self.timer = None
        if self.transport is None:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        last = max(self.since, self.admission.moved.get(self.key, self.since))
        until = min(last + self.patience, self.since + MOVING_FACTOR * self.patience)
        if now < until - 0.01:
            self.timer = loop.call_later(until - now, self._check)
            return
        # Waited its longest: asyncssh refuses it with the cap's words (or admits it,
        # if a place opened this very moment).
        self.admission.left(self)
        self.go()

    def go(self) -> bool:
        """To asyncssh, with what it sent so far; False if it had gone already."""
        self._stop_timer()
        transport, self.transport = self.transport, None
        if transport is None or transport.is_closing():
            return False
        if self.paused:
            transport.resume_reading()
        hand_over(self.factory, transport, self.source, self.balancer, bytes(self.buffer))
        self.buffer = bytearray()
        return True

    def abort(self) -> None:
        self._stop_timer()
        transport, self.transport = self.transport, None
        if transport is not None:
            transport.abort()

    def _stop_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


def hand_over(factory: Factory, transport: asyncio.Transport,
              source: tuple[str, int] | None, balancer: Any, rest: bytes) -> None:
    """The connection to asyncssh: its own SSH connection object made by its factory,
    told the client's address if a PROXY header named it, given the transport, and fed
    the bytes read so far."""
    conn = factory("", 0)
    if source is not None:
        conn.set_extra_info(peername=source)
    if balancer is not None:
        conn.set_extra_info(proxy_peername=balancer)    # the balancer, for whoever asks
    transport.set_protocol(conn)
    conn.connection_made(transport)
    if rest:
        conn.data_received(rest)


class Arrival(asyncio.Protocol):
    """A plain TCP connection as it is accepted: straight on to the room's admission."""

    def __init__(self, admission: Admission, factory: Factory):
        self.admission = admission
        self.factory = factory

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.admission.enter(self.factory, transport)


class Gate:
    """Given to ``asyncssh.create_server`` as its ``tunnel`` (as ``ProxyListener`` is
    with --proxy-protocol): listens on TCP as asyncssh's own listener would, and passes
    each connection through the room's admission."""

    def __init__(self, admission: Admission, reuse_port: bool = False):
        self.admission = admission
        self.reuse_port = reuse_port

    async def create_server(self, session_factory: Factory, listen_host: str,
                            listen_port: int) -> asyncio.Server:
        loop = asyncio.get_running_loop()
        return await loop.create_server(
            lambda: Arrival(self.admission, session_factory), listen_host, listen_port,
            flags=socket.AI_PASSIVE, backlog=100, reuse_port=self.reuse_port or None)
