"""How Arabic is drawn on this player's terminal, chosen once on a test line.

Shown when Arabic is first chosen (the client's locale or the options screen),
and again from the options screen. The same sentence is drawn both ways; the one
that reads correctly says which mode fits the terminal (tui.i18n: ``shaped`` for
terminals without bidi support, ``logical`` for those that do their own)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, getters
from textual.app import ComposeResult
from textual.screen import Screen

from .. import settings
from ..i18n import Speech
from ..widgets.board import Board, PromptScreenMixin

if TYPE_CHECKING:
    from ..app import LammaApp

# Both lines say the same: "this line reads correctly: press <n>". Not in the
# catalogue: they are the test itself, the same in every language.
TEST_LINE = "هذا السطر يُقرأ صحيحًا: اضغط {n}"
MODES = {"1": "shaped", "2": "logical"}


class TextModeScreen(PromptScreenMixin, Screen[None]):
    if TYPE_CHECKING:
        app = getters.app(LammaApp)

    AUTO_FOCUS = ""

    def compose(self) -> ComposeResult:
        yield Board()

    def on_mount(self) -> None:
        self.draw()

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.draw)

    def draw(self) -> None:
        board = self.query_one(Board)
        width = board.size.width or 80
        _ = self.app.speech._
        lines = [Text(" " + _("Arabic on this terminal"), style="bold reverse"), Text("")]
        lines.append(Text(" Which line below reads correctly, right to left, with joined"))
        lines.append(Text(" letters? Press its number (1 or 2)."))
        lines.append(Text(""))
        for n, mode in MODES.items():
            t = Text("")
            t.append(f" {n} ", style="bold reverse")
            t.append("  ")
            t.append(TEST_LINE.format(n=n))
            lines.append(Speech("ar", mode).line(t, width - 2))
            lines.append(Text(""))
        lines.append(Text(" 1: the server joins and orders Arabic (xterm, tmux, Windows Terminal…)."))
        lines.append(Text(" 2: the terminal does it (GNOME Terminal, Konsole, mlterm)."))
        lines.append(Text(" The options screen (o) changes it later."))
        keys = Text(" 1 2 ", style="bold reverse")
        keys.append(" choose  ")
        keys.append(" esc ", style="bold reverse")
        keys.append(" " + "later")
        h = board.size.height
        board.set_lines(lines + [Text("")] * max(0, h - len(lines) - 1) + [keys])

    def on_key(self, event: events.Key) -> None:
        event.stop()
        mode = MODES.get(event.character or "")
        if mode is not None:
            self.app.look.text_mode = mode
            settings.save(self.app)
            self.app.apply_language()
            self.dismiss(None)
        elif event.key in ("escape", "enter"):
            self.dismiss(None)
