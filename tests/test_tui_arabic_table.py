"""The table in Arabic (issue 14): every phase of the three games, the round summary,
the score sheet and the match end said in Arabic, in both text modes, at 80×24 and
120×36; keys of the Arabic layout and Arabic-Indic digits choose numbers and type
cards; the narration is said in each player's own language.

"Shaped" frames hold Arabic joined and in visual order (what ``Speech.show`` gives);
"logical" frames hold it as it is read. ``said(speech, words)`` is what the frame
must then contain.
"""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from rich.text import Text
from stacked import act_until
from stacked import play_to as drive
from stacked import quick_policy as first_legal
from test_tui_table import redraw

from engine import new_match
from engine.room import Registry
from engine.room import Session as Member
from engine.room.events import TableChange
from engine.room.narration import Event, Said, describe, round_text
from tui.app import LammaApp
from tui.cards import Look
from tui.i18n import ARABIC_KEYS, Speech
from tui.screens import table_draw as draw
from tui.screens.table import TableScreen, table_facts
from tui.screens.table_layout import draw_screen
from tui.screens.table_state import SeatFacts, TableFacts, TableState, Turn

MODES = ("shaped", "logical")
SIZES = [(80, 24), (120, 36)]
GAMES = [("estimation", 18), ("estimation-kotshina", "micro"), ("tarneeb41", None)]
LATIN_TO_ARABIC = {latin: ar for ar, latin in ARABIC_KEYS.items()
                   if len(ar) == 1 and latin.isalpha() and ar not in "،؛"}
NAMES = ("ali", "bea", "cem", "dua")


def ar_key(latin: str) -> str:
    """The key of the Arabic layout on the same physical key as ``latin`` (a digit:
    its Arabic-Indic twin)."""
    if latin.isdigit():
        return chr(0x0660 + int(latin))
    return LATIN_TO_ARABIC[latin]


def said(speech: Speech, words: str) -> str:
    """``words`` as a frame of ``speech`` holds them."""
    return speech.show(words)


def facts(game: str, length, seat: int | None = 0, **kw) -> TableFacts:
    return TableFacts(id="7", game=game, title="?", length=length,
                      seats=tuple(SeatFacts(n, "human") for n in NAMES), seat=seat, **kw)


def state_for(v) -> TableState:
    """The choice the screen starts a turn with (the lowest legal one)."""
    turn = Turn(v, 0)
    st = TableState()
    for kind in ("bid", "call", "declare"):
        if turn.of(kind):
            a = turn.of(kind)[0]
            st.sel_n, st.sel_suit = a["n"], a.get("suit")
            break
    if turn.of("play"):
        st.sel_card = turn.playable_in_order()[0]
    return st


def frame_text(frame: draw.Frame) -> str:
    return "\n".join([line.plain for line in frame.lines] + [frame.footer.plain])


def assert_fits(frame: draw.Frame) -> None:
    for line in [*frame.lines, frame.footer]:
        assert cell_len(line.plain) <= draw.W, line.plain
    assert cell_len(frame.footer.plain) == draw.W


# ------------------------------------------------------------- the picture
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("game,length", GAMES)
def test_every_phase_is_said_in_arabic_and_fits(game, length, mode):
    sp = Speech("ar", mode)
    m = new_match(game, length, seed=4)
    seen = set()
    for _ in range(400):
        v = drive(m, lambda v: v["to_act"] == 0 or v["phase"] == "over")
        if v["phase"] == "over" or (v["phase"] in seen and "play" in seen):
            break
        frame = draw.draw_table(v, state_for(v), facts(game, length), Look(), now=0.0,
                                speech=sp)
        assert_fits(frame)
        text = frame_text(frame)
        title = {"estimation": "استيميشن", "estimation-kotshina": "استيميشن (حاسبة)",
                 "tarneeb41": "طرنيب 41"}[game]
        assert said(sp, title) in frame.lines[0].plain
        assert said(sp, "دردشة") in frame.footer.plain and " / " in frame.footer.plain
        # the score panel: mirrored, the scores at the right (in reading order, first)
        assert said(sp, "مجموع") in frame.lines[2].plain
        at = frame.lines[2].plain.index(said(sp, "مجموع"))
        assert at > 40 if mode == "shaped" else at < 36
        phase = v["phase"]
        if phase not in seen:
            seen.add(phase)
            row = frame.lines[14].plain
            if phase == "dash":
                assert said(sp, "تعد ألا تأخذ أي لمّة") in text
            elif phase in ("auction", "call"):
                label = "مزايدة" if phase == "auction" else "الكول"
                # the label at the right, the numbers left to right
                assert row.rstrip().endswith(said(sp, label)) or mode == "logical"
                numbers = [int(w) for w in row.split() if w.isdigit()]
                assert numbers == sorted(numbers) and numbers
            elif phase == "declare":
                assert said(sp, "اطلب") in row
                numbers = [int(w) for w in row.split() if w.isdigit()]
                assert numbers == sorted(numbers) and numbers
                assert said(sp, "مجموع الطلبات حتى الآن") in text
            elif phase == "play":
                assert said(sp, "دورك") in row
                # right-aligned: the line ends where the words end (shaped: the
                # margin said first is at the right)
                assert len(row) == draw.W
                assert row.endswith(said(sp, "دورك") + (" " if mode == "shaped" else ""))
                assert said(sp, "ورقة") in frame.footer.plain
        m.apply(0, first_legal(m, 0))
    assert "play" in seen and ("declare" in seen or game == "estimation")


