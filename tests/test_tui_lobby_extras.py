"""Pilot tests of the lobby's profile, leaderboard and replays, at 80×24, with a
real Store holding finished matches (played with random legal actions)."""

from __future__ import annotations

import random

import pytest
from stacked import quick_policy as first_legal
from stacked import random_match

from engine import new_match
from engine.room import CODE_ALPHABET, CODE_TRIES, Registry, code_label
from engine.room import Session as Member
from engine.room.store import finished, people_throughout
from server.persistence import TableStore
from server.store import Store
from tui.app import LammaApp
from tui.cards import Look
from tui.screens.help import HelpScreen
from tui.screens.lobby import LobbyScreen
from tui.screens.profile import LeaderboardScreen, ProfileScreen
from tui.screens.replay import ReplayListScreen, ReplayScreen
from tui.screens.replay_board import MID, SIDE, suit_order
from tui.screens.seats import JoinCodeScreen, TakeSeatScreen

SIZE = (80, 24)


def record_finished(store, mid, m):
    """``m`` recorded as finished, paid as the rules say for the stored seats."""
    return store.finish_match(mid, finished(m, people_throughout(store.match(mid))))


def keep(store, m, seats, finish=True):
    """``m`` stored as a match of ``seats`` (each name bound to a key); its id."""
    for name in seats:
        if name and not name.startswith("guest:"):
            store.bind(name, "fp-" + name)
    mid = store.create_match("t1", {**m.to_dict(), "log": []}, list(seats), {"timer": 30})
    for seq, (seat, action) in enumerate(m.log):
        store.append_action(mid, seq, seat, action)
    if finish:
        record_finished(store, mid, m)
    return mid


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    """Two finished matches: Estimation held by four people, then Tarneeb 41
    with a computer player and a guest (statistics only)."""
    store = Store(tmp_path_factory.mktemp("extras") / "lamma.db")
    est = None
    for seed in range(1, 40):                 # a decisive match, so the order is known
        est = random_match("estimation", 13, seed)
        if not est.result["draw"]:
            break
    est_id = keep(store, est, ("ana", "ben", "cat", "dee"))
    tar = random_match("tarneeb41", None, 4)
    tar_id = keep(store, tar, ("ana", None, "guest:zed", "dee"))
    # Ranked play is the 18-round match (issue 33): the only one here that pays.
    ranked = next(m for m in (random_match("estimation", 18, seed) for seed in range(1, 40))
                  if not m.result["draw"])
    keep(store, ranked, RANKED)
    return {"store": store, "est": est, "est_id": est_id, "tar": tar, "tar_id": tar_id,
            "ranked": ranked}


RANKED = ("eve", "fay", "gus", "hal")


def app_for(room, name="ana", guest=False):
    reg = Registry(store=TableStore(room["store"]), bot_pause=0.0, trick_pause=0.0)
    ident = f"guest:{name}" if guest else f"key:x:{name}"
    return LammaApp(reg, name, ident, guest=guest)


def pct(made, total):
    return "—" if not total else f"{100.0 * made / total:.0f}%"


async def test_profile_shows_the_right_figures(room):
    est, tar = room["est"], room["tar"]
    app = app_for(room)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, ProfileScreen)
        text = app.screen.query_one("#profile-text").plain
        lines = text.splitlines()
        won = 0 in est.result["winners"]
        # 13 rounds and a Tarneeb match with a computer player: statistics only (E-38)
        assert "Level points  0" in text
        assert "Badges        none yet" in text
        row = next(x for x in lines if x.startswith(" Estimation "))
        rounds = len(est.history)
        decl = [r for r in est.history if 0 not in r["dash_players"]]
        made = sum(r["made"][0] for r in decl)
        calls = [r for r in decl if r["caller"] == 0 and not r["all_pass"]]
        dash = [r for r in est.history if 0 in r["dash_players"]]
        assert row.split() == ["Estimation", "1", "1" if won else "0", "0", "0" if won else "1",
                               str(rounds), pct(made, len(decl)),
                               pct(sum(r["made"][0] for r in calls), len(calls)),
                               pct(sum(r["tricks_taken"][0] == 0 for r in dash), len(dash))]
        trow = next(x for x in lines if x.startswith(" Tarneeb 41 "))
        t_won = 0 in tar.result["winners"]
        t_rounds = len([r for r in tar.history if not r.get("void")])
        assert trow.split()[2:7] == ["1", "1" if t_won else "0", "0", "0" if t_won else "1",
                                     str(t_rounds)]
        assert trow.split()[8] == "—"            # Tarneeb has no calls
        keys = footer_of(app.screen)
        assert "leaderboard" in keys and "esc" in keys
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)


