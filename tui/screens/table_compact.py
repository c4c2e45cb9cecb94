"""The table at a phone's size (issue 26): the compact layout, from 40×20 up to just
under the standard 80×24 (``sizes.layout``).

The same scene as the standard picture (``table_draw.Scene``: the view, the screen's
state, the table's facts, the look, the player's language), laid out for a window of
``width``×``height``, nothing a player needs cut:

- the info bar: the table, the round, trump and caller, the timer (two rows when one
  does not hold it);
- the scores: each player's line (tags, bid or declaration, tricks, total) with the
  card they played to the trick beside it (who played what); Tarneeb's team totals in
  its head; from 63 columns the latest events beside it, as in the standard picture;
- the middle: the trick as a cross where the rows allow (else its note: who leads, who
  takes it), the last round's summary, or the match's end;
- at the bottom, from the last row up: the keys (tappable, over as many rows as they
  need), the last chat line where it fits, the hand (as many rows of cards as the
  width needs; in the play phase each row has its raised and its low line), a
  refusal or a notice, and the phase's controls (numbers and suits to tap).

The bottom is drawn from the last row and the rest from the top, so a move changes the
rows it changes: a turn coming never moves the hand. What does not fit moves behind a
key, never off the screen: the whole narration, the chat and the last round's full
breakdown are behind ``e`` (the log), the score sheet behind ``r``.
"""

from __future__ import annotations

from rich.text import Text

from ..widgets.board import BLANK
from .table_auction import phase_rows
from .table_chat import chat_rows, chat_span
from .table_footer import footer_rows, turn_footer_rows
from .table_hand import compact_hand_rows
from .table_info import info_rows, message_rows
from .table_scene import Scene
from .table_scores import EVENTS_FROM, compact_scores, name_width, recent_events
from .table_text import Hit, Placed, W, boxed, key_hits, wrap
from .table_trick import middle_rows


# ---------------------------------------------------------------- the frame
def draw_compact(sc: Scene, width: int, height: int) -> Placed:
    """The compact table on a board of ``width``×``height`` (at least 40×18: the chat
    box open at 40×20), its lines ``min(width, 80)`` wide, centred."""
    cw = min(width, W)
    x0 = (width - cw) // 2
    sc.keys = sc.keys._replace(compact=True)
    scores = compact_scores(sc, cw)
    top = info_rows(sc, cw) + scores
    phase, phase_hits = phase_rows(sc, cw)
    message = message_rows(sc, cw)
    hand, hand_hits = compact_hand_rows(sc, cw)
    keys = footer_rows(sc, cw)
    keys += [BLANK] * max(0, turn_footer_rows(sc, cw) - len(keys))
    room = height - len(top) - len(phase) - len(message) - len(hand) - len(keys)
    chat: list[Text] = []
    if room >= 3:
        # (to the board's edge where the picture is centred on a wider one)
        chat = chat_rows(sc, chat_span(sc, x0, width, cw)[1], min(2, room - 2))
        room -= len(chat)
    middle = middle_rows(sc, cw, room)
    n_middle = len(middle)          # (the trick, a summary: the events come under it)
    room -= len(middle)
    if room >= 1 and name_width(cw) + 27 + EVENTS_FROM > cw:
        # the latest things said at the table under the middle, as many as fit (all of
        # them: e); the events column beside the scores has them from 63 columns
        gap = 1 if middle and room >= 3 else 0
        said = recent_events(sc, cw, min(5, room - gap))
        if said:
            middle += [BLANK] * gap + said
            room -= len(said) + gap
    gap_top = [BLANK] if room > 0 and len(middle) > 0 else []
    room -= len(gap_top)
    gap_hand = [BLANK] if room > 0 and phase else []
    room -= len(gap_hand)
    lines = top + gap_top + middle
    bottom = phase + message + gap_hand + hand + chat + keys
    lines += [BLANK] * max(0, height - len(lines) - len(bottom))
    y_bottom = len(lines)
    lines += bottom
    lines = lines[:height] if len(lines) > height else lines
    hits: list[Hit] = []
    y = y_bottom
    hits += [h.moved(0, y) for h in phase_hits]
    y += len(phase) + len(message) + len(gap_hand)
    hits += [h.moved(0, y) for h in hand_hits]
    y += len(hand) + len(chat)
    hits += key_hits(keys, y)
    if x0:
        hits = [h.moved(x0) for h in hits]
    # A move's own echo first, most important first: the scores (whose turn, the card
    # put in the trick, the totals), the trick or summary, the hand, the phase's
    # controls; then the events and the keys.
    n_info = len(top) - len(scores)
    y_middle = len(top) + len(gap_top)
    y_hand = y_bottom + len(phase) + len(message) + len(gap_hand)
    focus = (*range(n_info, len(top)), *range(y_middle, y_middle + n_middle),
             *range(y_hand, y_hand + len(hand)), *range(y_bottom, y_bottom + len(phase)))
    at: tuple[int, ...] = ()
    if chat and width > cw:
        y_chat = y_hand + len(hand)
        at = tuple(chat_span(sc, x0, width, cw)[0] if y_chat <= y < y_chat + len(chat) else x0
                   for y in range(len(lines)))
    return Placed(lines, tuple(h for h in hits if h.y < height), x=x0, compact=True,
                  focus=tuple(y for y in focus if y < height), at=at)


# Read by other screens from here.
__all__ = ['boxed', 'draw_compact', 'wrap']
