"""The SSH listener: the host key, and ``start_server``, which builds the room
(``service.RoomService``) and listens for connections (``connections``), each
session of which runs in ``sessions``."""

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
from .service import RoomConfig, RoomService
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
    """Start listening; returns (server, room, host_key)."""
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
    # The room's host key, and its successor while a rotation is under way: every one
    # of them named to clients after login (hostkeys-00@openssh.com), the first signs.
    keys = host_keys(config.keys)
    host_key = keys[0]
    room.host_fingerprints = [k.get_fingerprint("sha256") for k in keys]
    handler = SessionHandler(room.seating)
    # The room listens itself and hands each connection to asyncssh when its address
    # has a place among its handshakes (server/admission.py); with --proxy-protocol it
    # first reads the connection's PROXY header (server/proxyproto.py).
    tunnel: Gate | ProxyListener = Gate(room.admission, reuse_port=config.reuse_port)
    if config.proxy_protocol:
        limits = config.limits
        tunnel = ProxyListener(
            timeout=limits.proxy_header_timeout, pending_max=limits.proxy_pending,
            trusted=config.proxy_from, reuse_port=config.reuse_port,
            pending_per_address=limits.proxy_pending_per_address,
            admit=room.admission.enter, refusals=room.refusals)
        if not config.proxy_from:
            log.warning("--proxy-protocol without --proxy-from: any client that reaches "
                        "the port may say any address in its PROXY header; name the "
                        "balancers with --proxy-from CIDR[,CIDR]")
    server = await asyncssh.create_server(
        lambda: LammaSSHServer(room.door, handler), host, port,
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
        tunnel=tunnel,
    )
    room.listeners.append(server)
    if config.web.listen:
        # The room in web browsers (server/web): the same sessions over a websocket.
        from .metrics import parse_listen
        from .web.listener import WebListener
        web = WebListener(handler)
        try:
            await web.start(*parse_listen(config.web.listen))
        except OSError:
            server.close()
            room.close()
            raise
        room.web = web
    return server, room, host_key