async def test_guest_profile_says_no_profile_is_kept(room):
    app = app_for(room, "zed", guest=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("i")
        await pilot.pause()
        text = app.screen.query_one("#profile-text").plain
        assert "no profile is kept for you" in text and "no statistics" in text
        assert "Level points" not in text


async def test_leaderboard_order(room):
    app = app_for(room, "ben")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(app.screen, LeaderboardScreen)
        text = app.screen.query_one("#board-text").plain
        rows = [x.split() for x in text.splitlines()[1:] if x.strip()]
        ranked = room["ranked"]
        points = {n: 0 for n in ("ana", "ben", "cat", "dee")}      # 13 rounds: unranked
        points.update({n: 30 if s in ranked.result["winners"] else -4
                       for s, n in enumerate(RANKED)})
        expect = sorted(points, key=lambda n: (-points[n], n))
        assert [r[1] for r in rows] == expect
        assert [int(r[2]) for r in rows] == [points[n] for n in expect]
        assert [int(r[0]) for r in rows] == list(range(1, 9))
        mine = [x for x in text.splitlines() if "← you" in x]
        assert len(mine) == 1 and " ben " in mine[0]


def dealt_hands(m, round_index):
    """Independently: step a fresh match through the log to that round's first card."""
    fresh = new_match(m.game, m.length, seed=m.seed)
    for seat, action in m.log:
        if (fresh.phase == "play" and not fresh.tricks and not fresh.trick
                and len(fresh.history) == round_index):
            return [fresh.view(s)["hand"] for s in range(4)]
        fresh.apply(seat, action)
    raise AssertionError("round not found")


def suit_line(look, suit, cards):
    ranks = sorted((c[0] for c in cards if c[1] == suit), key="AKQJT98765432".index)
    return f"{look.suit(suit)} " + (" ".join(look.rank(r) for r in ranks) if ranks else "—")


async def open_replay(pilot, app, match_id):
    await pilot.press("r")
    await pilot.pause()
    lst = app.screen
    assert isinstance(lst, ReplayListScreen)
    ids = [r["id"] for r in lst.rows]
    for _ in range(ids.index(match_id)):
        await pilot.press("down")
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(app.screen, ReplayScreen) and app.screen.match_id == match_id
    return app.screen


async def test_replay_steps_through_tricks_with_every_hand_open(room):
    est = room["est"]
    app = app_for(room)
    look = Look()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_replay(pilot, app, room["est_id"])
        head = lambda: screen.query_one("#rp-head").plain          # noqa: E731
        board = lambda: screen.query_one("#rp-board").plain.split("\n")  # noqa: E731
        panel = lambda: screen.query_one("#rp-round").plain         # noqa: E731
        assert "Round 1 (1 of 13) · the deal" in head()
        assert "step 1/" in head()
        # the deal: all four hands as dealt (checked against a fresh replay of the log)
        hands = dealt_hands(est, 0)
        trump = est.history[0]["trump"]
        rows = board()
        blocks = {0: [r[SIDE:SIDE + MID] for r in rows[11:15]],      # south, centre column
                  2: [r[SIDE:SIDE + MID] for r in rows[1:5]],        # north
                  3: [r[1:SIDE] for r in rows[6:10]],                # west
                  1: [r[SIDE + MID:] for r in rows[6:10]]}           # east
        for seat in range(4):
            want = [suit_line(look, s, hands[seat]) for s in suit_order(trump)]
            assert [b.strip() for b in blocks[seat]] == want, seat
        # three steps: the third trick of the first round, its four cards in the middle
        for _ in range(3):
            await pilot.press("right")
        await pilot.pause()
        trick = est.history[0]["tricks"][2]
        cards = {c["seat"]: look.card_str(c["card"]) for c in trick["cards"]}
        assert "trick 3 of 13" in head()
        rows = board()
        mid = [r[SIDE:SIDE + MID] for r in rows[5:10]]
        assert mid[1].strip() == cards[2]                        # north's card
        assert mid[2].split()[0] == cards[3] and mid[2].split()[-1] == cards[1]
        assert mid[3].strip() == cards[0]                        # south's card
        corner = "\n".join(r[SIDE + MID:] for r in rows[0:5])
        assert "Trick 3 of 13" in corner
        assert f"won by {['ana', 'ben', 'cat', 'dee'][trick['winner']]}" in corner
        taken = [0, 0, 0, 0]
        for t in est.history[0]["tricks"][:3]:
            taken[t["winner"]] += 1
        ana = next(x for x in panel().splitlines() if x.startswith(" ana"))
        assert ana.split()[2] == str(taken[0])
        # n / p step too, and never past the ends
        await pilot.press("p")
        assert "trick 2 of 13" in head()
        await pilot.press("n")
        assert "trick 3 of 13" in head()
        # last position: the final trick and the final round's summary with the totals
        await pilot.press("end")
        await pilot.pause()
        assert "Round 13 (13 of 13) · trick 13 of 13" in head()
        n = len(screen.model.positions)
        assert f"step {n}/{n}" in head()
        assert "Round 13 summary" in panel()
        for seat, name in enumerate(["ana", "ben", "cat", "dee"]):
            line = next(x for x in panel().splitlines() if x.startswith(f" {name}"))
            assert line.rstrip().endswith(f"total {est.totals[seat]}")
        await pilot.press("right")
        assert f"step {n}/{n}" in head()
        # round by round, and the first position
        await pilot.press("pageup")
        assert "Round 13 (13 of 13) · the deal" in head()
        await pilot.press("pageup")
        assert "Round 12 (12 of 13) · the deal" in head()
        await pilot.press("pagedown")
        assert "Round 13 (13 of 13) · the deal" in head()
        await pilot.press("home")
        assert "Round 1 (1 of 13) · the deal" in head() and "step 1/" in head()
        await pilot.press("left")
        assert "step 1/" in head()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ReplayListScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)


