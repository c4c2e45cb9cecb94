"""One SSH connection: who the client is (a key's name, a guest), what it may open
before and after it proves it (channels, the environment, a terminal type), and what
it holds of the room's limits (per address, the room's caps). The second and third
links of the chain (accept → authenticate → limits → session kind → app or JSON
lines): a connection admitted (server/admission.py) is authenticated here with what
its ``Door`` gives it, then each session it opens is handed to the session handler
(server/sessions.py)."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

import asyncssh

from engine.room import Said
from engine.room.errors import N_
from engine.room.text import check_name, name_key

from . import wire
from .book import Bans, Book
from .keyfiles import AllowList
from .limits import (
    CHANNEL_WINDOW,
    REFUSED_REQUESTS_MAX,
    TERM_MAX,
    Address,
    Bucket,
    KeyHold,
    address_key,
)
from .logs import Refusals
from .refusals import looks_like, said_to, speech_for
from .roomconfig import RoomConfig
from .store import Store

log = logging.getLogger("lamma.ssh")

# A session as asyncssh hands it over once its channel starts (server/sessions.py).
Handler = Callable[[asyncssh.SSHServerProcess], Awaitable[None]]


class Queue(Protocol):
    """The handshakes' queues (server/admission.py), as a login that ends frees a place."""

    def freed(self, key: str) -> None: ...


@dataclass(frozen=True)
class Door:
    """What a connection's admission and authentication use of the room: its
    configuration (limits, allow-list, guests: read live, a reload changes them), who
    is here (``book``), the names' keys (``identity``), the allow-list's keys, the bans,
    the refusals' count and the handshakes' queues."""

    config: RoomConfig
    book: Book
    identity: Store
    allowed: AllowList
    bans: Bans
    refusals: Refusals
    queue: Queue


