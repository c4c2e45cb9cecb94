"""Two small dialogs of the lobby: join a private table by its code, and take
a computer player's seat."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Input

from engine.room import RoomError, Table

from ..host import host
from ..i18n import N_, Speech
from ..sentences import say
from ..widgets.lines import Lines
from .frame import DialogScreen

if TYPE_CHECKING:
    from textual.app import ComposeResult


class JoinCodeScreen(DialogScreen[Table]):
    """Type a table's code; dismissed with the table once the code is right.
    A wrong code stays here with a message (the registry limits the tries)."""

    KEYS = [("enter", N_("join")), ("esc", N_("back"))]
    # What the dialog says (marked): its title, and what to type.
    TITLE_WORDS = (N_("Join a private table"), N_("Type the code its creator gave you"))

    async def find(self, member: Any, code: str) -> Any:
        """What the code names (RoomError if nothing): here a private table."""
        registry = host(self).registry
        if not registry.knows_code(code):
            # A room of several processes: made through another a moment ago, it
            # may not be listed here yet (its row is read first).
            member.code_guard.check()
            await registry.refresh(code=code)
        return registry.find_code(member, code)

    def parts(self) -> ComposeResult:
        yield Lines(None, id="code-text")
        # Only what a code can hold: the Input refuses anything else as typed.
        speech = self.speech
        code = Input(id="code-input", max_length=16, restrict=r"[A-Za-z0-9 -]*",
                     placeholder=speech.show(speech._("e.g. {code}").format(
                         code="K7QM-R2XD")))
        code.cursor_blink = False
        yield code
        yield Lines(None, id="code-status")

    def on_mount(self) -> None:
        self.query_one("#code-input", Input).focus()    # (then the frame draws)

    def paint(self) -> None:
        _ = self.speech._
        width = self.inside
        lines: list[Text | str] = [Text(" " + _(self.TITLE_WORDS[0]), style="bold"), ""]
        for said in (_(self.TITLE_WORDS[1]),
                     _("(capitals and dashes do not matter).")):
            lines += [" " + part for part in textwrap.wrap(said, width - 2) or [said]]
        self.set_block("code-text", lines)

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        app = host(self)
        box = self.query_one("#code-input", Input)
        try:
            table = await self.find(app.member, event.value)
        except RoomError as exc:
            box.value = ""
            # The dialog is 80 columns at most: wrap rather than cut the reason short.
            self.refuse("code-status", app.speech.error(exc), min(59, self.inside - 5))
            return
        self.dismiss(table)


class TakeSeatScreen(DialogScreen[int]):
    """Choose which computer player's seat to take at ``table``; dismissed with
    the seat number, or None (Esc)."""

    BINDINGS = [
        Binding("0", "choose(0)", show=False, id="take.seat0"),
        Binding("1", "choose(1)", show=False, id="take.seat1"),
        Binding("2", "choose(2)", show=False, id="take.seat2"),
        Binding("3", "choose(3)", show=False, id="take.seat3"),
    ]

    def __init__(self, table, full: bool = False) -> None:
        super().__init__()
        self.table = table
        self.full = full        # came here by a code to a table with no free seat

    def seats(self) -> list[int]:
        return [i for i, s in enumerate(self.table.seats) if s.kind == "bot"]

    def parts(self) -> ComposeResult:
        yield Lines(None, id="take-text")
        yield Lines(id="take-status")

    def keys(self) -> list[tuple[str, str]]:
        return [("0-3", N_("seat")), ("esc", N_("watch") if self.full else N_("back"))]

    def paint(self) -> None:
        speech = self.speech
        width = self.inside
        _ = speech._
        table = self.table
        lines: list[Text | str] = [
            Text(" " + part, style="bold") for part in textwrap.wrap(
                _("Take a computer player's seat at table #{table}").format(table=table.id),
                width - 2)]
        lines.append("")
        if self.full:
            lines += [" " + part for part in textwrap.wrap(
                _("The table is full: take a seat, or Esc to watch."), width - 2)] + [""]
        for i in self.seats():
            t = Text()
            t.append(f"  {i}  ", style="bold reverse")
            t.append(" " + _("{name} (computer)").format(name=table.seats[i].label))
            lines.append(t)
        lines.append("")
        if table.status == "playing":
            lines += [Text(" " + line, style="dim") for line in textwrap.wrap(_(
                "During a round you take the seat when the round ends; the match then "
                "no longer counts for level points."), min(60 if speech.rtl else 64,
                                                            width - 2))]
        else:
            lines += [Text(" " + line, style="dim") for line in textwrap.wrap(_(
                "The match has not started: it still counts for level points."), width - 2)]
        self.set_block("take-text", lines)

    def action_choose(self, seat: int) -> None:
        if seat not in self.seats():
            speech = self.speech
            self.set_block("take-status", [Text(
                speech._("Seat {seat} is not a computer player's.").format(seat=seat),
                style="bold red")])
            return
        self.dismiss(seat)


def take_seat(table, member, seat: int, speech: Speech | None = None) -> str:
    """Ask the table for ``seat``; the sentence that tells the person what happens
    (in ``speech``'s language). RoomError if refused."""
    speech = speech or Speech()
    label = table.seats[seat].label
    if table.take_seat(member, seat):
        return speech._("You take seat {seat} ({name}) at table #{table}.").format(
            seat=seat, name=label, table=table.id)
    return say(speech, table.request_text(seat))