async def test_replay_list_and_a_tarneeb_replay(room):
    tar = room["tar"]
    app = app_for(room)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_replay(pilot, app, room["tar_id"])
        lst_rows = app.screen_stack[-2].query_one("#replays-list").plain.splitlines()
        assert any("Tarneeb 41" in x and "zed°" in x for x in lst_rows)
        assert any("Estimation" in x and "13 rounds" in x for x in lst_rows)
        played = tar.history                     # void hands included
        assert len(screen.model.rounds) == len(played)
        await pilot.press("end")
        head = screen.query_one("#rp-head").plain
        assert f"({len(played)} of {len(played)})" in head


async def test_keys_are_in_the_help_and_the_footer(room):
    app = app_for(room)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        footer = footer_of(app.screen)
        assert "profile" in footer and len(footer) <= 80
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        content = app.screen.query_one("#help-text").content
        text = str(getattr(content, "plain", content))
        assert "your profile" in text and "leaderboard" in text and "PgUp PgDn" in text
        assert "join a private table by its code" in text
        assert "take a computer player's seat" in text


async def test_void_hands_abandoned_matches_and_a_small_window(tmp_path):
    """Tarneeb hands voided by low declarations show their declarations; a match
    abandoned before any round ended says so; below 80×24 the screen asks for more."""
    store = Store(tmp_path / "d.db")
    tar = None
    for seed in range(1, 60):              # random declarations: some hand goes void
        m = new_match("tarneeb41", None, seed=seed)
        rnd = random.Random(seed)
        while m.to_act is not None and len(m.history) < 3:
            legal = m.legal_actions(m.to_act)
            low = m.phase == "declare" and rnd.random() < 0.7
            m.apply(m.to_act, legal[0] if low else rnd.choice(legal))
        if any(r.get("void") for r in m.history):
            tar = m
            break
    assert tar is not None
    void_at = next(i for i, r in enumerate(tar.history) if r.get("void"))
    mid = keep(store, tar, ("ana", "ben", "cat", "dee"), finish=False)
    store.abandon(mid)
    early = new_match("estimation", 13, seed=2)
    early.apply(early.to_act, early.legal_actions(early.to_act)[0])
    eid = keep(store, early, ("ana", "ben", "cat", "dee"), finish=False)
    store.abandon(eid)
    app = app_for({"store": store})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await pilot.pause()
        text = app.screen.query_one("#replays-list").plain
        assert text.count("abandoned") == 2
        app.push_screen(ReplayScreen(mid))
        await pilot.pause()
        screen = app.screen
        assert len(screen.model.rounds) == len(tar.history)
        for _ in range(void_at):
            await pilot.press("pagedown")
        assert "void hand" in screen.query_one("#rp-head").plain
        assert "void" in screen.query_one("#rp-board").plain
        decl = tar.history[void_at]["declarations"]
        rows = screen.query_one("#rp-round").plain.splitlines()[1:]
        assert [int(r.split()[-1]) for r in rows] == decl
        assert "abandoned" in screen.query_one("#rp-head").plain
        await pilot.press("right")                     # a void hand has no tricks to step
        assert f"({void_at + 2} of {len(tar.history)})" in screen.query_one("#rp-head").plain
        await pilot.press("escape")
        app.push_screen(ReplayScreen(eid))
        await pilot.pause()
        assert "No complete round" in app.screen.query_one("#rp-board").plain
    app = app_for({"store": store})
    async with app.run_test(size=(60, 20)) as pilot:     # a phone's size: drawn (issue 26)
        await pilot.press("i")
        await pilot.pause()
        assert not app.screen.query_one("#too-small").display
        assert app.screen.query_one("#body").display
        await pilot.resize_terminal(39, 20)               # under 40×20: asked to enlarge
        await pilot.pause()
        assert app.screen.query_one("#too-small").display
        assert not app.screen.query_one("#body").display
        assert "40×20" in app.screen.query_one("#too-small").render().plain


