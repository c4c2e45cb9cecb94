"""The board's own reading of a line (``tui.widgets.board._line``) against Rich's.

The board turns each line into cells (what each cell shows, its style) without
Rich's segments (issue 12: the segments, their crop and pad cost a fifth of a
frame).  Here every line of real frames of the three games, and lines made to be
awkward (wide and combining characters, overlapping spans, a wide character cut
at the edge), are read both ways: Rich's ``Text.render`` cropped and padded by a
Strip, as the board did before, and the board's; the cells must be the same.
"""

from __future__ import annotations

import io
import time
from itertools import pairwise, repeat

import pytest
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from stacked import quick_policy as first_legal
from textual.strip import Strip

from engine.room import Registry
from engine.room import Session as Member
from engine.room.events import TableChange
from tui.cards import Look
from tui.screens import table_draw as draw
from tui.screens.table import table_facts
from tui.screens.table_state import TableState
from tui.widgets import board

CONSOLE = Console(width=80, height=24, file=io.StringIO(), force_terminal=True,
                  color_system="256")


def rich_cells(text: Text, width: int) -> tuple[tuple[str, ...], tuple[Style | None, ...]]:
    """The cells as the board read them before: Rich's segments, cropped and padded to
    ``width`` by a Strip, cell by cell (a wide character's second cell is "",
    zero-width characters join the cell before)."""
    segments = [s for s in text.render(CONSOLE, end="") if s.text]
    if not text.spans and text.style:       # Rich leaves a span-less text's style to the console
        segments = list(Segment.apply_style(segments, CONSOLE.get_style(text.style)))
    chars: list[str] = []
    styles: list[Style | None] = []
    for seg in Strip(segments).crop(0, width).adjust_cell_length(width):
        style = seg.style or None
        lead, cells = board._text_cells(seg.text)
        if lead and chars:
            chars[-1] += lead
        chars.extend(cells)
        styles.extend(repeat(style, len(cells)))
    return tuple(chars), tuple(styles)


def board_cells(text: Text, width: int):
    board._LINES.clear()
    return board._line(CONSOLE, text, (text.plain, tuple(text.spans), text.style, width, 0), width)


def frames_lines() -> list[Text]:
    """Every line of the four seats' frames through a few dozen moves of each game."""
    out: list[Text] = []
    for game, length in [("estimation-kotshina", "micro"), ("tarneeb41", None), ("estimation", 13)]:
        table = Registry(bot_pause=0.0, trick_pause=0.0).create(game, length)
        table.seed = 5
        members = [Member(f"p{i}", f"key:x:p{i}") for i in range(4)]
        for i, mem in enumerate(members):
            table.sit(mem, i)
        m = table.match
        for _ in range(40):
            if m.to_act is None:
                break
            table.act(members[m.to_act], first_legal(m, m.to_act))
            for seat in range(4):
                for look in (Look(), Look(colour=False), Look(language="ar")):
                    frame = draw.draw_table(table.view(seat), TableState(),
                                            table_facts(TableChange(table, "state"), members[seat]), look,
                                            time.monotonic())
                    out.extend(frame.lines)
                    out.append(frame.footer)
    return out


def awkward_lines() -> list[Text]:
    lines = [Text(""), Text("plain ascii"), Text("bold whole", style="bold"),
             Text("漢字 wide", style="red"), Text("e\u0301 combining"), Text("\u0301lead zero-width"),
             Text("ﺏﺎﻧﺍﺮﺘﻟﺍ ♠ ♥ ♦ ♣ 10♠"), Text("x" * 100, style="dim")]
    t = Text("overlapping spans here", style="on blue")
    t.stylize("bold", 0, 11)
    t.stylize("red", 5, 16)
    t.stylize("italic", 3, 4)
    lines.append(t)
    t = Text("nested 漢字 and more 漢字", style="underline")
    t.stylize("reverse", 7, 9)
    t.stylize("bold green", 8, 20)
    lines.append(t)
    t = Text("touching")
    t.stylize("bold", 0, 4)
    t.stylize("red", 4, 8)
    t.stylize("", 2, 3)                 # an empty style among them
    lines.append(t)
    # spans given out of order, an empty one, one past the end: not one after another
    lines.append(Text("out of order", spans=[Span(4, 6, "red"), Span(0, 3, "bold"),
                                             Span(2, 2, "italic")]))
    lines.append(Text("after the end", spans=[Span(0, 5, "green"), Span(6, 40, "bold")]))
    return lines


