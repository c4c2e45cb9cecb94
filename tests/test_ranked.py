"""Ranked play is the 18-round match (issue 33): the room says which tables are ranked
where a table is made and listed, in both languages, and to programs."""

from __future__ import annotations

import pytest

from engine.room import Registry
from engine.room import Session as Member
from tui.app import LammaApp
from tui.cards import Look
from tui.i18n import Speech
from tui.screens.create import CreateScreen
from tui.screens.lobby import row_line, said_row


def waiting(reg: Registry, game: str, length: object, bots: bool = False):
    owner = Member("sam", "key:x:sam")
    table = reg.create(game, length)
    table.sit(owner, 0)
    if bots:
        table.fill_with_bots(owner, [1], "easy")
    return table


def test_the_listing_says_which_tables_are_ranked() -> None:
    reg = Registry(bot_pause=3600.0)
    ranked = waiting(reg, "estimation", 18)
    short = waiting(reg, "estimation", 13)
    long = waiting(reg, "estimation", 24)
    tarneeb = waiting(reg, "tarneeb41", None)
    calc = waiting(reg, "estimation-kotshina", "micro")
    with_bot = waiting(reg, "estimation", 18, bots=True)
    rows = {row["id"]: row for row in reg.listing(Member("ana", "key:x:ana"))}
    assert rows[ranked.id]["ranked"] is True and rows[tarneeb.id]["ranked"] is True
    for t in (short, long, calc, with_bot):
        assert rows[t.id]["ranked"] is False, t.id
    # A mark after the length (the lobby's note says what it means): the word itself
    # did not fit beside a status in 80 columns.
    assert "18 rds *" in row_line(rows[ranked.id]) and "to 41 *" in row_line(rows[tarneeb.id])
    assert "*" not in row_line(rows[short.id]) and "*" not in row_line(rows[with_bot.id])
    arabic = Speech("ar", "logical")
    assert "*" in said_row(arabic, rows[ranked.id]).plain
    assert "*" not in said_row(arabic, rows[with_bot.id]).plain


@pytest.mark.parametrize("language,word", [("en", "ranked: pays level points"),
                                           ("ar", "مصنّفة: تعطي نقاط المستوى")])
async def test_the_lobby_says_what_the_mark_means(language: str, word: str) -> None:
    reg = Registry(bot_pause=3600.0)
    look = Look(language=language, text_mode="logical")
    app = LammaApp(reg, "ali", "key:x:ali", look=look)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert word not in "".join(t.plain for t in app.screen.lines("note"))
        waiting(reg, "estimation", 18)
        reg.lobby_changed()
        await pilot.pause(0.1)
        note = "".join(t.plain for t in app.screen.lines("note"))
        assert "*" in note and word in note, note


@pytest.mark.parametrize("language", ["en", "ar"])
async def test_the_new_table_screen_says_whether_it_is_ranked(language: str) -> None:
    look = Look(language=language, text_mode="logical")
    app = LammaApp(Registry(bot_pause=3600.0), "ali", "key:x:ali", look=look)
    words = {"en": ("Ranked: level points", "Unranked: statistics only",
                    "Unranked: computer players"),
             "ar": ("مصنّفة: نقاط المستوى", "غير مصنّفة: للإحصاءات فقط",
                    "غير مصنّفة: فيها لاعبون آليون")}[language]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CreateScreen)

        def form() -> str:
            return "\n".join(line.plain for line in screen.query_one("#create-form")
                             .query("Line"))
        # By default computer players fill the empty seats: unranked.
        assert screen.value("bots") and words[2] in form()
        await pilot.press("down", "down", "down", "down", "right")     # wait for people
        await pilot.pause()
        assert not screen.value("bots") and screen.value("length") == 18
        assert words[0] in form() and words[1] not in form()
        await pilot.press("up", "up", "up", "left")                     # 13 rounds
        await pilot.pause()
        assert screen.value("length") == 13
        assert words[1] in form() and words[0] not in form()


def test_the_lobby_marks_a_practice_table_in_both_languages_and_at_40_columns():
    """Issue 29: a practice table's row says so (the JSON listing's "practice": true):
    the English and the Arabic rows at 80 columns, the compact lobby's at 40."""
    from rich.cells import cell_len

    from tui.screens.lobby import compact_row, row_text
    seat = {"kind": "bot", "guest": False, "connected": True}
    row = {"id": "12", "game": "estimation", "length": 18, "timer": 0, "private": False,
           "status": "playing", "round": 12, "rounds": 18, "spectators": 0,
           "ranked": False, "practice": True,
           "seats": [{**seat, "kind": "human", "name": "ali"},
                     *({**seat, "name": f"Bot-{k}"} for k in (2, 3, 4))]}
    plain = {"id": "2", **{k: v for k, v in row.items() if k != "id"}, "practice": False}
    english = row_text(row).plain
    assert "practice" in english and "…" not in english, english
    assert "practice" not in row_text(plain).plain
    for mode in ("logical", "shaped"):
        arabic = Speech("ar", mode)
        assert arabic.show(arabic._("practice")) in said_row(arabic, row).plain
    for speech in (Speech("en"), Speech("ar", "logical")):
        rows = compact_row(speech, row, 40)
        said = " ".join(r.plain for r in rows)
        assert speech._("practice") in said, said
        assert all(cell_len(r.plain) <= 40 for r in rows)


def test_the_new_tables_length_goes_shortest_to_longest_from_the_default():
    """← shorter, → longer (→ went 18, 13, 24: a player's finding); the default first."""
    from tui.screens.create import FIELDS, CreateScreen
    form = CreateScreen()
    form.draw = lambda: None            # type: ignore[method-assign]   # no app: no screen
    form.field = FIELDS.index("length")
    assert form.value("length") == 18
    seen = []
    for _ in range(3):
        form.action_value(1)
        seen.append(form.value("length"))
    assert seen == [24, 13, 18]
    form.action_value(-1)
    assert form.value("length") == 13
    form.field = FIELDS.index("game")
    form.action_value(1)
    assert form.value("game") == "estimation-kotshina"
    assert form.options("length") == ["micro", "mini", "full"]
    assert form.value("length") == "micro"
