"""Text cut where it carries information (issue 44): a scan of a screen's rows.

A line too long for its place is cut with "…" by the drawing's tools; where the cut
falls inside a word or a number, what is left reads wrong ("Bot…", "+2…" for +25,
"1 wat…"). ``cut_marks(rows)`` finds each "…" on a screen (rows of text as the terminal
shows them, English or Arabic, shaped or not) that has a letter, a digit or a sign
(``+ - − / % :``) on either side of it: a cut in the middle of a word or after a
figure. An ellipsis that is part of what the room says ("Sami2 is declaring…",
"qs… type") is not one: the words next to "…" in the message catalogue are allowed,
as they are written and as the shaped Arabic shows them.

Used by the Pilot tests that read screens (``test_phone_screens``,
``test_arabic_screens``, ``test_golden*`` through ``compare``, ``test_cuts``) and by
the scan of every golden screen (``tests/test_cuts.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

ELLIPSIS = "…"
SIGNS = frozenset("+-−±/%:×#")
WORD = r"[\w\u0610-\u061a\u064b-\u065f\u0670]+"     # a word (Arabic marks in it)
_WORD = re.compile(WORD)
PO = Path(__file__).resolve().parent.parent / "tui" / "locale" / "ar.po"


def _strings() -> list[str]:
    """Every msgid and msgstr of the Arabic catalogue, and the keys' own "qs…"."""
    out = ["qs…"]
    text = PO.read_text(encoding="utf-8")
    for m in re.finditer(r'^(?:msgid|msgstr(?:\[\d\])?) ((?:"(?:[^"\\]|\\.)*"\s*)+)', text,
                         re.M):
        out.append("".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1))))
    return [s for s in out if ELLIPSIS in s]


@cache
def own_words() -> frozenset[str]:
    """The words written next to "…" in what the room says, as written and as the
    shaped Arabic shows each of them (joined, in visual order)."""
    from tui.i18n import Speech
    shaped = Speech("ar", "shaped")
    words: set[str] = set()
    for s in _strings():
        for i, ch in enumerate(s):
            if ch != ELLIPSIS:
                continue
            for m in _WORD.finditer(s):
                if m.end() == i or m.start() == i + 1:
                    word = m.group(0)
                    words.add(word)
                    words.add(shaped.show(word))
    return frozenset(w for w in words if w)


def _wordish(ch: str) -> bool:
    return ch.isalnum() or ch in SIGNS


def _neighbour_words(row: str, i: int) -> tuple[str, str]:
    left = right = ""
    m = re.search(WORD + "$", row[:i])
    if m:
        left = m.group(0)
    m = re.match(WORD, row[i + 1:])
    if m:
        right = m.group(0)
    return left, right


def cut_marks(rows: Sequence[str], allowed: Iterable[str] = ()) -> list[str]:
    """Each "…" of ``rows`` in the middle of a word or after (or before) a figure or a
    sign, as a sentence naming its row and quoting it; [] when there is none."""
    own = own_words() | frozenset(allowed)
    out = []
    for y, row in enumerate(rows):
        for i, ch in enumerate(row):
            if ch != ELLIPSIS:
                continue
            before = row[i - 1] if i else " "
            after = row[i + 1] if i + 1 < len(row) else " "
            if not (_wordish(before) or _wordish(after)):
                continue
            left, right = _neighbour_words(row, i)
            if (left and left in own) or (right and right in own):
                continue
            out.append(f"row {y}: text cut at column {i} ({before!r}…{after!r}): "
                       f"{row.rstrip()!r}")
    return out
