"""One command line from the lobby: /ignore, /report, and an operator's commands
(/who, /kick, /ban …). The room's moderator runs it and answers in words."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from rich.text import Text
from textual import getters
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input

from engine.room import RoomError

from ..i18n import N_
from ..sentences import say_lines
from ..textual_compat import ShapedInput
from ..widgets.lines import KeyBar, Lines
from .words import block, said_keys

if TYPE_CHECKING:
    from ..app import LammaApp

DIALOG = 64             # the dialog's inside: 70 columns less its border and padding
KEYS = [("enter", N_("run")), ("esc", N_("back"))]


class CommandScreen(ModalScreen[None]):
    """Type a command; its answer shows below; Esc goes back."""

    if TYPE_CHECKING:
        app = getters.app(LammaApp)

    BINDINGS = [Binding("escape", "cancel", show=False, id="command.back")]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Lines(None, id="command-text")
            box = ShapedInput(id="command-input", max_length=300, placeholder="/help")
            box.cursor_blink = False
            yield box
            yield Lines(None, id="command-reply")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.draw()
        self.query_one("#command-input", Input).focus()

    def draw(self) -> None:
        speech = self.app.speech
        _ = speech._
        self.query_one("#command-text", Lines).set(block(speech, [
            Text(" " + _("Command"), style="bold"), "",
            " " + _("/help lists what you may do.")], DIALOG))
        self.query_one("#keys", KeyBar).show(said_keys(speech, KEYS), speech)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        box = self.query_one("#command-input", Input)
        line = event.value.strip()
        box.value = ""
        if not line:
            return
        if not line.startswith("/"):
            line = "/" + line
        speech = self.app.speech
        try:
            reply = say_lines(speech, self.app.registry.moderator.command(self.app.member, line))
            style = ""
        except RoomError as exc:
            reply, style = speech.error(exc), "bold red"
        lines = []
        width = DIALOG - 2 if speech.rtl else 74       # an Arabic line is cut at its end
        for part in reply.splitlines()[:14]:        # the dialog shows a screenful at most
            lines.extend(textwrap.wrap(part, width, subsequent_indent="   ") or [""])
        if speech.rtl:
            self.query_one("#command-reply", Lines).set(block(speech, [
                Text(" " + ln, style=style) for ln in lines[:16]], DIALOG))
            return
        self.query_one("#command-reply", Lines).set(
            Text("\n".join(" " + ln for ln in lines[:16]), style=style))

    def action_cancel(self) -> None:
        self.dismiss(None)
