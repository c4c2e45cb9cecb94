from __future__ import annotations

from rich.text import Text
from textual.widget import Widget


class Lines(Widget):
    """A fixed-size block of text lines.  ``set`` refreshes only if the
    content changed, and never asks for a new layout."""

    DEFAULT_CSS = """
    Lines { height: auto; width: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None):
        super().__init__(id=id, classes=classes)
        self._text = Text("")
        self._plain: str | None = None
        self._key = None

    def set(self, text: Text | str) -> None:
        if isinstance(text, str):
            text = Text(text)
        key = (text.plain, tuple((s.start, s.end, str(s.style)) for s in text.spans),
               str(text.style))
        if key == self._key:
            return
        self._key = key
        self._text = text
        self.refresh()

    def render(self) -> Text:
        return self._text


class KeyBar(Lines):
    """The footer: only the keys that do something now."""

    DEFAULT_CSS = """
    KeyBar { dock: bottom; height: 1; width: 1fr; background: $panel;
             text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def show(self, keys: list[tuple[str, str]]) -> None:
        t = Text(no_wrap=True, overflow="ellipsis")
        for i, (k, label) in enumerate(keys):
            if i:
                t.append("  ")
            t.append(f" {k} ", style="bold reverse")
            t.append(" " + label)
        self.set(t)
