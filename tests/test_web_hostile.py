"""Every byte from a browser is hostile (issue 43): the SSH sessions' input attacks,
replayed over the websocket, meet the same limits (the same driver), and the web
listener's own (connections per address and in all, websockets opened a second,
guests per address, message sizes, X-Forwarded-For only from the proxies named)."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from conftest import start_room, stop_room
from test_web import gone, http_get
from webclient import WebClient, web_port
from websockets.exceptions import InvalidMessage, InvalidStatus

from server.driver import SSHDriver
from server.limits import Limits
from server.web.settings import WebSettings

PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"


@pytest.fixture
async def web_room(tmp_path):
    srv = await start_room(tmp_path, web=WebSettings(listen="127.0.0.1:0"))
    try:
        yield srv
    finally:
        await stop_room(srv)


def driver_of(srv, name: str) -> SSHDriver:
    app = next(a for a in srv.room.apps if a.member.name == name and not a.ended)
    driver = app._driver                    # (a test may read Textual's privates)
    assert isinstance(driver, SSHDriver)
    return driver


async def still_playing(c) -> None:
    """The session answers keys as before: ? opens the help, ? closes it."""
    await c.quiet(0.2)
    c.press("?")
    await c.wait_for("Help")
    c.press("?")
    await c.wait_for("card room")


async def test_a_long_paste_is_cut_and_said(web_room):
    c = await WebClient.open(web_port(web_room), "paster")
    try:
        await c.wait_for("card room")
        driver = driver_of(web_room, "paster")
        c.press(PASTE_START)
        block = b"x" * 16384
        for _ in range(64):                  # 1 MB, as the page sends it: 16 KB a message
            c.press(block)
        c.press(PASTE_END)
        await c.wait_for("Paste cut to 8192 characters")
        assert driver.pastes_cut == 1
        await still_playing(c)
    finally:
        await c.close()


async def test_a_key_flood_is_dropped_with_a_notice(web_room):
    c = await WebClient.open(web_port(web_room), "hammer")
    try:
        await c.wait_for("card room")
        driver = driver_of(web_room, "hammer")
        chunk = b"zx\x1b[1;5A" * 2000           # keys that do nothing, sequences among them
        for _ in range(100):                    # ~2 MB
            c.press(chunk)
        deadline = time.monotonic() + 20
        while driver.bytes_in < 100 * len(chunk) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert driver.bytes_in == 100 * len(chunk)
        assert driver.dropped_bytes >= 100 * len(chunk) - 64 * 1024
        await c.wait_for("some keys were ignored")
        assert driver.notices == 1
        await asyncio.sleep(1.0)                # the flood over, keys are keys again
        await still_playing(c)
    finally:
        await c.close()


async def test_window_sizes_are_clamped_and_a_flood_of_them_coalesced(web_room):
    c = await WebClient.open(web_port(web_room), "stormy", size=(400, 200),
                             query={"cols": 100000, "rows": 100000})
    try:
        await c.wait_for("card room")
        app = next(a for a in web_room.room.apps if a.member.name == "stormy")
        assert (app.size.width, app.size.height) == (400, 200)     # the driver's clamp
        driver = driver_of(web_room, "stormy")
        started = time.monotonic()
        for i in range(2000):
            c.resize(60 + i % 40, 20 + i % 10)
        c.resize(100, 30)
        deadline = time.monotonic() + 10
        while (app.size.width, app.size.height) != (100, 30):
            assert time.monotonic() < deadline, f"final size not applied: {app.size}"
            await asyncio.sleep(0.02)
        elapsed = time.monotonic() - started
        assert driver.resizes_applied <= 20 + 10 * elapsed + 2
        await still_playing(c)
    finally:
        await c.close()


async def test_garbage_messages_change_nothing(web_room):
    c = await WebClient.open(web_port(web_room), "noisy")
    try:
        await c.wait_for("card room")
        process = next(p for p in web_room.room.web.sessions)
        for text in ("not json", "{}", '{"type": "resize", "cols": "80", "rows": 24}',
                     '{"type": "resize", "cols": true, "rows": 24}', '[1, 2]',
                     json.dumps({"type": "resize", "cols": 80, "rows": 24, "pad": "x" * 500}),
                     '{"type": "hello"}'):
            c._outgoing.put_nowait(text)
        # Bytes of every kind (invalid UTF-8, controls) but the quitting keys (q, Ctrl+C).
        c.press(bytes(range(0x80, 0x100)) * 4
                + bytes(b for b in range(0x20) if b not in (0x03, 0x0d)))
        c.press(b"\xff\xfe\xc3\x28\x1b[<999999;999999;999999M")
        # Each refused as it comes (on a busy machine later than a quiet 0.3 s: waited
        # for, up to 10 s), and none twice.
        deadline = asyncio.get_running_loop().time() + 10
        while process.controls_refused < 7 and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.05)
        await c.quiet(0.3)
        assert process.controls_refused == 7
        await asyncio.sleep(1.0)
        await still_playing(c)
    finally:
        await c.close()


async def test_a_message_past_the_limit_closes_that_websocket_only(web_room):
    other = await WebClient.open(web_port(web_room), "other")
    c = await WebClient.open(web_port(web_room), "big")
    try:
        await c.wait_for("card room")
        c.press(b"x" * (64 * 1024 + 1))
        assert await c.closed() == 1009       # message too big
        await gone(web_room, "big")
        await other.wait_for("card room")
        await still_playing(other)
    finally:
        await c.close()
        await other.close()


async def test_a_name_with_controls_is_refused_in_words(web_room):
    c = await WebClient.open(web_port(web_room), "\x1b[31mred\x07")
    assert await c.closed() == 4001
    assert "Names may" in c.refused or "invisible" in c.refused
    assert not web_room.room.online


async def test_connections_waiting_for_their_request_per_address(tmp_path):
    srv = await start_room(tmp_path, web=WebSettings(listen="127.0.0.1:0"),
                           limits=Limits(handshakes_per_address=3))
    port = web_port(srv)
    held = []
    try:
        for _ in range(3):
            held.append(await asyncio.open_connection("127.0.0.1", port))
        await asyncio.sleep(0.1)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert await asyncio.wait_for(reader.read(100), 5) == b""     # closed at once
        writer.close()
        for _, w in held:
            w.close()
        held.clear()
        await asyncio.sleep(0.2)
        status, _, _ = await http_get(port, "/")     # those gone, the next comes in
        assert status == 200
        for _ in range(200):
            if srv.room.book.connections == 0:
                break
            await asyncio.sleep(0.01)
        assert srv.room.book.connections == 0             # every one counted out again
    finally:
        for _, w in held:
            w.close()
        await stop_room(srv)


async def test_the_rooms_cap_on_connections_holds_for_the_web_too(web_room):
    room = web_room.room
    room.book.connection_cap = room.book.connections + 1
    first = await WebClient.open(web_port(web_room), "first")
    try:
        await first.wait_for("card room")
        # Aborted before any answer: the handshake never completes.
        with pytest.raises((OSError, EOFError, InvalidMessage)):
            await WebClient.open(web_port(web_room), "second", open_timeout=5)
        assert "second" not in room.online
    finally:
        await first.close()


async def test_websockets_opened_too_fast_and_guests_per_address(tmp_path):
    srv = await start_room(tmp_path, web=WebSettings(listen="127.0.0.1:0"),
                           limits=Limits(connects_burst=4, connects_rate=0.01,
                                         guests_per_address=2))
    port = web_port(srv)
    clients = []
    try:
        for name in ("g1", "g2"):
            clients.append(await WebClient.open(port, name))
            await clients[-1].wait_for("card room")
        third = await WebClient.open(port, "g3")
        assert await third.closed() == 4001 and "guests" in third.refused
        await WebClient.open(port, "g4")          # the fourth token of the burst
        with pytest.raises(InvalidStatus) as refused:
            await WebClient.open(port, "g5")
        assert refused.value.response.status_code == 429
    finally:
        for c in clients:
            await c.close()
        await stop_room(srv)


async def test_forwarded_addresses_only_from_the_named_proxies(tmp_path):
    srv = await start_room(tmp_path, web=WebSettings(listen="127.0.0.1:0"))
    port = web_port(srv)
    try:
        c = await WebClient.open(port, "nour",
                                 headers={"X-Forwarded-For": "203.0.113.9"})
        await c.wait_for("card room")
        assert srv.room.online["nour"].address == "127.0.0.1"     # not believed
        await c.close()
        await gone(srv, "nour")
        srv.room.config.web.proxies = WebSettings(
            proxies=(__import__("ipaddress").ip_network("127.0.0.0/8"),)).proxies
        c = await WebClient.open(port, "nour", headers={
            "X-Forwarded-For": "198.51.100.7, 203.0.113.9, 127.0.0.5"})
        await c.wait_for("card room")
        # The right-most address that is not a proxy's: the one the proxy saw.
        assert srv.room.online["nour"].address == "203.0.113.9"
        await c.close()
        await gone(srv, "nour")
        srv.room.store.add_ban("addr", "203.0.113.9", None, "op", "test")
        with pytest.raises(InvalidStatus) as refused:
            await WebClient.open(port, "nour",
                                 headers={"X-Forwarded-For": "203.0.113.9"})
        assert refused.value.response.status_code == 403
    finally:
        await stop_room(srv)