class LammaSSHServer(asyncssh.SSHServer):
    """One per connection: decides who the client is, and bounds what it may open."""

    def __init__(self, door: Door, handler: Handler | None = None):
        self.door = door
        self.limits = door.config.limits      # (what the driver reads: server/driver.py)
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
        limits = self.limits
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
        self.unproven = False             # in its address's count still authenticating
        self.charged = False              # took a token of its address's connects rate
        self.guest_slot = False           # in its address's count of guests
        self.key_hold: KeyHold | None = None    # its key's connections and requests
        self.fingerprint = ""
        self._refusal_kind = ""
        self.said_refusal = False         # a refusal of it is in the log already
        self.authenticated = False        # SSH authentication completed (key or guest)
        self.pair_fp: str | None = None   # a new key proven to give its name's code

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        # asyncssh forgets its transport before connection_lost: kept for unlink_asyncssh.
        self.transport: object = wire.transport_of(conn)
        wire.quiet(conn)
        door = self.door
        peer = conn.get_extra_info("peername")
        key = address_key(str(peer[0])) if peer else "?"
        address = door.book.address(key)
        limits = address.limits
        # The cheap checks first: a flood they refuse costs no look-up in the store.
        # What has proven nothing yet is counted by its address: connections still
        # authenticating, and how fast they come. A connection that proves a key hands
        # its token of that rate back (``auth_completed``; its key's login spends one of
        # the address's keyed logins instead), so people behind one address (a
        # carrier's NAT, a school) log in together, while a flood of idle sockets or
        # guests is held to the rate.
        reason, kind = None, ""
        if address.unproven >= limits.handshakes_per_address:
            reason, kind = (f"Too many connections from your address (at most "
                            f"{limits.handshakes_per_address} at once)."), "handshakes"
        elif address.connects.take():
            self.charged = True
        else:
            reason, kind = ("Connections are coming too fast from your address; wait a "
                            "little."), "rate"
        if reason is None and (banned := door.bans.banned(address=key)):
            reason, kind = banned, "banned"
        if reason is None and not door.book.make_way():
            reason, kind = "The room is full just now; try again in a few minutes.", "full"
            door.book.full.note(key)
        if reason is None:
            address.connections += 1
            address.unproven += 1
            self.unproven = True
            self.address = address
            self.address_key = key
            door.book.connected(self)
            return
        # (a token taken stays spent: a banned address that keeps coming back is held
        # to the rate before the store is asked again)
        self.charged = False
        door.refusals.note(kind, str(reason), key)
        # Said before the handshake ends, so no session, name or key is ever looked at.
        asyncio.get_running_loop().call_soon(
            conn.disconnect, asyncssh.DISC_TOO_MANY_CONNECTIONS, reason)

    def _proven(self) -> None:
        """Authentication is over (a key, a guest or a refusal): no longer counted among
        its address's connections still authenticating."""
        if self.unproven and self.address is not None:
            self.unproven = False
            self.address.unproven -= 1
            self.door.queue.freed(self.address_key)     # the next in its queue

    def connection_lost(self, exc: Exception | None) -> None:
        conn, self.conn = self.conn, None
        processes, self.processes = self.processes, []
        transport, self.transport = getattr(self, "transport", None), None
        if conn is not None:
            # asyncssh calls this from its clean-up, which goes on after: unlink after it.
            asyncio.get_running_loop().call_soon(wire.unlink_asyncssh, conn, processes, transport)
        if not self.authenticated and self.auth_tries and self.address is not None:
            # It tried to log in and proved nothing (no key of this name, a guest
            # refused, or it gave up): a failed login, counted, and said unless its
            # refusal was.
            self.door.refusals.failed_logins += 1
            if not self.said_refusal:
                self.door.refusals.note("auth-failed", "authentication failed",
                                        self.address_key, name=self.name or "")
        self._proven()
        hold, self.key_hold = self.key_hold, None
        if hold is not None:
            self.door.book.release_key(self.fingerprint, hold)
        address, self.address = self.address, None
        if address is not None:
            self.door.book.disconnected(self)
            address.connections -= 1
            if self.guest_slot:
                self.guest_slot = False
                address.guests -= 1
            if address.connections == 0 and address.idle():
                self.door.book.addresses.pop(self.address_key, None)

    # ------------------------------------------------------------ channels
    def session_requested(self) -> tuple[asyncssh.SSHServerChannel, GuardedProcess]:
        """A session channel opens: counted at once, started or not (issue 30: 20,000
        channels that never started held +143 MB after their connection closed), with
        a small receive window and a guard on what it keeps (``wire.GuardedChannel``,
        ``GuardedProcess``). Refused past the limits, with the reason, as an SSH
        channel-open failure."""
        limits = self.limits
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
            self.door.refusals.note("requests", f"disconnected: {REFUSED_REQUESTS_MAX} "
                                    f"requests refused ({what})", self.address_key,
                                    self.fingerprint, self.name or "")
            asyncio.get_running_loop().call_soon(
                self.conn.disconnect, asyncssh.DISC_BY_APPLICATION,
                "Too many requests refused on this connection.")

    def channel_closed(self, process: asyncssh.SSHServerProcess) -> None:
        """A channel whose session never started has closed: it holds nothing now."""
        if process in self.processes:
            self.processes.remove(process)
        asyncio.get_running_loop().call_soon(wire.unlink_process, process)

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
        if self.door.config.allow_list:
            admitted, self.terminal_allowed = self.door.allowed.admits(key, self.address_key)
            if not admitted:
                return False
        if not self.door.identity.may_use(self.name, fp):
            if not self.door.identity.code_pending(self.name):
                return False
            # Not the name's key, but its player made a code to add one (issue 45):
            # proven, this key may give the code and nothing else (``auth_completed``,
            # then the session's command ``key CODE``).
        self._last_key = key
        return True

    # ------------------------------------------- guests and refusal texts
    def password_auth_supported(self) -> bool:
        return False

    def kbdint_auth_supported(self) -> bool:
        return True

    def _refusal(self) -> str | None:
        """Why this connection may not be a guest (None: it may); its kind, for the
        log and the metrics, in ``_refusal_kind``."""
        kind, said = self._refusal_of()
        self._refusal_kind = kind
        return said

    def _refusal_of(self) -> tuple[str, str | None]:
        door = self.door
        cfg = door.config
        if self.name is None:
            return "name", self.name_error
        banned = door.bans.banned(name=self.name)
        if banned:
            return "banned", banned
        if cfg.allow_list:
            return "allow-list", Said(N_(
                "This room admits listed keys only, and none of your keys is on the list. "
                "Ask the host to add your public key."))
        if door.identity.owner(self.name) is not None:
            return "name", Said(N_(
                "The name '{name}' is taken: it belongs to another key. Choose another "
                "name (ssh -p PORT OTHERNAME@HOST), or use the key that owns it."),
                name=self.name)
        like = door.identity.lookalike_of(self.name)
        if like is not None:
            return "name", looks_like(self.name, like, N_("a name that belongs to a key"))
        if not cfg.guests:
            return "no-guests", Said(N_("This room does not admit guests: connect with an "
                                        "SSH key (ssh-keygen -t ed25519 makes one)."))
        if name_key(self.name) in door.book.online:
            return "name", Said(N_("A guest named '{name}' is already here; choose another "
                                   "name."), name=self.name)
        like = door.book.online_lookalike(self.name)
        if like is not None:
            return "name", looks_like(self.name, like, N_("the name of someone here now"))
        return "", None

    def _may_try(self) -> bool:
        """Authentication attempts on one connection are counted: a client that keeps
        asking (each answer reads the store) is disconnected after ``auth_tries``."""
        # A key offered is asked about twice (query, then signature): 20 attempts cover
        # a client that tries several keys, then keyboard-interactive, with room to spare.
        tries = self.limits.auth_tries
        self.auth_tries += 1
        if self.auth_tries <= tries:
            return True
        if self.auth_tries == tries + 1 and self.conn is not None:
            self.said_refusal = True
            self.door.refusals.note("auth-tries", f"disconnected: {tries} authentication "
                                    "attempts", self.address_key, name=self.name or "")
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
            address = self.address
            over = None
            if address is not None and not self.guest_slot and \
                    address.guests >= address.limits.guests_per_address:
                over = (f"Too many connections from your address (at most "
                        f"{address.limits.guests_per_address} guests at once; players "
                        "with an SSH key are not counted).")
            if over is not None:
                self.said_refusal = True
                self.door.refusals.note("guests", over, self.address_key,
                                        name=self.name or "")
                if self.conn is not None:
                    asyncio.get_running_loop().call_soon(
                        self.conn.disconnect, asyncssh.DISC_TOO_MANY_CONNECTIONS, over)
                # Said as the challenge's text, then the disconnect: a plain failure
                # would reach the client first (asyncssh sends each packet as it is
                # made), and it would stop at "Permission denied" without the reason.
                self._guest_ok = False
                return ("Lamma", over, "", [])
            if address is not None and not self.guest_slot:
                # Held from now: guests are counted by their address, at once.
                self.guest_slot = True
                address.guests += 1
            self._guest_ok = True
            return True
        self._guest_ok = False
        # OpenSSH asks again after a failed round (NumberOfPasswordPrompts, 3 by
        # default) and would print the same text each time: say it once per connection.
        if self._refusal_shown:
            return False
        self._refusal_shown = True
        self.said_refusal = True
        self.door.refusals.note(self._refusal_kind, said_to(speech_for({}), reason),
                                self.address_key, name=self.name or username)
        # No session yet, so no LANG: the client's language tag (RFC 4256), if any.
        speech = speech_for({"LANG": str(lang or "").replace("-", "_")})
        return ("Lamma", said_to(speech, reason), "", [])

    def validate_kbdint_response(self, username: str, responses) -> bool:
        return False

    # ------------------------------------------------------------ success
    def auth_completed(self) -> None:
        self.authenticated = True
        self.door.book.unproven.pop(self, None)
        self._proven()
        key = self._last_key
        self._last_key = None
        if key is not None and self.name is not None:
            fp = key.get_fingerprint("sha256")
            limits = self.limits
            cap = limits.names_per_key
            identity = self.door.identity
            new = identity.owner(self.name) is None
            like = identity.lookalike_of(self.name) if new else None
            hold = self.door.book.keys.get(fp)
            address = self.address
            if self.guest_slot and address is not None:
                self.guest_slot = False         # (a guest's place asked for, then a key)
                address.guests -= 1
            kind = ""
            if not new and not identity.holds(self.name, fp):
                # A key proven for a name it is not one of (a code is waiting): its
                # sessions may give the code only (sessions.py, ``key CODE``).
                self.pair_fp = fp
                self.refusal = Said(N_("This key is not {name}'s yet: give it the code "
                                       "from your session, with the command key CODE."),
                                    name=self.name)
            elif hold is not None and hold.connections >= limits.connections_per_key:
                kind = "key-connections"
                self.refusal = Said(N_("Your key has {n} connections open here already; "
                                       "close one first."), n=limits.connections_per_key)
            elif address is not None and not address.logins.take():
                kind = "logins"
                self.refusal = Said(N_("Connections are coming too fast from your "
                                       "address; wait a little."))
            elif like is not None:
                # A new name may not pass for one already owned (names bound before
                # this rule that already look alike keep working: they are not new).
                kind = "name"
                self.refusal = looks_like(self.name, like, N_("a name already taken"))
            elif new and identity.names_of(fp) >= cap:
                # One key cannot hoard names: its existing ones still work.
                kind = "names-per-key"
                self.refusal = Said(N_("Your key already has {n} names; connect under one "
                                       "of them."), n=cap)
            elif new and address is not None and not address.new_names.take():
                # Keys are free: new identities from one address come a few an hour
                # (issue 40). Those who have their names already are not counted.
                kind = "new-names"
                self.refusal = Said(N_("Too many new names from your address this hour: "
                                       "connect under a name you have, or later."))
            elif identity.bind(self.name, fp):
                # The name's identity is the key that made it, whichever of its keys
                # proved it now (a second key, one an operator moved it to): its seats
                # and bans hang on it.
                self.ident = f"key:{identity.owner(self.name) or fp}:{name_key(self.name)}"
                self.guest = False
                # Limited as its key from now on, not as its address: the connects
                # token it took is handed back (its key's login took one instead).
                hold = self.door.book.key_hold(fp)
                hold.connections += 1
                self.key_hold, self.fingerprint = hold, fp
                if self.charged and address is not None:
                    self.charged = False
                    address.connects.level = min(address.connects.burst,
                                                 address.connects.level + 1)
            else:
                kind = "name"
                like = identity.lookalike_of(self.name)
                self.refusal = (looks_like(self.name, like, N_("a name just taken")) if like
                                else Said(N_("The name '{name}' was just taken by another "
                                             "key."), name=self.name))
            if self.refusal is not None and self.pair_fp is None:
                # The key is proven, the login refused: said to its sessions as they
                # open, and here with the key.
                self.said_refusal = True
                self.door.refusals.note(kind, said_to(speech_for({}), self.refusal),
                                        self.address_key, fp, self.name)
        elif self._guest_ok and self.name is not None:
            # A guest is this connection: a random token nobody else can present, so
            # another guest under the same name never reaches this one's seat or hand.
            # (A guest who comes back on a new connection is a new guest.)
            self.ident = f"guest:{secrets.token_urlsafe(12)}:{name_key(self.name)}"
            self.guest = True
        else:
            self.refusal = Said(N_("Authentication failed."))


class GuardedProcess(wire.ServerProcess):
    """A session as asyncssh runs it, with what the room allows before it starts: a
    terminal type of at most ``TERM_MAX`` characters (one of 200 KB is refused, and
    counted against the connection). A channel that closes before its session starts
    tells its connection (``LammaSSHServer.channel_closed``), which unlinks it."""

    def __init__(self, handler: Handler):
        super().__init__(handler)
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
