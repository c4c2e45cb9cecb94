"""The room: what every session shares — tables, seats and takeovers, the registry and
its lobby listing, members, invitation codes, narration, and the typed store interface.

Imports the engine only; the screens (``tui``) and the transport (``server.ssh``,
``server.jsonapi``, ``server.driver``, ``server.cli``) import it, never the reverse.
"""

from __future__ import annotations

from .catalogue import (
                        BOT_NAMES,
                        DEFAULT_LEVEL,
                        GAMES,
                        GUEST_MARK,
                        LENGTHS,
                        LEVELS,
                        SEATS,
                        TIMERS,
                        TITLES,
                        Terms,
                        default_length,
                        display_name,
                        is_seat,
                        parse_seat,
                        parse_seats,
                        ranked,
                        terms,
                        title,
)
from .codes import CODE_ALPHABET, CODE_LEN, CODE_TRIES, CODE_WINDOW, code_label
from .errors import RoomError, Said
from .members import Member, Session
from .moderation import PLAYER_HELP, NoModerator, ignores, own_command
from .narration import Event
from .registry import Registry
from .rows import LobbyRow
from .seats import Seat
from .store import MatchStore, NullStore, Records, StoredMatch
from .stored import (
                        listed_labels,
                        replay_stored,
                        seat_label,
                        seat_labels,
                        seat_names,
                        table_settings,
)
from .table import Moderator, Table, TableLog

__all__ = [
                        "BOT_NAMES",
                        "CODE_ALPHABET",
                        "CODE_LEN",
                        "CODE_TRIES",
                        "CODE_WINDOW",
                        "DEFAULT_LEVEL",
                        "GAMES",
                        "GUEST_MARK",
                        "LENGTHS",
                        "LEVELS",
                        "PLAYER_HELP",
                        "SEATS",
                        "TIMERS",
                        "TITLES",
                        "Event",
                        "LobbyRow",
                        "MatchStore",
                        "Member",
                        "Moderator",
                        "NoModerator",
                        "NullStore",
                        "Records",
                        "Registry",
                        "RoomError",
                        "Said",
                        "Seat",
                        "Session",
                        "StoredMatch",
                        "Table",
                        "TableLog",
                        "Terms",
                        "code_label",
                        "default_length",
                        "display_name",
                        "ignores",
                        "is_seat",
                        "listed_labels",
                        "own_command",
                        "parse_seat",
                        "parse_seats",
                        "ranked",
                        "replay_stored",
                        "seat_label",
                        "seat_labels",
                        "seat_names",
                        "table_settings",
                        "terms",
                        "title",
]
