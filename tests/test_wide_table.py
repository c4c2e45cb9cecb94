"""The table where the room allows (issue 26): from 120×30 the standard picture with what
was said at the table and the chat beside it and the score sheet under it (a smaller
window keeps them behind e and r), chosen again at every resize; the picture's taps
where it is drawn, in English and in Arabic (its panel at the left there)."""

from __future__ import annotations

import re

import pytest
from seated import seated
from stacked import quick_policy
from test_golden import screen_text

from engine.room import Registry
from tui.app import LammaApp
from tui.cards import Look
from tui.screens import table as table_screen
from tui.screens.table import TableScreen

WIDE = (120, 36)


def new_app(language: str = "en", mode: str | None = None) -> LammaApp:
    return LammaApp(Registry(bot_pause=3600.0, trick_pause=0.0), "ali", "key:x:ali",
                    look=Look(language=language, text_mode=mode))



async def through_a_round(pilot, app, table, members) -> None:
    """Everyone plays the first round (quickly), then the table shows the next."""
    m = table.match
    while not m.history:
        table.act(members[m.to_act], quick_policy(m, m.to_act))
    await pilot.pause()


@pytest.mark.parametrize("language,mode", [("en", None), ("ar", "shaped")], ids=["en", "ar"])
async def test_at_120x36_the_table_shows_what_was_said_the_chat_and_the_sheet(
        monkeypatch, language, mode):
    monkeypatch.setattr(table_screen, "TRICK_HOLD", 0.0)
    app = new_app(language, mode)
    async with app.run_test(size=WIDE) as pilot:
        table, members = await seated(pilot, app)
        await through_a_round(pilot, app, table, members)
        table.say(members[1], "good game")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TableScreen)
        speech = app.speech
        text = screen_text(app)
        rows = text.splitlines()
        said = speech.show(speech._("What was said at the table"))
        head = next(i for i, r in enumerate(rows) if said in r)
        # beside the picture (its right; the left in Arabic), from the top
        column = rows[head].index(said)
        assert head == 0 and (column < 40 if language == "ar" else column > 80), rows[head]
        assert speech.show(speech.pgettext("key", "chat")) in text
        assert "good game" in text and "p1" in text
        # the narration the table keeps, in the panel (each short one on a line)
        panel = [r[:39] if language == "ar" else r[81:] for r in rows]
        sc = screen.scene()
        short = [speech.show(sc.narrate(t)) for _r, t in screen.facts().events]
        short = [t for t in short if len(t) <= 36]
        assert short and all(any(t in r for r in panel) for t in short), (short, panel)
        # under the picture, the score sheet: a round and the totals
        total = speech.show(speech.pgettext("column", "total")) if language == "ar" else "total"
        sheet = [i for i, r in enumerate(rows) if total in r and i >= 23]
        assert sheet, text
        assert any(re.search(r"\d+/\d+ [+-]\d+", r) for r in rows[23:sheet[0]]), text
        assert "enlarge" not in text


async def test_the_layout_follows_a_resize_at_once(monkeypatch):
    monkeypatch.setattr(table_screen, "TRICK_HOLD", 0.0)
    app = new_app()
    said = "What was said at the table"
    async with app.run_test(size=WIDE) as pilot:
        await seated(pilot, app)
        assert said in screen_text(app)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert said not in screen_text(app) and "Round 1 of 18" in screen_text(app)
        await pilot.resize_terminal(119, 36)            # narrower than the wide layout
        await pilot.pause()
        assert said not in screen_text(app)
        await pilot.resize_terminal(120, 30)            # its smallest
        await pilot.pause()
        assert said in screen_text(app)
        await pilot.resize_terminal(40, 20)             # a phone: the compact table
        await pilot.pause()
        text = screen_text(app)
        assert said not in text and "e log" in text
        await pilot.resize_terminal(160, 40)            # wider: the whole centred
        await pilot.pause()
        rows = screen_text(app).splitlines()
        assert said in rows[0] and rows[0].startswith(" " * 9), rows[0]


