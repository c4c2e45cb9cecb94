from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen

from ..widgets.lines import KeyBar, Lines


class ConfirmScreen(ModalScreen[bool]):
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
        self.query_one("#question", Lines).set(Text(self.question, style="bold"))
        self.query_one("#keys", KeyBar).show([("y", "yes"), ("n", "no")])

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
