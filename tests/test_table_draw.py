"""The table screen's picture, key table and clicks, mostly without an App.

``table_draw.draw_table`` is a pure function of the engine's view, the screen's
state, the table's facts and the look; ``table_keys`` answers both which key
does what and what the footer shows.  The views here come from the engine
(seeded matches); the table's facts are written out as plain data.
"""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from rich.style import Style
from rich.text import Span, Text
from seated import seated
from stacked import play_to as drive
from stacked import quick_policy as first_legal

from engine import new_match
from engine.room import Registry
from engine.room import Session as Member
from engine.room.events import TableChange
from tui.app import LammaApp
from tui.cards import Look
from tui.screens import table_draw as draw
from tui.screens.table import TableScreen, table_facts
from tui.screens.table_keys import COMMON, MODES, KeyContext, actions, footer, resolve
from tui.screens.table_layout import draw_screen
from tui.screens.table_state import SeatFacts, TableFacts, TableState, Turn

NAMES = ("ali", "bea", "cem", "dua")
SUITS = "♠♥♦♣"


def facts(seat: int | None = 0, game: str = "estimation", **kw) -> TableFacts:
    return TableFacts(id="7", game=game, title="Estimation", length=18,
                      seats=tuple(SeatFacts(n, "human") for n in NAMES), seat=seat, **kw)


def play_on(table, members, stop):
    """The seats act through the room (first legal) until ``stop(view of seat 0)``."""
    m = table.match
    while not stop(m.view(0)):
        table.act(members[m.to_act], first_legal(m, m.to_act))
    return m


def plain(frame: draw.Frame) -> list[str]:
    return [line.plain for line in frame.lines] + [frame.footer.plain]


def span_styles(line: Text, start: int, end: int) -> list[str]:
    """The styles of the spans covering ``start``..``end`` of ``line``."""
    return [str(s.style) for s in line.spans if s.start <= start and s.end >= end]


def my_play_with_a_card_held_back(seed: int = 5):
    m = new_match("estimation", 18, seed=seed)
    v = drive(m, lambda v: v["to_act"] == 0 and v["phase"] == "play" and v["trick"]
              and len({a["card"] for a in v["legal"]}) < len(v["hand"]))
    return m, v


# ----------------------------------------------------------------- the picture
def test_auction_turn_shows_the_numbers_the_choice_and_the_keys_that_bid():
    m = new_match("estimation", 18, seed=5)
    v = drive(m, lambda v: v["to_act"] == 0 and v["phase"] == "auction")
    bid = next(a for a in v["legal"] if a["type"] == "bid")
    state = TableState(sel_n=bid["n"], sel_suit=bid["suit"])
    frame = draw.draw_table(v, state, facts(), Look(), now=0.0)
    text = plain(frame)
    assert len(frame.lines) == 23
    assert text[0].startswith(" #7 Estimation 18 · Round 1 of 18")
    assert text[3].startswith("▶ ali (you)")
    row = frame.lines[14]
    assert row.plain.startswith(" Bid ")
    cell = f" {bid['n']:>2} "
    at = row.plain.index(cell, 5)
    assert "reverse bold" in span_styles(row, at, at + len(cell))     # the chosen number
    assert f"Enter bid {bid['n']}{Look().suit(bid['suit'])}" in text[16]
    assert " ⏎ bid " in text[-1] and " p pass" in text[-1]
    # the footer is the key table's answer, nothing else
    ctx = KeyContext.of(v, Turn(v, 0), None)
    assert text[-1].rstrip() == "".join(f" {k} {label}" for k, label in footer(ctx))


def test_play_turn_raises_the_legal_cards_and_says_where_each_card_is():
    _, v = my_play_with_a_card_held_back()
    legal = {a["card"] for a in v["legal"]}
    look = Look()
    sel = next(c for c in Turn(v, 0).playable_in_order())
    frame = draw.draw_table(v, TableState(sel_card=sel), facts(), look, now=0.0)
    up, down = frame.lines[draw.HAND_Y], frame.lines[draw.HAND_Y + 1]
    assert {h.card for h in frame.hits} == set(v["hand"])
    for hit in frame.hits:
        assert (hit.y, hit.width, hit.height) == (draw.HAND_Y, 4, 2)
        shown, blank = (up, down) if hit.card in legal else (down, up)
        assert shown.plain[hit.x:hit.x + 4].strip() == look.card_str(hit.card)
        assert blank.plain[hit.x:hit.x + 4].strip() == ""
    hit = next(h for h in frame.hits if h.card == sel)
    assert any("reverse" in s for s in span_styles(up, hit.x, hit.x + 4))
    assert "Your turn" in frame.lines[14].plain
    assert "qs… type" in frame.footer.plain and " x leave" in frame.footer.plain


