"""The room in a web browser, without the browser (issue 43): its websocket driven from
Python, the app's output read with pyte. The same app, driver, limits and table
engine as an SSH session's (server/web)."""

from __future__ import annotations

import asyncio

import pytest
from conftest import start_room, stop_room
from webclient import WebClient, web_port

from server.web.settings import WebSettings


@pytest.fixture
async def web_room(tmp_path):
    srv = await start_room(tmp_path, web=WebSettings(listen="127.0.0.1:0"))
    try:
        yield srv
    finally:
        await stop_room(srv)


async def test_a_guest_reaches_the_lobby_over_the_websocket(web_room):
    c = await WebClient.open(web_port(web_room), "wafa")
    try:
        await c.wait_for("card room")
        assert "wafa°" in c.text()
        assert c.hello is not None and c.hello["guest"] and c.hello["resume"]
        member = web_room.room.online["wafa"]
        assert member.transport == "web" and member.guest
        assert member.ident.startswith("guest:w")
    finally:
        await c.close()


async def gone(srv, name: str) -> None:
    """The room has seen the session under ``name`` end."""
    for _ in range(500):
        if name not in srv.room.online:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{name} still online")


async def http_get(port: int, path: str, headers: dict | None = None,
                   host: str = "127.0.0.1") -> tuple[int, dict, bytes]:
    """One GET to the room's web listener: (status, headers, body)."""
    reader, writer = await asyncio.open_connection(host, port)
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    got = {}
    for line in header_lines:
        k, _, v = line.partition(":")
        got.setdefault(k.strip().lower(), v.strip())
    return int(status_line.split()[1]), got, body


