"""One TCP send per screen update, one SSH packet per frame.

asyncssh writes every SSH packet with its own ``transport.write``, and before
each packet it sends once encrypted it puts an empty SSH_MSG_IGNORE packet
(RFC 4251 §9.3.1's counter to an attack on CBC ciphers).  With TCP_NODELAY,
which asyncssh sets, a frame of the table screen was therefore two ``send()``
system calls and two TCP segments on the wire.  ``Coalescing`` gathers the
packets written in one go and sends them with one call: the SSH driver flushes
it right after a frame (``flush``), and anything else written (JSON lines,
asyncssh's own packets) goes out at the end of the loop iteration.
``QuietConnection`` drops the empty SSH_MSG_IGNORE: this server offers no CBC
cipher, so it protected nothing and cost 36 bytes on the wire and a packet to
seal per frame.  ``linger`` closes a connection without a TCP reset, so the
last thing said (a refusal, a kick) arrives.

asyncssh keeps its transport in the private ``SSHConnection._transport``
(2.24.1, pinned); ``tests/test_wire.py`` checks that it still does and that a
session's bytes arrive whole through the wrapper.
"""

from __future__ import annotations

import asyncio
from typing import Any

import asyncssh
from asyncssh.constants import MSG_IGNORE
from asyncssh.packet import SSHPacket, String

from .limits import ENV_REQUESTS_MAX, ENV_VALUE_MAX, KEPT_ENV

# The ciphers this server offers: AES-GCM, then AES-CTR for older clients.  A client
# takes the first cipher of its own list that the server offers, and OpenSSH and
# asyncssh put chacha20-poly1305 first; asyncssh implements it in Python around
# several OpenSSL calls a packet (~20 µs to seal a frame's packet on this machine,
# AES-GCM ~4 µs, one call), and a frame is two packets.  So it is not offered: the
# bytes the terminal gets are the same, the server's CPU per move is ~0.5 ms less at
# a table of four (tests/bench/server_bench.py).  OpenSSH has had AES-GCM since 6.2
# (2013); AES-CTR is what every SSH client speaks.
ENCRYPTION_ALGS = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com",
                   "aes128-ctr", "aes192-ctr", "aes256-ctr")


def kex_algs() -> list[str]:
    """The key exchanges offered: asyncssh's own (GSS aside), ``curve25519-sha256``
    first (issue 32).

    Which exchange is used is the *client's* first that the server supports, so the
    order here never weakens what a client gets (OpenSSH 9.9 and later still get
    ``mlkem768x25519-sha256``).  It decides one thing: whether a client's guessed
    first key-exchange packet is right.  dropbear's ``dbclient`` sends one for its
    first, ``curve25519-sha256``, and by RFC 4253 §7.1 counts it wrong when the
    server's first differs — so it sends the packet again; asyncssh (2.24) counts a
    guess right when the *negotiated* exchange is the client's first, uses the guessed
    packet, and then refuses the repeat ("Key exchange not in progress").  With the
    same first on both sides the two rules agree."""
    from asyncssh.kex import get_default_kex_algs

    names = [a.decode() for a in get_default_kex_algs() if not a.startswith(b"gss-")]
    first = "curve25519-sha256"
    return [first] + [n for n in names if n != first]


class Coalescing:
    """A write transport that joins the writes of one moment into one."""

    __slots__ = ("_held", "_loop", "_parts", "_scheduled", "_transport", "packets", "sends")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop):
        self._transport = transport
        self._loop = loop
        self._parts: list[bytes] = []
        self._scheduled = False
        self._held = False          # a frame is being written: its flush follows (``hold``)
        self.packets = 0            # writes asyncssh made (one per SSH packet) ...
        self.sends = 0              # ... and writes given to the real transport

    def write(self, data: bytes) -> None:
        self.packets += 1
        self._parts.append(data)
        if not self._scheduled and not self._held:
            self._scheduled = True
            try:
                self._loop.call_soon(self.flush)
            except RuntimeError:        # the loop is closing: send it now
                self.flush()

    def flush(self) -> None:
        self._scheduled = False
        if not self._parts:
            return
        data = b"".join(self._parts) if len(self._parts) > 1 else self._parts[0]
        self._parts.clear()
        if not self._transport.is_closing():
            self.sends += 1
            self._transport.write(data)

    def close(self) -> None:
        self.flush()                # a disconnect message written just before goes out
        self._transport.close()

    def abort(self) -> None:
        # asyncssh aborts right after writing its disconnect message: that goes out,
        # and the connection lingers (see ``linger``) instead of being reset.
        self.flush()
        linger(self._transport, self._loop)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


