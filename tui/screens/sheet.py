"""The score sheet: every round so far, one key away from the table (r).

Said in the player's language; in an Arabic interface its columns are mirrored
(the round number at the right, the seats from the right) and its lines are
right-aligned, numbers, bids and suit signs left to right.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, getters
from textual.app import ComposeResult
from textual.screen import Screen

from ..i18n import N_
from ..widgets.board import Board
from .table_draw import Cell, cells_row, right_align
from .table_keys import pgettext

if TYPE_CHECKING:
    from ..app import LammaApp

# A round's kind, as the sheet's column says it (context "kind").
KINDS = {"auction": pgettext("kind", "auction"), "fast": pgettext("kind", "fast"),
         "fixed": pgettext("kind", "fixed"), "hand": pgettext("kind", "hand")}
LEGEND = N_("scroll   bold: the caller · cells: declared/taken points")


class SheetScreen(Screen):
    if TYPE_CHECKING:
        app = getters.app(LammaApp)

    AUTO_FOCUS = ""

    def __init__(self, table_screen) -> None:
        super().__init__()
        self.ts = table_screen
        self.top = 0

    def compose(self) -> ComposeResult:
        yield Board()

    def on_mount(self) -> None:
        rows = self.body()
        self.top = max(0, len(rows) - (self.size.height - 5))
        self.draw()

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.draw)

    def body(self) -> list[Text]:
        if self.app.speech.rtl:
            return self.body_rtl()
        ts, look = self.ts, self.ts.look
        v = ts.view or {}
        out = []
        running = [0, 0, 0, 0]
        for rec in v.get("history") or []:
            t = Text(no_wrap=True)
            t.append(f" {rec.get('round'):>2} ")
            kind = rec.get("kind") or ""
            t.append(f"{kind[:5]:<6}", style="dim")
            call = rec.get("call") or {}
            if rec.get("void"):
                t.append(f"{'void':<10}")
            else:
                c = look.bid_str(call.get("n"), call.get("suit")) if call else "—"
                t.append(f"{c:<5}{('×' + str(rec['multiplier'])) if (rec.get('multiplier') or 1) > 1 else '':<5}")
            decl = rec.get("declarations") or [None] * 4
            took = rec.get("tricks_taken") or [0] * 4
            scores = rec.get("scores") or [0] * 4
            for s in range(4):
                running[s] += scores[s] or 0
                d = "-" if decl[s] is None else str(decl[s])
                cell = f"{d}/{took[s]} {scores[s]:+d}"
                style = "bold" if rec.get("caller") == s else ""
                t.append(f"{cell:>12}", style=style)
            out.append(t)
        return out

    def body_rtl(self) -> list[Text]:
        """The rounds for an Arabic interface: the same columns, mirrored."""
        speech, look = self.app.speech, self.ts.look
        out = []
        for rec in (self.ts.view or {}).get("history") or []:
            kind = rec.get("kind") or ""
            cells = [Cell("", 1), Cell(str(rec.get("round")), 2, True), Cell("", 1),
                     Cell(speech.pgettext("kind", kind) if kind in KINDS else kind, 6,
                          style="dim")]
            call = rec.get("call") or {}
            if rec.get("void"):
                cells.append(Cell(speech._("void"), 10))
            else:
                mult = rec.get("multiplier") or 1
                cells += [Cell(look.bid_str(call.get("n"), call.get("suit")) if call else "—",
                               5),
                          Cell(f"×{mult}" if mult > 1 else "", 5)]
            decl = rec.get("declarations") or [None] * 4
            took = rec.get("tricks_taken") or [0] * 4
            scores = rec.get("scores") or [0] * 4
            for s in range(4):
                d = "-" if decl[s] is None else str(decl[s])
                cells.append(Cell(f"{d}/{took[s]} {scores[s]:+d}", 12, True,
                                  "bold" if rec.get("caller") == s else ""))
            out.append(cells_row(speech, cells))
        return out

    def draw(self) -> None:
        board = self.query_one(Board)
        h = board.size.height
        if h <= 0:
            return
        ts, speech = self.ts, self.app.speech
        _ = speech._
        v = ts.view or {}
        head = Text(" " + _("Score sheet"), style="bold reverse")
        totals = v.get("totals") or [0] * 4
        if speech.rtl:
            hdr = cells_row(speech, [Cell("", 1), Cell("#", 2, True), Cell("", 1),
                                     Cell(speech.pgettext("column", "kind"), 6),
                                     Cell(speech.pgettext("column", "call"), 10)]
                            + [Cell(ts.pname(s, you=False)[:11], 12, True) for s in range(4)],
                            style="bold underline")
            tot = cells_row(speech, [Cell("", 4), Cell(speech.pgettext("column", "total"), 16)]
                            + [Cell(str(totals[s]), 12, True) for s in range(4)],
                            style="bold")
        else:
            hdr = Text(f" {'#':>2} {'kind':<6}{'call':<10}", style="bold underline")
            for s in range(4):
                hdr.append(f"{speech.show(ts.pname(s, you=False)[:11]):>12}")
            tot = Text(f" {'':>2} {'total':<16}", style="bold")
            for s in range(4):
                tot.append(f"{totals[s]:>12}")
        rows = self.body()
        room = max(1, h - 5)
        self.top = max(0, min(self.top, len(rows) - room))
        shown = rows[self.top:self.top + room]
        lines = [head, hdr] + shown + [Text("")] * (room - len(shown)) + [tot, Text("")]
        keys = Text(" esc ", style="bold reverse")
        keys.append(" " + speech.pgettext("key", "back") + "  ")
        keys.append(" ↑↓ ", style="bold reverse")
        keys.append(" " + _(LEGEND))
        lines.append(keys)
        if speech.rtl:
            w = board.size.width
            laid = {id(head), id(keys)}
            lines = [speech.line(line, w) if id(line) in laid else right_align(speech, line, w)
                     for line in lines]
        board.set_lines(lines)

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if event.key in ("escape", "r", "q", "enter"):
            self.app.pop_screen()
        elif event.key == "up":
            self.top -= 1
            self.draw()
        elif event.key == "down":
            self.top += 1
            self.draw()