@pytest.mark.slow          # 5,000 lines of real frames at two widths (the awkward ones:
async def test_the_board_reads_real_frames_as_rich_does():      # the fast tier's)
    lines = frames_lines()          # (a table plays on a running loop)
    assert len(lines) > 5000
    for width in (80, 120):
        for text in lines:
            assert board_cells(text, width) == rich_cells(text, width), text.plain


@pytest.mark.parametrize("width", [0, 1, 3, 4, 5, 6, 10, 80])
def test_awkward_lines_cut_and_padded_as_rich_does(width):
    for text in awkward_lines():
        if text.plain.startswith("e\u0301") and width == 1:
            continue        # the one difference: the next test
        assert board_cells(text, width) == rich_cells(text, width), (text.plain, width)


def test_a_combining_mark_stays_with_its_letter_at_the_edge():
    """Cut right after "e" + U+0301, Rich's crop drops the mark; the board keeps it
    with its letter (the cell shows é either way, as the terminal draws it)."""
    assert rich_cells(Text("e\u0301x"), 1)[0] == ("e",)
    assert board_cells(Text("e\u0301x"), 1)[0] == ("e\u0301",)


def test_a_wide_character_cut_at_the_edge_becomes_a_space():
    chars, styles = board_cells(Text("ab漢", style="bold"), 3)
    assert chars == ("a", "b", " ") and styles[2] == Style(bold=True)


def test_a_line_with_a_style_and_no_spans_keeps_its_style():
    """" Your turn" is one such line: drawn plain before (Rich's ``Text.render`` leaves
    a span-less text's own style to the console, and the board has none)."""
    chars, styles = board_cells(Text(" Your turn", style="bold"), 12)
    assert "".join(chars) == " Your turn  "
    assert styles[:10] == (Style(bold=True),) * 10 and styles[10:] == (None, None)


def test_segments_for_textual_repaints_hold_the_same_cells():
    for text in awkward_lines():
        cells = board_cells(text, 30)
        segments = board._segments(cells)
        assert "".join(s.text for s in segments) == "".join(cells[0])
        assert Strip(segments).cell_length == 30
        # each segment is one run of one style
        x = 0
        for seg in segments:
            n = len(board._text_cells(seg.text)[1]) if not seg.text.isascii() else len(seg.text)
            assert all(st == seg.style for st in cells[1][x:x + n])
            x += n


def test_changed_spans_find_every_changed_cell():
    """Between two lines of one width (the board's): spans cover every changed cell,
    start and end on one (or on a wide character's other half) and keep at least GAP
    unchanged cells between them.  Styles compare by identity: the board's lines hold
    one object per style (``_line`` interns them, the next test)."""
    import random
    rnd = random.Random(12)
    styles = [None, Style(bold=True), Style(color="red"), Style(italic=True)]
    for _ in range(3000):
        width = rnd.choice([0, 1, 15, 16, 17, 40, 80])
        chars = [rnd.choice("ab ") for _ in range(width)]
        for x in range(1, width):           # some wide characters: "" after them
            if rnd.random() < 0.05 and chars[x - 1] != "":
                chars[x - 1], chars[x] = "漢", ""
        sts = [rnd.choice(styles) for _ in range(width)]
        new_chars, new_sts = list(chars), list(sts)
        for _ in range(rnd.choice([0, 1, 2, 5, 30])):
            if width:
                x = rnd.randrange(width)
                if new_chars[x] == "" or (x + 1 < width and new_chars[x + 1] == ""):
                    continue
                if rnd.random() < 0.5:
                    new_chars[x] = rnd.choice("abc ")
                else:
                    new_sts[x] = rnd.choice(styles)
        old, new = (tuple(chars), tuple(sts)), (tuple(new_chars), tuple(new_sts))
        spans = board._changed_spans(old, new)
        n_new = len(new_chars)
        changed = {x for x in range(min(width, n_new))
                   if chars[x] != new_chars[x] or sts[x] is not new_sts[x]}
        changed |= set(range(min(width, n_new), max(width, n_new)))
        covered = {x for lo, hi in spans for x in range(lo, hi)}
        assert changed <= covered
        for (_, hi), (lo, _) in pairwise(spans):
            assert lo - hi >= board.GAP            # closer spans are one
        for lo, hi in spans:
            assert lo < hi
            assert lo in changed or (lo + 1 < n_new and new_chars[lo + 1] == "")
            assert hi - 1 in changed or (hi - 1 < n_new and new_chars[hi - 1] == "") \
                or hi - 1 >= n_new
            assert lo >= n_new or new_chars[lo] != ""    # a wide character kept whole


