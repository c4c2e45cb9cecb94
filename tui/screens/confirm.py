from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from rich.text import Text
from textual.binding import Binding

from ..i18n import N_
from ..widgets.lines import Lines
from .frame import DialogScreen

if TYPE_CHECKING:
    from textual.app import ComposeResult


class ConfirmScreen(DialogScreen[bool]):
    """A yes/no question; ``question`` is already in the player's language (one
    line, or lines separated by newlines)."""

    BINDINGS = [
        Binding("y", "answer(True)", show=False, id="confirm.yes"),
        Binding("n", "answer(False)", show=False, id="confirm.no"),
        Binding("escape", "answer(False)", show=False, id="confirm.cancel"),
    ]
    KEYS = [("y", N_("yes")), ("n", N_("no"))]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def parts(self) -> ComposeResult:
        yield Lines(None, id="question")

    def paint(self) -> None:
        width = self.inside
        # Wrapped to the dialog (a long question was cut at its edge before).
        self.set_block("question", [Text(part, style="bold")
                                    for line in self.question.split("\n")
                                    for part in textwrap.wrap(line, width) or [""]])

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