# ------------------------------------------- private tables and computer seats

SLOW = 3600.0      # computer players never move by themselves here: the test moves them


def step(table):
    seat = table.match.to_act
    table.runner.check_and_apply(seat, first_legal(table.match, seat), "bot")


def board_text(app):
    board = app.screen.query_one("Board")
    return "\n".join(board.render_line(y).text for y in range(board.size.height))


LOBBY_PARTS = {"#lobby-list": "list", "#lobby-note": "note", "#lobby-status": "status"}


def lines_text(screen, selector):
    """A block of one-line widgets; in the lobby (one Board draws it all) a part."""
    if selector in LOBBY_PARTS:
        return "\n".join(line.plain for line in screen.lines(LOBBY_PARTS[selector]))
    return "\n".join(line.plain for line in screen.query_one(selector).query("Line"))


def footer_of(screen) -> str:
    if isinstance(screen, LobbyScreen):
        return screen.footer().plain
    return screen.query_one("#keys").render().plain


async def type_code(pilot, text):
    await pilot.press(*[{" ": "space", "-": "minus"}.get(ch, ch) for ch in text], "enter")
    await pilot.pause()


def private_table(reg, bots=False):
    owner = Member("ana", "key:x:ana")
    table = reg.create("estimation", 13, private=True)
    table.sit(owner, 0)
    if bots:
        table.fill_with_bots(owner, [1, 2, 3], "easy")
    return table


async def test_join_by_code_wrong_changes_nothing_right_sits_down():
    reg = Registry(bot_pause=SLOW)
    table = private_table(reg)
    app = LammaApp(reg, "ben", "key:x:ben")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "No tables yet" in lines_text(app.screen, "#lobby-list")    # private: hidden
        await pilot.press("j")
        await pilot.pause()
        assert isinstance(app.screen, JoinCodeScreen)
        wrong = next(c * 8 for c in CODE_ALPHABET if c * 8 != table.code)
        await type_code(pilot, wrong)
        assert isinstance(app.screen, JoinCodeScreen)
        assert "Wrong code" in lines_text(app.screen, "#code-status")
        assert app.member.table is None and [s.kind for s in table.seats][1:] == ["empty"] * 3
        await type_code(pilot, code_label(table.code).lower())
        assert app.screen.__class__.__name__ == "TableScreen"
        assert app.member.table is table and app.member.seat == 1
        text = board_text(app)
        assert "You sit in seat 1 at table #1." in text
        assert f"private, code {code_label(table.code)}" in text     # on the waiting table


