"""The room in Arabic over real SSH (issue 14): a client whose locale is Arabic gets
the text-mode test line, then the lobby in Arabic; the choice is kept for a key's
owner (guests follow LANG each time); an English locale gets the English room; and a
whole round is played with the keys of the Arabic keyboard layout only. Screens are
read with pyte, as a terminal would show them."""

from __future__ import annotations

import asyncio
import os
import shutil
import time

import asyncssh
import pytest
from arabic_checks import LOGICAL_LETTERS, PRESENTATION_FORMS, has_arabic
from conftest import PtyClient
from procs import stop_process

from engine import replay
from tui.i18n import ARABIC_KEYS, Speech

SIZE = (80, 24)
AR = "ar_EG.UTF-8"
EN = "en_US.UTF-8"

# Latin key -> the Arabic-layout key on the same physical key (letters), and the
# Arabic-Indic digits: what an Arabic keyboard sends.
TWIN = {latin: ar for ar, latin in ARABIC_KEYS.items()
        if len(ar) == 1 and "\u0621" <= ar <= "\u064a"}
TWIN.update({str(d): chr(0x0660 + d) for d in range(10)})
# Two words of the test line ("this line reads correctly: press n"), as each mode
# sends them: joined and in visual order, or as read.
SHAPED_WORD = Speech("ar", "shaped").show("السطر")
LOGICAL_WORD = "السطر"


async def pty(srv, name: str, lang: str | None, *, keyless: bool = False,
              size=SIZE) -> PtyClient:
    """A PTY session whose client sends LANG (as OpenSSH's SendEnv LANG does)."""
    conn = await srv.connect(name, keyless=keyless)
    proc = await conn.create_process(term_type="xterm-256color", term_size=size,
                                     env={"LANG": lang} if lang else {}, encoding=None)
    client = PtyClient(conn, proc, size)
    client.name = name
    return client


async def app_of(srv, name: str, timeout: float = 5.0):
    """The session's LammaApp once its first screen is up."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for app in list(srv.room.apps):
            if app.member.name == name and not app.member.closed and app.screen_stack:
                return app
        await asyncio.sleep(0.01)
    raise AssertionError(f"no session for {name}")


async def until(cond, what, timeout: float = 5.0) -> None:
    """Wait for ``cond()``; ``what`` (a string, or a function making one when it
    fails) says what was awaited."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what() if callable(what) else what}")
        await asyncio.sleep(0.01)


async def offline(srv, name: str) -> None:
    """The session under ``name`` has ended (a guest may then take the name again)."""
    key = name.casefold()
    await until(lambda: key not in srv.room.online, f"{name}'s session to end")


def screen_name(app) -> str:
    return type(app.screen).__name__


async def answer_test_line(c: PtyClient, app, key: str = "١") -> None:
    """The test line shows the sentence both ways; ``key`` picks the first (shaped)."""
    await c.wait_for(SHAPED_WORD)
    assert screen_name(app) == "TextModeScreen"
    assert LOGICAL_WORD in c.text()            # line 2: as the terminal would order it
    c.press(key)
    await until(lambda: screen_name(app) == "LobbyScreen", "the lobby after the test line")
    assert app.look.text_mode == "shaped"
    await c.quiet(0.1)


def assert_arabic_lobby(c: PtyClient) -> None:
    rows = [r for r in c.screen.display if r.strip()]
    text = "\n".join(rows)
    assert has_arabic(rows[0]), f"the lobby's title is not Arabic:\n{text}"
    assert has_arabic(rows[-1]), f"the lobby's keys are not Arabic:\n{text}"
    assert PRESENTATION_FORMS.search(text), f"no joined Arabic letters:\n{text}"
    assert not LOGICAL_LETTERS.search(text), f"unjoined Arabic in shaped mode:\n{text}"


def assert_english_lobby(c: PtyClient) -> None:
    text = c.text()
    assert "card room" in text and not has_arabic(text), text


