"""The frame of the room's record screens (profile, leaderboard, events, a round's
review): a title line, one block of text, the too-small notice, the keys. Laid out for
the window: 80 columns at most; under 80×24 the compact layout, which fills the window
(lamma.tcss). Its own module so that the review (opened from the replays, which the
profile opens) shares it without an import cycle."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.css.query import NoMatches

from ..host import host
from ..i18n import N_
from ..widgets.lines import Block, KeyBar, Line, title_bar
from .frame import PageScreen, arrows
from .sizes import MIN_H, MIN_W, STD_H, STD_W
from .table_draw import wrap
from .words import Laid, block, lay, said_keys, too_small_text

if TYPE_CHECKING:
    from textual.app import ComposeResult

W = 80
TITLE_ROWS = 3      # at most, on a phone


class RecordScreen(PageScreen):
    """Shared frame: a title line, a text block, the too-small notice, the keys. Laid
    out for the window (80 columns at most; under 80×24 the compact layout, which
    fills the window: lamma.tcss)."""


    KEYS: list[tuple[str, str]] = [("esc", N_("back"))]
    BLOCK_ID = "record-text"
    # A block longer than its rows scrolls (a phone: issue 44): ↑↓ a line, PgUp PgDn a
    # page, the wheel three lines; a screen whose ↑↓ choose a row binds them itself.
    BINDINGS = [
        *arrows("record", "scroll_block", 100),
    ]
    top = 0                 # the block's first line shown where it scrolls
    page_rows = 0           # the lines a page shows while it scrolls (0: all fit)
    _block: list[Text] = []             # the block's lines, folded, before paging
    _keys_now: list[tuple[str, str]] | None = None
    title_rows = 1          # the rows the title takes (more on a phone: ``set_title``)

    def parts(self) -> ComposeResult:
        yield Line(id="record-title")
        yield Block(id=self.BLOCK_ID, classes="record-block")

    def on_screen_resume(self) -> None:
        if self.is_mounted:
            self.draw()

    @property
    def width(self) -> int:
        """The columns the block is laid out for: the window's, 80 at most."""
        return max(MIN_W, min(W, host(self).size.width))

    @property
    def compact(self) -> bool:
        size = host(self).size
        return size.width < STD_W or size.height < STD_H

    @property
    def block_rows(self) -> int:
        """The rows the block has: 21 in the standard layout, the window's less the
        title, the line under it and the keys (as many rows as they take at this
        width) in the compact one."""
        if not self.compact:
            return 21
        size = host(self).size
        try:
            keys = len(self.query_one("#keys", KeyBar).rows(size.width))
        except NoMatches:
            keys = 1
        title = self.title_rows - 1
        return max(MIN_H - 2 - keys - title, size.height - 2 - keys - title)

    def fold(self, lines: list[Text]) -> list[Text]:
        """``lines`` as the block shows them: a line longer than the window (a phone)
        goes on under itself (``set_block`` does the same to what it is given)."""
        width = self.width
        return [part for line in lines for part in (
            wrap(line, width - 1) if line.cell_len > width and not isinstance(line, Laid)
            else [line])]

    def draw(self) -> None:
        speech = host(self).speech
        self.query_one("#too-small", Line).set(too_small_text(speech, *host(self).size))
        self._keys_now = None
        self.show_keys(self.KEYS)
        self.paint()

    def show_keys(self, keys: list[tuple[str, str]]) -> None:
        if keys != self._keys_now:
            self._keys_now = keys
            self.query_one("#keys", KeyBar).show(said_keys(host(self).speech, keys),
                                                 host(self).speech)

    def paint(self) -> None:  # pragma: no cover - overridden
        pass

    def set_title(self, title: str, right: str) -> None:
        """The title bar: ``title`` reversed, then what the screen shows (``right``);
        in the compact layout, where one row does not hold them (a phone), ``right``
        goes on over the rows it needs, wrapped at its words (an event's name and date
        never cut); the block then has fewer rows (``block_rows``)."""
        speech = host(self).speech
        width = self.width
        said = speech._(title)
        bar = title_bar(said, right)
        rows = [bar]
        if bar.cell_len > width and right and self.compact:
            room = width - cell_len(said) - 5
            words = wrap(Text(right), room, "") if room >= 8 else []
            first = words[0].plain if words and words[0].cell_len <= room else ""
            rows = [title_bar(said, first)]
            rest = right[len(first):].strip() if first else right
            if rest:
                rows += [Text(" " + part.plain, style="bold")
                         for part in wrap(Text(rest), width - 2, "")][:TITLE_ROWS - 1]
        laid = Text("\n").join(lay(speech, row, width) for row in rows)
        line = self.query_one("#record-title", Line)
        if len(rows) != self.title_rows:
            self.title_rows = len(rows)
            line.styles.height = len(rows)
        line.set(laid)

    def set_block(self, lines: list[Text]) -> None:
        """The block's lines (reading order), laid out for the language; a line longer
        than the window (a phone) goes on under itself. Where they are more than the
        block's rows, a page of them from ``top``, the last row saying which lines are
        shown, and the keys then offer ↑↓ (a tap on ↑ or ↓ scrolls too)."""
        speech = host(self).speech
        folded = self.fold(lines)
        self._block = folded
        base = self.KEYS
        scrolls = len(folded) > self.block_rows
        keys = base if not scrolls or any(k == "↑↓" for k, _l in base) else \
            [*base[:-1], ("↑↓", N_("scroll")), *base[-1:]]
        self.show_keys(keys)
        rows = self.block_rows          # (the keys may take another row now)
        if len(folded) <= rows:
            self.top = self.page_rows = 0
            shown = folded
        else:
            page = self.page_rows = max(1, rows - 1)
            self.top = max(0, min(self.top, len(folded) - page))
            shown = folded[self.top:self.top + page]
            shown.append(Text(" " + speech._("{first}–{last} of {total}").format(
                first=self.top + 1, last=self.top + len(shown), total=len(folded)),
                style="dim"))
        self.query_one(f"#{self.BLOCK_ID}", Block).set(block(speech, shown, self.width))

    def action_scroll_block(self, delta: int) -> None:
        """A line up or down (±1), or a page (±100), where the block scrolls."""
        if not self.page_rows:
            return
        step = delta if abs(delta) == 1 else \
            (1 if delta > 0 else -1) * max(1, self.page_rows - 1)
        self.top = max(0, self.top + step)
        self.paint()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self.action_scroll_block(3)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.action_scroll_block(-3)
