"""A person in the room as the room's lower rooms see them (``Person``): the stores,
moderation and mutes read who someone is — their name, identity, address, whom they
ignore — and tell them a word or let them go; the table's ``Member`` (``table.py``)
is a ``Person`` who sits at or watches a table. ``ChatGuard`` is each person's chat
rate.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Protocol

from .codes import CodeGuard
from .errors import RoomError

CHAT_BURST = 3          # lines ...
CHAT_WINDOW = 5.0       # ... per this many seconds, per player


class ChatGuard:
    """A few chat lines every few seconds, per session. ``lines`` and ``window`` are
    the process's (the server's configuration sets them, and sets them again on a
    reload)."""

    lines = CHAT_BURST
    window = CHAT_WINDOW

    def __init__(self) -> None:
        self.times: deque[float] = deque(maxlen=max(1, ChatGuard.lines))

    def check(self) -> None:
        now = time.monotonic()
        times = self.times
        if times.maxlen != max(1, ChatGuard.lines):
            times = self.times = deque(times, maxlen=max(1, ChatGuard.lines))
        if len(times) == times.maxlen and now - times[0] < ChatGuard.window:
            raise RoomError("Slow down: a few lines every few seconds.")
        times.append(now)


class Person(Protocol):
    """Who someone is, and the words the room may send them."""

    name: str
    ident: str                  # who holds a seat: "key:<fingerprint>:<name>", or for a
                                # guest "guest:<random token of the connection>:<name>"
    guest: bool
    closed: bool
    unlocked: set[str]          # private tables this session gave the code of
    ignoring: set[str]          # name keys whose chat this session does not see
    address: str                # the client's address ("" when not known)
    chat_guard: ChatGuard
    code_guard: CodeGuard

    @property
    def display_name(self) -> str: ...

    # Called by the room; must never raise and must not block.
    def lobby_changed(self) -> None:
        """The list of tables changed (told to lobby members at most once a second,
        see ``Registry.lobby_changed``); ``Registry.lobby_view`` has the new rows."""

    def kick(self, reason: str) -> None:
        """Another terminal took this name over, or the server is stopping."""

    def notice(self, text: str) -> None:
        """A word for this person from the room (an operator's announcement, a mute)."""
