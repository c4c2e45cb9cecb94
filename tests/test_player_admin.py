"""Names and their keys (issue 45): a player who lost their key no longer loses their
name — an operator moves it to a new key (``lamma admin player move``), and renames,
deletes and lists players, each audited; a player adds a second key from a session
where they are logged in with the first, with a one-time code."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

import asyncssh
import pytest
from conftest import start_room, stop_room
from procs import LISTENING, stop_process, wait_line

from server.store import Store

ROOT = Path(__file__).resolve().parents[1]


def test_the_store_keeps_a_name_s_keys_apart_from_its_identity(tmp_path):
    s = Store(tmp_path / "lamma.db")
    assert s.bind("ana", "fp1")
    assert s.keys_of("ana")[0][0] == "fp1" and s.owner("ana") == "fp1"
    assert not s.may_use("ana", "fp2") and not s.bind("ana", "fp2")
    assert s.add_key("ana", "fp2") and s.may_use("ana", "fp2") and s.bind("ana", "fp2")
    assert s.owner("ana") == "fp1"                     # the identity stays the first key
    # Moved by an operator: that key only.
    assert s.move_to_key("ana", "fp3")
    assert [fp for fp, _ in s.keys_of("ana")] == ["fp3"]
    assert not s.may_use("ana", "fp1") and not s.may_use("ana", "fp2")
    assert s.bind("ana", "fp3") and s.owner("ana") == "fp1"
    # Renamed with its keys, statistics and badges; deleted: the name free again.
    s._x("INSERT INTO stats (name, game, matches) VALUES ('ana', 'estimation', 3)")
    assert s.bind("bo", "fpb")
    assert s.rename("ana", "bo") == "bo is taken"
    assert s.rename("ana", "b0") is not None               # looks like bo
    assert s.rename("nobody", "x") == "nobody is called nobody"
    assert s.rename("ana", "Anna") is None
    assert s.owner("ana") is None and s.may_use("Anna", "fp3")
    assert s.profile("anna")["stats"]["estimation"]["matches"] == 3
    assert [p["name"] for p in s.players("ann")] == ["Anna"]
    assert s.delete_player("Anna") and s.owner("Anna") is None
    assert s.may_use("Anna", "fp-anyone") and not s.delete_player("Anna")
    s.close()


def test_one_time_codes(tmp_path):
    s = Store(tmp_path / "lamma.db")
    assert s.bind("ana", "fp1")
    assert not s.code_pending("ana")
    code = s.make_code("ana")
    assert re.fullmatch(r"[a-z2-9]{5}-[a-z2-9]{5}", code) and s.code_pending("ana")
    for _ in range(s.CODE_TRIES):
        assert not s.use_code("ana", "wrong-code", "fp2")
    assert not s.code_pending("ana") and not s.use_code("ana", code, "fp2")   # spent
    code = s.make_code("ana")
    assert s.use_code("ana", code.upper(), "fp2") and s.may_use("ana", "fp2")
    assert not s.code_pending("ana") and not s.use_code("ana", code, "fp9")   # once
    s._x("UPDATE players SET created = 0")
    code = s.make_code("ana")
    s._x("UPDATE key_codes SET expires = 1")                                  # expired
    assert not s.code_pending("ana") and not s.use_code("ana", code, "fp3")
    s.close()


async def exec_command(port: int, name: str, key, command: str) -> tuple[str, int | None]:
    conn = await asyncssh.connect("127.0.0.1", port, username=name, known_hosts=None,
                                  client_keys=[key], agent_path=None,
                                  preferred_auth="publickey")
    try:
        result = await asyncio.wait_for(conn.run(command), 10)
        return str(result.stdout), result.exit_status
    finally:
        conn.close()


async def test_a_player_adds_a_second_key_with_a_one_time_code(tmp_path):
    srv = await start_room(tmp_path)
    try:
        ana = await srv.json_client("ana")
        ana.send({"op": "create", "game": "estimation", "length": 13, "computer": [1, 2, 3]})
        joined = await ana.expect("joined")
        phone = asyncssh.generate_private_key("ssh-ed25519")
        # Without a code the phone's key is refused for ana's name.
        with pytest.raises(asyncssh.PermissionDenied):
            await srv.connect("ana", key=phone)
        ana.send({"op": "command", "line": "/key add"})
        reply = (await ana.expect("command"))["reply"]
        code = re.search(r"command: key (\S+)", reply).group(1)
        assert "for 10 minutes" in reply
        # A wrong code: said, nothing added; the right one adds the key, once.
        out, status = await exec_command(srv.port, "ana", phone, "key wrong-00000")
        assert status == 1 and "wrong or has expired" in out, out
        out, status = await exec_command(srv.port, "ana", phone, f"key {code}")
        assert status == 0 and "now one of ana's" in out, out
        out, status = await exec_command(srv.port, "ana", phone, f"key {code}")
        assert "already" in out, out
        # The phone is ana: the same identity, so the same seat.
        await ana.close()
        await asyncio.sleep(0.1)
        again = await srv.json_client("ana", key=phone)
        assert (await again.expect("joined"))["table"] == joined["table"]
        again.send({"op": "command", "line": "/key list"})
        listed = (await again.expect("command"))["reply"]
        assert phone.get_fingerprint("sha256") in listed
        assert srv.key("ana").get_fingerprint("sha256") in listed
        await again.close()
        # Guests have no keys to add.
        guest = await srv.guest_client("gus")
        guest.send({"op": "command", "line": "/key add"})
        assert "Guests have no key" in (await guest.expect("error"))["message"]
        await guest.close()
    finally:
        await stop_room(srv)


async def admin(data: Path, *words: str) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "admin", *words, "--data", str(data), cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out = (await asyncio.wait_for(proc.communicate(), 30))[0].decode()
    return proc.returncode or 0, out


@pytest.mark.slow
async def test_an_operator_moves_a_name_to_a_new_key_from_outside(tmp_path):
    """A real lamma serve; ana plays with her key, loses it; `lamma admin player move`
    gives her name to her new key: the old key no longer logs in, the new one does,
    back in her seat; list, rename and delete likewise, each in the operators' log."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = tmp_path / "data"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--data",
        str(data), "--keys", str(tmp_path / "keys"), "--bot-pause", "60", cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    old_key = asyncssh.generate_private_key("ssh-ed25519")
    new_key = asyncssh.generate_private_key("ssh-ed25519")
    try:
        assert proc.stdout is not None
        await wait_line(proc.stdout, LISTENING, 20)
        conn = await asyncssh.connect("127.0.0.1", port, username="ana", known_hosts=None,
                                      client_keys=[old_key], agent_path=None)
        p = await conn.create_process("play", encoding=None)
        p.stdin.write(b'{"op":"create","game":"estimation","length":13,"computer":[1,2,3]}\n')
        async with asyncio.timeout(10):
            while (msg := json.loads(await p.stdout.readline()))["type"] != "joined":
                pass
        table = msg["table"]
        code, out = await admin(data, "player", "move", "ana",
                                new_key.export_public_key().decode().strip())
        assert code == 0 and f"ana logs in with {new_key.get_fingerprint('sha256')} only" \
            in out, out
        async with asyncio.timeout(10):              # her old session is closed
            while line := await p.stdout.readline():
                if json.loads(line)["type"] == "bye":
                    break
        conn.close()
        with pytest.raises(asyncssh.PermissionDenied):
            await asyncssh.connect("127.0.0.1", port, username="ana", known_hosts=None,
                                   client_keys=[old_key], agent_path=None,
                                   preferred_auth="publickey")
        conn = await asyncssh.connect("127.0.0.1", port, username="ana", known_hosts=None,
                                      client_keys=[new_key], agent_path=None)
        p = await conn.create_process("play", encoding=None)
        async with asyncio.timeout(10):
            while (msg := json.loads(await p.stdout.readline()))["type"] != "joined":
                pass
        assert msg["table"] == table and msg["seat"] == 0       # her seat, kept
        conn.close()
        code, out = await admin(data, "player", "list", "an")
        assert code == 0 and out.startswith("ana: keys " + new_key.get_fingerprint("sha256"))
        assert "identity " + old_key.get_fingerprint("sha256") in out, out
        code, out = await admin(data, "player", "rename", "ana", "anna")
        assert code == 1 and "holds a seat in a match under way" in out, out
        code, out = await admin(data, "player", "delete", "nobody")
        assert code == 1 and "Nobody is called nobody" in out
        code, out = await admin(data, "log")
        assert "player move ana" in out, out                  # audited
    finally:
        await stop_process(proc)
