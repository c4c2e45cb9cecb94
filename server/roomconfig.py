"""The room's configuration as one process serves it (``RoomConfig``): the part of an
effective configuration (server/config.py) the room's parts read, kept apart from the
composition root so that every part may be given it without importing the root."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engine.catalogue import DEFAULT_LEVEL
from engine.room.duplicate import EventSettings

from .config import Config, ConfigError, database_url
from .limits import Limits
from .web.settings import Network, WebSettings


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
    quick_level: str = DEFAULT_LEVEL  # the computer players quick play seats
    drain_seconds: float = 30.0       # a clean restart: how long everyone is told to wait
    drain_notice: str = ""            # ... in these words ({seconds}); "": the room's own
    operators: tuple[str, ...] = ()   # operators' public keys beside KEYS/operators
    bot_workers: int = 0              # the computer players' workers; 0: cores - 1
    settings: Config | None = None    # the configuration it came from (reload reads it)
    # Duplicate events (docs/events.md): the daily events' boards and hours, the computer
    # players' samples per card at a board, the caps on events people make.
    events: EventSettings = field(default_factory=EventSettings)
    # The room in a web browser (docs/web.md): off unless ``web.listen`` is set.
    web: WebSettings = field(default_factory=WebSettings)

    @classmethod
    def of(cls, config: Config) -> RoomConfig:
        """The room's part of an effective configuration (server/config.py)."""
        serve = config.serve
        try:
            database = database_url(config) or None
        except ConfigError:         # (said at the start, which it stopped; not live)
            database = serve("database") or None
        return cls(data=Path(serve("data")), keys=Path(serve("keys")), database=database,
                   process=serve("process-name"),
                   guests=serve("guests") and not serve("allow-list"),
                   allow_list=serve("allow-list"),
                   bot_pause=config[("play", "bot-pause")],
                   trick_pause=config[("play", "trick-pause")],
                   absent_timeout=config[("play", "absent-timeout")],
                   metrics=serve("metrics") or None, reuse_port=serve("reuse-port"),
                   proxy_protocol=serve("proxy-protocol"),
                   proxy_from=tuple(serve("proxy-from")), limits=config.limits(),
                   quick_level=config[("play", "quick-play-level")],
                   drain_seconds=config[("restart", "drain-seconds")],
                   drain_notice=config[("restart", "notice")],
                   operators=tuple(config[("moderation", "operators")]),
                   bot_workers=config[("play", "bot-workers")],
                   events=config.events(), web=WebSettings.of(config), settings=config)
