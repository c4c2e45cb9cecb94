"""Pilot tests of the table screen's phase panels: what is dim or disabled
comes from the engine's legal list, and what cannot be chosen is never sent.
(Each phase of each game as a whole screen: tests/test_golden.py.)"""

from __future__ import annotations

import pytest
from stacked import act_until as drive
from stacked import quick_policy as first_legal

from engine.room import Registry
from engine.room import Session as Member
from tui.app import LammaApp

SIZES = [(80, 24), (120, 36)]


async def setup(pilot, app, game="estimation", length=None):
    reg = app.registry
    table = reg.create(game, length)
    table.sit(app.member, 0)
    others = [Member(f"p{i}", f"key:x:p{i}") for i in (1, 2, 3)]
    for i, mem in enumerate(others, start=1):
        table.sit(mem, i)
    app.open_table()
    await pilot.pause()
    return table, {0: app.member, 1: others[0], 2: others[1], 3: others[2]}


async def redraw(pilot, app):
    await pilot.pause()
    app.screen.redraw()
    await pilot.pause()
    return app.screen


def new_app():
    return LammaApp(Registry(bot_pause=0.0, trick_pause=0.0), "ali", "key:x:ali")


@pytest.mark.parametrize("size", SIZES)
async def test_auction_standing_5h_dims_4_and_lower_suits_and_offers_with(size):
    app = new_app()
    async with app.run_test(size=size) as pilot:
        table, members = await setup(pilot, app)

        def policy(m, s):
            legal = m.legal_actions(s)
            bid = {"type": "bid", "n": 5, "suit": "H"}
            if bid in legal and m.view(s)["auction"]["bid"] is None:
                return bid
            return first_legal(m, s)
        drive(table, members, lambda v: v["to_act"] == 0 and v["phase"] == "auction"
                  and (v["auction"]["bid"] or {}).get("n") == 5, policy)
        screen = await redraw(pilot, app)
        cells = dict(screen.turn().number_cells("bid", screen.state.sel_n))
        assert cells[4] == "dim"
        assert cells[5] != "dim"          # 5♠ and 5NT still beat 5♥
        screen.state.sel_n = 5
        suits = dict(screen.turn().suit_cells("bid", 5, screen.state.sel_suit))
        assert suits["C"] == suits["D"] == suits["H"] == "dim"
        assert suits["S"] != "dim" and suits["NT"] != "dim"
        keys = [k for k, _ in screen.key_list()]
        assert "w" in keys and "p" in keys
        # a dim number cannot be chosen: typing 4 keeps the selection and sends nothing
        before = len(table.match.log)
        await pilot.press("4")
        assert screen.state.sel_n != 4 and len(table.match.log) == before
        # a dim suit cannot be chosen at 5: ♣ moves the choice to the lowest ♣ bid that beats 5♥
        await pilot.press("5", "c")
        assert (screen.state.sel_n, screen.state.sel_suit) != (5, "C")
        assert {"type": "bid", "n": screen.state.sel_n, "suit": screen.state.sel_suit} in screen.view["legal"]
        # With copies the standing bid; then With is gone
        await pilot.press("w")
        await pilot.pause()
        assert table.match.log[-1] == (0, {"type": "with"})


async def test_auction_without_a_standing_bid_has_no_with():
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table, members = await setup(pilot, app)
        drive(table, members, lambda v: v["to_act"] == 0 and v["phase"] == "auction")
        screen = await redraw(pilot, app)
        v = screen.view
        # dealer 0: seats 1-3 speak first and first_legal passes, so nobody has bid
        assert v["auction"]["bid"] is None
        assert "w" not in [k for k, _ in screen.key_list()]
        assert "With" not in "".join(t.plain for t in screen.phase_lines())


async def test_last_declarer_sees_the_forbidden_number_disabled_with_the_reason():
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table, members = await setup(pilot, app)
        v = drive(table, members, lambda v: v["to_act"] == 0 and v.get("forbidden") is not None)
        screen = await redraw(pilot, app)
        f = v["forbidden"]
        cells = dict(screen.turn().declare_cells(screen.state.sel_n))
        assert cells[f] == "forbidden"
        assert {"type": "declare", "n": f} not in v["legal"]
        text = "\n".join(t.plain for t in screen.phase_lines())
        assert f"{f} is disabled: it would make the total 13" in text
        before = len(table.match.log)
        if f < 10:
            await pilot.press(str(f), "enter")
            await pilot.pause()
            assert all(a != (0, {"type": "declare", "n": f}) for a in table.match.log[before:])


