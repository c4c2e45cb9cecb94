"""A session's app seated at a fresh table with three other members: the start of
the screen tests that play a table by hand (phone sizes, taps, the wide layout)."""
from __future__ import annotations

from engine.room import Session as Member


async def seated(pilot, app, game: str = "estimation", length: int = 18, seed: int = 5):
    """``app``'s member in seat 0 of a new ``game`` table (its deals from ``seed``),
    members p1..p3 in the others, the table screen open: (table, {seat: member})."""
    table = app.registry.create(game, length)
    table.seed = seed
    members = {0: app.member, **{i: Member(f"p{i}", f"key:x:p{i}") for i in (1, 2, 3)}}
    for i in range(4):
        table.sit(members[i], i)
    app.open_table()
    await pilot.pause()
    return table, members
