"""Moderation (issue 11): operators named by key in keys/operators, from their own
session or `lamma admin`, list, announce, mute, kick, ban and close; everything they
do is logged with who did it. Every player can /ignore and /report. Real SSH clients."""

from __future__ import annotations

import asyncio

import asyncssh
import pytest
from conftest import start_room, stop_room

from server.admin import run_admin


@pytest.fixture
async def room(tmp_path):
    srv = await start_room(tmp_path)
    keys = srv.room.config.keys
    (keys / "operators").write_text(
        "# the room's operators\n" + srv.key("opal").export_public_key().decode())
    try:
        yield srv
    finally:
        await stop_room(srv)


async def command(client, line: str) -> dict:
    client.send({"op": "command", "line": line})
    while True:
        msg = await asyncio.wait_for(client.messages.get(), 5)
        assert msg is not None, "connection closed"
        if msg["type"] in ("command", "error"):
            return msg


async def test_operators_mute_kick_ban_and_everything_is_logged(room):
    srv = room
    opal, bob, cleo = [await srv.json_client(n) for n in ("opal", "bob", "cleo")]
    who = await command(opal, "/who")
    assert who["type"] == "command" and "bob" in who["reply"] and "cleo" in who["reply"]
    # Each with the key an operator may ban (issue 45).
    assert f"key {srv.key('bob').get_fingerprint('sha256')}" in who["reply"], who
    # Not an operator: the same command is unknown to bob, and nothing happens.
    refused = await command(bob, "/kick cleo")
    assert refused["type"] == "error" and "Unknown command" in refused["message"]
    assert "/ignore" in (await command(bob, "/help"))["reply"]
    assert "/kick" not in (await command(bob, "/help"))["reply"]
    assert "/kick" in (await command(opal, "/help"))["reply"]

    await command(opal, "/announce The room restarts at nine")
    assert "restarts at nine" in (await cleo.expect("notice"))["text"]

    bob.send({"op": "create", "game": "estimation", "computer": [2, 3]})
    tid = (await bob.expect("joined"))["table"]
    cleo.send({"op": "join", "table": tid, "seat": 1})
    await cleo.expect("joined")
    assert (await command(opal, "/mute bob 10m"))["type"] == "command"
    assert "muted" in (await bob.expect("notice"))["text"]
    bob.send({"op": "chat", "text": "spam spam"})
    await asyncio.sleep(0.2)
    assert bob.errors and "muted you" in bob.errors[-1]
    await command(opal, "/unmute bob")
    bob.send({"op": "chat", "text": "sorry"})
    assert (await cleo.expect("chat"))["text"] == "sorry"

    reply = await command(opal, "/ban bob 1h flooding")
    assert "Banned name bob" in reply["reply"]
    assert "banned" in (await bob.expect("bye"))["message"]
    msg = await srv.first_reply("bob")
    assert msg["type"] == "error" and "banned" in msg["message"]
    assert "name bob" in (await command(opal, "/bans"))["reply"]
    await command(opal, "/unban bob")
    again = await srv.json_client("bob")
    again.send({"op": "tables"})
    await again.expect("tables")

    await command(opal, f"/close {tid}")
    assert tid not in srv.registry.tables
    assert "closed" in (await cleo.expect("left"))["reason"]
    await command(opal, "/kick cleo enough")
    assert "enough" in (await cleo.expect("bye"))["message"]

    log = (await command(opal, "/log"))["reply"]
    for action in ("announce", "mute", "unmute", "ban", "unban", "close", "kick"):
        assert f"opal: {action}" in log, (action, log)
    for c in (opal, bob, cleo, again):
        await c.close()


async def test_ignore_and_report(room):
    srv = room
    ann, bob, carl, opal = [await srv.json_client(n) for n in ("ann", "bob", "carl", "opal")]
    ann.send({"op": "create", "game": "estimation", "computer": [3]})
    tid = (await ann.expect("joined"))["table"]
    for c, seat in ((bob, 1), (carl, 2)):
        c.send({"op": "join", "table": tid, "seat": seat})
        await c.expect("joined")
    assert "no longer see" in (await command(ann, "/ignore bob"))["reply"]
    bob.send({"op": "chat", "text": "hello all"})
    assert (await carl.expect("chat"))["text"] == "hello all"
    carl.send({"op": "chat", "text": "hi bob"})
    got = await ann.expect("chat")
    assert got["text"] == "hi bob"            # bob's line never reached ann, carl's did
    assert "bob" in (await command(ann, "/ignored"))["reply"]
    reply = await command(ann, "/report bob rude in chat")
    assert "operators will see" in reply["reply"]
    assert "ann about bob: rude in chat" in (await command(opal, "/reports"))["reply"]
    for c in (ann, bob, carl, opal):
        await c.close()


