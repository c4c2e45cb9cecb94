"""Golden screens: seeded states of every phase of the three games, the round's summary,
the match's end and the lobby, in English and in Arabic (shaped), at each size the room
supports, kept as plain text in tests/golden/ and compared cell for cell.

A change to what a screen shows fails here with the lines that differ. If it is meant,
write the files again and review their diff in the commit:

    .venv/bin/python -m pytest tests/test_golden.py --update-golden

Each state is reached through the room's table, from a fixed deal (the table's seed),
with a fixed policy: seat 0 bids the lowest bid it may (so it calls), everyone else
declines the dash and passes, declarations near 3, the first legal card.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cuts import cut_marks
from stacked import quick_choice

from engine.room import Registry
from engine.room import Session as Member
from tui.app import LammaApp
from tui.cards import Look
from tui.screens import table as table_screen

GOLDEN = Path(__file__).resolve().parent / "golden"
GAMES = [("estimation", 18), ("estimation-kotshina", "micro"), ("tarneeb41", None)]
LANGUAGES = [("en", None), ("ar", "shaped")]
SIZES = [(80, 24), (120, 36)]
SEED = 5
SLOW = 3600.0           # computer players never move by themselves


def policy(m: Any, seat: int) -> dict[str, Any]:
    """Seat 0 calls in the first round (the lowest bid it may) and declares in the
    second; everyone else declines the dash, passes, declares near 3, plays the first
    legal card."""
    legal = m.legal_actions(seat)
    bids = [a for a in legal if a["type"] == "bid"]
    if seat == 0 and bids and not m.history:
        return bids[0]
    return quick_choice(legal)


def screen_text(app: LammaApp) -> str:
    """The screen as the terminal shows it, one line a row, cell for cell."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips()) + "\n"


def compare(request: pytest.FixtureRequest, name: str, text: str) -> None:
    # no word or figure cut in two, in what is written as in what is compared (issue 44)
    cuts = cut_marks(text.splitlines())
    assert not cuts, f"{name}: " + "\n".join(cuts) + "\n" + text
    path = GOLDEN / f"{name}.txt"
    if request.config.getoption("--update-golden"):
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no golden screen {path.name}: run with --update-golden"
    want = path.read_text(encoding="utf-8")
    if text != want:
        diff = [f"row {i + 1}:\n  want {w!r}\n  got  {g!r}"
                for i, (w, g) in enumerate(zip(want.splitlines(), text.splitlines(),
                                               strict=False)) if w != g]
        raise AssertionError(f"{path.name} differs from the screen:\n" + "\n".join(diff[:8]))


def new_app(language: str, mode: str | None) -> LammaApp:
    look = Look(language=language, text_mode=mode)
    return LammaApp(Registry(bot_pause=SLOW, trick_pause=0.0), "ali", "key:x:ali", look=look)


async def states(pilot: Any, app: LammaApp, game: str, length: Any,
                 seen: Callable[[str], Any]) -> None:
    """Every phase from seat 0 (each once, the first time it is seat 0's turn: the
    auction's call in the first round, a declaration in the first one it makes), the
    first round's summary, and (the calculator's micro match is short) the match's end."""
    reg = app.registry
    table = reg.create(game, length)
    table.seed = SEED
    table.sit(app.member, 0)
    members = {0: app.member}
    for i, name in ((1, "bea"), (2, "cem"), (3, "dua")):
        members[i] = Member(name, f"key:x:{name}")
        table.sit(members[i], i)
    app.open_table()
    await pilot.pause()
    m = table.match
    done: set[str] = set()
    while m.to_act is not None:
        v = m.view(0)
        if v["history"] and "summary" not in done and v["to_act"] == 0:
            done.add("summary")
            await seen("summary")
        if v["to_act"] == 0 and v["phase"] not in done:
            done.add(v["phase"])
            await seen(v["phase"])
        if game != "estimation-kotshina" and {"summary", "declare", "play"} <= done:
            return
        s = m.to_act
        table.act(members[s], policy(m, s))
    await seen("over")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("language,mode", LANGUAGES, ids=[lang for lang, _ in LANGUAGES])
