"""Display options, kept per player: ASCII suits, monochrome, English terms
only, reduce motion."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events

from .. import settings
from ..arabic import term_said
from ..host import host
from ..i18n import LANGUAGE_NAMES, LANGUAGES, N_
from .frame import BoardScreen
from .table_compact import wrap
from .textmode import TextModeScreen
from .words import lay

if TYPE_CHECKING:
    from ..widgets.board import Board

OPTIONS = [
    ("a", "unicode", N_("ASCII suits (S H D C) instead of ♠ ♥ ♦ ♣"), True),
    ("m", "colour", N_("Monochrome (no colours)"), True),
    ("e", "english_only", N_("English terms only (no Arabic names such as {dash})"), False),
    ("r", "reduce_motion", N_("Reduce motion (a finished trick does not move)"), False),
]


class OptionsScreen(BoardScreen):

    def paint(self, board: Board) -> list[Text]:
        look = host(self).look
        speech = host(self).speech
        _ = speech._
        rtl = speech.rtl
        lines = [Text(" " + _("Options (kept for your name)"), style="bold reverse"), Text("")]
        for key, attr, label, inverted in OPTIONS:
            on = getattr(look, attr) != inverted
            t = Text("  ")
            t.append(f" {key} ", style="bold reverse")
            # Arabic: the box is a run of its own, so that it stays [x] (not mirrored).
            t.append(f"  [{'x' if on else ' '}] ", style="bold" if rtl else "")
            # (the English word and its Arabic held together where a line is wrapped)
            # (laid out whole below: the Arabic in reading order, shaped once there)
            dash = term_said("dash", "Dash", speech=speech)
            t.append(_(label).format(dash=dash))
            lines.append(t)
        lines += [Text(""), Text("  " + _("Example:") + " ")]
        lines[-1].append_text(look.card("AS"))
        lines[-1].append(" ")
        lines[-1].append_text(look.card("QH"))
        lines[-1].append(" ")
        lines[-1].append_text(look.card("TD"))
        lines[-1].append(" ")
        lines[-1].append_text(look.card("7C"))
        with_ = term_said("with", "With", look.english_only, speech)
        lines[-1].append("   " + with_)
        lines += [Text("")]
        t = Text("  ")
        t.append(" l ", style="bold reverse")
        t.append("  " + _("Language:") + " " + " / ".join(
            (f"[{LANGUAGE_NAMES[c]}]" if c == speech.code else LANGUAGE_NAMES[c])
            for c in LANGUAGES))
        lines.append(t)
        t = Text("  ")
        t.append(" k ", style="bold reverse")
        t.append("  " + _("Arabic text:") + " " + (_("joined here") if speech.shaped
                                                  else _("joined by the terminal")))
        lines.append(t)
        keys = Text(" esc ", style="bold reverse")
        keys.append(" " + _("back") + "  ")
        keys.append(" a m e r ", style="bold reverse")
        keys.append(" " + _("switch"))
        h = board.size.height
        width = board.size.width or 80
        # a line longer than the window (a phone) goes on under its words
        lines = [lay(speech, part, width) for line in lines
                 for part in wrap(line, width - 1, " " * 10)]
        return lines + [Text("")] * max(0, h - len(lines) - 1) + [lay(speech, keys, width)]

    def on_key(self, event: events.Key) -> None:
        event.stop()
        look = host(self).look
        for key, attr, _, _ in OPTIONS:
            if event.key == key:
                setattr(look, attr, not getattr(look, attr))
                settings.save(host(self))
                self.draw()
                return
        if event.key == "l":
            codes = list(LANGUAGES)
            look.language = codes[(codes.index(host(self).speech.code) + 1) % len(codes)]
            settings.save(host(self))
            host(self).apply_language()
            self.draw()
            if host(self).speech.rtl and look.text_mode is None:
                host(self).push_screen(TextModeScreen(), lambda _=None: self.draw())
            return
        if event.key == "k":
            host(self).push_screen(TextModeScreen(), lambda _=None: self.draw())
            return
        if event.key in ("escape", "q", "enter", "o"):
            self.dismiss(None)
