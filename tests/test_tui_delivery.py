"""How a table's change reaches a session's screen (issue 12: the CPU per move).

A change that comes from outside every session's handling — a move's commit
delivered by the store's writer, a computer player's decision: a loop callback
of the room's own — is drawn at once in each session's own context, without a
``TableChanged`` message's trip through Textual's queue.  A change made inside a
handler, or reaching an app with messages queued, is posted as before; an
exception while drawing ends that session only.
"""

from __future__ import annotations

import asyncio
import contextvars

import pytest
from stacked import quick_policy as first_legal
from textual import messages

from engine.room import Registry
from engine.room import Session as Member
from tui.app import LammaApp
from tui.messages import TableChanged
from tui.textual_compat import handling_app, run_as_app
from tui.widgets.board import Board


class Told(Member):
    """A player elsewhere: records what the table told it."""

    def __init__(self, name: str) -> None:
        super().__init__(name, f"key:x:{name}")
        self.told: list[str] = []

    def table_changed(self, change) -> None:
        self.told.append(change.what)


async def seated(pilot, app):
    table = app.registry.create("estimation", None)
    table.sit(app.member, 0)
    others = [Told(f"p{i}") for i in (1, 2, 3)]
    for i, member in enumerate(others, start=1):
        table.sit(member, i)
    app.open_table()
    await pilot.pause()
    return table, {0: app.member, 1: others[0], 2: others[1], 3: others[2]}


def move(table, members) -> None:
    m = table.match
    table.act(members[m.to_act], first_legal(m, m.to_act))


def counting_messages(app) -> list[str]:
    """The ``TableChanged`` messages posted to the app from now."""
    posted: list[str] = []
    post = app.post_message

    def post_message(message) -> bool:
        if isinstance(message, TableChanged):
            posted.append(message.change.what)
        return post(message)
    app.post_message = post_message
    return posted


async def from_the_room(call) -> None:
    """``call()`` as a loop callback from a context of its own: where the store's
    writer thread delivers a commit (its context has no app in it)."""
    done = asyncio.get_running_loop().create_future()

    def run() -> None:
        try:
            call()
        finally:
            done.set_result(None)
    asyncio.get_running_loop().call_soon(run, context=contextvars.Context())
    await done


def new_app() -> LammaApp:
    return LammaApp(Registry(bot_pause=0.0, trick_pause=0.0), "ali", "key:x:ali")


async def test_a_move_from_outside_every_handler_is_drawn_at_once_without_a_message():
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table, members = await seated(pilot, app)
        screen = app.screen
        handled = counting_messages(app)
        board = screen.query_one(Board)
        before, lines = table.version, board.shown()
        seen: dict[str, object] = {}

        def one_move() -> None:
            assert handling_app() is None
            move(table, members)            # the null store shows it at once (``then``)
            seen["drawn"] = screen.rendered_version
            seen["changed"] = board.shown() != lines
            seen["queued"] = app.message_queue_size
        await from_the_room(one_move)
        assert table.version == before + 1
        # drawn on the board before the callback ended, and no message queued for it
        assert seen == {"drawn": table.version, "changed": True, "queued": 0}
        await pilot.pause()
        assert handled == []
        assert screen.view is not None and screen.view["to_act"] == table.match.to_act


def inside_a_handler(app, make_move) -> None:
    run_as_app(app, make_move)      # the handler may still change what is drawn


def behind_a_queued_message(app, make_move) -> None:
    app.post_message(messages.Prompt())     # (handled by nobody)
    make_move()


@pytest.mark.parametrize("how", [inside_a_handler, behind_a_queued_message])
async def test_a_move_is_posted_and_drawn_after_what_comes_first(how):
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table, members = await seated(pilot, app)
        screen = app.screen
        handled = counting_messages(app)
        seen: dict[str, object] = {}

        def make_move() -> None:
            move(table, members)
            seen["drawn"] = screen.rendered_version
        await from_the_room(lambda: how(app, make_move))
        assert seen["drawn"] == table.version - 1
        await pilot.pause()
        assert handled == ["state"]
        assert screen.rendered_version == table.version


async def test_a_failing_draw_ends_that_session_only():
    app = new_app()
    told_after: list[list[str]] = []
    with pytest.raises(RuntimeError, match="a broken screen"):   # what ended the app
        async with app.run_test(size=(80, 24)) as pilot:
            table, members = await seated(pilot, app)

            def broken(change: object) -> None:
                raise RuntimeError("a broken screen")
            app.screen.table_changed = broken
            for seat in (1, 2, 3):
                members[seat].told.clear()
            await from_the_room(lambda: move(table, members))
            # the others at the table were told all the same, after the failure
            told_after.extend(members[seat].told for seat in (1, 2, 3))
            await pilot.pause()
            assert app.return_code == 1
    assert told_after == [["state"], ["state"], ["state"]]
    assert app.return_code == 1
