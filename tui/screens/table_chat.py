"""The chat's last lines, in the standard picture and the compact layout: on a terminal
wider than the picture, from its edge to the terminal's (cut only there).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from rich.text import Text

from ..widgets.board import BLANK
from .table_scene import Scene
from .table_text import H, Placed, W, arabic, fit, right_align

CHAT_Y = H - 3          # the standard picture's two chat rows: 21 and 22


def chat_span(sc: Scene, x: int, width: int, cw: int = W) -> tuple[int, int]:
    """Where a chat line starts on a board ``width`` wide whose picture (``cw`` wide)
    starts at column ``x``, and how wide it is: from the picture's own edge to the
    board's far edge (an Arabic line, read from the right, from the picture's right
    edge to the board's left), so a long line is cut only where the terminal ends."""
    return (0, x + cw) if sc.rtl else (x, width - x)


def chat_to_the_edge(sc: Scene, placed: Placed, width: int) -> Placed:
    """The standard picture ``placed`` on a board ``width`` wide, its chat rows as wide
    as the terminal lets them be (not the picture's 80 columns)."""
    x, room = chat_span(sc, placed.x, width)
    if room <= W or not sc.facts.chat:
        return placed
    lines = list(placed.lines)
    key = (sc.facts.chat[-2:], room, sc.look_key, sc.speech.code, sc.speech.mode)
    drawn: list[Text] = []

    def line(i: int) -> Text:
        drawn[:] = drawn or chat_lines(sc, room)
        return drawn[i]
    for i in range(2):      # (last frame's very lines while the chat is the same)
        lines[CHAT_Y + i] = sc.cache.kept(f"chat-edge{i}", key, partial(line, i))
    at = [placed.x] * len(lines)
    at[CHAT_Y:CHAT_Y + 2] = [x, x]
    return replace(placed, lines=lines, at=tuple(at))


# ----------------------------------------------------------------------- chat
def chat_lines(sc: Scene, width: int = W) -> list[Text]:
    """The last two chat lines, a line each, ``width`` cells (the picture's, or to the
    board's edge: ``chat_to_the_edge``)."""
    out = []
    for who, text in sc.facts.chat[-2:]:
        if sc.rtl:
            out.append(rtl_chat_line(sc, who, text, width))
            continue
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(f" {sc.say(who)}: ", style=sc.look.style("bold cyan"))
        t.append(sc.say(text))
        out.append(sc.line(t, width))
    return [*out, BLANK, BLANK][:2]


def rtl_chat_line(sc: Scene, who: str, text: str, width: int = W) -> Text:
    """A chat line of an Arabic interface, read from the right: the name, its colon,
    the words. A name or words without Arabic are kept left to right; the colon
    goes with the part that has Arabic, so it sits between the two once mirrored.
    A line without any Arabic stays as it is, right-aligned."""
    name = sc.look.style("bold cyan")
    t = Text(no_wrap=True)
    if not (arabic(who) or arabic(text)):
        t.append(f" {who}: ", style=name)
        t.append(text)
        return right_align(sc.speech, t, width)
    t.append(" ")
    if arabic(text):
        t.append(who, style=name)
        t.append(": " + text)
    else:
        t.append(who + ": ", style=name)
        t.append(text)
    return sc.line(t, width)


# ----------------------------------------------------------------------- chat
def chat_rows(sc: Scene, cw: int, room: int) -> list[Text]:
    """The last chat lines that fit (all of it: ``e``)."""
    out = []
    for who, text in sc.facts.chat[-room:]:
        t = Text(no_wrap=True)
        t.append(f" {sc.say(who)}: ", style=sc.look.style("bold cyan"))
        t.append(sc.say(text))
        out.append(sc.line(t, cw) if sc.rtl else fit(t, cw))
    return out
