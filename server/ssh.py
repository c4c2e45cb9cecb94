"""The asyncssh server: identity, sessions, and one App per PTY session."""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import sys
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import asyncssh
from asyncssh.sftp import MIN_SFTP_VERSION

from engine.room import Member, Registry, Said
from engine.room.errors import N_
from engine.room.text import check_name, clean_name, name_key, safe_text, skeleton

from . import wire
from .admin import SOCKET_NAME, serve_admin
from .cluster import PgCluster, default_name
from .jsonapi import JsonSession
from .keyfiles import KeyFile
from .limits import (
    CHANNEL_WINDOW,
    REFUSED_REQUESTS_MAX,
    TERM_MAX,
    Address,
    Bucket,
    Limits,
    RemoteRequests,
    Tally,
    address_key,
    connection_cap,
)
from .moderation import Moderation, key_of
from .persistence import TableStore, restore
from .proxyproto import Network, ProxyListener
from .store import Store, is_postgres

if TYPE_CHECKING:
    from tui.i18n import Speech

    from .metrics import Exporter

log = logging.getLogger("lamma.ssh")

HOST_KEY_NAME = "ssh_host_ed25519_key"
# A key offered is asked about twice (query, then signature): 20 covers a client that
# tries several keys, then keyboard-interactive, with room to spare.
AUTH_TRIES = 20
ADDRESS_BOOK_SWEEP = 4096   # addresses remembered before idle ones are forgotten


@dataclass
class RoomConfig:
    data: Path
    keys: Path
    guests: bool = True
    allow_list: bool = False
    bot_pause: float = 0.8
    trick_pause: float = 1.0
    absent_timeout: float = 60.0
    mouse: bool = True
    database: str | None = None       # a postgresql:// URL; None: SQLite in data/lamma.db
    process: str = ""                 # this process's name in a shared database
    metrics: str | None = None        # HOST:PORT of the Prometheus endpoint; None: off
    reuse_port: bool = False          # listen with SO_REUSEPORT: processes share one port
    proxy_protocol: bool = False      # each connection starts with a PROXY header (server/proxyproto.py)
    proxy_from: tuple[Network, ...] = ()   # ... and comes from these; empty: from anywhere
    limits: Limits = field(default_factory=Limits)


