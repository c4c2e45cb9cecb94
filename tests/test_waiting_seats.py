"""The table before its match (a tester's finding B): each empty seat says "(empty)"
once, beside its place, and no unexplained mark (a ✓ for a taken seat) is drawn."""

from __future__ import annotations

import pytest

from engine.room.errors import N_, Said
from tui.cards import Look
from tui.i18n import Speech
from tui.screens import table_draw as draw
from tui.screens.table_state import SeatFacts, TableFacts, TableState

EMPTY = Said(N_("(empty)"))


def waiting(speech: Speech) -> str:
    seats = (SeatFacts("ali", "human"), SeatFacts(EMPTY, "empty"),
             SeatFacts("Bot-3", "bot"), SeatFacts(EMPTY, "empty"))
    f = TableFacts(id="7", game="estimation", title="Estimation", length=18, seats=seats,
                   seat=0, may_fill=True)
    frame = draw.draw_table(None, TableState(), f, Look(), now=0.0, speech=speech)
    return "\n".join(line.plain for line in frame.lines)


@pytest.mark.parametrize("speech", [Speech(), Speech("ar", "shaped"), Speech("ar", "logical")])
def test_an_empty_seat_is_said_once_and_no_mark_is_unexplained(speech):
    text = waiting(speech)
    assert "✓" not in text
    empty = speech.show(speech._("(empty)"))
    bare = speech.show("فارغ") if speech.code == "ar" else "empty"
    # two empty seats: each named once in the list of scores, once at its place
    assert text.count(empty) == 4, text
    alone = [w for w in text.replace("empty seats", "").split() if w == bare]
    assert not alone, text                          # and no bare "empty" at its place
