"""The help and the replays in Arabic (issue 14): Pilot at 80×24 and 120×36, in
both text modes (``shaped``: joined and ordered by the server; ``logical``: sent in
reading order for a terminal that does its own bidi)."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from stacked import random_match
from test_tui_lobby_extras import keep

from engine.room import Registry
from server.persistence import TableStore
from server.store import Store
from tui.app import LammaApp
from tui.cards import Look
from tui.i18n import Speech
from tui.screens.help import HelpScreen, HelpText
from tui.screens.replay import ReplayListScreen, ReplayScreen

SIZES = [(80, 24), (120, 36)]
MODES = ["shaped", "logical"]
SEATS = ("ana", "ben", "سمير", "dee")


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """A finished Estimation match with an Arabic name at seat 2, and a Tarneeb one."""
    store = Store(tmp_path_factory.mktemp("arabic") / "lamma.db")
    est = random_match("estimation", 13, 3)
    est_id = keep(store, est, SEATS)
    tar_id = keep(store, random_match("tarneeb41", None, 4), SEATS)
    return {"store": store, "est": est, "est_id": est_id, "tar_id": tar_id}


def arabic_app(records, mode):
    reg = Registry(store=TableStore(records["store"]), bot_pause=0.0, trick_pause=0.0)
    return LammaApp(reg, "ana", "key:x:ana", look=Look(language="ar", text_mode=mode))


def fits(lines, width):
    wide = [line for line in lines if cell_len(line) > width]
    assert not wide, wide


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("mode", MODES)
async def test_the_help_explains_each_game_in_arabic(records, size, mode):
    speech = Speech("ar", mode)
    app = arabic_app(records, mode)
    # Words of each game's summary (single words: a line may end anywhere).
    games = {"estimation": ["المصرية", "التراناب", "بالضبط"],
             "estimation-kotshina": ["حاسبة", "ثابتة", "صعايدة"],
             "tarneeb41": ["متقابلان", "للموزّع", "الصفر"],
             None: ["الألعاب", "افتح"]}
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for game, phrases in games.items():
            app.push_screen(HelpScreen(game))
            await pilot.pause()
            help_text = app.screen.query_one(HelpText)
            width = help_text.size.width
            assert 60 <= width <= size[0] - 4
            rendered = help_text.render()
            lines = rendered.plain.split("\n")
            assert len(lines) == help_text.size.height
            fits(lines, width)
            text = "\n".join(lines)
            # The title, right-aligned: its last letter at the right edge.
            assert lines[0].strip() == speech.show("مساعدة")
            assert len(lines[0]) == width and lines[0].startswith(" ")
            for phrase in phrases:
                assert speech.show(phrase) in text, (game, phrase)
            # The keys, with their words in Arabic; keys and commands as they are typed.
            sit = next(x for x in lines if speech.show("اجلس") in x)
            assert "Enter" in sit and "↑ ↓" in sit
            assert any("/report NAME REASON" in x for x in lines)
            # A command inside Arabic words stays whole ("/help", not "help/").
            assert any("/help" in x and speech.show("أمر") in x for x in lines)
            assert speech.show("حروف لوحة المفاتيح العربية") in text
            assert "Sa'ayda" not in text and "Tarneeb" not in text
            footer = app.screen.query_one("#keys").render().plain
            assert speech.show("رجوع") in footer and cell_len(footer) <= size[0]
            # The Arabic key of q (ض) closes it, as q does.
            await pilot.press("ض")
            await pilot.pause()
            assert not isinstance(app.screen, HelpScreen)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("mode", MODES)
async def test_the_replays_in_arabic(records, size, mode):
    speech = Speech("ar", mode)
    show = speech.show
    app = arabic_app(records, mode)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        app.push_screen(ReplayListScreen())
        await pilot.pause()
        lst = app.screen
        assert show("الإعادات") in lst.query_one("#record-title").plain
        rows = lst.query_one("#replays-list").plain.splitlines()
        fits(rows, 80)
        head, est_row = rows[0], next(r for r in rows if show("استيميشن") in r)
        for word in ("اللعبة", "الطول", "اللاعبون", "النتيجة"):
            assert show(word) in head
        assert show("13 دورًا") in est_row and str(records["est_id"]) in est_row
        if mode == "shaped":
            # Mirrored: the match's number in the rightmost column, its game left of it.
            assert est_row.split()[-1] == str(records["est_id"])
            assert head.index(show("اللعبة")) > head.index(show("اللاعبون"))
        footer = lst.query_one("#keys").render().plain
        assert show("شاهد") in footer
        await pilot.press("escape")
        await pilot.pause()

        app.push_screen(ReplayScreen(records["est_id"]))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)

        def block(name):
            lines = screen.query_one(name).plain.split("\n")
            fits(lines, 80)
            return "\n".join(lines)

        assert show("إعادة") in block("#rp-head") and show("التوزيع") in block("#rp-head")
        assert show("الموزّع") in block("#rp-board")
        assert show("اللاعب") in block("#rp-round") and show("الطلب") in block("#rp-round")
        # The Arabic name is drawn as the others are, in the player's mode.
        assert show("سمير") in block("#rp-board")
        # ى is n (the next trick), ح is p (back): the Arabic layout's keys step too.
        await pilot.press("ى")
        await pilot.pause()
        assert show("أخذها") in block("#rp-board") and show("بدأها") in block("#rp-board")
        assert show("اللمّة 1 من 13") in block("#rp-head")
        await pilot.press("ى", "ى")
        await pilot.press("ح")
        await pilot.pause()
        assert show("اللمّة 2 من 13") in block("#rp-head")
        await pilot.press("end")
        await pilot.pause()
        panel = block("#rp-round")
        assert show("ملخّص الدور 13") in panel and show("المجموع") in panel
        assert "Round" not in panel and "total" not in panel
        assert show("لمّة") in screen.query_one("#keys").render().plain
