"""The lobby's rows at 80 columns (a tester's findings): every person listed before a
computer player, every row's status in one column, and what the lobby says of people
(where one sits, who is away) true at the time."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from tui.i18n import Speech
from tui.screens.lobby import row_text, said_row
from tui.screens.words import people_first


def cells(line: str, part: str) -> int:
    """The column (in cells: a vowel mark takes none) where ``part`` begins in ``line``."""
    return cell_len(line[:line.index(part)])


def seat(kind, name, guest=False, connected=True):
    return {"kind": kind, "name": name, "guest": guest, "connected": connected}


BASE = {"timer": 0, "private": False, "spectators": 0, "ranked": False, "practice": False}
# The tester's three rows (finding A): a ranked match of four people, a practice
# Tarneeb table where a guest sits with two computer players, and one person with three.
ROWS = [
    {**BASE, "id": "1", "game": "estimation", "length": 18, "ranked": True,
     "status": "playing", "round": 5, "rounds": 18,
     "seats": [seat("human", n) for n in ("amr", "bea", "cid", "dua")]},
    {**BASE, "id": "2", "game": "tarneeb41", "length": None, "status": "playing",
     "round": 5, "rounds": None, "practice": True,
     "seats": [seat("human", "eve"), seat("bot", "Bot-2"), seat("human", "obs", guest=True),
               seat("bot", "Bot-4")]},
    {**BASE, "id": "9", "game": "estimation", "length": 18, "status": "playing",
     "round": 3, "rounds": 18,
     "seats": [seat("human", "pe"), *(seat("bot", f"Bot-{k}") for k in (2, 3, 4))]},
    {**BASE, "id": "7", "game": "estimation", "length": 18, "status": "playing",
     "round": 12, "rounds": 18, "practice": True,
     "seats": [seat("human", "ali"), *(seat("bot", f"Bot-{k}") for k in (2, 3, 4))]},
]
STATUS = ["round 5 of 18", "hand 5", "round 3 of 18", "12 of 18"]


def test_the_english_rows_list_every_person_and_start_the_status_at_one_column():
    lines = [row_text(row).plain for row in ROWS]
    assert "obs°" in lines[1] and "eve, Bot-2, obs°, Bot-4" in lines[1], lines[1]
    assert {line.index(status) for line, status in zip(lines, STATUS, strict=True)} == {59}
    assert "practice" in lines[1] and "practice" in lines[3]
    assert not any("…" in line for line in lines), lines


@pytest.mark.parametrize("mode", ["logical", "shaped"])
def test_the_arabic_rows_list_every_person_and_start_the_status_at_one_column(mode):
    speech = Speech("ar", mode)
    lines = [said_row(speech, row).plain for row in ROWS]
    assert "obs°" in lines[1], lines[1]
    # each status's first words where every row's status begins: from the game's
    # column in reading order (logical), at the status column's right edge (shaped)
    firsts = [speech._("round {r} of {rounds}").format(r=5, rounds=18),
              speech._("hand {r}").format(r=5),
              speech._("round {r} of {rounds}").format(r=3, rounds=18), "12"]
    if mode == "logical":
        at = {cells(line, first) - cells(line, speech._("Tarneeb 41") if i == 1 else
                                         speech._("Estimation"))
              for i, (line, first) in enumerate(zip(lines, firsts, strict=True))}
    else:
        at = {cells(line, speech.show(first)) + cell_len(speech.show(first))
              for line, first in zip(lines, firsts, strict=True)}
    assert len(at) == 1, lines
    assert all(speech.show(speech._("practice")) in lines[i] for i in (1, 3)), lines


def test_people_are_never_folded_while_a_computer_player_is_listed_or_counted():
    bots = lambda n: f"+{n} bots"      # noqa: E731
    names = ["eve", "Bot-2", "obs°", "Bot-4"]
    kinds = [False, True, False, True]
    assert people_first(names, kinds, 23, bots) == names
    assert people_first(names, kinds, 22, bots) == ["eve", "obs°", "+2 bots"]
    assert people_first(names, kinds, 16, bots) == ["eve", "obs°", "+2"]
    # with no room for even that, people first and the rest counted together
    assert people_first(["abdulrahman", "bartholomew", "Bot-3", "Bot-4"],
                        [False, False, True, True], 24, bots) == ["abdulrahman", "+3"]


# ------------------------------------------------ finding B: what the lobby says of people

def test_away_only_for_a_person_a_match_under_way_waits_for():
    """A finished table's people went back to the lobby (its seats keep their names but
    nobody is at them): not "away"; a match under way whose person dropped: away."""
    from tui.screens.lobby import compact_row
    over = {**BASE, "id": "4", "game": "estimation", "length": 18, "status": "over",
            "round": 18, "rounds": 18,
            "seats": [seat("human", "amr", connected=False), seat("human", "bea",
                                                                  connected=False),
                      seat("bot", "Bot-3"), seat("bot", "Bot-4")]}
    playing = {**over, "id": "5", "status": "playing", "round": 4}
    assert "away" not in row_text(over).plain and "amr, bea" in row_text(over).plain
    assert "amr(away), bea(away)" in row_text(playing).plain
    for speech in (Speech("en"), Speech("ar", "logical")):
        away = speech._("(away)")
        assert away not in " ".join(t.plain for t in compact_row(speech, over, 40))
        assert away not in said_row(speech, over).plain
        assert away in said_row(speech, playing).plain


async def test_the_lobby_no_longer_says_where_one_sat_after_leaving_the_table():
    from engine.room import Registry, code_label
    from engine.room import Session as Member
    from tui.app import LammaApp
    reg = Registry(bot_pause=3600.0)
    table = reg.create("estimation", 13, private=True)
    table.sit(Member("ana", "key:x:ana"), 0)
    app = LammaApp(reg, "ben", "key:x:ben")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("j")
        await pilot.pause()
        await pilot.press(*code_label(table.code).lower().replace("-", ""), "enter")
        await pilot.pause()
        assert app.member.table is table and app.member.seat == 1
        await pilot.press("q")          # a table still waiting: left at once
        await pilot.pause()
        assert app.member.table is None and app.screen.__class__.__name__ == "LobbyScreen"
        status = " ".join(line.plain for line in app.screen.lines("status"))
        assert "You sit in seat" not in status, status
        assert f"#{table.id}" not in status, status


# ------------------------------------------------ who watches, whole at 80 columns
# "· N watching" came after the status and was cut to "…" by the 80th column (a
# match under way says "round 12 of 18": 14 cells of the status's 21). Now the status
# is said shorter first, and only then do the seats' names give up cells.
WATCHED = [
    ({**ROWS[0], "id": "11", "round": 12, "spectators": 3}, "12 of 18 · 3 watching"),
    ({**BASE, "id": "12", "game": "estimation", "length": 18, "status": "waiting",
      "spectators": 12,
      "seats": [seat("human", "amr"), seat("human", "bea"), seat("empty", None),
                seat("empty", None)]}, "2 free · 12 watching"),
    ({**ROWS[1], "id": "13", "spectators": 4}, "hand 5 · practice · 4 watching"),
    ({**ROWS[3], "id": "14", "spectators": 120, "private": True,
      "seats": [seat("human", "ali"), seat("human", "bo"), seat("bot", "Bot-3"),
                seat("bot", "Bot-4")]},
     "12 of 18 · practice · 120 watching"),
]


def test_who_watches_is_never_cut_at_80_columns():
    for row, tail in WATCHED:
        line = row_text(row).plain.rstrip()
        assert cell_len(line) <= 80 and "…" not in line, line
        assert line.endswith(tail), line
        people = [s["name"] for s in row["seats"] if s["kind"] == "human"]
        assert all(p in line for p in people), line         # the people are all there
    # Where the short status and who watches hold, the status keeps its column.
    for row, tail in WATCHED[:2]:
        assert row_text(row).plain.index(tail) == 59
    # The names give up cells only where they must (the longest tail above).
    assert "+2" in row_text(WATCHED[3][0]).plain
    # With nobody watching, nothing changes: the status whole, where it was.
    assert row_text(ROWS[0]).plain.index("round 5 of 18") == 59


@pytest.mark.parametrize("mode", ["logical", "shaped"])
def test_who_watches_is_never_left_out_of_an_arabic_row(mode):
    """The Arabic row left it out where it did not hold (three of these four rows)."""
    speech = Speech("ar", mode)
    for row, _tail in WATCHED:
        line = said_row(speech, row).plain
        n = row["spectators"]
        said = speech.ngettext("{n} watching", "{n} watching", n).format(n=n)
        assert said in line or speech.show(said) in line, line
        assert cell_len(line) <= 80 and "…" not in line, line
    assert speech.show(speech._("practice")) in said_row(speech, WATCHED[3][0]).plain


# ------------------------------------------- the people listed, whoever else watches
# Keeping who watches whole took the seats' cells down to "amira, +3" (a practice
# table of four people and 3 watching, "amira, bassem, +2" before), and with thousands
# watching to "+4", no name at all. The seats keep room for two names (or the first
# whole and the fold) and the watcher words are said shorter first ("3 watch", then
# the round as "12/18").
FOUR = {**BASE, "id": "21", "game": "estimation", "length": 18, "status": "playing",
        "round": 12, "rounds": 18, "practice": True,
        "seats": [seat("human", n) for n in ("amira", "bassem", "chadi", "dalia")]}
MANY = [{**FOUR, "spectators": n} for n in (999, 1000, 12345, 100000)] + [
    {**FOUR, "id": "22", "spectators": 1000,
     "seats": [seat("human", n) for n in ("yasmine", "bassem", "chadi", "dalia")]}]


def test_a_practice_table_of_four_people_watched_by_3_lists_two_of_them():
    line = row_text({**FOUR, "spectators": 3}).plain.rstrip()
    assert "amira, bassem, +2" in line, line
    assert "practice" in line and "3 watch" in line, line
    assert cell_len(line) <= 80 and "…" not in line, line
    for mode in ("logical", "shaped"):
        speech = Speech("ar", mode)
        for n in (3, 999, 12345):
            line = said_row(speech, {**FOUR, "spectators": n}).plain
            assert "amira" in line and "bassem" in line, line
            assert str(n) in line and speech.show(speech._("practice")) in line, line
            assert cell_len(line) <= 80 and "…" not in line, line


def test_with_thousands_watching_the_first_person_is_still_listed_whole():
    for row in MANY:
        first = row["seats"][0]["name"]
        line = row_text(row).plain.rstrip()
        assert f"{first}, " in line, line               # a name, then the fold
        assert f"{row['spectators']} watch" in line and "practice" in line, line
        assert cell_len(line) <= 80 and "…" not in line, line
    # and two names where the watcher words said shorter leave them the room
    assert "amira, bassem, +2" in row_text(MANY[0]).plain
    for mode in ("logical", "shaped"):
        speech = Speech("ar", mode)
        for row in MANY:
            line = said_row(speech, row).plain
            assert row["seats"][0]["name"] in line and str(row["spectators"]) in line, line
            assert cell_len(line) <= 80 and "…" not in line, line
