"""The table in the layout the window's size asks for (issue 26): the standard 80×24
picture (``table_draw``), the compact one from 40×20 (``table_compact``, which draws
with ``table_draw``'s pieces), or the request to enlarge the window. Apart from both
so that neither imports the other."""

from __future__ import annotations

from ..cards import Look
from ..i18n import Speech
from .sizes import COMPACT, SMALL, WIDE, enlarge_lines, layout
from .table_chat import chat_to_the_edge
from .table_compact import draw_compact
from .table_draw import place, scene_frame
from .table_scene import DrawCache, Scene
from .table_state import TableFacts, TableState, View
from .table_text import H, Placed
from .table_wide import draw_wide


def draw_screen(view: View | None, state: TableState, facts: TableFacts, look: Look,
                width: int, height: int, now: float, cache: DrawCache | None = None,
                speech: Speech | None = None, chat_rows: int = 0,
                chat: tuple[tuple[str, str], ...] = ()) -> Placed:
    """The board's lines at ``width``×``height`` (its window ``chat_rows`` taller: the
    chat box open under it): the table in the layout the window's size asks for
    (``sizes.layout``): standard from 80×24 (``place``; with the chat box open at 24
    rows the board shows it cut), wide where the room allows (``table_wide``: what was
    said at the table and ``chat``, the chat's last lines, beside the picture, the
    score sheet under it), compact from 40×20 (``table_compact``), and below that a
    request to enlarge the window."""
    kind = layout(width, height + chat_rows)
    if kind == SMALL:
        return Placed(enlarge_lines(width, height, speech), small=True)
    sc = Scene(view, state, facts, look, now, cache, speech)    # one a draw
    if kind == COMPACT:
        return draw_compact(sc, width, height)
    frame = scene_frame(sc)
    if kind == WIDE:
        return draw_wide(frame, sc, width, height, chat)
    return chat_to_the_edge(sc, place(frame, width, max(height, H)), width)