def load_host_key(keys_dir: Path) -> asyncssh.SSHKey:
    """The host key: generated on first start (mode 0600), reused after.  Processes
    started together on one keys folder all end up with the same key: it is written
    to a file of its own and linked into place, so it appears whole and only once."""
    keys_dir.mkdir(parents=True, exist_ok=True)
    path = keys_dir / HOST_KEY_NAME
    if path.exists():
        return asyncssh.read_private_key(str(path))
    key = asyncssh.generate_private_key("ssh-ed25519")
    draft = keys_dir / f".{HOST_KEY_NAME}.{os.getpid()}.{secrets.token_hex(4)}"
    fd = os.open(str(draft), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(key.export_private_key())
        try:
            os.link(draft, path)
        except FileExistsError:             # another process was first: its key
            return asyncssh.read_private_key(str(path))
    finally:
        draft.unlink(missing_ok=True)
    (keys_dir / (HOST_KEY_NAME + ".pub")).write_bytes(key.export_public_key())
    return key


def check_reuse_port() -> None:
    """``--reuse-port`` needs SO_REUSEPORT; said plainly (an OSError, which ``lamma
    serve`` prints) where the platform lacks it, before anything is opened."""
    instead = ("; run one process per port behind a TCP load balancer instead (README, "
               "\"Beyond one machine\")")
    option = getattr(socket, "SO_REUSEPORT", None)
    if option is None:
        raise OSError("--reuse-port: this platform has no SO_REUSEPORT" + instead)
    with socket.socket() as probe:
        try:
            probe.setsockopt(socket.SOL_SOCKET, option, 1)
        except OSError as e:
            raise OSError(f"--reuse-port: SO_REUSEPORT is refused here ({e})" + instead) from e
    if not sys.platform.startswith("linux"):
        log.warning("--reuse-port: outside Linux SO_REUSEPORT may not spread connections "
                    "among the processes sharing the port")


# authorized_keys options the room honours: "from" (the client's address must match),
# "no-pty" and "restrict" (programs only, no terminal; "pty" gives it back), and the
# forwarding ones (the room forwards nothing anyway). A key with any other option
# ("command=", "principals=", "environment=", "permitopen=", …) cannot be honoured: it is
# refused, with a log line, rather than admitted with its limits silently dropped.
HONOURED_OPTIONS = {"from", "no-pty", "restrict", "pty", "no-port-forwarding",
                    "no-agent-forwarding", "no-x11-forwarding", "no-user-rc"}


class AllowList:
    """``keys/authorized_keys`` for ``--allow-list``: read again whenever it changes."""

    def __init__(self, path: Path):
        self.file = KeyFile(path, self._parse, None)
        self._warned: set[str] = set()

    def _parse(self, text: str) -> asyncssh.SSHAuthorizedKeys | None:
        log.info("allow-list read: %s", self.file.path)
        try:
            return asyncssh.import_authorized_keys(text)
        except ValueError:              # no valid entry at all
            return None

    def admits(self, key: asyncssh.SSHKey, address: str) -> tuple[bool, bool]:
        """(admitted, terminal allowed) for ``key`` connecting from ``address``."""
        keys = self.file.current()
        if keys is None:
            return False, False
        try:
            options = keys.validate(key, address, address)
        except ValueError:                  # an address that is not an IP ("?")
            options = None
        if options is None:
            return False, False             # not listed, or "from" does not match
        unknown = set(options) - HONOURED_OPTIONS
        if unknown:
            fp = key.get_fingerprint("sha256")
            if fp not in self._warned:
                self._warned.add(fp)
                log.warning("allow-list: key %s has option(s) %s, which this room cannot "
                            "honour; the key is refused", fp, ", ".join(sorted(unknown)))
            return False, False
        terminal = ("no-pty" not in options and "restrict" not in options) or "pty" in options
        return True, terminal


class Room:
    """Everything the server shares between sessions."""

    def __init__(self, config: RoomConfig):
        self.config = config
        # The data folder is the room's alone (the database holds private table codes).
        config.data.mkdir(mode=0o700, parents=True, exist_ok=True)
        config.data.chmod(0o700)
        # One database for identity, matches, statistics (issue 6); a damaged file
        # stops the start with a clear StoreError rather than losing anything.
        clustered = is_postgres(config.database)
        if clustered and not config.process:
            config.process = default_name()     # each process of the room has a name
        self.identity = self.store = Store(config.database or config.data / "lamma.db",
                                           process=config.process)
        # The tables' writes go through a connection of their own, on the writer thread
        # that start_server starts (restore, below, still writes at once).
        self.writes = self.store.another()
        self.table_store = TableStore(self.store, writes=self.writes)
        self.registry = Registry(store=self.table_store, bot_pause=config.bot_pause,
                                 trick_pause=config.trick_pause,
                                 absent_timeout=config.absent_timeout,
                                 tables_per_identity=config.limits.tables_per_identity)
        self.restored = restore(self.registry, self.store)
        # On PostgreSQL every process sharing the database is part of one room
        # (server/cluster.py, engine/room/remote.py).
        self.cluster: PgCluster | None = None
        if clustered:
            self.writes.fenced = True       # actions only at tables this process drives
            # Frozen mid-write (a paused VM, a cut network), this process's transaction
            # and its locks end within seconds, so others can take its tables over.
            self.writes.session.append("SET idle_in_transaction_session_timeout = '10s'")
            for setting in self.writes.session:
                self.writes.db.execute(setting)
            self.cluster = PgCluster(self.store, self.table_store)
            self.cluster.prepare(self.registry)
            assert self.registry.side is not None
            self.registry.side.on_login = self.remote_login
            self.registry.side.allowed = RemoteRequests(config.limits).allow
            self.table_store.on_lease_lost = self.registry.side.lease_lost
        self.moderation = Moderation(self)
        self.registry.moderator = self.moderation
        if self.cluster is not None:
            self.cluster.on_moderate = self.moderation.heard
        self.admin_server: asyncio.AbstractServer | None = None   # lamma admin's socket
        self.allowed = AllowList(config.keys / "authorized_keys")
        self.online: dict[str, Member] = {}          # name_key -> Member
        self.addresses: dict[str, Address] = {}      # client address -> what it holds
        # Every connection admitted and open now, and those of them not authenticated
        # yet, oldest first (issue 30: ``make_way``).
        self.connections = 0
        self.unproven: dict[LammaSSHServer, None] = {}
        self.connection_cap = connection_cap(config.limits, 1024)   # start_server sets it
        self.full = Tally(log, "%d connection(s) refused: the room holds its most at once "
                               "(the latest from %s)")
        self.made_way = Tally(log, "%d unauthenticated connection(s) closed to make way "
                                   "for new ones (the latest from %s)")
        self.apps: weakref.WeakSet = weakref.WeakSet()
        self.session_tasks: set[asyncio.Task] = set()
        self.metrics: Exporter | None = None          # server/metrics.py, when asked
        self.table_store.listeners.append(self.store_health)

    def store_health(self, down: bool) -> None:
        """The database stopped or started answering: everyone connected is told."""
        text = Said(STORE_DOWN_NOTICE if down else STORE_BACK_NOTICE)
        for m in list(self.online.values()):
            try:
                m.notice(text)
            except Exception:
                log.exception("telling %s about the database", m.name)

    def remote_login(self, nk: str, ident: str, process: str) -> None:
        """Someone logged in under a name through another process of the room: as in
        one process, the same identity's older terminal here is closed (and a guest
        gives a key's name up to its owner)."""
        old = self.online.get(nk)
        if old is None:
            return
        if old.ident == ident:
            old.kick(Said(N_("You connected from another terminal; this one is closed.")))
        elif old.guest and not ident.startswith("guest:"):
            old.kick(Said(N_("The name '{name}' belongs to its key's owner, who has just "
                             "arrived; connect again under another name."), name=old.name))

    def online_lookalike(self, name: str) -> str | None:
        """Someone online now under another name that looks like ``name`` (the same
        skeleton; ``online`` is keyed by the exact name's key), as it may be shown."""
        nk, look = name_key(name), skeleton(name)
        for key, member in list(self.online.items()):
            if key != nk and skeleton(member.name) == look:
                return clean_name(member.name)
        return None

    def make_way(self) -> bool:
        """Room for one more connection? At the cap on connections not yet
        authenticated, or on all of them, the oldest unauthenticated connection of the
        address that holds most of them is closed to make way: a flood of idle
        connections from many addresses cannot keep an honest login out (a login takes
        well under a second; a connection that never proves anything is the flood's).
        False if every connection is authenticated and the room is full."""
        limits = self.config.limits
        if len(self.unproven) < limits.unauthenticated_max and \
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

    def connected(self, srv: LammaSSHServer) -> None:
        self.connections += 1
        self.unproven[srv] = None
        srv.counted = True

    def disconnected(self, srv: LammaSSHServer) -> None:
        if srv.counted:
            srv.counted = False
            self.connections -= 1
            self.unproven.pop(srv, None)

    def forget_idle_addresses(self) -> None:
        """Addresses that hold nothing and whose allowance is whole again (refused ones
        from many addresses would otherwise pile up)."""
        for key, address in list(self.addresses.items()):
            if address.connections == 0 and address.idle():
                del self.addresses[key]

    def close(self) -> None:
        if self.metrics is not None:
            self.metrics.close()
        if self.admin_server is not None:
            self.admin_server.close()
            (self.config.data / SOCKET_NAME).unlink(missing_ok=True)
        self.registry.close()
        self.table_store.close()            # every submitted write committed first
        if self.cluster is not None:
            self.cluster.close()            # then our leases and our heartbeat end
        self.writes.close()
        self.identity.close()
        wire.stop_lingering()


class LammaSSHServer(asyncssh.SSHServer):
    """One per connection: decides who the client is, and bounds what it may open."""

    def __init__(self, room: Room, handler: SessionHandler | None = None):
        self.room = room
        self.handler = handler
        self.conn: asyncssh.SSHServerConnection | None = None
        self.name: str | None = None
        self.name_error = ""
        self._last_key: asyncssh.SSHKey | None = None
        self._guest_ok = False
        self.ident: str | None = None
        self.guest = False
        self.refusal: str | None = None
        self._refusal_shown = False
        limits = room.config.limits
        self.sessions = 0                 # open now on this connection
        self.session_opens = Bucket(limits.session_opens_rate, limits.session_opens_burst)
        self.address: Address | None = None
        self.address_key = ""
        self.terminal_allowed = True      # False: the allow-list says no-pty for this key
        self.auth_tries = 0
        # Its session channels open now, started or not (``session_requested``): each
        # is unlinked when it closes, the rest at the connection's end.
        self.processes: list[asyncssh.SSHServerProcess] = []
        self.channel_opens = Bucket(limits.channel_opens_rate, limits.channel_opens_burst)
        self.refusals = 0                 # requests refused past a limit (``refused``)
        self.counted = False              # in the room's count of connections

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        # asyncssh forgets its transport before connection_lost: kept for unlink_asyncssh.
        self.transport: object = vars(conn).get("_transport")
        wire.coalesce(conn)
        wire.quiet(conn)
        limits = self.room.config.limits
        peer = conn.get_extra_info("peername")
        key = address_key(str(peer[0])) if peer else "?"
        book = self.room.addresses
        address = book.get(key)
        if address is None:
            if len(book) >= ADDRESS_BOOK_SWEEP:
                self.room.forget_idle_addresses()
            address = book[key] = Address(limits)
        # The cheap checks first: a flood they refuse costs no look-up in the store.
        if address.connections >= limits.connections_per_address:
            reason = (f"Too many connections from your address (at most "
                      f"{limits.connections_per_address} at once).")
        elif not address.connects.take():
            reason = "Connections are coming too fast from your address; wait a little."
        elif banned := self.room.moderation.banned(address=key):
            reason = banned
        elif not self.room.make_way():
            reason = "The room is full just now; try again in a few minutes."
            self.room.full.note(key)
        else:
            address.connections += 1
            self.address = address
            self.address_key = key
            self.room.connected(self)
            return
        log.info("refused a connection from %s: %s", key, reason)
        # Said before the handshake ends, so no session, name or key is ever looked at.
        asyncio.get_running_loop().call_soon(
            conn.disconnect, asyncssh.DISC_TOO_MANY_CONNECTIONS, reason)

    def connection_lost(self, exc: Exception | None) -> None:
        conn, self.conn = self.conn, None
        processes, self.processes = self.processes, []
        transport, self.transport = getattr(self, "transport", None), None
        if conn is not None:
            # asyncssh calls this from its clean-up, which goes on after: unlink after it.
            asyncio.get_running_loop().call_soon(unlink_asyncssh, conn, processes, transport)
        address, self.address = self.address, None
        if address is not None:
            self.room.disconnected(self)
            address.connections -= 1
            if address.connections == 0 and address.idle():
                self.room.addresses.pop(self.address_key, None)

    # ------------------------------------------------------------ channels
    def session_requested(self) -> tuple[asyncssh.SSHServerChannel, GuardedProcess]:
        """A session channel opens: counted at once, started or not (issue 30: 20,000
        channels that never started held +143 MB after their connection closed), with
        a small receive window and a guard on what it keeps (``wire.GuardedChannel``,
        ``GuardedProcess``). Refused past the limits, with the reason, as an SSH
        channel-open failure."""
        limits = self.room.config.limits
        reason = None
        if len(self.processes) >= limits.channels_per_connection:
            reason = (f"At most {limits.channels_per_connection} channels open at once on "
                      "one connection.")
        elif not self.channel_opens.take():
            reason = "Channels are opened too fast on this connection; wait a few seconds."
        if reason is not None or self.conn is None or self.handler is None:
            self.refused("channels")
            raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED,
                                            reason or "No session here.")
        chan = wire.guard_channel(self.conn.create_server_channel(window=CHANNEL_WINDOW))
        process = GuardedProcess(self.handler)
        self.processes.append(process)
        return chan, process

    def refused(self, what: str) -> None:
        """A request past a limit (a channel too many, an environment too large, a
        terminal type too long): refused already; a connection that keeps asking is
        closed."""
        self.refusals += 1
        if self.refusals == REFUSED_REQUESTS_MAX and self.conn is not None:
            log.info("disconnecting %s: %d requests refused (%s)", self.address_key,
                     REFUSED_REQUESTS_MAX, what)
            asyncio.get_running_loop().call_soon(
                self.conn.disconnect, asyncssh.DISC_BY_APPLICATION,
                "Too many requests refused on this connection.")

    def channel_closed(self, process: asyncssh.SSHServerProcess) -> None:
        """A channel whose session never started has closed: it holds nothing now."""
        if process in self.processes:
            self.processes.remove(process)
        asyncio.get_running_loop().call_soon(unlink_process, process)

    def begin_auth(self, username: str) -> bool:
        name, reason = check_name(username)
        self.name, self.name_error = name, reason
        return True

    # ---------------------------------------------------------- public key
    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        # Called for the unsigned query *and* for the signed request; only
        # the signed one leads to auth_completed, and it is the last call
        # before it, so _last_key then names the proven key.
        self._last_key = None
        if self.name is None or not self._may_try():
            return False
        fp = key.get_fingerprint("sha256")
        if self.room.config.allow_list:
            admitted, self.terminal_allowed = self.room.allowed.admits(key, self.address_key)
            if not admitted:
                return False
        if not self.room.identity.may_use(self.name, fp):
            return False
        self._last_key = key
        return True

    # ------------------------------------------- guests and refusal texts
    def password_auth_supported(self) -> bool:
        return False

    def kbdint_auth_supported(self) -> bool:
        return True

    def _refusal(self) -> str | None:
        cfg = self.room.config
        if self.name is None:
            return self.name_error
        banned = self.room.moderation.banned(name=self.name)
        if banned:
            return banned
        if cfg.allow_list:
            return Said(N_("This room admits listed keys only, and none of your keys is on "
                           "the list. Ask the host to add your public key."))
        if self.room.identity.owner(self.name) is not None:
            return Said(N_("The name '{name}' is taken: it belongs to another key. Choose "
                           "another name (ssh -p PORT OTHERNAME@HOST), or use the key that "
                           "owns it."), name=self.name)
        like = self.room.identity.lookalike_of(self.name)
        if like is not None:
            return _looks_like(self.name, like, N_("a name that belongs to a key"))
        if not cfg.guests:
            return Said(N_("This room does not admit guests: connect with an SSH key "
                           "(ssh-keygen -t ed25519 makes one)."))
        if name_key(self.name) in self.room.online:
            return Said(N_("A guest named '{name}' is already here; choose another name."),
                        name=self.name)
        like = self.room.online_lookalike(self.name)
        if like is not None:
            return _looks_like(self.name, like, N_("the name of someone here now"))
        return None

    def _may_try(self) -> bool:
        """Authentication attempts on one connection are counted: a client that keeps
        asking (each answer reads the store) is disconnected after AUTH_TRIES."""
        self.auth_tries += 1
        if self.auth_tries <= AUTH_TRIES:
            return True
        if self.auth_tries == AUTH_TRIES + 1 and self.conn is not None:
            log.info("disconnecting %s: %d authentication attempts", self.address_key,
                     AUTH_TRIES)
            asyncio.get_running_loop().call_soon(
                self.conn.disconnect, asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE,
                "Too many authentication attempts.")
        return False

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str):
        self._last_key = None
        if not self._may_try():
            return False
        reason = self._refusal()
        if reason is None:
            self._guest_ok = True
            return True
        self._guest_ok = False
        # OpenSSH asks again after a failed round (NumberOfPasswordPrompts, 3 by
        # default) and would print the same text each time: say it once per connection.
        if self._refusal_shown:
            return False
        self._refusal_shown = True
        # No session yet, so no LANG: the client's language tag (RFC 4256), if any.
        speech = speech_for({"LANG": str(lang or "").replace("-", "_")})
        return ("Lamma", said_to(speech, reason), "", [])

    def validate_kbdint_response(self, username: str, responses) -> bool:
        return False

    # ------------------------------------------------------------ success
    def auth_completed(self) -> None:
        self.room.unproven.pop(self, None)
        key = self._last_key
        self._last_key = None
        if key is not None and self.name is not None:
            fp = key.get_fingerprint("sha256")
            cap = self.room.config.limits.names_per_key
            identity = self.room.identity
            new = identity.owner(self.name) is None
            like = identity.lookalike_of(self.name) if new else None
            if like is not None:
                # A new name may not pass for one already owned (names bound before
                # this rule that already look alike keep working: they are not new).
                self.refusal = _looks_like(self.name, like, N_("a name already taken"))
            elif new and identity.names_of(fp) >= cap:
                # One key cannot hoard names: its existing ones still work.
                self.refusal = Said(N_("Your key already has {n} names; connect under one "
                                       "of them."), n=cap)
            elif identity.bind(self.name, fp):
                self.ident = f"key:{fp}:{name_key(self.name)}"
                self.guest = False
            else:
                like = identity.lookalike_of(self.name)
                self.refusal = (_looks_like(self.name, like, N_("a name just taken")) if like
                                else Said(N_("The name '{name}' was just taken by another "
                                             "key."), name=self.name))
        elif self._guest_ok and self.name is not None:
            # A guest is this connection: a random token nobody else can present, so
            # another guest under the same name never reaches this one's seat or hand.
            # (A guest who comes back on a new connection is a new guest.)
            self.ident = f"guest:{secrets.token_urlsafe(12)}:{name_key(self.name)}"
            self.guest = True
        else:
            self.refusal = Said(N_("Authentication failed."))


