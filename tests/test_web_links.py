"""A browser linked to a name an SSH key owns (issue 43): a one-time code shown in the
SSH session (/web, or l on the profile), entered on the page, gives the browser a
signed, revocable token (an HttpOnly cookie); the browser then is that player, back
at their seat after any reload, until the profile (u) or /web unlink revokes it."""

from __future__ import annotations

import asyncio
import re

import pytest
from conftest import start_room, stop_room
from test_web import gone, http_get
from webclient import WebClient, web_port

from server.web.settings import WebSettings

CODE_RE = re.compile(r"\b([A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4})\b")


@pytest.fixture
async def web_room(tmp_path):
    srv = await start_room(tmp_path, web=WebSettings(listen="127.0.0.1:0"))
    try:
        yield srv
    finally:
        await stop_room(srv)


async def code_on(client, timeout: float = 10.0) -> str:
    for _ in range(int(timeout / 0.02)):
        m = CODE_RE.search(client.text())
        if m:
            return m.group(1)
        await asyncio.sleep(0.02)
    raise AssertionError("no link code on screen:\n" + client.text())


async def link(port: int, code: str) -> tuple[int, dict, bytes]:
    return await http_get(port, "/link", {"X-Lamma-Code": code, "User-Agent":
                                          "Mozilla/5.0 (Linux; Android 14) Chrome/150.0"})


def cookie_from(headers: dict) -> str:
    set_cookie = headers["set-cookie"]
    assert "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie
    return set_cookie.split(";")[0]          # lamma_link=VALUE


async def test_a_code_from_ssh_links_a_browser_that_lands_on_the_seat(web_room):
    srv = web_room
    port = web_port(srv)
    ssh = await srv.pty_client("samir", size=(100, 30))
    try:
        await ssh.wait_for("card room")
        ssh.press("/")                           # the lobby's command line
        await ssh.wait_for("Command")
        ssh.press(*"web", "enter")
        code = await code_on(ssh)
        ssh.press("escape")
        await ssh.wait_for("card room")
        ssh.press("p")                           # quick play: samir's seat
        for _ in range(500):
            table = next(iter(srv.registry.tables.values()), None)
            if table is not None and table.match is not None:
                break
            await asyncio.sleep(0.01)
        seat = next(i for i, s in enumerate(table.seats) if s.name == "samir")
        ident = table.seats[seat].ident
        assert ident.startswith("key:")
        status, headers, body = await link(port, code)
        assert status == 200 and b'"samir"' in body
        cookie = cookie_from(headers)
        again, _, said = await link(port, code)  # a code works once
        assert again == 403 and b"not known" in said
        # The page comes back linked: the browser is samir, at samir's seat; the SSH
        # terminal is closed, as when samir logs in from another terminal.
        status, _, page = await http_get(port, "/", {"Cookie": cookie})
        assert b'data-linked="samir"' in page
        web = await WebClient.open(port, None, cookie=cookie)
        await web.wait_for("Round 1")
        member = srv.room.online["samir"]
        assert member.transport == "web" and not member.guest and member.ident == ident
        assert table.seats[seat].ident == ident
        await ssh.wait_for("another terminal")
        # A reload of the page: the same, again.
        await web.close()
        await gone(srv, "samir")
        web = await WebClient.open(port, None, cookie=cookie)
        await web.wait_for("Round 1")
        assert srv.room.online["samir"].ident == ident
        links = srv.room.web.links.linked(srv.room.online["samir"])
        assert [b.label for b in links] == ["Chrome on Android"]
        await web.close()
    finally:
        await ssh.close()


async def test_the_profile_lists_links_and_unlinking_ends_the_browsers_session(web_room):
    srv = web_room
    port = web_port(srv)
    ssh = await srv.pty_client("samir", size=(100, 40))
    try:
        await ssh.wait_for("card room")
        ssh.press("i")                           # the profile
        await ssh.wait_for("Browsers")
        ssh.press("l")                           # a code, on the profile itself
        code = await code_on(ssh)
        _, headers, _ = await link(port, code)
        cookie = cookie_from(headers)
        ssh.press("escape")
        await ssh.wait_for("card room")
        web = await WebClient.open(port, None, cookie=cookie)
        await web.wait_for("samir")
        await ssh.wait_for("another terminal")
        await ssh.close()
        # samir comes back over SSH (which closes the browser's session: one terminal
        # at a time), and unlinks it from the profile.
        web_closed = web.closed()
        ssh = await srv.pty_client("samir", size=(100, 40))
        await ssh.wait_for("card room")
        assert await web_closed == 4002          # taken over: the page does not fight back
        ssh.press("i")
        await ssh.wait_for("Chrome on Android")
        ssh.press("u")
        await ssh.wait_for("Browsers unlinked: 1.")
        assert srv.room.store.links_of("samir") == []
        # The cookie no longer names anyone: the page is a stranger without a name.
        web = await WebClient.open(port, None, cookie=cookie)
        assert await web.closed() == 4001 and "name" in web.refused
    finally:
        await ssh.close()


async def test_unlinking_ends_an_open_browser_session(web_room):
    srv = web_room
    port = web_port(srv)
    ssh = await srv.pty_client("samir")
    await ssh.wait_for("card room")
    member = srv.room.online["samir"]
    code = srv.room.web.links.new_code(member)
    await ssh.close()
    await gone(srv, "samir")
    _, headers, _ = await link(port, code)
    web = await WebClient.open(port, None, cookie=cookie_from(headers))
    await web.wait_for("samir")
    reply = srv.room.moderation.command(srv.room.online["samir"], "/web list")
    assert "Chrome on Android" in reply
    reply = srv.room.moderation.command(srv.room.online["samir"], "/web unlink 1")
    assert reply == "Browsers unlinked: 1."
    assert await web.closed() == 4003            # ended by the room (the page may retry)
    assert "unlinked" in web.text()


async def test_forged_and_stolen_looking_cookies_name_nobody(web_room):
    srv = web_room
    links = srv.room.web.links
    ssh = await srv.pty_client("samir")
    await ssh.wait_for("card room")
    code = links.new_code(srv.room.online["samir"])
    value, name = links.redeem(code, "test")
    assert name == "samir" and links.holder(value)[0] == "samir"
    link_id, secret, sig = value.split(".")
    other_end = "B" if sig.endswith("A") else "A"
    for forged in (f"{link_id}.{secret}.{sig[:-1]}{other_end}", f"{link_id}.{secret}x.{sig}",
                   f"{link_id}x.{secret}.{sig}", "", "a.b", "x" * 5000, value + ".x"):
        assert links.holder(forged) is None, forged
    # The database holds a hash of the secret, never the secret.
    assert secret not in str(srv.room.store.link(link_id))
    # A guest cannot have a code; a code is 8 letters and digits.
    guest = await WebClient.open(web_port(srv), "wafa")
    await guest.wait_for("card room")
    from engine.room import RoomError
    with pytest.raises(RoomError):
        links.new_code(srv.room.online["wafa"])
    assert "8 letters" in links.redeem("ABC", "test")
    await guest.close()
    await ssh.close()


async def test_link_codes_are_tried_a_few_times_a_minute(web_room):
    port = web_port(web_room)
    statuses = [(await link(port, "ZZZZ-ZZZZ"))[0] for _ in range(7)]
    assert statuses[:5] == [403] * 5 and statuses[5:] == [429, 429]
    status, _, _ = await http_get(port, "/link")
    assert status == 400                         # the code goes in its header only
