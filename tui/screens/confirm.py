from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen

from ..host import host
from ..i18n import N_
from ..widgets.lines import KeyBar, Line, Lines, TapLinesMixin
from .words import block, dialog_width, said_keys, too_small_text

if TYPE_CHECKING:
    pass

KEYS = [("y", N_("yes")), ("n", N_("no"))]


class ConfirmScreen(TapLinesMixin, ModalScreen[bool]):
    """A yes/no question; ``question`` is already in the player's language (one
    line, or lines separated by newlines)."""


    BINDINGS = [
        Binding("y", "answer(True)", show=False, id="confirm.yes"),
        Binding("n", "answer(False)", show=False, id="confirm.no"),
        Binding("escape", "answer(False)", show=False, id="confirm.cancel"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Lines(None, id="question")
        yield Line(id="too-small")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.draw()

    def on_resize(self, event: events.Resize) -> None:
        self.draw()

    def draw(self) -> None:
        speech = host(self).speech
        self.query_one("#too-small", Line).set(too_small_text(speech, *host(self).size))
        width = dialog_width(host(self).size.width)
        # Wrapped to the dialog (a long question was cut at its edge before).
        lines = [Text(part, style="bold") for line in self.question.split("\n")
                 for part in textwrap.wrap(line, width) or [""]]
        self.query_one("#question", Lines).set(block(speech, lines, width))
        self.query_one("#keys", KeyBar).show(said_keys(speech, KEYS), speech)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
