"""One command line from the lobby: /ignore, /report, and an operator's commands
(/who, /kick, /ban …). The room's moderator runs it and answers in words."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Input

from engine.room import RoomError

from ..host import host
from ..i18n import N_
from ..sentences import say_lines
from ..textual_compat import ShapedInput
from ..widgets.lines import Lines
from .frame import DialogScreen, arrows

if TYPE_CHECKING:
    from textual.app import ComposeResult

KEYS = [("enter", N_("run")), ("esc", N_("back"))]


class CommandScreen(DialogScreen[None]):
    """Type a command; its answer shows below; Esc goes back."""

    BINDINGS = [
        # a reply longer than the dialog holds scrolls (the box keeps ← → for the line)
        *arrows("command", "scroll", 100),
    ]
    reply: list[str] = []           # the last reply's lines, wrapped
    reply_style = ""
    top = 0                         # its first line shown where it scrolls

    def parts(self) -> ComposeResult:
        yield Lines(None, id="command-text")
        box = ShapedInput(id="command-input", max_length=300, placeholder="/help")
        box.cursor_blink = False
        yield box
        yield Lines(None, id="command-reply")

    def on_mount(self) -> None:
        self.query_one("#command-input", Input).focus()     # (then the frame draws)

    def keys(self) -> list[tuple[str, str]]:
        """The keys: ↑↓ too where the reply scrolls."""
        if len(self.reply) > self.reply_rows():
            return [KEYS[0], ("↑↓", N_("scroll")), KEYS[1]]
        return KEYS

    def paint(self) -> None:
        _ = self.speech._
        self.set_block("command-text", [Text(" " + _("Command"), style="bold"), "",
                                        " " + _("/help lists what you may do.")])
        self.show_reply()

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
        inside = self.inside
        # an Arabic line is cut at its end; an English one has the dialog's padding too
        width = inside - 2 if speech.rtl or inside < 64 else 74
        self.reply = [ln for part in reply.splitlines()
                      for ln in textwrap.wrap(part, width, subsequent_indent="   ") or [""]]
        self.reply_style, self.top = style, 0
        self.draw()             # (the keys say ↑↓ where the reply scrolls)

    def reply_rows(self) -> int:
        """The reply's rows: what the window leaves under the dialog's head and box."""
        return max(3, min(16, host(self).size.height - 14))

    def show_reply(self) -> None:
        """The reply whole where it fits; else a page of it from ``top``, the last row
        saying which lines (↑↓ a line, PgUp PgDn a page; the keys then say so)."""
        speech = self.speech
        rows = self.reply_rows()
        lines = self.reply
        if len(lines) > rows:
            page = rows - 1
            self.top = max(0, min(self.top, len(lines) - page))
            lines = [*lines[self.top:self.top + page],
                     speech._("{first}–{last} of {total}").format(
                         first=self.top + 1, last=self.top + page, total=len(self.reply))]
        if speech.rtl:
            self.set_block("command-reply", [Text(" " + ln, style=self.reply_style)
                                             for ln in lines])
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
