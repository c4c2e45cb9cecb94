"""The score sheet: every round so far, one key away from the table (r).

Said in the player's language; in an Arabic interface its columns are mirrored
(the round number at the right, the seats from the right) and its lines are
right-aligned, numbers, bids and suit signs left to right.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events

from engine.catalogue import terms

from ..host import host
from ..i18n import N_
from ..widgets.board import Board
from .frame import BoardScreen
from .sizes import COMPACT, layout
from .table_draw import Cell, cells_row, right_align
from .table_keys import pgettext

if TYPE_CHECKING:
    from ..cards import Look
    from ..i18n import Speech
    from .table_state import MaybeView

# A round's kind, as the sheet's column says it (context "kind").
KINDS = {"auction": pgettext("kind", "auction"), "fast": pgettext("kind", "fast"),
         "fixed": pgettext("kind", "fixed"), "hand": pgettext("kind", "hand")}
LEGEND = N_("scroll   bold: the caller · cells: declared/taken points")
# A game without a caller (Tarneeb 41): its cells only.
LEGEND_HANDS = N_("scroll   cells: declared/taken points")


def sheet_body(speech: Speech, look: Look, view: MaybeView | None) -> list[Text]:
    """A line a round so far: its number, kind and call, then each seat's
    declared/taken and points (the caller's in bold); for an Arabic interface the same
    columns, mirrored (``cells_row``: lay it out with ``right_align``)."""
    if speech.rtl:
        return sheet_body_rtl(speech, look, view)
    v = view or {}
    out = []
    for rec in v.get("history") or []:
        t = Text(no_wrap=True)
        t.append(f" {rec.get('round'):>2} ")
        kind = rec.get("kind") or ""
        word = speech.pgettext("kind", kind) if kind in KINDS else kind
        t.append(f"{word[:7]:<8}", style="dim")
        call = rec.get("call")
        if rec.get("void"):
            t.append(f"{'void':<10}")
        else:
            c = look.bid_str(call.get("n"), call.get("suit")) if call else "—"
            t.append(f"{c:<5}{('×' + str(rec['multiplier'])) if (rec.get('multiplier') or 1) > 1 else '':<5}")
        decl: Sequence[int | None] = rec.get("declarations") or [None] * 4
        took = rec.get("tricks_taken") or [0] * 4
        scores = rec.get("scores") or [0] * 4
        for s in range(4):
            d = "-" if decl[s] is None else str(decl[s])
            cell = f"{d}/{took[s]} {scores[s]:+d}"
            style = "bold" if rec.get("caller") == s else ""
            t.append(f"{cell:>12}", style=style)
        out.append(t)
    return out


def sheet_body_rtl(speech: Speech, look: Look, view: MaybeView | None) -> list[Text]:
    """The rounds for an Arabic interface: the same columns, mirrored."""
    out = []
    for rec in (view or {}).get("history") or []:
        kind = rec.get("kind") or ""
        cells = [Cell("", 1), Cell(str(rec.get("round")), 2, True), Cell("", 1),
                 Cell(speech.pgettext("kind", kind) if kind in KINDS else kind, 8,
                      style="dim")]
        call = rec.get("call")
        if rec.get("void"):
            cells.append(Cell(speech._("void"), 10))
        else:
            mult = rec.get("multiplier") or 1
            cells += [Cell(look.bid_str(call.get("n"), call.get("suit")) if call else "—",
                           5),
                      Cell(f"×{mult}" if mult > 1 else "", 5)]
        decl: Sequence[int | None] = rec.get("declarations") or [None] * 4
        took = rec.get("tricks_taken") or [0] * 4
        scores = rec.get("scores") or [0] * 4
        for s in range(4):
            d = "-" if decl[s] is None else str(decl[s])
            cells.append(Cell(f"{d}/{took[s]} {scores[s]:+d}", 12, True,
                              "bold" if rec.get("caller") == s else ""))
        out.append(cells_row(speech, cells))
    return out


def sheet_ends(speech: Speech, view: MaybeView | None, names: list[str]) -> tuple[Text, Text]:
    """The sheet's head (its columns, a seat's name over each) and its totals line
    (80 columns; an Arabic interface's mirrored, for ``right_align``)."""
    totals = (view or {}).get("totals") or [0] * 4
    if speech.rtl:
        hdr = cells_row(speech, [Cell("", 1), Cell("#", 2, True), Cell("", 1),
                                 Cell(speech.pgettext("column", "kind"), 8),
                                 Cell(speech.pgettext("column", "call"), 10)]
                        + [Cell(names[s][:11], 12, True) for s in range(4)],
                        style="bold underline")
        tot = cells_row(speech, [Cell("", 4), Cell(speech.pgettext("column", "total"), 18)]
                        + [Cell(str(totals[s]), 12, True) for s in range(4)],
                        style="bold")
        return hdr, tot
    hdr = Text(f" {'#':>2} {'kind':<8}{'call':<10}", style="bold underline")
    for s in range(4):
        hdr.append(f"{speech.show(names[s][:11]):>12}")
    tot = Text(f" {'':>2} {'total':<18}", style="bold")
    for s in range(4):
        tot.append(f"{totals[s]:>12}")
    return hdr, tot


class SheetScreen(BoardScreen):

    def __init__(self, table_screen) -> None:
        super().__init__()
        self.ts = table_screen
        self.top = 0
        self._lines: list[Text] = []

    def on_mount(self) -> None:
        rows = self.body()
        self.top = max(0, len(rows) - (self.size.height - 5))   # (then the frame draws)

    def body(self) -> list[Text]:
        return sheet_body(host(self).speech, self.ts.look, self.ts.view)

    def legend(self) -> str:
        """The legend's words (marked): the caller's bold is Estimation's only."""
        facts = self.ts.facts()
        return LEGEND_HANDS if facts is not None and not terms(facts.game).caller else LEGEND

    def drawable(self, board: Board) -> bool:
        return board.size.height > 0

    def paint(self, board: Board) -> list[Text]:
        h = board.size.height
        if layout(board.size.width, h) == COMPACT:
            return self.compact_lines(board)
        ts, speech = self.ts, host(self).speech
        _ = speech._
        head = Text(" " + _("Score sheet"), style="bold reverse")
        hdr, tot = sheet_ends(speech, ts.view, [ts.pname(s, you=False) for s in range(4)])
        rows = self.body()
        room = max(1, h - 5)
        self.top = max(0, min(self.top, len(rows) - room))
        shown = rows[self.top:self.top + room]
        lines = [head, hdr] + shown + [Text("")] * (room - len(shown)) + [tot, Text("")]
        keys = Text(" esc ", style="bold reverse")
        keys.append(" " + speech.pgettext("key", "back") + "  ")
        keys.append(" ↑↓ ", style="bold reverse")
        keys.append(" " + _(self.legend()))
        lines.append(keys)
        if speech.rtl:
            w = board.size.width
            laid = {id(head), id(keys)}
            lines = [speech.line(line, w) if id(line) in laid else right_align(speech, line, w)
                     for line in lines]
        return lines

    def compact_lines(self, board: Board) -> list[Text]:
        """Under 80×24 (a phone): two rows a round (its number and call, then each
        player's declared/taken; under them the points), the players' names cut to
        their column, the legend and the keys wrapped to the width."""
        ts, speech = self.ts, host(self).speech
        _ = speech._
        width = min(board.size.width, 80)
        h = board.size.height
        cell = max(6, (width - 10) // 4)
        v = ts.view or {}
        totals = v.get("totals") or [0] * 4
        look = ts.look

        def row(cells: list[Cell], style: str = "") -> Text:
            if speech.rtl:
                return right_align(speech, cells_row(speech, cells, style=style), width)
            t = Text(no_wrap=True, style=style)
            for c in cells:
                shown = speech.show(c.text)
                t.append(shown.rjust(c.width) if c.right else shown.ljust(c.width),
                         style=c.style or None)
            return t

        lead = [Cell("", 1), Cell("#", 2, True), Cell("", 1),
                Cell(speech.pgettext("column", "call"), 6)]
        hdr = row(lead + [Cell(ts.pname(s, you=False)[:cell - 1], cell, True)
                          for s in range(4)], "bold underline")
        body: list[Text] = []
        for rec in v.get("history") or []:
            call = rec.get("call")
            if rec.get("void"):
                said = _("void")
            else:
                said = look.bid_str(call.get("n"), call.get("suit")) if call else "—"
                if (rec.get("multiplier") or 1) > 1:
                    said += f"×{rec['multiplier']}"
            decl: Sequence[int | None] = rec.get("declarations") or [None] * 4
            took = rec.get("tricks_taken") or [0] * 4
            scores = rec.get("scores") or [0] * 4
            bold = ["bold" if rec.get("caller") == s else "" for s in range(4)]
            body.append(row([Cell("", 1), Cell(str(rec.get("round")), 2, True), Cell("", 1),
                             Cell(said, 6)]
                            + [Cell(f"{'-' if decl[s] is None else decl[s]}/{took[s]}", cell,
                                    True, bold[s]) for s in range(4)]))
            body.append(row([Cell("", 10)] + [Cell(f"{scores[s]:+d}", cell, True, bold[s])
                                              for s in range(4)], "dim"))
        tot = row([Cell("", 4), Cell(speech.pgettext("column", "total"), 6)]
                  + [Cell(str(totals[s]), cell, True) for s in range(4)], "bold")
        from .table_compact import boxed, wrap
        legend = [speech.line(part, width) for part in wrap(
            Text(" " + _(self.legend()).split("   ", 1)[-1], style="dim"), width - 1)]
        keys = [speech.line(line, width) for line in boxed(
            [("esc", speech.pgettext("key", "back")), ("↑↓", _("scroll"))], width - 1)]
        head = speech.line(Text(" " + _("Score sheet"), style="bold reverse"), width)
        room = max(2, h - 3 - len(legend) - len(keys))
        self.top = max(0, min(self.top, len(body) - room))
        shown = body[self.top:self.top + room]
        return [head, hdr, *shown, *([Text("")] * (room - len(shown))), tot, *legend, *keys]

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if event.key in ("escape", "r", "q", "enter"):
            host(self).pop_screen()
        elif event.key == "up":
            self.top -= 1
            self.draw()
        elif event.key == "down":
            self.top += 1
            self.draw()
        elif event.key in ("pageup", "pagedown"):
            step = max(1, self.query_one(Board).size.height - 6)
            self.top += step if event.key == "pagedown" else -step
            self.draw()
