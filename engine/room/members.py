"""Members: connected sessions as the room sees them.

The room calls a member back (``table_changed``, ``lobby_changed``, …) and never
touches another session's screen or channel: the JSON session writes to its own
channel; the Textual app's member draws its own app's screen at once when the change
comes from outside every session's handling (a move's commit, a computer player's
decision: ``LammaApp.table_changed_now``), else posts a message to its app. A table
change comes as one ``events.TableChange`` for all its members, carrying what each
draws from. ``Member`` is what the room needs; ``Session`` is the plain
implementation both front ends extend (and tests use as a silent member).
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING, Protocol

from .catalogue import display_name
from .codes import CodeGuard
from .errors import RoomError

if TYPE_CHECKING:
    from .events import TableChange
    from .table import Table

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


class Member(Protocol):
    """What the room needs of a connected session."""

    name: str
    ident: str                  # who holds a seat: "key:<fingerprint>:<name>", or for a
                                # guest "guest:<random token of the connection>:<name>"
    guest: bool
    table: Table | None         # the table it sits at or watches
    seat: int | None            # None while watching
    closed: bool
    unlocked: set[str]          # private tables this session gave the code of
    ignoring: set[str]          # name keys whose chat this session does not see
    address: str                # the client's address ("" when not known)
    chat_guard: ChatGuard
    code_guard: CodeGuard

    @property
    def display_name(self) -> str: ...

    # Called by the room; must never raise and must not block.
    def table_changed(self, change: TableChange) -> None:
        """The member's table changed (``change.what``: "state", the view changed;
        "seats", "chat", "closed"); the same ``change`` goes to every member."""

    def lobby_changed(self) -> None:
        """The list of tables changed (told to lobby members at most once a second,
        see ``Registry.lobby_changed``); ``Registry.lobby_view`` has the new rows."""

    def kick(self, reason: str) -> None:
        """Another terminal took this name over, or the server is stopping."""

    def seat_granted(self, table: Table, seat: int) -> None:
        """A computer player's seat became ours (called before the view is pushed)."""

    def request_dropped(self, table: Table, seat: int, reason: str) -> None:
        """A waiting request for a computer player's seat ended without the seat."""

    def notice(self, text: str) -> None:
        """A word for this person from the room (an operator's announcement, a mute)."""


class Session:
    """A member that hears nothing: the base of the TUI's and the JSON session's."""

    kind = "member"
    transport = "ssh"       # how the person reaches the room: ssh, or web (server/web)
    returns = False         # a guest who may come back to its seat (a web page's)

    def __init__(self, name: str, ident: str, guest: bool = False):
        self.name = name
        self.ident = ident
        self.guest = guest
        self.table: Table | None = None
        self.seat: int | None = None
        self.closed = False
        self.unlocked: set[str] = set()
        self.ignoring: set[str] = set()
        self.address = ""
        self.chat_guard = ChatGuard()
        self.code_guard = CodeGuard()

    @property
    def display_name(self) -> str:
        return display_name(self.name, self.guest)

    def table_changed(self, change: TableChange) -> None:
        pass

    def lobby_changed(self) -> None:
        pass

    def kick(self, reason: str) -> None:
        pass

    def seat_granted(self, table: Table, seat: int) -> None:
        pass

    def request_dropped(self, table: Table, seat: int, reason: str) -> None:
        pass

    def notice(self, text: str) -> None:
        pass
