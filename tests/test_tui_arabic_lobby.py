"""The room in Arabic (issue 14), every screen but the table, help and replays:
Pilot at 80×24 and 120×36, in both text modes (shaped here, logical: the terminal
joins and orders). What is on the screen is read back: the Arabic words (joined
and in visual order when shaped), lines right-aligned within the width, and keys
pressed with the Arabic keyboard layout doing what their Latin twins do."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from stacked import random_match

from engine.room import PLAYER_HELP, Registry, Said, code_label
from engine.room import Session as Member
from engine.room.errors import N_
from engine.room.store import finished, people_throughout
from server.moderation import _muted
from server.persistence import TableStore
from server.store import Store
from tui.app import LammaApp
from tui.cards import Look
from tui.i18n import Speech
from tui.messages import PASTE_CUT, TOO_FAST, InputLimited
from tui.screens.command import CommandScreen
from tui.screens.confirm import ConfirmScreen
from tui.screens.create import CreateScreen
from tui.screens.lobby import LobbyScreen
from tui.screens.options import OptionsScreen
from tui.screens.profile import LeaderboardScreen, ProfileScreen
from tui.screens.seats import JoinCodeScreen, TakeSeatScreen
from tui.screens.textmode import TextModeScreen
from tui.sentences import say

SLOW = 3600.0          # computer players never move by themselves here
MODES = ("shaped", "logical")
SIZES = ((80, 24), (120, 36))


def finish(store, mid, m):
    """``m`` recorded as finished, paid as the rules say for the stored seats."""
    return store.finish_match(mid, finished(m, people_throughout(store.match(mid))))


def arabic_app(reg, mode: str | None = "shaped", name: str = "ali", guest: bool = False):
    ident = f"guest:{name}" if guest else f"key:x:{name}"
    look = Look(unicode=True, colour=True, language="ar", text_mode=mode)
    return LammaApp(reg, name, ident, guest=guest, look=look)


def said(mode: str, text: str) -> str:
    """``text`` as the screen should show it in ``mode``."""
    return Speech("ar", mode).show(text)


PARTS = {"#lobby-title": "title", "#lobby-list": "list", "#lobby-status": "status",
         "#lobby-note": "note"}


def lines_of(screen, selector: str) -> list[str]:
    """The lines of a block of one-line widgets; in the lobby (one Board draws it all)
    a part by its name here, the list's rows padded to its 17 rows as shown."""
    if selector not in PARTS:
        return [line.plain for line in screen.query_one(selector).query("Line")]
    lines = [line.plain for line in screen.lines(PARTS[selector])]
    if selector == "#lobby-list":
        lines += [""] * (17 - len(lines))
    return lines


def block_lines(screen, selector: str) -> list[str]:
    return screen.query_one(selector).plain.split("\n")


