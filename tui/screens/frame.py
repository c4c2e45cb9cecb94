"""The frames the small screens share, so that each says only what it shows.

``DialogScreen``: a modal dialog (a question, a form, a code to type) — its parts in
the ``#dialog`` box (lamma.tcss), the too-small notice and the keys under it, drawn
when mounted and again at every resize; a tap on a key presses it; Esc (``cancel``)
closes it with nothing.

``PageScreen``: a page of the room's records (profile, events, replays, a review) —
its title and text in the ``#body`` box, the too-small notice and the keys; Esc and q
go back.

``BoardScreen``: a page drawn whole on one ``Board`` (the options, the score sheet,
the terminal's Arabic test) — the enlarge notice where the window is too small, a tap
on a key's box presses that key.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any, TypeVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen

from ..host import Hosted, host
from ..widgets.board import Board
from ..widgets.lines import KeyBar, Line, Lines, TapLinesMixin
from ..widgets.taps import lines_taps, tap_at
from .sizes import SMALL, enlarge_lines, layout
from .words import block, dialog_width, said_keys, too_small_text

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.app import ComposeResult
    from textual.widget import Widget


R = TypeVar("R")


def arrows(screen: str, action: str, page: int = 0) -> list[BindingType]:
    """↑↓ ``action`` a row (±1), and PgUp PgDn a page (±``page``) where given: the keys
    of a screen whose rows are chosen or scrolled (their ids ``screen``.up …)."""
    keys = [("up", -1, "up"), ("down", 1, "down")]
    if page:
        keys += [("pageup", -page, "page_up"), ("pagedown", page, "page_down")]
    return [Binding(key, f"{action}({n})", show=False, id=f"{screen}.{name}")
            for key, n, name in keys]


def steps(screen: str) -> list[BindingType]:
    """→ ← the next and the previous step, Home End the first and the last: the keys of
    a screen that goes through a sequence (a replay's tricks, a review's decisions)."""
    return [Binding("right", "step(1)", show=False, id=f"{screen}.next"),
            Binding("left", "step(-1)", show=False, id=f"{screen}.previous"),
            Binding("home", "jump(0)", show=False, id=f"{screen}.first"),
            Binding("end", "jump(-1)", show=False, id=f"{screen}.last")]


def form_keys(screen: str) -> list[BindingType]:
    """↑↓ a field, ← → (or space) its value, Enter makes what the form describes: the
    keys of a form (a new table, a new event)."""
    return [Binding("up", "field(-1)", show=False, id=f"{screen}.previous_field"),
            Binding("down", "field(1)", show=False, id=f"{screen}.next_field"),
            Binding("left", "value(-1)", show=False, id=f"{screen}.previous_value"),
            Binding("right", "value(1)", show=False, id=f"{screen}.next_value"),
            Binding("space", "value(1)", show=False, id=f"{screen}.next_value_space"),
            Binding("enter", "create", show=False, id=f"{screen}.create")]


class Framed(TapLinesMixin, Hosted):
    """The frame itself: ``parts`` in the box ``#BOX`` (its size: lamma.tcss), the
    too-small notice and the keys under it, drawn when mounted (after the screen's own
    ``on_mount``) and at every resize. Mix in before the Textual screen."""

    BOX = "body"
    BOX_KIND: Callable[..., Widget] = Vertical      # (a box that scrolls: VerticalScroll)

    def parts(self) -> ComposeResult:  # pragma: no cover - each screen has its own
        yield from ()

    def compose(self) -> ComposeResult:
        with self.BOX_KIND(id=self.BOX):
            yield from self.parts()
        yield Line(id="too-small")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.draw()

    async def on_resize(self, event: events.Resize) -> None:
        """(async: a screen's own may await, the help's a new layout)"""
        self.draw()

    def draw(self) -> None:  # pragma: no cover - each screen its own
        pass


class DialogScreen(Framed, ModalScreen[R]):
    """A dialog: ``parts`` in the box, the too-small notice, ``keys()`` under it."""

    BOX = "dialog"
    BINDINGS = [Binding("escape", "cancel", show=False, id="dialog.cancel")]
    KEYS: list[tuple[str, str]] = []

    @property
    def inside(self) -> int:
        """The columns inside the dialog (80 at most, the window's on a phone)."""
        return dialog_width(host(self).size.width)

    def keys(self) -> list[tuple[str, str]]:
        return self.KEYS

    def draw(self) -> None:
        speech = self.speech
        self.query_one("#too-small", Line).set(too_small_text(speech, *host(self).size))
        self.query_one("#keys", KeyBar).show(said_keys(speech, self.keys()), speech)
        self.paint()

    def paint(self) -> None:  # pragma: no cover - each dialog has its own
        pass

    def set_block(self, part: str, lines: list[Text | str]) -> None:
        """The lines of the part ``#part``, laid out for the language and the box."""
        self.query_one(f"#{part}", Lines).set(block(self.speech, lines, self.inside))

    def refuse(self, part: str, said: str, width: int = 0) -> None:
        """What went wrong, in bold red in ``#part``, wrapped at ``width`` columns (the
        box's less one when not given) rather than cut."""
        width = width or self.inside - 1
        self.set_block(part, [Text(" " + line, style="bold red")
                              for line in textwrap.wrap(said, width) or [said]])

    def action_cancel(self) -> None:
        self.dismiss(None)


class PageScreen(Framed, Screen[None]):
    """A page: ``parts`` in the ``#body`` box (80 columns at most; under 80×24 the whole
    window: lamma.tcss), the too-small notice and the keys under it; Esc and q go back."""

    AUTO_FOCUS = ""
    BINDINGS = [
        Binding("escape", "back", show=False, id="page.back"),
        Binding("q", "back", show=False, id="page.back_q"),
    ]

    def action_back(self) -> None:
        host(self).pop_screen()


class BoardScreen(Screen[Any]):
    """A page drawn on one ``Board``: ``paint`` gives its lines for the board's size."""

    AUTO_FOCUS = ""
    _lines: list[Text] = []
    _left = 0

    def compose(self) -> ComposeResult:
        yield Board()

    def on_mount(self) -> None:
        self.draw()

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.draw)

    def drawable(self, board: Board) -> bool:
        """Whether the board can be drawn yet (a page may wait for its height)."""
        return True

    def draw(self) -> None:
        board = self.query_one(Board)
        if not self.drawable(board):
            return
        if layout(board.size.width, board.size.height) == SMALL:
            self._lines = []
            board.set_lines(enlarge_lines(board.size.width, board.size.height,
                                          host(self).speech))
            return
        self._lines = self.paint(board)
        self._left = self.left(board)
        board.set_lines(self._lines, at=[self._left] * len(self._lines))

    def paint(self, board: Board) -> list[Text]:  # pragma: no cover - each page its own
        return []

    def left(self, board: Board) -> int:
        """The column the page's lines start at (a page narrower than the board)."""
        return 0

    def on_click(self, event: events.Click) -> None:
        """A tap on a key's box (the footer's, or one in the page) presses it (issue 26)."""
        board = self.query_one(Board)
        tap = tap_at(lines_taps(self._lines, [self._left] * len(self._lines)), event.screen_x - board.region.x,
                     event.screen_y - board.region.y)
        if tap is not None:
            event.stop()
            host(self).post_message(events.Key(tap.key, tap.char or None))
