"""Every screen at a phone's size and up (issue 26): nothing a player needs is cut.

Each scenario of ``test_arabic_screens`` (the lobby, the new table, the table in every
phase of the three games, watching, replays, profile, leaderboard, help, options,
dialogs, the chat and command lines, the Arabic test line) is brought up in a window
of 40×20 (a phone in portrait), then the window is resized to 45×30, 60×20, 80×24 and
120×36, and at each size the screen is read as the terminal shows it, in English and
in Arabic (shaped and logical). At every size:

- no request to enlarge the window, and no line longer than the widget drawing it;
- at the table: all the cards of the viewer's hand (13 of a full one), each card of
  the trick, every player's line, whose turn it is, trump and the call; every key the
  footer offers now; each legal number and suit of a bid, call or declaration and
  each playable card where a tap chooses it (the tap's cells show it);
- in the lobby: every table listed;
- nowhere a word or a figure cut in two (``cuts.cut_marks``: issue 44).

Below 40×20 every screen asks for a larger window, with the size it needs.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from cuts import cut_marks
from test_arabic_screens import (
    GUEST,
    ME,
    SCENARIOS,
    SLOW,
    Scenario,
    finished,  # noqa: F401  (the store of finished matches, a fixture)
    overflows,
    screen_rows,
)

from engine.room import Registry
from server.persistence import TableStore
from tui.app import LammaApp
from tui.cards import Look
from tui.i18n import Speech
from tui.screens.lobby import LobbyScreen
from tui.screens.table import TableScreen
from tui.screens.table_keys import footer

pytestmark = pytest.mark.slow      # every screen, five sizes, three ways of saying it

SIZES = [(40, 20), (45, 30), (60, 20), (80, 24), (120, 36)]
SAYINGS = [("en", "shaped"), ("ar", "shaped"), ("ar", "logical")]


def enlarge_words() -> list[str]:
    ask = "كبّر النافذة"
    return ["enlarge", ask, Speech("ar", "shaped").show(ask)]


def table_problems(app: LammaApp, rows: list[str]) -> list[str]:
    """What a player needs at the table and the screen does not show."""
    screen = app.screen
    if not isinstance(screen, TableScreen):
        return []
    facts = screen.facts()
    v: Any = screen.view
    if facts is None:
        return ["the table screen has no table"]
    text = "\n".join(rows)
    look = screen.look
    out = []
    for s in range(4):
        label = str(facts.seats[s].label)
        if facts.seats[s].kind != "empty" and label[:8] not in text:
            out.append(f"seat {s} ({label}) has no line")
    if v is None:
        return out
    for card in v.get("hand") or []:
        if look.card_str(card) not in text:
            out.append(f"the card {card} of the hand is not shown")
    for played in v.get("trick") or []:
        if look.card_str(played["card"]) not in text:
            out.append(f"the trick's {played['card']} is not shown")
    if v.get("phase") != "over" and v.get("to_act") is not None and not (
            "▶" in text or "◀" in text):
        out.append("nothing says whose turn it is")
    if v.get("trump") and look.suit(v["trump"]) not in rows[0] + rows[1]:
        out.append("the info bar does not show the trump")
    call = v.get("call")
    if call and v.get("caller") is not None and v.get("phase") != "over":
        if look.bid_str(call.get("n"), call.get("suit")) not in text:
            out.append("the call is not shown")
    ctx = screen.key_context()
    typing = screen.query_one("#chat-input").display     # the chat line has the footer's row
    for shown, _label in ([] if typing else footer(ctx)):
        if shown not in text:
            out.append(f"the key {shown} of the footer is not shown")
    turn = screen.turn()
    hits = screen._hits

    def tapped(kind: str, value: str, shown: str) -> bool:
        return any(h.tap == (kind, value) and shown in rows[h.y][h.x:h.x + h.width]
                   for h in hits)
    if ctx.mode in ("bid", "call", "declare"):
        for n in turn.numbers(ctx.kind):
            if not tapped("number", str(n), str(n)):
                out.append(f"the number {n} cannot be tapped where it is shown")
    if ctx.mode in ("bid", "call") and turn.suit_cells(ctx.kind, screen.state.sel_n, screen.state.sel_suit):
        for suit, state in turn.suit_cells(ctx.kind, screen.state.sel_n, screen.state.sel_suit):
            if state != "dim" and not tapped("suit", suit, look.suit(suit)):
                out.append(f"the suit {suit} cannot be tapped where it is shown")
    if ctx.mode == "play":
        for card in turn.playable():
            shown = look.card_str(card)
            if not any(h.card == card and any(
                    shown in rows[y][h.x:h.x + h.width] for y in range(h.y, h.y + h.height))
                       for h in hits):
                out.append(f"the playable {card} cannot be tapped where it is shown")
    return out


def lobby_problems(app: LammaApp, rows: list[str]) -> list[str]:
    screen = app.screen
    if not isinstance(screen, LobbyScreen):
        return []
    return [f"table #{row['id']} is not listed" for row in screen.rows
            if not any(re.search(rf"(^|\s){row['id']}(\s|$)", r) for r in rows)]


async def at_every_size(sc: Scenario, language: str, mode: str, store: Any) -> list[str]:
    reg = Registry(store=TableStore(store) if sc.records else None, bot_pause=SLOW,
                   trick_pause=0.0)
    if sc.prep is not None:
        sc.prep(reg)
    name = GUEST if sc.guest else ME
    app = LammaApp(reg, name, f"guest:{name}" if sc.guest else f"key:x:{name}",
                   guest=sc.guest, look=Look(language=language,
                                             text_mode=None if sc.first_time else mode))
    reports = []
    async with app.run_test(size=SIZES[0]) as pilot:
        await pilot.pause()
        await sc.go(pilot, app)
        await pilot.pause()
        for size in SIZES:
            if size != SIZES[0]:
                await pilot.resize_terminal(*size)
                await pilot.pause(0.05)
                await pilot.pause()
            rows = screen_rows(app)
            text = "\n".join(rows)
            problems = [f"asks to enlarge the window ({word!r})" for word in enlarge_words()
                        if word in text]
            problems += overflows(app) + table_problems(app, rows) + lobby_problems(app, rows)
            problems += cut_marks(rows)         # no word or figure cut in two (issue 44)
            if problems:
                reports.append("\n".join([
                    f"{sc.name} at {size[0]}×{size[1]} ({language}, {mode}): "
                    f"{type(app.screen).__name__}", *("  " + p for p in problems),
                    *(f"{y:>2}|{r.rstrip()}" for y, r in enumerate(rows))]))
    return reports


@pytest.mark.parametrize("sc", SCENARIOS, ids=lambda sc: sc.name)
async def test_every_screen_holds_what_a_player_needs_from_40x20_up(sc, finished):  # noqa: F811
    runs = [(language, mode) for language, mode in SAYINGS
            if (language == "ar" or not sc.first_time) and (language == "en"
                                                            or mode in sc.modes)]
    reports = await asyncio.gather(*(at_every_size(sc, language, mode, finished)
                                     for language, mode in runs))
    problems = [r for found in reports for r in found]
    assert not problems, "\n\n".join(problems)


@pytest.mark.parametrize("size", [(39, 20), (40, 19), (30, 12)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("language", ["en", "ar"])
async def test_below_40x20_every_screen_asks_for_that_size(size, language,
                                                           finished):  # noqa: F811
    """The lobby, the table, the profile and the help, each asking for 40×20."""
    from test_arabic_screens import my_turn as turn_of
    from test_arabic_screens import table_phase

    reg = Registry(store=TableStore(finished), bot_pause=SLOW, trick_pause=0.0)
    app = LammaApp(reg, ME, f"key:x:{ME}", look=Look(language=language, text_mode="shaped"))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        seen = []
        for step in ("lobby", "profile", "table", "help"):
            if step == "profile":
                await pilot.press("i")
            elif step == "table":
                await pilot.press("escape")
                await table_phase(pilot, app, "estimation", 13, turn_of("auction"))
            elif step == "help":
                await pilot.press("question_mark")
            await pilot.pause()
            text = "\n".join(screen_rows(app))
            seen.append(type(app.screen).__name__)
            assert "40×20" in text, f"{step}:\n{text}"
            assert any(word in text for word in enlarge_words()), f"{step}:\n{text}"
        assert seen == ["LobbyScreen", "ProfileScreen", "TableScreen", "HelpScreen"]


async def test_the_arabic_test_line_at_40x20_keeps_both_lines_and_what_each_means():
    """The first screen an Arabic player sees: at 40×20 the spacing goes first, then
    the note about the options; the two test lines and what 1 and 2 mean stay."""
    app = LammaApp(Registry(bot_pause=SLOW), ME, f"key:x:{ME}",
                   look=Look(language="ar", text_mode=None))
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        assert type(app.screen).__name__ == "TextModeScreen"
        text = "\n".join(screen_rows(app))
        for said in ("1: the server joins", "2: the terminal does it", "choose"):
            assert said in text, text
        assert sum("اضغط" in row or "ﻂﻐﺿﺍ" in row for row in screen_rows(app)) >= 2, text