# A closed connection's lingering (``linger``): how long it may still send, and how much.
LINGER_SECONDS = 2.0
LINGER_BYTES = 64 * 1024
# At most this many at once: past it a connection is closed at once, as before (a flood
# of refused connections that never close must not hold the server's descriptors).
LINGER_MAX = 256
_lingering: set[asyncio.Transport] = set()


class Draining(asyncio.Protocol):
    """What a lingering connection's bytes go to: nowhere."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop):
        self.transport = transport
        self.left = LINGER_BYTES
        self.timer = loop.call_later(LINGER_SECONDS, transport.abort)

    def data_received(self, data: bytes) -> None:
        self.left -= len(data)
        if self.left < 0:
            self.transport.abort()

    def eof_received(self) -> bool:
        return False                # the client has closed its side: close ours (FIN)

    def connection_lost(self, exc: Exception | None) -> None:
        self.timer.cancel()
        _lingering.discard(self.transport)
        drop_read_callback(self.transport)


def linger(transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
    """Close ``transport`` without resetting it: keep it open after what was written
    (asyncssh's disconnect message), reading and dropping what the client still
    sends, until the client closes its side (an SSH client does on that message) or
    ``LINGER_SECONDS`` or ``LINGER_BYTES`` run out (``LINGER_MAX`` at once).

    Closing a socket with bytes unread makes the kernel answer with a reset, and a
    reset can destroy what was sent just before it: a refusal's words ("You are
    banned ...") did not reach a client through a TCP balancer (HAProxy, or
    tests/test_proxy_protocol.py's) about one time in ten.  The server does not
    half-close first either: asyncssh as a client, busy with a key exchange, lets an
    end of stream overtake a disconnect message it has received but not yet read."""
    if transport.is_closing() or len(_lingering) >= LINGER_MAX:
        transport.abort()
        return
    try:
        transport.set_protocol(Draining(transport, loop))
        transport.resume_reading()
    except (OSError, RuntimeError, NotImplementedError, AttributeError):
        transport.abort()
        return
    _lingering.add(transport)


def is_lingering(transport: object) -> bool:
    return transport in _lingering


def stop_lingering() -> None:
    """Close every lingering connection now (the server stops)."""
    for transport in list(_lingering):
        transport.abort()


def drop_read_callback(transport: object) -> None:
    """A closed asyncio socket transport keeps ``_read_ready_cb``, a bound method of
    its own (CPython 3.11): a reference cycle left for the collector (issue 12)."""
    try:
        attrs = vars(transport)
    except TypeError:                   # a wrapper without __dict__: nothing to unlink
        return
    if "_read_ready_cb" in attrs:
        attrs["_read_ready_cb"] = None


_EMPTY_IGNORE = (b"\0\0\0\0",)      # an SSH string of no bytes


class QuietConnection(asyncssh.SSHServerConnection):
    """asyncssh's server connection without the empty SSH_MSG_IGNORE packet it puts
    before every packet once the connection is encrypted.  That packet is RFC 4251
    §9.3.1's counter to the chosen-plaintext attack on CBC modes; this server offers
    only AES-GCM and AES-CTR (``ENCRYPTION_ALGS``), where it protects nothing, and
    OpenSSH does not send it.  An empty one hides nothing from traffic analysis
    either (the same 36 bytes before every packet).  It doubled the packets to seal,
    frame and log for every screen update (about 0.15 ms of the server's CPU a move at
    a table of four, within this machine's noise)."""

    def send_packet(self, pkttype: int, *args: bytes, handler: Any = None) -> None:
        if pkttype == MSG_IGNORE and args == _EMPTY_IGNORE:
            return
        super().send_packet(pkttype, *args, handler=handler)


def quiet(conn: asyncssh.SSHServerConnection) -> None:
    """Make ``conn`` a ``QuietConnection`` (called as the connection is made; asyncssh
    has no hook for the class of the connections it accepts)."""
    if type(conn) is asyncssh.SSHServerConnection:
        conn.__class__ = QuietConnection


def coalesce(conn: asyncssh.SSHServerConnection) -> None:
    """Put ``Coalescing`` under ``conn`` (called as the connection is made)."""
    transport = getattr(conn, "_transport", None)
    if transport is None or isinstance(transport, Coalescing):
        return
    setattr(conn, "_transport", Coalescing(transport, asyncio.get_running_loop()))  # noqa: B010


def hold(conn: object) -> None:
    """A frame is about to be written on ``conn`` and ``flush`` follows it (the caller
    makes sure, with ``finally``): its packets schedule no later send of their own
    (a callback a frame that found nothing left to send)."""
    transport = getattr(conn, "_transport", None)
    if isinstance(transport, Coalescing):
        transport._held = True


def flush(conn: object) -> None:
    """Send what ``conn`` has gathered now (after a frame), and end a ``hold``."""
    transport = getattr(conn, "_transport", None)
    if isinstance(transport, Coalescing):
        transport._held = False
        transport.flush()


_KEPT_ENV = frozenset(name.encode() for name in KEPT_ENV)


class GuardedChannel(asyncssh.SSHServerChannel):
    """A session channel that keeps only the environment the room reads (issue 30).

    asyncssh keeps every ``env`` request a client sends, from the moment the channel
    opens, whether or not a session ever starts (one connection sent 4,000 of 200 KB
    each: +760 MB).  Here a variable is kept only if the room reads it
    (``limits.KEPT_ENV``) and its value is at most ``ENV_VALUE_MAX`` bytes; any other
    is refused (an SSH failure where the client asked for a reply).  Past
    ``ENV_REQUESTS_MAX`` requests on one channel each one counts against the
    connection (its owner's ``refused``), which closes it at last.

    asyncssh has no hook for this: its channel handles a request in
    ``_process_<name>_request`` (2.24.1, pinned); ``tests/test_wire.py`` checks that
    it still does."""

    env_requests = 0

    def _process_env_request(self, packet: SSHPacket) -> bool:
        key = packet.get_string()
        value = packet.get_string()
        packet.check_end()
        self.env_requests += 1
        if self.env_requests > ENV_REQUESTS_MAX:
            refused(self, "environment requests")
            return False
        if key not in _KEPT_ENV or len(value) > ENV_VALUE_MAX:
            return False
        result: bool = super()._process_env_request(SSHPacket(String(key) + String(value)))
        return result


def guard_channel(chan: asyncssh.SSHServerChannel) -> GuardedChannel:
    """``chan``, just made by ``create_server_channel``, as a ``GuardedChannel`` (the
    class adds behaviour only, no state of its own to set up)."""
    if type(chan) is asyncssh.SSHServerChannel:
        chan.__class__ = GuardedChannel
    assert isinstance(chan, GuardedChannel)
    return chan


def refused(chan: asyncssh.SSHServerChannel, what: str) -> None:
    """A request past a limit on ``chan``: its connection's owner counts it."""
    conn = chan.get_extra_info("connection")
    owner = conn.get_owner() if conn is not None else None
    count = getattr(owner, "refused", None)
    if count is not None:
        count(what)


# ---------------------------------------------------- a closed connection
UNLINKED = ("_session_factory", "_stdin", "_stdout", "_stderr")   # of a process


def unlink_process(process: asyncssh.SSHServerProcess) -> None:
    """``unlink_asyncssh``'s part for one session (see there)."""
    attrs = vars(process)
    for name in UNLINKED:
        if name in attrs:
            attrs[name] = None


def unlink_asyncssh(conn: asyncssh.SSHServerConnection,
                    processes: list[asyncssh.SSHServerProcess],
                    transport: object = None) -> None:
    """Break the reference cycles asyncssh leaves in a closed connection, so that
    it and its sessions go by reference counting, not in a full collection
    (issue 12): the connection keeps a bound method of its own as its packet
    handler (``_recv_handler``); a process keeps one as its ``_session_factory``
    and its ``_stdin``/``_stdout``/``_stderr`` streams, which point back at it.
    Each is replaced by what holds nothing (asyncssh itself parks
    ``_recv_handler`` on ``lambda: False``).  So is asyncio's socket
    transport under it (``conn._transport``), whose ``_read_ready_cb`` is a
    bound method of its own (CPython 3.11): the one cycle per connection
    that was left, and with objects frozen by ``runtime.collect_and_freeze``
    one that is never collected (asyncssh drops ``_transport`` before
    ``connection_lost``: it is taken at ``connection_made``).  Checked by
    tests/test_session_garbage.py."""
    conn._recv_handler = lambda: False
    if transport is not None and not is_lingering(transport):
        drop_read_callback(transport)      # a lingering one does it when it closes
    for process in processes:
        unlink_process(process)