async def test_fast_round_call_keeps_the_suit_locked_below_8():
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table, members = await setup(pilot, app, "estimation", 18)

        def policy(m, s):
            v = m.view(s)
            legal = m.legal_actions(s)
            if v["kind"] == "fast" and v["phase"] == "auction":
                if s == 0:
                    return min((a for a in legal if a["type"] == "bid"), key=lambda a: a["n"])
                return {"type": "pass"} if {"type": "pass"} in legal else legal[0]
            return first_legal(m, s)
        v = drive(table, members, lambda v: v["kind"] == "fast" and v["phase"] == "call"
                  and v["to_act"] == 0, policy)
        screen = await redraw(pilot, app)
        assert screen.state.sel_n < 8

        def open_suits() -> list[str]:
            st = screen.state
            return [s for s, c in screen.turn().suit_cells("call", st.sel_n, st.sel_suit)
                    if c != "dim"]
        assert open_suits() == [v["fixed_trump"]]          # only the round's suit below 8
        assert "locked" in "\n".join(t.plain for t in screen.phase_lines())
        while screen.state.sel_n < 8:
            await pilot.press("right")
        assert len(open_suits()) > 1                    # opens at 8
        while screen.state.sel_n > min(a["n"] for a in v["legal"]):
            await pilot.press("left")
        await pilot.press("enter")
        await pilot.pause()
        assert table.match.log[-1][0] == 0 and table.match.log[-1][1]["type"] == "call"


@pytest.mark.parametrize("size", SIZES)
async def test_illegal_cards_sit_low_and_cannot_be_chosen(size):
    app = new_app()
    async with app.run_test(size=size) as pilot:
        table, members = await setup(pilot, app)
        v = drive(table, members, lambda v: v["to_act"] == 0 and v["phase"] == "play"
                  and v["trick"] and len({a["card"] for a in v["legal"]}) < len(v["hand"]))
        screen = await redraw(pilot, app)
        legal = {a["card"] for a in v["legal"]}
        illegal = [c for c in v["hand"] if c not in legal]
        up, down = [t.plain for t in screen.hand_lines()]
        look = app.look
        for c in illegal:
            assert look.card_str(c) in down and look.card_str(c) not in up
        seen = set()
        for _ in range(len(v["hand"]) + 2):
            await pilot.press("right")
            seen.add(screen.state.sel_card)
        assert seen <= legal
        before = len(table.match.log)
        c = illegal[0]
        await pilot.press(c[0].lower(), c[1].lower())
        await pilot.pause()
        assert len(table.match.log) == before     # refused on screen, never sent


@pytest.mark.parametrize("game,length", [("estimation-kotshina", "micro"), ("tarneeb41", None)])
async def test_each_phase_is_drawn_and_the_round_summary_shown(game, length):
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table, members = await setup(pilot, app, game, length)
        done = set()
        m = table.match
        while "play" not in done and m.to_act is not None:
            v = drive(table, members, lambda v: v["to_act"] == 0)
            if v["phase"] not in done:
                await redraw(pilot, app)
                done.add(v["phase"])
            table.act(members[0], first_legal(m, 0))
        # the round summary, once a round is over
        v = drive(table, members, lambda v: bool(v["history"]) and not v["tricks"]
                  and v["phase"] != "play")
        screen = await redraw(pilot, app)
        text = "\n".join(t.plain for t in screen.middle_lines())
        if not v["history"][-1].get("void"):
            assert ("summary" in text and "total" in text) or "Match over" in text
        assert "declare" in done and "play" in done


async def test_table_below_40x20_asks_to_enlarge_and_redraws_on_resize():
    app = new_app()
    async with app.run_test(size=(39, 20)) as pilot:
        _table, _members = await setup(pilot, app)
        await pilot.pause()
        board = app.screen.query_one("#board")
        text = "\n".join(board.shown())
        assert "enlarge the window" in text and "40×20" in text
        await pilot.resize_terminal(70, 20)         # compact, at once
        await pilot.pause(0.1)
        text = "\n".join(board.shown())
        assert "enlarge" not in text and "player" in text and " e log" in text
        await pilot.resize_terminal(80, 24)         # standard
        await pilot.pause(0.1)
        text = "\n".join(board.shown())
        assert "enlarge" not in text and "player" in text and " e log" not in text


async def test_chat_at_80x24_keeps_the_table_in_sight():
    """The chat box takes two rows at the bottom; at exactly 80×24 the table stays
    (cut above the box), not a request to enlarge the window."""
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        _table, _members = await setup(pilot, app)
        await pilot.press("slash")
        await pilot.pause(0.1)
        board = app.screen.query_one("#board")
        text = "\n".join(s.text for s in board._strips)
        assert "enlarge" not in text and "player" in text
        await pilot.press("escape")
        await pilot.pause(0.1)
        text = "\n".join(s.text for s in board._strips)
        assert "enlarge" not in text and "/ chat" in text      # the footer is back


