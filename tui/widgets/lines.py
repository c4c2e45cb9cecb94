from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.geometry import Size
from textual.widget import Widget

from ..host import host
from .board import BLANK
from .taps import line_taps, tap_at

if TYPE_CHECKING:
    from ..i18n import Speech


def _key(text: Text):
    return (text.plain, tuple((s.start, s.end, str(s.style)) for s in text.spans),
            str(text.style))


class Line(Widget):
    """One line of text; ``set`` refreshes only when it changed and never asks
    for a new layout (a one-card change redraws one short line, not the screen)."""

    DEFAULT_CSS = """
    Line { height: 1; width: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None):
        super().__init__(id=id, classes=classes)
        self._text = Text("")
        self._key = _key(self._text)

    @property
    def plain(self) -> str:
        return self._text.plain

    def set(self, text: Text | str) -> None:
        if text is self._text:
            return      # the very Text shown (a caller's cache): nothing to compare
        if isinstance(text, str):
            text = Text(text)
        key = _key(text)
        if key == self._key:
            return
        self._key = key
        self._text = text
        self.refresh()

    def render(self) -> Text:
        return self._text


class Lines(Widget):
    """A block of text made of one ``Line`` widget per line, so that a change
    to one line repaints that line only.  ``lines`` fixes the height; with
    ``lines=None`` the block grows as needed (re-layout, for rarely changing
    text such as help)."""

    DEFAULT_CSS = """
    Lines { height: auto; width: 1fr; }
    """

    def __init__(self, lines: int | None = 1, *, id: str | None = None,
                 classes: str | None = None):
        super().__init__(id=id, classes=classes)
        self._n = lines
        self._rows: list[Line] = []

    def compose(self) -> ComposeResult:
        self._rows = [Line() for _ in range(self._n or 1)]
        yield from self._rows

    def set(self, text: Text | str) -> None:
        if isinstance(text, str):
            text = Text(text)
        parts = list(text.split("\n", allow_blank=True)) if "\n" in text.plain else [text]
        if self._n is None and len(parts) != len(self._rows):
            self.remove_children()
            self._rows = [Line() for _ in parts]
            self.mount_all(self._rows)
            for row, part in zip(self._rows, parts, strict=True):
                row.set(part)
            return
        self.set_lines(parts)

    def set_lines(self, parts: Sequence[Text | str]) -> None:
        """One text per line (fewer: the rest blank), without joining and splitting:
        a line given the same Text object as before costs one comparison."""
        rows = self._rows
        for i, row in enumerate(rows):
            row.set(parts[i] if i < len(parts) else BLANK)


class KeyBar(Line):
    """The footer: only the keys that do something now, what they do said in the
    player's language (a label is looked up in the catalogue: a caller may pass it
    marked with ``N_`` or already translated). An Arabic footer starts at the right.
    Where one row does not hold them (a phone), the keys go on over more rows, a
    key with what it does never cut in two; a tap on a key presses it."""

    DEFAULT_CSS = """
    KeyBar { dock: bottom; height: auto; width: 1fr; }
    """

    _speech: Speech | None = None
    _items: tuple[Text, ...] = ()
    _said: Speech | None = None

    def show(self, keys: list[tuple[str, str]], speech: Speech | None = None) -> None:
        """``keys``: (key, what it does), the labels said in the player's language
        (``speech``, by default the app's); with a right-to-left ``speech`` the footer
        is laid out from the right, at the bar's width."""
        if speech is None:
            speech = host(self).speech
        t = keys_text(keys, speech)
        items = tuple(keys_text([key], speech) for key in keys)
        width = self.size.width
        before = len(self.rows(width)) if width else 0
        self._items, self._said = items, speech
        rtl = speech if speech.rtl else None
        if rtl is not self._speech:
            self._speech = rtl
            self.refresh()
        self.set(t)
        if width and len(self.rows(width)) != before:
            self.refresh(layout=True)

    def rows(self, width: int) -> list[Text]:
        """The keys as drawn ``width`` cells wide: one row when it holds them, else
        as many as they need."""
        text = self._text
        if not width or text.cell_len <= width or not self._items:
            speech = self._speech
            return [speech.line(text, width) if speech is not None else text]
        rows: list[Text] = []
        line = Text(no_wrap=True)
        for item in self._items:
            if line.plain and line.cell_len + 2 + item.cell_len > width:
                rows.append(line)
                line = Text(no_wrap=True)
            if line.plain:
                line.append("  ")
            line.append_text(item)
        rows.append(line)
        speech = self._speech
        return [speech.line(row, width) if speech is not None else row for row in rows]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.rows(width))

    @property
    def plain(self) -> str:
        """The keys as drawn, a row a line."""
        return "\n".join(row.plain for row in self.rows(self.size.width))

    def render(self) -> Text:
        rows = self.rows(self.size.width)
        if len(rows) == 1:
            return rows[0]
        out = Text(no_wrap=True)
        for i, row in enumerate(rows):
            if i:
                out.append("\n")
            out.append_text(row)
        return out

    def on_click(self, event: events.Click) -> None:
        """A tap on a key presses it (``tui.widgets.taps``): the key goes to the app
        as the terminal's would, through the screen's bindings."""
        key = tapped_key(event, self, self.rows(self.size.width))
        if key is not None:
            event.stop()
            host(self).post_message(key)