@pytest.mark.parametrize("mode", MODES)
def test_round_summary_and_match_end_in_arabic(mode):
    sp = Speech("ar", mode)
    m = new_match("estimation-kotshina", "micro", seed=3)
    v = drive(m, lambda v: bool(v["history"]) and not v["tricks"] and v["phase"] != "play")
    frame = draw.draw_table(v, TableState(), facts("estimation-kotshina", "micro"), Look(),
                            now=0.0, speech=sp)
    assert_fits(frame)
    summary = [line.plain for line in frame.lines[7:13]]
    assert said(sp, "ملخّص الدور") in summary[0]
    assert said(sp, "اللاعب") in summary[1] and said(sp, "مجموع") in summary[1]
    # mirrored columns: the names at the right of the totals
    for line, name in zip(summary[2:], NAMES, strict=True):
        assert line.rstrip().endswith(name) or mode == "logical"
    v = drive(m, lambda v: v["phase"] == "over")
    winners = v["result"]["winners"]
    f = facts("estimation-kotshina", "micro", points={winners[0]: {"points": 30}})
    frame = draw.draw_table(v, TableState(), f, Look(), now=0.0, speech=sp)
    assert_fits(frame)
    text = frame_text(frame)
    assert said(sp, "انتهت البولة") in text and said(sp, "نقاط المستوى") in text
    assert "30" in text and "★" in text
    assert said(sp, "ورقة النتائج") in frame.lines[14].plain


def test_shaped_lines_are_mirrored_and_logical_lines_are_in_reading_order():
    m = new_match("estimation", 18, seed=5)
    v = drive(m, lambda v: v["to_act"] == 0 and v["phase"] == "play")
    f = facts("estimation", 18, chat=(("bea", "مرحبا يا جماعة"), ("سارة", "hi all")))
    shaped = draw.draw_table(v, state_for(v), f, Look(), now=0.0, speech=Speech("ar"))
    logical = draw.draw_table(v, state_for(v), f, Look(), now=0.0,
                              speech=Speech("ar", "logical"))
    chat = shaped.lines[21].plain
    # shaped: the name (said first) at the right, its colon between it and the words,
    # the words joined and right to left; Latin names and words left to right
    assert chat.endswith(Speech("ar").show("مرحبا يا جماعة") + " :bea ")
    assert shaped.lines[22].plain.endswith("hi all :" + Speech("ar").show("سارة") + " ")
    assert logical.lines[21].plain.strip() == "bea: مرحبا يا جماعة"
    assert logical.lines[22].plain.strip() == "سارة: hi all"
    # the footer starts at the right: its first key (chat) is the rightmost
    foot = shaped.footer.plain
    assert foot.rindex(" / ") > foot.rindex(" o ") > foot.rindex(" ? ")
    assert logical.footer.plain.index(" / ") < logical.footer.plain.index(" o ")
    # the hand is the same picture in every language: cards where the hits say
    english = draw.draw_table(v, state_for(v), f, Look(), now=0.0)
    assert shaped.hits == english.hits
    assert shaped.lines[draw.HAND_Y].plain == english.lines[draw.HAND_Y].plain