class GuardedProcess(asyncssh.SSHServerProcess):
    """A session as asyncssh runs it, with what the room allows before it starts: a
    terminal type of at most ``TERM_MAX`` characters (one of 200 KB is refused, and
    counted against the connection). A channel that closes before its session starts
    tells its connection (``LammaSSHServer.channel_closed``), which unlinks it."""

    def __init__(self, handler: SessionHandler):
        super().__init__(handler, None, MIN_SFTP_VERSION, False)
        self.started = False

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int],
                      term_modes: Mapping[int, int]) -> bool:
        if len(term_type) > TERM_MAX:
            self._owner_says("refused", "terminal type")
            return False
        return True

    def session_started(self) -> None:
        self.started = True
        super().session_started()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if not self.started:
            self._owner_says("channel_closed", self)

    def _owner_says(self, what: str, arg: object) -> None:
        conn = self.get_extra_info("connection")
        owner = conn.get_owner() if conn is not None else None
        if isinstance(owner, LammaSSHServer):
            getattr(owner, what)(arg)


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
    if transport is not None and not wire.is_lingering(transport):
        wire.drop_read_callback(transport)      # a lingering one does it when it closes
    for process in processes:
        unlink_process(process)


async def _unlink_when_closed(process: asyncssh.SSHServerProcess) -> None:
    """``unlink_asyncssh``'s part for one finished session, once asyncssh has closed
    its channel (a connection that ends first unlinks it with the others)."""
    try:
        await asyncio.wait_for(process.wait_closed(), 30)
    except Exception:
        pass
    unlink_process(process)