def tapped_key(event: events.Click, widget: Widget, rows: Sequence[Text]) -> events.Key | None:
    """The key whose box ``event`` taps in ``rows`` (``widget``'s lines as drawn), as
    the terminal would send it; None off every box."""
    region = widget.content_region
    y = event.screen_y - region.y
    if not 0 <= y < len(rows):
        return None
    tap = tap_at(line_taps(rows[y], 0), event.screen_x - region.x, 0)
    return None if tap is None else events.Key(tap.key, tap.char or None)


def keys_text(keys: list[tuple[str, str]], speech: Speech) -> Text:
    """A footer's keys in reading order: each key reversed, then what it does said in
    ``speech`` (a right-to-left footer is laid out by its drawer, at its width)."""
    t = Text(no_wrap=True, overflow="ellipsis")
    for i, (k, label) in enumerate(keys):
        if i:
            t.append("  ")
        t.append(f" {k} ", style="bold reverse")
        t.append(" " + speech._(label))
    return t


class TapLinesMixin:
    """A screen drawn with ``Line`` widgets (dialogs, records): a tap on a key's box in
    one of its lines presses that key (``tui.widgets.taps``), as the terminal's key
    would (a ``KeyBar`` answers its own taps). Mix in before ``Screen``."""

    def on_click(self, event: events.Click) -> None:
        widget = getattr(event, "widget", None)
        if not isinstance(widget, Line) or isinstance(widget, KeyBar):
            return
        key = tapped_key(event, widget, list(widget.render().split("\n", allow_blank=True)))
        if key is not None:
            event.stop()
            widget.app.post_message(key)


class Block(Line):
    """A fixed block of Rich text: one widget, one ``render``; ``set`` repaints
    only when the text changed (height comes from the stylesheet)."""

    DEFAULT_CSS = """
    Block { width: 1fr; height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """


def title_bar(title: str, right: str = "", speech: Speech | None = None,
              width: int = 0) -> Text:
    """A screen's title (reversed) and what it shows; with an Arabic ``speech``,
    laid out from the right (``title`` and ``right`` given in reading order),
    right-aligned to ``width`` cells when given."""
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append(f" {title} ", style="bold reverse")
    if right:
        t.append("  " + right, style="bold")
    return rtl_line(speech, t, width) if speech is not None else t


def rtl_line(speech: Speech, text: Text, width: int = 0) -> Text:
    """``text`` as one line for the language: for an Arabic interface mirrored (if
    joined here; right-aligned to ``width`` cells when given); unchanged otherwise."""
    if not speech.rtl:
        return text
    return speech.line(text, width)
