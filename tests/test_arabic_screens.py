"""Every screen in Arabic (issue 14): a snapshot harness with nothing stored.

Each scenario below brings a Pilot app (Look(language="ar")) to one screen — the
lobby, the new-table form, the table in each phase of each game, the score sheet,
profile, leaderboard, replays, options, help per game, the text-mode test line,
confirm dialogs, the command line, seat and code entry, notices and errors — and the
screen is read as the terminal would show it, at 80×24 and 120×36, in both text
modes ("shaped": the server joins and orders Arabic; "logical": the terminal does).
The checks (tests/arabic_checks.py): every line of every text widget fits its width,
Arabic is on the screen, Arabic is in the right form for the mode, and no English is
left (runs of English words; see arabic_checks for the heuristic). A failure lists
each wrong row of the named screen, then the whole screen.

Keys are pressed as an Arabic keyboard sends them wherever a letter does something
(ى for n, ق for r, ؟ for ?, Arabic-Indic digits …): they act as their Latin twins.

Two tests drive the real server over SSH with a PTY read by pyte: the lobby and a
table in Arabic, in each mode.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from arabic_checks import has_arabic, screen_problems
from cuts import cut_marks
from rich.cells import cell_len
from rich.text import Text
from stacked import act_until as drive
from stacked import quick_policy as first_legal
from stacked import random_match
from test_tui_lobby_extras import keep
from test_tui_table import redraw
from textual import events
from textual.widgets import Input

from engine import new_match
from engine.room import Registry
from engine.room import Session as Member
from server.persistence import TableStore
from server.store import Store
from tui.app import LammaApp
from tui.cards import Look
from tui.i18n import ARABIC_KEYS, Speech
from tui.screens.textmode import TextModeScreen
from tui.widgets.board import Board
from tui.widgets.lines import Line

pytestmark = pytest.mark.slow      # every screen in Arabic, both modes, two sizes

SIZES = [(80, 24), (120, 36)]
MODES = ["shaped", "logical"]
SLOW = 3600.0            # computer players that never move by themselves
SEED = 5                 # the tables' deals: every run draws the same screens
# Players' names carry a digit: never mistaken for English words by the checks.
ME, P1, P2, P3, GUEST = "Nour7", "Sami2", "Rana3", "Hadi4", "Zaid1"
CHAT = "مرحبا يا جماعة"

TWIN = {latin: ar for ar, latin in ARABIC_KEYS.items()
        if len(ar) == 1 and "\u0621" <= ar <= "\u064a"}
TWIN.update({str(d): chr(0x0660 + d) for d in range(10)})
TWIN["?"] = "؟"
TWIN["/"] = "ظ"


# ------------------------------------------------------------------ reading
def screen_rows(app: LammaApp) -> list[str]:
    """The screen's rows of cells as text: what ``App.export_screenshot`` renders
    (a modal screen over what it covers), read as text instead of drawn as SVG. Like
    export_screenshot it asks Textual's compositor (a private: tests only)."""
    update = app.screen._compositor.render_update(
        full=True, screen_stack=app._background_screens)
    return ["".join(strip.text for strip in line) for line in update.strips]


def overflows(app: LammaApp) -> list[str]:
    """Lines longer than the widget drawing them: the terminal would lose their end
    (for a right-to-left line, its beginning). Trailing blanks do not count."""
    out = []
    for w in app.screen.query("*"):
        if not w.display or w.region.area == 0:
            continue
        width = w.content_size.width
        if isinstance(w, Board):       # each line from its column (the lobby's centred)
            texts = [" " * x + t.plain for t, x in zip(getattr(w, "_objs", []),
                                                       getattr(w, "_xs", []), strict=True)
                     if t is not None]
        elif isinstance(w, Line):
            texts = w.plain.split("\n")
        else:
            continue
        where = f"{type(w).__name__}#{w.id}" if w.id else type(w).__name__
        for i, s in enumerate(texts):
            if cell_len(s.rstrip()) > width:
                out.append(f"{where} line {i}: {cell_len(s.rstrip())} cells > {width}: "
                           f"{s.rstrip()!r}")
    return out


# ---------------------------------------------------------------- scenarios
Go = Callable[[Any, LammaApp], Awaitable[None]]