async def test_operators_file_is_read_again_and_admin_on_the_server_machine(room, tmp_path):
    srv = room
    zed = await srv.json_client("zed")
    assert (await command(zed, "/who"))["type"] == "error"
    ops = srv.room.config.keys / "operators"
    ops.write_text(ops.read_text() + srv.key("zed").export_public_key().decode())
    assert "zed" in (await command(zed, "/who"))["reply"]       # no restart needed

    data = srv.room.config.data
    loop = asyncio.get_running_loop()
    assert await loop.run_in_executor(None, run_admin, data, ["who"]) == 0
    assert await loop.run_in_executor(None, run_admin, data, ["kick", "zed", "maintenance"]) == 0
    assert "maintenance" in (await zed.expect("bye"))["message"]
    assert await loop.run_in_executor(None, run_admin, data, ["ban", "addr:10.9.8.7", "2h"]) == 0
    assert await loop.run_in_executor(None, run_admin, data, ["frobnicate"]) == 1
    log = srv.room.store.actions_log(10)
    assert any(r["by"].startswith("admin") and r["action"] == "kick" for r in log)
    assert (data / "admin.sock").stat().st_mode & 0o077 == 0
    await zed.close()


async def test_an_address_ban_refuses_before_any_name_is_looked_at(room):
    srv = room
    opal = await srv.json_client("opal")
    await command(opal, "/ban addr:127.0.0.1 5m")
    with pytest.raises((asyncssh.DisconnectError, ConnectionError)) as err:
        await srv.connect("newcomer")
    assert "banned" in str(err.value)
    srv.room.store.remove_bans("addr", "127.0.0.1")
    (await srv.connect("newcomer")).close()
    await opal.close()


async def test_an_announcement_reaches_a_terminal(room):
    srv = room
    opal = await srv.json_client("opal")
    pty = await srv.pty_client("tess")
    await pty.wait_for("Lamma")
    await command(opal, "/announce Tournament at eight")
    await pty.wait_for("Tournament at eight")
    # and the lobby's own command line answers a player
    pty.press("/")
    await pty.wait_for("Command")
    pty.press("/help\r")
    await pty.wait_for("/ignore NAME")
    await pty.close()
    await opal.close()


async def test_a_command_typed_at_the_table_is_answered_on_a_whole_board(room):
    """The chat line gives its rows back as the answer is drawn: the board draws again
    at its full size (it once stayed on 'Please enlarge the window')."""
    srv = room
    ops = srv.room.config.keys / "operators"
    ops.write_text(ops.read_text() + srv.key("tess").export_public_key().decode())
    pty = await srv.pty_client("tess")
    await pty.wait_for("Lamma")
    pty.press("p")
    await pty.wait_for("Round 1")
    await pty.quiet()
    pty.press("/")
    await asyncio.sleep(0.3)
    pty.press("/who\r")
    await pty.wait_for("1 here: tess")
    await pty.quiet()
    assert "enlarge" not in pty.text() and "Round 1" in pty.text()
    await pty.close()


def test_a_mute_names_each_mark_once():
    """The member's own marks begin with their name's: muted by that name, it is
    stored once (a room of several processes writes each mark as a row)."""
    from engine.room import Session
    from engine.room.moderation import Mutes
    ali = Session("ali", "key:fp:ali")
    marks, _end = Mutes().mute("ali", 60, ali)
    assert marks == ["name:ali", "who:key:fp"]


async def test_ignore_of_a_name_nobody_has_says_so(room):
    """/ignore keys on a name: one a key owns (here or not) or somebody here has (a key's
    or a guest's) is ignored; a name nobody has is not, and the reply says so rather
    than "You no longer see nobodyhere's chat."."""
    srv = room
    owner = await srv.json_client("dalia")          # a key owns "dalia" from now on
    await owner.close()
    guest = await srv.guest_client("wanderer")
    ann = await srv.json_client("ann")
    reply = await command(ann, "/ignore nobodyhere")
    assert reply == {"type": "error", "message": "Nobody is called nobodyhere: no player "
                     "owns that name and nobody here has it."}
    assert not ann_ignores(srv, "ann", "nobodyhere")
    for name in ("dalia", "Dalia", "wanderer°"):     # away but owned; a guest here
        assert "no longer see" in (await command(ann, f"/ignore {name}"))["reply"], name
    assert ann_ignores(srv, "ann", "dalia") and ann_ignores(srv, "ann", "wanderer")
    assert "dalia" in (await command(ann, "/ignored"))["reply"]
    for c in (guest, ann):
        await c.close()


def ann_ignores(srv, who: str, name: str) -> bool:
    from engine.room import ignores
    return ignores(srv.room.online[who], name)