def screen_rows(app) -> list[str]:
    """The whole screen as the terminal gets it, one string per row."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def keys_of(app) -> str:
    screen = app.screen
    if isinstance(screen, LobbyScreen):
        return screen.footer().plain
    return screen.query_one("#keys").render().plain


def assert_right_aligned(lines, width: int) -> None:
    """Each non-blank line is laid out to the width: it fills it, padded at its
    left (a line's first words are at its right)."""
    for line in lines:
        if line.strip():
            assert cell_len(line) == width, (width, line)


def bot_table(reg, private=False, game="estimation", length=13):
    owner = Member("sam", "key:x:sam")
    table = reg.create(game, length, private=private)
    table.sit(owner, 0)
    table.fill_with_bots(owner, [1, 2, 3], "easy")
    return table


# ------------------------------------------------------------------ lobby
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("size", SIZES)
async def test_the_lobby_in_arabic(mode, size):
    reg = Registry(bot_pause=SLOW)
    waiting = reg.create("tarneeb41", None)
    waiting.sit(Member("سمير", "key:x:samir"), 0)
    bot_table(reg)
    app = arabic_app(reg, mode)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        title = lines_of(screen, "#lobby-title")[0]
        assert said(mode, "صالة الورق · استيميشن · طرنيب 41") in title
        assert said(mode, "أنت: ali") in title
        rows = lines_of(screen, "#lobby-list")
        head, first, second = rows[0], rows[1], rows[2]
        for word in ("اللعبة", "الطول", "المقاعد", "الحالة"):
            assert said(mode, word) in head
        assert said(mode, "طرنيب 41") in first and said(mode, "حتى 41") in first
        assert said(mode, "سمير") in first
        assert said(mode, "ينقصها 3") in first
        assert said(mode, "استيميشن") in second and said(mode, "الدور 1 من 13") in second
        assert_right_aligned(rows[:3], 80)
        if mode == "shaped":
            # Mirrored: the table's number at the right edge, its status at the left.
            assert first.rstrip().endswith("1") and second.rstrip().endswith("2")
            assert first.index(said(mode, "ينقصها 3")) < first.index(said(mode, "سمير"))
            # Seats from the right: the first seat's holder is the rightmost name.
            assert first.index("·") < first.index(said(mode, "سمير"))
        else:
            # Reading order, for the terminal to lay out right to left.
            assert first.index(said(mode, "طرنيب 41")) < first.index(said(mode, "ينقصها"))
        keys = keys_of(app)
        for word in ("اجلس", "مسابقات", "جديدة", "ملفك", "خروج"):
            assert said(mode, word) in keys
        assert cell_len(keys) == size[0]
        if mode == "shaped":
            assert keys.endswith(" ⏎ ") and keys.strip().endswith("⏎")   # the first key at the right
        if size == (120, 36):
            # The body is 80 columns in the middle: its Arabic lines end at its right edge.
            screen_text = screen_rows(app)
            body_left = (size[0] - 80) // 2
            row = next(r for r in screen_text if said(mode, "ينقصها 3") in r)
            assert cell_len(row.rstrip()) == body_left + 80
        await pilot.press("down")                    # the listing still moves
        assert screen.cursor == 1
        assert "take" not in keys_of(app)
        assert said(mode, "خذ مقعدًا") in keys_of(app)


@pytest.mark.parametrize("mode", MODES)
async def test_an_empty_lobby_and_its_notices_in_arabic(mode):
    reg = Registry(bot_pause=SLOW)
    app = arabic_app(reg, mode, guest=True, name="zed")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        rows = lines_of(screen, "#lobby-list")
        assert said(mode, "لا طاولات بعد") in rows[2]
        assert said(mode, "(ضيف: لا يُحفظ شيء)") in lines_of(screen, "#lobby-title")[0]
        await pilot.press("enter")                   # nothing to sit at
        status = lines_of(screen, "#lobby-status")[0]
        assert said(mode, "لم تختر طاولة.") in status and cell_len(status) == 80
        # What the room and the driver say reaches the player in Arabic.
        app.member.seat_granted(None, 2)     # type: ignore[arg-type]
        await pilot.pause()
        assert said(mode, "المقعد 2 صار لك.") in lines_of(screen, "#lobby-status")[0]
        app.post_message(InputLimited(TOO_FAST))
        await pilot.pause()
        assert said(mode, "ضغطات كثيرة بسرعة: أُهمل بعضها.") in lines_of(
            screen, "#lobby-status")[0]
        app.post_message(InputLimited(PASTE_CUT, n=4096))
        await pilot.pause()
        assert said(mode, "قُصّ النص الملصوق؛ طول ما بقي منه 4096.") in lines_of(
            screen, "#lobby-status")[0]
        app.member.notice(Said(N_("Announcement: {text}"), text="Back in ten minutes"))
        await pilot.pause()
        assert said(mode, "إعلان: Back in ten minutes") in lines_of(screen, "#lobby-status")[0]
        app.member.kick(Said(N_("The server is stopping.")))
        await pilot.pause()
    assert app.exit_reason == said(mode, "الخادم يتوقف.")


async def test_an_english_player_is_told_in_english():
    reg = Registry(bot_pause=SLOW)
    reg.create("tarneeb41", None).sit(Member("سمير", "key:x:samir"), 0)
    app = LammaApp(reg, "ann", "key:x:ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        row = lines_of(app.screen, "#lobby-list")[1]
        assert row.startswith("   1  Tarneeb 41 ")          # the English listing as it was
        assert Speech("en").show("سمير") in row              # an Arabic name joined
        app.post_message(InputLimited(PASTE_CUT, n=12))
        await pilot.pause()
        assert lines_of(app.screen, "#lobby-status")[0].rstrip() == " Paste cut to 12 characters."
        app.member.kick("An operator closed your session (spam).")
        await pilot.pause()
    assert app.exit_reason == "An operator closed your session (spam)."


@pytest.mark.parametrize("mode", MODES)
async def test_arabic_layout_letters_open_the_lobbys_screens(mode):
    reg = Registry(bot_pause=SLOW)
    app = arabic_app(reg, mode)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ى")                      # n: a new table
        await pilot.pause()
        assert isinstance(app.screen, CreateScreen)
        await pilot.press("escape")
        await pilot.press("ت")                      # j: a code
        await pilot.pause()
        assert isinstance(app.screen, JoinCodeScreen)
        await pilot.press("escape")
        await pilot.press("ه")                      # i: the profile
        await pilot.pause()
        assert isinstance(app.screen, ProfileScreen)
        await pilot.press("escape")
        await pilot.press("خ")                      # o: the options
        await pilot.pause()
        assert isinstance(app.screen, OptionsScreen)
        await pilot.press("escape")
        await pilot.press("ح")                      # p: quick play
        await pilot.pause()
        assert app.member.table is not None and app.member.seat == 0
        assert type(app.screen).__name__ == "TableScreen"


# -------------------------------------------------------------- new table
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("size", SIZES)
async def test_the_new_table_form_in_arabic(mode, size):
    reg = Registry(bot_pause=SLOW)
    app = arabic_app(reg, mode)
    async with app.run_test(size=size) as pilot:
        await pilot.press("n")
        await pilot.pause()
        screen = app.screen
        form = lines_of(screen, "#create-form")
        assert said(mode, "طاولة جديدة") in form[0]
        for label, value in (("اللعبة", "استيميشن"), ("الطول", "18 دورًا"),
                             ("مؤقّت الدور", "بلا مؤقّت"), ("الخصوصية", "عامة"),
                             ("المقاعد الفاضية", "يملؤها لاعبون آليون")):
            line = next(x for x in form if said(mode, label) in x)
            assert said(mode, value) in line
            if mode == "shaped":
                # The label at the right, the value to its left between ◀ and ▶.
                assert line.index(said(mode, value)) < line.index(said(mode, label))
                assert line.index("◀") < line.index(said(mode, value)) < line.index("▶")
        assert_right_aligned(form, 64)
        keys = keys_of(app)
        assert said(mode, "أنشئ") in keys and said(mode, "رجوع") in keys
        await pilot.press("right")                  # Estimation (calc), micro
        form = lines_of(screen, "#create-form")
        assert any(said(mode, "استيميشن (حاسبة)") in x for x in form)
        assert any(said(mode, "مايكرو") in x for x in form)
        await pilot.press("down", "down", "right")  # a 15 s timer
        form = lines_of(screen, "#create-form")
        assert any(said(mode, "15 ث") in x for x in form)
        await pilot.press("enter")
        await pilot.pause()
        table = app.member.table
        assert table is not None and table.game == "estimation-kotshina" and table.timer == 15


# ------------------------------------------------------------ codes, seats
@pytest.mark.parametrize("mode", MODES)
async def test_joining_by_code_and_taking_a_computer_seat_in_arabic(mode):
    reg = Registry(bot_pause=SLOW)
    table = bot_table(reg, private=True)
    app = arabic_app(reg, mode)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("j")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, JoinCodeScreen)
        text = lines_of(screen, "#code-text")
        assert said(mode, "انضم إلى طاولة خاصة") in text[0]
        assert said(mode, "اكتب الرمز الذي أعطاك إياه صاحب الطاولة") in text[2]
        assert_right_aligned(text, 64)
        assert said(mode, "انضم") in keys_of(app)
        box = screen.query_one("#code-input")
        box.value = "2222-2222"                        # wrong
        await pilot.press("enter")
        status = [x for x in lines_of(screen, "#code-status") if x.strip()]
        assert status and all(cell_len(x) == 64 for x in status)
        box.value = code_label(table.code)
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TakeSeatScreen) and screen.full
        offer = lines_of(screen, "#take-text")
        assert said(mode, "خذ مقعد لاعب آلي على الطاولة رقم 1") in offer[0]
        assert said(mode, "الطاولة كاملة: خذ مقعدًا، أو Esc لتشاهد.") in offer[2]
        assert any("Bot-2" in x and said(mode, "(لاعب آلي)") in x for x in offer)
        assert said(mode, "شاهد") in keys_of(app)
        assert_right_aligned(offer, 64)
        await pilot.press("0")                         # sam's seat: not a computer's
        assert said(mode, "المقعد 0 ليس للاعب آلي.") in lines_of(screen, "#take-status")[0]
        await pilot.press("escape")                    # watch
        await pilot.pause()
        assert app.member in table.watchers
        # said at the table, where they are (not left in the lobby's status: finding B)
        board = app.screen.query_one("Board")
        shown = "\n".join(board.render_line(y).text for y in range(board.size.height))
        assert said(mode, "الطاولة رقم 1 كاملة: أنت تشاهد.") in shown
        assert not "".join(lines_of(app.screen_stack[-2], "#lobby-status")).strip()


