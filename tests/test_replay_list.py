"""The replays list (a tester's finding C): computer players said as the table names
them (or counted), never cut to "compute"; and what the list offers can be opened."""

from __future__ import annotations

import pytest
from stacked import random_match
from test_tui_lobby_extras import app_for, keep

from server.store import Store
from tui.screens.replay import ReplayListScreen

SIZE = (80, 24)


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "lamma.db")


def listed(app) -> list[str]:
    return app.screen.query_one("#replays-list").plain.splitlines()


async def test_the_players_column_names_computer_players_as_the_table_does(store):
    # a guest with three computer players, abandoned; a person with one computer player
    alone = keep(store, random_match("estimation", 13, 3), ("guest:lin", None, None, None),
                 finish=False)
    store.abandon(alone, 2)
    keep(store, random_match("tarneeb41", None, 4), ("ana", None, "guest:zed", "dee"))
    app = app_for({"store": store}, "ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ReplayListScreen)
        rows = listed(app)
        assert not any("compute" in row for row in rows), rows
        assert any("ana, Bot-2, zed°, dee" in row for row in rows), rows
        lin = next(row for row in rows if "lin°" in row)
        # every item whole: a name, or the computer players left counted
        players = lin[lin.index("lin°"):55].strip().split(", ")
        assert players[0] == "lin°", lin
        assert all(p in ("Bot-2", "Bot-3", "Bot-4") or p.endswith(" bots")
                   for p in players[1:]), lin


async def test_the_review_is_offered_only_on_a_replay_the_viewer_may_review(store):
    """A guest's match (a guest's play is nobody's to come back to) opens as a replay
    for anyone, its guest included, but its review is refused to them: ``v`` is not
    offered there (it said "No such match of yours: …");
    a person's own match offers it and opens it."""
    from tui.screens.replay import ReplayScreen
    from tui.screens.review import ReviewScreen
    theirs = keep(store, random_match("estimation", 13, 3), ("guest:lin", None, None, None),
                  finish=False)
    store.abandon(theirs, 2)
    own = keep(store, random_match("tarneeb41", None, 4), ("ana", None, "guest:zed", "dee"))
    for name, guest, mid, offered in (("lin", True, theirs, False), ("ana", False, theirs, False),
                                      ("ana", False, own, True)):
        app = app_for({"store": store}, name, guest=guest)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.push_screen(ReplayScreen(mid))
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReplayScreen) and screen.model is not None
            keys = screen.query_one("#keys").render().plain
            assert ("review" in keys) is offered, (name, mid, keys)
            await pilot.press("v")
            await pilot.pause()
            assert isinstance(app.screen, ReviewScreen) is offered, (name, mid)
