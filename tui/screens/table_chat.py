"""The chat's last lines, in the standard picture and the compact layout.
"""

from __future__ import annotations

from rich.text import Text

from ..widgets.board import BLANK
from .table_scene import Scene
from .table_text import W, arabic, fit, right_align


# ----------------------------------------------------------------------- chat
def chat_lines(sc: Scene) -> list[Text]:
    out = []
    for who, text in sc.facts.chat[-2:]:
        if sc.rtl:
            out.append(rtl_chat_line(sc, who, text))
            continue
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(f" {sc.say(who)}: ", style=sc.look.style("bold cyan"))
        t.append(sc.say(text))
        out.append(sc.line(t))
    return [*out, BLANK, BLANK][:2]


def rtl_chat_line(sc: Scene, who: str, text: str) -> Text:
    """A chat line of an Arabic interface, read from the right: the name, its colon,
    the words. A name or words without Arabic are kept left to right; the colon
    goes with the part that has Arabic, so it sits between the two once mirrored.
    A line without any Arabic stays as it is, right-aligned."""
    name = sc.look.style("bold cyan")
    t = Text(no_wrap=True)
    if not (arabic(who) or arabic(text)):
        t.append(f" {who}: ", style=name)
        t.append(text)
        return right_align(sc.speech, t, W)
    t.append(" ")
    if arabic(text):
        t.append(who, style=name)
        t.append(": " + text)
    else:
        t.append(who + ": ", style=name)
        t.append(text)
    return sc.line(t)


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
