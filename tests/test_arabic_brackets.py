"""A bracket pair split over a line's runs faces both ways in an Arabic line (a
tester's finding C: the window-too-small notice at 30×12 read ")30×12 ﻥﻵﺍ)": the size
is a run of its own, kept left to right, and the closing bracket after it was left
unmirrored on the wrong side). The fix is in the layout of every such line
(``Speech.line``), so each case here is a line laid out, not one message."""

from __future__ import annotations

from rich.text import Text

from tui.i18n import Speech
from tui.screens.words import too_small_text

SHAPED = Speech("ar", "shaped")
NOW = SHAPED.show("الآن")
WORD = SHAPED.show("كلمة")


def laid(*runs: tuple[str, str]) -> str:
    t = Text()
    for chunk, style in runs:
        t.append(chunk, style=style)
    return SHAPED.line(t, 0).plain


def test_the_too_small_notice_has_a_matched_pair():
    last = too_small_text(SHAPED, 30, 12).plain.splitlines()[-1].strip()
    assert last == f"(30×12 {NOW})", last


def test_a_closing_bracket_in_a_run_of_its_own():
    assert laid(("(كلمة ", ""), ("Bot-3", "bold"), (")", "")) == f"(Bot-3 {WORD})"
    assert laid(("(كلمة ", "dim"), ("Bot-3)", "bold")) == f"(Bot-3 {WORD})"


def test_an_opening_bracket_in_a_latin_run():
    assert laid(("(30×12", "bold"), (" الآن)", "")) == f"({NOW} 30×12)"
    assert laid(("(", ""), ("30×12", "bold"), (" الآن)", "")) == f"({NOW} 30×12)"


def test_a_pair_inside_one_run_stays_as_it_is():
    assert laid(("كلمة ", ""), ("(Bot-3)", "bold")) == f"(Bot-3) {WORD}"
    assert laid(("كلمة ", ""), ("[x]", "bold"), (" 4♥", "")) == f"4♥ [x] {WORD}"
