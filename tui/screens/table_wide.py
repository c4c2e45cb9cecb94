"""The table where the room allows (issue 26): from ``WIDE_W``×``WIDE_H`` (sizes.py) the
standard 80×24 picture, and what it keeps behind a key on a smaller window beside and
under it: beside it (at its right; at its left in an Arabic interface) what was said at
the table, the newest at the bottom, and the chat; under it the score sheet, its last
rounds and the totals. The footer stays on the last row.

Everything in the picture is where the standard layout has it (its taps and a move's
echo too), moved as a whole; the panel is drawn from the same scene.
"""

from __future__ import annotations

from functools import partial

from rich.text import Text

from ..widgets.board import BLANK
from .sheet import sheet_body, sheet_ends
from .table_chat import CHAT_Y
from .table_draw import FOCUS
from .table_scene import Scene, said_lines
from .table_text import (
    Cell,
    Frame,
    H,
    Placed,
    W,
    arabic,
    cells_row,
    fit,
    footer_hits,
    join,
    right_align,
    wrap,
)

PANEL_MIN = 30          # the panel's columns at least (120 less the picture and a gap)
PANEL_MAX = 60          # and at most: a wider window centres the whole
CHAT_SHARE = 3          # the chat takes at most a third of the panel's rows
SEPARATOR = Text("│", style="dim")


def panel_width(width: int) -> int:
    return max(PANEL_MIN, min(PANEL_MAX, width - W - 1))