async def test_the_page_and_its_scripts_come_from_the_room_with_a_policy(web_room):
    port = web_port(web_room)
    status, headers, body = await http_get(port, "/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    csp = headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "default-src 'none'" in csp
    assert headers["x-content-type-options"] == "nosniff"
    page = body.decode()
    # Nothing from elsewhere: every script and style is the room's own.
    assert 'src="/static/xterm.js"' in page and "http" not in page.split("<body")[0]
    for name in ("xterm.js", "addon-fit.js", "lamma.js", "xterm.css", "lamma.css",
                 "LICENSE-xterm.txt"):
        status, headers, body = await http_get(port, f"/static/{name}")
        assert status == 200 and body, name
    status, headers, packed = await http_get(port, "/static/xterm.js",
                                             {"Accept-Encoding": "gzip"})
    import gzip
    assert headers["content-encoding"] == "gzip"
    assert gzip.decompress(packed).startswith(b"!function") and len(packed) < 200_000
    status, _, _ = await http_get(port, "/static/../../service.py")
    assert status == 404
    status, _, _ = await http_get(port, "/static/index.html")
    assert status == 404


async def test_the_page_speaks_the_browser_language(web_room):
    _, _, body = await http_get(web_port(web_room), "/",
                                {"Accept-Language": "ar-EG,ar;q=0.9,en;q=0.5"})
    page = body.decode()
    assert 'lang="ar" dir="rtl"' in page and "اسمك" in page


async def test_a_websocket_from_another_site_is_refused(web_room):
    from websockets.exceptions import InvalidStatus
    port = web_port(web_room)
    for origin in ("http://evil.example", f"http://127.0.0.1:{port + 1}", None):
        with pytest.raises(InvalidStatus) as refused:
            await WebClient.open(port, "wafa", origin=origin)
        assert refused.value.response.status_code == 403
    assert not web_room.room.online


async def test_a_configured_origin_may_open_it(tmp_path):
    srv = await start_room(tmp_path, web=WebSettings(
        listen="127.0.0.1:0", origins=("https://cards.example.org",)))
    try:
        c = await WebClient.open(web_port(srv), "wafa", origin="https://cards.example.org")
        await c.wait_for("card room")
        await c.close()
    finally:
        await stop_room(srv)


async def test_arabic_from_accept_language_drawn_by_the_room(web_room):
    """Accept-Language says Arabic: the lobby is in Arabic at once, shaped by the room
    (xterm.js does no bidi), without the terminal's question of how to draw it."""
    c = await WebClient.open(web_port(web_room), "wafa", language="ar,en;q=0.8")
    try:
        await c.wait_for("wafa")              # (drawn right to left: "°wafa")
        await c.quiet(0.1)
        app = next(a for a in web_room.room.apps if a.member.name == "wafa")
        assert app.speech.code == "ar" and app.look.text_mode == "shaped"
        from tui.screens.lobby import LobbyScreen
        assert isinstance(app.screen, LobbyScreen)
        assert any("\ufe70" <= ch <= "\ufeff" for ch in c.text()), c.text()   # joined forms
    finally:
        await c.close()


async def quick_play(web_room, c):
    """Quick play (p): a seat at once; the room's table once its match has begun."""
    c.press("p")
    for _ in range(500):
        table = next(iter(web_room.registry.tables.values()), None)
        if table is not None and table.match is not None:
            return table
        await asyncio.sleep(0.01)
    return None


async def test_a_guest_whose_link_drops_comes_back_to_the_seat(web_room):
    """A page that lost its websocket connects again with its resume token: the same
    guest, at the same seat; without it, a new guest."""
    port = web_port(web_room)
    c = await WebClient.open(port, "wafa")
    await c.wait_for("card room")
    table = await quick_play(web_room, c)
    assert table is not None
    seat = next(i for i, m in enumerate(table.seats) if m is not None and m.name == "wafa")
    ident = table.seats[seat].ident
    resume = c.hello["resume"]
    c.ws.transport.abort()                         # the link drops
    await c.closed()
    await gone(web_room, "wafa")
    back = await WebClient.open(port, "wafa", resume=resume)
    try:
        await back.wait_for("Round 1")
        assert web_room.room.online["wafa"].ident == ident
        assert table.seats[seat] is not None and table.seats[seat].ident == ident
        assert back.hello["resume"] == resume
    finally:
        await back.close()
    await gone(web_room, "wafa")
    # A forged token (or another name's) is a new guest, seated nowhere.
    other = await WebClient.open(port, "wafa", resume=resume[:-2] + "xx")
    try:
        await other.wait_for("card room")
        assert web_room.room.online["wafa"].ident != ident
    finally:
        await other.close()


async def test_a_guest_who_does_not_come_back_leaves_no_table_running(web_room):
    """A page's guest is held its seat while the page may come back (it tries again by
    itself); one that does not come back is gone as an SSH guest is once its
    connection drops: the table nobody else holds is closed, not played by the turn
    timer alone for hours."""
    web_room.registry.guest_return = 0.5
    port = web_port(web_room)
    c = await WebClient.open(port, "rania")
    await c.wait_for("card room")
    table = await quick_play(web_room, c)
    assert table is not None and table.status == "playing"
    resume = c.hello["resume"]
    c.ws.transport.abort()                         # the link drops; the page comes back
    await c.closed()
    await gone(web_room, "rania")
    c = await WebClient.open(port, "rania", resume=resume)
    await c.wait_for("Round 1")
    await asyncio.sleep(0.8)                       # past the hold of its first drop
    assert web_room.registry.tables.get(table.id) is table and not table.closed
    c.ws.transport.abort()                         # the tab is closed for good
    await c.closed()
    await gone(web_room, "rania")
    assert web_room.registry.tables.get(table.id) is table    # held: the page may return
    for _ in range(300):
        if table.id not in web_room.registry.tables:
            break
        await asyncio.sleep(0.01)
    assert table.id not in web_room.registry.tables and table.closed


@pytest.fixture
async def web_room_moving(tmp_path):
    """Computer players that move at once."""
    srv = await start_room(tmp_path, bot_pause=0.0, web=WebSettings(listen="127.0.0.1:0"))
    try:
        yield srv
    finally:
        await stop_room(srv)


async def play_round_by_keys(table, seat: int, client) -> int:
    """Plays ``seat``'s turns of the first round with key presses sent by ``client``
    (the presses a person makes); returns how many."""
    m = table.match
    presses = 0
    while not m.history and m.to_act is not None:
        shown = table.view(seat)
        if m.to_act != seat or shown is None or shown.get("to_act") != seat:
            await asyncio.sleep(0.005)
            continue
        await client.quiet(0.02)
        legal = m.legal_actions(seat)
        types = {a["type"] for a in legal}
        before = len(m.log)
        if "dash" in types:
            client.press("n")
        elif "pass" in types:
            client.press("p")
        elif "call" in types:
            client.press("enter")
        elif "declare" in types:
            n = min(a["n"] for a in legal)
            client.press(*(["1", str(n - 10)] if n >= 10 else [str(n)]), "enter")
        else:
            card = [a["card"] for a in legal][-1]
            client.press(card[0].lower(), card[1].lower())
        presses += 1
        for _ in range(1000):
            if len(m.log) > before:
                break
            await asyncio.sleep(0.005)
        assert len(m.log) > before and m.log[before][0] == seat, (
            f"keys did nothing in {types}:\n{client.text()}")
    return presses


@pytest.mark.slow
async def test_a_browser_session_plays_a_whole_round_by_keys(web_room_moving):
    srv = web_room_moving
    c = await WebClient.open(web_port(srv), "hala")
    try:
        await c.wait_for("card room")
        c.press("p")                                  # quick play
        for _ in range(500):
            table = next(iter(srv.registry.tables.values()), None)
            if table is not None and table.match is not None:
                break
            await asyncio.sleep(0.01)
        seat = table.seat_of(next(mb for mb in table.members() if mb.name == "hala"))
        presses = await play_round_by_keys(table, seat, c)
        assert table.match.history, "the round did not finish"
        assert presses >= 13
        await c.wait_for("Round 1 summary")
        # Compressed (permessage-deflate), a whole round's frames came in few bytes.
        assert c.ws.protocol.extensions, "no permessage-deflate"
    finally:
        await c.close()


async def test_an_ssh_player_and_a_browser_player_see_only_their_own_hands(web_room):
    """One table: an SSH terminal and a browser, each seeing its own hand and no other
    seat's unplayed card."""
    from test_server_pty import cards_in
    srv = web_room
    ssh = await srv.pty_client("samir", size=(100, 30))
    web = await WebClient.open(web_port(srv), "wafa", size=(100, 30))
    try:
        await ssh.wait_for("card room")
        await web.wait_for("card room")
        ssh.press("n")
        await ssh.wait_for("New table")
        ssh.press("down", "down", "down", "down", "right", "enter")   # wait for people
        await ssh.wait_for("Waiting for")
        table = next(iter(srv.registry.tables.values()))
        await web.wait_for(table.id)
        web.press("enter")                          # sits at the only table
        for _ in range(500):
            if sum(1 for s in table.seats if s.kind == "human") == 2:
                break
            await asyncio.sleep(0.01)
        ssh.press("b")                              # the host fills the empty seats
        for _ in range(500):
            if table.match is not None:
                break
            await asyncio.sleep(0.01)
        m = table.match
        assert m is not None
        seats = {s.name: i for i, s in enumerate(table.seats)}
        for client, name in ((ssh, "samir"), (web, "wafa")):
            own = set(m.view(seats[name])["hand"])
            for _ in range(500):
                if own <= cards_in(client.text()):
                    break
                await asyncio.sleep(0.01)
            shown = cards_in(client.text())
            assert own <= shown, f"{name} does not see their hand:\n{client.text()}"
            others = set()
            for o in range(4):
                if o != seats[name]:
                    others |= set(m.view(o)["hand"])
            assert not shown & others, f"{name} sees another seat's cards"
            raw = client.raw if hasattr(client, "raw") else b""
            assert not cards_in(bytes(raw).decode("utf-8", "replace")) & others
        assert srv.room.online["wafa"].transport == "web"
        assert srv.room.online["samir"].transport == "ssh"
    finally:
        await ssh.close()
        await web.close()


async def test_sessions_are_counted_by_transport(web_room):
    from server.metrics import RoomCollector
    srv = web_room
    ssh = await srv.pty_client("samir")
    web = await WebClient.open(web_port(srv), "wafa")
    try:
        await ssh.wait_for("card room")
        await web.wait_for("card room")
        family = next(f for f in RoomCollector(srv.room).collect()
                      if f.name == "lamma_sessions_by_transport")
        counts = {s.labels["transport"]: s.value for s in family.samples}
        assert counts == {"ssh": 1, "web": 1}
    finally:
        await ssh.close()
        await web.close()


def test_the_web_flag_and_its_section(tmp_path):
    from server.cli import build_parser, configuration
    from server.config import ConfigError, read_file
    from server.service import RoomConfig
    args = build_parser().parse_args(["serve", "--web", "127.0.0.1:8022"])
    config = RoomConfig.of(configuration(args))
    assert config.web.listen == "127.0.0.1:8022"
    assert RoomConfig.of(configuration(build_parser().parse_args(["serve"]))).web.listen == ""
    path = tmp_path / "room.toml"
    path.write_text('[web]\nlisten = "0.0.0.0:8080"\norigins = ["https://cards.example.org"]\n'
                    'proxies = ["127.0.0.1/32"]\n')
    web = RoomConfig.of(read_file(path)).web
    assert web.origins == ("https://cards.example.org",) and web.trusts("127.0.0.1")
    assert not web.trusts("127.0.0.2")
    path.write_text('[web]\norigins = ["javascript:alert(1)"]\n')
    with pytest.raises(ConfigError, match="line 2"):
        read_file(path)


async def test_a_clean_restart_takes_no_new_browser_and_keeps_those_in(web_room):
    srv = web_room
    c = await WebClient.open(web_port(srv), "wafa")
    try:
        await c.wait_for("card room")
        # Someone at a table mid-match keeps the room draining (issue 45: the drain ends
        # as soon as every table holds, at once with nobody at one).
        c.press("p")                                # quick play: a table of computers
        await c.wait_for("Round")
        srv.room.start_drain(30)
        await asyncio.sleep(0.1)
        with pytest.raises(OSError):
            await WebClient.open(web_port(srv), "nour")
        await c.wait_for("restart")                 # told, still in until the trick ends
        assert await c.closed(30) == 4003           # then ended by the room, as said
    finally:
        srv.room.stop_now()
        await c.close()


async def test_a_reload_applies_the_web_settings_but_where_it_listens(web_room, tmp_path):
    from server.config import read_file
    room = web_room.room
    path = tmp_path / "room.toml"
    path.write_text('[web]\nlisten = "127.0.0.1:9"\norigins = ["https://cards.example.org"]\n'
                    'link-days = 7.0\n')
    room.apply(read_file(path))
    web = room.config.web
    assert web.origins == ("https://cards.example.org",) and web.link_days == 7.0
    assert web.listen == "127.0.0.1:0"             # a restart's business
    c = await WebClient.open(web_port(web_room), "wafa", origin="https://cards.example.org")
    await c.wait_for("card room")
    await c.close()