@dataclass
class Scenario:
    name: str
    go: Go
    prep: Callable[[Registry], None] | None = None     # the room before the app starts
    records: bool = False         # a store holding finished matches
    guest: bool = False
    first_time: bool = False      # no text mode chosen yet: the test line comes first
    pages: bool = False           # a scrolling text: every page is checked
    modes: tuple[str, ...] = tuple(MODES)
    # rows that show Arabic in the other mode on purpose (the test line's two lines)
    skip_script: Callable[[str], bool] = field(default=lambda row: False)
    # English beside the Arabic on purpose: the test line is shown before the player has
    # said how Arabic reads on their terminal, so its instructions come in both.
    bilingual: bool = False


SCENARIOS: list[Scenario] = []


def scenario(name: str, **kw: Any) -> Callable[[Go], Go]:
    def register(go: Go) -> Go:
        SCENARIOS.append(Scenario(name, go, **kw))
        return go
    return register


async def press(pilot, *keys: str) -> None:
    """Keys as the Arabic layout sends them: a Latin letter, digit, ? or / is sent as
    its Arabic twin (b as the two-character لا key); names (enter, down …) as they are."""
    for k in keys:
        if k == "b" or k == "?":
            # Pilot names no character for these (a two-character key; ؟ has no Unicode
            # name Pilot can look up): sent as the SSH driver sends them.
            twin = "لا" if k == "b" else TWIN[k]
            pilot.app.post_message(events.Key(twin, twin))
            await pilot.pause()
        elif len(k) == 1 and k in TWIN:
            await pilot.press(TWIN[k])
        else:
            await pilot.press(k)
    await pilot.pause()


def others(*names: str) -> list[Member]:
    return [Member(n, f"key:x:{n}") for n in names]


def caller_zero(m, seat):
    """Seat 0 bids the lowest it may, the others pass: seat 0 wins the auction."""
    legal = m.legal_actions(seat)
    bids = [a for a in legal if a["type"] == "bid"]
    if seat == 0 and bids and m.view(0)["auction"]["bid"] is None:
        return min(bids, key=lambda a: a["n"])
    return first_legal(m, seat)


def dash_two(m, seat):
    """Seat 2 takes the dash call."""
    if seat == 2 and {"type": "dash", "take": True} in m.legal_actions(seat):
        return {"type": "dash", "take": True}
    return first_legal(m, seat)


def void_tarneeb(m, seat):
    """Everyone declares as little as possible: the hand is void (under 11)."""
    decl = [a for a in m.legal_actions(seat) if a["type"] == "declare"]
    return min(decl, key=lambda a: a["n"]) if decl else first_legal(m, seat)


async def at_table(pilot, app, game: str, length=None, *, watch: bool = False,
                   private: bool = False, alone: bool = False, seed: int = SEED):
    """A table of ``game`` with the app's player in seat 0 (or watching) and people
    who only move when the test moves them; the deal comes from ``seed``."""
    reg = app.registry
    table = reg.create(game, length, private=private, creator=app.member)
    table.seed = seed
    people = others(P1, P2, P3) if not watch else others(GUEST, P1, P2, P3)
    members: dict[int, Member] = {}
    if not watch:
        table.sit(app.member, 0)
        members[0] = app.member
    if not alone:
        for mem in people:
            members[table.sit(mem)] = mem
    if watch:
        table.watch(app.member)
    app.open_table()
    await pilot.pause()
    return table, members


def my_turn(phase: str):
    return lambda v: v["to_act"] == 0 and v["phase"] == phase


def summary(v) -> bool:
    return bool(v["history"]) and v["phase"] != "play" and not v["tricks"]


async def table_phase(pilot, app, game, length, stop, policy=first_legal, **kw):
    table, members = await at_table(pilot, app, game, length, **kw)
    v = drive(table, members, stop, policy, seat=None if kw.get("watch") else 0)
    await redraw(pilot, app)
    return table, members, v


# --- the text-mode test line
def _test_line_row(row: str) -> bool:
    return "السطر" in row or Speech("ar", "shaped").show("السطر") in row


@scenario("textmode-first-time", first_time=True, modes=("shaped",), skip_script=_test_line_row,
          bilingual=True)
async def _(pilot, app):
    assert isinstance(app.screen, TextModeScreen)


@scenario("textmode-from-options", skip_script=_test_line_row, bilingual=True)
async def _(pilot, app):
    app.push_screen(TextModeScreen())


# --- the lobby
@scenario("lobby-empty")
async def _(pilot, app):
    pass


@scenario("lobby-error")
async def _(pilot, app):
    await press(pilot, "enter")                  # no table to sit at