@pytest.mark.parametrize("game,length", GAMES, ids=[g for g, _ in GAMES])
async def test_every_phase_of_a_game(request: pytest.FixtureRequest,
                                     monkeypatch: pytest.MonkeyPatch, game: str,
                                     length: Any, language: str, mode: str | None,
                                     size: tuple[int, int]) -> None:
    monkeypatch.setattr(table_screen, "TRICK_HOLD", 0.0)     # no trick on its way
    app = new_app(language, mode)
    shown: list[str] = []
    async with app.run_test(size=size) as pilot:

        async def seen(phase: str) -> None:
            screen = app.screen
            screen.state.notice = None          # where one landed: shown for seconds
            screen.redraw()
            await pilot.pause()
            shown.append(phase)
            compare(request, f"{game}-{phase}-{language}-{size[0]}x{size[1]}",
                    screen_text(app))
        await states(pilot, app, game, length, seen)
    assert {"declare", "play", "summary"} <= set(shown), shown
    if game == "estimation":
        assert {"dash", "auction", "call"} <= set(shown), shown


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("language,mode", LANGUAGES, ids=[lang for lang, _ in LANGUAGES])
async def test_the_lobby(request: pytest.FixtureRequest, language: str, mode: str | None,
                         size: tuple[int, int]) -> None:
    app = new_app(language, mode)
    reg = app.registry
    waiting = reg.create("tarneeb41", None)
    waiting.sit(Member("samir", "key:x:samir"), 0)
    ranked = reg.create("estimation", 18)
    ranked.sit(Member("mona", "key:x:mona"), 0)
    playing = reg.create("estimation", 13)
    owner = Member("sam", "key:x:sam")
    playing.sit(owner, 0)
    playing.fill_with_bots(owner, [1, 2, 3], "easy")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        compare(request, f"lobby-{language}-{size[0]}x{size[1]}", screen_text(app))


# A phone (issue 26): the compact layout at 40×20 (portrait, the smallest) and 50×32 (a
# taller portrait), a handful of the states (the auction, a declaration, a card to
# play, the round's summary) and the lobby, in English and in Arabic.
PHONE_SIZES = [(40, 20), (50, 32)]
PHONE_STATES = {"auction", "declare", "play", "summary"}


@pytest.mark.parametrize("size", PHONE_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("language,mode", LANGUAGES, ids=[lang for lang, _ in LANGUAGES])
async def test_a_phone_sees_the_key_states_of_estimation(
        request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, language: str,
        mode: str | None, size: tuple[int, int]) -> None:
    monkeypatch.setattr(table_screen, "TRICK_HOLD", 0.0)
    app = new_app(language, mode)
    shown: list[str] = []
    async with app.run_test(size=size) as pilot:

        async def seen(phase: str) -> None:
            if phase not in PHONE_STATES:
                return
            screen = app.screen
            screen.state.notice = None
            screen.redraw()
            await pilot.pause()
            shown.append(phase)
            compare(request, f"phone-estimation-{phase}-{language}-{size[0]}x{size[1]}",
                    screen_text(app))
        await states(pilot, app, "estimation", 18, seen)
    assert set(shown) == PHONE_STATES, shown


@pytest.mark.parametrize("size", PHONE_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("language,mode", LANGUAGES, ids=[lang for lang, _ in LANGUAGES])
async def test_a_phone_sees_the_lobby(request: pytest.FixtureRequest, language: str,
                                      mode: str | None, size: tuple[int, int]) -> None:
    await test_the_lobby(request, language, mode, size)


@pytest.mark.parametrize("size", PHONE_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_phone_in_ascii_and_monochrome_keeps_the_whole_hand(
        monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    """ASCII suits and no colour at a phone's size: each state shows every card of the
    hand and every seat, and asks for no larger window (no golden file: the English
    ones above show the layout)."""
    monkeypatch.setattr(table_screen, "TRICK_HOLD", 0.0)
    app = LammaApp(Registry(bot_pause=SLOW, trick_pause=0.0), "ali", "key:x:ali",
                   look=Look(unicode=False, colour=False))
    shown: list[str] = []
    async with app.run_test(size=size) as pilot:

        async def seen(phase: str) -> None:
            screen = app.screen
            screen.redraw()
            await pilot.pause()
            text = screen_text(app)
            shown.append(phase)
            assert "enlarge" not in text and "♠" not in text, text
            for card in screen.view["hand"]:
                assert app.look.card_str(card) in text, f"{phase}: {card}\n{text}"
            for name in ("ali", "bea", "cem", "dua"):
                assert name in text, f"{phase}: {name}\n{text}"
        await states(pilot, app, "estimation", 18, seen)
    assert {"auction", "declare", "play"} <= set(shown), shown