async def test_options_ascii_suits_and_english_only():
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table, members = await setup(pilot, app)
        drive(table, members, lambda v: v["to_act"] == 0 and v["phase"] == "play")
        screen = await redraw(pilot, app)
        await pilot.press("o")
        await pilot.press("a", "e", "escape")
        await pilot.pause()
        assert not app.look.unicode and app.look.english_only
        up, down = [t.plain for t in screen.hand_lines()]
        assert "♠" not in up + down and "♥" not in up + down
        from tui.screens.help import terms_text
        assert terms_text(True) == ""


async def test_score_sheet_is_one_key_away_and_help_shows_arabic_terms():
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table, members = await setup(pilot, app)
        drive(table, members, lambda v: bool(v["history"]) and v["to_act"] == 0)
        await redraw(pilot, app)
        await pilot.press("r")
        await pilot.pause()
        assert type(app.screen).__name__ == "SheetScreen"
        text = "\n".join(s.text for s in app.screen.query_one("Board")._strips)
        assert "Score sheet" in text and "total" in text
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "TableScreen"
        await pilot.press("question_mark")
        await pilot.pause()
        from tui.arabic import shaped
        content = app.screen.query_one("#help-text").content
        lines = str(getattr(content, "plain", content)).splitlines()
        assert any(shaped("داش") in line and "Dash" in line for line in lines)


async def test_match_end_shows_level_points(tmp_path):
    """Match end: winners, final totals and the level points the store paid (E-38: the 18-round match is the ranked one)."""
    from server.persistence import TableStore
    from server.store import Store
    store = Store(tmp_path / "lamma.db")
    for name in ("ali", "p1", "p2", "p3"):
        store.bind(name, "fp-" + name)
    app = LammaApp(Registry(store=TableStore(store), bot_pause=0.0, trick_pause=0.0),
                   "ali", "key:x:ali")
    async with app.run_test(size=(80, 24)) as pilot:
        table, members = await setup(pilot, app, "estimation", 18)
        v = drive(table, members, lambda v: v["phase"] == "over", limit=20000)
        screen = await redraw(pilot, app)
        text = "\n".join(t.plain for t in screen.result_lines())
        winners = v["result"]["winners"]
        if v["result"]["draw"]:
            assert "+10 level points" in text
        else:
            assert "+30 level points" in text and len(winners) == 1
        assert text.count("-4 level points") == 4 - len(winners)


async def last_card_of_a_trick(pilot, app):
    """Seated, the match in play, and the trick's last card just played: its
    frame drawn (the finished trick in the middle, held before it moves)."""
    table, members = await setup(pilot, app)
    drive(table, members, lambda v: v["phase"] == "play" and len(v.get("trick") or []) == 3,
          seat=None)
    m = table.match
    table.act(members[m.to_act], first_legal(m, m.to_act))
    await pilot.pause()
    return app.screen


async def test_a_finished_trick_is_held_then_moves_to_its_winner(monkeypatch):
    import asyncio

    from tui.screens import table as table_screen
    from tui.widgets.board import Board
    monkeypatch.setattr(table_screen, "TRICK_HOLD", 30.0)     # due only when called below
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await last_card_of_a_trick(pilot, app)
        board = screen.query_one(Board)
        held = "\n".join(board.shown())
        # the middle says it (the events beside the scores say it too)
        assert held.count("takes the trick") == 2 and "took the trick" not in held
        hold = screen.trick_hold.handle
        assert hold is not None and not hold.cancelled()
        assert 25 < hold.when() - asyncio.get_running_loop().time() <= 30
        screen.trick_hold.held(app)                 # what the loop calls when it is due
        await pilot.pause()
        moved = "\n".join(board.shown())
        assert moved.count("takes the trick") == 1 and "took the trick" in moved
        assert screen.state.anim.moved and screen.trick_hold.handle is None


async def test_a_trick_held_on_a_screen_that_was_left_moves_nothing(monkeypatch):
    from tui.screens import table as table_screen
    monkeypatch.setattr(table_screen, "TRICK_HOLD", 30.0)
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await last_card_of_a_trick(pilot, app)
        anim, hold = screen.state.anim, screen.trick_hold.handle
        assert anim is not None and not anim.moved and hold is not None
        app.pop_screen()
        await pilot.pause()
        assert hold.cancelled() and screen.trick_hold.handle is None   # cancelled as it went
        screen.trick_hold.held(app)                 # had it been due already: nothing
        await pilot.pause()
        assert screen.state.anim is anim and app.is_running and app.return_code is None