def test_a_style_is_one_object_in_every_line_of_the_board():
    """Cells compare styles by identity: lines made apart, with their styles made
    apart (a style string, a Style, spans), hold one object per style."""
    bold_red = Style(bold=True, color="red")
    a = board_cells(Text("ab", style="bold red"), 4)
    b = board._line(CONSOLE, Text("cd", style=bold_red), ("cd", (), bold_red, 4, 0), 4)
    t = Text("xy")
    t.stylize("bold red", 1, 2)
    c = board._line(CONSOLE, t, ("xy", tuple(t.spans), "", 4, 0), 4)
    assert a[1][0] is b[1][1] is c[1][1]
    assert a[1][2] is None and c[1][0] is None
    assert board._changed_spans(a, (("a", "b", " ", " "), a[1])) == []


def test_spans_and_their_ansi_are_worked_out_once_per_pair_of_cells(monkeypatch):
    """The four screens at a table often change a line the same way: the spans
    between two cells objects, and the ANSI text of a span, are computed once; an
    entry under the same ids but for other cells (ids are reused) is not taken."""
    from rich.color import ColorSystem

    old, new = board_cells(Text("p1 to play"), 20), board_cells(Text("p2 to play!"), 20)
    board._LINES.clear()
    calls: list[str] = []
    spans_of, render = board._changed_spans, board._render_cells
    monkeypatch.setattr(board, "_changed_spans",
                        lambda a, b: calls.append("spans") or spans_of(a, b))
    monkeypatch.setattr(board, "_render_cells",
                        lambda *a: calls.append("ansi") or render(*a))
    board._SPANS.clear()
    board._ANSI.clear()
    first = board._spans_between(old, new)
    assert first == spans_of(old, new) == [(1, 2), (10, 11)]
    assert board._spans_between(old, new) is first
    ansi = board._ansi(new, 1, 11, ColorSystem.EIGHT_BIT)
    assert board._ansi(new, 1, 11, ColorSystem.EIGHT_BIT) is ansi
    assert ansi == render(new, 1, 11, ColorSystem.EIGHT_BIT)
    assert calls == ["spans", "ansi"]
    # stale entries under these very ids, left by cells since gone
    other = board_cells(Text("something else"), 20)
    board._SPANS[(id(old), id(new))] = (other, other, [(0, 20)])
    board._ANSI[(id(new), 1, 11, ColorSystem.EIGHT_BIT)] = (other, "stale")
    assert board._spans_between(old, new) == [(1, 2), (10, 11)]
    assert board._ansi(new, 1, 11, ColorSystem.EIGHT_BIT) == ansi
    assert calls == ["spans", "ansi", "spans", "ansi"]


def test_changed_cells_are_written_as_textual_would_write_them():
    """``_render_cells`` (the board's direct writes) gives the ANSI text Textual's own
    repaint would for the same cells: the line's segments cropped, simplified, rendered.
    (Lines with a combining mark aside: a crop after its letter drops the mark, which
    the board writes with its letter, as in the test above.)"""
    from rich.color import ColorSystem

    for text in awkward_lines():
        if "\u0301" in text.plain:
            continue
        cells = board_cells(text, 30)
        chars = cells[0]
        whole = [x for x in range(31) if x == 30 or chars[x] != ""]   # not inside a wide one
        for lo in whole:
            for hi in whole:
                if hi < lo:
                    continue
                strip = Strip(board._segments(cells)).crop(lo, hi).simplify()
                want = "".join(seg.text if not seg.style
                               else Strip.render_style(seg.style, seg.text, ColorSystem.EIGHT_BIT)
                               for seg in strip)
                assert board._render_cells(cells, lo, hi, ColorSystem.EIGHT_BIT) == want