def _looks_like(name: str, other: str, what: str) -> Said:
    """``what``: words marked ``N_`` (said in the person's language too)."""
    return Said(N_("The name '{name}' looks like '{other}', {what}; choose another name "
                   "(ssh -p PORT OTHERNAME@HOST)."), name=name, other=other, what=what)


def speech_for(env: Mapping[str, object]) -> Speech:
    """How to speak to a connection before (or without) its app: the language its
    locale variables ask for (English otherwise), Arabic shaped for the terminal."""
    from tui.i18n import Speech, language_from_env

    return Speech(language_from_env(env) or "en")


def said_to(speech: Speech, text: str) -> str:
    """``text`` (a refusal, a kick's reason: a ``Said``, or plain English) in that
    language, ready for a terminal."""
    return speech.show(speech.error(text))  # type: ignore[arg-type]


STORE_DOWN_NOTICE = N_("The room's database does not answer: no move can be made until it "
                       "does (nothing already shown is lost).")
STORE_BACK_NOTICE = N_("The room's database answers again: play on.")


def _clean_term(term: object) -> str:
    t = safe_text(term or "", 40)
    return "".join(ch for ch in t if ch.isalnum() or ch in "-_.+") or "xterm"


class SessionHandler:
    def __init__(self, room: Room):
        self.room = room

    async def __call__(self, process: asyncssh.SSHServerProcess) -> None:
        task = asyncio.current_task()
        if task is not None:
            self.room.session_tasks.add(task)
        conn = process.get_extra_info("connection")
        owner = conn.get_owner() if conn is not None else None
        srv = owner if isinstance(owner, LammaSSHServer) else None
        if srv is not None:
            srv.sessions += 1       # (its channel is in srv.processes since it opened)
        try:
            await self.handle(process, srv)
        except Exception:
            log.exception("session failed")
        finally:
            if srv is not None:
                srv.sessions -= 1
            if task is not None:
                self.room.session_tasks.discard(task)
            try:
                process.exit(0)
            except Exception:
                pass
            if srv is not None and process in srv.processes:
                # A connection that lives on (sessions opened one after another) keeps
                # none of its finished ones: each is unlinked once its channel closes.
                srv.processes.remove(process)
                forget = asyncio.ensure_future(_unlink_when_closed(process))
                self.room.session_tasks.add(forget)
                forget.add_done_callback(self.room.session_tasks.discard)

    async def handle(self, process: asyncssh.SSHServerProcess,
                     srv: LammaSSHServer | None) -> None:
        json_mode = (process.command or "").strip() == "play"
        if srv is None or srv.refusal or srv.ident is None or srv.name is None:
            reason = (srv.refusal if srv else None) or Said(N_("Authentication failed."))
            self._refuse(process, reason, json_mode)
            return
        limits = self.room.config.limits
        if srv.sessions > limits.sessions_per_connection:
            self._refuse(process, Said(N_("At most {n} sessions at once on one connection."),
                                       n=limits.sessions_per_connection), json_mode)
            return
        if not srv.session_opens.take():
            self._refuse(process, Said(N_("Sessions are opened too fast on this connection; "
                                          "wait a few seconds.")), json_mode)
            return
        if not json_mode and process.command:
            self._refuse(process, Said(N_("Commands: 'play' (JSON lines). Without a command "
                                          "you get the card room (use ssh -t).")), False)
            return
        if not json_mode and not srv.terminal_allowed:
            self._refuse(process, Said(N_("Your key is listed for programs only (no-pty): use "
                                          "'ssh ... play'.")), False)
            return
        if not json_mode and process.get_terminal_type() is None:
            self._refuse(process, Said(N_("No terminal: use 'ssh -t' for the card room or "
                                          "'ssh ... play' for the JSON interface.")), False)
            return
        name = srv.name
        refusal = self.claim_name(srv)
        if refusal:
            self._refuse(process, refusal, json_mode)
            return
        side = self.room.registry.side
        if side is not None and not srv.guest:
            await side.fresh_rows()     # a seat held at another process's table is found
        if json_mode:
            await self.run_json(process, name, srv.ident, srv.guest, srv.address,
                                srv.address_key)
        else:
            await self.run_tui(process, name, srv.ident, srv.guest, srv.address_key)

    def claim_name(self, srv: LammaSSHServer) -> str | None:
        """Checked again as each session opens (a connection may outlive the moment its
        name was free): the name's key wins over a guest, and one identity holds a name
        at a time. Returns why this session is refused, or None (then any older session
        of the same identity has been closed: the newer terminal takes over)."""
        assert srv.name is not None and srv.ident is not None
        name, nk = srv.name, name_key(srv.name)
        banned = self.room.moderation.banned(fingerprint=key_of(srv.ident), name=name)
        if banned:
            return banned
        if srv.guest and self.room.identity.owner(name) is not None:
            return Said(N_("The name '{name}' now belongs to a key's owner; guests cannot "
                           "use it. Choose another name."), name=name)
        if srv.guest:
            # Bound or arrived since this guest's authentication: look-alikes too.
            like = (self.room.identity.lookalike_of(name)
                    or self.room.online_lookalike(name))
            if like is not None:
                return _looks_like(name, like, N_("a name in use"))
        if self.room.cluster is not None:
            self.room.cluster.login(nk, srv.ident)     # the same name elsewhere in the room
        old = self.room.online.get(nk)
        if old is None:
            return None
        if old.ident == srv.ident:
            old.kick(Said(N_("You connected from another terminal; this one is closed.")))
        elif old.guest and not srv.guest:
            # A guest who came in before the key bound the name gives it up to the key.
            old.kick(Said(N_("The name '{name}' belongs to its key's owner, who has just "
                             "arrived; connect again under another name."), name=name))
        else:
            return Said(N_("The name '{name}' is in use."), name=name)
        return None

    def _refuse(self, process, reason: str, json_mode: bool) -> None:
        """``reason`` to the client: in English for the JSON interface, in the
        language of the connection's locale (LANG/LC_*) on a terminal."""
        if json_mode:
            import json
            data = json.dumps({"type": "error", "message": str(reason)}) + "\n"
        else:
            try:
                env = process.env or {}
            except Exception:
                env = {}
            data = "lamma: " + said_to(speech_for(env), reason) + "\r\n"
        try:
            process.stdout.write(data.encode())
            process.exit(1)
        except Exception:
            pass

    async def run_json(self, process, name: str, ident: str, guest: bool,
                       address: Address | None = None, where: str = "") -> None:
        limits = self.room.config.limits
        session = JsonSession(self.room.registry, process, name, ident, guest,
                              requests=Bucket(limits.json_rate, limits.json_burst),
                              address_requests=address.requests if address else None)
        session.address = where
        nk = name_key(name)
        self.room.online[nk] = session
        try:
            await session.run()
        finally:
            if self.room.online.get(nk) is session:
                del self.room.online[nk]
            session.closed = True
            self.room.registry.detach(session, keep_seat=True)

    async def run_tui(self, process, name: str, ident: str, guest: bool,
                      where: str = "") -> None:
        from tui.app import LammaApp
        from tui.i18n import language_from_env

        from .driver import SSHDriver, clamp_size

        term = _clean_term(process.get_terminal_type())
        env = process.env or {}
        colorterm = _clean_term(env.get("COLORTERM", "")) if env.get("COLORTERM") else ""
        width, height, _, _ = process.get_terminal_size()
        size = clamp_size(width, height)
        app = LammaApp(self.room.registry, name, ident, guest, term=term,
                       colorterm=colorterm, driver_class=SSHDriver,
                       language=language_from_env(env))
        app.ssh_process = process
        app.member.address = where
        nk = name_key(name)
        self.room.online[nk] = app.member
        self.room.apps.add(app)
        finished = False
        try:
            await app.run_async(size=size, mouse=self.room.config.mouse)
            finished = True
        except Exception:
            log.exception("app for %s failed", name)
        finally:
            app.release()
            if self.room.online.get(nk) is app.member:
                del self.room.online[nk]
            app.ssh_process = None
            reason = app.exit_reason
            if reason:
                try:
                    # In the player's language and text mode (a kick's reason is a Said).
                    said = said_to(app.speech, reason)
                    process.stdout.write(("lamma: " + said + "\r\n").encode())
                except Exception:
                    pass
            if finished:
                # Its objects go now, by reference counting, not in a full collection
                # (an app cancelled or failed half-way is left to the collector).
                self.room.apps.discard(app)
                app.break_cycles()