def some_tables(reg: Registry) -> None:
    """A waiting Estimation table, a Tarneeb match with computer players and someone
    watching it, a finished-looking Kotshina table."""
    a = reg.create("estimation", 13)
    a.sit(others(P1)[0])
    b = reg.create("tarneeb41")
    owner = others(P2)[0]
    b.sit(owner, 0)
    b.fill_with_bots(owner, [1, 2, 3])
    b.watch(others(P3)[0])
    c = reg.create("estimation-kotshina", "mini", timer=30)
    c.sit(others(GUEST)[0])


@scenario("lobby-tables", prep=some_tables)
async def _(pilot, app):
    pass


@scenario("lobby-tables-take-keys", prep=some_tables)
async def _(pilot, app):
    await press(pilot, "down")                   # the match with computer players


@scenario("lobby-private-note")
async def _(pilot, app):
    table = app.registry.create("estimation-kotshina", "micro", private=True,
                                creator=app.member)
    table.sit(app.member, 0)
    app.screen.lobby_changed()


@scenario("new-table")
async def _(pilot, app):
    await press(pilot, "n")


@scenario("new-table-every-choice")
async def _(pilot, app):
    await press(pilot, "n", "right", "right", "down", "down", "right", "down", "right",
                "down", "right")


@scenario("code-entry")
async def _(pilot, app):
    await press(pilot, "j")


@scenario("code-wrong")
async def _(pilot, app):
    await press(pilot, "j")
    app.screen.query_one(Input).value = "2222-2222"
    await press(pilot, "enter")


def private_waiting(reg: Registry) -> None:
    t = reg.create("estimation", 13, private=True)
    t.sit(others(P1)[0], 0)


@scenario("code-right-notice-at-the-table", prep=private_waiting)
async def _(pilot, app):
    table = next(iter(app.registry.tables.values()))
    await press(pilot, "j")
    app.screen.query_one(Input).value = table.code
    await press(pilot, "enter")


def private_full(reg: Registry) -> None:
    t = reg.create("estimation", 13, private=True)
    owner = others(P1)[0]
    t.sit(owner, 0)
    t.fill_with_bots(owner, [1, 2, 3])


@scenario("code-to-a-full-table", prep=private_full)
async def _(pilot, app):
    table = next(iter(app.registry.tables.values()))
    await press(pilot, "j")
    app.screen.query_one(Input).value = table.code
    await press(pilot, "enter")


@scenario("take-seat", prep=some_tables)
async def _(pilot, app):
    await press(pilot, "down", "t")


@scenario("take-seat-error", prep=some_tables)
async def _(pilot, app):
    await press(pilot, "down", "t", "0")        # seat 0 is a person's


@scenario("take-seat-watching-notice", prep=private_full)
async def _(pilot, app):
    table = next(iter(app.registry.tables.values()))
    await press(pilot, "j")
    app.screen.query_one(Input).value = table.code
    await press(pilot, "enter", "escape")        # no seat taken: watching, said so


@scenario("command-line")
async def _(pilot, app):
    await press(pilot, "/")


@scenario("command-help")
async def _(pilot, app):
    await press(pilot, "/")
    app.screen.query_one(Input).value = "/help"
    await press(pilot, "enter")


@scenario("command-refused")
async def _(pilot, app):
    await press(pilot, "/")
    app.screen.query_one(Input).value = f"/kick {P1}"
    await press(pilot, "enter")


@scenario("help-lobby", pages=True)
async def _(pilot, app):
    await press(pilot, "?")


# --- records: profile, leaderboard, replays
@scenario("profile", records=True)
async def _(pilot, app):
    await press(pilot, "i")


@scenario("profile-guest", records=True, guest=True)
async def _(pilot, app):
    await press(pilot, "i")


@scenario("leaderboard", records=True)
async def _(pilot, app):
    await press(pilot, "b")


@scenario("replays", records=True)
async def _(pilot, app):
    await press(pilot, "r")


@scenario("replays-without-records")
async def _(pilot, app):
    await press(pilot, "r")


async def open_replay(pilot, app, game: str) -> None:
    await press(pilot, "r")
    ids = [r["game"] for r in app.screen.rows]
    for _ in range(ids.index(game)):
        await press(pilot, "down")
    await press(pilot, "enter")


@scenario("replay-estimation-trick", records=True)
async def _(pilot, app):
    await open_replay(pilot, app, "estimation")
    await press(pilot, "right", "right", "right")