async def test_lines_drawn_from_a_column_keep_their_objects():
    """``set_lines(lines, at=...)``: a line from column x; the same object at the same
    column is skipped without a comparison; a new column redraws it."""
    from textual.app import App

    class One(App[None]):
        def compose(self):
            yield board.Board()

    app = One()
    async with app.run_test(size=(100, 5)) as pilot:
        await pilot.pause()
        b = app.query_one(board.Board)
        title, row = Text("title", style="bold"), Text("row")
        b.set_lines([title, row], at=[10, 10])
        shown = b.shown()
        assert shown[0] == " " * 10 + "title" + " " * 85 and shown[1].startswith(" " * 10 + "row")
        assert b._cells[0][1][10] == Style(bold=True) and b._cells[0][1][9] is None
        keys = list(b._texts)
        b.set_lines([title, row], at=[10, 10])        # nothing new: the keys not even made
        assert all(a is c for a, c in zip(b._texts, keys, strict=True))
        b.set_lines([title, row], at=[10, 20])
        assert b.shown()[1].startswith(" " * 20 + "row")


async def test_the_boards_area_is_its_content_region_placed_and_styled():
    """``Board.area`` (kept from the screen it was mounted on, for the cost of a frame)
    is Textual's own ``content_region``: below a docked line, and with a padding a
    style gives it, which it then takes from Textual instead."""
    from textual.app import App
    from textual.widgets import Static

    class Two(App[None]):
        CSS = "#top { dock: top; height: 2; } .padded { padding: 1 2; }"

        def compose(self):
            yield Static("above", id="top")
            yield board.Board()

    app = Two()
    async with app.run_test(size=(90, 20)) as pilot:
        await pilot.pause()
        b = app.query_one(board.Board)
        assert b.area == b.content_region and b.area.y == 2 and b.area.size == (90, 18)
        b.add_class("padded")
        await pilot.pause()
        assert b.area == b.content_region and b.area.size == (86, 16) and b.area.y == 3
        b.set_lines([Text("row")])
        assert b.shown()[0].startswith("row") and len(b.shown()) == 16


async def test_the_lobby_is_one_widget():
    """The lobby is drawn by one Board (issue 12: a new session's first screen cost
    ~25 ms of one loop step with twenty-odd one-line widgets; ~2 ms with one)."""
    from engine.room import Registry
    from tui.app import LammaApp
    from tui.screens.lobby import LobbyScreen

    app = LammaApp(Registry(), "ali", "key:x:ali")
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)
        assert [type(w).__name__ for w in app.screen.query("*")] == ["Board"]
        b = app.screen.query_one(board.Board)
        assert "card room" in b.shown()[0]
        # the title bar: 80 columns centred, coloured to its end, nothing beside it
        styles = b._cells[0][1]
        assert all(st is not None and st.bgcolor is not None for st in styles[10:90])
        assert styles[:10] == (None,) * 10 and styles[90:] == (None,) * 10


def strips_alike(ours, theirs) -> bool:
    return [list(strip) for strip in ours] == [list(strip) for strip in theirs]