# ------------------------------------------------------------------ over or under
def declare_to_risk(table, members) -> int:
    """The round to its play: one bid of 5 (the call), every other declaration 0, so
    the table is under by 8 and its last declarer in risk (E-23). The last declarer."""
    m = table.match
    while m.phase != "play":
        seat = m.to_act
        legal = m.legal_actions(seat)
        if m.phase == "auction" and m.view(None)["auction"]["bid"] is None:
            action = next(a for a in legal if a["type"] == "bid" and a["n"] == 5)
        elif m.phase == "auction":
            action = next(a for a in legal if a["type"] == "pass")
        elif m.phase == "declare":
            action = next(a for a in legal if a["n"] == 0)
        else:
            action = next(a for a in legal if a.get("take") is not True
                          and a.get("n", 5) == 5)
        table.act(members[seat], action)
    last = m.view(None)["last_declarer"]
    assert m.view(None)["over_under"] == {"total": 5, "over": False, "by": 8,
                                          "at_risk": last}
    return last


@pytest.mark.parametrize("size,language", [
    ((40, 20), "en"), ((40, 20), "ar"), ((50, 32), "en"), ((80, 24), "en"),
    ((80, 24), "ar"), ((120, 36), "en"), ((100, 21), "en")],
    ids=["40x20-en", "40x20-ar", "50x32-en", "80x24-en", "80x24-ar", "120x36-en",
         "compact-100x21-en"])
async def test_the_table_says_over_or_under_and_who_is_at_risk(size, language):
    """A player's pass: players read "over by 2" / "under by 1" in every app, and who is
    at risk; the table said neither. Once the declarations are in, its info area says
    both (the engine's view decides them), at every size, and nothing else leaves the
    screen for them: the trump, the call, every player, the whole hand, the footer."""
    from cuts import cut_marks
    from test_golden import screen_text

    from tui.cards import Look
    app = LammaApp(Registry(bot_pause=3600.0, trick_pause=0.0), "ali", "key:x:ali",
                   look=Look(language=language, text_mode="shaped" if language == "ar"
                             else None, english_only=language == "en"))
    async with app.run_test(size=size) as pilot:
        table, members = await setup(pilot, app, length=18)
        last = declare_to_risk(table, members)
        await redraw(pilot, app)
        text = screen_text(app)
        sp = app.speech
        name = "ali" if last == 0 else f"p{last}"
        under = sp._("Under by {n}").format(n=8)
        risk = sp._("{name} at {risk}").format(
            name=name + (" " + sp._("(you)") if last == 0 else ""),
            risk="ريسك" if language == "ar" else "risk")
        assert sp.show(under) in text, text
        assert sp.show(risk) in text, text
        view = table.match.view(0)
        for card in view["hand"]:
            shown = app.screen.look.card_str(card)
            assert shown in text, (shown, text)
        for label in ("p1", "p2", "p3"):
            assert label in text
        assert sp.show(sp._("Call")) in text and sp.show(sp._("Trump")) in text
        assert not cut_marks(text), text


# ------------------------------------------------------------ who played the round
@pytest.mark.parametrize("size,language", [((80, 24), "en"), ((80, 24), "ar"),
                                           ((40, 20), "en"), ((120, 36), "en")],
                         ids=["80x24-en", "80x24-ar", "40x20-en", "120x36-en"])
async def test_a_rounds_summary_names_who_played_it_not_the_seats_holder_now(size, language):
    """A player's pass: ali took Bot-2's seat at the end of round 1, and round 1's
    summary credited it to ali. It names the computer player that played it."""
    from stacked import quick_policy
    from test_golden import screen_text

    from tui.cards import Look
    app = LammaApp(Registry(bot_pause=3600.0, trick_pause=0.0), "ali", "key:x:ali",
                   look=Look(language=language, text_mode="shaped" if language == "ar"
                             else None))
    async with app.run_test(size=size) as pilot:
        t = app.registry.create("estimation", 13)
        ana = Member("ana", "key:x:ana")
        t.sit(ana, 0)
        t.fill_with_bots(ana, [1, 2, 3], "easy")
        m = t.match
        t.runner.check_and_apply(m.to_act, quick_policy(m, m.to_act), "bot")
        assert t.take_seat(app.member, 1) is False          # at the end of this round
        app.open_table()
        while not m.history:
            t.runner.check_and_apply(m.to_act, quick_policy(m, m.to_act), "bot")
        assert t.seats[1].name == "ali" and app.member.seat == 1
        await redraw(pilot, app)
        text = screen_text(app)
        sp = app.speech
        head = sp._("Round {n} summary").format(n=1) if size[0] >= 80 else "Round 1"
        assert sp.show(head) in text, text
        rows = text.splitlines()
        start = next(i for i, r in enumerate(rows) if sp.show(head) in r)
        summary = "\n".join(rows[start:start + 6])
        assert "Bot-2" in summary and "ali" not in summary, summary
