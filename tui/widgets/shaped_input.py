"""A text box that shows what is typed as the player's terminal needs it.

Textual's ``Input`` draws its value as typed (reading order, letters unjoined): on a
terminal without bidi support Arabic typed into the chat would show reversed and
broken while it is typed, though every chat line is drawn shaped once sent. This one
draws its value through the session's ``Speech.show`` (nothing changes for text without
Arabic, or in logical mode). The value itself is untouched: what is sent is what was
typed. The cursor keeps its place in the value (so inside shaped Arabic it stands where
the letter is in reading order, not where it is drawn).

Relies on ``Input._value`` (the value as the Text that ``render_line`` draws and
measures) being a property that Textual reads on each render.
"""

from __future__ import annotations

from typing import Any, cast

from rich.text import Text
from textual.widgets import Input


class ShapedInput(Input):
    @property
    def _value(self) -> Text:
        text = cast(Any, Input)._value.fget(self)
        if self.password or self.value.isascii():
            return text
        speech = getattr(self.app, "speech", None)
        if speech is None:
            return text
        shown = speech.show(self.value)
        if shown == self.value:
            return text
        return Text(shown, no_wrap=True, overflow="ignore", end="")
