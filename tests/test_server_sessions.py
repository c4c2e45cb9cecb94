"""Sessions come and go: drops, takeovers, leaks, identity, hostile input."""

from __future__ import annotations

import asyncio
import gc
import shutil
import weakref

import asyncssh
import pytest
from conftest import reply_line
from procs import stop_process


async def wait_until(pred, timeout=5.0, step=0.01):
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        if pred():
            return True
        await asyncio.sleep(step)
    return pred()


@pytest.mark.slow
async def test_dropped_client_mid_trick_does_not_disturb_others_and_nothing_leaks(lamma_server):
    srv = lamma_server
    await asyncio.sleep(0.05)
    baseline = len(asyncio.all_tasks())

    # Two PTY players and two JSON players at one table.
    p0 = await srv.pty_client("pia")
    p1 = await srv.pty_client("pablo")
    j2 = await srv.json_client("jana")
    j3 = await srv.json_client("jon")
    await p0.wait_for("card room")
    await p1.wait_for("card room")
    j2.send({"op": "create", "game": "estimation-kotshina"})
    tid = (await j2.expect("joined"))["table"]
    j3.send({"op": "join", "table": tid})
    await j3.expect("joined")
    table = srv.registry.tables[tid]
    await p0.wait_for("waiting (2 free)")
    p0.press("enter")
    await wait_until(lambda: sum(s.kind == "human" for s in table.seats) == 3)
    await p1.wait_for("waiting (1 free)")
    p1.press("enter")
    assert await wait_until(lambda: table.match is not None)
    m = table.match
    apps = [weakref.ref(a) for a in srv.room.apps]
    assert len(apps) == 2
    seat_p0 = next(i for i, s in enumerate(table.seats) if s.name == "pia")
    names = [s.name for s in table.seats]
    jsons = {names.index("jana"): j2, names.index("jon"): j3}

    # Play (by the engine's auto action, through each member) until seat_p0
    # is in the middle of a trick, then drop p0's connection.
    def member(seat):
        return table.seats[seat].member

    while True:
        v = m.view(None)
        if v["phase"] == "play" and 1 <= len(v["trick"]) <= 2 and m.to_act != seat_p0:
            break
        seat = m.to_act
        table.act(member(seat), m.auto_action(seat))
        await asyncio.sleep(0)
    p0.conn.abort()   # the connection just drops
    assert await wait_until(lambda: table.seats[seat_p0].member is None)
    assert table.seats[seat_p0].kind == "human"            # the seat is held
    assert table.status == "playing"
    # The others play on; the dropped seat moves by its timer.
    srv.registry.absent_timeout = 0.01
    table.turns.schedule()
    log_before = len(m.log)
    for _ in range(40):
        seat = m.to_act
        if seat is None:
            break
        if seat == seat_p0:
            await wait_until(lambda: m.to_act != seat_p0, timeout=2)
            continue
        table.act(member(seat), m.auto_action(seat))
        await asyncio.sleep(0)
    assert len(m.log) > log_before + 20
    # JSON players got views all along; p1's screen still follows the game.
    for s, j in jsons.items():
        ok = await wait_until(lambda j=j, s=s: j.view == m.view(s), timeout=3)
        assert ok, {k: (j.view.get(k), m.view(s).get(k)) for k in m.view(s) if j.view.get(k) != m.view(s).get(k)}
    assert await wait_until(lambda: "Round" in p1.text(), timeout=3)

    # Everyone goes away; no App survives, tasks return to the baseline.
    await p1.close()
    await j2.close()
    await j3.close()
    await p0.close()
    assert await wait_until(lambda: not srv.room.online, timeout=5)
    assert await wait_until(lambda: not srv.room.session_tasks, timeout=5)
    for _ in range(3):
        gc.collect()
        await asyncio.sleep(0.05)
    alive = [r() for r in apps if r() is not None]
    assert not alive, f"{len(alive)} App(s) still alive: {gc.get_referrers(alive[0])[:3]}"
    assert await wait_until(lambda: len(asyncio.all_tasks()) <= baseline, timeout=5), (
        [t for t in asyncio.all_tasks()])


async def test_name_belongs_to_first_key_that_proves_it(lamma_server):
    srv = lamma_server
    k1 = asyncssh.generate_private_key("ssh-ed25519")
    k2 = asyncssh.generate_private_key("ssh-ed25519")
    c = await srv.json_client("Zeina", key=k1)
    c.send({"op": "tables"})
    await c.expect("tables")
    await c.close()
    assert srv.room.identity.owner("zeina") == k1.get_fingerprint("sha256")
    # A second key cannot take the bound name (any case).
    for name in ("Zeina", "zeina", "ZEINA"):
        with pytest.raises(asyncssh.PermissionDenied):
            await srv.connect(name, key=k2)
    # ... nor as a guest without a key.
    with pytest.raises(asyncssh.PermissionDenied):
        await srv.connect("Zeina", keyless=True)
    # The proven key can, again and again.
    c = await srv.json_client("zeina", key=k1)
    c.send({"op": "tables"})
    await c.expect("tables")
    await c.close()
    # A second key gets a free name of its own.
    c = await srv.json_client("Omar", key=k2)
    c.send({"op": "tables"})
    await c.expect("tables")
    await c.close()
    assert srv.room.identity.owner("omar") == k2.get_fingerprint("sha256")