async def start_server(config: RoomConfig, host: str = "127.0.0.1", port: int = 2222):
    """Start listening; returns (server, room, host_key)."""
    from . import runtime

    if config.reuse_port:
        check_reuse_port()
    runtime.prepare()
    runtime.quiet_accept_errors(asyncio.get_running_loop())
    open_files = runtime.raise_open_files()
    from tui.i18n import preload
    preload()
    room = Room(config)
    room.connection_cap = connection_cap(config.limits, open_files)
    room.table_store.start(asyncio.get_running_loop())
    room.registry.start_resumed()
    if room.cluster is not None:
        room.cluster.start(asyncio.get_running_loop())
    if config.metrics:
        from .metrics import start_exporter  # prometheus_client: only when asked
        try:
            room.metrics = start_exporter(room, config.metrics)
        except (OSError, ValueError):
            room.close()
            raise
    room.admin_server = await serve_admin(room.moderation, config.data)
    host_key = load_host_key(config.keys)
    handler = SessionHandler(room)
    behind: dict[str, object] = {}
    if config.proxy_protocol:
        # Its own TCP listener, reading each connection's PROXY header before asyncssh
        # gets it (server/proxyproto.py); without the option nothing here changes.
        limits = config.limits
        behind["tunnel"] = ProxyListener(
            timeout=limits.proxy_header_timeout, pending_max=limits.proxy_pending,
            trusted=config.proxy_from, reuse_port=config.reuse_port,
            pending_per_address=limits.proxy_pending_per_address)
        if not config.proxy_from:
            log.warning("--proxy-protocol without --proxy-from: any client that reaches "
                        "the port may say any address in its PROXY header; name the "
                        "balancers with --proxy-from CIDR[,CIDR]")
    server = await asyncssh.create_server(
        lambda: LammaSSHServer(room, handler), host, port,
        server_host_keys=[host_key],
        encryption_algs=list(wire.ENCRYPTION_ALGS),    # no chacha20: see server/wire.py
        kex_algs=wire.kex_algs(),                       # dropbear's guess: see there
        # Sessions are made by LammaSSHServer.session_requested (counted and guarded
        # from the moment their channel opens), not by a process_factory here.
        encoding=None,
        line_editor=False,
        allow_scp=False,
        agent_forwarding=False,
        x11_forwarding=False,
        login_timeout=config.limits.login_timeout,
        keepalive_interval=30,
        keepalive_count_max=4,
        # Several processes on one port, the kernel spreading connections among them.
        reuse_port=config.reuse_port or None,
        **behind,
    )
    return server, room, host_key
