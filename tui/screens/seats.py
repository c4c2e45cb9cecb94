"""Two small dialogs of the lobby: join a private table by its code, and take
a computer player's seat."""

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

from server.room import RoomError, Table

from ..widgets.lines import KeyBar, Lines

if TYPE_CHECKING:

    from ..app import LammaApp


class JoinCodeScreen(ModalScreen[Table]):
    """Type a table's code; dismissed with the table once the code is right.
    A wrong code stays here with a message (the registry limits the tries)."""

    if TYPE_CHECKING:
        app = getters.app(LammaApp)

    BINDINGS = [Binding("escape", "cancel", show=False, id="code.back")]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Lines(None, id="code-text")
            # Only what a code can hold: the Input refuses anything else as typed.
            code = Input(id="code-input", max_length=16, restrict=r"[A-Za-z0-9 -]*",
                         placeholder="e.g. K7QM-R2XD")
            code.cursor_blink = False
            yield code
            yield Lines(None, id="code-status")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.query_one("#code-text", Lines).set(Text.assemble(
            (" Join a private table\n\n", "bold"),
            " Type the code its creator gave you\n (capitals and dashes do not matter)."))
        self.query_one("#keys", KeyBar).show([("enter", "join"), ("esc", "back")])
        self.query_one("#code-input", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        app = self.app
        box = self.query_one("#code-input", Input)
        try:
            table = app.registry.find_code(app.member, event.value)
        except RoomError as exc:
            box.value = ""
            # The dialog is 80 columns at most: wrap rather than cut the reason short.
            reason = textwrap.fill(str(exc), 60, initial_indent=" ", subsequent_indent=" ")
            self.query_one("#code-status", Lines).set(Text(reason, style="bold red"))
            return
        self.dismiss(table)

    def action_cancel(self) -> None:
        self.dismiss(None)


class TakeSeatScreen(ModalScreen[int]):
    """Choose which computer player's seat to take at ``table``; dismissed with
    the seat number, or None (Esc)."""

    if TYPE_CHECKING:
        app = getters.app(LammaApp)

    BINDINGS = [
        Binding("0", "choose(0)", show=False, id="take.seat0"),
        Binding("1", "choose(1)", show=False, id="take.seat1"),
        Binding("2", "choose(2)", show=False, id="take.seat2"),
        Binding("3", "choose(3)", show=False, id="take.seat3"),
        Binding("escape", "cancel", show=False, id="take.back"),
    ]

    def __init__(self, table, full: bool = False) -> None:
        super().__init__()
        self.table = table
        self.full = full        # came here by a code to a table with no free seat

    def seats(self) -> list[int]:
        return [i for i, s in enumerate(self.table.seats) if s.kind == "bot"]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Lines(None, id="take-text")
            yield Lines(id="take-status")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        table = self.table
        t = Text()
        t.append(f" Take a computer player's seat at table #{table.id}\n\n", style="bold")
        if self.full:
            t.append(" The table is full: take a seat, or Esc to watch.\n\n")
        for i in self.seats():
            t.append(f"  {i}  ", style="bold reverse")
            t.append(f" {table.seats[i].label} (computer)\n")
        t.append("\n")
        if table.status == "playing":
            t.append(" During a round you take the seat when the round ends; the match\n"
                     " then no longer counts for level points.", style="dim")
        else:
            t.append(" The match has not started: it still counts for level points.",
                     style="dim")
        self.query_one("#take-text", Lines).set(t)
        self.query_one("#keys", KeyBar).show(
            [("0-3", "seat"), ("esc", "watch" if self.full else "back")])

    def action_choose(self, seat: int) -> None:
        if seat not in self.seats():
            self.query_one("#take-status", Lines).set(
                Text(f"Seat {seat} is not a computer player's.", style="bold red"))
            return
        self.dismiss(seat)

    def action_cancel(self) -> None:
        self.dismiss(None)


def take_seat(table, member, seat: int) -> str:
    """Ask the table for ``seat``; the sentence that tells the person what happens.
    RoomError if refused."""
    label = table.seats[seat].label
    if table.take_seat(member, seat):
        return f"You take seat {seat} ({label}) at table #{table.id}."
    return table.request_text(seat)