# ---------------------------------------------------- command, dialogs
@pytest.mark.parametrize("mode", MODES)
async def test_the_command_line_in_arabic(mode):
    reg = Registry(bot_pause=SLOW)
    app = arabic_app(reg, mode)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("slash")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CommandScreen)
        assert said(mode, "أمر") in lines_of(screen, "#command-text")[0]
        assert said(mode, "نفّذ") in keys_of(app)
        box = screen.query_one("#command-input")
        box.value = "/ignored"
        await pilot.press("enter")
        reply = lines_of(screen, "#command-reply")
        assert said(mode, "لا تتجاهل أحدًا.") in reply[0] and cell_len(reply[0]) == 64
        box.value = "/ignore bob"
        await pilot.press("enter")
        assert said(mode, "لن ترى دردشة bob بعد الآن.") in lines_of(screen, "#command-reply")[0]
        box.value = "/nonsense"                        # refused: said as the room says it
        await pilot.press("enter")
        assert lines_of(screen, "#command-reply")[0].strip()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)


@pytest.mark.parametrize("mode", MODES)
async def test_a_question_in_arabic_wraps_and_answers_to_arabic_keys(mode):
    reg = Registry(bot_pause=SLOW)
    app = arabic_app(reg, mode)
    answers = []
    question = ("تغادر البولة؟ في الاستيميشن تنتهي البولة للجميع إذا غادرت، "
                "وتُحسب خسارة عليك.")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.push_screen(ConfirmScreen(question), answers.append)
        await pilot.pause()
        lines = [x for x in lines_of(app.screen, "#question") if x.strip()]
        assert len(lines) == 2 and said(mode, "تغادر البولة؟") in lines[0]
        assert_right_aligned(lines, 64)
        keys = keys_of(app)
        assert said(mode, "نعم") in keys and said(mode, "لا") in keys
        await pilot.press("غ")                       # y
        await pilot.pause()
    assert answers == [True]


