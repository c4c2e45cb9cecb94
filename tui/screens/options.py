"""Display options, kept per player: ASCII suits, monochrome, English terms
only, reduce motion."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, getters
from textual.app import ComposeResult
from textual.screen import Screen

from .. import settings
from ..arabic import term
from ..i18n import LANGUAGE_NAMES, LANGUAGES
from ..widgets.board import Board, PromptScreenMixin
from .textmode import TextModeScreen

if TYPE_CHECKING:
    from ..app import LammaApp

OPTIONS = [
    ("a", "unicode", "ASCII suits (S H D C) instead of ♠ ♥ ♦ ♣", True),
    ("m", "colour", "Monochrome (no colours)", True),
    ("e", "english_only", "English terms only (no Arabic names such as {dash})", False),
    ("r", "reduce_motion", "Reduce motion (a finished trick does not move)", False),
]


class OptionsScreen(PromptScreenMixin, Screen[None]):
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
        look = self.app.look
        lines = [Text(" Options (kept for your name)", style="bold reverse"), Text("")]
        for key, attr, label, inverted in OPTIONS:
            on = getattr(look, attr) != inverted
            t = Text("  ")
            t.append(f" {key} ", style="bold reverse")
            t.append(f"  [{'x' if on else ' '}] ")
            t.append(label.format(dash=term("dash", "Dash")))
            lines.append(t)
        lines += [Text(""), Text("  Example: ")]
        lines[-1].append_text(look.card("AS"))
        lines[-1].append(" ")
        lines[-1].append_text(look.card("QH"))
        lines[-1].append(" ")
        lines[-1].append_text(look.card("TD"))
        lines[-1].append(" ")
        lines[-1].append_text(look.card("7C"))
        lines[-1].append("   " + term("with", "With", look.english_only))
        lines += [Text("")]
        t = Text("  ")
        t.append(" l ", style="bold reverse")
        t.append("  Language: " + " / ".join(
            (f"[{LANGUAGE_NAMES[c]}]" if c == self.app.speech.code else LANGUAGE_NAMES[c])
            for c in LANGUAGES))
        lines.append(t)
        t = Text("  ")
        t.append(" k ", style="bold reverse")
        t.append("  Arabic text: " + ("joined here" if self.app.speech.shaped
                                      else "joined by the terminal"))
        lines.append(t)
        board = self.query_one(Board)
        keys = Text(" esc ", style="bold reverse")
        keys.append(" back  ")
        keys.append(" a m e r ", style="bold reverse")
        keys.append(" switch")
        h = board.size.height
        board.set_lines(lines + [Text("")] * max(0, h - len(lines) - 1) + [keys])

    def on_key(self, event: events.Key) -> None:
        event.stop()
        look = self.app.look
        for key, attr, _, _ in OPTIONS:
            if event.key == key:
                setattr(look, attr, not getattr(look, attr))
                settings.save(self.app)
                self.draw()
                return
        if event.key == "l":
            codes = list(LANGUAGES)
            look.language = codes[(codes.index(self.app.speech.code) + 1) % len(codes)]
            settings.save(self.app)
            self.app.apply_language()
            self.draw()
            if self.app.speech.rtl and look.text_mode is None:
                self.app.push_screen(TextModeScreen(), lambda _=None: self.draw())
            return
        if event.key == "k":
            self.app.push_screen(TextModeScreen(), lambda _=None: self.draw())
            return
        if event.key in ("escape", "q", "enter", "o"):
            self.dismiss(None)
