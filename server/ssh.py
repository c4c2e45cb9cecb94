"""The SSH listener: ``start_server`` builds the room (``service.RoomService``) and
puts together the chain every connection goes through — accept (``admission``,
``proxyproto``) → authenticate and limits (``connections``) → session kind → app or
JSON lines (``sessions``) — each link given what it uses of the room."""

from __future__ import annotations

import asyncio
import logging
import socket
import sys

import asyncssh

from . import wire
from .admin import serve_admin
from .admission import Gate
from .connections import LammaSSHServer
from .hostkeys import HOST_KEY_NAME, host_keys, load_host_key  # noqa: F401 (re-exported)
from .limits import connection_cap
from .proxyproto import ProxyListener
from .roomconfig import RoomConfig
from .service import RoomService
from .sessions import SessionHandler

log = logging.getLogger("lamma.ssh")

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


async def start_server(config: RoomConfig, host: str = "127.0.0.1", port: int = 2222):
    """Start listening; returns (server, room, host_key).

    Every connection goes through one chain, each link given what it uses of the room
    (not the room itself; docs/architecture.md, "The server's chain"):

    1. accept: ``Gate`` (or ``ProxyListener``, which reads a PROXY header first) hands
       the socket to ``Admission``, which queues it while its address is at its
       handshakes (``room.book``, the limits);
    2. authenticate: asyncssh runs the SSH protocol; ``LammaSSHServer`` decides who the
       client is (a key's name, a guest) with its ``Door`` (configuration, book,
       identities, allow-list, bans, refusals, the queues);
    3. limits: the same connection bounds its channels, environment and terminal, and
       ``SessionHandler`` each session as it opens (how many, how fast, a name free);
    4. session kind: ``SessionHandler.handle`` — ``key CODE``, ``play`` or a terminal;
    5. app or JSON lines: ``run_tui`` (a Textual app on ``SSHDriver``) or ``run_json``
       (``JsonSession``), with its ``Hall`` (configuration, book, tables, identities,
       bans, refusals, the room's other processes).

    The web page (``WebListener``) accepts and authenticates browsers its own way and
    joins the chain at 5: the same ``SessionHandler.run_tui``, the same driver."""
    room = await _room(config)
    # The room's host key, and its successor while a rotation is under way: every one
    # of them named to clients after login (hostkeys-00@openssh.com), the first signs.
    keys = host_keys(config.keys)
    host_key = keys[0]
    room.host_fingerprints = [k.get_fingerprint("sha256") for k in keys]
    sessions = SessionHandler(room.hall)                           # 3 (sessions), 4, 5
    server = await asyncssh.create_server(
        lambda: LammaSSHServer(room.door, sessions), host, port,   # 2, 3
        tunnel=_accept(room, config),                              # 1
        server_host_keys=keys,
        send_server_host_keys=True,
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
    )
    room.listeners.append(server)
    if config.web.listen:
        # The room in web browsers (server/web): the same sessions over a websocket.
        from .metrics import parse_listen
        from .web.listener import WebListener
        web = WebListener(sessions)
        try:
            await web.start(*parse_listen(config.web.listen))
        except OSError:
            server.close()
            room.close()
            raise
        room.web = web
    return server, room, host_key


async def _room(config: RoomConfig) -> RoomService:
    """The room put together (server/service.py) with the process prepared for it: its
    writer, resumed tables, daily events, cluster, metrics and admin socket started."""
    from . import runtime

    if config.reuse_port:
        check_reuse_port()
    runtime.prepare()
    runtime.quiet_accept_errors(asyncio.get_running_loop())
    open_files = runtime.raise_open_files()
    from tui.i18n import preload
    preload()
    room = RoomService(config)
    room.book.connection_cap = connection_cap(config.limits, open_files)
    room.table_store.start(asyncio.get_running_loop())
    room.registry.start_resumed()
    room.registry.events.start()        # today's daily events; closed events' boards end
    if room.cluster is not None:
        room.cluster.start(asyncio.get_running_loop())
    if config.metrics:
        from .metrics import start_exporter  # prometheus_client: only when asked
        try:
            room.metrics = start_exporter(room, config.metrics)
        except (OSError, ValueError):
            room.close()
            raise
    room.admin_server = await serve_admin(room.moderation, room.listening, config.data)
    return room


def _accept(room: RoomService, config: RoomConfig) -> Gate | ProxyListener:
    """The chain's first link: the room listens itself and hands each connection to
    asyncssh when its address has a place among its handshakes (server/admission.py);
    with --proxy-protocol it first reads the connection's PROXY header
    (server/proxyproto.py)."""
    if not config.proxy_protocol:
        return Gate(room.admission, reuse_port=config.reuse_port)
    if not config.proxy_from:
        log.warning("--proxy-protocol without --proxy-from: any client that reaches "
                    "the port may say any address in its PROXY header; name the "
                    "balancers with --proxy-from CIDR[,CIDR]")
    limits = config.limits
    return ProxyListener(
        timeout=limits.proxy_header_timeout, pending_max=limits.proxy_pending,
        trusted=config.proxy_from, reuse_port=config.reuse_port,
        pending_per_address=limits.proxy_pending_per_address,
        admit=room.admission.enter, refusals=room.refusals)
