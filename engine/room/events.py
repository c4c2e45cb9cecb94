"""What a table tells its members when it changes: one ``TableChange`` per change,
the same object for every member, carrying what a member draws or sends from — its
seat's view, the table's facts, what changed — worked out once per change, not
pulled back by each screen.

What is the same for everyone at the table (``TableChange.facts``: the seats as
shown, the narration, the code, the points paid) is worked out the first time a
member asks and then shared; what is one member's own (their view, their chat
without those they ignore, their wait for a seat, whether they may fill the table)
is asked of the change with that member.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from engine import View

from .catalogue import title
from .codes import code_label
from .members import Member
from .moderation import ignores

if TYPE_CHECKING:
    from .table import Table

What = Literal["state", "seats", "chat", "closed"]


class SeatShown(NamedTuple):
    """A seat as every screen shows it (named tuples: made for every change and hashed
    in drawing keys, which a tuple does in C)."""
    label: str                  # the seat's name as shown ("(empty)", "ali", "Bot 2")
    kind: str                   # "empty" | "human" | "bot"
    away: bool = False          # a person's seat whose connection is gone


class TableShown(NamedTuple):
    """The table as everyone at it is shown it after a change."""
    id: str
    game: str
    title: str                  # the game's name as people read it
    length: Any
    status: str                 # waiting | playing | over (what is shown)
    seats: tuple[SeatShown, ...]
    code_label: str | None      # a private table's code, as people type it
    deadline_seat: int | None
    # (round, text), moves other than plays: what happened, said in each language
    events: tuple[tuple[int | None, str], ...]
    points: Mapping[int, Mapping[str, Any]] | None    # paid at the match end
    host: str | None            # before the start: who may fill it (None: nobody seated)
    board: tuple[int, int, int] | None = None   # an event's board: (event, board, boards)


class TableChange:
    """``table`` changed (``what``); ``version``: the shown version it is at."""

    __slots__ = ("_shown", "table", "version", "what")

    def __init__(self, table: Table, what: What):
        self.table = table
        self.what: What = what
        self.version = table.version
        self._shown: TableShown | None = None

    @property
    def facts(self) -> TableShown:
        """The table as shown to everyone, worked out once for all its members."""
        shown = self._shown
        if shown is None:
            t = self.table
            host = None
            if t.shown_status == "waiting":
                seat = t.host()
                host = t.seats[seat].label if seat is not None else None
            shown = self._shown = TableShown(
                t.id, t.game, title(t.game), t.length, t.shown_status,
                tuple(SeatShown(s.label, s.kind, s.kind == "human" and s.member is None)
                      for s in t.seats),
                code_label(t.code) if t.private and t.code else None,
                t.deadline_seat, t.narration(), t.points, host,
                (t.event.event, t.event.board, t.event.boards) if t.event is not None
                else None)
        return shown

    # ---- one member's own ------------------------------------------------------------
    def view_for(self, member: Member) -> View | None:
        """``member``'s seat's view (a watcher's while they watch), or None."""
        return self.table.view_of(member)

    def chat_for(self, member: Member, n: int = 2) -> tuple[tuple[str, str], ...]:
        """The last ``n`` chat lines ``member`` does not ignore (read from the end: a
        table keeps 50)."""
        out: list[tuple[str, str]] = []
        for line in reversed(self.table.chat):
            if not ignores(member, line[0]):
                out.append(line)
                if len(out) == n:
                    break
        return tuple(reversed(out))

    def request_for(self, member: Member) -> str | None:
        """``member``'s wait for a computer player's seat, in words (a Said)."""
        seat = self.table.request_of(member)
        return self.table.request_text(seat) if seat is not None else None

    def may_fill(self, member: Member) -> bool:
        """May ``member`` fill the empty seats with computer players now?"""
        return self.table.status == "waiting" and self.table.may(member, "fill")
