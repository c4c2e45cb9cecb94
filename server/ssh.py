"""The SSH listener: the host key, and ``start_server``, which builds the room
(``service.RoomService``) and listens for connections (``connections``), each
session of which runs in ``sessions``."""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import sys
from pathlib import Path

import asyncssh

from . import wire
from .admin import serve_admin
from .connections import LammaSSHServer
from .limits import connection_cap
from .proxyproto import ProxyListener
from .service import RoomConfig, RoomService
from .sessions import SessionHandler

log = logging.getLogger("lamma.ssh")

HOST_KEY_NAME = "ssh_host_ed25519_key"


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
    room.connection_cap = connection_cap(config.limits, open_files)
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
    room.listeners.append(server)
    if config.web.listen:
        # The room in web browsers (server/web): the same sessions over a websocket.
        from .metrics import parse_listen
        from .web.listener import WebListener
        web = WebListener(room)
        try:
            await web.start(*parse_listen(config.web.listen))
        except OSError:
            server.close()
            room.close()
            raise
        room.web = web
    return server, room, host_key