@scenario("replay-estimation-deal", records=True)
async def _(pilot, app):
    await open_replay(pilot, app, "estimation")


@scenario("replay-estimation-end", records=True)
async def _(pilot, app):
    await open_replay(pilot, app, "estimation")
    await press(pilot, "end")


@scenario("replay-tarneeb", records=True)
async def _(pilot, app):
    await open_replay(pilot, app, "tarneeb41")
    await press(pilot, "right", "right")


# --- a round's review (issue 29): a decision at a trick, the list of the others
@scenario("review")
async def _(pilot, app):
    from reviewshow import open_review
    await open_review(app, pilot, [ME, P1, P2, P3])


# --- the table: Estimation
@scenario("options")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation", 13, my_turn("auction"))
    await press(pilot, "o")


@scenario("estimation-waiting-private")
async def _(pilot, app):
    await at_table(pilot, app, "estimation", 13, private=True, alone=True)
    await redraw(pilot, app)


@scenario("estimation-dash-offer")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation", 13, my_turn("dash"))


@scenario("estimation-auction")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation", 13, my_turn("auction"))


@scenario("estimation-auction-with")
async def _(pilot, app):
    def one_bids(m, seat):
        bids = [a for a in m.legal_actions(seat) if a["type"] == "bid"]
        if seat != 0 and bids and m.view(seat)["auction"]["bid"] is None:
            return min(bids, key=lambda a: a["n"])
        return first_legal(m, seat)
    await table_phase(pilot, app, "estimation", 13,
                      lambda v: my_turn("auction")(v) and v["auction"]["bid"] is not None,
                      one_bids)


@scenario("estimation-auction-refused-number")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation", 13, my_turn("auction"))
    await press(pilot, "2")                      # no bid of 2: said why


@scenario("estimation-call")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation", 13, my_turn("call"), caller_zero)


@scenario("estimation-declare")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation", 13, my_turn("declare"))


@scenario("estimation-others-declare")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation", 13,
                      lambda v: v["phase"] == "declare" and v["to_act"] != 0)


@scenario("estimation-play")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation", 13,
                      lambda v: my_turn("play")(v) and bool(v["trick"]))


@scenario("estimation-play-with-a-dash-caller")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation", 13,
                      lambda v: my_turn("play")(v) and bool(v["trick"]), dash_two)


@scenario("estimation-play-card-not-held")
async def _(pilot, app):
    _, _, v = await table_phase(pilot, app, "estimation", 13,
                                lambda v: my_turn("play")(v) and not v["trick"])
    card = next(r + s for s in "SHDC" for r in "AKQJ98765432" if r + s not in v["hand"])
    await press(pilot, card[0].lower(), card[1].lower())


@scenario("estimation-others-play")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation", 13,
                      lambda v: v["phase"] == "play" and v["to_act"] != 0
                      and bool(v["tricks"]) and bool(v["trick"]))


@scenario("estimation-round-summary")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation", 13, summary)


@scenario("estimation-round-summary-with-a-caller")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation", 13, summary, caller_zero)


@scenario("estimation-score-sheet")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation", 13,
                      lambda v: len(v["history"]) >= 2 and v["to_act"] == 0)
    await press(pilot, "r")


@scenario("estimation-match-over")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation", 13, lambda v: v["phase"] == "over")


@scenario("estimation-leave-confirm")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation", 13, my_turn("auction"))
    await press(pilot, "q")


@scenario("estimation-chat")
async def _(pilot, app):
    table, members, _ = await table_phase(pilot, app, "estimation", 13, my_turn("auction"))
    table.say(members[1], CHAT)
    await pilot.pause()
    await press(pilot, "/")                      # the chat line opens


@scenario("estimation-seat-notice")
async def _(pilot, app):
    table, _, _ = await table_phase(pilot, app, "estimation", 13, my_turn("declare"))
    app.member.seat_granted(table, 0)
    await pilot.pause()


@scenario("estimation-watching")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation", 13,
                      lambda v: v["phase"] == "play" and bool(v["trick"]), watch=True)


@scenario("estimation-help", pages=True)
async def _(pilot, app):
    await table_phase(pilot, app, "estimation", 13, my_turn("auction"))
    await press(pilot, "?")


# --- the table: Estimation, calculator scoring (micro: the five fixed rounds)
@scenario("kotshina-declare")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation-kotshina", "micro", my_turn("declare"))


@scenario("kotshina-play")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation-kotshina", "micro",
                      lambda v: my_turn("play")(v) and bool(v["trick"]))


