"""The help at 80 columns (a tester's finding A): a line of the keys too long for
the window goes on under its text column, never at column 1; at a table the game
being played comes first, then the table's keys."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from textual.geometry import Region

from engine.room import Registry
from tui.app import LammaApp
from tui.cards import Look
from tui.i18n import Speech
from tui.screens.help import KEY_SECTIONS, KEYS, RULES, HelpScreen, hang, help_lines

HEADINGS = {part.splitlines()[0] for part in KEYS.split("\n\n")}


async def help_rows(size, game, language="en"):
    app = LammaApp(Registry(bot_pause=0.0, trick_pause=0.0), "ana", "key:x:ana",
                   look=Look(language=language))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        app.push_screen(HelpScreen(game))
        await pilot.pause()
        box = app.screen.query_one("#help-text")
        strips = box.render_lines(Region(0, 0, box.size.width, box.size.height))
        return [s.text.rstrip() for s in strips], box.size.width


@pytest.mark.parametrize("size", [(80, 24), (80, 40), (100, 30)])
@pytest.mark.parametrize("game", [None, "estimation", "tarneeb41"])
async def test_the_keys_wrap_under_their_text_column(size, game):
    rows, width = await help_rows(size, game)
    assert all(cell_len(r) <= width for r in rows)
    start = min(i for i, r in enumerate(rows) if r in HEADINGS)
    end = next(i for i, r in enumerate(rows) if r.startswith("Terms"))
    flush = [r for r in rows[start:end] if r and not r.startswith(" ")]
    assert set(flush) == HEADINGS, flush            # nothing else at column 1
    # At 80 columns the picture fits as drawn: no line of it is cut at all.
    drawn = [r for r in rows[start:end] if r]
    assert sorted(drawn) == sorted(line for line in KEYS.splitlines() if line)


@pytest.mark.parametrize("game", ["estimation", "tarneeb41"])
async def test_at_a_table_the_game_comes_first(game):
    rows, _ = await help_rows((80, 24), game)
    first = RULES[game][0].split()[0]
    rules = next(i for i, r in enumerate(rows) if r.startswith(first))
    table = rows.index("Table")
    assert 0 < rules < table < rows.index("Lobby")
    # Another language: the same order.
    logical = [t.plain.strip() for t in help_lines(Speech(), game, 60)]
    heads = [logical.index(h[0]) for h in KEY_SECTIONS]
    assert any(r.startswith(first) for r in logical[:heads[2]])
    assert heads[2] == min(heads)                  # the table's keys first


async def test_in_the_lobby_the_keys_come_in_their_order():
    rows, _ = await help_rows((80, 24), None)
    assert rows.index("Lobby") < rows.index("Table")
    assert rows[-1].startswith("Open a table")


def test_hang_indents_under_the_text_column():
    line = "  /    a command: /ignore, /report, an operator's /kick (/help lists them)"
    cut = hang(line, 40)
    assert cut[0].startswith("  /    a command") and len(cut) > 1
    assert all(c.startswith(" " * 7) and c[7] != " " for c in cut[1:])
    assert all(cell_len(c) <= 40 for c in cut)
    assert " ".join(c.strip() for c in cut).split() == line.split()
    long = "  x  " + "y" * 60                        # a word wider than the line
    assert all(cell_len(c) <= 30 for c in hang(long, 30))