# ----------------------------------------------------- options, text mode
@pytest.mark.parametrize("size", SIZES)
async def test_options_in_arabic_switch_language_and_text_mode(size):
    reg = Registry(bot_pause=SLOW)
    app = arabic_app(reg, "shaped")
    width = size[0]
    async with app.run_test(size=size) as pilot:
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, OptionsScreen)
        rows = screen_rows(app)
        assert said("shaped", "الإعدادات (تُحفظ لاسمك)") in rows[0]
        for words in ("بلا ألوان", "حركة أقل", "اللغة:", "يوصلها الخادم"):
            assert any(said("shaped", words) in r for r in rows), words
        box = next(r for r in rows if said("shaped", "بلا ألوان") in r)
        assert "[ ]" in box and box.rstrip().endswith(" m")   # the key at the right
        assert all(cell_len(r) == width for r in rows)
        assert rows[0].index(said("shaped", "الإعدادات")) > width // 2   # at the right
        assert said("shaped", "تبديل") in rows[-1]
        await pilot.press("م")                     # l: English
        await pilot.pause()
        assert app.speech.code == "en" and app.look.language == "en"
        rows = screen_rows(app)
        assert rows[0].startswith(" Options (kept for your name)")
        assert any("Language: [English] / " in r for r in rows)
        lobby = app.screen_stack[-2]
        assert lines_of(lobby, "#lobby-title")[0].startswith(" Lamma ")
        await pilot.press("l")                     # Arabic again: the mode is known
        await pilot.pause()
        assert isinstance(app.screen, OptionsScreen) and app.speech.rtl
        assert said("shaped", "صالة الورق") in lines_of(lobby, "#lobby-title")[0]
        await pilot.press("ن")                     # k: the test line again
        await pilot.pause()
        assert isinstance(app.screen, TextModeScreen)
        await pilot.press("2")
        await pilot.pause()
        assert app.look.text_mode == "logical" and not app.speech.shaped
        rows = screen_rows(app)
        assert any("الحروف العربية: توصلها الشاشة" in r for r in rows)
        assert "صالة الورق" in lines_of(lobby, "#lobby-title")[0]   # in reading order now


