"""One SSH session: a terminal gets its own Textual app (``tui``) on the SSH driver,
``ssh ... play`` gets the JSON-lines interface; before either, the checks of a session
as it opens (how many, how fast, a name still free). The last links of the chain
(… → limits → session kind → app or JSON lines), given what they use of the room
(``Hall``); the web page's sessions (server/web) run their app through ``run_tui``
as well, on the same driver surface."""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import asyncssh

from engine.room import Registry, Said
from engine.room.errors import N_
from engine.room.text import name_key, safe_text

from . import wire
from .book import Bans, Book, key_of
from .connections import LammaSSHServer
from .jsonapi import JsonSession
from .limits import Bucket
from .logs import Refusals
from .refusals import looks_like, said_to, speech_for
from .roomconfig import RoomConfig
from .store import Store

if TYPE_CHECKING:
    from tui.app import LammaApp

log = logging.getLogger("lamma.ssh")
_session_ids = itertools.count(1)


async def _unlink_when_closed(process: asyncssh.SSHServerProcess) -> None:
    """``unlink_asyncssh``'s part for one finished session, once asyncssh has closed
    its channel (a connection that ends first unlinks it with the others)."""
    try:
        await asyncio.wait_for(process.wait_closed(), 30)
    except Exception:
        pass
    wire.unlink_process(process)


def _clean_term(term: object) -> str:
    t = safe_text(term or "", 40)
    return "".join(ch for ch in t if ch.isalnum() or ch in "-_.+") or "xterm"


class Claimant(Protocol):
    """Who a session would be, as ``claim_name`` checks it: an SSH connection
    (``LammaSSHServer``), or a browser's ``Claim`` (server/web/listener.py)."""

    @property
    def name(self) -> str | None: ...
    @property
    def ident(self) -> str | None: ...
    @property
    def guest(self) -> bool: ...
    @property
    def fingerprint(self) -> str | None: ...   # the key that proved it, if any


@dataclass(frozen=True)
class Claim:
    """A browser's claim to a name (server/web/listener.py)."""

    name: str
    ident: str
    guest: bool
    fingerprint: str | None     # the key that proved it: a linked name's own


class Logins(Protocol):
    """The room's other processes (server/cluster.py), told of a login under a name."""

    def login(self, name_key: str, ident: str) -> None: ...


@dataclass(frozen=True)
class Hall:
    """What a session uses of the room (past the ``Door`` of its connection, the room's
    hall; not engine.room's ``Seating`` at a table): its configuration (limits, mouse), who is here
    (``book``), the table engine (``registry``), the names' keys and the actions' log
    (``identity``), the bans, the refusals' count, and the room's other processes
    (``cluster``, on PostgreSQL)."""

    config: RoomConfig
    book: Book
    registry: Registry
    identity: Store
    bans: Bans
    refusals: Refusals
    cluster: Logins | None = None