@pytest.mark.parametrize("language,mode", [("en", None), ("ar", "shaped")], ids=["en", "ar"])
async def test_a_tap_in_the_wide_layout_plays_the_card_under_it(monkeypatch, language, mode):
    monkeypatch.setattr(table_screen, "TRICK_HOLD", 0.0)
    app = new_app(language, mode)
    async with app.run_test(size=WIDE) as pilot:
        table, members = await seated(pilot, app)
        m = table.match
        while m.phase != "play" or m.to_act != 0:
            if m.to_act == 0 and m.phase != "play":
                table.act(app.member, quick_policy(m, 0))
            else:
                table.act(members[m.to_act], quick_policy(m, m.to_act))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TableScreen)
        card = next(h for h in screen._hits if h.card and h.card in
                    [a["card"] for a in m.legal_actions(0)])
        face = app.look.card_str(card.card)
        row = screen_text(app).splitlines()[card.y]
        assert face in row[card.x:card.x + card.width], (row, card)
        before = len(m.log)
        await pilot.click(offset=(card.x + card.width - 1, card.y))      # chosen
        await pilot.click(offset=(card.x + card.width - 1, card.y))      # played
        await pilot.pause()
        assert len(m.log) > before and m.log[before] == (0, {"type": "play",
                                                              "card": card.card})
        # the footer's keys are where they are drawn too
        assert any(h.tap and h.y == WIDE[1] - 1 for h in screen._hits)


@pytest.mark.parametrize("language,mode", [("en", None), ("ar", "shaped")], ids=["en", "ar"])
async def test_the_wide_panel_lists_the_rounds_tricks_so_far(monkeypatch, language, mode):
    monkeypatch.setattr(table_screen, "TRICK_HOLD", 0.0)
    app = new_app(language, mode)
    async with app.run_test(size=(120, 30)) as pilot:
        table, members = await seated(pilot, app)
        m = table.match
        while len(m.view(0).get("tricks") or []) < 4:
            table.act(members[m.to_act], quick_policy(m, m.to_act))
        await pilot.pause()
        speech, look = app.speech, app.look
        rows = screen_text(app).splitlines()
        panel = [r[:39] if language == "ar" else r[81:] for r in rows]
        head = speech.show(speech._("This round's tricks"))
        at = next(i for i, r in enumerate(panel) if head in r)
        for n, trick in enumerate(m.view(0)["tricks"], start=1):
            line = panel[at + n]
            assert f"{n}." in line, (n, line)
            for c in trick["cards"]:
                assert look.card_str(c["card"]) in line, (n, line)


LONG_CHAT = ("we should all bid higher in the fast rounds since they pay more when the table "
             "is over, and nobody minds the risk")       # 114 characters


@pytest.mark.parametrize("size,language,mode", [
    ((200, 24), "en", None), ((200, 24), "ar", "shaped"), ((200, 20), "en", None),
    ((200, 20), "ar", "shaped"), ((200, 50), "en", None)],
    ids=["standard-en", "standard-ar", "compact-en", "compact-ar", "wide-en"])
async def test_a_long_chat_line_is_cut_only_at_the_terminals_edge(size, language, mode):
    """A player's pass: on a 200-column terminal a chat line ended in "…" at the 80
    columns of the picture. It runs from the picture's edge to the terminal's (an
    Arabic line from the picture's right edge leftwards); the wide layout's panel has
    the chat wrapped, and the picture no second copy of it cut."""
    app = new_app(language, mode)
    async with app.run_test(size=size) as pilot:
        table, members = await seated(pilot, app)
        table.say(members[1], LONG_CHAT)
        await pilot.pause()
        rows = screen_text(app).splitlines()
        told = [r for r in rows if "bid higher" in r or "the risk" in r]
        assert told and not any("…" in r for r in told), told
        if size[1] < 30:
            (row,) = told
            assert LONG_CHAT in row, row
            if language == "ar":        # read from the right: it ends where the picture does
                edge = (size[0] - 80) // 2 + 80
                assert edge - 1 <= len(row.rstrip()) <= edge, row
        else:
            assert "the risk" in told[-1] and len(told) > 1, told
