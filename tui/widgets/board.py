"""One widget that draws a whole screen from a list of lines.

The table screen is drawn by this single widget (no containers, no layout
work per move).  ``set_lines`` compares each new line with the one on screen
cell by cell and refreshes only the span of cells that changed, so a
one-card change repaints a handful of cells, not the screen.  Where the app
has a :class:`Surface` (the SSH driver is one) the changed cells are written
to it at once from the line's own cells (``_write_direct``), past Textual's
compositor, and Textual reads the board's lines from its cells whenever it
paints them (``render_lines``), so the two never disagree; a line's rendering
is cached for every session (``_line``), since the four screens at a table
share many lines.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import pairwise, repeat
from typing import TYPE_CHECKING, Any, Protocol

from rich.cells import get_character_cell_size
from rich.color import ColorSystem
from rich.console import COLOR_SYSTEMS, Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.errors import NoWidget
from textual.geometry import NULL_REGION, NULL_SPACING, Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.style import Style as TextualStyle
from textual.widget import Widget

from ..host import host

if TYPE_CHECKING:
    from textual.screen import Screen


_TEXT_CELLS: dict[str, tuple[str, tuple[str, ...]]] = {}


def _text_cells(text: str) -> tuple[str, tuple[str, ...]]:
    """What each cell of a non-ASCII ``text`` shows ("" after a wide character,
    zero-width characters joined to the one before), and the zero-width
    characters before the first cell.  Cached: the same suit symbols and box
    characters come back on every frame."""
    hit = _TEXT_CELLS.get(text)
    if hit is not None:
        return hit
    lead = ""
    out: list[str] = []
    for ch in text:
        w = get_character_cell_size(ch)
        if w == 0:
            if out:
                out[-1] += ch
            else:
                lead += ch
            continue
        out.append(ch)
        if w == 2:
            out.append("")
    if len(_TEXT_CELLS) >= 4096:
        _TEXT_CELLS.clear()
    hit = _TEXT_CELLS[text] = (lead, tuple(out))
    return hit


GAP = 8     # unchanged cells cheaper to resend than to jump over (a cursor move is ~8 bytes)


def _changed_spans(old: tuple, new: tuple) -> list[tuple[int, int]]:
    """Runs of changed cells between two ``(chars, styles)``, runs closer than
    GAP merged; wide characters kept whole."""
    (oc, os_), (nc, ns) = old, new
    if oc == nc and os_ == ns:
        return []
    n_old, n_new = len(oc), len(nc)
    # Styles are interned (``_line``): one object is one style, so cells compare
    # their styles by identity, not with Rich's comparison (in Python).  Only after
    # the interning table is cleared can an equal style come in another object: its
    # cells are then written again, the same as they were.
    diff = [x for x in range(min(n_old, n_new)) if oc[x] != nc[x] or os_[x] is not ns[x]]
    if n_old != n_new:
        diff.extend(range(min(n_old, n_new), max(n_old, n_new)))
    if not diff:
        return []
    spans: list[tuple[int, int]] = []
    lo = prev = diff[0]
    for x in diff[1:]:
        if x - prev - 1 >= GAP:
            spans.append((lo, prev + 1))
            lo = x
        prev = x
    spans.append((lo, prev + 1))
    out = []
    for lo, hi in spans:
        while lo > 0 and lo < n_new and nc[lo] == "":
            lo -= 1
        while hi < n_new and nc[hi] == "":
            hi += 1
        out.append((lo, min(hi, max(n_new, 1))))
    return out


Cells = tuple[tuple[str, ...], tuple[Style | None, ...]]
_LINES: dict[tuple, Cells] = {}
_STYLES: dict[Style, Style] = {}
_LINES_MAX = 8192

# The changed spans between two lines' cells, and the ANSI text of a line's cells
# lo..hi, for every session: the four screens at a table often change a line the same
# way (the same cells objects from ``_LINES``: a turn passing, the info bar, the
# footer), ~60 % of the comparisons a move.  Keyed by the cells' ids, each entry
# holding its cells (alive, so an id is not reused while its entry is there).  The
# screens of a table draw a change within a few loop steps: the newest entries are
# the ones that come back, and the oldest go one by one as new ones come (a large
# table kept until cleared held its entries through collections: the collector ran
# 70 % more often with 500 sessions).
_SPANS: dict[tuple[int, int], tuple[Cells, Cells, list[tuple[int, int]]]] = {}
_ANSI: dict[tuple[int, int, int, ColorSystem], tuple[Cells, str]] = {}
_MEMO_MAX = 128


def _spans_between(old: Cells, new: Cells) -> list[tuple[int, int]]:
    """``_changed_spans(old, new)``, computed once per pair of cells (do not change it)."""
    key = (id(old), id(new))
    hit = _SPANS.get(key)
    if hit is not None and hit[0] is old and hit[1] is new:
        return hit[2]
    spans = _changed_spans(old, new)
    if len(_SPANS) >= _MEMO_MAX:
        del _SPANS[next(iter(_SPANS))]      # the oldest
    _SPANS[key] = (old, new, spans)
    return spans


def _runs(console: Console, text: Text) -> list[tuple[str, Style | None]]:
    """``text`` as (characters, style) runs: ``Text.render``'s own reading of its
    spans (overlapping spans combined in order, the text's style under them), without
    a Segment per run.  A text without spans has its own style (``Text.render`` leaves
    that to the console, which the board is not: " Your turn" was drawn plain)."""
    plain = text.plain
    spans = text.spans
    get_style = console.get_style
    null = Style.null()
    if not spans:
        return [(plain, get_style(text.style, default=null) if text.style else None)]
    if not text.style:
        # Nearly every line: spans one after another, none under another, no style
        # under them; each run is then a gap (no style) or one span's own style.
        out: list[tuple[str, Style | None]] = []
        pos = 0
        for start, end, span_style in spans:
            if end <= start:
                continue
            if start < pos:
                break           # overlapping, or out of order: combined below
            if start > pos:
                out.append((plain[pos:start], None))
            out.append((plain[start:end], get_style(span_style, default=null)))
            pos = end
        else:
            if pos < len(plain):
                out.append((plain[pos:], None))
            return out
    style_map = {0: get_style(text.style, default=null)}
    bounds = [(0, False, 0), (len(plain), True, 0)]
    for i, span in enumerate(spans, 1):
        style_map[i] = get_style(span.style, default=null)
        bounds.append((span.start, False, i))
        bounds.append((span.end, True, i))
    bounds.sort(key=lambda b: (b[0], b[1]))
    stack: list[int] = []
    combined: dict[tuple[int, ...], Style] = {}
    out = []
    for (offset, leaving, i), (following, _, _) in pairwise(bounds):
        if leaving:
            stack.remove(i)
        else:
            stack.append(i)
        if following > offset:
            ids = tuple(sorted(stack))
            style = combined.get(ids)
            if style is None:
                style = combined[ids] = Style.combine(style_map[j] for j in ids)
            out.append((plain[offset:following], style))
    return out


def _line(console: Console, text: Text, key: tuple, width: int, x: int = 0) -> Cells:
    """A line's cells, from column ``x`` (blank before), cut or padded with blank
    cells to ``width``: what each cell shows ("" after a wide character) and its
    style, read from ``_runs``.  The same cells as Rich's segments cropped and padded
    by a Strip, built without them (``tests/test_board.py`` holds the two together).

    Shared by every session (the four screens at a table have many lines in
    common, and a line comes back move after move): the cells do not depend on
    the client's colour system, only the final ANSI codes do.
    """
    hit = _LINES.get(key)
    if hit is not None:
        return hit
    chars: list[str] = [" "] * x            # ``x`` blank cells before the text
    styles: list[Style | None] = [None] * x
    intern = _STYLES.setdefault
    for run, style in _runs(console, text):
        if not run:
            continue
        # One Style object per distinct style: cells then compare by identity.
        style = intern(style, style) if style else None
        if run.isascii():
            chars.extend(run)
            styles.extend(repeat(style, len(run)))
            continue
        lead, cells = _text_cells(run)
        if lead and chars:
            chars[-1] += lead
        chars.extend(cells)
        styles.extend(repeat(style, len(cells)))
    if len(_STYLES) > 4096:
        # Cells compare styles by identity: no line kept may hold the old objects.
        _STYLES.clear()
        _LINES.clear()
    n = len(chars)
    if n > width:
        if chars[width] == "" and width:    # a wide character cut in half: a space
            chars[width - 1] = " "
        del chars[width:], styles[width:]
    elif n < width:
        chars.extend(repeat(" ", width - n))
        styles.extend(repeat(None, width - n))
    line = (tuple(chars), tuple(styles))
    if len(_LINES) >= _LINES_MAX:
        _LINES.clear()
    _LINES[key] = line
    return line


def _style_runs(cells: Cells, lo: int, hi: int) -> Iterator[tuple[str, Style | None]]:
    """Cells ``lo``..``hi`` as runs of one style: (their text, the style)."""
    chars, styles = cells
    start = lo
    for x in range(lo + 1, hi + 1):
        if x == hi or styles[x] is not styles[start]:   # interned: identity (``_line``)
            yield "".join(chars[start:x]), styles[start]
            start = x


def _segments(cells: Cells) -> list[Segment]:
    """The cells as segments, for Textual's own repaints."""
    return [Segment(text, style) for text, style in _style_runs(cells, 0, len(cells[0]))]


BLANK = Text("")    # a blank line, one object for every frame (the board skips it)


def _render_cells(cells: Cells, lo: int, hi: int, color_system: ColorSystem) -> str:
    """ANSI text for cells ``lo``..``hi``: runs of one style joined, as
    ``Strip.simplify().render()`` would write them."""
    render = Strip.render_style
    return "".join(text if style is None else render(style, text, color_system)
                   for text, style in _style_runs(cells, lo, hi))


def _ansi(cells: Cells, lo: int, hi: int, color_system: ColorSystem) -> str:
    """``_render_cells``, once per cells, span and colour system."""
    key = (id(cells), lo, hi, color_system)
    hit = _ANSI.get(key)
    if hit is not None and hit[0] is cells:
        return hit[1]
    text = _render_cells(cells, lo, hi, color_system)
    if len(_ANSI) >= _MEMO_MAX:
        del _ANSI[next(iter(_ANSI))]        # the oldest
    _ANSI[key] = (cells, text)
    return text


_BLANK_LOOK: dict[int, tuple[Style, bool]] = {}


def _looks_blank(style: Style | None) -> bool:
    """A space in ``style`` looks like a cell the terminal erased (after a reset): no
    background, nothing drawn on a space (reverse, underline, strike, overline)."""
    if style is None:
        return True
    hit = _BLANK_LOOK.get(id(style))
    if hit is not None and hit[0] is style:
        return hit[1]
    blank = (style.bgcolor is None and not style.reverse and not style.underline
             and not style.underline2 and not style.strike and not style.overline
             and not style.conceal)
    if len(_BLANK_LOOK) >= 4096:
        _BLANK_LOOK.clear()
    _BLANK_LOOK[id(style)] = (style, blank)
    return blank


_BLANK_FROM: dict[int, tuple[Cells, int]] = {}


def _blank_from(cells: Cells) -> int:
    """The column from which every cell of the line is a space that looks erased
    (``_looks_blank``): the line's end if its last cell is not one.  Once per cells."""
    hit = _BLANK_FROM.get(id(cells))
    if hit is not None and hit[0] is cells:
        return hit[1]
    chars, styles = cells
    end = len(chars)
    same = None             # a style just seen to look blank (a row's end repeats one)
    while end and chars[end - 1] == " ":
        style = styles[end - 1]
        if style is not same:
            if not _looks_blank(style):
                break
            same = style
        end -= 1
    if len(_BLANK_FROM) >= _MEMO_MAX:
        del _BLANK_FROM[next(iter(_BLANK_FROM))]     # the oldest
    _BLANK_FROM[id(cells)] = (cells, end)
    return end


ERASE_FROM = 4      # trailing blanks from which "erase to the line's end" is cheaper


# The rest of a frame sent apart from the rows asked for first only from this many
# bytes: a send of its own costs an SSH packet's ~40 bytes more on the link.
SEND_APART = 64
# The rows asked for first go ahead, in their order, as long as they hold in this many
# bytes (the first that changed always): 40 ms at 64 kbit/s.
AHEAD_BYTES = 320


def _cup(row: int, col: int) -> str:
    """The cursor to ``row``, ``col`` (1-based), the column left out where it is 1."""
    return f"\x1b[{row}H" if col == 1 else f"\x1b[{row};{col}H"


def _color_system(console: Console) -> ColorSystem:
    """The console's colour system, truecolor if it has none: what
    ``Strip.render`` uses for the same cells."""
    return COLOR_SYSTEMS.get(console.color_system or "", ColorSystem.TRUECOLOR)


class Surface(Protocol):
    """A session's terminal as a board may write to it past Textual's compositor.

    The seam between the table's drawing and the transport: the SSH driver
    (``server.driver.SSHDriver``) implements it and declares itself the app's
    ``surface`` while its terminal takes frames (from the start of application
    mode until input is disabled, which is where Textual's shutdown begins); an
    app without one (a test's headless driver) is painted by Textual alone.  What
    is written is sent by the next ``flush``, one frame in one send; ``frames``
    counts the flushes that sent something, Textual's frames and the boards'."""

    frames: int

    def write(self, data: str) -> None: ...

    def flush(self) -> None: ...


class Board(Widget):
    """Draws ``height`` lines of at most ``width`` cells; refreshes only changed cells."""

    DEFAULT_CSS = """
    Board { width: 1fr; height: 1fr; }
    """
    can_focus = False
    _home: Screen[Any] | None       # the screen it was mounted on (a board never moves)

    class Resized(Message):
        """The board's own size changed (a line docked below it came or went), not
        only the screen's: its owner draws again for the new size."""

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Resized())

    def on_mount(self) -> None:
        self._home = self.screen

    @property
    def area(self) -> Region:
        """Where the board's cells are on its screen, as the compositor last placed it:
        ``content_region`` without walking up to the screen and adding up the gutter
        on every call (~3 µs, several times a frame); the board has no padding or
        border unless a style gives it one."""
        screen = self._home
        if screen is None or self.styles.gutter != NULL_SPACING:
            return self.content_region
        try:
            return screen.find_widget(self).region
        except NoWidget:
            return NULL_REGION

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._strips: list[Strip | None] = []    # built when Textual asks (render_line)
        self._cells: list[Cells] = []
        self._texts: list[tuple | None] = []
        # The Text objects last drawn: the screens hand back the same object for a line
        # that did not change, and never modify a line once drawn.
        self._objs: list[Text | None] = []
        self._xs: list[int] = []                # the column each line starts at
        self._width = 0
        self.frames = 0
        self._home = None
        self.direct = True      # the owner clears this while something covers the board

    def set_lines(self, lines: list[Text], at: Sequence[int] = (),
                  first: Sequence[int] = ()) -> None:
        """Show ``lines`` (one per row, the rest blank); ``at``: the column each starts
        at (0 where not given), so that a block centred on a wide terminal keeps its
        very Text objects from frame to frame (a line object drawn before, at the same
        column, costs one comparison); ``first``: rows whose changes the terminal is
        sent ahead of the others, in a send of their own, most important first, as
        many as ``AHEAD_BYTES`` holds (where they are written directly:
        ``_write_direct``)."""
        area = self.area
        width, height = area.size
        if width <= 0 or height <= 0:
            return
        lines = (lines + [BLANK] * height)[:height]
        full = len(self._cells) != height or self._width != width
        dirty: list[Region] = []
        if full:
            blank = Strip.blank(width)
            self._width = width
            self._strips = [blank] * height
            self._cells = [((" ",) * width, (None,) * width)] * height
            self._texts = [None] * height
            self._objs = [None] * height
            self._xs = [0] * height
        console = host(self).console
        texts, strips, cells_of = self._texts, self._strips, self._cells
        objs, xs = self._objs, self._xs
        for y, text in enumerate(lines):
            x = at[y] if y < len(at) else 0
            if text is objs[y] and x == xs[y] and not full:
                continue        # the same line object as last frame: nothing to compare
            objs[y] = text
            xs[y] = x
            key = (text.plain, tuple(text.spans), text.style, width, x)
            if not full and key == texts[y]:
                continue
            texts[y] = key
            cells = _line(console, text, key, width, x)
            old = cells_of[y]
            cells_of[y] = cells
            strips[y] = None
            if full or old is cells:
                continue
            for lo, hi in _spans_between(old, cells):
                if hi > lo:
                    dirty.append(Region(lo, y, hi - lo, 1))
        if full:
            self.refresh()
        elif dirty and not self._write_direct(dirty, area, first):
            self.refresh(*dirty)

    def _plain_styles(self) -> bool:
        """Textual adds nothing to our own lines (no line filter, tint, opacity, hatch,
        padding, border or outline): a line painted is the line's own cells, so the
        changed cells can be written from them and Textual's paint read from them."""
        styles = self.styles
        return (not host(self).get_line_filters() and not styles.tint.a
                and self.opacity == 1.0 and styles.text_opacity == 1.0
                and styles.gutter == NULL_SPACING
                and not any(kind for kind, _ in styles.outline)
                and (not styles.has_rule("hatch") or styles.hatch == "none"))

    def _write_direct(self, dirty: list[Region], area: Region,
                      first: Sequence[int] = ()) -> bool:
        """Send the changed cells straight to the app's :class:`Surface`.

        Textual's compositor would do the same after its update timer, at a
        few ms of CPU per frame; here a one-card change is a couple of cursor
        moves and a few styled cells, written at once.  Only while this board's
        screen is the one shown and the owner says nothing covers the board
        (``direct``), and only when Textual adds nothing to its lines: any later
        paint of the board by Textual reads the same cells (``render_lines``).
        A layout or a repaint Textual has pending follows the write and draws
        what it draws over it (a board moved by a layout is painted whole,
        where it was and where it is)."""
        app = host(self)
        surface: Surface | None = getattr(app, "surface", None)
        screen = self._home
        if (not self.direct or surface is None or screen is None or screen is not app.screen
                or not self._plain_styles()):
            return False
        # Where the board reaches the terminal's right edge, a line's blank end is erased
        # ("\x1b[K", after a reset: no background), not written as spaces: a card
        # leaving a row, a line that got shorter, a row emptied cost 3 bytes, not a
        # row of spaces (issue 26: a slow link).
        edge = area.x + self._width >= app.size.width
        rows = self._rows_ahead(dirty, area, edge, first) if first else None
        if not rows:
            surface.write(self._ansi_regions(dirty, area, edge, reset=False))
        else:
            # The rows asked for first go in a send of their own, ahead of the rest: on
            # a slow link they arrive before the rest has been carried (issue 26) --
            # unless the rest is a few bytes, less than a send of its own costs.
            head = self._ansi_regions([r for r in dirty if r.y in rows], area, edge,
                                      reset=False)
            rest = self._ansi_regions([r for r in dirty if r.y not in rows], area, edge,
                                      reset=True)       # (each part ends reset)
            surface.write(head)
            if len(rest) >= SEND_APART:
                surface.flush()
            surface.write(rest)
        surface.flush()
        version = getattr(screen, "rendered_version", None)
        if version is not None:
            app.displayed_version = version
        return True

    def _rows_ahead(self, dirty: list[Region], area: Region, edge: bool,
                    first: Sequence[int]) -> set[int] | None:
        """The rows of ``first`` (most important first) whose changes go ahead: in
        that order while they hold in ``AHEAD_BYTES``, the first that changed always;
        None when that is every changed row (one send then)."""
        by_row: dict[int, list[Region]] = {}
        for region in dirty:
            by_row.setdefault(region.y, []).append(region)
        rows: set[int] = set()
        size = 0
        for y in first:
            regions = by_row.get(y)
            if not regions or y in rows:
                continue
            cost = len(self._ansi_regions(regions, area, edge, reset=True))
            if rows and size + cost > AHEAD_BYTES:
                break
            rows.add(y)
            size += cost
        return rows if rows and len(rows) < len(by_row) else None

    def _ansi_regions(self, dirty: list[Region], area: Region, edge: bool,
                      reset: bool) -> str:
        """The board's cells in ``dirty`` (in rows' order) as what the terminal is sent:
        a cursor move and the cells of each, a blank end of a line erased where the
        board reaches the terminal's right edge (``edge``); ``reset``: the terminal's
        attributes are known to be reset at the start.  Ends reset."""
        ox, oy = area.offset                    # where set_lines found the board
        color_system = _color_system(host(self).console)
        cells_of = self._cells
        erased = -1                             # the row whose end was erased
        parts = []
        for region in dirty:
            y, lo, hi = region.y, region.x, region.right
            cells = cells_of[y]
            if edge:
                if y == erased:
                    continue                    # (a later span of an erased end: blank)
                end = _blank_from(cells)
                if hi - max(lo, end) >= ERASE_FROM:
                    parts.append(_cup(oy + y + 1, ox + lo + 1))
                    if lo < end:
                        text = _ansi(cells, lo, end, color_system)
                        parts.append(text)
                        reset = reset or "\x1b[" in text   # a styled run ends reset
                    parts.append("\x1b[K" if reset else "\x1b[0m\x1b[K")
                    reset = True
                    erased = y
                    continue
            parts.append(_cup(oy + y + 1, ox + lo + 1))
            text = _ansi(cells, lo, hi, color_system)
            parts.append(text)
            reset = reset or "\x1b[" in text
        parts.append("\x1b[0m")
        return "".join(parts)

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines in ``crop`` as Textual paints them.  With plain styles (above) they
        are read from the board's cells every time, as Textual's own rendering reads
        them (``render_line``, cut or padded to the width), instead of from Textual's
        cache of rendered lines: the board writes cells past that cache
        (``_write_direct``), which would hand back lines from before them.  Checked
        equal to Textual's rendering (``tests/test_board.py``)."""
        if not self._plain_styles():
            return super().render_lines(crop)
        width = self.size.width
        inner: Style | None = None
        lines = []
        for y in crop.line_range:
            strip = self.render_line(y)
            if strip.cell_length != width:     # resized, not drawn again yet
                if inner is None:
                    base, background = self.background_colors
                    inner = TextualStyle(background=base + background).rich_style
                strip = strip.adjust_cell_length(width, inner)
            lines.append(strip)
        x1, x2 = crop.column_span
        if (x1, x2) != (0, width):
            lines = [strip.crop(x1, x2) for strip in lines]
        return lines

    def shown(self) -> list[str]:
        """Each row as it is drawn, as plain text (what a player reads)."""
        return ["".join(chars) for chars, _ in self._cells]

    def render_line(self, y: int) -> Strip:
        if 0 <= y < len(self._strips):
            strip = self._strips[y]
            if strip is None:
                strip = self._strips[y] = Strip(_segments(self._cells[y]), self._width)
            return strip
        return Strip.blank(self.size.width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return container.height