class SessionHandler:
    def __init__(self, hall: Hall):
        self.hall = hall
        self.book = hall.book

    async def __call__(self, process: asyncssh.SSHServerProcess) -> None:
        task = asyncio.current_task()
        if task is not None:
            self.book.session_tasks.add(task)
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
                self.book.session_tasks.discard(task)
            try:
                process.exit(0)
            except Exception:
                pass
            if srv is not None and process in srv.processes:
                # A connection that lives on (sessions opened one after another) keeps
                # none of its finished ones: each is unlinked once its channel closes.
                srv.processes.remove(process)
                forget = asyncio.ensure_future(_unlink_when_closed(process))
                self.book.session_tasks.add(forget)
                forget.add_done_callback(self.book.session_tasks.discard)

    async def handle(self, process: asyncssh.SSHServerProcess,
                     srv: LammaSSHServer | None) -> None:
        # The chain's last links (server/ssh.py): authenticated? within the limits? which
        # kind of session? then its app or its JSON lines.
        command = (process.command or "").strip()
        if srv is not None and command.split()[:1] == ["key"]:
            self.add_key(process, srv, command[3:].strip())
            return
        json_mode = command == "play"
        if srv is None or srv.refusal or srv.ident is None or srv.name is None:
            reason = (srv.refusal if srv else None) or Said(N_("Authentication failed."))
            self._refuse(process, reason, json_mode)
            return
        # 3. limits: sessions at once and how fast, on one connection
        limits = self.hall.config.limits
        if srv.sessions > limits.sessions_per_connection:
            self.hall.refusals.note("session", f"a session past {limits.sessions_per_connection} "
                                    "on one connection", srv.address_key, srv.fingerprint,
                                    srv.name)
            self._refuse(process, Said(N_("At most {n} sessions at once on one connection."),
                                       n=limits.sessions_per_connection), json_mode)
            return
        if not srv.session_opens.take():
            self.hall.refusals.note("session", "sessions opened too fast on one connection",
                                    srv.address_key, srv.fingerprint, srv.name)
            self._refuse(process, Said(N_("Sessions are opened too fast on this connection; "
                                          "wait a few seconds.")), json_mode)
            return
        # 4. session kind: JSON lines (``play``) or a terminal's app; no other command
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
        refusal = self.claim_name(srv)      # (a name still free as the session opens)
        if refusal:
            self.hall.refusals.note("session", said_to(speech_for({}), refusal),
                                    srv.address_key, srv.fingerprint, name)
            self._refuse(process, refusal, json_mode)
            return
        side = self.hall.registry.side
        if side is not None and not srv.guest:
            await side.fresh_rows()     # a seat held at another process's table is found
        session = f"s{next(_session_ids)}"
        kind = "program" if json_mode else "terminal"
        facts = {"session": session, "player": name, "address": srv.address_key,
                 "fingerprint": srv.fingerprint or None}
        who = f"key {srv.fingerprint}" if srv.fingerprint else "guest"
        # At INFO, the default level: who came, from where, with which key (issue 45).
        log.info("%s session opened: %s from %s (%s)", kind, name, srv.address_key, who,
                 extra={**facts, "event": "session-open"})
        began = time.monotonic()
        try:                                # 5. app or JSON lines
            await self._run(process, srv, name, json_mode)
        finally:
            log.info("%s session closed: %s from %s (%s) after %.0f s", kind, name,
                     srv.address_key, who, time.monotonic() - began,
                     extra={**facts, "event": "session-close"})

    async def _run(self, process: asyncssh.SSHServerProcess, srv: LammaSSHServer,
                   name: str, json_mode: bool) -> None:
        assert srv.ident is not None
        if json_mode:
            # One allowance of requests for all of a key's sessions (wherever they come
            # from), or for all of one address's guests.
            together = (srv.key_hold.requests if srv.key_hold is not None
                        else srv.address.requests if srv.address is not None else None)
            await self.run_json(process, name, srv.ident, srv.guest, together,
                                srv.address_key)
        else:
            await self.run_tui(process, name, srv.ident, srv.guest, srv.address_key)

    def add_key(self, process: asyncssh.SSHServerProcess, srv: LammaSSHServer,
                code: str) -> None:
        """``ssh NAME@HOST key CODE`` with a new key: the code a session of NAME made
        (``/key add``) adds this key to the name (issue 45), once, within its time and
        its tries; said in one line."""
        name = srv.name or ""
        identity = self.hall.identity
        if srv.pair_fp is not None and srv.name is not None:
            if identity.use_code(srv.name, code[:40], srv.pair_fp):
                log.info("key %s added to %s with a one-time code", srv.pair_fp, name,
                         extra={"event": "key-added", "player": name,
                                "fingerprint": srv.pair_fp, "address": srv.address_key})
                self.hall.identity.log_action(name, "key-add", srv.pair_fp)
                said: str = Said(N_("This key is now one of {name}'s: connect with it as "
                                    "with your first."), name=name)
                ok = True
            else:
                self.hall.refusals.note("key-code", "a wrong or expired one-time code",
                                        srv.address_key, srv.pair_fp, name)
                said, ok = Said(N_("That code is wrong or has expired: make a new one with "
                                   "/key add in your session.")), False
        elif srv.ident is not None and not srv.guest:
            said, ok = Said(N_("This key is {name}'s already."), name=name), True
        else:
            said, ok = srv.refusal or Said(N_("Authentication failed.")), False
        try:
            env = process.env or {}
        except Exception:
            env = {}
        try:
            process.stdout.write((said_to(speech_for(env), said) + "\r\n").encode())
            process.exit(0 if ok else 1)
        except Exception:
            pass

    def claim_name(self, srv: Claimant) -> str | None:
        """Checked again as each session opens (a connection may outlive the moment its
        name was free): the name's key wins over a guest, and one identity holds a name
        at a time. Returns why this session is refused, or None (then any older session
        of the same identity has been closed: the newer terminal takes over)."""
        assert srv.name is not None and srv.ident is not None
        name, nk = srv.name, name_key(srv.name)
        # The name's identity key and the key that proved this login (a second key of
        # the name may be banned on its own).
        banned = (self.hall.bans.banned(fingerprint=key_of(srv.ident), name=name)
                  or (self.hall.bans.banned(fingerprint=srv.fingerprint)
                      if srv.fingerprint else None))
        if banned:
            return banned
        if srv.guest and self.hall.identity.owner(name) is not None:
            return Said(N_("The name '{name}' now belongs to a key's owner; guests cannot "
                           "use it. Choose another name."), name=name)
        if srv.guest:
            # Bound or arrived since this guest's authentication: look-alikes too.
            like = (self.hall.identity.lookalike_of(name)
                    or self.book.online_lookalike(name))
            if like is not None:
                return looks_like(name, like, N_("a name in use"))
        if self.hall.cluster is not None:
            self.hall.cluster.login(nk, srv.ident)     # the same name elsewhere in the room
        old = self.book.online.get(nk)
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
                       together: Bucket | None = None, where: str = "") -> None:
        limits = self.hall.config.limits
        session = JsonSession(self.hall.registry, process, name, ident, guest,
                              requests=Bucket(limits.json_rate, limits.json_burst),
                              address_requests=together, limits=limits)
        session.address = where
        nk = name_key(name)
        self.book.online[nk] = session
        try:
            await session.run()
        finally:
            if self.book.online.get(nk) is session:
                del self.book.online[nk]
            session.closed = True
            self.hall.registry.detach(session, keep_seat=True)

    async def run_tui(self, process, name: str, ident: str, guest: bool,
                      where: str = "", app_class: type[LammaApp] | None = None,
                      transport: str = "ssh", returns: bool = False) -> LammaApp:
        """One terminal session's app, to its end (returned, over). ``process`` is
        asyncssh's, or what stands for it (a browser's: server/web/channel.py);
        ``app_class`` a LammaApp of that transport's; ``returns``: a guest that may come
        back to its seat (a web page holding its guest identity)."""
        from tui.app import LammaApp
        from tui.i18n import language_from_env

        from .driver import SSHDriver, clamp_size

        term = _clean_term(process.get_terminal_type())
        env = process.env or {}
        colorterm = _clean_term(env.get("COLORTERM", "")) if env.get("COLORTERM") else ""
        width, height, _, _ = process.get_terminal_size()
        size = clamp_size(width, height)
        app = (app_class or LammaApp)(self.hall.registry, name, ident, guest, term=term,
                                      colorterm=colorterm, driver_class=SSHDriver,
                                      language=language_from_env(env))
        app.ssh_process = process
        app.member.address = where
        app.member.transport = transport
        app.member.returns = returns
        nk = name_key(name)
        self.book.online[nk] = app.member
        self.book.apps.add(app)
        finished = False
        try:
            await app.run_async(size=size, mouse=self.hall.config.mouse)
            finished = True
        except Exception:
            log.exception("app for %s failed", name)
        finally:
            app.release()
            if self.book.online.get(nk) is app.member:
                del self.book.online[nk]
            app.ssh_process = None
            if app.exit_reason:
                try:
                    # In the player's language and text mode, wrapped at words to the
                    # window (a phone's 40 columns: issue 44).
                    width = process.get_terminal_size()[0] or 80
                    process.stdout.write(app.farewell(width).encode())
                except Exception:
                    pass
            if finished:
                # Its objects go now, by reference counting, not in a full collection
                # (an app cancelled or failed half-way is left to the collector).
                self.book.apps.discard(app)
                app.break_cycles()
        return app