async def test_textual_paints_the_board_from_its_cells_as_its_own_rendering_would():
    """``Board.render_lines`` (what Textual's compositor paints the board with) reads
    the board's cells every time, not Textual's cache of rendered lines (the board
    writes cells past it), and gives what Textual's own rendering gives for the same
    cells: whole, cropped, and cut or padded after a resize not yet drawn."""
    from textual.app import App
    from textual.geometry import Region
    from textual.widget import Widget

    class One(App[None]):
        def compose(self):
            yield board.Board()

    def textual_own(b, crop):
        b._styles_cache.clear()               # (Textual's rendering, afresh)
        return Widget.render_lines(b, crop)

    app = One(ansi_color=True)
    async with app.run_test(size=(60, 9)) as pilot:
        await pilot.pause()
        b = app.query_one(board.Board)
        assert b._plain_styles()
        b.set_lines(awkward_lines()[:9])
        await pilot.pause()
        crops = [Region(0, 0, 60, 9), Region(3, 1, 20, 4), Region(0, 8, 60, 1),
                 Region(59, 0, 1, 9)]
        for crop in crops:
            assert strips_alike(b.render_lines(crop), textual_own(b, crop)), crop
        for size in ((70, 9), (50, 12)):           # resized: the lines not drawn again yet
            await pilot.resize_terminal(*size)
            await pilot.pause()
            whole = Region(0, 0, *size)
            assert strips_alike(b.render_lines(whole), textual_own(b, whole)), size
        b.styles.padding = (1, 2)                  # not plain: Textual's own, as it is
        await pilot.pause()
        assert not b._plain_styles()


class Terminal:
    """A ``Surface`` that keeps what was sent."""

    def __init__(self) -> None:
        self.frames = 0
        self.sent: list[str] = []
        self._pending: list[str] = []

    def write(self, data: str) -> None:
        self._pending.append(data)

    def flush(self) -> None:
        if self._pending:
            self.sent.append("".join(self._pending))
            self._pending.clear()
            self.frames += 1


async def test_changed_cells_go_to_the_surface_and_a_later_paint_shows_them():
    """With a ``Surface`` (the SSH driver's), a changed line's cells are written to it
    at once and nothing is left for Textual to paint; Textual's next paint of the
    screen shows those cells.  Without one, or while the board is covered, Textual
    paints them."""
    from textual.app import App
    from textual.screen import Screen

    class One(App[None]):
        def compose(self):
            yield board.Board()

    app = One(ansi_color=True)       # (no line filter: the terminal's own colours, as ours)
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause()
        b = app.query_one(board.Board)
        assert b._plain_styles()
        b.set_lines([Text("first line"), Text("second")])
        await pilot.pause()
        terminal = Terminal()
        app.surface = terminal                       # type: ignore[attr-defined]
        b.set_lines([Text("first LINE"), Text("second")])
        assert terminal.sent == ["\x1b[1;7HLINE\x1b[0m"]
        assert not app.screen._dirty_widgets and not app.screen._repaint_required
        app.screen.refresh()
        await pilot.pause()
        painted = app.screen._compositor.render_strips()
        assert painted[0].text.startswith("first LINE") and painted[1].text.startswith("second")
        b.direct = False                              # covered, says its owner
        b.set_lines([Text("first line"), Text("second")])
        assert len(terminal.sent) == 1
        b.direct = True
        await app.push_screen(Screen())               # another screen on top
        b.set_lines([Text("first LINE"), Text("second")])
        assert len(terminal.sent) == 1
        app.pop_screen()
        await pilot.pause()
        app.surface = None                            # type: ignore[attr-defined]
        b.set_lines([Text("first line"), Text("SECOND")])
        assert len(terminal.sent) == 1
        await pilot.pause()
        painted = app.screen._compositor.render_strips()
        assert painted[0].text.startswith("first line") and painted[1].text.startswith("SECOND")


def pyte_attrs(screen, y: int) -> list[tuple[str, bool, str]]:
    """What a row of a pyte screen shows: each cell's character, reverse, background."""
    return [(c.data, c.reverse, c.bg) for c in (screen.buffer[y][x] for x in range(screen.columns))]


