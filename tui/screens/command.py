"""One command line from the lobby: /ignore, /report, and an operator's commands
(/who, /kick, /ban …). The room's moderator runs it and answers in words."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input

from engine.room import RoomError

from ..host import host
from ..i18n import N_
from ..sentences import say_lines
from ..textual_compat import ShapedInput
from ..widgets.lines import KeyBar, Line, Lines, TapLinesMixin
from .words import block, dialog_width, said_keys, too_small_text

if TYPE_CHECKING:
    pass

KEYS = [("enter", N_("run")), ("esc", N_("back"))]


class CommandScreen(TapLinesMixin, ModalScreen[None]):
    """Type a command; its answer shows below; Esc goes back."""


    BINDINGS = [
        Binding("escape", "cancel", show=False, id="command.back"),
        # a reply longer than the dialog holds scrolls (the box keeps ← → for the line)
        Binding("up", "scroll(-1)", show=False, id="command.up"),
        Binding("down", "scroll(1)", show=False, id="command.down"),
        Binding("pageup", "scroll(-100)", show=False, id="command.page_up"),
        Binding("pagedown", "scroll(100)", show=False, id="command.page_down"),
    ]
    reply: list[str] = []           # the last reply's lines, wrapped
    reply_style = ""
    top = 0                         # its first line shown where it scrolls

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Lines(None, id="command-text")
            box = ShapedInput(id="command-input", max_length=300, placeholder="/help")
            box.cursor_blink = False
            yield box
            yield Lines(None, id="command-reply")
        yield Line(id="too-small")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.draw()
        self.query_one("#command-input", Input).focus()

    def on_resize(self, event: events.Resize) -> None:
        self.draw()

    def draw(self) -> None:
        speech = host(self).speech
        self.query_one("#too-small", Line).set(too_small_text(speech, *host(self).size))
        _ = speech._
        self.query_one("#command-text", Lines).set(block(speech, [
            Text(" " + _("Command"), style="bold"), "",
            " " + _("/help lists what you may do.")], dialog_width(host(self).size.width)))
        self.show_reply()       # (and the keys)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        box = self.query_one("#command-input", Input)
        line = event.value.strip()
        box.value = ""
        if not line:
            return
        if not line.startswith("/"):
            line = "/" + line
        speech = host(self).speech
        try:
            reply = say_lines(speech, host(self).registry.moderator.command(host(self).member, line))
            style = ""
        except RoomError as exc:
            reply, style = speech.error(exc), "bold red"
        inside = dialog_width(host(self).size.width)
        # an Arabic line is cut at its end; an English one has the dialog's padding too
        width = inside - 2 if speech.rtl or inside < 64 else 74
        self.reply = [ln for part in reply.splitlines()
                      for ln in textwrap.wrap(part, width, subsequent_indent="   ") or [""]]
        self.reply_style, self.top = style, 0
        self.show_reply()

    def reply_rows(self) -> int:
        """The reply's rows: what the window leaves under the dialog's head and box."""
        return max(3, min(16, host(self).size.height - 14))

    def show_reply(self) -> None:
        """The reply whole where it fits; else a page of it from ``top``, the last row
        saying which lines (↑↓ a line, PgUp PgDn a page; the keys then say so)."""
        speech = host(self).speech
        inside = dialog_width(host(self).size.width)
        rows = self.reply_rows()
        lines = self.reply
        keys = KEYS
        if len(lines) > rows:
            keys = [KEYS[0], ("↑↓", N_("scroll")), KEYS[1]]
            page = rows - 1
            self.top = max(0, min(self.top, len(lines) - page))
            lines = [*lines[self.top:self.top + page],
                     speech._("{first}–{last} of {total}").format(
                         first=self.top + 1, last=self.top + page, total=len(self.reply))]
        self.query_one("#keys", KeyBar).show(said_keys(speech, keys), speech)
        if speech.rtl:
            self.query_one("#command-reply", Lines).set(block(speech, [
                Text(" " + ln, style=self.reply_style) for ln in lines], inside))
            return
        self.query_one("#command-reply", Lines).set(
            Text("\n".join(" " + ln for ln in lines), style=self.reply_style))

    def action_scroll(self, delta: int) -> None:
        rows = self.reply_rows()
        if len(self.reply) <= rows:
            return
        step = delta if abs(delta) == 1 else (1 if delta > 0 else -1) * max(1, rows - 2)
        self.top = max(0, self.top + step)
        self.show_reply()

    def action_cancel(self) -> None:
        self.dismiss(None)