@scenario("kotshina-auction-round")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation-kotshina", "mini", my_turn("auction"))


@scenario("kotshina-round-summary")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation-kotshina", "micro", summary)


def saayda_seed() -> int:
    """A seed whose first Kotshina round, played as the scenarios play, is a Sa'ayda
    (all four miss: the next round counts double)."""
    for seed in range(200):
        m = new_match("estimation-kotshina", "micro", seed=seed)
        while not m.history:
            m.apply(m.to_act, first_legal(m, m.to_act))
        if m.history[0].get("saayda"):
            return seed
    raise AssertionError("no Sa'ayda in 200 deals")


@scenario("kotshina-saayda-summary")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation-kotshina", "micro", summary,
                      seed=saayda_seed())


@scenario("kotshina-match-over")
async def _(pilot, app):
    await table_phase(pilot, app, "estimation-kotshina", "micro",
                      lambda v: v["phase"] == "over")


@scenario("kotshina-help", pages=True)
async def _(pilot, app):
    await table_phase(pilot, app, "estimation-kotshina", "micro", my_turn("declare"))
    await press(pilot, "?")


# --- the table: Tarneeb 41
@scenario("tarneeb-declare")
async def _(pilot, app):
    await table_phase(pilot, app, "tarneeb41", None, my_turn("declare"))


@scenario("tarneeb-play")
async def _(pilot, app):
    await table_phase(pilot, app, "tarneeb41", None,
                      lambda v: my_turn("play")(v) and bool(v["trick"]))


@scenario("tarneeb-round-summary")
async def _(pilot, app):
    await table_phase(pilot, app, "tarneeb41", None, summary)


@scenario("tarneeb-void-hand")
async def _(pilot, app):
    await table_phase(pilot, app, "tarneeb41", None, summary, void_tarneeb)


@scenario("tarneeb-score-sheet")
async def _(pilot, app):
    await table_phase(pilot, app, "tarneeb41", None,
                      lambda v: len(v["history"]) >= 2 and v["to_act"] == 0)
    await press(pilot, "r")


@scenario("tarneeb-match-over")
async def _(pilot, app):
    rng = random.Random(7)

    def to_the_end(m, seat):
        """As random_match: T-25's declarations (so the match ends), random cards."""
        if m.phase == "declare":
            return m.auto_action(seat)
        return rng.choice(m.legal_actions(seat))
    await table_phase(pilot, app, "tarneeb41", None, lambda v: v["phase"] == "over",
                      to_the_end)


@scenario("tarneeb-leave-confirm")
async def _(pilot, app):
    await table_phase(pilot, app, "tarneeb41", None, my_turn("declare"))
    await press(pilot, "x")


@scenario("tarneeb-help", pages=True)
async def _(pilot, app):
    await table_phase(pilot, app, "tarneeb41", None, my_turn("declare"))
    await press(pilot, "?")


