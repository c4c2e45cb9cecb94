"""No word and no figure cut in two (issue 44): the scan of ``cuts.cut_marks`` over
every golden screen (tests/golden/, every size) and over every screen of the Pilot
scenarios (``test_arabic_screens.SCENARIOS``: the lobby, the table in every phase of
the three games, the records, replays, the review, help, options, dialogs …) at a
phone's 40×20 and 50×32, in English and in Arabic (shaped), each page of those that
scroll. The golden tests scan what they write too (``test_golden.compare``), and the
phone tests the screens they read (``test_phone_screens``, ``test_phone_whole``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cuts import cut_marks, own_words
from rich.text import Text
from test_arabic_screens import GUEST, ME, SCENARIOS, SLOW, finished, screen_rows  # noqa: F401

from engine.room import Registry
from server.persistence import TableStore
from tui.app import LammaApp
from tui.cards import Look
from tui.i18n import Speech
from tui.screens import table_draw as draw
from tui.screens.words import cut, names_in

GOLDEN = Path(__file__).resolve().parent / "golden"


def test_no_golden_screen_cuts_a_word_or_a_figure():
    found = []
    for path in sorted(GOLDEN.glob("*.txt")):
        found += [f"{path.name} {m}" for m in cut_marks(path.read_text("utf-8").splitlines())]
    assert not found, "\n".join(found)


def test_the_scan_finds_a_cut_word_or_figure_and_passes_the_rooms_own_ellipses():
    shaped = Speech("ar", "shaped")
    cut_rows = [" Round 1: omar -11, Bot-2 +15, Bot-3 +29, Bot-4 +…",     # a figure
                "     Rana3, Bot-2, Bot-3, Bot-4 · 1 wat…",                  # a word
                " hana  1/2  -11  base -1…",
                " 4 is disabled (you declare last). Declared so far:…",      # a sign
                "…+2 ﺱﺎﺳﺃ  37    +37   4/4        Bot-2",                  # Arabic, a figure
                "   13 ﻦﻣ 1 ﺭﻭﺪﻟﺍ Bot… ،Bot-3 ،Bot-2 ،sam"]                 # Arabic, a name
    found = cut_marks(cut_rows)
    assert [m.split(":")[0] for m in found] == [f"row {y}" for y in range(len(cut_rows))]
    whole = [" Sami2 is declaring…", " ←→ card  ⏎ play  qs… type",
             shaped.show("Sami2 يطلب…"), " Events   the same deals for everyone, …",
             " Teams  a 0  ·  b -6   (ali+cem vs …)", " … and 3 other scores",
             " Thinking…", " rank Q … now the suit: s h d c"]
    assert cut_marks(whole) == [], cut_marks(whole)
    assert {"declaring", "qs", shaped.show("يطلب")} <= own_words()


def test_cutting_keeps_whole_words_and_figures_where_a_whole_one_holds():
    assert draw.fit(Text("Round 1: ali -1, Bot-2 +37, Bot-3 -12"), 24).plain == \
        "Round 1: ali -1, Bot-2 …"
    assert cut("20 h 58 min", 10) == "20 h 58 …"
    assert cut("Abdulrahman", 6) == "Abdul…"          # one word alone: where it ends
    assert names_in(["omar(away)", "Bot-2", "Bot-3", "Bot-4"], 23) == \
        ["omar(away)", "Bot-2", "+2"]
    speech = Speech("ar", "shaped")
    line = Text(" " + speech._("Round {round}: {scores}").format(
        round=1, scores="ali -17, bea +25, cem -2, dua -2"))
    cut_line = draw.rtl_fit(speech, line, 30)
    assert cut_marks([cut_line.plain]) == [], cut_line.plain
    assert "+2" not in cut_line.plain.replace("+25", ""), cut_line.plain


@pytest.mark.slow          # every scenario, two sizes, two languages
@pytest.mark.parametrize("size", [(40, 20), (50, 32)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("sc", SCENARIOS, ids=lambda sc: sc.name)
async def test_every_screen_at_a_phones_size_cuts_no_word_and_no_figure(sc, size,
                                                                        finished):  # noqa: F811
    reports = []
    for language in ("en", "ar"):
        if language == "en" and sc.first_time:
            continue
        reg = Registry(store=TableStore(finished) if sc.records else None, bot_pause=SLOW,
                       trick_pause=0.0)
        if sc.prep is not None:
            sc.prep(reg)
        name = GUEST if sc.guest else ME
        app = LammaApp(reg, name, f"guest:{name}" if sc.guest else f"key:x:{name}",
                       guest=sc.guest,
                       look=Look(language=language,
                                 text_mode=None if sc.first_time else "shaped"))
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await sc.go(pilot, app)
            await pilot.pause()
            seen: list[list[str]] = []
            for _page in range(12):
                rows = screen_rows(app)
                if rows in seen:
                    break
                seen.append(rows)
                found = cut_marks(rows)
                if found:
                    reports.append("\n".join([
                        f"{sc.name} at {size[0]}×{size[1]} ({language}): "
                        f"{type(app.screen).__name__}", *("  " + f for f in found),
                        *(f"{y:>2}|{r.rstrip()}" for y, r in enumerate(rows))]))
                await pilot.press("pagedown")
                await pilot.pause()
    assert not reports, "\n\n".join(reports)