@pytest.mark.skipif(shutil.which("ssh") is None, reason="OpenSSH client not installed")
async def test_openssh_shows_a_refusal_once(lamma_server, tmp_path):
    """OpenSSH retries keyboard-interactive (NumberOfPasswordPrompts): the refusal
    text must reach the person once, not three times."""
    srv = lamma_server
    owner = srv.key("owner")
    c = await srv.json_client("Zeina", key=owner)
    await c.close()
    other = tmp_path / "id_other"
    other.write_text(asyncssh.generate_private_key("ssh-ed25519").export_private_key().decode())
    other.chmod(0o600)
    proc = await asyncio.create_subprocess_exec(
        "ssh", "-p", str(srv.port), "-i", str(other), "-o", "IdentitiesOnly=yes",
        "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
        "-o", "BatchMode=no", "-F", "/dev/null", "Zeina@127.0.0.1", "play",
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    try:
        _out, err = await asyncio.wait_for(proc.communicate(), 20)
    finally:
        await stop_process(proc)
    text = err.decode(errors="replace")
    assert proc.returncode == 255
    assert text.count("belongs to another key") == 1, text
    assert "Permission denied" in text
    assert srv.room.identity.owner("zeina") == owner.get_fingerprint("sha256")


async def test_key_offered_but_not_proven_binds_nothing(lamma_server):
    """asyncssh asks validate_public_key before any signature: offering a key
    (someone else's public key) must not bind the name to it."""
    srv = lamma_server
    victim = asyncssh.generate_private_key("ssh-ed25519")
    attacker = asyncssh.generate_private_key("ssh-ed25519")

    class Offer(asyncssh.SSHClient):
        pass

    # Offer the victim's public key only: the client cannot sign with it.
    pub_only = asyncssh.import_public_key(victim.export_public_key())
    try:
        conn = await asyncssh.connect("127.0.0.1", srv.port, username="Nadia", known_hosts=None,
                                      client_keys=[(attacker, None)], agent_path=None,
                                      preferred_auth="publickey")
        conn.close()
    except asyncssh.Error:
        pass
    assert srv.room.identity.owner("Nadia") == attacker.get_fingerprint("sha256")
    assert pub_only.get_fingerprint("sha256") != srv.room.identity.owner("Nadia")


async def test_guests_and_bad_names(lamma_server):
    srv = lamma_server
    conn = await srv.connect("Guesty", keyless=True)
    proc = await conn.create_process("play", encoding=None)
    proc.stdin.write(b'{"op":"tables"}\n')
    line = await reply_line(proc.stdout)
    assert b'"tables"' in line
    conn.close()
    assert srv.room.identity.owner("Guesty") is None          # nothing kept for guests
    for bad in ("admin", "bot-2", "Bot3", "a" * 17, "x y", "семь;rm"):
        with pytest.raises(asyncssh.PermissionDenied):
            await srv.connect(bad)
    from engine.room.text import check_name
    for bad in ("evil\x1b[2J", "a\u202eb", "\u200bx", "x\ny"):  # asyncssh won't send these
        assert check_name(bad)[0] is None
    # letters of any script are fine
    c = await srv.json_client("سارة")
    c.send({"op": "tables"})
    await c.expect("tables")
    await c.close()


async def test_newer_terminal_takes_the_seat_over(lamma_server):
    srv = lamma_server
    a1 = await srv.json_client("rami")
    a1.send({"op": "create", "game": "estimation", "computer": [1, 2, 3]})
    j = await a1.expect("joined")
    await a1.expect("view")
    a2 = await srv.json_client("rami")
    joined = await a2.expect("joined")
    assert joined == {"type": "joined", "table": j["table"], "seat": 0}
    await a2.expect("view")
    bye = await a1.expect("bye")
    assert "another terminal" in bye["message"]
    table = srv.registry.tables[j["table"]]
    assert table.seats[0].member is not None and table.seats[0].member.kind == "json"
    await a1.close()
    await a2.close()


@pytest.mark.slow
async def test_hostile_pty_input_does_not_hurt_the_room(lamma_server):
    srv = lamma_server
    evil = await srv.pty_client("mallory", size=(100000, 100000), screen_size=(400, 200))
    good = await srv.json_client("goodie")
    await evil.wait_for("card room")
    # a megabyte of garbage, control sequences, an in-band resize claim,
    # invalid UTF-8, a huge paste, then a window change to absurd sizes
    junk = bytes(b for b in range(256) if b not in (3, 4, 0x11) and not (0x20 <= b < 0x7f))
    evil.press(b"\x1b[48;99999;99999;1;1t", b"\xff\xfe\xfd" * 1000,
               b"\x1b[200~" + b"A" * 200000 + b"\x1b[201~", junk * 400,
               b"\x1b[<0;99999;99999M", b"\x1b[" + b"9" * 5000 + b"m")
    evil.proc.change_terminal_size(0, 0)
    evil.proc.change_terminal_size(2 ** 32 - 1, 2 ** 32 - 1)
    good.send({"op": "tables"})
    await good.expect("tables", timeout=20)
    evil.proc.change_terminal_size(400, 200)
    # Keys over the rate (the junk was thousands) are dropped, and a key sent while the
    # server is still reading the junk goes with it: pressed again, as a person would.
    for _ in range(20):
        evil.press("n")
        try:
            await evil.wait_for("New table", timeout=1.0)
            break
        except AssertionError:
            continue
    assert "New table" in evil.text()
    await evil.close()
    await good.close()


async def test_a_started_server_hands_the_gil_over_every_millisecond(room):
    """The store's writer thread waits for the GIL a switch interval at a time while the
    loop draws (server/runtime.py: 1 ms, not Python's 5)."""
    import sys

    from server import runtime
    assert sys.getswitchinterval() == runtime.SWITCH_INTERVAL == 0.001


async def openssh_play(port: int, name: str, line: bytes, key=None) -> tuple[int, str, str]:
    """OpenSSH's ``ssh -p PORT -l NAME 127.0.0.1 play`` with ``line`` on its input: its
    exit status, what it printed and what it said on stderr (a guest without ``key``,
    as ``-o PubkeyAuthentication=no`` comes in)."""
    who = (["-i", str(key), "-o", "IdentitiesOnly=yes"] if key is not None
           else ["-o", "PubkeyAuthentication=no"])
    proc = await asyncio.create_subprocess_exec(
        "ssh", "-p", str(port), *who, "-o", "StrictHostKeyChecking=no",
        "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=no", "-F", "/dev/null",
        "-l", name, "127.0.0.1", "play", stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(proc.communicate(line), 20)
    finally:
        await stop_process(proc)
    assert proc.returncode is not None
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


@pytest.mark.skipif(shutil.which("ssh") is None, reason="OpenSSH client not installed")
async def test_arabic_names_with_digits_or_marks_at_an_end_come_in(lamma_server, tmp_path):
    """A name is letters of one script, digits, '_' and '-' (README), in any order.
    asyncssh prepares a user name with SASLprep, whose bidi rule refuses a name with
    Arabic letters unless it begins and ends with one ('سامي1' was disconnected with
    "RandALCat character not at both start and end" before the room saw it).  The
    room checks names itself (``check_name``), so each of these comes in, a guest
    or with a key, and a name the room refuses is refused in the room's words."""
    srv = lamma_server
    key = tmp_path / "id"
    key.write_text(asyncssh.generate_private_key("ssh-ed25519").export_private_key().decode())
    key.chmod(0o600)
    tables = b'{"op":"tables"}\n'
    code, out, err = await openssh_play(srv.port, "سامي1", tables, key=key)
    assert code == 0 and '"type":"tables"' in out, err
    assert srv.room.identity.owner("سامي1") is not None
    # (distinct names: 'سامي١' would look like the key's 'سامي1', and be refused so)
    for name in ("سامي_", "ليلى١", "1هدى", "نور-", "سامي-ع"):
        code, out, err = await openssh_play(srv.port, name, tables)
        assert code == 0 and '"type":"tables"' in out, (name, err)
        assert "RandALCat" not in err
    # Arabic with Latin letters: the room's own refusal, not SASLprep's.
    code, out, err = await openssh_play(srv.port, "سامي1a", tables)
    assert code == 255 and "mixes Arabic and Latin letters" in err, err
    assert "RandALCat" not in err


def test_user_names_are_prepared_as_saslprep_does_but_for_the_bidi_rule():
    """``wire.user_name_prep`` is asyncssh's SASLprep without the bidi rule: the same
    name out wherever SASLprep takes one, the same refusals (control, unassigned,
    private use...), and Arabic letters with a digit, '_' or '-' at an end taken."""
    from asyncssh.saslprep import SASLPrepError, saslprep

    from server.wire import user_name_prep

    taken = ["sami", "Sámi", "ＳＡＭＩ", "ｻﾐ", "ﬁna", "so\u00adfi", "a\u00a0b", "سامي",
             "سامي-ع", "Дарья", "ΑΒΓ", "李小龍", "x\u0301", "ⅸ", "①"]
    for name in taken:
        assert user_name_prep(name) == saslprep(name), name
    refused = ["a\x00b", "a\x1bb", "a\u202eb", "\ue000x", "a\u0378b", "a\u2028b", "a\ufffdb"]
    for name in refused:
        with pytest.raises(SASLPrepError):
            saslprep(name)
        with pytest.raises(SASLPrepError):
            user_name_prep(name)
    for name in ("سامي1", "سامي_", "سامي١", "1سامي", "-سامي", "سامي1a"):
        with pytest.raises(SASLPrepError):
            saslprep(name)
        assert user_name_prep(name) == name