def test_english_is_unchanged_and_the_caches_keep_the_languages_apart():
    m = new_match("estimation", 18, seed=5)
    v = drive(m, lambda v: v["to_act"] == 0 and v["phase"] == "auction")
    st = state_for(v)
    cache = draw.DrawCache()
    en = draw.draw_table(v, st, facts("estimation", 18), Look(), now=0.0, cache=cache)
    assert en.lines[14].plain.startswith(" Bid ") and " ⏎ bid " in en.footer.plain
    ar = draw.draw_table(v, st, facts("estimation", 18), Look(), now=0.0, cache=cache,
                         speech=Speech("ar"))
    logical = draw.draw_table(v, st, facts("estimation", 18), Look(), now=0.0, cache=cache,
                              speech=Speech("ar", "logical"))
    again = draw.draw_table(v, st, facts("estimation", 18), Look(), now=0.0, cache=cache,
                            speech=Speech("en"))
    assert frame_text(again) == frame_text(en)
    assert frame_text(ar) != frame_text(logical) != frame_text(en)
    assert draw.arabic(frame_text(ar)) and not draw.arabic(frame_text(en))
    # the English terms of the English interface are as they were
    assert "Dash" in draw.Scene(v, st, facts("estimation", 18), Look(), 0.0).term("dash",
                                                                                   "Dash")
    assert draw.Scene(v, st, facts("estimation", 18), Look(), 0.0,
                      speech=Speech("ar")).term("dash", "Dash") == "داش"


# --------------------------------------------------------------- narration
def test_narration_carries_its_template_and_is_said_in_each_language():
    e = Event(1, {"type": "bid", "n": 5, "suit": "H"},
              describe("bea", {"type": "bid", "n": 5, "suit": "H"}, "timer"), 1)
    assert e.text == "bea bids 5H (timer)" and type(str(e.text)) is str
    assert e.template == "{move} (timer)" and isinstance(e.params["move"], Said)
    look = Look()
    sc_ar = draw.Scene(None, TableState(), facts("estimation", 18), look, 0.0,
                       speech=Speech("ar", "logical"))
    assert sc_ar.narrate(e.text) == "bea يزايد 5♥ (المؤقّت)"
    sc_en = draw.Scene(None, TableState(), facts("estimation", 18), look, 0.0)
    assert sc_en.narrate(e.text) == "bea bids 5♥ (timer)"
    # lines the table builds as plain text are recognised by their shape
    took = Event(2, None, "cem takes the trick", 1)
    assert took.template == "{who} takes the trick" and took.params == {"who": "cem"}
    assert sc_ar.narrate(took.text) == "cem يأخذ اللمّة"
    begins = Event(None, None, "The match begins")
    assert sc_ar.narrate(begins.text) == "بدأت البولة"
    line = round_text(["a", "b", "c", "d"], {"round": 3, "scores": [13, -2, 0, 21]})
    assert line == "Round 3: a +13, b -2, c +0, d +21"
    assert sc_ar.narrate(line) == "الدور 3: a +13, b -2, c +0, d +21"
    assert sc_ar.narrate("something else") == "something else"


async def test_arabic_seat_hears_arabic_while_an_english_seat_hears_english():
    app = LammaApp(Registry(bot_pause=0.0, trick_pause=0.0), "ali", "key:x:ali",
                   look=Look(language="ar", text_mode="logical"))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.registry.create("estimation", 18)
        table.seed = 5
        members = {0: app.member, **{i: Member(n, f"key:x:{n}")
                                     for i, n in enumerate(NAMES[1:], 1)}}
        for i in range(4):
            table.sit(members[i], i)
        app.open_table()
        await pilot.pause()
        m = table.match
        while not (m.view(0)["phase"] == "auction" and m.to_act == 0):
            table.act(members[m.to_act], first_legal(m, m.to_act))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TableScreen)
        screen.redraw()
        await pilot.pause()
        shown = "\n".join(t.plain for t in draw.score_lines(screen.scene()))
        assert "bea باس" in shown                  # "bea passes", in Arabic
        assert "passes" not in shown
        # the same events, drawn for bea (English): English
        bea = table_facts(TableChange(table, "state"), members[1])
        english = draw.draw_table(table.view(1), TableState(), bea, Look(), now=0.0,
                                  speech=Speech("en"))
        assert "passes" in frame_text(english)
        assert any("passes" in e.text for e in table.events)      # JSON: English


