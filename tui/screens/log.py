"""The table's log (issue 26): what the compact layout has no room for, one key away
(``e``) — the last round's summary with every bonus, what was said at the table (the
narration the table keeps) and the chat.

Drawn on a ``Board`` from the table screen's own scene, in the player's language; it
follows the table while it is open (a change is shown on the table screen under it
and here). ↑↓ scroll; Esc, ``e`` or ``q`` go back to the table.
"""

from __future__ import annotations

from typing import Protocol

from rich.text import Text
from textual import events

from engine.room.events import TableChange

from ..host import host
from ..i18n import N_
from ..widgets.board import BLANK, Board
from .frame import BoardScreen
from .table_keys import pgettext
from .table_scene import Scene, said_lines
from .table_state import MaybeView, TableFacts, View
from .table_summary import summary_rows
from .table_text import W, boxed, fit

TITLE = N_("Table log")
CHAT_LINES = 20
KEYS = ((pgettext("key", "back"), "esc"), (N_("scroll"), "↑↓"))


class LoggedTable(Protocol):
    """What the log reads of the table screen under it (its own interface: the log
    does not import the table screen)."""

    view: View | None
    change: TableChange | None

    def facts(self) -> TableFacts | None: ...

    def scene(self) -> Scene: ...

    def table_changed(self, change: TableChange) -> None: ...


class LogScreen(BoardScreen):

    def __init__(self, table_screen: LoggedTable) -> None:
        super().__init__()
        self.ts = table_screen
        self.top = 0                        # the first row shown

    def table_changed(self, change: TableChange) -> None:
        """The table changed: the table screen under this one takes it, then the log
        shows what is new."""
        self.ts.table_changed(change)
        if self.is_mounted and host(self).screen is self:
            self.draw()

    def body(self, width: int) -> list[Text]:
        ts = self.ts
        speech = host(self).speech
        _ = speech._
        facts = ts.facts()
        if facts is None:
            return []
        sc = ts.scene()
        lines: list[Text] = []
        v: MaybeView = ts.view or {}
        history = v.get("history") or []
        if history:
            lines += summary_rows(sc, width, 999, history[-1])
            lines.append(BLANK)
        said = [text for _round, text in facts.events]
        if said:
            lines.append(sc.line(Text(" " + _("What was said at the table"),
                                      style="bold underline"), width))
            for text in said:
                lines += said_lines(sc, Text(" " + sc.narrate(text)), width, 3)
            lines.append(BLANK)
        change = ts.change
        chat = change.chat_for(host(self).member, CHAT_LINES) if change is not None else ()
        lines.append(sc.line(Text(" " + speech.pgettext("key", "chat"), style="bold underline"),
                             width))
        if not chat:
            lines.append(sc.line(Text("   " + _("Nobody has said anything yet."),
                                      style="dim"), width))
        for who, text in chat:
            t = Text(" ")
            t.append(sc.say(who) + ": ", style=sc.look.style("bold cyan"))
            t.append(sc.say(text))
            lines += said_lines(sc, t, width, 4)
        return lines

    def drawable(self, board: Board) -> bool:
        return board.size.width > 0 and board.size.height > 0

    def left(self, board: Board) -> int:
        return (board.size.width - min(board.size.width, W)) // 2

    def paint(self, board: Board) -> list[Text]:
        width, height = board.size
        speech = host(self).speech
        _ = speech._
        cw = min(width, W)
        head = speech.line(Text(" " + _(TITLE) + " ", style="bold reverse"), cw) \
            if speech.rtl else Text(" " + _(TITLE) + " ", style="bold reverse")
        keys = [speech.line(line, cw) for line in boxed(
            [(k, speech.pgettext("key", label) if label == "back" else _(label))
             for label, k in KEYS], cw - 1)]
        body = self.body(cw)
        room = max(1, height - 1 - len(keys))
        self.top = top = max(0, min(self.top, len(body) - room))
        lines = [fit(head, cw), *body[top:top + room]]
        return lines + [BLANK] * (height - len(keys) - len(lines)) + keys

    def scroll(self, delta: int) -> None:
        self.top = max(0, self.top + delta)
        self.draw()

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if event.key in ("escape", "e", "q", "enter"):
            host(self).pop_screen()
        elif event.key == "up":
            self.scroll(-1)
        elif event.key == "down":
            self.scroll(1)
        elif event.key == "pageup":
            self.scroll(-10)
        elif event.key == "pagedown":
            self.scroll(10)