@pytest.mark.parametrize("size", SIZES)
async def test_the_test_line_speaks_both_languages(size):
    reg = Registry(bot_pause=SLOW)
    app = arabic_app(reg, None)                    # Arabic, no mode chosen yet
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TextModeScreen)
        rows = screen_rows(app)
        assert rows[0].startswith(" Arabic on this terminal")
        assert said("shaped", "العربية على هذه الشاشة") in rows[0]
        assert any("Which line below reads correctly" in r for r in rows)
        assert any(said("shaped", "أيّ السطرين أدناه يُقرأ صحيحًا") in r for r in rows)
        assert any(said("shaped", "شاشة الإعدادات (o) تغيّر هذا لاحقًا.") in r for r in rows)
        # The two test lines stay as they are: one joined here, one in reading order.
        assert any("هذا السطر يُقرأ صحيحًا: اضغط 2" in r for r in rows)
        assert any(said("shaped", "هذا السطر يُقرأ صحيحًا: اضغط 1") in r for r in rows)
        assert all(cell_len(r) == size[0] for r in rows)
        await pilot.press("1")
        await pilot.pause()
        assert app.look.text_mode == "shaped" and isinstance(app.screen, LobbyScreen)


# ------------------------------------------------ profile, leaderboard
@pytest.fixture(scope="module")
def records(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("ar") / "lamma.db")
    names = ("ana", "ben", "cat", "dee")
    for name in names:
        store.bind(name, "fp-" + name)
    m = random_match("estimation", 13, 3)
    mid = store.create_match("t1", {**m.to_dict(), "log": []}, list(names), {"timer": 30})
    for seq, (seat, action) in enumerate(m.log):
        store.append_action(mid, seq, seat, action)
    finish(store, mid, m)
    return store, m


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("size", SIZES)
async def test_profile_and_leaderboard_in_arabic(records, mode, size):
    store, m = records
    reg = Registry(store=TableStore(store), bot_pause=SLOW)
    app = arabic_app(reg, mode, name="ana")
    async with app.run_test(size=size) as pilot:
        await pilot.press("i")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ProfileScreen)
        title = screen.query_one("#record-title").plain
        assert said(mode, "ملفك") in title and "ana" in title
        lines = block_lines(screen, "#profile-text")
        assert said(mode, "نقاط المستوى") in lines[1]
        head = next(x for x in lines if said(mode, "تعادل") in x)
        for word in ("اللعبة", "بولات", "فوز", "خسارة", "أدوار", "داش %"):
            assert said(mode, word) in head
        row = next(x for x in lines if said(mode, "استيميشن") in x)
        won = 0 in m.result["winners"]
        figures = row.split()
        assert "1" in figures and str(len(m.history)) in figures
        if mode == "shaped":
            # Mirrored: the game at the right, then matches, wins …
            assert row.rstrip().endswith(said(mode, "استيميشن"))
            assert figures[-2] == "1" and figures[-3] == ("1" if won else "0")
        assert_right_aligned([x for x in lines if x.strip()], 80)
        assert len(lines) <= 21
        keys = keys_of(app)
        assert said(mode, "الترتيب") in keys and said(mode, "رجوع") in keys
        await pilot.press("b")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LeaderboardScreen)
        assert said(mode, "الترتيب") in screen.query_one("#record-title").plain
        lines = block_lines(screen, "#board-text")
        assert said(mode, "المركز") in lines[0] and said(mode, "الاسم") in lines[0]
        names = [next(n for n in ("ana", "ben", "cat", "dee") if f" {n} " in x)
                 for x in lines[1:5]]
        assert sorted(names) == ["ana", "ben", "cat", "dee"]
        mine = [x for x in lines if said(mode, "أنت") in x]
        assert len(mine) == 1 and " ana " in mine[0]
        if mode == "shaped":                           # the marker at the left
            assert mine[0].index(said(mode, "أنت")) < mine[0].index(" ana ")
        assert_right_aligned([x for x in lines if x.strip()], 80)


