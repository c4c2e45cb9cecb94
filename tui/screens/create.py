"""Create a table: game, length, turn timer, visibility, computer players."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events

from engine.room import GAMES, LENGTHS, TIMERS, RoomError, ranked

from ..host import host
from ..i18n import N_
from ..widgets.lines import Lines
from .frame import DialogScreen, form_keys
from .words import game_title, length_word, pad

if TYPE_CHECKING:
    from textual.app import ComposeResult

# Lengths that are words, in the catalogue's order (already shortest first), or one alone.
UNORDERED = {game for game, lengths in LENGTHS.items()
             if not all(isinstance(n, int) for n in lengths)}
FIELDS = ["game", "length", "timer", "private", "bots", "practice"]
LABELS = {"game": N_("Game"), "length": N_("Length"), "timer": N_("Turn timer"),
          "private": N_("Visibility"), "bots": N_("Empty seats"), "practice": N_("Practice")}


class CreateScreen(DialogScreen[None]):

    BINDINGS = form_keys("create")
    KEYS = [("↑↓", N_("field")), ("←→", N_("change")), ("enter", N_("create")),
            ("esc", N_("back"))]

    def __init__(self) -> None:
        super().__init__()
        self.field = 0
        self.values = {"game": 0, "length": 0, "timer": 0, "private": 0, "bots": 0,
                       "practice": 0}
        self.values["length"] = self.default_length()
        self._rows: list[int] = []      # the field each row of the form shows (-1: none)

    def parts(self) -> ComposeResult:
        yield Lines(None, id="create-form")
        yield Lines(id="create-status")

    def options(self, field: str) -> list:
        game = list(GAMES)[self.values["game"]]
        if field == "game":
            return list(GAMES)
        if field == "length":
            # shortest to longest (← shorter, → longer); the default is chosen first
            return list(LENGTHS[game]) if game in UNORDERED else sorted(LENGTHS[game])
        if field == "timer":
            return list(TIMERS)
        if field in ("private", "practice"):
            return [False, True]
        return [True, False]

    def label(self, field: str, value) -> str:
        """A value as the player reads it (the JSON interface keeps the codes)."""
        speech = host(self).speech
        _ = speech._
        if field == "game":
            return game_title(speech, value)
        if field == "length":
            if value is None:
                return _("to 41 points")
            if isinstance(value, int):
                return speech.ngettext("{n} round", "{n} rounds", value).format(n=value)
            return length_word(speech, value)
        if field == "timer":
            return _("off") if not value else _("{n} s").format(n=value)
        if field == "private":
            return _("private (by code)") if value else _("public")
        if field == "practice":
            # the keys are said in the note under the form: a hint is h, but H while a bid
            # or a call is chosen (h is hearts there), and the value must fit a phone
            return _("yes: hints, nothing counts") if value else _("no")
        return _("computer players fill them") if value else _("wait for people")

    def value(self, field: str):
        opts = self.options(field)
        return opts[self.values[field] % len(opts)]

    def paint(self) -> None:
        """The form: each label, then its value between the arrows. In Arabic from
        the right, the value said right to left (its ◀ still at the left). Where the
        dialog is narrow (a phone) each value has a row of its own under its label."""
        speech = self.speech
        rtl = speech.rtl
        width = self.inside
        lines: list[Text | str] = [Text(" " + speech._("New table"), style="bold"), ""]
        rows = [-1, -1]
        for i, f in enumerate(FIELDS):
            many = len(self.options(f)) > 1
            label = self.label(f, self.value(f))
            if rtl:     # in reading order ▶ value ◀: shown right to left as ◀ value ▶
                shown = f"▶ {label} ◀" if many else label
            else:
                shown = f"◀ {label} ▶" if many else f"  {label}"
            name = speech._(LABELS[f])
            t = Text("  ")
            if 2 + (18 if rtl else 12) + 1 + len(shown) <= width:
                t.append(pad(name, 18 if rtl else 12) + " ",
                         style="bold" if i == self.field else "")
                t.append(shown, style="reverse" if i == self.field else "")
                lines.append(t)
                rows.append(i)
                continue
            t.append(name, style="bold" if i == self.field else "")
            lines.append(t)
            lines.append(Text("    " + shown, style="reverse" if i == self.field else ""))
            rows += [i, i]
        lines.append("")
        note = speech._(self.ranked_note())
        lines += [Text("  " + part, style="dim")
                  for part in textwrap.wrap(note, width - 3) or [note]]
        self._rows = rows
        self.set_block("create-form", lines)

    def on_click(self, event: events.Click) -> None:
        """A tap on a field chooses it; on the chosen field, its next value."""
        form = self.query_one("#create-form", Lines)
        y = event.screen_y - form.content_region.y
        if not form.content_region.contains(event.screen_x, event.screen_y) or \
                not 0 <= y < len(self._rows) or self._rows[y] < 0:
            super().on_click(event)
            return
        event.stop()
        field = self._rows[y]
        if field == self.field:
            self.action_value(1)
        else:
            self.field = field
            self.draw()

    def ranked_note(self) -> str:
        """Whether the table made would be ranked (engine.records.ranked)."""
        if self.value("practice"):
            return N_("Practice: a hint on your turn (h, or H while bidding or calling); no "
                      "statistics, no level points.")
        if self.value("bots"):
            return N_("Unranked: computer players; statistics only.")
        if ranked(self.value("game"), self.value("length")):
            return N_("Ranked: level points and badge wins, with four people throughout.")
        return N_("Unranked: statistics only (ranked Estimation is the 18-round match).")

    def action_field(self, d: int) -> None:
        self.field = (self.field + d) % len(FIELDS)
        self.draw()

    def action_value(self, d: int) -> None:
        f = FIELDS[self.field]
        self.values[f] = (self.values[f] + d) % len(self.options(f))
        if f == "game":
            self.values["length"] = self.default_length()
        self.draw()

    def default_length(self) -> int:
        """Where the game's default length (the catalogue's first) stands among them."""
        game = list(GAMES)[self.values["game"]]
        return self.options("length").index(LENGTHS[game][0])

    def action_create(self) -> None:
        app = host(self)
        try:
            table = app.registry.create(self.value("game"), self.value("length"),
                                        self.value("timer"), self.value("private"),
                                        creator=app.member,
                                        practice=self.value("practice"))
            try:
                table.sit(app.member, 0)
            except RoomError:
                app.registry.gc_table(table)    # no empty table left behind
                raise
            if self.value("bots"):
                table.fill_with_bots(app.member)     # the creator's choice
        except RoomError as exc:
            self.refuse("create-status", app.speech.error(exc))
            return
        app.pop_screen()
        app.open_table()
