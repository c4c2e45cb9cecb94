"""An entry played through the terminal screens: Events (e), a board entered, each
board's end said on the table (Enter: the next board, dealt at the same screen), and
once every board is played the event's standings — with ranks and percentages now."""

from __future__ import annotations

import pytest
from eventplay import bot_move, middle
from test_golden import screen_text
from test_golden_events import new_app, room

from tui.screens import table as table_screen
from tui.screens.events import EventsScreen, StandingsScreen
from tui.screens.table import TableScreen

pytestmark = pytest.mark.slow       # three entrants' boards played first (~5 s)


async def wait(pilot, cond, what: str) -> None:
    for _ in range(200):
        if cond():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out: {what}")


async def test_an_entry_played_at_the_terminal_ends_at_its_standings(monkeypatch):
    monkeypatch.setattr(table_screen, "TRICK_HOLD", 0.0)
    reg, event = room()
    app = new_app(reg, "en", None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("e")
        await wait(pilot, lambda: isinstance(app.screen, EventsScreen), "the events list")
        await pilot.press("enter")                      # sam's event, listed first
        boards = []
        for k in range(1, 5):
            await wait(pilot, lambda k=k: app.member.table is not None
                       and app.member.table.event is not None
                       and app.member.table.event.board == k, f"board {k}")
            table = app.member.table
            screen = app.screen
            assert isinstance(screen, TableScreen)
            boards.append(k)
            m = table.match
            while m.to_act is not None:
                if m.to_act == app.member.seat:
                    table.act(app.member, middle(m.view(app.member.seat)))
                else:
                    bot_move(table)
            await wait(pilot, lambda t=table, s=screen: t.shown_status == "over"
                       and s.key_context().board_over, f"board {k} shown over")
            await pilot.press("enter")
        await wait(pilot, lambda: isinstance(app.screen, StandingsScreen), "the standings")
        assert boards == [1, 2, 3, 4]
        _ev, rows = reg.events.standings(app.member, event)
        assert {r["name"] for r in rows} == {"bea", "cem", "dua", "ali"}
        assert all("percent" in r and r["rank"] for r in rows)
        assert "Board 4:" in app.screen.notice


async def test_a_private_event_found_by_its_code_at_the_terminal():
    """j in the events list: a wrong code is said and changes nothing; the right one
    (capitals and dashes as typed) lists the event, chosen."""
    from engine.room import Registry
    from engine.room import Session as Member
    from tui.app import LammaApp
    from tui.cards import Look
    from tui.screens.events import EventCodeScreen
    reg = Registry(bot_pause=3600.0, trick_pause=0.0)
    try:
        made = reg.events.create(Member("sam", "key:fp-sam:sam"), "tarneeb41", 4, 2, True)
        app = LammaApp(reg, "ali", "key:fp-ali:ali", look=Look(language="en"))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("e")
            await wait(pilot, lambda: isinstance(app.screen, EventsScreen), "the list")
            events = app.screen
            assert all(e.id != made.id for e, _r in events.rows)
            await pilot.press("j")
            await wait(pilot, lambda: isinstance(app.screen, EventCodeScreen), "the dialog")
            await pilot.press(*"WRONGCODE", "enter")
            await wait(pilot, lambda: "No event has that code" in screen_text(app),
                       "the refusal said")
            assert isinstance(app.screen, EventCodeScreen)
            assert f"event:{made.id}" not in app.member.unlocked
            typed = made.code.lower()[:4] + "-" + made.code[4:]
            await pilot.press(*typed, "enter")
            await wait(pilot, lambda: app.screen is events, "back at the list")
            chosen, _row = events.rows[events.cursor]
            assert chosen.id == made.id
    finally:
        reg.close()
