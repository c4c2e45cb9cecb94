"""The ``[web]`` settings as the room holds them (server/config.py declares them):
light, so that the configuration and the room's composition import it without the
websocket library."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass
class WebSettings:
    listen: str = ""                        # HOST:PORT; "": no web page
    origins: tuple[str, ...] = ()           # beside the page's own host
    proxies: tuple[Network, ...] = ()       # whose X-Forwarded-For is believed
    link_days: float = 90.0                 # a linked browser's token, unused, lasts this
    code_minutes: float = 10.0              # a link code lasts this, and is used once

    @classmethod
    def of(cls, config: Any) -> WebSettings:
        """From an effective configuration (``server.config.Config``)."""
        return cls(listen=config[("web", "listen")], origins=tuple(config[("web", "origins")]),
                   proxies=tuple(config[("web", "proxies")]),
                   link_days=config[("web", "link-days")],
                   code_minutes=config[("web", "code-minutes")])

    def retune(self, fresh: WebSettings) -> None:
        """A reload: all but where it listens (that needs a restart)."""
        self.origins, self.proxies = fresh.origins, fresh.proxies
        self.link_days, self.code_minutes = fresh.link_days, fresh.code_minutes

    def trusts(self, host: str) -> bool:
        """Is ``host`` (a peer's address) one of the configured reverse proxies?"""
        try:
            ip = ipaddress.ip_address(host.split("%")[0])
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return any(ip.version == net.version and ip in net for net in self.proxies)