# --------------------------------------------------------------- on screen
async def start(pilot, app, game, length, seed=4):
    table = app.registry.create(game, length)
    table.seed = seed
    members = {0: app.member, **{i: Member(n, f"key:x:{n}") for i, n in enumerate(NAMES[1:], 1)}}
    for i in range(4):
        table.sit(members[i], i)
    app.open_table()
    await pilot.pause()
    return table, members


def board_text(app) -> list[str]:
    board = app.screen.query_one("Board")
    return [board.render_line(y).text for y in range(board.size.height)]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("game,length", GAMES)
async def test_a_round_in_arabic_with_arabic_layout_keys(game, length, mode, size):
    sp = Speech("ar", mode)
    app = LammaApp(Registry(bot_pause=0.0, trick_pause=0.0), "ali", "key:x:ali",
                   look=Look(language="ar", text_mode=mode))
    async with app.run_test(size=size) as pilot:
        table, members = await start(pilot, app, game, length)
        m = table.match
        width, height = size
        if game == "estimation":
            # the auction: ح is p (pass); Arabic-Indic digits choose the number
            act_until(table, members, lambda v: v["to_act"] == 0 and v["phase"] == "auction")
            screen = await redraw(pilot, app)
            lines = board_text(app)
            assert any(said(sp, "مزايدة") in line for line in lines)
            assert said(sp, "زايد") in lines[-1] and said(sp, "باس") in lines[-1]
            numbers = sorted({a["n"] for a in screen.legal("bid")})
            pick = next(n for n in numbers if n < 10)
            await pilot.press(ar_key(str(pick)))
            assert screen.state.sel_n == pick
            await pilot.press(ar_key("p"))
            await pilot.pause()
            assert m.log[-1] == (0, {"type": "pass"})
        # declaring: ٣ then Enter declares 3 (or the lowest when 3 cannot be said)
        v = act_until(table, members, lambda v: v["to_act"] == 0 and v["phase"] in
                       ("declare", "play"))
        if v["phase"] == "declare":
            screen = await redraw(pilot, app)
            lines = board_text(app)
            assert any(said(sp, "اطلب") in line for line in lines)
            legal = sorted(a["n"] for a in v["legal"])
            n = 3 if 3 in legal else legal[0]
            await pilot.press(ar_key(str(n)), "enter")
            await pilot.pause()
            assert m.log[-1] == (0, {"type": "declare", "n": n})
        # playing: a card typed with the Arabic layout (ض س is Q♠)
        v = act_until(table, members, lambda v: v["to_act"] == 0 and v["phase"] == "play")
        screen = await redraw(pilot, app)
        lines = board_text(app)
        assert len(lines) == height and all(cell_len(line) == width for line in lines)
        assert any(said(sp, "دورك") in line for line in lines)
        assert said(sp, "العب") in lines[-1]             # the footer on the last row
        card = screen.turn().playable_in_order()[-1]
        rank = {"T": "t"}.get(card[0], card[0].lower())
        await pilot.press(ar_key(rank), ar_key(card[1].lower()))
        await pilot.pause()
        assert m.log[-1] == (0, {"type": "play", "card": card})


@pytest.mark.parametrize("mode", MODES)
async def test_score_sheet_summary_and_refusals_in_arabic(mode):
    sp = Speech("ar", mode)
    app = LammaApp(Registry(bot_pause=0.0, trick_pause=0.0), "ali", "key:x:ali",
                   look=Look(language="ar", text_mode=mode))
    async with app.run_test(size=(80, 24)) as pilot:
        table, members = await start(pilot, app, "estimation-kotshina", "micro", seed=3)
        act_until(table, members, lambda v: bool(v["history"]) and v["to_act"] == 0
                   and v["phase"] == "declare")
        screen = await redraw(pilot, app)
        # a number that cannot be declared: the refusal is said in Arabic
        legal = {a["n"] for a in screen.legal("declare")}
        bad = next((n for n in range(10) if n not in legal), None)
        if bad is not None:
            await pilot.press(ar_key(str(bad)))
            assert any(said(sp, "غير ممكن الآن") in line for line in board_text(app))
        # ق is r: the score sheet
        await pilot.press(ar_key("r"))
        await pilot.pause()
        assert type(app.screen).__name__ == "SheetScreen"
        lines = board_text(app)
        assert said(sp, "ورقة النتائج") in lines[0]
        assert said(sp, "مجموع") in "\n".join(lines)
        assert said(sp, "رجوع") in lines[-1]
        row = lines[2]
        assert row.rstrip().endswith(" 1") or mode == "logical"     # round 1 at the right
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        # a card not held, typed: the refusal in Arabic, nothing sent
        v = act_until(table, members, lambda v: v["to_act"] == 0 and v["phase"] == "play")
        await redraw(pilot, app)
        card = next(r + s for r in "AKQJ98765432" for s in "SHDC" if r + s not in v["hand"])
        before = len(table.match.log)
        await pilot.press(ar_key(card[0].lower()), ar_key(card[1].lower()))
        await pilot.pause()
        assert len(table.match.log) == before
        assert any(said(sp, "ليست في يدك") in line for line in board_text(app))


