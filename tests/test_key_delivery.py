"""How a key pressed in a terminal reaches the screen (issue 12: the CPU per move).

A key read from a session's terminal for the table screen (whose key handling
never waits), with nothing queued ahead of it in the app or the screen and nothing
focused, is handled at once in the driver's reading task, as the app's and the
screen's message loops would have handled it (``LammaApp.key_now``): the priority
bindings first, then the screen.  Anything else — a key for a focused widget (the
chat line), a key behind queued messages, a key for another screen on top, every
event of a read after one that was posted — goes through the app's queue as
before.  An exception in the handler ends that session only.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

import pytest
from test_tui_delivery import new_app
from textual import events, messages
from textual.pilot import Pilot
from textual.screen import Screen

from engine.room import Table
from tui.app import LammaApp
from tui.i18n import ARABIC_KEYS
from tui.screens.table import TableScreen
from tui.widgets.board import Board

ARABIC_B = next(ar for ar, latin in ARABIC_KEYS.items() if latin == "b")


def key(name: str, char: str | None = None) -> events.Key:
    return events.Key(name, name if char is None else char)


def posted_keys(app) -> list[str]:
    """The keys posted to ``app`` from now as they come from the terminal (not yet
    forwarded to a screen or widget, nor bubbled back from one)."""
    seen: list[str] = []
    post = app.post_message

    def post_message(message) -> bool:
        if isinstance(message, events.Key) and not message.is_forwarded:
            seen.append(message.key)
        return post(message)
    app.post_message = post_message
    return seen


@contextlib.asynccontextmanager
async def at_a_waiting_table() -> AsyncIterator[tuple[LammaApp, Pilot, Table]]:
    """An app alone at a new table (the others' seats empty): the screen waits, and b
    fills the seats with computer players, closed again at the end (no decision of
    theirs left pending once the test's loop is gone)."""
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.registry.create("estimation", None)
        table.sit(app.member, 0)
        app.open_table()
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and table.match is None
        try:
            yield app, pilot, table
        finally:
            app.registry.close()
            await asyncio.sleep(0.01)


@pytest.mark.parametrize("typed", [key("b"), key(ARABIC_B)], ids=["latin", "arabic"])
async def test_a_key_with_nothing_ahead_is_handled_at_once_without_a_message(typed):
    async with at_a_waiting_table() as (app, _pilot, table):
        screen = app.screen
        lines = screen.query_one(Board).shown()
        posted = posted_keys(app)
        assert await app.key_now(typed) is True
        # handled before key_now returned: the seats filled, the dealt hand drawn
        assert table.match is not None
        assert screen.rendered_version == table.version
        assert screen.query_one(Board).shown() != lines
        assert typed.key == "b"                 # the Arabic layout's twin of b, as b
        assert posted == []


async def test_a_priority_binding_comes_first():
    async with at_a_waiting_table() as (app, pilot, _table):
        handled: list[str] = []
        app.screen.route_key = lambda k, c: handled.append(k) or True
        assert await app.key_now(key("ctrl+c", "\x03")) is True      # the app's quit_now
        await pilot.pause()
        assert handled == []
        assert not app.is_running


async def behind_a_queued_message(pilot, app, screen) -> None:
    app.post_message(messages.Prompt())         # (handled by nobody)


async def behind_a_message_for_the_screen(pilot, app, screen) -> None:
    screen.post_message(messages.Prompt())


async def with_the_chat_line_open(pilot, app, screen) -> None:
    screen.route_key("slash", "/")              # the chat line takes the focus
    await pilot.pause()
    assert screen.focused is not None and not app.message_queue_size


async def over_another_screen(pilot, app, screen) -> None:
    app.push_screen(Screen())       # nothing focused, but its handlers may wait
    await pilot.pause()
    assert not app.message_queue_size and app.screen.focused is None


@pytest.mark.parametrize("how", [behind_a_queued_message, behind_a_message_for_the_screen,
                                 with_the_chat_line_open, over_another_screen])
async def test_a_key_is_left_to_the_queue_when_something_comes_first(how):
    async with at_a_waiting_table() as (app, pilot, table):
        await how(pilot, app, app.screen)
        assert await app.key_now(key("b")) is False
        assert table.match is None              # not handled: the caller posts it
        app.post_message(key("b"))
        await pilot.pause()
        # posted, it is handled as before: by the chat line when it has the focus, by
        # the screen on top
        assert (table.match is None) == (how in (with_the_chat_line_open, over_another_screen))


async def test_a_failing_key_handler_ends_that_session_only():
    with pytest.raises(RuntimeError, match="a broken key"):     # what ended the app
        async with at_a_waiting_table() as (app, pilot, _table):

            def broken(k: str, c: str) -> bool:
                raise RuntimeError("a broken key")
            app.screen.route_key = broken
            assert await app.key_now(key("b")) is True
            await pilot.pause()
    assert app.return_code == 1


# ------------------------------------------------------------- over SSH
async def until(check, what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"no {what}"
        await asyncio.sleep(0.01)


async def test_keys_typed_at_the_table_skip_the_queues_and_keep_their_order(lamma_server):
    """A card typed by a real SSH client is played with no key through the app's or
    the screen's queue; a read with a key that opens the chat line, the words typed
    into it and Enter is delivered in order (the first at once, the rest posted)."""
    srv = lamma_server
    c = await srv.pty_client("hala")
    try:
        await c.wait_for("card room")
        c.press("p")                            # quick play with computer players
        await until(lambda: any(a.member.name == "hala" and isinstance(a.screen, TableScreen)
                                for a in srv.room.apps), "table screen")
        app = next(a for a in srv.room.apps if a.member.name == "hala")
        table, seat = app.member.table, app.member.seat
        assert table is not None and table.match is not None
        m = table.match
        posted = posted_keys(app)
        def our_turn() -> bool:
            # the turn as shown (committed, then drawn), not the engine's, which runs ahead
            shown = table.view(seat)
            return m.to_act == seat and shown is not None and shown.get("to_act") == seat
        await until(our_turn, "turn")
        await c.quiet(0.02)
        legal = m.legal_actions(seat)
        types = {a["type"] for a in legal}
        if types & {"dash", "pass", "call"}:
            keys = {"dash": ["n"], "pass": ["p"], "call": ["enter"]}[
                next(iter(types & {"dash", "pass", "call"}))]
        elif "declare" in types:
            n = min(a["n"] for a in legal)
            keys = ["1", str(n - 10), "enter"] if n >= 10 else [str(n), "enter"]
        else:
            keys = [legal[-1]["card"][0].lower(), legal[-1]["card"][1].lower()]
        before = len(m.log)
        c.press(*keys)
        await until(lambda: len(m.log) > before, f"{keys} to act in {types}")
        assert m.log[before][0] == seat
        assert posted == []
        # one read: / (handled at once, the chat line takes the focus), then the
        # words and Enter for the focused chat line, posted behind it
        c.press(b"/hi there\r")
        await c.wait_for("hi there")
        assert posted == ["h", "i", "space", "t", "h", "e", "r", "e", "enter"]
        assert [text for _, text in table.chat][-1:] == ["hi there"]
    finally:
        await c.close()


async def test_the_keys_of_one_read_let_the_other_sessions_run_between_them():
    """A read may hold up to KEY_BURST keys, each a frame when handled at once: the
    loop runs between them (a session reading in the meantime is not held up for the
    whole read), and they are still handled in order."""
    from server.driver import SSHDriver

    handled: list[tuple[str, int]] = []
    turns = [0]

    class App:
        async def key_now(self, event: events.Key) -> bool:
            handled.append((event.key, turns[0]))
            return event.key != "x"

        def post_message(self, message) -> None:
            handled.append(("posted " + message.key, turns[0]))

    async def others() -> None:
        while True:
            turns[0] += 1
            await asyncio.sleep(0)

    class Driver:
        _session_app = App()

    ticker = asyncio.create_task(others())
    await asyncio.sleep(0)
    try:
        await SSHDriver._deliver(Driver(), [key("a"), key("b"), key("x"), key("c")])
    finally:
        ticker.cancel()
    assert [k for k, _ in handled] == ["a", "b", "x", "posted x", "c"]
    seen = [t for _, t in handled]
    assert seen[0] < seen[1] < seen[2]      # the loop ran after a and after b
