"""The lobby costs nothing when nothing it shows changed (issue 12): changes are
told to lobby members at most once a ``lobby_interval`` (the first at once, the
rest folded into one at the interval's end, the last state always shown), the
listing is computed once per change for everyone, private tables stay hidden
from others, and a lobby screen redraws only the rows whose table changed.

No test here depends on the machine's speed: bursts of changes are made without
yielding to the loop, and the folded notification is awaited, not timed."""

from __future__ import annotations

import asyncio
import gc
import weakref

from engine.room import Registry
from engine.room import Session as Member
from engine.room.registry import LOBBY_BATCH
from tui.app import LammaApp
from tui.screens.lobby import LobbyScreen

SIZE = (80, 24)
SLOW = 3600.0       # computer players that never move by themselves


class Listener(Member):
    """A lobby member that reads its listing when told, as a lobby screen does."""

    def __init__(self, reg: Registry, name: str):
        super().__init__(name, f"key:x:{name}")
        self.reg = reg
        self.seen: list[list[dict]] = []

    def lobby_changed(self) -> None:
        self.seen.append(self.reg.lobby_view(self))


async def told(reg: Registry) -> None:
    """Until every lobby member has been told (a few each loop iteration)."""
    for _ in range(len(reg.lobby) // LOBBY_BATCH + 2):
        await asyncio.sleep(0)


async def flushed(reg: Registry) -> None:
    """Until the folded notification at the interval's end has gone out."""
    await asyncio.sleep(0)
    while reg._lobby_handle is not None:
        await asyncio.sleep(0.01)
    await told(reg)


def ids(rows: list[dict]) -> list[str]:
    return [r["id"] for r in rows]


async def test_a_burst_is_told_once_at_once_and_once_folded_with_the_last_state():
    reg = Registry(bot_pause=SLOW, lobby_interval=0.05)
    ears = [Listener(reg, f"l{i}") for i in range(20)]
    reg.lobby.update(ears)
    computed = reg.lobby_computed
    first = reg.create("estimation", 13)            # after a quiet interval: told at once
    await told(reg)
    assert [len(e.seen) for e in ears] == [1] * 20
    assert reg.lobby_computed == computed + 1       # once for the twenty of them
    players = [Member(f"p{i}", f"key:x:p{i}") for i in range(4)]
    for p in players[:3]:                           # a burst within the interval
        first.sit(p)
    second = reg.create("tarneeb41")
    host = Member("p9", "key:x:p9")
    second.sit(host)
    second.fill_with_bots(host)
    first.detach(players[2], keep_seat=False)
    await asyncio.sleep(0)
    assert [len(e.seen) for e in ears] == [1] * 20   # folded: nothing yet
    await flushed(reg)
    assert [len(e.seen) for e in ears] == [2] * 20   # one more, for the whole burst
    assert reg.lobby_computed == computed + 2
    last = ears[0].seen[-1]
    assert ids(last) == [first.id, second.id]
    assert last[0]["status"] == "waiting" and last[1]["status"] == "playing"
    assert [s["name"] for s in last[0]["seats"]] == ["p0", "p1", None, None]
    assert all(e.seen[-1] is last for e in ears)    # the same rows for everyone
    # A change that shows nothing new (sit and leave again) tells nobody.
    first.sit(players[3])
    first.detach(players[3], keep_seat=False)
    await flushed(reg)
    assert [len(e.seen) for e in ears] == [2] * 20


async def test_an_unchanged_table_keeps_its_row_and_a_changed_one_gets_a_new_one():
    reg = Registry(bot_pause=SLOW)
    a = reg.create("estimation", 13)
    reg.create("estimation", 13)
    before = reg.listing()
    a.sit(Member("ana", "key:x:ana"))
    after = reg.listing()
    assert after[1] is before[1]
    assert after[0] is not before[0] and after[0]["seats"][0]["name"] == "ana"
    assert reg.listing() == after and reg.lobby_computed == 2


async def test_private_tables_stay_hidden_from_others_with_shared_rows():
    reg = Registry(bot_pause=SLOW)
    ana, ben, eve = (Member(n, f"key:x:{n}") for n in ("ana", "ben", "eve"))
    public = reg.create("estimation", 13)
    secret = reg.create("estimation", 13, private=True)
    secret.sit(ana)
    for who in (eve, None):
        assert ids(reg.lobby_view(who)) == ids(reg.listing(who)) == [public.id]
    mine = reg.lobby_view(ana)
    assert ids(mine) == [public.id, secret.id] and mine[1]["code"] == secret.code
    reg.check_code(ben, secret, secret.code)           # ben was given the code
    assert ids(reg.lobby_view(ben)) == [public.id, secret.id]
    assert "code" not in reg.lobby_view(eve)[0]
    # Everyone shares the public table's row; nobody else's listing holds the code.
    assert reg.lobby_view(eve)[0] is reg.lobby_view(ana)[0] is reg.lobby_view(ben)[0]
    secret.detach(ana, keep_seat=False)                 # gone: the table with her
    assert ids(reg.lobby_view(ana)) == [public.id]


def list_lines(screen: LobbyScreen):
    """The list's lines (the head, then the rows): the very Text objects drawn."""
    return screen.lines("list")


async def test_a_lobby_screen_shows_a_new_table_and_redraws_only_its_row():
    reg = Registry(bot_pause=SLOW, lobby_interval=0.05)
    first = reg.create("estimation", 13)
    app = LammaApp(reg, "zoe", "key:x:zoe")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        assert f"{first.id}  Estimation" in list_lines(lobby)[1].plain
        second = reg.create("tarneeb41")                # shown
        await flushed(reg)
        await pilot.pause()
        rows = list_lines(lobby)
        assert "waiting (4 free)" in rows[2].plain and f"{second.id}  Tarneeb" in rows[2].plain
        texts = list(rows)
        drawn = lobby.redraws
        people = [Member(f"p{i}", f"key:x:p{i}") for i in range(3)]
        for p in people:                                # a burst: one redraw
            second.sit(p)
        second.fill_with_bots(people[0])                # ... ending in a match under way
        await flushed(reg)
        await pilot.pause()
        assert lobby.redraws == drawn + 1
        rows = list_lines(lobby)
        assert "p0, p1, p2, Bot-4" in rows[2].plain and "hand 1" in rows[2].plain
        # The first table's line (highlighted) and the heading kept their very Text.
        assert rows[0] is texts[0] and rows[1] is texts[1]
        assert rows[2] is not texts[2]
        # Told again with nothing new to show: no redraw.
        lobby.lobby_changed()
        assert lobby.redraws == drawn + 1
        # The cursor moves: a redraw, the two rows' highlights swap.
        await pilot.press("down")
        await pilot.pause()
        assert lobby.redraws == drawn + 2 and lobby.cursor == 1


async def test_a_removed_table_is_not_held_by_the_listing():
    reg = Registry(bot_pause=SLOW)
    ana = Member("ana", "key:x:ana")
    table = reg.create("estimation", 13)
    table.sit(ana)
    assert ids(reg.listing()) == [table.id]
    gone = weakref.ref(table)
    table.detach(ana, keep_seat=False)      # nobody left: the table goes
    del table
    gc.collect()
    assert gone() is None and reg.tables == {}
    assert reg.listing() == []
