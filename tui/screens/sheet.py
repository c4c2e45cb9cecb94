"""The score sheet: every round so far, one key away from the table (r)."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.screen import Screen

from ..widgets.board import Board, PromptScreenMixin


class SheetScreen(PromptScreenMixin, Screen):
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

    def draw(self) -> None:
        board = self.query_one(Board)
        h = board.size.height
        if h <= 0:
            return
        ts = self.ts
        v = ts.view or {}
        head = Text(" Score sheet", style="bold reverse")
        hdr = Text(f" {'#':>2} {'kind':<6}{'call':<10}", style="bold underline")
        for s in range(4):
            hdr.append(f"{ts.pname(s, you=False)[:11]:>12}")
        rows = self.body()
        room = max(1, h - 5)
        self.top = max(0, min(self.top, len(rows) - room))
        shown = rows[self.top:self.top + room]
        tot = Text(f" {'':>2} {'total':<16}", style="bold")
        for s in range(4):
            tot.append(f"{(v.get('totals') or [0] * 4)[s]:>12}")
        lines = [head, hdr] + shown + [Text("")] * (room - len(shown)) + [tot, Text("")]
        keys = Text(" esc ", style="bold reverse")
        keys.append(" back  ")
        keys.append(" ↑↓ ", style="bold reverse")
        keys.append(" scroll   bold: the caller · cells: declared/taken points")
        lines.append(keys)
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