@pytest.mark.parametrize("size", [(80, 24), (120, 36), (101, 30), (119, 40), (160, 40)])
def test_placed_on_a_larger_board_the_cards_are_where_the_hits_say(size):
    from tui.screens.sizes import WIDE, layout
    from tui.screens.table_wide import panel_width
    _, v = my_play_with_a_card_held_back()
    legal = {a["card"] for a in v["legal"]}
    look = Look()
    width, height = size
    placed = draw_screen(v, TableState(), facts(), look, width, height, now=0.0)
    assert not placed.small and len(placed.lines) == height
    # every line drawn from that column: the picture centred, or (wide) the picture
    # and the panel beside it
    wide = layout(width, height) == WIDE
    assert wide == (width >= 120 and height >= 30)
    assert placed.x == ((width - draw.W - 1 - panel_width(width)) // 2 if wide
                        else (width - draw.W) // 2)
    shown = [" " * placed.x + line.plain for line in placed.lines]
    assert "chat" in shown[-1]                      # the footer on the last row
    for hit in placed.hits:
        if not hit.card:                            # a key's box: the footer's
            assert hit.y == height - 1 and hit.tap[0] == "key"
            continue
        assert hit.x >= draw.HAND_X + placed.x
        row = shown[hit.y + (0 if hit.card in legal else 1)]
        assert row[hit.x:hit.x + 4].strip() == look.card_str(hit.card)


def test_a_small_board_asks_to_be_enlarged_and_has_nothing_to_click():
    for width, height in ((39, 24), (80, 19), (30, 10)):
        placed = draw_screen(None, TableState(), facts(), Look(), width, height, now=0.0)
        assert placed.small and not placed.hits
        text = " ".join(line.plain.strip() for line in placed.lines)
        assert "Please enlarge the window to at least 40×20." in text, text
        assert f"(now {width}×{height})" in text
        assert all(line.cell_len <= width for line in placed.lines)
    for width, height in ((40, 20), (70, 20), (80, 23), (79, 40)):
        placed = draw_screen(None, TableState(), facts(), Look(), width, height, now=0.0)
        assert not placed.small and placed.compact, (width, height)


def before_the_match(taken: int, **kw) -> TableFacts:
    """Before the match: the first ``taken`` seats taken, the others empty."""
    return facts(**kw)._replace(seats=tuple(
        SeatFacts(n, "human") if i < taken else SeatFacts("(empty)", "empty")
        for i, n in enumerate(NAMES)))


def test_waiting_says_once_how_many_players_are_still_to_come():
    """It said "Waiting for players" in the middle and "Waiting for four players." under
    it, with two seated: now the middle says how many are to come, once, in every
    layout; under it, what the viewer may do meanwhile."""
    from tui.i18n import Speech

    for taken, want, arabic in ((1, "Waiting for 3 more players", "بانتظار 3 لاعبين آخرين"),
                                (2, "Waiting for 2 more players", "بانتظار لاعبَين آخرَين"),
                                (3, "Waiting for 1 more player", "بانتظار لاعب آخر")):
        for width, height in ((80, 24), (120, 36), (40, 20)):
            shown = before_the_match(taken, may_fill=True, host="ali")
            placed = draw_screen(None, TableState(), shown, Look(), width, height, now=0.0)
            text = "\n".join(line.plain for line in placed.lines)
            assert text.count(want) == 1, (width, text)
            assert text.count("Waiting") == 1 and "four" not in text, (width, text)
            assert "b  fill the empty seats" in text, (width, text)
        speech = Speech("ar", "logical")
        frame = draw.draw_table(None, TableState(), before_the_match(taken), Look(), now=0.0,
                                speech=speech)
        assert any(arabic in line for line in plain(frame)), plain(frame)


def test_waiting_for_players_and_watching():
    # The host (the table lets them fill: may_fill) is offered b ...
    frame = draw.draw_table(None, TableState(), before_the_match(2, may_fill=True, host="ana"),
                            Look(), now=0.0)
    text = "\n".join(plain(frame))
    assert "Waiting for 2 more players" in text
    assert "b  fill the empty seats with computer players · q  leave" in text
    assert frame.footer.plain.rstrip().endswith(" q leave b computer players")
    # ... anyone else is told who may, and offered no b
    for seat in (1, None):
        frame = draw.draw_table(None, TableState(), facts(seat=seat, host="ana"), Look(),
                                now=0.0)
        text = "\n".join(plain(frame))
        assert "The host, ana, may add computer players · q  leave" in text
        assert "b: computer players" not in text and "b  fill" not in text
        assert frame.footer.plain.rstrip().endswith(" ? help q leave")
    m = new_match("estimation", 18, seed=5)
    v = drive(m, lambda v: v["phase"] == "auction", seat=None)
    frame = draw.draw_table(v, TableState(), facts(seat=None), Look(), now=0.0)
    assert "(you are watching)" in frame.lines[14].plain
    assert "(you)" not in "\n".join(plain(frame))
    assert frame.footer.plain.rstrip() == " / chat o opts ? help q leave"


def test_ascii_monochrome_has_no_suit_signs_and_no_colours():
    _, v = my_play_with_a_card_held_back()
    look = Look(unicode=False, colour=False)
    f = facts(seconds_left=5.0, deadline_seat=0, chat=(("bea", "hi"),))
    frame = draw.draw_table(v, TableState(), f, look, now=0.0)
    for line in [*frame.lines, frame.footer]:
        assert not set(line.plain) & set(SUITS)
        for style in [line.style, *(s.style for s in line.spans)]:
            st = style if isinstance(style, Style) else Style.parse(str(style) or "none")
            assert st.color is None and st.bgcolor is None, (line.plain, style)


def test_the_turn_timer_is_red_on_your_own_turn_near_its_end():
    m = new_match("estimation", 18, seed=5)
    v = m.view(0)
    mine = draw.draw_table(v, TableState(), facts(seconds_left=7.3, deadline_seat=0),
                           Look(), now=0.0).lines[0]
    theirs = draw.draw_table(v, TableState(), facts(seconds_left=7.3, deadline_seat=2),
                             Look(), now=0.0).lines[0]
    assert mine.plain.endswith("  8s ") and theirs.plain.endswith("  8s ")
    assert any("red" in s for s in span_styles(mine, 74, 80))
    assert not any("red" in s for s in span_styles(theirs, 74, 80))


def test_a_notice_and_a_refusal_show_until_their_time_is_up():
    state = TableState(notice="You sit in seat 0.", notice_until=10.0,
                       message=Text(" 4 is not possible now."), message_until=10.0)
    shown = draw.draw_table(None, state, facts(), Look(), now=9.0)
    gone = draw.draw_table(None, state, facts(), Look(), now=10.5)
    assert shown.lines[1].plain.strip() == "You sit in seat 0."
    assert shown.lines[16].plain.strip() == "4 is not possible now."
    assert not gone.lines[1].plain.strip() and not gone.lines[16].plain.strip()


def test_round_summary_then_match_end_with_level_points():
    m = new_match("estimation-kotshina", "micro", seed=3)
    v = drive(m, lambda v: bool(v["history"]) and not v["tricks"] and v["phase"] != "play")
    text = "\n".join(plain(draw.draw_table(v, TableState(), facts(), Look(), now=0.0)))
    assert " Round 1 summary" in text and "total" in text
    v = drive(m, lambda v: v["phase"] == "over")
    winners = v["result"]["winners"]
    f = facts(points={winners[0]: {"points": 30, "badge": "First win"}})
    text = "\n".join(plain(draw.draw_table(v, TableState(), f, Look(), now=0.0)))
    assert " Match over: " in text and "+30 level points" in text
    assert "new badge: First win" in text and "r  score sheet" in text


def test_a_saayda_round_summary_fits_80_columns():
    """K-rules' Sa'ayda (everyone missed: the next round counts double): its summary
    line says so and still fits (the "r: all rounds" hint gives way)."""
    m = new_match("estimation-kotshina", "micro", seed=3)
    v = drive(m, lambda v: bool(v["history"]) and not v["tricks"] and v["phase"] != "play")
    rec = dict(v["history"][-1], saayda=True, multiplier=2, over=True)
    v = dict(v, history=[*v["history"][:-1], rec])
    lines = plain(draw.draw_table(v, TableState(), facts(game="estimation-kotshina"), Look(),
                                  now=0.0))
    assert any("all missed, next round ×2" in line for line in lines)
    assert all(len(line) <= draw.W for line in lines), [ln for ln in lines if len(ln) > 80]


def test_a_round_with_every_bonus_keeps_its_totals_whole_at_80_columns():
    """Caller, With, sole and risk in one round, their terms said in both languages: the
    totals column stays whole (it was cut to "tota" and "-1" for -16)."""
    m = new_match("estimation", 18, seed=3)
    v = drive(m, lambda v: bool(v["history"]) and not v["tricks"] and v["phase"] != "play")
    bonus = {"base": -6, "caller": -10, "with": -10, "sole": 10, "risk": -10}
    rec = dict(v["history"][-1], breakdown=[dict(bonus)] * 4, scores=[-16, -3, 35, -36],
               made=[False, False, True, False])
    v = dict(v, history=[*v["history"][:-1], rec], totals=[-116, -103, 135, -1036])
    lines = plain(draw.draw_table(v, TableState(), facts(), Look(), now=0.0))
    rows = [ln for ln in lines if ln.startswith((" ali", " bea", " cem", " dua"))
            and ("made" in ln or "failed" in ln)]
    assert len(rows) == 4, lines
    assert all(len(ln) <= draw.W for ln in lines), [ln for ln in lines if len(ln) > 80]
    head = next(ln for ln in lines if "player" in ln and "base" in ln)
    assert head.rstrip().endswith("total"), head
    for row, total in zip(rows, (-116, -103, 135, -1036), strict=True):
        assert row.rstrip().endswith(f" {total}"), row


def test_the_match_end_lists_every_player_before_any_level_points():
    """At 40x20 the standings' rows are few: all four totals first; the level points
    under them only where they all fit (the last player was pushed off)."""
    from tui.screens.table_scene import Scene
    from tui.screens.table_summary import result_rows
    m = new_match("estimation-kotshina", "micro", seed=3)
    v = drive(m, lambda v: v["phase"] == "over")
    f = facts(points={s: {"points": 30 if s == 0 else -4} for s in range(4)})
    sc = Scene(v, TableState(), f, Look(), now=0.0)
    few = [r.plain for r in result_rows(sc, 40, 7)]
    assert all(any(n in r for r in few) for n in NAMES), few
    many = [r.plain for r in result_rows(sc, 40, 14)]
    assert all(any(n in r for r in many) for n in NAMES), many
    assert any("level points" in r for r in many), many


def test_a_fast_rounds_dash_offer_does_not_say_the_trump_is_unknown():
    """A fast round's trump is fixed by its kind and shown in the info bar: its dash offer
    no longer says "before the trump is known" (a player's finding); a round with an
    auction still does."""
    m = new_match("estimation", 18, seed=3)
    offered = drive(m, lambda v: v["phase"] == "dash" and v["to_act"] == 0)
    assert not offered.get("fixed_trump")
    text = "\n".join(plain(draw.draw_table(offered, TableState(), facts(), Look(), now=0.0)))
    assert "before the trump is known" in text
    fast = drive(m, lambda v: v["phase"] == "dash" and v["to_act"] == 0
                 and bool(v.get("fixed_trump")))
    text = "\n".join(plain(draw.draw_table(fast, TableState(), facts(), Look(), now=0.0)))
    assert "Promise to win no trick at all." in text, text
    assert "before the trump is known" not in text


def test_a_card_played_redraws_one_row_of_the_middle_and_the_others_stay_the_same_objects():
    """Each row of the middle is kept by what it shows: seat 0 plays a card, so the row
    of its slot (bottom) is new and the same as drawn without a cache, and the other
    rows come back as last frame's objects (which the board skips)."""
    m = new_match("estimation", 18, seed=5)
    before = drive(m, lambda v: v["to_act"] == 0 and v["phase"] == "play"
                   and 1 <= len(v["trick"]) <= 2)
    cache = draw.DrawCache()
    first = draw.draw_table(before, TableState(), facts(), Look(), now=0.0, cache=cache)
    card = next(a for a in before["legal"] if a["type"] == "play")
    m.apply(0, card)
    after = m.view(0)
    assert [c["card"] for c in after["trick"]][-1] == card["card"]
    fresh = draw.draw_table(after, TableState(), facts(), Look(), now=0.0)
    again = draw.draw_table(after, TableState(), facts(), Look(), now=0.0, cache=cache)
    for a, b in zip([*fresh.lines, fresh.footer], [*again.lines, again.footer], strict=True):
        assert (a.plain, a.spans, a.style) == (b.plain, b.spans, b.style)
    middle = range(7, 13)
    bottom_card = 11
    assert SUITS["SHDC".index(card["card"][1])] in again.lines[bottom_card].plain
    assert again.lines[bottom_card] is not first.lines[bottom_card]
    assert [y for y in middle if again.lines[y] is first.lines[y]] == [7, 8, 9, 10, 12]


def test_a_footer_comes_back_the_same_object_as_the_turn_comes_back():
    """The footer is kept per keys shown, not in one slot: a seat's turn coming and
    going and coming back draws no new footer."""
    _, mine = my_play_with_a_card_held_back()
    cache = draw.DrawCache()
    first = draw.draw_table(mine, TableState(), facts(), Look(), now=0.0, cache=cache)
    theirs = dict(mine, to_act=1, legal=[])
    other = draw.draw_table(theirs, TableState(), facts(), Look(), now=0.0, cache=cache)
    assert other.footer.plain != first.footer.plain
    again = draw.draw_table(dict(mine), TableState(), facts(), Look(), now=0.0, cache=cache)
    assert again.footer is first.footer


def test_the_cache_changes_nothing_and_reuses_the_lines_that_stay():
    _, v = my_play_with_a_card_held_back()
    state = TableState(sel_card=Turn(v, 0).playable_in_order()[0])
    cache = draw.DrawCache()
    fresh = draw.draw_table(v, state, facts(), Look(), now=0.0)
    first = draw.draw_table(v, state, facts(), Look(), now=0.0, cache=cache)
    again = draw.draw_table(v, state, facts(), Look(), now=0.0, cache=cache)
    for a, b in zip([*fresh.lines, fresh.footer], [*again.lines, again.footer], strict=True):
        assert (a.plain, a.spans, a.style) == (b.plain, b.spans, b.style)
    assert again.footer is first.footer
    assert again.lines[draw.HAND_Y] is first.lines[draw.HAND_Y]
    assert again.lines[3] is first.lines[3]          # a score row
    moved = TableState(sel_card=Turn(v, 0).playable_in_order()[-1])
    other = draw.draw_table(v, moved, facts(), Look(), now=0.0, cache=cache)
    if moved.sel_card != state.sel_card:
        assert other.lines[draw.HAND_Y].spans != first.lines[draw.HAND_Y].spans


def test_a_key_pressed_redraws_the_hand_and_keeps_the_rest_of_the_table_whole():
    """A frame for the same view (a rank typed, the cursor moved) takes the info bar,
    scores, middle and chat of the last frame as they were; facts built again but
    equal count as the same, and a change to any of them (the facts, the view, the
    trick's animation, the look) draws them again, as a frame without the cache."""
    from tui.screens.table_state import TrickAnim

    _, v = my_play_with_a_card_held_back()
    still = [0, *range(2, 13), 21, 22]             # info, scores, middle, chat
    cache = draw.DrawCache()
    first = draw.draw_table(v, TableState(), facts(), Look(), now=0.0, cache=cache)
    typed = draw.draw_table(v, TableState(rank="Q"), facts(), Look(), now=0.0, cache=cache)
    assert all(typed.lines[y] is first.lines[y] for y in still)
    assert "rank Q" in typed.lines[15].plain and "rank Q" not in first.lines[15].plain

    def fresh_and_cached(view, state, table_facts, look):
        fresh = draw.draw_table(view, state, table_facts, look, now=0.0)
        again = draw.draw_table(view, state, table_facts, look, now=0.0, cache=cache)
        for a, b in zip([*fresh.lines, fresh.footer], [*again.lines, again.footer],
                        strict=True):
            assert (a.plain, a.spans, a.style) == (b.plain, b.spans, b.style)
        return again

    chat = fresh_and_cached(v, TableState(), facts(chat=(("ali", "hello"),)), Look())
    assert "hello" in chat.lines[21].plain
    other = dict(v, totals=[5, 0, 0, 0])
    assert "5" in fresh_and_cached(other, TableState(), facts(), Look()).lines[3].plain
    trick = ({"seat": 1, "card": "AS"}, {"seat": 2, "card": "KS"})
    between = dict(other, trick=[])
    fresh_and_cached(between, TableState(), facts(), Look())
    anim = fresh_and_cached(between, TableState(anim=TrickAnim(trick, winner=1)), facts(),
                            Look())
    assert "takes the trick" in "".join(line.plain for line in anim.lines[7:13])
    plain = fresh_and_cached(other, TableState(), facts(), Look(unicode=False, colour=False))
    assert "♠" not in "".join(line.plain for line in plain.lines)


def test_fit_center_and_join_make_the_text_rich_would_by_copying_and_appending():
    """``fit``, ``center`` and ``join`` make their Text at once; it is the Text Rich's own
    copy, append and ``+`` made (plain, spans, style and the line's settings), for
    texts with styles, spans, wide and combining characters, cut and padded."""
    import random

    def rich_fit(text, width, right=False):
        n = text.cell_len
        if n == width:
            return text
        t = text.copy()
        if n > width:
            # cut after the last whole word that leaves room for " …" (a third of the
            # width at least: issue 44), else where the width ends, as Rich cuts
            plain = text.plain
            k = max(i for i in range(len(plain) + 1) if cell_len(plain[:i]) <= width - 2
                    or i == 0)
            space = plain.rfind(" ", 0, k + 1)
            while space > 0 and plain[space - 1] == " ":
                space -= 1
            if space > 0 and plain[:space].strip() and cell_len(plain[:space]) >= width // 3:
                t = text[:space]
                t.append(" …")
            else:
                t.truncate(width, overflow="ellipsis")
            n = t.cell_len
        pad = width - n
        if pad > 0:
            if right:
                t = Text(" " * pad) + t
            else:
                t.append(" " * pad)
        return t

    def rich_center(text, width):
        out = Text(" " * max(0, (width - text.cell_len) // 2), no_wrap=True)
        out.append_text(text)
        return out

    def rich_join(*parts):
        out = Text(no_wrap=True)
        for p in parts:
            if isinstance(p, str):
                out.append(p)
            else:
                out.append_text(p)
        return out

    def shape(t):
        return (t.plain, t.spans, t.style, t.justify, t.overflow, t.no_wrap, t.end, t.tab_size)

    rnd = random.Random(3)
    for _ in range(3000):
        plain = "".join(rnd.choice("ab ♠漢\u0301") for _ in range(rnd.randrange(0, 30)))
        t = Text(plain, style=rnd.choice(["", "bold", "dim red"]),
                 no_wrap=rnd.choice([None, True]), end=rnd.choice(["\n", ""]),
                 justify=rnd.choice([None, "left"]), overflow=rnd.choice([None, "ellipsis"]))
        for _ in range(rnd.randrange(0, 3)):
            a = rnd.randrange(0, len(plain) + 1)
            t.stylize(rnd.choice(["red", "bold"]), a, rnd.randrange(a, len(plain) + 1))
        width = rnd.randrange(0, 40)
        for right in (False, True):
            assert shape(draw.fit(t, width, right)) == shape(rich_fit(t, width, right))
        assert shape(draw.center(t, width)) == shape(rich_center(t, width))
        parts = [t, rnd.choice(["", " │ ", "a\rb\x07"]), Text(""), Text("", style="dim"),
                 draw.fit(t, width), Text("x", style="bold", spans=[Span(0, 1, "red")])]
        rnd.shuffle(parts)
        assert shape(draw.join(*parts)) == shape(rich_join(*parts))


def test_the_score_panel_events_follow_the_round_and_the_tables_events():
    """The panel's events are kept while the facts hold the same events object and
    the round is the same; another round or other events show at once."""
    _, v = my_play_with_a_card_held_back()
    cache = draw.DrawCache()
    events = ((v["round"], "ali declares 3"), (None, "the match begins"),
              (v["round"] + 1, "next round"))

    def panel(view, evs):
        frame = draw.draw_table(view, TableState(), facts(events=evs), Look(), now=0.0,
                                cache=cache)
        return "\n".join(line.plain for line in frame.lines[2:7])

    first = panel(v, events)
    assert "ali declares 3" in first and "next round" not in first
    assert "next round" in panel(dict(v, round=v["round"] + 1), events)
    assert "ali declares 3" in panel(v, events)
    assert "bea passes" in panel(v, (*events, (v["round"], "bea passes")))


def test_a_suits_style_is_one_object():
    """Styles are immutable: the same object for every card of a colour (a new one
    per card cost its making and its hash in every key it is in)."""
    look, mono = Look(), Look(colour=False)
    assert look.suit_style("S") is look.suit_style("C") is mono.suit_style("H")
    assert look.suit_style("S") == Style(bold=True)
    assert look.suit_style("C", dim=True) is mono.suit_style("D", dim=True) == Style(dim=True)
    assert look.suit_style("H") == Style(color="red", bold=True)


# ---------------------------------------------------------------- the keys
def ctx(mode: str, phase: str | None = None, **kw) -> KeyContext:
    return KeyContext(mode=mode, phase=phase, history=kw.pop("history", False),
                      rank=kw.pop("rank", None), **kw)


def action(context: KeyContext, key: str, char: str | None = None) -> str | None:
    """The action ``key`` runs now (None: the key does nothing)."""
    entry = resolve(context, key, key if char is None else char)
    return entry.action if entry is not None else None


def test_every_action_of_the_key_table_has_a_handler_on_the_screen():
    from tui.screens.table import ScreenKeys
    from tui.screens.table_actions import TurnKeys
    assert not set(ScreenKeys.HANDLERS) & set(TurnKeys.HANDLERS)     # one handler each
    assert set(ScreenKeys.HANDLERS) | set(TurnKeys.HANDLERS) == actions()


@pytest.mark.parametrize("context,shown", [
    (ctx("waiting", may_fill=True), "/ o ? q b"),
    (ctx("waiting"), "/ o ? q"),                  # not the host's: b says why not
    (ctx("dash", "dash"), "/ o ? q y n"),
    (ctx("bid", "auction", history=True, can_pass=True, can_with=True),
     "/ o ? q r v ←→ nshdc ⏎ p w"),
    (ctx("bid", "auction", can_pass=True), "/ o ? q ←→ nshdc ⏎ p"),
    (ctx("call", "call", suit_open=True), "/ o ? q ←→ nshdc ⏎"),
    (ctx("call", "call", suit_open=False), "/ o ? q ←→ ⏎"),
    (ctx("declare", "declare"), "/ o ? q ←→/0-9 ⏎"),
    (ctx("play", "play", history=True), "/ o ? x r v ←→ ⏎ qs…"),
    (ctx("idle", "play"), "/ o ? x"),
    (ctx("idle", "over", history=True), "/ o ? q r v"),
    # a practice table: h for a hint (H while bidding or calling, where h is hearts)
    (ctx("play", "play", practice=True), "/ o ? x h ←→ ⏎ qs…"),
    (ctx("bid", "auction", can_pass=True, practice=True), "/ o ? q H ←→ nshdc ⏎ p"),
    (ctx("idle", "play", practice=True), "/ o ? x"),
    # a watcher: no review (of one's own seat only: v did nothing for them)
    (ctx("idle", "over", history=True, seated=False), "/ o ? q r"),
])
def test_the_footer_lists_the_keys_that_do_something_now(context, shown):
    assert " ".join(k for k, _ in footer(context)) == shown
    # each key the footer shows runs its own entry (nothing earlier shadows it)
    for entry in (k for k in [*COMMON, *MODES[context.mode]] if k.shown and k.when(context)):
        key = sorted(entry.names)[0] if entry.names else entry.chars[0]
        assert resolve(context, key, key if len(key) == 1 else "") is entry


def test_b_before_the_start_asks_the_table_whoever_presses_it():
    """The footer offers b to whom the table lets fill (its host, an operator); anyone
    else's b still reaches the table, which says why not (docs/roles.md)."""
    assert action(ctx("waiting", may_fill=True), "b") == "fill_seats"
    assert action(ctx("waiting"), "b") == "fill_seats"
    assert action(ctx("idle", "play"), "b") is None


def test_h_is_a_hint_at_a_practice_table_and_still_hearts_where_it_was():
    assert action(ctx("play", "play", practice=True), "h") == "hint"
    assert action(ctx("play", "play", practice=True, rank="q"), "h") == "type_suit"
    assert action(ctx("bid", "auction", practice=True), "h") == "choose_suit"
    assert action(ctx("bid", "auction", practice=True), "H") == "hint"
    assert action(ctx("play", "play"), "h") != "hint"
    assert action(ctx("idle", "over", history=True), "v") == "review"
    assert action(ctx("idle", "over", history=True, seated=False), "v") is None
    # H on one's turn at a table that counts, or in a Tarneeb declaration: the hint's
    # handler, which says the room's reason for none (it was silent)
    assert action(ctx("bid", "auction"), "H") == "hint"
    assert action(ctx("declare", "declare", practice=True), "H") == "hint"
    assert action(ctx("idle", "play"), "H") is None
    assert action(ctx("play", "play", rank="q"), "H") != "hint"


def test_q_types_a_queen_on_your_turn_to_play_and_leaves_otherwise():
    play = ctx("play", "play")
    assert action(play, "q", "q") == "type_rank"
    assert action(play, "x", "x") == "leave"
    assert action(ctx("idle", "play"), "q", "q") == "leave"
    assert action(ctx("bid", "auction"), "q", "q") == "leave"
    # typed cards: 1 then 0 is a ten, a suit only after a rank
    assert action(play, "0", "0") is None
    assert action(ctx("play", "play", rank="1"), "0", "0") == "type_ten"
    assert action(play, "s", "s") is None
    assert action(ctx("play", "play", rank="K"), "s", "s") == "type_suit"
    assert action(ctx("play", "play", rank="1"), "s", "s") is None


def test_keys_that_would_do_nothing_are_not_taken():
    bid = ctx("bid", "auction", can_pass=True)
    assert action(bid, "w", "w") is None              # no standing bid: no With
    assert action(ctx("declare", "declare"), "up", "") is None
    assert action(ctx("declare", "declare"), "h", "h") is None
    assert action(ctx("idle", "auction"), "enter", "\r") is None
    assert action(ctx("idle", "auction"), "escape", "") == "nothing"
    # a fixed suit still answers a suit key (to say why not), without a footer entry
    assert action(ctx("call", "call", suit_open=False), "h", "h") == "choose_suit"


# ------------------------------------------------------- the room's facts
async def test_table_facts_are_plain_data_from_the_room():
    reg = Registry(bot_pause=0.0, trick_pause=0.0)
    table = reg.create("tarneeb41", None, private=True)
    table.code = "K7QMR2XD"
    members = [Member(n, f"key:x:{n}") for n in NAMES]
    table.seed = 4
    for i, mem in enumerate(members):
        table.sit(mem, i)
    play_on(table, members, lambda v: v["phase"] == "play" and v["tricks"])
    table.say(members[1], "one")
    table.say(members[2], "two")
    table.say(members[3], "three")
    table.seats[3].member = None                     # away, the seat kept
    change = TableChange(table, "state")
    f = table_facts(change, members[0])
    assert f.seat == 0 and f.title == "Tarneeb 41" and f.code_label == "K7QM-R2XD"
    assert [s.away for s in f.seats] == [False, False, False, True]
    assert f.chat == (("cem", "two"), ("dua", "three"))
    assert f.events and not any("plays" in text for _, text in f.events)
    assert f.request is None and f.seconds_left is None
    text = "\n".join(plain(draw.draw_table(table.view(0), TableState(), f, Look(), now=0.0)))
    assert "dua away" in text and "Private table · code K7QM-R2XD" in text
    # the events said (plays left out) are worked out once per change of the table's events
    assert table_facts(change, members[1]).events is f.events
    # ... and what is the same for everyone is worked out once per change, for them all
    assert table_facts(change, members[2]).seats is f.seats
    assert f.events == tuple((e.round, e.text) for e in table.events
                             if not (e.action and e.action.get("type") == "play"))
    seat = table.match.to_act
    table.seats[3].member = members[3]
    table.act(members[seat], first_legal(table.match, seat))
    moved = table_facts(TableChange(table, "state"), members[0]).events
    assert moved is not f.events and moved == tuple(
        (e.round, e.text) for e in table.events
        if not (e.action and e.action.get("type") == "play"))
    said = table.narration
    table.events = type(table.events)(list(table.events)[:-3], maxlen=20)   # replaced
    assert said() == tuple((e.round, e.text) for e in table.events
                           if not (e.action and e.action.get("type") == "play"))
    first = next(e for e in table.events if not (e.action and e.action.get("type") == "play"))
    table.events.append(first)                      # an event said again, at the end
    assert said()[-1] == said()[0] == (first.round, first.text)
    # the last two chat lines not ignored
    members[0].ignoring.add("dua")
    assert table_facts(TableChange(table, "state"), members[0]).chat == (("bea", "one"), ("cem", "two"))
    table.close()


# ------------------------------------------------------------ a real click
@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_a_click_on_a_drawn_card_chooses_it_and_a_second_click_plays_it(size):
    app = LammaApp(Registry(bot_pause=0.0, trick_pause=0.0), "ali", "key:x:ali")
    async with app.run_test(size=size) as pilot:
        table, members = await seated(pilot, app)
        m = play_on(table, members, lambda v: v["to_act"] == 0 and v["phase"] == "play"
                    and len(v["legal"]) > 1)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TableScreen)
        screen.redraw()
        await pilot.pause()
        card = next(c for c in sorted(screen.turn().playable()) if c != screen.state.sel_card)
        label = app.look.card_str(card)
        row = screen.query_one("#board").render_line(draw.HAND_Y).text
        x = row.index(" " + label) + 1                  # where the card is drawn
        assert x >= (size[0] - draw.W) // 2 + draw.HAND_X
        before = len(m.log)
        await pilot.click(offset=(x, draw.HAND_Y))
        assert screen.state.sel_card == card and len(m.log) == before
        await pilot.click(offset=(x + 1, draw.HAND_Y + 1))    # the same card's cells
        await pilot.pause()
        assert m.log[before] == (0, {"type": "play", "card": card})


HINT = ("Hint: plays normally, +14.8 points expected; next best takes the dash call, "
        "-9.7")


@pytest.mark.parametrize("size", [(40, 20), (50, 32), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("language", ["en", "ar"])
def test_a_long_hint_is_shown_whole_at_every_size(language, size):
    """A notice longer than its row (a hint) goes on under itself, never cut (issue 29):
    every word of it is on the screen, and the table's rows are all still there."""
    m = new_match("estimation", 18, seed=5)
    v = drive(m, lambda v: v["to_act"] == 0 and v["phase"] == "dash")
    look = Look(language=language, text_mode="logical")
    state = TableState(notice=HINT, notice_until=10.0)
    placed = draw_screen(v, state, facts(), look, *size, now=9.0)
    rows = [line.plain.rstrip() for line in placed.lines]
    said = " ".join(" ".join(rows).split())
    assert "…" not in said, rows
    # every word of it, in its order (other panels may share its rows at wide sizes)
    tokens = iter(said.split())
    for word in HINT.split():
        assert any(t == word for t in tokens), (word, rows)
    if size == (80, 24):
        calm = draw_screen(v, TableState(), facts(), look, *size, now=9.0)
        before = [line.plain.rstrip() for line in calm.lines]
        # the hand, the phase's rows and the chat stay where they were
        assert rows[13:] == before[13:], (rows, before)


@pytest.mark.parametrize("language", ["en", "ar"])
def test_a_tarneeb_hint_that_voids_the_hand_says_so_in_its_line(language):
    """A hint whose declaration leaves the four under 11 (``void``, T-13) says the hand
    is then void, in both languages; one that does not, does not."""
    from types import SimpleNamespace

    from tui.i18n import Speech
    from tui.screens.table import Hints

    speech = Speech(language, "logical")
    hints = Hints(SimpleNamespace(_=speech._))    # type: ignore[arg-type]
    hints.move_words = lambda action: draw.move_words(speech, Look(language=language),
                                                      action)  # type: ignore[method-assign]
    two = {"type": "declare", "n": 2}
    five = {"type": "declare", "n": 5}
    said = hints.line({"action": two, "ev": 0.0, "void": True,
                       "next_best": {"action": five, "ev": -3.2}})
    plain = hints.line({"action": two, "ev": 0.0, "next_best": {"action": five, "ev": -3.2}})
    void = speech._("{move} (the hand is then void: declarations under 11)")
    assert void.split("{move}")[1] in said and "11" in said, said
    assert "11" not in plain and said != plain
    if language == "ar":
        assert void != "{move} (the hand is then void: declarations under 11)"


def test_a_shaped_arabic_line_too_long_loses_its_end_not_its_start():
    """Cut in reading order (issue 29): the round's line keeps the player's own score
    (the start of its left-to-right run), the replay's title keeps "Replay" and the
    start of its heading."""
    from types import SimpleNamespace

    from tui.i18n import Speech
    from tui.screens.replay import ReplayScreen
    from tui.widgets.lines import title_bar

    speech = Speech("ar", "shaped")
    line = Text(" " + speech._("Round {round}: {scores}").format(
        round=1, scores="ali -17, bea -2, cem -2, dua -2"))
    cut = draw.rtl_fit(speech, line, 30)
    assert cut.cell_len == 30 and "ali -17" in cut.plain and "…" in cut.plain, cut.plain
    screen = SimpleNamespace(speech=speech, heading="Estimation · ali, Bot-2, Bot-3, Bot-4")
    screen.laid = lambda text, width: ReplayScreen.laid(screen, text, width)
    screen.title_rows = lambda width: ReplayScreen.title_rows(screen, width)
    title = ReplayScreen.title_line(screen, 40).plain
    head = speech.line(title_bar(speech._("Replay")), 0).plain.strip()
    assert len(title) == 40 and title.rstrip().endswith(head), title
    assert "Estimation" in title, title


def test_a_fast_rounds_call_under_8_says_the_trump_is_locked_in_both_layouts():
    """E-18 as the screens say it (engine.match.call_keeps_trump): the caller of a fast
    round sees the suit locked while the call is under 8, free from 8."""
    def seat0_bids(m, seat):
        bids = [a for a in m.legal_actions(seat) if a["type"] == "bid"]
        return bids[0] if seat == 0 and bids else first_legal(m, seat)
    m = new_match("estimation", 18, seed=5)
    v = drive(m, lambda v: v["kind"] == "fast" and v["phase"] == "call" and v["to_act"] == 0,
              policy=seat0_bids)
    won = v["auction"]["bid"]
    assert won["n"] < 7
    for n, locked in ((7, True), (8, False)):
        state = TableState(sel_n=n, sel_suit=won["suit"])
        wide = "\n".join(plain(draw.draw_table(v, state, facts(), Look(), now=0.0)))
        small = "\n".join(line.plain for line in
                          draw_screen(v, state, facts(), Look(), 60, 20, now=0.0).lines)
        for text in (wide, small):
            assert ("locked: raise to 8 or more to change the suit" in text) is locked, text


def test_the_chooser_moves_the_choice_within_the_turn_alone():
    """table_actions.Chooser: no screen, a view and the state only."""
    from tui.screens.table_actions import Chooser
    m = new_match("estimation", 18, seed=5)
    v = drive(m, lambda v: v["to_act"] == 0 and v["phase"] == "auction")
    state = TableState()
    chooser = Chooser(state, lambda: Turn(v, 0))
    chooser.reset(v)
    bids = [a for a in v["legal"] if a["type"] == "bid"]
    assert state.sel_n == min(a["n"] for a in bids)
    assert chooser.digit("bid", 1, now=100.0)               # 1: waits for 10-13
    assert chooser.digit("bid", 2, now=100.5) and state.sel_n == 12
    assert not chooser.digit("bid", 2, now=103.0)           # 2 alone is no bid
    assert chooser.suit("bid", "NT") and state.sel_suit == "NT"
    chooser.step_number("bid", 1)
    assert state.sel_n == 13


def test_a_refused_number_says_the_rules_reason():
    """The turn's keys say why a typed number is refused where the table can tell."""
    from tui.i18n import Speech
    from tui.screens.table_actions import TurnKeys
    from tui.screens.table_keys import KeyContext

    flashed: list[str] = []

    class Screen:
        speech = Speech("en")

        def why_not(self, action):
            return "you are the last to declare: 9 would make the total 13"

        def flash(self, text):
            flashed.append(text)

    keys = TurnKeys(Screen(), None)      # type: ignore[arg-type]
    keys.refused(KeyContext(mode="declare", phase="declare", history=False, rank=None), 9)
    keys.refused(KeyContext(mode="bid", phase="auction", history=False, rank=None), 3)
    assert flashed == ["9 is not possible now: you are the last to declare: 9 would make "
                       "the total 13.", "3 is not possible now."]
