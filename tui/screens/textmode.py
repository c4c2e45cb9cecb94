"""How Arabic is drawn on this player's terminal, chosen once on a test line.

Shown when Arabic is first chosen (the client's locale or the options screen),
and again from the options screen. The same sentence is drawn both ways; the one
that reads correctly says which mode fits the terminal (tui.i18n: ``shaped`` for
terminals without bidi support, ``logical`` for those that do their own)."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual import events

from .. import settings
from ..host import host
from ..i18n import N_, Speech
from .frame import BoardScreen
from .words import lay

if TYPE_CHECKING:
    from ..widgets.board import Board

# Both lines say the same: "this line reads correctly: press <n>". Not in the
# catalogue: they are the test itself, the same in every language.
TEST_LINE = "هذا السطر يُقرأ صحيحًا: اضغط {n}"
MODES = {"1": "shaped", "2": "logical"}
# The instructions, also in the player's language (English stays for whoever cannot
# read that yet: the two test lines are the test).
ASK = N_("Which line below reads correctly, right to left, with joined letters? "
         "Press its number (1 or 2).")
SAID_1 = N_("1: the server joins and orders Arabic (xterm, tmux, Windows Terminal…).")
SAID_2 = N_("2: the terminal does it (GNOME Terminal, Konsole, mlterm).")
SAID_LATER = N_("The options screen (o) changes it later.")


class TextModeScreen(BoardScreen):

    def paint(self, board: Board) -> list[Text]:
        """English for whoever cannot read the Arabic yet, and the same in Arabic
        (drawn in the mode in force: the right line below says which mode that is)."""
        width = board.size.width or 80
        speech = host(self).speech
        _ = speech._
        both = speech.code != "en"

        def pair(message: str) -> list[Text]:
            lines = [Text(" " + part) for part in textwrap.wrap(message, width - 2)]
            if both:
                lines += [lay(speech, Text(" " + part), width - 1)
                          for part in textwrap.wrap(_(message), width - 2)]
            return lines

        title = Text(" Arabic on this terminal", style="bold reverse")
        lines = [title]
        if both:
            shown = speech.show(_("Arabic on this terminal") + " ")
            gap = max(2, width - 1 - cell_len(title.plain) - cell_len(shown))
            if cell_len(title.plain) + gap + cell_len(shown) < width:
                title.append(" " * gap + shown, style="bold reverse")
            else:                       # a narrow window: the Arabic on a row of its own
                lines.append(Text(" " * max(0, width - 1 - cell_len(shown)))
                             + Text(shown, style="bold reverse"))
        lines.append(Text(""))
        lines += [Text(" " + line) for line in textwrap.wrap(ASK, min(61, width - 2))]
        if both:
            lines += [lay(speech, Text(" " + line), width - 1)
                      for line in textwrap.wrap(_(ASK), min(76, width - 4))]
        lines.append(Text(""))
        for n, mode in MODES.items():
            t = Text("")
            t.append(f" {n} ", style="bold reverse")
            t.append("  ")
            t.append(TEST_LINE.format(n=n))
            lines.append(Speech("ar", mode).line(t, width - 2))
            lines.append(Text(""))
        meaning = pair(SAID_1) + pair(SAID_2)        # what each number means
        later = pair(SAID_LATER)
        keys = Text(" 1 2 ", style="bold reverse")
        keys.append(" choose  ")
        keys.append(" esc ", style="bold reverse")
        keys.append(" " + "later")
        footer = [keys]
        if both:
            said = speech.line(Text(_("1 or 2: choose · esc: later")), 0)
            gap = max(2, width - 1 - cell_len(keys.plain) - cell_len(said.plain))
            if cell_len(keys.plain) + gap + cell_len(said.plain) < width:
                keys.append(" " * gap)
                keys.append_text(said)
            else:                       # a narrow window: the Arabic on a row of its own
                footer.append(lay(speech, Text(_("1 or 2: choose · esc: later")), width - 1))
        h = board.size.height
        room = h - len(footer)
        # A short window (a phone) keeps what each number means before the spacing
        # and the note that the options change it later.
        if len(lines) + len(meaning) + len(later) > room:
            lines = [line for line in lines if line.plain.strip()]
        lines += meaning
        if len(lines) + len(later) <= room:
            lines += later
        lines = lines[:max(1, room)]
        return lines + [Text("")] * max(0, h - len(lines) - len(footer)) + footer

    def on_key(self, event: events.Key) -> None:
        event.stop()
        mode = MODES.get(event.character or "")
        if mode is not None:
            host(self).look.text_mode = mode
            settings.save(host(self))
            host(self).apply_language()
            self.dismiss(None)
        elif event.key in ("escape", "enter"):
            self.dismiss(None)
