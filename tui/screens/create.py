"""Create a table: game, length, turn timer, visibility, computer players."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import getters
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen

from server.room import GAMES, LENGTHS, TIMERS, RoomError, title

from ..widgets.lines import KeyBar, Lines

if TYPE_CHECKING:
    from ..app import LammaApp

FIELDS = ["game", "length", "timer", "private", "bots"]
LABELS = {"game": "Game", "length": "Length", "timer": "Turn timer",
          "private": "Visibility", "bots": "Empty seats"}


class CreateScreen(ModalScreen[None]):
    if TYPE_CHECKING:
        app = getters.app(LammaApp)

    BINDINGS = [
        Binding("up", "field(-1)", show=False, id="create.previous_field"),
        Binding("down", "field(1)", show=False, id="create.next_field"),
        Binding("left", "value(-1)", show=False, id="create.previous_value"),
        Binding("right", "value(1)", show=False, id="create.next_value"),
        Binding("space", "value(1)", show=False, id="create.next_value_space"),
        Binding("enter", "create", show=False, id="create.create"),
        Binding("escape", "cancel", show=False, id="create.cancel"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.field = 0
        self.values = {"game": 0, "length": 0, "timer": 0, "private": 0, "bots": 0}

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Lines(None, id="create-form")
            yield Lines(id="create-status")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.query_one("#keys", KeyBar).show(
            [("↑↓", "field"), ("←→", "change"), ("enter", "create"), ("esc", "back")])
        self.draw()

    def options(self, field: str) -> list:
        game = list(GAMES)[self.values["game"]]
        if field == "game":
            return list(GAMES)
        if field == "length":
            return list(LENGTHS[game])
        if field == "timer":
            return list(TIMERS)
        if field == "private":
            return [False, True]
        return [True, False]

    def label(self, field: str, value) -> str:
        if field == "game":
            return title(value)
        if field == "length":
            if value is None:
                return "to 41 points"
            return f"{value} rounds" if isinstance(value, int) else str(value)
        if field == "timer":
            return "off" if not value else f"{value} s"
        if field == "private":
            return "private (by code)" if value else "public"
        return "computer players fill them" if value else "wait for people"

    def value(self, field: str):
        opts = self.options(field)
        return opts[self.values[field] % len(opts)]

    def draw(self) -> None:
        t = Text()
        t.append(" New table\n\n", style="bold")
        for i, f in enumerate(FIELDS):
            opts = self.options(f)
            t.append(f"  {LABELS[f]:<12} ", style="bold" if i == self.field else "")
            label = self.label(f, self.value(f))
            arrow_l = "◀ " if len(opts) > 1 else "  "
            arrow_r = " ▶" if len(opts) > 1 else ""
            style = "reverse" if i == self.field else ""
            t.append(f"{arrow_l}{label}{arrow_r}", style=style)
            t.append("\n")
        self.query_one("#create-form", Lines).set(t)

    def action_field(self, d: int) -> None:
        self.field = (self.field + d) % len(FIELDS)
        self.draw()

    def action_value(self, d: int) -> None:
        f = FIELDS[self.field]
        self.values[f] = (self.values[f] + d) % len(self.options(f))
        if f == "game":
            self.values["length"] = 0
        self.draw()

    def action_cancel(self) -> None:
        self.app.pop_screen()

    def action_create(self) -> None:
        app = self.app
        try:
            table = app.registry.create(self.value("game"), self.value("length"),
                                        self.value("timer"), self.value("private"),
                                        creator=app.member)
            try:
                table.sit(app.member, 0)
            except RoomError:
                app.registry.gc_table(table)    # no empty table left behind
                raise
            if self.value("bots"):
                table.fill_with_bots()
        except RoomError as exc:
            self.query_one("#create-status", Lines).set(Text(str(exc), style="bold red"))
            return
        app.pop_screen()
        app.open_table()
