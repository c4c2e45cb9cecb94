"""The hand: the cards in a row (the playable ones raised), in the standard picture and in
as many rows as a compact width needs; where each card is for a tap.
"""

from __future__ import annotations

from rich.text import Span, Text

from ..widgets.board import BLANK
from .table_scene import Scene
from .table_text import CARD_W, HAND_X, HAND_Y, REVERSE, Hit, fit


# ----------------------------------------------------------------------- hand
def hand_rows(sc: Scene) -> tuple[list[Text], tuple[Hit, ...]]:
    """The hand's two rows and where each card is drawn (both rows of its columns)."""
    look, v, turn, cache = sc.look, sc.view, sc.turn, sc.cache
    playing = sc.keys.mode == "play"
    ok = turn.playable()
    sel = sc.state.sel_card
    key = (tuple(v.get("hand") or ()) if v else (),
           (v.get("trump") or v.get("fixed_trump")) if v else None,
           playing, frozenset(ok) if playing else None,
           sel if playing else None, look.unicode, look.colour)
    if cache.hand is not None and cache.hand[0] == key:
        return list(cache.hand[1]), cache.hand[2]
    # Both rows built as strings and spans, then one Text each (not ~50 appends): the
    # rows are the same length at every card, so one offset serves both.
    up: list[str] = [" " * HAND_X]
    down: list[str] = [" " * HAND_X]
    up_spans: list[Span] = []
    down_spans: list[Span] = []
    at = HAND_X                     # characters so far (a Span's offsets)
    hits: list[Hit] = []
    x = HAND_X                      # cells so far (where a click lands)
    prev_suit = None
    for c in turn.hand():
        gap = "  " if prev_suit is not None and c[1] != prev_suit else ""
        prev_suit = c[1]
        label = look.card_str(c).rjust(CARD_W)
        up.append(gap)
        down.append(gap)
        at += len(gap)
        x += len(gap)
        hits.append(Hit(x, HAND_Y, CARD_W, 2, c))
        x += CARD_W
        blank = " " * len(label)
        # Legal cards stand raised on the upper row; on our turn the ones
        # that cannot be played drop to the lower row, dim.
        if not playing or c in ok:
            style = look.suit_style(c[1])
            if playing and c == sel:
                style = style + REVERSE
            up.append(label)
            down.append(blank)
            if style:
                up_spans.append(Span(at, at + len(label), style))
        else:
            up.append(blank)
            down.append(label)
            dim = look.suit_style(c[1], dim=True)
            if dim:
                down_spans.append(Span(at, at + len(label), dim))
        at += len(label)
    rows = (Text("".join(up), no_wrap=True, spans=up_spans),
            Text("".join(down), no_wrap=True, spans=down_spans))
    cache.hand = (key, rows, tuple(hits))
    return list(rows), cache.hand[2]


# ----------------------------------------------------------------------- hand
def hand_split(cards: list[str], per_row: int) -> list[list[str]]:
    """The hand in rows of at most ``per_row`` cards: one row if it holds them, else
    whole suits to a row, as many as fit (so that a card played moves no suit to
    another row, most of the time), if that needs no more rows than the count of
    cards does; else split where a suit ends if both rows then hold, else in the
    middle."""
    if len(cards) <= per_row:
        return [cards] if cards else []
    need = -(-len(cards) // per_row)
    rows: list[list[str]] = [[]]
    for i, c in enumerate(cards):
        if i and c[1] != cards[i - 1][1]:
            suit_len = sum(1 for d in cards[i:] if d[1] == c[1])
            if len(rows[-1]) + suit_len > per_row:
                rows.append([])
        if len(rows[-1]) == per_row:
            rows.append([])
        rows[-1].append(c)
    if len(rows) <= need:
        return rows
    rows = []
    rest = cards
    while len(rest) > per_row:
        n_rows = -(-len(rest) // per_row)
        want = -(-len(rest) // n_rows)
        ends = [i for i in range(1, len(rest)) if rest[i][1] != rest[i - 1][1]]
        fits = [i for i in ends if i <= per_row and len(rest) - i <= per_row * (n_rows - 1)
                and abs(i - want) <= 2]
        cut = min(fits, key=lambda i: abs(i - want)) if fits else want
        rows.append(rest[:cut])
        rest = rest[cut:]
    rows.append(rest)
    return rows


def compact_hand_rows(sc: Scene, cw: int) -> tuple[list[Text], list[Hit]]:
    """The hand, trump first, in as many rows as the width needs; in the play phase each
    row of cards has two lines: the cards that can be played stand on the upper, the
    others sit low and dim (whose turn it is does not move the rows)."""
    look, v, turn = sc.look, sc.view, sc.turn
    cards = turn.hand()
    if not cards:
        return [], []
    in_play = v is not None and v.get("phase") == "play"
    playing = sc.keys.mode == "play"
    ok = turn.playable()
    sel = sc.state.sel_card
    per_row = max(1, (cw - 4) // CARD_W)
    rows = hand_split(cards, per_row)
    key = ("c-hand", cw, tuple(cards), in_play, playing, frozenset(ok) if playing else None,
           sel if playing else None, look.unicode, look.colour)
    hit = sc.cache.section(key)
    if hit is not None:
        return list(hit[0]), list(hit[1])
    lines: list[Text] = []
    hits: list[Hit] = []
    height = 2 if in_play else 1
    # Every row starts at one column, the one that centres a full row (a whole hand
    # where one row holds it): a card played moves only the cards after it in its row,
    # not the rows under the player's finger, and redraws less on a slow link.
    full = min(per_row, 13)
    left = max(0, (cw - full * CARD_W - 3) // 2)
    for row in rows:
        x = left
        up = Text(" " * x, no_wrap=True)
        down = Text(" " * x, no_wrap=True)
        prev = None
        for c in row:
            if prev is not None and c[1] != prev:
                up.append(" ")
                down.append(" ")
                x += 1
            prev = c[1]
            label = look.card_str(c).rjust(CARD_W)
            hits.append(Hit(x, len(lines), CARD_W, height, c))
            x += CARD_W
            if not playing or c in ok:
                style = look.suit_style(c[1])
                if playing and c == sel:
                    style = style + REVERSE
                up.append(label, style=style)
                down.append(" " * len(label))
            else:
                up.append(" " * len(label))
                down.append(label, style=look.suit_style(c[1], dim=True))
        lines.append(fit(up, cw))
        if in_play:
            lines.append(fit(down, cw) if down.plain.strip() else BLANK)
    sc.cache.keep(key, (tuple(lines), tuple(hits)))
    return lines, hits
