"""One SSH connection: who the client is (a key's name, a guest), what it may open
before and after it proves it (channels, the environment, a terminal type), and what
it holds of the room's limits (per address, the room's caps)."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Mapping
from typing import TYPE_CHECKING

import asyncssh

from engine.room import Said
from engine.room.errors import N_
from engine.room.text import check_name, name_key

from . import wire
from .limits import (
    CHANNEL_WINDOW,
    REFUSED_REQUESTS_MAX,
    TERM_MAX,
    Address,
    Bucket,
    KeyHold,
    address_key,
)
from .refusals import looks_like, said_to, speech_for

if TYPE_CHECKING:
    from .service import RoomService
    from .sessions import SessionHandler

log = logging.getLogger("lamma.ssh")

# A key offered is asked about twice (query, then signature): 20 attempts
# (``Limits.auth_tries``) cover a client that tries several keys, then
# keyboard-interactive, with room to spare.
ADDRESS_BOOK_SWEEP = 4096   # addresses remembered before idle ones are forgotten


class LammaSSHServer(asyncssh.SSHServer):
    """One per connection: decides who the client is, and bounds what it may open."""

    def __init__(self, room: RoomService, handler: SessionHandler | None = None):
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
        room_limits = self.room.config.limits
        peer = conn.get_extra_info("peername")
        key = address_key(str(peer[0])) if peer else "?"
        book = self.room.addresses
        address = book.get(key)
        if address is None:
            if len(book) >= ADDRESS_BOOK_SWEEP:
                self.room.forget_idle_addresses()
            address = book[key] = Address(room_limits.for_address(key))
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
        if reason is None and (banned := self.room.moderation.banned(address=key)):
            reason, kind = banned, "banned"
        if reason is None and not self.room.make_way():
            reason, kind = "The room is full just now; try again in a few minutes.", "full"
            self.room.full.note(key)
        if reason is None:
            address.connections += 1
            address.unproven += 1
            self.unproven = True
            self.address = address
            self.address_key = key
            self.room.connected(self)
            return
        # (a token taken stays spent: a banned address that keeps coming back is held
        # to the rate before the store is asked again)
        self.charged = False
        self.room.refusals.note(kind, str(reason), key)
        # Said before the handshake ends, so no session, name or key is ever looked at.
        asyncio.get_running_loop().call_soon(
            conn.disconnect, asyncssh.DISC_TOO_MANY_CONNECTIONS, reason)

    def _proven(self) -> None:
        """Authentication is over (a key, a guest or a refusal): no longer counted among
        its address's connections still authenticating."""
        if self.unproven and self.address is not None:
            self.unproven = False
            self.address.unproven -= 1
            self.room.admission.freed(self.address_key)     # the next in its queue

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
            self.room.refusals.failed_logins += 1
            if not self.said_refusal:
                self.room.refusals.note("auth-failed", "authentication failed",
                                        self.address_key, name=self.name or "")
        self._proven()
        hold, self.key_hold = self.key_hold, None
        if hold is not None:
            hold.connections -= 1
            if hold.connections == 0:
                # (its allowance comes back whole with a new login: a whole SSH login
                # costs the client more than the requests it could make with it)
                self.room.keys.pop(self.fingerprint, None)
        address, self.address = self.address, None
        if address is not None:
            self.room.disconnected(self)
            address.connections -= 1
            if self.guest_slot:
                self.guest_slot = False
                address.guests -= 1
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
            self.room.refusals.note("requests", f"disconnected: {REFUSED_REQUESTS_MAX} "
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
        if self.room.config.allow_list:
            admitted, self.terminal_allowed = self.room.allowed.admits(key, self.address_key)
            if not admitted:
                return False
        if not self.room.identity.may_use(self.name, fp):
            if not self.room.identity.code_pending(self.name):
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
        cfg = self.room.config
        if self.name is None:
            return "name", self.name_error
        banned = self.room.moderation.banned(name=self.name)
        if banned:
            return "banned", banned
        if cfg.allow_list:
            return "allow-list", Said(N_(
                "This room admits listed keys only, and none of your keys is on the list. "
                "Ask the host to add your public key."))
        if self.room.identity.owner(self.name) is not None:
            return "name", Said(N_(
                "The name '{name}' is taken: it belongs to another key. Choose another "
                "name (ssh -p PORT OTHERNAME@HOST), or use the key that owns it."),
                name=self.name)
        like = self.room.identity.lookalike_of(self.name)
        if like is not None:
            return "name", looks_like(self.name, like, N_("a name that belongs to a key"))
        if not cfg.guests:
            return "no-guests", Said(N_("This room does not admit guests: connect with an "
                                        "SSH key (ssh-keygen -t ed25519 makes one)."))
        if name_key(self.name) in self.room.online:
            return "name", Said(N_("A guest named '{name}' is already here; choose another "
                                   "name."), name=self.name)
        like = self.room.online_lookalike(self.name)
        if like is not None:
            return "name", looks_like(self.name, like, N_("the name of someone here now"))
        return "", None

    def _may_try(self) -> bool:
        """Authentication attempts on one connection are counted: a client that keeps
        asking (each answer reads the store) is disconnected after ``auth_tries``."""
        tries = self.room.config.limits.auth_tries
        self.auth_tries += 1
        if self.auth_tries <= tries:
            return True
        if self.auth_tries == tries + 1 and self.conn is not None:
            self.said_refusal = True
            self.room.refusals.note("auth-tries", f"disconnected: {tries} authentication "
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
                self.room.refusals.note("guests", over, self.address_key,
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
        self.room.refusals.note(self._refusal_kind, said_to(speech_for({}), reason),
                                self.address_key, name=self.name or username)
        # No session yet, so no LANG: the client's language tag (RFC 4256), if any.
        speech = speech_for({"LANG": str(lang or "").replace("-", "_")})
        return ("Lamma", said_to(speech, reason), "", [])

    def validate_kbdint_response(self, username: str, responses) -> bool:
        return False

    # ------------------------------------------------------------ success
    def auth_completed(self) -> None:
        self.authenticated = True
        self.room.unproven.pop(self, None)
        self._proven()
        key = self._last_key
        self._last_key = None
        if key is not None and self.name is not None:
            fp = key.get_fingerprint("sha256")
            limits = self.room.config.limits
            cap = limits.names_per_key
            identity = self.room.identity
            new = identity.owner(self.name) is None
            like = identity.lookalike_of(self.name) if new else None
            hold = self.room.keys.get(fp)
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
                if hold is None:
                    hold = self.room.keys[fp] = KeyHold(limits)
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
                self.room.refusals.note(kind, said_to(speech_for({}), self.refusal),
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

    def __init__(self, handler: SessionHandler):
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
