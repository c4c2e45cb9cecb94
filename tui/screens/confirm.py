from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from rich.text import Text
from textual import getters
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen

from ..i18n import N_
from ..widgets.lines import KeyBar, Lines
from .words import block, said_keys

if TYPE_CHECKING:
    from ..app import LammaApp

DIALOG = 64             # the dialog's inside: 70 columns less its border and padding
KEYS = [("y", N_("yes")), ("n", N_("no"))]


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question; ``question`` is already in the player's language (one
    line, or lines separated by newlines)."""

    if TYPE_CHECKING:
        app = getters.app(LammaApp)

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
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.draw()

    def draw(self) -> None:
        speech = self.app.speech
        # Wrapped to the dialog (a long question was cut at its edge before).
        lines = [Text(part, style="bold") for line in self.question.split("\n")
                 for part in textwrap.wrap(line, DIALOG) or [""]]
        self.query_one("#question", Lines).set(block(speech, lines, DIALOG))
        self.query_one("#keys", KeyBar).show(said_keys(speech, KEYS), speech)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
