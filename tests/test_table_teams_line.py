"""Tarneeb's teams beside the scores name both teams (a tester's finding B: the line
said "(amr+Bot-3 vs …)", never who the opponents were): on one line where it fits,
else a line a team, in English and in Arabic."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from stacked import play_to as drive

from engine import new_match
from tui.cards import Look
from tui.i18n import Speech
from tui.screens.table_scene import Scene
from tui.screens.table_scores import side_lines
from tui.screens.table_state import SeatFacts, TableFacts, TableState


def scene(names, speech=None):
    m = new_match("tarneeb41", None, seed=3)
    v = drive(m, lambda v: v["phase"] == "play")
    f = TableFacts(id="7", game="tarneeb41", title="Tarneeb 41", length=None,
                   seats=tuple(SeatFacts(n, "human") for n in names), seat=0)
    extra = {"speech": speech} if speech else {}
    return Scene(v, TableState(), f, Look(), now=0.0, **extra), v["teams"]


@pytest.mark.parametrize("names", [("ali", "bea", "cem", "dua"),
                                   ("amr", "Bot-1", "Bot-3", "Bot-2"),
                                   ("alexandra", "bartholomew", "cornelius", "dorothea")])
@pytest.mark.parametrize("width", [41, 30, 60])
def test_both_teams_are_named(names, width):
    sc, teams = scene(names)
    lines = [text for text, _style in side_lines(sc, width)]
    head = [t for t in lines if t.startswith("Team")]
    assert head and all(cell_len(t) <= width for t in lines), lines
    said = " ".join(head)
    for seat in range(4):
        assert names[seat][:3] in said, (names[seat], head)
    assert "…" not in said and " vs " not in said
    # each team's players together, in the team's part of the line
    parts = head[0].split("·") if len(head) == 1 else head
    for team in teams:
        assert any(all(names[s][:3] in part for s in team) for part in parts), (team, head)


def test_in_arabic_too():
    sc, _teams = scene(("ali", "bea", "cem", "dua"), Speech("ar", "logical"))
    lines = [text for text, _style in side_lines(sc, 41)]
    assert "الفريق" in lines[0]
    assert "ali+cem" in lines[0] and "bea+dua" in lines[0] and "…" not in lines[0]
