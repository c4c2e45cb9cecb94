"""A move's own echo on a slow mobile link (issue 26: within one round trip plus 100 ms
at 300 ms and 64 kbit/s).

At 64 kbit/s every 100 bytes sent ahead of the echo cost 12.5 ms, so what matters is
what the terminal is sent before the player sees their move: here, with Pilot, the
sends the board makes for each of the player's own moves through a whole Estimation
round, at 40×20 (the compact layout) and 80×24, kept in a pyte terminal that must show
what the board holds after every frame. (The link itself: tests/bench/slow_link.py.)
"""

from __future__ import annotations

import pyte
import pytest
from seated import seated
from stacked import quick_policy
from textual.geometry import Region

from engine.room import Registry
from tui.app import LammaApp
from tui.screens import table as table_screen
from tui.screens.table import TableScreen
from tui.widgets.board import Board

# End to end through a session (a shaped link, Pilot scrolling): the full suite's.
pytestmark = pytest.mark.slow

ECHO_FIRST_MAX = 400    # bytes before the echo's end: 50 ms at 64 kbit/s


class Terminal:
    """A ``Surface`` (the SSH driver's part the board writes to) feeding pyte, that keeps
    each send."""

    def __init__(self, width: int, height: int) -> None:
        self.frames = 0
        self.sends: list[str] = []
        self._pending: list[str] = []
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.Stream(self.screen)

    def write(self, data: str) -> None:
        self._pending.append(data)

    def flush(self) -> None:
        if self._pending:
            data = "".join(self._pending)
            self._pending.clear()
            self.sends.append(data)
            self.stream.feed(data)
            self.frames += 1

    def show(self, rows: list[str]) -> None:
        """Start from what the board shows now (Textual painted it)."""
        for y, row in enumerate(rows):
            self.stream.feed(f"\x1b[{y + 1};1H{row}")
        self.sends.clear()


def key_for(m, seat: int) -> str:
    types = {a["type"] for a in m.legal_actions(seat)}
    if "dash" in types:
        return "n"
    if "pass" in types:
        return "p"
    return "enter"


async def echoes(size: tuple[int, int]) -> tuple[list[list[str]], list[str], int]:
    """Each own move's sends through the first round (and on until a round has ended
    with one's own card: its echo is the round's summary), any frame pyte showed wrong,
    and how many own moves ended a round."""
    app = LammaApp(Registry(bot_pause=3600.0, trick_pause=0.0), "ali", "key:x:ali")
    out: list[list[str]] = []
    wrong: list[str] = []
    async with app.run_test(size=size) as pilot:
        table, members = await seated(pilot, app)
        screen = app.screen
        assert isinstance(screen, TableScreen)
        board = screen.query_one(Board)
        assert board.area == Region(0, 0, *size)
        term = Terminal(*size)
        app.surface = term                          # type: ignore[attr-defined]
        term.show(board.shown())
        m = table.match
        ended = 0
        while not m.history or (not ended and len(m.history) < 6):
            seat = m.to_act
            if seat == 0:
                sent = len(term.sends)
                rounds = len(m.history)
                await pilot.press(key_for(m, 0))
                await pilot.pause()
                out.append(term.sends[sent:])
                ended += len(m.history) > rounds
            else:
                table.act(members[seat], quick_policy(m, seat))
                await pilot.pause()
            if term.screen.display != board.shown():
                wrong.append("\n".join(term.screen.display) + "\n---\n"
                             + "\n".join(board.shown()))
    return out, wrong, ended


@pytest.mark.parametrize("size", [(40, 20), (80, 24)], ids=["40x20", "80x24"])
async def test_a_moves_own_echo_is_sent_first_and_small(monkeypatch, size):
    """Each own move is echoed in a first send of at most ECHO_FIRST_MAX bytes (the card
    leaving the hand, the trick, whose turn, the phase's controls; the events and the
    keys follow in a send of their own), the last card of a round too (its frame is the
    round's summary and the next hand), and the terminal shows every frame as the board
    holds it: a line's blank end erased, not written as spaces."""
    monkeypatch.setattr(table_screen, "TRICK_HOLD", 3600.0)    # the trick stays put
    moves, wrong, ended = await echoes(size)
    assert not wrong, wrong[0]
    assert len(moves) >= 14 and ended          # the auction, a declaration, 13 cards
    first = [len(sends[0].encode()) for sends in moves if sends]
    assert len(first) == len(moves)            # every move was echoed
    assert max(first) <= ECHO_FIRST_MAX, sorted(first)
    assert any("\x1b[K" in send for sends in moves for send in sends)


async def test_a_turn_at_40x20_moves_neither_the_hand_nor_the_first_row_of_keys(monkeypatch):
    """At 40×20 the footer keeps the rows it has on one's turn from the dash offer to
    the last declaration, and again through the play (blank rows under the keys
    meanwhile): a turn coming or going, or the auction ending, leaves the hand's rows
    and the footer's first row where they are (a move's echo redraws what changed)."""
    monkeypatch.setattr(table_screen, "TRICK_HOLD", 3600.0)
    app = LammaApp(Registry(bot_pause=3600.0, trick_pause=0.0), "ali", "key:x:ali")
    async with app.run_test(size=(40, 20)) as pilot:
        table, members = await seated(pilot, app)
        screen = app.screen
        assert isinstance(screen, TableScreen)
        board = screen.query_one(Board)
        m = table.match
        seen: dict[str, set[tuple[int, int, bool]]] = {"bidding": set(), "play": set()}
        while not m.history:
            v = m.view(0)
            part = "play" if v["phase"] == "play" else "bidding"
            rows = board.shown()
            keys_row = next(y for y, row in enumerate(rows) if "/ chat" in row)
            hand_row = min((h.y for h in screen._hits if h.card), default=-1)
            if v["phase"] != "play" or len(v["hand"]) >= 10:    # (two rows of cards)
                seen[part].add((keys_row, hand_row, m.to_act == 0))
            if m.to_act == 0:
                await pilot.press(key_for(m, 0))
            else:
                table.act(members[m.to_act], quick_policy(m, m.to_act))
            await pilot.pause()
        for part, places in seen.items():
            assert {turn for _, _, turn in places} == {True, False}, (part, places)
            assert len({(k, h) for k, h, _ in places}) == 1, (part, places)
