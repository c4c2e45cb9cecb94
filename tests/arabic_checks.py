"""What an Arabic screen must look like, as checks on its rows of text (issue 14).

Used by tests/test_arabic_screens.py (Pilot screens and a real SSH session read with
pyte) and tests/test_arabic_ssh.py. Each check returns the problems it found as
sentences naming the row and quoting it, so a failure says which line is wrong.

* Arabic is on the screen at all.
* Shaped mode (the server joins and orders Arabic): no Arabic letter reaches the
  terminal in its unjoined reading-order form (U+0621–U+06FF): every Arabic string
  went through ``Speech.show``/``Speech.line``. Logical mode (the terminal joins and
  orders): no pre-joined presentation form (U+FB50–U+FEFF) is sent.
* No English left untranslated, by a heuristic: a run of two or more English words of
  three or more lowercase letters (one- and two-letter words such as "a", "to" or a
  key letter do not break a run), or a row with such a word and no Arabic at all.
  Capitalised names (Estimation, Tarneeb 41, Lamma, Bot-1), card codes, the names of
  keys (esc, enter, tab …) and /commands are allowed; the tests' player names carry a
  digit (Nour7), so they never look like English words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rich.cells import cell_len

# Arabic letters as they are read (unjoined): what a shaped screen must never show.
# (Tatweel, U+0640, is not a letter: it joins "لـ" to the number after it in either form.)
LOGICAL_LETTERS = re.compile("[\u0621-\u063f\u0641-\u064a\u066e-\u066f\u0671-\u06d3\u06d5"
                             "\u06fa-\u06ff]")
# Joined forms (arabic-reshaper's output): what a logical screen must never show.
PRESENTATION_FORMS = re.compile("[\ufb50-\ufdff\ufe70-\ufefc]")
ARABIC = re.compile("[\u0600-\u06ff\ufb50-\ufdff\ufe70-\ufefc]")

# Lowercase words that are names of keys or fixed identifiers, not English to translate.
KEY_WORDS = frozenset({
    "esc", "enter", "tab", "ctrl", "alt", "shift", "space", "home", "end", "pgup", "pgdn",
    "del", "nshdc", "shdc", "ssh",
})
_WORD = re.compile(r"[a-z]{3,}")
_SHORT = re.compile(r"[a-z]{1,2}")
_EDGES = ".,:;!?()[]{}\"'…·°«»"


def has_arabic(text: str) -> bool:
    return ARABIC.search(text) is not None


def english_words(row: str, allowed: Iterable[str] = ()) -> list[list[str]]:
    """The runs of English words in ``row`` (each a list of the words)."""
    allow = KEY_WORDS | set(allowed)
    runs: list[list[str]] = []
    cur: list[str] = []
    for token in row.split():
        core = token.strip(_EDGES)
        if _WORD.fullmatch(core) and core not in allow:
            cur.append(core)
        elif _SHORT.fullmatch(core):
            continue                  # "a", "to", a key letter: part of the sentence
        else:
            if cur:
                runs.append(cur)
            cur = []
    if cur:
        runs.append(cur)
    return runs


def english_left(rows: Sequence[str], allowed: Iterable[str] = ()) -> list[str]:
    out = []
    for y, row in enumerate(rows):
        runs = english_words(row, allowed)
        long = [" ".join(r) for r in runs if len(r) >= 2]
        if long:
            out.append(f"row {y}: English left {long}: {row.rstrip()!r}")
        elif runs and not has_arabic(row):
            out.append(f"row {y}: English and no Arabic {[' '.join(r) for r in runs]}: "
                       f"{row.rstrip()!r}")
    return out


def script_problems(rows: Sequence[str], mode: str, skip_rows: Iterable[int] = ()
                    ) -> list[str]:
    """Arabic in the wrong form for ``mode`` ("shaped" or "logical")."""
    skip = set(skip_rows)
    wrong = LOGICAL_LETTERS if mode == "shaped" else PRESENTATION_FORMS
    what = ("unjoined Arabic (not shaped by Speech.show/line)" if mode == "shaped"
            else "pre-joined Arabic (shaped although the terminal shapes)")
    out = []
    for y, row in enumerate(rows):
        if y in skip:
            continue
        found = wrong.findall(row)
        if found:
            out.append(f"row {y}: {what} {''.join(found[:12])!r}: {row.rstrip()!r}")
    return out


def row_widths(rows: Sequence[str], width: int) -> list[str]:
    return [f"row {y}: {cell_len(row)} cells > {width}: {row.rstrip()!r}"
            for y, row in enumerate(rows) if cell_len(row) > width]


def screen_problems(rows: Sequence[str], mode: str, *, allowed: Iterable[str] = (),
                    skip_script_rows: Iterable[int] = ()) -> list[str]:
    """Everything wrong with one screen's rows in the Arabic interface."""
    out = []
    if not any(has_arabic(r) for r in rows):
        out.append("no Arabic on the screen at all")
    out += script_problems(rows, mode, skip_script_rows)
    out += english_left(rows, allowed)
    return out
