"""The table screen's picture, as a pure function of what it shows.

``draw_table(view, state, facts, look, now)`` gives the 80×24 table: 23 lines,
the footer and where the hand's cards are (``Hit``); ``place`` puts it on a
board of any size (centred, the footer on the last row) or asks for a larger
window.  Everything comes in as arguments: the engine's ``view`` of the seat,
the screen's ``TableState``, the table's ``TableFacts`` and the player's
``Look``; ``now`` decides whether a notice or a refusal is still shown.  No
App, room or clock is read, so the picture can be tested without Pilot.

The hand rows, the footer and the score rows are the lines that come back
frame after frame: ``DrawCache`` keeps them, keyed on what they show, so a
redraw with nothing changed builds little.  The cache never changes the
result; callers must not modify the lines they get.

Layout (rows of the 80×24 table): 0 info bar, 1 note, 2–6 scores and events,
7–12 the trick (or a round summary, or the match result), 14–16 the phase
controls, 18–19 the hand, 21–22 chat, the footer on the board's last row.

Everything said is said in the player's language (``Speech``, one per session).
In an Arabic interface text lines are right-aligned and mirrored (``Scene.line``:
the first thing said at the right); tables of columns (scores, the round summary)
are mirrored column by column (``cells_row``); a label before numbers, suits or
cards is put at the right of them, and they stay left to right (``units``). The
table's geometry (who sits left, right, across) and the hand are never mirrored.
An English frame is what it always was: its code paths are the English ones.
"""

from __future__ import annotations

from rich.text import Text

from ..cards import Look
from ..i18n import Speech
from ..widgets.board import BLANK
from .table_auction import phase_hits, phase_lines
from .table_chat import chat_lines
from .table_footer import footer_line
from .table_hand import hand_rows
from .table_info import info_line, note_lines
from .table_scene import DrawCache, Scene, move_words, pretty
from .table_scores import score_lines
from .table_state import TableFacts, TableState, View
from .table_summary import (
    result_lines,
    summary_title,
)
from .table_text import (
    HAND_X,
    HAND_Y,
    Cell,
    Frame,
    H,
    Hit,
    Placed,
    Shown,
    W,
    arabic,
    cells_row,
    center,
    fit,
    footer_hits,
    join,
    right_align,
    rtl_fit,
    units,
    word_cut,
    wrap,
)
from .table_trick import middle_lines


# ------------------------------------------------------------------ the frame
def draw_table(view: View | None, state: TableState, facts: TableFacts, look: Look,
               now: float, cache: DrawCache | None = None,
               speech: Speech | None = None) -> Frame:
    """The 80×24 table for ``view`` as seen from ``facts.seat``, said by ``speech``
    (by default: the look's language)."""
    return scene_frame(Scene(view, state, facts, look, now, cache, speech))


def scene_frame(sc: Scene) -> Frame:
    """The 80×24 table of a scene already made (the wide layout draws from it too)."""
    hand, hits = hand_rows(sc)
    info, scores, middle, chat = still_lines(sc)
    notes = note_lines(sc)
    lines: list[Text] = [info, *notes[:1]]
    # A notice longer than a row (a hint) goes on under itself: the scores and the
    # middle move down a row into the blank row 13 (and the phase a row into 17).
    lines += notes[1:3]
    lines += scores                         # 5 lines (rows 2-6)
    lines += middle                         # 6 lines (rows 7-12)
    # blank rows are the one BLANK object: the board skips a line it drew last frame
    if len(notes) < 2:
        lines.append(BLANK)                 # 13
    phase = phase_lines(sc)
    phase_row = len(lines)
    lines += phase                          # 3 lines (14-16)
    if len(notes) < 3:
        lines.append(BLANK)                 # 17
    lines += hand                           # 2 lines (18-19)
    lines.append(BLANK)                     # 20
    lines += chat                           # 2 lines (21-22)
    return Frame(lines[:H - 1], footer_line(sc),
                 hits + tuple(phase_hits(sc, phase, phase_row)))


Still = tuple[Text, list[Text], list[Text], list[Text]]


# A move's own echo first (``Placed.focus``), most important first: the middle (the
# trick, who plays: rows 7-12), the hand (18-19), the phase's controls (14-16); the
# info bar, the scores with the events beside them, the chat and the footer after.
FOCUS = (*range(7, 13), 18, 19, 14, 15, 16)


def still_lines(sc: Scene) -> Still:
    """The info bar, the scores, the middle and the chat: drawn from the view, the
    table's facts, the look and the trick's animation only.  A frame drawn for a key
    pressed (a rank typed, the cursor moved) has them all as the last frame had: the
    same view object (one per version), facts equal, the same animation; they come
    back whole then, not section by section."""
    cache = sc.cache
    drew = cache.still
    if (drew is not None and drew[0] is sc.view and drew[2] is sc.state.anim
            and drew[3] == sc.look_key and drew[1] == sc.facts):
        return drew[4]
    lines = (info_line(sc), score_lines(sc), middle_lines(sc), chat_lines(sc))
    cache.still = (sc.view, sc.facts, sc.state.anim, sc.look_key, lines)
    return lines


def place(frame: Frame, width: int, height: int) -> Placed:
    """``frame`` on a board of ``width``×``height`` (at least 80×24): centred across
    (its lines left as they are, the column they start at in ``x``: a board draws them
    there, so a frame's unchanged lines stay the same objects on a terminal wider than
    80 columns, which the board skips), the table at the top, the footer on the last
    row."""
    lines = list(frame.lines)
    lines += [BLANK] * (height - 1 - len(lines))
    lines.append(frame.footer)
    x = (width - W) // 2
    hits = frame.hits + footer_hits(frame.footer, height - 1)
    if x:
        hits = tuple(h.moved(x) for h in hits)
    return Placed(lines, hits, x=x, focus=FOCUS)


# The picture's units are modules of their own (table_text, table_scene, table_info,
# table_scores, table_trick, table_summary, table_auction, table_hand, table_chat,
# table_footer); other screens and the tests read these of them from here.
__all__ = [
    "FOCUS",
    "HAND_X",
    "HAND_Y",
    "Cell",
    "DrawCache",
    "Frame",
    "H",
    "Hit",
    "Scene",
    "Shown",
    "W",
    "arabic",
    "cells_row",
    "center",
    "draw_table",
    "fit",
    "hand_rows",
    "join",
    "middle_lines",
    "move_words",
    "phase_lines",
    "place",
    "pretty",
    "result_lines",
    "right_align",
    "rtl_fit",
    "score_lines",
    "summary_title",
    "units",
    "word_cut",
    "wrap",
]
