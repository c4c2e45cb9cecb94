"""Taps at a phone's size (issue 26), with Pilot at 40×20: what a key does at the table
and in the menus, a tap does where the screen draws it; a tap never acts by surprise.

Where to tap is read off the screen as drawn (the rows the compositor shows): a number
or a suit in its row, a key in its reversed box, a card on its face.
(A whole round by taps over SSH, as Termux sends them: tests/test_phone_ssh.py.)
"""

from __future__ import annotations

import re

import pytest
from seated import seated
from stacked import act_until as drive
from stacked import quick_policy as first_legal

from engine.room import Registry
from engine.room import Session as Member
from tui.app import LammaApp
from tui.screens.table import TableScreen

SIZE = (40, 20)


def new_app() -> LammaApp:
    return LammaApp(Registry(bot_pause=3600.0, trick_pause=0.0), "ali", "key:x:ali")


def shown(app: LammaApp) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


def box(app: LammaApp, key: str) -> tuple[int, int]:
    """The middle of the reversed box showing ``key`` (the last one drawn)."""
    strips = list(app.screen._compositor.render_strips())
    found = []
    for y, strip in enumerate(strips):
        x = 0
        for seg in strip:
            width = len(seg.text)
            if seg.style is not None and seg.style.reverse and seg.text.strip() == key:
                found.append((x + width // 2, y))
            x += width
    assert found, f"no box {key!r}:\n" + "\n".join(s.text for s in strips)
    return found[-1]


def cell(app: LammaApp, pattern: str, below: int = 0) -> tuple[int, int]:
    """The first cell of ``pattern`` (a regular expression) in the rows from ``below``."""
    for y, row in enumerate(shown(app)):
        m = re.search(pattern, row)
        if y >= below and m:
            return m.start(1) if m.groups() else m.start(), y
    raise AssertionError(f"{pattern!r} not shown:\n" + "\n".join(shown(app)))



async def redraw(pilot, app) -> TableScreen:
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, TableScreen)
    screen.redraw()
    await pilot.pause()
    return screen


async def test_dash_offer_and_a_bid_by_number_and_suit_taps():
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        table, members = await seated(pilot, app)
        m = table.match
        drive(table, members, lambda v: v["to_act"] == 0 and v["phase"] == "dash")
        await redraw(pilot, app)
        before = len(m.log)
        await pilot.click(offset=box(app, "n"))          # no dash
        await pilot.pause()
        assert m.log[before] == (0, {"type": "dash", "take": False})
        drive(table, members, lambda v: v["to_act"] == 0 and v["phase"] == "auction")
        screen = await redraw(pilot, app)
        legal = screen.view["legal"]
        bid = next(a for a in legal if a["type"] == "bid" and a["suit"] == "S")
        n = bid["n"]
        before = len(m.log)
        await pilot.click(offset=cell(app, rf"(?<!\S)({n})(?!\S)", below=2))
        await pilot.pause()
        assert screen.state.sel_n == n and len(m.log) == before       # chosen, not sent
        await pilot.click(offset=cell(app, r"(♠)(?!\S)", below=2))
        await pilot.pause()
        assert screen.state.sel_suit == "S" and len(m.log) == before
        await pilot.click(offset=box(app, "⏎"))
        await pilot.pause()
        assert m.log[before] == (0, {"type": "bid", "n": n, "suit": "S"})


async def test_with_is_tapped_like_its_key():
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        table, members = await seated(pilot, app)

        def policy(mt, s):
            bid = {"type": "bid", "n": 5, "suit": "H"}
            if bid in mt.legal_actions(s) and mt.view(s)["auction"]["bid"] is None:
                return bid
            return first_legal(mt, s)
        drive(table, members, lambda v: v["to_act"] == 0 and v["phase"] == "auction"
              and (v["auction"]["bid"] or {}).get("n") == 5, policy)
        await redraw(pilot, app)
        before = len(table.match.log)
        await pilot.click(offset=box(app, "w"))
        await pilot.pause()
        assert table.match.log[before] == (0, {"type": "with"})


async def test_a_tap_on_a_card_that_cannot_be_played_says_why_and_plays_nothing():
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        table, members = await seated(pilot, app)
        v = drive(table, members, lambda v: v["to_act"] == 0 and v["phase"] == "play"
                  and v["trick"] and len({a["card"] for a in v["legal"]}) < len(v["hand"]))
        screen = await redraw(pilot, app)
        legal = {a["card"] for a in v["legal"]}
        card = next(c for c in v["hand"] if c not in legal)
        face = app.look.card_str(card)
        before = len(table.match.log)
        await pilot.click(offset=cell(app, rf"(?<!\S)({re.escape(face)})", below=8))
        await pilot.pause()
        text = "\n".join(shown(app))
        assert len(table.match.log) == before and screen.state.sel_card != card
        assert f"{face} cannot be played now" in text.replace("\n", " ") or \
            "cannot be played" in text, text
        # a playable one: the first tap chooses it, the second plays it; even the card
        # the cursor is already on is only chosen by a first tap (no play by surprise)
        ok = screen.state.sel_card
        assert ok in legal
        face = app.look.card_str(ok)
        where = cell(app, rf"(?<!\S)({re.escape(face)})", below=8)
        await pilot.click(offset=where)
        await pilot.pause()
        assert screen.state.sel_card == ok and len(table.match.log) == before
        await pilot.click(offset=cell(app, rf"(?<!\S)({re.escape(face)})", below=8))
        await pilot.pause()
        assert table.match.log[before] == (0, {"type": "play", "card": ok})


async def test_a_lobby_row_is_chosen_by_a_tap_and_sat_at_by_a_second():
    app = new_app()
    reg = app.registry
    tables = [reg.create("tarneeb41", None), reg.create("estimation", 18)]
    for t, name in zip(tables, ("samir", "mona"), strict=True):
        t.sit(Member(name, f"key:x:{name}"), 0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        lobby = app.screen
        other = next(t for i, t in enumerate(tables)
                     if lobby.rows[lobby.cursor]["id"] != t.id)
        where = cell(app, rf"(?<!\S)({other.id})(?!\S)", below=1)
        await pilot.click(offset=where)
        await pilot.pause()
        assert app.screen is lobby and lobby.rows[lobby.cursor]["id"] == other.id
        await pilot.click(offset=where)
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert any(mb is app.member for mb in other.members())


async def test_a_dialog_is_answered_by_taps():
    """Leaving a match asks first: its "n" box keeps the seat, its "y" box leaves."""
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        table, _members = await seated(pilot, app)
        await redraw(pilot, app)
        await pilot.click(offset=box(app, "q"))
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmScreen"
        await pilot.click(offset=box(app, "n"))
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert table.seat_of(app.member) == 0
        await pilot.click(offset=box(app, "q"))
        await pilot.pause()
        await pilot.click(offset=box(app, "y"))
        await pilot.pause()
        await pilot.pause()
        assert not isinstance(app.screen, TableScreen)
        assert table.seat_of(app.member) is None


@pytest.mark.parametrize("key,screen_name", [("n", "CreateScreen"), ("i", "ProfileScreen"),
                                             ("?", "HelpScreen")])
async def test_the_lobby_keys_row_is_tappable(key, screen_name):
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.click(offset=box(app, key))
        await pilot.pause()
        assert type(app.screen).__name__ == screen_name
        await pilot.click(offset=box(app, "esc"))
        await pilot.pause()
        assert type(app.screen).__name__ == "LobbyScreen"


async def test_the_table_log_shows_the_chat_scrolls_and_its_back_box_is_tapped():
    """The log (``e`` at a compact table) is a board page: its chat, its keys' boxes
    tappable, and drawn centred at most W wide when the window grows under it."""
    from tui.screens.log import LogScreen
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        table, members = await seated(pilot, app)
        table.say(members[1], "hello from p1")
        await redraw(pilot, app)
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, LogScreen)
        rows = shown(app)
        assert rows[0].startswith(" Table log") and any("hello from p1" in r for r in rows)
        await pilot.press("down")
        await pilot.pause()
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        await pilot.pause()
        assert shown(app)[0].startswith(" " * 10 + " Table log"), shown(app)[0]
        x, y = box(app, "esc")
        assert x >= 10
        await pilot.click(offset=(x, y))
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