# ------------------------------------------------------------------- tests


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A store with two finished matches: Estimation (13 rounds) of four people, then
    Tarneeb 41 with a computer player and a guest."""
    store = Store(tmp_path_factory.mktemp("arabic") / "lamma.db")
    est = next(m for m in (random_match("estimation", 13, seed) for seed in range(1, 40))
               if not m.result["draw"])
    keep(store, est, (ME, P1, P2, P3))
    keep(store, random_match("tarneeb41", None, 4), (ME, None, f"guest:{GUEST}", P3))
    return store


def describe(sc: Scenario, size, mode: str, app: LammaApp, rows: list[str],
             problems: list[str]) -> str:
    head = (f"{sc.name} at {size[0]}×{size[1]}, {mode}: {type(app.screen).__name__} "
            f"has {len(problems)} problem(s)")
    return "\n".join([head, *("  " + p for p in problems), "--- the screen ---",
                      *(f"{y:>2}|{r.rstrip()}" for y, r in enumerate(rows))])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("sc", SCENARIOS, ids=lambda sc: sc.name)
async def test_every_screen_in_arabic_fits_and_says_it_in_arabic(sc, size, mode, finished):
    if mode not in sc.modes:
        pytest.skip(f"{sc.name} is shown before a mode is chosen")
    store = TableStore(finished) if sc.records else None
    reg = Registry(store=store, bot_pause=SLOW, trick_pause=0.0)
    if sc.prep is not None:
        sc.prep(reg)
    name = GUEST if sc.guest else ME
    app = LammaApp(reg, name, f"guest:{name}" if sc.guest else f"key:x:{name}",
                   guest=sc.guest,
                   look=Look(language="ar", text_mode=None if sc.first_time else mode))
    reports = []
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await sc.go(pilot, app)
        await pilot.pause()
        seen: list[list[str]] = []
        for _page in range(12 if sc.pages else 1):
            rows = screen_rows(app)
            if rows in seen:
                break
            seen.append(rows)
            skip = [y for y, r in enumerate(rows) if sc.skip_script(r)]
            problems = (screen_problems(rows, mode, skip_script_rows=skip) + overflows(app)
                        + cut_marks(rows))      # no word or figure cut in two (issue 44)
            if sc.bilingual:
                problems = [p for p in problems if "English" not in p]
            if problems:
                reports.append(describe(sc, size, mode, app, rows, problems))
            if sc.pages:
                await pilot.press("pagedown")
                await pilot.pause()
    assert not reports, "\n\n".join(reports)


def test_the_checks_catch_what_they_are_for():
    """The harness itself: English runs, English-only rows, the wrong Arabic form."""
    shaped = Speech("ar", "shaped").show("الصالة")
    assert screen_problems([f" {shaped}  esc  Nour7 ", " 10♠ Q♥ "], "shaped") == []
    assert screen_problems([" الصالة "], "logical") == []
    found = screen_problems([f" {shaped} choose a table", " back", " الصالة"], "shaped")
    assert any("row 0: English left ['choose table']" in p for p in found)
    assert any("row 1: English and no Arabic" in p for p in found)
    assert any("row 2: unjoined Arabic" in p for p in found)
    assert any("pre-joined" in p for p in screen_problems([shaped], "logical"))
    assert screen_problems(["  Nour7  10♠"], "shaped") == ["no Arabic on the screen at all"]


async def test_the_width_check_finds_a_line_longer_than_its_widget():
    app = LammaApp(Registry(), ME, f"key:x:{ME}", look=Look(language="ar"))
    async with app.run_test(size=(80, 24)) as pilot:     # the test line: a Board
        await pilot.pause()
        board = app.screen.query_one(Board)
        board.set_lines([Text(" " * 70 + "ا" * 12), Text("x" * 80 + "   ")])
        await pilot.pause()
        assert overflows(app) == [f"Board line 0: 82 cells > 80: {' ' * 70 + 'ا' * 12!r}"]
        app.pop_screen()                          # the lobby: a Board, its lines at a column
        await pilot.pause()
        assert overflows(app) == []
        app.screen.query_one(Board).set_lines([Text("ب" * 75)], at=[10])
        await pilot.pause()
        assert [p.split(":")[1] for p in overflows(app)] == [" 85 cells > 80"]


# ---------------------------------------------------------- over real SSH
async def _pty_screen_checks(srv, name: str, key: str, mode: str) -> None:
    from test_arabic_ssh import app_of, pty, until

    c = await pty(srv, name, "ar_EG.UTF-8")
    try:
        app = await app_of(srv, name)
        await c.wait_for(Speech("ar", "shaped").show("السطر"))
        c.press(key)
        await until(lambda: type(app.screen).__name__ == "LobbyScreen", "the lobby")
        assert app.look.text_mode == mode
        await c.quiet(0.1)
        rows = list(c.screen.display)
        problems = screen_problems(rows, mode)
        assert not problems, "the lobby over SSH:\n" + "\n".join(problems + rows)
        # Quick play (ح for p), or watch the table already there (ص for w).
        c.press("ح" if not srv.registry.tables else "ص")
        await until(lambda: type(app.screen).__name__ == "TableScreen", "the table")
        await asyncio.sleep(0.1)
        await c.quiet(0.1)
        rows = list(c.screen.display)
        problems = screen_problems(rows, mode)
        assert has_arabic("\n".join(rows))
        assert not problems, "the table over SSH:\n" + "\n".join(problems + rows)
    finally:
        await c.close()


async def test_a_real_ssh_session_shows_the_lobby_and_a_table_in_arabic(room):
    """Through the SSH server and a PTY read by pyte: the lobby and the table in
    Arabic, shaped (test line answer ١), then logical (answer ٢) for a second player
    who watches that table."""
    started = time.monotonic()
    await _pty_screen_checks(room, ME, "١", "shaped")
    await _pty_screen_checks(room, P1, "٢", "logical")
    assert time.monotonic() - started < 30
