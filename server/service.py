"""The composition root: the room as this process serves it (``RoomService``), built
from its configuration (``RoomConfig``, server/roomconfig.py), and the parts each of
its handlers is given (``door``, ``hall``: not the whole room)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import asyncssh

from engine.room import Registry, Said
from engine.room import bots as bot_pool
from engine.room import text as room_text
from engine.room.errors import N_
from engine.room.members import ChatGuard

from . import wire
from .admin import SOCKET_NAME, Listening
from .admission import Admission
from .book import Book
from .cluster import PgCluster, default_name
from .config import Config, ConfigError, changes, reload
from .connections import Door
from .hostkeys import host_keys
from .keyfiles import AllowList
from .limits import RemoteRequests
from .logs import Refusals, set_level
from .moderation import Moderation
from .persistence import TableStore, restore
from .refusals import STORE_BACK_NOTICE, STORE_DOWN_NOTICE
from .roomconfig import RoomConfig
from .sessions import Hall
from .store import Store, is_postgres
from .systemd import notify_systemd, reloading

if TYPE_CHECKING:
    from .metrics import Exporter
    from .web.listener import WebListener

log = logging.getLogger("lamma.ssh")

# What everyone is told as the room restarts, by (one of a room's several servers, at
# once rather than in {n} seconds); the operator's words replace them (drain_notice).
RESTART_NOTICES = {
    (True, True): N_("This server of the room is restarting: connect again, and you will "
                     "be back in your seat on another of its servers."),
    (True, False): N_("This server of the room restarts in {n} s: tricks under way are "
                      "finished, then connect again, and you will be back in your seat "
                      "on another of its servers."),
    (False, True): N_("The room is restarting: connect again in a moment, and you will be "
                      "back in your seat."),
    (False, False): N_("The room restarts in {n} s: tricks under way are finished, then "
                       "every table waits as it is. Connect again after it, and you will "
                       "be back in your seat."),
}


class RoomService:
    """This process's room, put together: the store and its writer, the table
    engine's registry, the cluster (on PostgreSQL), moderation, the allow-list, who
    is online, and what each client address holds. One per process; every SSH
    connection and session reaches the rest through it."""

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
                                 max_tables=config.limits.max_tables,
                                 tables_per_identity=config.limits.tables_per_identity,
                                 events=config.events)
        self._room_caps(config)
        self.registry.quick_level = config.quick_level
        self._process_wide()
        if config.bot_workers > 0:
            bot_pool.WORKERS = config.bot_workers
        self.restored = restore(self.registry, self.store)
        # On PostgreSQL every process sharing the database is part of one room
        # (server/cluster.py, engine/room/remote.py).
        self.cluster: PgCluster | None = None
        if clustered:
            self.writes.fenced = True       # actions only at tables this process drives
            # Frozen mid-write (a paused VM, a cut network), this process's transaction
            # and its locks end within seconds, so others can take its tables over.
            self.writes.set_session([*self.writes.session,
                                     "SET idle_in_transaction_session_timeout = '10s'"])
            self.cluster = PgCluster(self.store, self.table_store)
            self.cluster.prepare(self.registry)
            side = self.cluster.side
            assert side is not None
            side.on_login = self.remote_login
            side.requests.allowed = RemoteRequests(config.limits).allow
            self.table_store.on_lease_lost = side.lease_lost
        self.moderation = Moderation(self)
        self.registry.moderator = self.moderation
        if self.cluster is not None:
            self.cluster.on_moderate = self.moderation.heard
            self.cluster.people = self.moderation.who_here
            self.cluster.names = self.moderation.names_here
            self.cluster.on_newer = self.newer_found
        self.admin_server: asyncio.AbstractServer | None = None   # lamma admin's socket
        self.allowed = AllowList(config.keys / "authorized_keys")
        # Who is here and what each address and key holds (server/book.py); who is
        # online, the sessions' tasks and apps named here too, for the operator's side.
        self.book = Book(config.limits)
        self.online = self.book.online
        if self.cluster is not None:    # a guest's look-alike of a name anywhere in the room
            self.book.elsewhere = self.cluster.lookalike
        self.session_tasks = self.book.session_tasks
        self.apps = self.book.apps
        # Connections over their address's handshakes wait here for a place (issue 45).
        self.admission = Admission(self.book, config.limits)
        # Every refusal counted by reason and logged with its address and key (issue 45).
        self.refusals = Refusals(log)
        self.bans_in_force: dict[str, int] = {}
        self.host_fingerprints: list[str] = []      # served now (start_server sets them)
        self.count_bans()
        self.metrics: Exporter | None = None          # server/metrics.py, when asked
        self.web: WebListener | None = None           # server/web, when asked (--web)
        self.table_store.listeners.append(self.store_health)
        # What each link of the connections' chain is given of the room, not the room
        # (server/ssh.py puts the chain together): a connection's admission and
        # authentication, then its sessions (and the web page's).
        self.door = Door(config, self.book, self.identity, self.allowed, self.moderation,
                         self.refusals, self.admission)
        self.hall = Hall(config, self.book, self.registry, self.identity, self.moderation,
                         self.refusals, self.cluster)
        # The SSH listener(s) (start_server), closed as a clean restart begins; the
        # drain under way, if any; set once the room may stop (``drain``, or at once).
        self.listeners: list[asyncssh.SSHAcceptor] = []
        self.drain_task: asyncio.Task[None] | None = None
        self.drain_until: float | None = None      # loop time the room stops
        self.drain_started: float | None = None    # loop time the restart began
        self.finished = asyncio.Event()
        self.abrupt = False                         # stop now, without waiting

    # ------------------------------------------------------------ settings
    def _process_wide(self) -> None:
        """What the configuration sets for the whole process (one room per process):
        the chat's length and pace."""
        limits = self.config.limits
        room_text.CHAT_MAX = limits.chat_chars
        ChatGuard.lines, ChatGuard.window = limits.chat_lines, limits.chat_seconds

    def apply(self, settings: Config) -> None:
        """What can change while running, from ``settings`` (a reload): the limits (in
        place: every check reads them; each address's allowance takes the new numbers
        as it is next refilled), the pauses, quick play's level, guests, the restart's
        wait and words, operators named in the file, the log level, the events'
        settings (the next daily events, the caps, the samples of events made after)."""
        config = self.config
        settings.apply_limits(config.limits)
        config.settings = settings
        fresh = RoomConfig.of(settings)
        for name in ("bot_pause", "trick_pause", "absent_timeout", "quick_level",
                     "drain_seconds", "drain_notice", "operators", "events"):
            setattr(config, name, getattr(fresh, name))
        if not config.allow_list:
            config.guests = fresh.guests
        config.web.retune(fresh.web)
        reg = self.registry
        reg.bot_pause, reg.trick_pause = config.bot_pause, config.trick_pause
        reg.absent_timeout, reg.quick_level = config.absent_timeout, config.quick_level
        reg.events.settings = config.events     # the next daily events, the caps
        self._room_caps(config)
        self._process_wide()
        for key, address in self.book.addresses.items():
            address.retune(config.limits.for_address(key))
        self.moderation.named_operators(config.operators)
        set_level(settings.serve("log-level"))

    def _room_caps(self, config: RoomConfig) -> None:
        """The room-wide caps and the shares of them per person and per address."""
        reg, lim = self.registry, config.limits
        reg.max_tables = lim.max_tables
        reg.tables_per_identity = lim.tables_per_identity
        reg.tables_per_address = lim.tables_per_address
        reg.max_board_tables = lim.max_board_tables
        reg.board_tables_per_address = lim.board_tables_per_address
        reg.events.settings.per_address = lim.events_per_address

    def reload(self) -> str:
        """The configuration file read again (SIGHUP, ``lamma admin reload``): what can
        change while running applied; what needs a restart said; each change said old
        → new (issue 45), and systemd told RELOADING=1, then READY=1. ConfigError
        (nothing changed) if the file cannot be used."""
        settings = self.config.settings
        if settings is None:
            raise ConfigError("the room was started without --config: there is no file "
                              "to read again")
        reloading()
        try:
            fresh, fixed = reload(settings)
            diff = changes(settings, fresh)
            self.apply(fresh)
            for where in fixed:
                section, _, key = where.strip("[").partition("] ")
                fresh.values[(section, key)] = settings.values[(section, key)]
        finally:
            notify_systemd("READY=1")
        later = set(fixed)
        applied = [c for c in diff if c[0] not in later]
        waiting = [c for c in diff if c[0] in later]
        said = f"Read {fresh.path} again: "
        if not diff:
            said += "nothing changed."
        if applied:
            said += "applied " + "; ".join(f"{w} {a} → {b}" for w, a, b in applied) + "."
        if waiting:
            said += (" " if applied else "") + "Not applied until a restart: " + \
                "; ".join(f"{w} {a} → {b}" for w, a, b in waiting) + "."
        log.warning("%s", said, extra={"event": "reload", "changes": [
            {"setting": w, "old": a, "new": b, "applied": w not in later}
            for w, a, b in diff]})
        return said

    def reload_host_keys(self) -> str:
        """The keys folder's host keys read again (SIGHUP, ``lamma admin hostkeys``, which
        ``lamma keys rotate`` and ``retire`` send): new connections get the new set, the
        first key signing, every one named to clients (server/hostkeys.py)."""
        keys = host_keys(self.config.keys)
        for listener in self.listeners:
            listener.update(server_host_keys=keys, send_server_host_keys=True)
        fps = [k.get_fingerprint("sha256") for k in keys]
        said = f"Host keys read again: signing with {fps[0]}" + (
            f"; also named to clients, who learn it: {', '.join(fps[1:])}" if fps[1:] else "")
        # Said in the log when they changed (every SIGHUP reads them; most change nothing).
        log.log(logging.WARNING if fps != self.host_fingerprints else logging.DEBUG,
                "%s", said, extra={"event": "reload"})
        self.host_fingerprints = fps
        return said

    # ------------------------------------------------------------ a clean restart
    def restart_notice(self, seconds: float, now: bool = False) -> str:
        """What everyone is told as the room restarts: the operator's words from the
        configuration, or the room's own (said in each person's language)."""
        n = max(0, round(seconds))
        if self.config.drain_notice:
            return self.config.drain_notice.replace("{seconds}", str(n))
        return Said(RESTART_NOTICES[self.cluster is not None, now], n=n)

    def start_drain(self, seconds: float | None = None) -> str:
        """Begins a clean restart (SIGTERM, ``lamma admin drain``); the room may stop
        once it is over (``finished``). Said: what was done."""
        if self.drain_task is not None:
            left = 0.0
            if self.drain_until is not None:
                left = self.drain_until - asyncio.get_running_loop().time()
            return f"A restart is under way already ({max(0.0, left):.0f} s left)."
        wait = self.config.drain_seconds if seconds is None else max(0.0, seconds)
        self.drain_task = asyncio.get_running_loop().create_task(self.drain(wait))
        return f"The room restarts in {wait:.0f} s: everyone is told."

    def newer_found(self, schema: int) -> None:
        """A newer Lamma migrated the room's database (a rolling upgrade): this process
        drains, as on SIGTERM — everyone told, tables handed to the newer processes —
        and stops; started again as it is, it refuses the newer database by name."""
        self.start_drain()

    def stop_now(self) -> None:
        """Stop without waiting (a second SIGINT)."""
        self.abrupt = True
        self.finished.set()

    async def drain(self, seconds: float) -> None:
        """A clean restart: no new connection; everyone told on their screen (and as a
        JSON ``notice``) that the room restarts and in how long; tricks under way go
        on and every other table holds as it is (``Table.holding``); at the end no
        computer player or timer moves again (between two moves), everyone's session
        is closed with the notice's words (their seats kept), and the room may stop:
        ``close`` then commits every write and, on several processes, hands this
        process's tables to the others at once."""
        loop = asyncio.get_running_loop()
        self.drain_started = loop.time()
        self.drain_until = loop.time() + seconds
        if not self.online and not self._remote_members():
            log.warning("a clean restart: nobody is connected, stopping now",
                        extra={"event": "drain"})
        else:
            log.warning("a clean restart: stopping once every table is between tricks "
                        "and stored (at most %.0f s)", seconds, extra={"event": "drain"})
        for server in self.listeners:
            server.close()                  # no new connection; those open go on
        self.admission.close()              # nor those waiting for a handshake
        if self.web is not None:
            self.web.stop_accepting()
        self.registry.draining = True
        for table in list(self.registry.tables.values()):
            if table.holding():
                table.turns.hold()
        notice = self.restart_notice(seconds)
        for member in list(self.online.values()):
            try:
                member.notice(notice)
            except Exception:
                log.exception("telling %s about the restart", member.name)
        try:
            # The wait is a maximum (issue 45: every trick over at 1.76 s, the room
            # still waited its 30): over as soon as there is nothing to wait for. Polled:
            # what it waits for (each table's trick, the writer's commits, people
            # leaving) has no one event to wait on.
            until = self.drain_until
            while loop.time() < until and not self.abrupt and not self.settled():  # noqa: ASYNC110
                await asyncio.sleep(0.1)
            for table in list(self.registry.tables.values()):
                table.turns.hold()
            words = self.restart_notice(0, now=True)
            for member in list(self.online.values()):
                try:
                    member.kick(words)
                except Exception:
                    log.exception("closing %s for the restart", member.name)
            if self.online or self.session_tasks:
                await asyncio.sleep(0.3)        # the words reach them; seats are kept
        finally:
            self.finished.set()

    def count_bans(self) -> None:
        """Bans in force now, by kind (``bans_in_force``: the metrics read it from their
        own thread, which never asks the store): after each ban, unban, and every
        ``metrics.REFRESH`` seconds (bans end by themselves)."""
        try:
            counts = dict.fromkeys(("name", "key", "addr"), 0)
            for ban in self.store.bans():
                counts[ban["kind"]] = counts.get(ban["kind"], 0) + 1
        except Exception as e:            # a database that does not answer: kept as was
            log.debug("bans not counted: %s", e)
            return
        self.bans_in_force = counts

    def connection_kinds(self) -> dict[str, int]:
        """Connections now by what they are (server/book.py: ``Book.kinds``)."""
        return self.book.kinds(self.admission.waiting)

    def listening(self) -> Listening:
        """Where this room listens, for ``lamma health`` (the admin socket's ``ping``):
        the addresses, whether connections begin with a PROXY header, whether a probe
        from this machine is let through (--proxy-from), whether it is restarting."""
        import ipaddress
        config = self.config
        sockets = [s for lst in self.listeners for s in (getattr(lst, "sockets", None) or [])]
        loopback = [ipaddress.ip_address(a) for a in ("127.0.0.1", "::1")]
        probe = not config.proxy_from or any(
            ip in net for ip in loopback for net in config.proxy_from
            if ip.version == net.version)
        return {"listen": [list(s.getsockname()[:2]) for s in sockets],
                "proxy": bool(config.proxy_protocol), "probe": probe,
                "draining": self.drain_task is not None}

    def settled(self) -> bool:
        """Nothing left to wait for in a clean restart: nobody connected (here or, at
        our tables, through another process), or every table this process drives is
        between tricks (it holds: ``Table.holding``) and every write of them is
        committed."""
        if not self.online and not self._remote_members():
            return True
        if not all(table.holding() for table in list(self.registry.tables.values())):
            return False
        writer = self.table_store.writer
        return writer is None or writer.pending == 0

    def _remote_members(self) -> bool:
        side = self.cluster.side if self.cluster is not None else None
        return side is not None and any(
            rm.table is not None for rm in side.remote_members.values())

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

    def close(self) -> dict[str, int]:
        """Everything stored and closed; what was kept, for the "stopped" line: the
        tables left as they are (and of them matches under way, which the next start
        resumes), the writes committed since the start and any given up."""
        tables = list(self.registry.tables.values())
        kept = {"tables": len(tables),
                "matches": sum(1 for t in tables if t.status == "playing")}
        if self.web is not None:
            self.web.close()
        if self.metrics is not None:
            self.metrics.close()
        if self.admin_server is not None:
            self.admin_server.close()
            (self.config.data / SOCKET_NAME).unlink(missing_ok=True)
        self.admission.close()
        self.registry.close()
        self.table_store.close()            # every submitted write committed first
        if self.cluster is not None:
            self.cluster.close()            # then our leases and our heartbeat end
        self.writes.close()
        self.identity.close()
        wire.stop_lingering()
        self.refusals.flush()
        kept["writes"], kept["unstored"] = self.table_store.committed, self.table_store.lost
        return kept
