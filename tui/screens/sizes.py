"""The window sizes the room draws for (issue 26), and what it says below them.

Every screen works from ``MIN_W``×``MIN_H`` (a phone in portrait) up: the compact
layout under ``STD_W`` columns or under ``STD_H`` rows, the standard one from
``STD_W``×``STD_H``, a wide one from ``WIDE_W``×``WIDE_H`` where a screen has one.
Below the smallest, a screen asks for a larger window and says the size it needs.
A screen picks its layout from the size each time it draws, so a resize switches at
once.
"""

from __future__ import annotations

import textwrap

from rich.text import Text

from ..i18n import N_, Speech

MIN_W, MIN_H = 40, 20           # the smallest window every screen holds
STD_W, STD_H = 80, 24           # the standard layout (the table's picture is 80×24)
WIDE_W, WIDE_H = 120, 30        # the wide layout, where a screen has one

SMALL, COMPACT, STANDARD, WIDE = "small", "compact", "standard", "wide"

ENLARGE = N_("Please enlarge the window to at least {size}.")
NOW = N_("(now {size})")


def layout(width: int, height: int) -> str:
    """The layout for a window (or a screen's area) of ``width``×``height``."""
    if width < MIN_W or height < MIN_H:
        return SMALL
    if width < STD_W or height < STD_H:
        return COMPACT
    if width >= WIDE_W and height >= WIDE_H:
        return WIDE
    return STANDARD


def size_text(width: int, height: int) -> str:
    return f"{width}×{height}"


def enlarge_lines(width: int, height: int, speech: Speech | None = None,
                  need: tuple[int, int] = (MIN_W, MIN_H)) -> list[Text]:
    """A window too small for the room: the request to enlarge it (the size it needs,
    and the size it is), wrapped to the window and in the middle of it."""
    sp = speech or Speech()
    room = max(1, width - 2)
    lines: list[Text] = []
    for message, size, style in ((ENLARGE, size_text(*need), "bold"),
                                 (NOW, size_text(width, height), "dim")):
        said = sp._(message)
        for part in textwrap.wrap(said, room) or [said]:
            if "{size}" in part:
                # a size is kept whole, left to right (bidi would turn 40×20 around)
                text = Text(style=style)
                before, _, after = part.partition("{size}")
                text.append(before)
                text.append(size, style=style)
                text.append(after)
            else:
                text = Text(part.replace("{size}", size), style=style)
            shown = sp.line(text, 0) if sp.rtl else text
            pad = max(0, (width - shown.cell_len) // 2)
            lines.append(Text(" " * pad) + shown)
    top = max(0, (height - len(lines)) // 2)
    return [Text("")] * top + lines