async def test_an_arabic_locale_gets_the_test_line_then_the_lobby_in_arabic(lamma_server):
    srv = lamma_server
    c = await pty(srv, "Nour7", AR)
    try:
        app = await app_of(srv, "Nour7")
        assert app.speech.code == "ar"
        await answer_test_line(c, app, "١")          # Arabic-Indic one acts as 1
        assert app.speech.shaped
        assert_arabic_lobby(c)
    finally:
        await c.close()


async def test_a_key_owner_keeps_arabic_and_a_guest_follows_lang(lamma_server):
    srv = lamma_server
    c = await pty(srv, "Rana3", AR)
    try:
        app = await app_of(srv, "Rana3")
        await answer_test_line(c, app, "1")
    finally:
        await c.close()
    await offline(srv, "Rana3")
    stored = srv.room.store.settings("Rana3")["look"]
    assert stored["language"] == "ar" and stored["text_mode"] == "shaped"
    # The same key again, now with an English locale: still Arabic, no test line.
    c = await pty(srv, "Rana3", EN)
    try:
        app = await app_of(srv, "Rana3")
        await until(lambda: screen_name(app) == "LobbyScreen", "the lobby")
        assert app.speech.code == "ar" and app.speech.shaped
        await c.quiet(0.1)
        assert SHAPED_WORD not in c.text()
        assert_arabic_lobby(c)
    finally:
        await c.close()
    # A guest (no key) is its connection: Arabic with an Arabic locale ...
    c = await pty(srv, "Lina5", AR, keyless=True)
    try:
        app = await app_of(srv, "Lina5")
        assert app.member.guest and app.speech.code == "ar"
        await answer_test_line(c, app)
        assert_arabic_lobby(c)
    finally:
        await c.close()
    await offline(srv, "Lina5")
    # ... and English the next time, with an English one (nothing was kept).
    c = await pty(srv, "Lina5", EN, keyless=True)
    try:
        app = await app_of(srv, "Lina5")
        assert app.speech.code == "en"
        await c.wait_for("card room")
        assert_english_lobby(c)
    finally:
        await c.close()


async def test_an_english_locale_gets_the_english_room(lamma_server):
    srv = lamma_server
    for name, env in (("Omar8", EN), ("Adam2", None)):
        c = await pty(srv, name, env)
        try:
            app = await app_of(srv, name)
            await c.wait_for("card room")
            assert screen_name(app) == "LobbyScreen" and app.speech.code == "en"
            await c.quiet(0.05)
            assert_english_lobby(c)
        finally:
            await c.close()


def card_keys(card: str, i: int) -> list[str]:
    """A card typed on the Arabic layout: rank then suit (qs → ضس); a ten as ف (t) or
    as ١٠ (1 then 0), alternately."""
    rank, suit = card[0].lower(), card[1].lower()
    if rank == "t" and i % 2:
        return [TWIN["1"], TWIN["0"], TWIN[suit]]
    return [TWIN[rank], TWIN[suit]]


