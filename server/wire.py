"""asyncssh's privates, fenced in: every one the server relies on is here, each
checked in ``tests/test_textual_compat.py`` (asyncssh pinned at 2.24.1), and no
other module touches one (the same test scans them).

* ``QuietConnection``: the server's connections (their class set as each is
  made: asyncssh has no hook for it).  asyncssh puts an empty SSH_MSG_IGNORE
  before every packet it sends once encrypted (RFC 4251 §9.3.1's counter to an
  attack on CBC ciphers); this server offers no CBC cipher, so it protected
  nothing and cost a packet to seal and 36 bytes on the wire per frame (2.3 % of
  the server's instructions a move at a table of four).  And when asyncssh closes
  a connection at once (after its disconnect message), the socket lingers
  instead of being reset (``linger``), so the last thing said (a refusal, a
  kick) arrives.
* ``GuardedChannel``: a session channel that keeps only the environment the
  room reads (issue 30).
* ``ServerProcess``: asyncssh's session, made as asyncssh makes one.
* ``unlink_asyncssh``: a closed connection's reference cycles broken, so that
  it goes by reference counting (issue 12).
* ``kex_algs``, ``ENCRYPTION_ALGS``: what the server offers.
* ``QuietConnection._process_userauth_request``: a user name prepared by
  ``user_name_prep`` (SASLprep without its bidi rule), so that a name of Arabic
  letters may begin or end with a digit, '_' or '-'; the room checks names itself.
"""

from __future__ import annotations

import asyncio
import stringprep
import unicodedata
from typing import Any

import asyncssh
import asyncssh.connection
from asyncssh.constants import MSG_IGNORE, MSG_USERAUTH_REQUEST
from asyncssh.packet import SSHPacket, String
from asyncssh.saslprep import SASLPrepError, saslprep
from asyncssh.sftp import MIN_SFTP_VERSION

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


class _Lingering:
    """What asyncssh aborts as it closes a connection at once: the socket's lingering
    (``linger``) instead of its reset."""

    __slots__ = ("transport",)

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport

    def abort(self) -> None:
        linger(self.transport, asyncio.get_running_loop())


# ------------------------------------------------------------ user names
# SASLprep's prohibited output (RFC 4013 §2.3), as asyncssh.saslprep lists it.
_PROHIBITED = (stringprep.in_table_c12, stringprep.in_table_c21_c22,
               stringprep.in_table_c3, stringprep.in_table_c4, stringprep.in_table_c5,
               stringprep.in_table_c6, stringprep.in_table_c7, stringprep.in_table_c8,
               stringprep.in_table_c9)


def user_name_prep(s: str) -> str:
    """A user name as asyncssh prepares it (SASLprep, RFC 4013: unassigned code
    points refused, B.1 mapped to nothing and C.1.2 to a space, NFKC, prohibited
    output refused), without stringprep's bidi rule (RFC 3454 §6).

    That rule refuses a string with a right-to-left letter unless its first *and*
    last characters are right-to-left letters: 'سامي1', 'سامي_', 'سامي١' and
    '1سامي' were disconnected with "RandALCat character not at both start and end"
    before the room saw them, though a name is letters of one script, digits, '_'
    and '-' in any order (README).  The rule is about showing a mixed-direction
    string unambiguously; the room decides which names it takes (``check_name``:
    one script, no invisible or direction-changing character) and says why it
    refuses one.  Every other name comes out exactly as ``saslprep`` makes it
    (tests/test_server_sessions.py).  ``s`` is named as ``saslprep``'s argument,
    which this stands in for."""
    for ch in s:
        if stringprep.in_table_a1(ch):
            raise SASLPrepError(f"Unassigned character: {ch!r}")
    mapped = "".join(" " if stringprep.in_table_c12(ch) else ch for ch in s
                     if not stringprep.in_table_b1(ch))
    prepped = unicodedata.normalize("NFKC", mapped)
    for ch in prepped:
        if any(prohibited(ch) for prohibited in _PROHIBITED):
            raise SASLPrepError(f"Prohibited character: {ch!r}")
    return prepped