def origin(width: int, rtl: bool) -> tuple[int, int, int]:
    """On a wide board ``width`` wide: the panel's columns, the column the whole starts
    at (a wider window centres it), and where the standard picture starts in a line
    (after the panel and its separator in an Arabic interface)."""
    pw = panel_width(width)
    return pw, max(0, (width - W - 1 - pw) // 2), pw + 1 if rtl else 0


def picture_x(width: int, rtl: bool) -> int:
    """The column the standard picture starts at on a wide board: the chat box goes
    under it there, as under the standard picture."""
    _, x0, dx = origin(width, rtl)
    return x0 + dx


def draw_wide(frame: Frame, sc: Scene, width: int, height: int,
              chat: tuple[tuple[str, str], ...]) -> Placed:
    """``frame`` (the standard picture) on a board of ``width``×``height``, the panel of
    what was said and the chat beside it, the score sheet under it, ``chat`` the last
    lines of the chat the player sees."""
    pw, x0, dx = origin(width, sc.rtl)
    rows = height - 1
    left = list(frame.lines[:H - 1]) + sheet_lines(sc, rows - (H - 1))
    # The chat is the panel's, wrapped there: not again in the picture, cut at its 80
    # columns.
    left[CHAT_Y:CHAT_Y + 2] = [BLANK, BLANK]
    left += [BLANK] * (rows - len(left))
    panel = panel_lines(sc, pw, rows, chat)
    lines: list[Text] = []

    def row(table_line: Text, said: Text) -> Text:
        if sc.rtl:
            return join(fit(said, pw), SEPARATOR, fit(table_line, W))
        return join(fit(table_line, W), SEPARATOR, fit(said, pw))

    for i in range(rows):
        # the same objects as last frame: the same line (the board then skips it)
        table_line, said = left[i], panel[i]
        lines.append(sc.cache.kept(f"wide{i}", (table_line, said, sc.rtl, pw),
                                   partial(row, table_line, said)))
    footer = frame.footer
    if sc.rtl:                              # (an Arabic footer starts at the right)
        footer = sc.cache.kept("wide-footer", (footer, pw),
                               lambda: right_align(sc.speech, frame.footer, W + 1 + pw))
    lines.append(footer)
    hits = tuple(h.moved(x0 + dx) for h in frame.hits)
    hits += footer_hits(frame.footer, height - 1, x0 + dx)
    return Placed(lines, hits, x=x0, focus=FOCUS)


def sheet_lines(sc: Scene, room: int) -> list[Text]:
    """The score sheet in ``room`` rows under the picture: a blank row, its columns'
    head, the last rounds that fit, the totals (nothing before the first deal)."""
    if room < 4 or sc.view is None:
        return []
    # (a round's record never changes once in the history: how many there are says it)
    key = ("w-sheet", room, sc.look_key, sc.speech.code, sc.speech.mode, sc.facts.seats,
           sc.facts.id, len(sc.view.get("history") or ()), tuple(sc.view.get("totals") or ()))
    hit = sc.cache.section(key)
    if hit is not None:
        return list(hit)
    names = [sc.facts.name(s, you=False) for s in range(4)]
    hdr, tot = sheet_ends(sc.speech, sc.view, names)
    body = sheet_body(sc.speech, sc.look, sc.view)[-(room - 3):]
    out = [BLANK, hdr, *body, tot]
    if sc.rtl:
        out = [line if line is BLANK else right_align(sc.speech, line, W) for line in out]
    return list(sc.cache.keep(key, tuple(out)))


def trick_lines(sc: Scene, pw: int) -> list[Text]:
    """This round's finished tricks, a line each: its number, its cards in the order
    played (one's own marked *), who took it."""
    v = sc.view
    tricks = (v.get("tricks") or []) if v is not None else []
    look, seat = sc.look, sc.facts.seat
    out: list[Text] = []
    for i, trick in enumerate(tricks, start=1):
        cards = " ".join(look.card_str(c["card"]) + ("*" if c["seat"] == seat else "")
                         for c in trick["cards"])
        taker = sc.name(trick["winner"], you=False)
        if sc.rtl:
            out.append(right_align(sc.speech, cells_row(sc.speech, [
                # the arrow a cell of its own: it stays between the cards and the name
                # whichever script the name is in
                Cell(f"{i:>2}.", 4), Cell(cards, 20), Cell("←", 2), Cell(taker, pw - 27)]),
                pw))
        else:
            out.append(Text(f"{i:>2}. {cards:<19} → {taker}"[:pw], no_wrap=True))
    return out


def panel_lines(sc: Scene, pw: int, rows: int, chat: tuple[tuple[str, str], ...]
                ) -> list[Text]:
    """The panel, ``rows`` lines of ``pw`` cells: what was said at the table (its head,
    then the newest lines that fit, the newest in bold); this round's tricks so far;
    the chat (its head, then its last lines, at most a third of the rows); a blank
    line between them."""
    facts = sc.facts
    v = sc.view
    key = ("w-panel", pw, rows, sc.look_key, sc.speech.code, sc.speech.mode, facts.events,
           chat, None if v is None else (v.get("round"), len(v.get("tricks") or [])))
    hit = sc.cache.section(key)
    if hit is not None:
        return list(hit)
    _ = sc._
    said: list[Text] = []
    events = [t for _r, t in facts.events if sc.told(t)]
    for i, text in enumerate(events):
        style = "bold" if i == len(events) - 1 else "dim"
        said += said_lines(sc, Text(" " + sc.narrate(text), style=style), pw, 3)
    talk: list[Text] = []
    for who, text in chat:
        t = Text(" ")
        t.append(sc.say(who) + ": ", style=sc.look.style("bold cyan"))
        t.append(sc.say(text))
        if sc.rtl and not (arabic(who) or arabic(text)):
            # no Arabic in it: left to right as it was written, at the panel's right
            talk += [right_align(sc.speech, part, pw) for part in wrap(t, pw - 1)[:4]]
        else:
            talk += said_lines(sc, t, pw, 4)
    if not talk:
        talk = [sc.line(Text("   " + _("Nobody has said anything yet."), style="dim"), pw)]
    chat_rows = min(1 + len(talk), max(2, rows // CHAT_SHARE))
    head_said = sc.line(Text(" " + _("What was said at the table"), style="bold underline"),
                        pw)
    head_chat = sc.line(Text(" " + sc.speech.pgettext("key", "chat"), style="bold underline"),
                        pw)
    tricks = trick_lines(sc, pw)
    if tricks:
        # the tricks under what was said, the latest that fit with three lines said
        room = max(0, rows - chat_rows - 1 - 5 - 1)
        tricks = [sc.line(Text(" " + (_("This hand's tricks") if sc.terms.hands else _("This round's tricks")), style="bold underline"), pw),
                  *tricks[-room:]] if room >= 1 else []
    room = max(0, rows - chat_rows - 2 - (len(tricks) + 1 if tricks else 0))
    out = [head_said, *(said[-room:] if room else [])]
    if tricks:
        out += [BLANK, *tricks]
    out += [BLANK] * (rows - chat_rows - len(out))
    out += [head_chat, *talk[-(chat_rows - 1):]]
    return list(sc.cache.keep(key, tuple(out[:rows])))
