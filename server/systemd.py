"""systemd's notify protocol (sd_notify(3)), for ``Type=notify`` units
(deploy/lamma.service): READY=1 once the room listens, RELOADING=1 then READY=1 around a
reload of the configuration (with MONOTONIC_USEC, as ``Type=notify-reload`` wants),
STOPPING=1 as a clean restart begins. Nothing without ``NOTIFY_SOCKET``."""

from __future__ import annotations

import logging
import os
import socket
import time

log = logging.getLogger("lamma.serve")


def notify_systemd(state: str) -> None:
    """One datagram to systemd's socket; a failure is a warning, never the room's end."""
    where = os.environ.get("NOTIFY_SOCKET")
    if not where:
        return
    if where.startswith("@"):
        where = "\0" + where[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(where)
            sock.sendall(state.encode())
    except OSError as e:
        log.warning("could not tell systemd %s (%s)", state.split("\n")[0], e)


def reloading() -> None:
    """A reload begins (READY=1 says it is over)."""
    usec = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
    notify_systemd(f"RELOADING=1\nMONOTONIC_USEC={usec}")
