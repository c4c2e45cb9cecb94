"""The footer: the keys of the moment, one line in the standard picture, boxed keys over as
many rows as a compact width needs.
"""

from __future__ import annotations

from rich.text import Text

from .table_keys import KEY, footer
from .table_scene import Scene, laid
from .table_text import boxed


# --------------------------------------------------------------------- footer
def footer_line(sc: Scene) -> Text:
    """The keys that do something now (``table_keys``), each in a reversed box, with
    what they do in the player's language (an Arabic footer starts at the right)."""
    keys = footer(sc.keys)
    cache = sc.cache
    # kept by what it shows: a seat's footer changes as its turn comes and goes
    key = ("footer", keys, sc.speech.code, sc.speech.mode)
    line = cache.section(key)
    if line is not None:
        return line
    say = sc.speech.pgettext
    t = Text(no_wrap=True, overflow="ellipsis")
    for k, label in keys:
        # the reversed key box separates entries; no extra gap (80 columns)
        t.append(f" {k} ", style="bold reverse")
        t.append(say(KEY, label))
    return cache.keep(key, sc.line(t))


# --------------------------------------------------------------------- footer
# The modes of a seated player's turns, by phase: the phases before the play share
# one footer height, the play has its own (its hand has two lines a row anyway).
BIDDING = ("dash", "bid", "call", "declare")
TURN_MODES = {"dash": BIDDING, "auction": BIDDING, "call": BIDDING, "declare": BIDDING,
              "play": ("play",)}


def turn_footer_rows(sc: Scene, cw: int) -> int:
    """The most rows the footer takes on a seated player's turn from this phase to the
    play (the auction's phases together), with every key they may offer (0 when not
    seated, or between rounds). The footer keeps them that long, the keys that are
    there at the top and blank rows under them: a turn coming or going, or the
    auction ending, moves neither the hand nor the footer's first row, and a move's
    own echo redraws only the rows that changed (a slow link)."""
    v = sc.view
    modes = TURN_MODES.get(v.get("phase") or "") if v is not None else None
    if not modes or sc.facts.seat is None:
        return 0
    mine = sc.keys
    most = 0
    try:
        for mode in modes:
            sc.keys = mine._replace(mode=mode, rank=None, can_pass=True, suit_open=True,
                                    can_with=mode == "bid" and sc.terms.with_call)
            most = max(most, len(footer_rows(sc, cw)))
    finally:
        sc.keys = mine
    return most


def footer_rows(sc: Scene, cw: int) -> list[Text]:
    """The keys that do something now (``table_keys``), over as many rows as they
    need at this width; each box a tap (``key_hits``)."""
    keys = footer(sc.keys)
    key = ("c-footer", cw, keys, sc.speech.code, sc.speech.mode)
    hit = sc.cache.section(key)
    if hit is not None:
        return list(hit)
    say = sc.speech.pgettext
    rows = laid(sc, boxed([(k, say(KEY, label)) for k, label in keys], cw - 1), cw)
    return list(sc.cache.keep(key, tuple(rows)))
