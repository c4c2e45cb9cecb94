"""Pilot tests of the lobby and the table screen (no SSH)."""

from __future__ import annotations

from engine.room import Registry
from tui.app import LammaApp


async def test_quick_play_opens_a_table_with_computer_players_and_plays_by_keys():
    reg = Registry(bot_pause=0.0, trick_pause=0.0)
    app = LammaApp(reg, "ali", "key:x:ali")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("p")
        await pilot.pause()
        table = app.member.table
        assert table is not None and table.status == "playing"
        m = table.match
        screen = app.screen
        assert type(screen).__name__ == "TableScreen"
        # answer whatever is asked, by keys only, until a card was played by us
        for _ in range(400):
            await pilot.pause(0.01)
            if m.to_act != 0:
                continue
            types = {a["type"] for a in m.legal_actions(0)}
            before = len(m.log)
            if "dash" in types:
                await pilot.press("n")
            elif "pass" in types:
                await pilot.press("p")
            elif "call" in types:
                await pilot.press("enter")
            elif "declare" in types:
                n = min(a["n"] for a in m.legal_actions(0))
                await pilot.press(str(n), "enter")
            elif "play" in types:
                await pilot.press("enter")
                await pilot.pause(0.05)
                assert len(m.log) > before and m.log[before][0] == 0
                assert m.log[before][1]["type"] == "play"
                break
            await pilot.pause(0.05)
            assert len(m.log) > before, f"keys did nothing in {types}"
        else:
            raise AssertionError("never reached our card play")


async def test_too_small_terminal_asks_for_a_larger_window():
    reg = Registry()
    app = LammaApp(reg, "ali", "key:x:ali")
    async with app.run_test(size=(39, 20)) as pilot:
        await pilot.pause()
        shown = app.screen.query_one("Board").shown()
        assert app.screen.too_small and any("Please enlarge the window" in row for row in shown)
        assert any("40×20" in row for row in shown)
        assert not any("Lamma" in row for row in shown)
        await pilot.resize_terminal(40, 20)         # a phone: the compact lobby at once
        await pilot.pause(0.1)
        shown = app.screen.query_one("Board").shown()
        assert not app.screen.too_small and app.screen.compact and "Lamma" in shown[0]
    app = LammaApp(reg, "ali", "key:x:ali")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        shown = app.screen.query_one("Board").shown()
        assert not app.screen.too_small and "card room" in shown[0]
        assert not any("Please enlarge" in row for row in shown)


async def test_auction_numbers_that_cannot_beat_the_bid_cannot_be_chosen():
    reg = Registry(bot_pause=0.0, trick_pause=0.0)
    app = LammaApp(reg, "ali", "key:x:ali")
    async with app.run_test(size=(80, 24)) as pilot:
        table = reg.create("estimation", 13)
        table.sit(app.member, 0)
        table.fill_with_bots(app.member, [1, 2, 3])
        app.open_table()
        m = table.match
        for _ in range(200):
            await pilot.pause(0.01)
            if m.to_act == 0:
                types = {a["type"] for a in m.legal_actions(0)}
                if "dash" in types:
                    await pilot.press("n")
                    continue
                if "bid" in types:
                    break
        else:
            return  # the computer players left no auction for us this deal
        screen = app.screen
        legal_ns = {a["n"] for a in m.legal_actions(0) if a["type"] == "bid"}
        low = min(legal_ns)
        if low > 4:
            await pilot.press(str(low - 1))
            assert screen.state.sel_n != low - 1
        await pilot.press("right")
        assert screen.state.sel_n in legal_ns