@pytest.mark.parametrize("mode", MODES)
async def test_a_guests_profile_in_arabic(mode):
    reg = Registry(bot_pause=SLOW)
    app = arabic_app(reg, mode, name="zed", guest=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ه")
        await pilot.pause()
        lines = block_lines(app.screen, "#profile-text")
        assert said(mode, "تلعب ضيفًا: لا يُحفظ لك ملف.") in lines[1]
        assert any("ssh -i KEY NAME@host" in x for x in lines)
        assert_right_aligned([x for x in lines if x.strip()], 80)


# ------------------------------------------------------------- sentences
async def test_what_the_room_says_is_said_again_in_arabic():
    """The room's words are ``Said``: English, with the template and parameters they
    were made from, said again in the player's language (a marked word inside, too)."""
    ar = Speech("ar")
    assert say(ar, _muted(7200)) == "منعك أحد المشرفين من الدردشة؛ المدة بالساعات: 2."
    closed = Said(N_("An operator closed your session ({reason})."),
                  reason=N_("no reason given"))
    assert say(ar, closed) == "أغلق أحد المشرفين جلستك (بلا سبب مذكور)."
    assert say(ar, "Something nobody listed.") == "Something nobody listed."
    assert say(Speech("en"), _muted(7200)) == "An operator has muted you for 2 h."
    assert say(ar, Said(PLAYER_HELP)).startswith("أوامرك: /ignore")
    reg = Registry(bot_pause=SLOW)
    table = bot_table(reg)
    assert say(ar, table.request_text(2)) == \
        f"تأخذ المقعد 2 ({table.seats[2].label}) حين ينتهي هذا الدور."


async def test_a_tables_code_is_typed_with_the_arabic_layout():
    """A code is Latin letters and digits: its letters typed on the Arabic layout (the
    same physical keys) are its letters; Arabic-Indic digits are its digits."""
    from tui.i18n import ARABIC_KEYS
    twin = {latin: arabic for arabic, latin in ARABIC_KEYS.items()
            if len(arabic) == 1 and latin.isalpha()}
    reg = Registry(bot_pause=SLOW)
    table = bot_table(reg, private=True)
    app = arabic_app(reg, "shaped")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("j")
        await pilot.pause()
        assert isinstance(app.screen, JoinCodeScreen)
        for ch in code_label(table.code).lower():
            key = twin.get(ch) or (chr(0x0660 + int(ch)) if ch.isdigit() else ch)
            await pilot.press("minus" if key == "-" else key)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TakeSeatScreen)