class QuietConnection(asyncssh.SSHServerConnection):
    """asyncssh's server connection, with three differences.

    * No empty SSH_MSG_IGNORE packet before every packet once the connection is
      encrypted.  That packet is RFC 4251 §9.3.1's counter to the chosen-plaintext
      attack on CBC modes; this server offers only AES-GCM and AES-CTR
      (``ENCRYPTION_ALGS``), where it protects nothing, and OpenSSH does not send it.
      An empty one hides nothing from traffic analysis either (the same 36 bytes
      before every packet).  It doubled the packets to seal, frame and log for every
      screen update: 2.3 % of the server's instructions a move at a table of four
      (callgrind), within this machine's noise in CPU time.
    * Closed at once (``_force_close``: a disconnect message just written, a
      protocol error), its socket lingers (``linger``) instead of being reset, which
      could destroy what was written just before.
    * A user name is prepared by ``user_name_prep``, not ``saslprep`` (an Arabic
      name may end in a digit).  asyncssh has no hook for it: it prepares the name
      in ``SSHConnection._process_userauth_request`` (called through the class's
      ``_packet_handlers``, by message number) with ``asyncssh.connection``'s
      ``saslprep``, before ``begin_auth``.  That name is ``user_name_prep`` for the
      length of that call only; the call reads the name before it returns (the rest
      of the request is a coroutine it returns), and nothing else runs meanwhile.

    Relies on ``SSHConnection.send_packet(pkttype, *args, handler=None)`` (where the
    empty SSH_MSG_IGNORE is sent from) and ``SSHConnection._force_close(exc)``, which
    aborts ``SSHConnection._transport`` (a loop callback later)."""

    def send_packet(self, pkttype: int, *args: bytes, handler: Any = None) -> None:
        if pkttype == MSG_IGNORE and args == _EMPTY_IGNORE:
            return
        super().send_packet(pkttype, *args, handler=handler)

    def _force_close(self, exc: Exception | None) -> None:
        transport = self._transport
        if transport is not None and not isinstance(transport, _Lingering):
            self._transport = _Lingering(transport)  # type: ignore[assignment]
        super()._force_close(exc)

    def _process_userauth_request(self, pkttype: int, pktid: int,
                                  packet: SSHPacket) -> Any:
        asyncssh.connection.saslprep = user_name_prep
        try:
            return super()._process_userauth_request(pkttype, pktid, packet)
        finally:
            asyncssh.connection.saslprep = saslprep

    _packet_handlers = {**asyncssh.SSHServerConnection._packet_handlers,
                        MSG_USERAUTH_REQUEST: _process_userauth_request}


def quiet(conn: asyncssh.SSHServerConnection) -> None:
    """Make ``conn`` a ``QuietConnection`` (called as the connection is made; asyncssh
    has no hook for the class of the connections it accepts).  Relies on a
    connection's class being set to a subclass that adds no state."""
    if type(conn) is asyncssh.SSHServerConnection:
        conn.__class__ = QuietConnection


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
    ``_process_<name>_request`` (2.24.1, pinned), with ``asyncssh.packet``'s
    ``SSHPacket`` and ``String``."""

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


# ------------------------------------------------------------------- sessions
class ServerProcess(asyncssh.SSHServerProcess):
    """asyncssh's server session for a handler (no SFTP, no SCP), made as asyncssh
    makes it for ``process_factory``: its constructor, ``(process_factory,
    sftp_factory, sftp_version, allow_scp)``, is not documented."""

    def __init__(self, handler: Any) -> None:
        super().__init__(handler, None, MIN_SFTP_VERSION, False)


# --------------------------------------------------------- a connection's end
def transport_of(conn: asyncssh.SSHServerConnection) -> object:
    """The transport under ``conn`` (``SSHConnection._transport``), taken as the
    connection is made: asyncssh forgets it before ``connection_lost``, and
    ``unlink_asyncssh`` needs it then."""
    return vars(conn).get("_transport")


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
    transport under it (``transport_of``), whose ``_read_ready_cb`` is a
    bound method of its own (CPython 3.11): the one cycle per connection
    that was left, and with objects frozen by ``runtime.collect_and_freeze``
    one that is never collected.  Checked by tests/test_session_garbage.py."""
    conn._recv_handler = lambda: False
    if transport is not None and not is_lingering(transport):
        drop_read_callback(transport)       # a lingering one does it when it closes
    for process in processes:
        unlink_process(process)