@pytest.mark.parametrize("size", SIZES)
async def test_match_end_in_arabic(size):
    sp = Speech("ar", "shaped")
    app = LammaApp(Registry(bot_pause=0.0, trick_pause=0.0), "ali", "key:x:ali",
                   look=Look(language="ar", text_mode="shaped"))
    async with app.run_test(size=size) as pilot:
        table, members = await start(pilot, app, "estimation-kotshina", "micro", seed=3)
        act_until(table, members, lambda v: v["phase"] == "over")
        await redraw(pilot, app)
        text = "\n".join(board_text(app))
        assert said(sp, "انتهت البولة") in text and "★" in text
        assert said(sp, "العودة إلى الصالة") in text


def test_a_small_window_is_asked_in_arabic():
    placed = draw_screen(None, TableState(), facts("estimation", 18), Look(), 39, 20,
                              now=0.0, speech=Speech("ar"))
    text = "\n".join(line.plain for line in placed.lines)
    assert Speech("ar").show("كبّر النافذة") in text and "40×20" in text


def test_said_lines_survive_a_copy():
    import copy
    import pickle
    e = describe("ali", {"type": "play", "card": "QS"}, "player")
    for twin in (copy.deepcopy(e), pickle.loads(pickle.dumps(e))):
        assert twin == e and twin.template == e.template and twin.params == e.params
    assert Text(e).plain == "ali plays QS"


# (language, window, the chat box's first column): the wide layout's panel takes
# 120 - 80 - 1 = 39 columns at 120 (the picture at its right in Arabic, after the
# separator); at 200 it takes 60 and the whole is centred, (200 - 141) // 2 = 29.
CHAT_BOX_AT = [("en", (80, 24), 0), ("ar", (80, 24), 0), ("en", (120, 36), 0),
               ("ar", (120, 36), 40), ("en", (200, 40), 29), ("ar", (200, 40), 90)]


@pytest.mark.parametrize("language,size,x", CHAT_BOX_AT,
                         ids=lambda p: "x".join(map(str, p)) if isinstance(p, tuple) else str(p))
async def test_the_chat_box_opens_under_the_picture_wherever_the_picture_is(language, size, x):
    """In the wide layout the picture moves (centred on a very wide window, right of the
    panel in Arabic): the chat box opens under it, not at the window's left edge."""
    app = LammaApp(Registry(bot_pause=3600), NAMES[0], f"key:x:{NAMES[0]}",
                   look=Look(language=language))
    async with app.run_test(size=size) as pilot:
        await start(pilot, app, "estimation", 13)
        await pilot.press("slash")
        await pilot.pause()
        box = app.screen.query_one("#chat-input")
        assert box.display and box.region.x == x and box.region.width == draw.W
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert box.region.x == 0


@pytest.mark.parametrize("mode", MODES)
async def test_arabic_typed_into_the_chat_is_drawn_as_the_terminal_needs(mode):
    """What is being typed shows joined and in visual order in shaped mode (as the sent
    line will), as typed in logical mode; the text sent is what was typed."""
    reg = Registry(bot_pause=3600)
    app = LammaApp(reg, NAMES[0], f"key:x:{NAMES[0]}", look=Look(language="ar", text_mode=mode))
    async with app.run_test(size=(80, 24)) as pilot:
        table, _ = await start(pilot, app, "estimation", 13)
        await pilot.press("slash")
        box = app.screen.query_one("#chat-input")
        box.value = "مرحبا يا جماعة"
        await pilot.pause()
        drawn = box.render_line(0).text
        assert (Speech("ar", "shaped").show("مرحبا يا جماعة") in drawn) == (mode == "shaped")
        assert ("مرحبا يا جماعة" in drawn) == (mode == "logical")
        await pilot.press("enter")
        await pilot.pause()
        assert table.chat and table.chat[-1][1] == "مرحبا يا جماعة"
