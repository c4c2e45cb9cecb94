"""Members: connected sessions as the room sees them.

The room calls a member back (``table_changed``, ``lobby_changed``, …) and never
touches another session's screen or channel: the JSON session writes to its own
channel; the Textual app's member draws its own app's screen at once when the change
comes from outside every session's handling (a move's commit, a computer player's
decision: ``LammaApp.table_changed_now``), else posts a message to its app. A table
change comes as one ``events.TableChange`` for all its members, carrying what each
draws from. ``Member`` (``table.py``) is what the room needs; ``Session`` is the plain
implementation both front ends extend (and tests use as a silent member).
"""

from __future__ import annotations

from .catalogue import display_name
from .codes import CodeGuard
from .people import ChatGuard, Person
from .table import Member, Table, TableChange

__all__ = ["ChatGuard", "Member", "Person", "Session"]


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
