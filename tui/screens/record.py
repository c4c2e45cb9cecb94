"""The frame of the room's record screens (profile, leaderboard, events, a round's
review): a title line, one block of text, the too-small notice, the keys. Laid out for
the window: 80 columns at most; under 80×24 the compact layout, which fills the window
(lamma.tcss). Its own module so that the review (opened from the replays, which the
profile opens) shares it without an import cycle."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, getters
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.screen import Screen

from ..i18n import N_
from ..widgets.lines import Block, KeyBar, Line, TapLinesMixin, title_bar
from .sizes import MIN_H, MIN_W, STD_H, STD_W
from .table_draw import wrap
from .words import Laid, block, lay, said_keys, too_small_text

if TYPE_CHECKING:
    from ..app import LammaApp

W = 80


class RecordScreen(TapLinesMixin, Screen[None]):
    """Shared frame: a title line, a text block, the too-small notice, the keys. Laid
    out for the window (80 columns at most; under 80×24 the compact layout, which
    fills the window: lamma.tcss)."""

    if TYPE_CHECKING:
        app = getters.app(LammaApp)

    AUTO_FOCUS = ""
    KEYS: list[tuple[str, str]] = [("esc", N_("back"))]
    BLOCK_ID = "record-text"

    def compose(self) -> ComposeResult:
        with Vertical(id="body"):
            yield Line(id="record-title")
            yield Block(id=self.BLOCK_ID, classes="record-block")
        yield Line(id="too-small")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.draw()

    def on_screen_resume(self) -> None:
        if self.is_mounted:
            self.draw()

    def on_resize(self, event: events.Resize) -> None:
        self.draw()

    @property
    def width(self) -> int:
        """The columns the block is laid out for: the window's, 80 at most."""
        return max(MIN_W, min(W, self.app.size.width))

    @property
    def compact(self) -> bool:
        size = self.app.size
        return size.width < STD_W or size.height < STD_H

    @property
    def block_rows(self) -> int:
        """The rows the block has: 21 in the standard layout, the window's less the
        title, the line under it and the keys (as many rows as they take at this
        width) in the compact one."""
        if not self.compact:
            return 21
        size = self.app.size
        try:
            keys = len(self.query_one("#keys", KeyBar).rows(size.width))
        except NoMatches:
            keys = 1
        return max(MIN_H - 2 - keys, size.height - 2 - keys)

    def fold(self, lines: list[Text]) -> list[Text]:
        """``lines`` as the block shows them: a line longer than the window (a phone)
        goes on under itself (``set_block`` does the same to what it is given)."""
        width = self.width
        return [part for line in lines for part in (
            wrap(line, width - 1) if line.cell_len > width and not isinstance(line, Laid)
            else [line])]

    def draw(self) -> None:
        speech = self.app.speech
        self.query_one("#too-small", Line).set(too_small_text(speech, *self.app.size))
        self.query_one("#keys", KeyBar).show(said_keys(speech, self.KEYS), speech)
        self.paint()

    def paint(self) -> None:  # pragma: no cover - overridden
        pass

    def set_title(self, title: str, right: str) -> None:
        speech = self.app.speech
        self.query_one("#record-title", Line).set(
            lay(speech, title_bar(speech._(title), right), self.width))

    def set_block(self, lines: list[Text]) -> None:
        """The block's lines (reading order), laid out for the language; a line longer
        than the window (a phone) goes on under itself."""
        self.query_one(f"#{self.BLOCK_ID}", Block).set(block(self.app.speech, self.fold(lines),
                                                             self.width))

    def action_back(self) -> None:
        self.app.pop_screen()
