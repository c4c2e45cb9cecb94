"""The line that ends a match says who won in good English (a tester's finding B:
"Match over: dua win" read as a cut "wins"): one winner wins, several win."""

from __future__ import annotations

from engine.room.narration import MATCH_WON_ALONE, match_over, said
from tui.i18n import Speech
from tui.screens.table_scene import said_in


def test_one_winner_wins_and_several_win():
    assert str(match_over(["dua"])) == "Match over: dua wins"
    assert str(match_over(["amr", "Bot-3"])) == "Match over: amr, Bot-3 win"
    assert str(match_over([])) == "Match over"


def test_the_line_keeps_its_template_and_is_said_in_arabic():
    line = said("Match over: dua wins")            # as the JSON interface hands it back
    assert line.template == MATCH_WON_ALONE and dict(line.params) == {"winner": "dua"}
    ar = Speech("ar", "logical")
    assert "فاز" in said_in(ar, match_over(["dua"])) and "dua" in said_in(ar, match_over(["dua"]))


def test_a_draw_is_said_as_a_draw_not_as_winners():
    """Tied first: the narration said "cem, dua win" while the result's head said "a draw
    between cem, dua" (a helper's finding): it says the draw too."""
    from engine.room.narration import MATCH_DRAWN
    line = match_over(["cem", "dua"], draw=True)
    assert str(line) == "Match over: a draw between cem, dua"
    assert said(str(line)).template == MATCH_DRAWN
    assert "تعادل" in said_in(Speech("ar", "logical"), line)
