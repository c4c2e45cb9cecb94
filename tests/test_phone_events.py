"""The duplicate events on a phone (issue 26), at 40×20 in English and in Arabic
(shaped): the list shows each event's name whole with its game, when it closes and how
far you are, a row never wrapped into the next; a board compared scrolls (keys, taps on
the footer's ↑↓, the wheel) until every trick of both boards has been on the screen.
(The same screens as golden files: tests/test_golden_events.py.)"""

from __future__ import annotations

import re
from typing import Any

import pytest
from test_golden import screen_text
from test_golden_events import finish, new_app, room
from textual.events import MouseScrollDown

from tui.screens.events import ComparisonScreen, EventsScreen, StandingsScreen, listed_name
from tui.screens.words import game_title

# End to end through a session (a shaped link, Pilot scrolling): the full suite's.
pytestmark = pytest.mark.slow

SIZE = (40, 20)
LANGUAGES = [("en", None), ("ar", "shaped")]


def box(app: Any, key: str) -> tuple[int, int]:
    """The cell of ``key`` in the footer's reversed boxes (``↓`` of ``↑↓``)."""
    for y, strip in enumerate(app.screen._compositor.render_strips()):
        x = 0
        for seg in strip:
            if seg.style is not None and seg.style.reverse and key in seg.text:
                return x + seg.text.index(key), y
            x += len(seg.text)
    raise AssertionError(f"no box with {key!r}:\n{screen_text(app)}")


@pytest.mark.parametrize("language,mode", LANGUAGES, ids=[lang for lang, _ in LANGUAGES])
async def test_the_events_list_at_40x20_keeps_each_name_whole_with_its_game(language, mode):
    reg, _event = room()
    app = new_app(reg, language, mode)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("e")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, EventsScreen)
        speech = app.speech
        # the list has the rows the chosen event's words leave it (issue 44: those are
        # whole): ↓ goes through it, the last row saying which events are shown
        rows = screen_text(app).splitlines()
        for _ in screen.rows:
            await pilot.press("down")
            await pilot.pause()
            rows += screen_text(app).splitlines()
        assert len(screen.rows) == 4
        for ev, row in screen.rows:
            name = speech.show(listed_name(speech, screen.events, ev))
            game = speech.show(game_title(speech, ev.game))
            you = speech.show(speech._({"new": "new"}[row["you"]]))
            assert any(name in r for r in rows), (name, "\n".join(rows))
            # the game and how far you are on one line (the row not wrapped)
            assert any(game in r and re.search(rf"(?<!\S){re.escape(you)}(?!\S)", r)
                       for r in rows), (game, "\n".join(rows))
        assert all(len(r) <= SIZE[0] for r in rows)
        # the chosen event's boards and entries under the list
        boards = speech.show(speech._("boards"))
        assert any(boards in r for r in rows), "\n".join(rows)


async def seen_while_scrolling(pilot: Any, app: Any, step) -> set[str]:
    """Every row shown from the top of the block to its end, scrolled with ``step``."""
    seen = set(screen_text(app).splitlines())
    for _ in range(40):
        before = screen_text(app)
        await step()
        await pilot.pause()
        after = screen_text(app)
        if after == before:
            break
        seen |= set(after.splitlines())
    return seen


@pytest.mark.parametrize("language,mode", LANGUAGES, ids=[lang for lang, _ in LANGUAGES])
@pytest.mark.parametrize("how", ["keys", "taps", "wheel"])
async def test_a_board_compared_at_40x20_scrolls_to_every_trick(language, mode, how):
    reg, event = room()
    app = new_app(reg, language, mode)
    finish(app, event)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(StandingsScreen(event))
        await pilot.pause()
        text = screen_text(app)
        boards = "4 3 2 1" if language == "ar" else "1 2 3 4"   # (read from the right)
        assert boards in text, text                      # the boards to compare, below
        await pilot.press("right", "enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ComparisonScreen) and screen.board == 2

        async def step() -> None:
            if how == "keys":
                await pilot.press("down")
            elif how == "taps":
                await pilot.click(offset=box(app, "↓"))
            else:           # the wheel (a swipe, in some phone clients) over the text
                app.post_message(MouseScrollDown(None, 10, 8, 0, 1, 0, False, False, False,
                                                 screen_x=10, screen_y=8))

        # the field: down to the results, every name with its score
        seen = await seen_while_scrolling(pilot, app, step)
        for name in ("bea", "cem", "dua", "ali"):
            assert any(re.search(rf"\b{name}\b", r) and re.search(r"[+-]\d+\b", r)
                       for r in seen), (name, "\n".join(sorted(seen)))
        assert screen.top > 0
        await pilot.press("tab")
        await pilot.pause()
        assert screen.top == 0
        seen = await seen_while_scrolling(pilot, app, step)
        # both boards (one under the other), each with its 13 tricks: two rows a trick
        for n in range(1, 14):
            rows = [r for r in seen if re.search(rf"(?<![\d.]){n}\.(?!\d)", r)
                    and ("♠" in r or "♥" in r or "♦" in r or "♣" in r)]
            assert len(rows) == 2, (n, rows, "\n".join(sorted(seen)))
        assert screen.top > 0
        # back up with the other key (or a tap on ↑): a row for a tap, to the top for
        # three pages
        bottom = screen.top
        if how == "taps":
            await pilot.click(offset=box(app, "↑"))
        else:
            await pilot.press("pageup", "pageup", "pageup")
        await pilot.pause()
        assert screen.top == (bottom - 1 if how == "taps" else 0), (bottom, screen.top)
