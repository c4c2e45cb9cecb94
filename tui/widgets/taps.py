"""Taps (issue 26): a mouse click, as a phone's SSH client sends a tap, does what a
key does.

Wherever a screen shows a key in a reversed box (`` ⏎ `` sit, `` p `` pass,
`` esc `` back, the options' `` a ``), a tap on the box presses that key: the
boxes are found in the very lines the screen draws (``line_taps``), so a footer
that changes with the turn is tappable as it is drawn, in any language (an Arabic
footer laid out from the right has its boxes where it drew them). A box that names
several keys is cut into them: ``←→`` is ← then →, ``nshdc`` one key a letter,
``a m e r`` one key a word. A box that is not a key (a title, a highlighted row)
names nothing and is left alone. Keys stay first: a tap only ever does what its
key does, through the same handlers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

# A key as a box shows it → (Textual's key name, the character it types).
NAMED = {
    "⏎": ("enter", "\r"), "enter": ("enter", "\r"), "Enter": ("enter", "\r"),
    "esc": ("escape", "\x1b"), "Esc": ("escape", "\x1b"),
    "?": ("question_mark", "?"), "/": ("slash", "/"), "؟": ("question_mark", "?"),
    "←": ("left", ""), "→": ("right", ""), "↑": ("up", ""), "↓": ("down", ""),
    "PgUp": ("pageup", ""), "PgDn": ("pagedown", ""), "Home": ("home", ""),
    "End": ("end", ""), "space": ("space", " "), "Space": ("space", " "),
}
# Boxes whose every character is a key of its own.
ONE_A_CHARACTER = {"nshdc", "←→", "↑↓", "shdc"}
# Parts of a box that name no single key (a range of digits, "type a card"): no tap.
NOT_A_KEY = {"0-3", "0-9", "1-9", "qs…", "…"}


@dataclass(frozen=True)
class Tap:
    """A tappable key: cells ``x`` … ``x+width-1`` of row ``y``."""
    x: int
    y: int
    width: int
    key: str
    char: str

    def contains(self, x: int, y: int) -> bool:
        return y == self.y and self.x <= x < self.x + self.width


def key_of(token: str) -> tuple[str, str] | None:
    """(key, character) of one key as a box shows it, or None."""
    named = NAMED.get(token)
    if named is not None:
        return named
    if len(token) == 1 and (token.isalnum() or token in "+-*"):
        char = token.lower() if token.isascii() else token
        return (char, char)
    return None


def box_keys(text: str) -> list[tuple[int, int, str, str]] | None:
    """The keys a box's text names: (cell offset, cells, key, character) each; None
    when the box is not made of keys (a title, a highlighted row)."""
    out: list[tuple[int, int, str, str]] = []
    at = 0
    for word in text.split(" "):
        width = cell_len(word)
        if word:
            parts: list[tuple[int, str]]
            if word in ONE_A_CHARACTER:
                parts = []
                x = 0
                for ch in word:
                    parts.append((x, ch))
                    x += cell_len(ch)
            elif "/" in word and len(word) > 1:         # "←→/0-9": the arrows
                parts = []
                x = 0
                for piece in word.split("/"):
                    if piece in ONE_A_CHARACTER:
                        for ch in piece:
                            parts.append((x, ch))
                            x += cell_len(ch)
                    else:
                        parts.append((x, piece))
                        x += cell_len(piece)
                    x += 1
            else:
                parts = [(0, word)]
            for offset, token in parts:
                if token in NOT_A_KEY or not token:
                    continue
                key = key_of(token)
                if key is None:
                    return None
                out.append((at + offset, cell_len(token), *key))
        at += width + 1
    return out


def _reversed(style: object) -> bool:
    if isinstance(style, str):
        if "reverse" not in style:
            return False
        try:
            style = Style.parse(style)
        except Exception:
            return False
    return isinstance(style, Style) and bool(style.reverse)


def boxes(line: Text) -> list[tuple[int, str]]:
    """The reversed runs of a drawn line: (the cell they start at, their text)."""
    plain = line.plain
    found: list[tuple[int, int]] = []
    if _reversed(line.style):
        found.append((0, len(plain)))
    for span in line.spans:
        if span.end > span.start and _reversed(span.style):
            found.append((span.start, span.end))
    found.sort()
    out: list[tuple[int, str]] = []
    last_end = -1
    for start, end in found:
        if start < last_end:
            continue                # a reversed run inside another (one box)
        out.append((cell_len(plain[:start]), plain[start:end]))
        last_end = end
    return out


def line_taps(line: Text, y: int, x: int = 0) -> list[Tap]:
    """The keys drawn in reversed boxes on ``line``, drawn on row ``y`` from column
    ``x``."""
    if not line.spans and not line.style:
        return []
    out = []
    for cell, text in boxes(line):
        keys = box_keys(text)
        if not keys:
            continue
        for offset, width, key, char in keys:
            out.append(Tap(x + cell + offset, y, width, key, char))
    return out


def lines_taps(lines: Sequence[Text], xs: Sequence[int] = (), first: int = 0,
               rows: Iterable[int] | None = None) -> list[Tap]:
    """``line_taps`` of every line (or of ``rows`` only), line ``i`` drawn on row
    ``first + i`` from column ``xs[i]`` (0 where not given)."""
    out: list[Tap] = []
    for i in (range(len(lines)) if rows is None else rows):
        if 0 <= i < len(lines):
            out += line_taps(lines[i], first + i, xs[i] if i < len(xs) else 0)
    return out


def tap_at(taps: Iterable[Tap], x: int, y: int) -> Tap | None:
    return next((t for t in taps if t.contains(x, y)), None)