@pytest.mark.slow
async def test_a_round_played_with_arabic_layout_keys_end_to_end(lamma_server):
    """One player, Arabic locale: ى (n) opens a new table, Enter creates it with three
    computer players, and the whole first round is played with Arabic-layout keys
    (ى declines the dash, ح passes, Arabic-Indic digits declare, cards are typed as
    rank and suit letters), until the round is scored and stored."""
    srv = lamma_server
    name = "Hala6"
    c = await pty(srv, name, AR)
    try:
        app = await app_of(srv, name)
        await answer_test_line(c, app)
        c.press(TWIN["n"])                                   # ى: new table
        await until(lambda: screen_name(app) == "CreateScreen", "the new-table screen")
        c.press("enter")                                     # Estimation, computer players
        await until(lambda: app.member.table is not None
                    and app.member.table.match is not None, "the match to start")
        table = app.member.table
        m = table.match
        seat = app.member.seat
        assert table.game == "estimation" and all(
            s.kind == "bot" for i, s in enumerate(table.seats) if i != seat)
        typed: list[str] = []
        cards = 0
        deadline = time.monotonic() + 25
        while not m.history:
            assert time.monotonic() < deadline, f"the round did not finish:\n{c.text()}"
            # the turn as shown (committed, then drawn), not the engine's, which runs ahead
            shown = table.view(seat)
            if m.to_act != seat or shown is None or shown.get("to_act") != seat:
                await asyncio.sleep(0.005)
                continue
            await c.quiet(0.02)
            legal = m.legal_actions(seat)
            types = {a["type"] for a in legal}
            before = len(m.log)
            if "dash" in types:
                keys = [TWIN["n"]]                           # ى: play normally
            elif "pass" in types:
                keys = [TWIN["p"]]                           # ح: pass
            elif "call" in types:
                keys = ["enter"]
            elif "declare" in types:
                n = min(a["n"] for a in legal)
                digits = ["1", str(n - 10)] if n >= 10 else [str(n)]
                keys = [TWIN[d] for d in digits] + ["enter"]
            else:
                card = [a["card"] for a in legal][-1]
                keys = card_keys(card, cards)
                cards += 1
            typed += keys
            c.press(*keys)
            await until(lambda before=before: len(m.log) > before,
                        lambda keys=keys, types=types: f"{keys} to act in {types}:\n{c.text()}")
            assert m.log[before][0] == seat
        assert cards == 13
        assert all(k == "enter" or not k.isascii() for k in typed), typed
        # The round is in the store: the stored log replays to the same scores.
        deadline = time.monotonic() + 5
        while True:
            stored = srv.room.store.match(table.match_id)
            again = replay(stored.record) if stored is not None else None
            if again is not None and again.history:
                break
            assert time.monotonic() < deadline, "the round never reached the store"
            await asyncio.sleep(0.02)
        assert again.history[0]["scores"] == m.history[0]["scores"]
    finally:
        await c.close()


@pytest.mark.skipif(shutil.which("ssh") is None, reason="OpenSSH client not installed")
@pytest.mark.parametrize("how", ["SendEnv", "SetEnv"])
async def test_openssh_sends_the_locale_and_the_room_speaks_arabic(lamma_server, tmp_path, how):
    """What OpenSSH sends: ``SendEnv LANG`` (Debian's and Ubuntu's ssh_config have
    ``SendEnv LANG LC_*``) passes the client's LANG; ``-o SetEnv=LANG=…`` sets it
    whatever the client's locale. The server takes either (asyncssh keeps every env
    request) and the session is Arabic: its first screen is the test line."""
    import pyte

    srv = lamma_server
    name = "Sara9" if how == "SendEnv" else "Dana4"
    key = tmp_path / "id"
    key.write_text(asyncssh.generate_private_key("ssh-ed25519").export_private_key().decode())
    key.chmod(0o600)
    env = {**os.environ, "TERM": "xterm-256color"}
    opts = ["-o", "SendEnv=LANG"] if how == "SendEnv" else ["-o", f"SetEnv=LANG={AR}"]
    env["LANG"] = AR if how == "SendEnv" else "C.UTF-8"
    env.pop("LC_ALL", None)
    proc = await asyncio.create_subprocess_exec(
        "ssh", "-tt", "-p", str(srv.port), "-i", str(key), "-o", "IdentitiesOnly=yes",
        "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
        "-o", "BatchMode=yes", "-F", "/dev/null", *opts, f"{name}@127.0.0.1",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env)
    screen = pyte.Screen(*SIZE)
    stream = pyte.ByteStream(screen)
    try:
        app = await app_of(srv, name, timeout=10)
        assert app.env_language == "ar" and app.speech.code == "ar"
        deadline = time.monotonic() + 10
        while SHAPED_WORD not in "\n".join(screen.display):
            left = deadline - time.monotonic()
            assert left > 0, "\n".join(screen.display)
            try:
                data = await asyncio.wait_for(proc.stdout.read(65536), left)
            except TimeoutError:
                continue
            assert data, "ssh closed"
            stream.feed(data)
        assert screen_name(app) == "TextModeScreen"
    finally:
        await stop_process(proc)
