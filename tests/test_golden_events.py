"""Golden screens of the duplicate events (docs/events.md): the events list, a board's
table, the standings and a board compared (its field and its replay), in English and
in Arabic (shaped), at each size the room supports; written and compared as
tests/test_golden.py does (``--update-golden``).

Everything is fixed: the clock, the events' seeds, the entrants' play and the computer
players' (their decisions are the board's, ``engine.duplicate``)."""

from __future__ import annotations

from typing import Any

import pytest
from eventplay import bot_move, contrary, middle, play_here, quick
from test_golden import LANGUAGES, SIZES, SLOW, compare, screen_text

from engine.room import Registry
from engine.room import Session as Member
from engine.room.store import EventRow
from tui.app import LammaApp
from tui.cards import Look
from tui.screens import table as table_screen
from tui.screens.events import ComparisonScreen, EventsScreen, StandingsScreen

# And a phone's, portrait (issue 26): the compact layout.
EVENT_SIZES = [*SIZES, (40, 20), (50, 32)]
DAY = 1_716_940_800.0           # 2024-05-29 00:00 UTC
NOW = DAY + 15 * 3600 + 20 * 60  # 15:20 UTC


def room() -> tuple[Registry, int]:
    """A room at NOW with the day's daily events (fixed seeds) and sam's event of four
    Estimation boards that bea, cem and dua have played."""
    reg = Registry(bot_pause=SLOW, trick_pause=0.0)
    events = reg.events
    events.clock = lambda: NOW
    for i, game in enumerate(("estimation", "estimation-kotshina", "tarneeb41")):
        events.store.create_event(EventRow(0, game, 8, 100 + i, 16, DAY, DAY + 86400,
                                           daily=f"{game}:2024-05-29"))
    made = events.store.create_event(EventRow(0, "estimation", 4, 1234, 16, NOW - 3600,
                                              NOW + 2 * 3600 + 600, creator="fp-sam",
                                              creator_name="sam"))
    assert made is not None
    for name, policy in (("bea", quick), ("cem", contrary), ("dua", quick)):
        play_here(events, Member(name, f"key:fp-{name}:{name}"), made.id, policy)
    return reg, made.id


def new_app(reg: Registry, language: str, mode: str | None) -> LammaApp:
    return LammaApp(reg, "ali", "key:fp-ali:ali", look=Look(language=language,
                                                            text_mode=mode))


def finish(app: LammaApp, event: int) -> None:
    """ali plays every board of ``event`` (his own way)."""
    play_here(app.registry.events, app.member, event, middle)


# The fast tier draws two of them (each plays an event's boards first: ~6 s), the full
# suite every language and size.
# All in the full suite: the fast tier's 90 s (the one here took 6.6 s of them, the
# fast tier's longest test; the events' rules and screens have fast tests of their own).
FAST_EVENTS: set[tuple[str, tuple[int, int]]] = set()


@pytest.mark.parametrize("language,mode,size", [
    pytest.param(language, mode, size, id=f"{language}-{size[0]}x{size[1]}",
                 marks=() if (language, size) in FAST_EVENTS else pytest.mark.slow)
    for language, mode in LANGUAGES for size in EVENT_SIZES])
async def test_the_events_and_a_board(request: pytest.FixtureRequest,
                                      monkeypatch: pytest.MonkeyPatch, language: str,
                                      mode: str | None, size: tuple[int, int]) -> None:
    monkeypatch.setattr(table_screen, "TRICK_HOLD", 0.0)
    reg, _event = room()
    app = new_app(reg, language, mode)
    name = f"{language}-{size[0]}x{size[1]}"
    async with app.run_test(size=size) as pilot:
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, EventsScreen)
        compare(request, f"events-list-{name}", screen_text(app))
        # sam's event, the first listed (the soonest to close): its first board
        await pilot.press("enter")
        await pilot.pause()
        table = app.member.table
        assert table is not None and table.event is not None and table.event.board == 1
        while table.match.to_act != 0:
            bot_move(table)
        screen = app.screen
        screen.state.notice = None
        screen.redraw()
        await pilot.pause()
        compare(request, f"events-board-{name}", screen_text(app))


@pytest.mark.slow          # a whole event played by computer players: the full suite's
@pytest.mark.parametrize("size", EVENT_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("language,mode", LANGUAGES, ids=[lang for lang, _ in LANGUAGES])
async def test_the_standings_and_a_board_compared(request: pytest.FixtureRequest,
                                                  language: str, mode: str | None,
                                                  size: tuple[int, int]) -> None:
    reg, event = room()
    app = new_app(reg, language, mode)
    finish(app, event)
    name = f"{language}-{size[0]}x{size[1]}"
    async with app.run_test(size=size) as pilot:
        app.push_screen(StandingsScreen(event))
        await pilot.pause()
        compare(request, f"events-standings-{name}", screen_text(app))
        await pilot.press("right")          # board 2
        await pilot.press("enter")
        await pilot.pause()
        screen: Any = app.screen
        assert isinstance(screen, ComparisonScreen) and screen.board == 2
        compare(request, f"events-compare-{name}", screen_text(app))
        await pilot.press("tab")
        await pilot.pause()
        compare(request, f"events-replay-{name}", screen_text(app))
