"""The seats as the score panel shows them, in both layouts: a seat's name (cut to the
panel's width, "(you)", "away") and its cells (dealer, caller, With, dash and team
tags, the declaration, the tricks taken, the total)."""

from __future__ import annotations

from typing import NamedTuple

from .table_scene import Scene


class SeatCells(NamedTuple):
    label: str          # the name, cut (not yet shown: ``Scene.say``)
    suffix: str         # " (you)", " away", cut with it
    tags: str           # D dealer, C caller, W With, X dash, a/b the team (Tarneeb)
    decl: str           # the bid or declaration ("" before it is made)
    tricks: str
    total: str


def seat_cells(sc: Scene, s: int, width: int) -> SeatCells:
    """Seat ``s``'s name in ``width`` characters and its cells, from the view."""
    facts, v = sc.facts, sc.view
    label = sc.seat_label(s)
    suffix = sc.you if s == facts.seat else ""
    if facts.seats[s].away:
        suffix += " " + sc._("away")
    label, suffix = label[:width], suffix[:max(0, width - len(label))]
    tags = ""
    decl = tricks = total = ""
    if v:
        if v.get("dealer") == s:
            tags += "D"
        if v.get("caller") == s:
            tags += "C"
        if s in (v.get("with_players") or []):
            tags += "W"
        if s in (v.get("dash_players") or []):
            tags += "X"
        teams = v.get("teams")
        if sc.terms.teams and teams:
            tags += "ab"[0 if s in teams[0] else 1]
        d = (v.get("declarations") or [None] * 4)[s]
        decl = "" if d is None else str(d)
        tricks = str((v.get("tricks_taken") or [0] * 4)[s])
        total = str((v.get("totals") or [0] * 4)[s])
    return SeatCells(label, suffix, tags, decl, tricks, total)
