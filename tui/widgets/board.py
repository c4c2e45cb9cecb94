"""One widget that draws a whole screen from a list of lines.

The table screen is drawn by this single widget (no containers, no layout
work per move).  ``set_lines`` compares each new line with the one on screen
cell by cell and refreshes only the span of cells that changed, so a
one-card change repaints a handful of cells, not the screen.
"""

from __future__ import annotations

from itertools import repeat

from rich.cells import get_character_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

_BLANK = Style()


def _cells(segments: list[Segment]) -> list[tuple[str, Style | None]]:
    out: list[tuple[str, Style | None]] = []
    for seg in segments:
        st = seg.style
        text = seg.text
        if text.isascii():
            out.extend(zip(text, repeat(st)))
            continue
        for ch in text:
            w = get_character_cell_size(ch)
            if w == 0:
                if out:
                    c, s = out[-1]
                    out[-1] = (c + ch, s)
                continue
            out.append((ch, st))
            if w == 2:
                out.append(("", st))
    return out


GAP = 8     # unchanged cells cheaper to resend than to jump over (a cursor move is ~8 bytes)


def _changed_spans(old: list, new: list) -> list[tuple[int, int]]:
    """Runs of changed cells, runs closer than GAP merged; wide characters kept whole."""
    n = max(len(old), len(new))
    spans: list[list[int]] = []
    x = 0
    while x < n:
        if x < len(old) and x < len(new) and old[x] == new[x]:
            x += 1
            continue
        start = x
        while x < n and not (x < len(old) and x < len(new) and old[x] == new[x]):
            x += 1
        if spans and start - spans[-1][1] < GAP:
            spans[-1][1] = x
        else:
            spans.append([start, x])
    out = []
    for lo, hi in spans:
        while lo > 0 and lo < len(new) and new[lo][0] == "":
            lo -= 1
        while hi < len(new) and new[hi][0] == "":
            hi += 1
        out.append((lo, min(hi, max(len(new), 1))))
    return out


class Board(Widget):
    """Draws ``height`` lines of at most ``width`` cells; refreshes only changed cells."""

    DEFAULT_CSS = """
    Board { width: 1fr; height: 1fr; }
    """
    can_focus = False

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._strips: list[Strip] = []
        self._cells: list[list] = []
        self._texts: list[tuple] = []
        self.frames = 0
        self.direct = True      # the owner clears this while something covers the board

    def _to_strip(self, text: Text, width: int) -> tuple[Strip, list]:
        console = self.app.console
        segs = [s for s in text.render(console, end="") if s.text]
        strip = Strip(segs).crop(0, width).adjust_cell_length(width)
        return strip, _cells(list(strip))

    def set_lines(self, lines: list[Text]) -> None:
        width = self.size.width
        height = self.size.height
        if width <= 0 or height <= 0:
            return
        lines = (lines + [Text("")] * height)[:height]
        full = len(self._strips) != height or (self._strips and self._strips[0].cell_length != width)
        dirty: list[Region] = []
        if full:
            self._strips = [Strip.blank(width)] * height
            self._cells = [[(" ", None)] * width for _ in range(height)]
            self._texts = [None] * height
        for y, text in enumerate(lines):
            key = (text.plain, tuple(text.spans), text.style)
            if not full and key == self._texts[y]:
                continue
            self._texts[y] = key
            strip, cells = self._to_strip(text, width)
            old = self._cells[y]
            self._strips[y] = strip
            self._cells[y] = cells
            if full:
                continue
            for lo, hi in _changed_spans(old, cells):
                if hi > lo:
                    dirty.append(Region(lo, y, hi - lo, 1))
        if full:
            self.refresh()
        elif dirty and not self._write_direct(dirty):
            self.refresh(*dirty)

    def _write_direct(self, dirty: list[Region]) -> bool:
        """Send the changed cells straight to the session's terminal.

        Textual's compositor would do the same after its update timer, at a
        few ms of CPU per frame; here a one-card change is a couple of cursor
        moves and a few styled cells, written at once.  Only over our SSH
        driver, only while this board is on top and uncovered; the styles
        cache is told, so any later repaint by Textual draws the same cells.
        """
        app = self.app
        driver = app._driver
        screen = self.screen
        if (not self.direct or driver is None or not hasattr(driver, "bytes_out")
                or app._batch_count or screen is not app.screen or not screen.is_current
                or screen._layout_required or screen._repaint_required):
            return False
        ox, oy = self.content_region.offset
        console = app.console
        cache = self._styles_cache
        parts = []
        for region in dirty:
            cache.set_dirty(region)
            strips = self.render_lines(region)
            if not strips:
                return False
            strip = strips[0].crop(0, region.width) if strips[0].cell_length > region.width else strips[0]
            parts.append(f"\x1b[{oy + region.y + 1};{ox + region.x + 1}H")
            parts.append(strip.simplify().render(console))
        parts.append("\x1b[0m")
        driver.write("".join(parts))
        driver.flush()
        version = getattr(screen, "rendered_version", None)
        if version is not None:
            app.displayed_version = version
        return True

    def render_line(self, y: int) -> Strip:
        if 0 <= y < len(self._strips):
            return self._strips[y]
        return Strip.blank(self.size.width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return container.height


class PromptScreenMixin:
    """Paint as soon as the screen's message queue is empty.

    Textual's screen waits for its 60 fps update timer before painting dirty
    widgets: up to 17 ms added to every move.  Here a screen with something
    to paint does the timer's work at once when it goes idle (messages that
    arrive together still make one frame)."""

    async def _on_idle(self, event) -> None:
        event.prevent_default()
        app = self.app
        if (not app._batch_count and self.is_current and not self._layout_required
                and not self._scroll_required and not self._recompose_required
                and (self._dirty_widgets or self._repaint_required)):
            self._on_timer_update()
        await super()._on_idle(event)
