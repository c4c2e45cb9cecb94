"""A phone over SSH (issue 26): a whole Estimation round in a 40×20 PTY, once with keys
only and once with taps only.

The taps are mouse events as Termux sends them when the application asks for them
(SGR coordinates: ``ESC [ < 0 ; x ; y M`` then ``… m``, 1-based). Where to tap is read
off the terminal's screen as pyte renders it: a key is tapped on its reversed box
(`` n ``, `` p ``, `` ⏎ ``), a number on its digits, a card on its face in the hand
(the lowest rows showing it). Nothing is pressed on the keyboard in the taps' round,
not even to open the table: the lobby's `` p `` (quick play) is tapped too.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from tui.cards import Look

LOOK = Look()
SIZE = (40, 20)

pytestmark = pytest.mark.slow       # a real SSH server and client


def rows(c: Any) -> list[str]:
    return list(c.screen.display)


def boxes(c: Any, text: str) -> list[tuple[int, int]]:
    """Where the screen shows ``text`` in a reversed box (the middle of each box):
    (column, row), 0-based."""
    out = []
    buf = c.screen.buffer
    for y in range(c.screen.lines):
        x = 0
        while x < c.screen.columns:
            if not buf[y][x].reverse:
                x += 1
                continue
            start = x
            while x < c.screen.columns and buf[y][x].reverse:
                x += 1
            shown = "".join(buf[y][i].data for i in range(start, x))
            if shown.strip() == text:
                out.append(((start + x - 1) // 2, y))
    return out


def found(c: Any, text: str, lowest: bool = True) -> tuple[int, int] | None:
    """The first cell of ``text`` on the screen (in the lowest row showing it)."""
    lines = rows(c)
    order = range(len(lines) - 1, -1, -1) if lowest else range(len(lines))
    for y in order:
        x = lines[y].find(text)
        if x >= 0:
            return x, y
    return None


def tap(c: Any, x: int, y: int) -> None:
    """A tap as Termux sends it: the left button down and up at cell (x, y)."""
    c.press(f"\x1b[<0;{x + 1};{y + 1}M".encode(), f"\x1b[<0;{x + 1};{y + 1}m".encode())


async def wait_until(check, what: str, c: Any, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not on screen\n" + "\n".join(rows(c)))
        await asyncio.sleep(0.02)


async def tap_box(c: Any, key: str) -> None:
    x, y = (await wait_until(lambda: boxes(c, key), f"the box {key!r}", c))[0]
    tap(c, x, y)


async def play_a_round(srv: Any, name: str, by_taps: bool) -> int:
    """Quick play from the lobby, then every move of the first round of Estimation by
    keys or by taps (as the screen shows them); the number of moves made."""
    c = await srv.pty_client(name, size=SIZE)
    try:
        await c.wait_for("p")
        await c.quiet(0.05)
        if by_taps:
            await tap_box(c, "p")                  # quick play: three computer players
        else:
            c.press("p")
        table = await wait_until(lambda: next(
            (t for t in srv.registry.tables.values() if t.match is not None), None),
            "a table", c)
        m = table.match
        seat = table.seat_of(next(mb for mb in table.members() if mb.name == name))
        moves = 0
        while not m.history and m.to_act is not None:
            shown = table.view(seat)
            if m.to_act != seat or shown is None or shown.get("to_act") != seat:
                await asyncio.sleep(0.005)
                continue
            await c.quiet(0.05)
            text = "\n".join(rows(c))
            assert "enlarge" not in text, text
            legal = m.legal_actions(seat)
            types = {a["type"] for a in legal}
            before = len(m.log)
            if by_taps:
                await tap_move(c, legal, types)
            else:
                press_move(c, legal, types)
            moves += 1
            await wait_until(lambda b=before: len(m.log) > b and m.log[b][0] == seat,
                             f"a move by {'taps' if by_taps else 'keys'} in {types}", c)
        assert m.history, "the round did not finish"
        await c.wait_for("Round 1", timeout=10)
        return moves
    finally:
        await c.close()


def press_move(c: Any, legal: list[dict], types: set[str]) -> None:
    if "dash" in types:
        c.press("n")
    elif "pass" in types:
        c.press("p")
    elif "call" in types:
        c.press("enter")
    elif "declare" in types:
        n = min(a["n"] for a in legal)
        c.press(*(["1", str(n - 10)] if n >= 10 else [str(n)]), "enter")
    else:
        card = [a["card"] for a in legal][-1]
        c.press(card[0].lower(), card[1].lower())


async def tap_move(c: Any, legal: list[dict], types: set[str]) -> None:
    if "dash" in types:
        await tap_box(c, "n")
    elif "pass" in types:
        await tap_box(c, "p")
    elif "call" in types:
        await tap_box(c, "⏎")                   # the call the screen offers
    elif "declare" in types:
        n = min(a["n"] for a in legal)
        # the number among the phase's numbers (above the hand), then ⏎
        where = await wait_until(lambda: number_cell(c, n), f"the number {n}", c)
        tap(c, *where)
        await wait_until(lambda: selected(c, str(n)), f"{n} chosen", c)
        await tap_box(c, "⏎")
    else:
        card = [a["card"] for a in legal][-1]
        face = LOOK.card_str(card)
        x, y = await wait_until(lambda: found(c, face), f"the card {face}", c)
        tap(c, x + len(face) - 1, y)            # chooses it
        await wait_until(lambda: selected(c, face), f"{face} chosen", c)
        x, y = found(c, face) or (x, y)
        tap(c, x + len(face) - 1, y)            # plays it


def number_cell(c: Any, n: int) -> tuple[int, int] | None:
    """The cell of the number ``n`` in the row of numbers to choose from."""
    import re
    for y, line in enumerate(rows(c)):
        nums = re.findall(r"(?<!\S)\d{1,2}(?!\S)", line)
        if len(nums) >= 4 and str(n) in nums:      # a row of numbers, not a score line
            m = re.search(rf"(?<!\S){n}(?!\S)", line)
            assert m is not None
            return m.start(), y
    return None


def selected(c: Any, text: str) -> bool:
    """``text`` is shown reversed (chosen) somewhere on the screen."""
    buf = c.screen.buffer
    for y, line in enumerate(rows(c)):
        x = line.find(text)
        while x >= 0:
            if buf[y][x].reverse:
                return True
            x = line.find(text, x + 1)
    return False


async def test_a_round_by_keys_in_a_40x20_pty(lamma_server):
    moves = await play_a_round(lamma_server, "hala", by_taps=False)
    assert moves >= 13 + 2          # the auction, a declaration or the call, 13 cards


async def test_a_round_by_taps_in_a_40x20_pty(lamma_server):
    moves = await play_a_round(lamma_server, "tala", by_taps=True)
    assert moves >= 13 + 2