async def test_direct_writes_keep_a_terminal_as_the_board_holds_it():
    """Frames of changed lines (shorter, longer, blank, styled, with reversed or
    coloured blanks, wide characters), written straight to a terminal (pyte): the
    terminal shows each frame as the board holds it, character and visible
    attributes, though a line's blank end is erased rather than written."""
    import random

    import pyte
    from textual.app import App

    class One(App[None]):
        def compose(self):
            yield board.Board()

    rng = random.Random(26)
    words = ["card", "♠", "10♥", "漢字", "play", " ", "   ", "Bot-2 takes the trick", "ﻝﻮﻜﻟﺍ"]
    styles = ["", "bold", "dim", "reverse", "on blue", "bold red", "underline"]

    def random_line() -> Text:
        text = Text(" " * rng.randrange(0, 6))
        for _ in range(rng.randrange(0, 5)):
            text.append(rng.choice(words), style=rng.choice(styles))
            text.append(" " * rng.randrange(0, 12))
        return text

    app = One(ansi_color=True)
    width, height = 40, 8
    async with app.run_test(size=(width, height)) as pilot:
        await pilot.pause()
        b = app.query_one(board.Board)
        screen = pyte.Screen(width, height)
        stream = pyte.Stream(screen)
        terminal = Terminal()
        app.surface = terminal                       # type: ignore[attr-defined]
        b.set_lines([Text("")] * height)
        erased = 0
        for frame in range(300):
            lines = [random_line() if rng.random() < 0.5 else Text("") for _ in range(height)]
            first = {y for y in range(height) if rng.random() < 0.3}
            sent = len(terminal.sent)
            b.set_lines(lines, first=first)
            for data in terminal.sent[sent:]:
                stream.feed(data)
                erased += data.count("\x1b[K")
            assert screen.display == b.shown(), frame
            for y, (chars, cell_styles) in enumerate(b._cells):
                want = []
                for ch, st in zip(chars, cell_styles, strict=True):
                    if ch == "":
                        continue            # (pyte keeps a wide character's half apart)
                    reverse = bool(st and st.reverse)
                    bg = st.bgcolor.name if st and st.bgcolor else "default"
                    want.append((ch, reverse, bg))
                got = [cell for cell in pyte_attrs(screen, y) if cell[0] != ""]
                assert [(c, r) for c, r, _ in got] == [(c, r) for c, r, _ in want], (frame, y)
                assert [bg != "default" for _, _, bg in got] == \
                    [bg != "default" for _, _, bg in want], (frame, y)
        assert erased > 100


async def test_a_blank_end_is_erased_and_rows_asked_for_go_first():
    """A line's blank end (to the terminal's right edge) is erased ("ESC [ K"), not
    written as spaces; the rows asked for first are sent on their own ahead of the
    rest, unless the rest is a few bytes (``SEND_APART``); a cursor move to the first
    column leaves the column out."""
    from textual.app import App

    class One(App[None]):
        def compose(self):
            yield board.Board()

    app = One(ansi_color=True)
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause()
        b = app.query_one(board.Board)
        b.set_lines([Text("x" * 30), Text("y" * 30), Text("z" * 30)])
        await pilot.pause()
        terminal = Terminal()
        app.surface = terminal                       # type: ignore[attr-defined]
        b.set_lines([Text("x" * 2), Text("y" * 30), Text("z" * 30)])
        assert terminal.sent == ["\x1b[1;3H\x1b[0m\x1b[K\x1b[0m"]
        # row 2 first, apart from a rest worth a send of its own
        long_rest = Text("w" * 39 + "!")
        b.set_lines([Text("x" * 2), Text("Y" + "y" * 29), long_rest, long_rest], first={1})
        assert terminal.sent[1:] == ["\x1b[2HY\x1b[0m",
                                     "\x1b[3H" + "w" * 39 + "!\x1b[4H" + "w" * 39 + "!\x1b[0m"]
        # a rest of a few bytes goes with the rows asked for first
        b.set_lines([Text("X" * 2), Text("y" * 30), long_rest, long_rest], first={1})
        assert terminal.sent[3:] == ["\x1b[2Hy\x1b[0m\x1b[1HXX\x1b[0m"]
        # the board short of the terminal's right edge: spaces, no erasing
        b.styles.width = 20
        await pilot.pause()
        b.set_lines([Text("X" * 2), Text("y" * 30), long_rest, long_rest])
        b.set_lines([Text("X" * 2), Text("y" * 30), Text("w" * 4), long_rest])
        assert "\x1b[K" not in terminal.sent[-1] and " " * 8 in terminal.sent[-1]