async def test_too_many_wrong_codes_refuse_even_the_right_one():
    reg = Registry(bot_pause=SLOW)
    table = private_table(reg)
    app = LammaApp(reg, "ben", "key:x:ben")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("j")
        await pilot.pause()
        box = app.screen.query_one("#code-input")
        for _ in range(CODE_TRIES):
            box.value = "2222-2222"             # as typed (typing each key is slow)
            await pilot.press("enter")
        await type_code(pilot, table.code)
        assert "Too many wrong codes" in lines_text(app.screen, "#code-status")
        assert app.member.table is None
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)


async def test_code_to_a_full_table_offers_a_computer_seat_or_watching():
    reg = Registry(bot_pause=SLOW)
    table = private_table(reg, bots=True)
    app = LammaApp(reg, "ben", "key:x:ben")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("j")
        await pilot.pause()
        await type_code(pilot, table.code)
        screen = app.screen
        assert isinstance(screen, TakeSeatScreen) and screen.full
        offer = lines_text(screen, "#take-text")
        assert "full" in offer and "Bot-2" in offer and "ana" not in offer
        await pilot.press("escape")
        await pilot.pause()
        assert app.member in table.watchers and app.member.seat is None
        text = board_text(app)
        assert "Table #1 is full: you are watching." in text
        # the table stays in this person's lobby (they typed its code) for t to take a seat
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen) and app.member.table is None
        rows = lines_text(app.screen, "#lobby-list").splitlines()
        assert rows[1].split()[:2] == ["1", "Estimation"]
        assert "take a seat" in footer_of(app.screen)


async def test_creator_sees_the_code_at_the_table_and_in_the_lobby():
    reg = Registry(bot_pause=SLOW)
    app = LammaApp(reg, "ana", "key:x:ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        await pilot.pause()
        # Visibility: private; Empty seats: wait for people
        await pilot.press("down", "down", "down", "right", "down", "right", "enter")
        await pilot.pause()
        table = app.member.table
        assert table.private and table.status == "waiting"
        assert f"private, code {code_label(table.code)}" in board_text(app)
        await pilot.press("b")                                # computer players: it starts
        await pilot.pause()
        assert table.status == "playing"
        app.screen.redraw()
        await pilot.pause()
        assert f"Private table · code {code_label(table.code)}" in board_text(app)
        lobby = app.screen_stack[-2]
        lobby.lobby_changed()
        note = lines_text(lobby, "#lobby-note")
        assert f"Your private table #{table.id}: code {code_label(table.code)}" in note


async def test_take_a_computer_seat_mid_round_then_at_the_round_end():
    reg = Registry(bot_pause=SLOW)
    ana = Member("ana", "key:x:ana")
    table = reg.create("estimation", 13)
    table.sit(ana, 0)
    table.fill_with_bots(ana, [1, 2, 3], "easy")
    while table.between_rounds():
        step(table)
    app = LammaApp(reg, "ben", "key:x:ben")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        footer = footer_of(app.screen)
        assert "take a seat" in footer and len(footer) <= 80
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, TakeSeatScreen)
        assert "no longer counts for level points" in lines_text(app.screen, "#take-text")
        await pilot.press("0")                                 # ana's: not a computer's
        await pilot.pause()
        assert "not a computer player's" in lines_text(app.screen, "#take-status")
        await pilot.press("2")
        await pilot.pause()
        assert app.screen.__class__.__name__ == "TableScreen"
        assert table.request_of(app.member) == 2 and table.seats[2].kind == "bot"
        assert "You take seat 2 (Bot-3) when this round ends." in board_text(app)
        rounds = len(table.match.history)
        while len(table.match.history) == rounds:
            step(table)
        await pilot.pause()
        app.screen.redraw()
        await pilot.pause()
        assert app.member.seat == 2 and table.seats[2].name == "ben"
        text = board_text(app)
        assert "Seat 2 is yours now." in text and "ben (you)" in text
        assert "ben takes Bot-3's seat" in text
