"""Every SSH client people use (issue 32): OpenSSH's ``ssh``, PuTTY's ``plink`` and
dropbear's ``dbclient`` log in with a key and as a guest, draw the lobby in a PTY, and
run a program's JSON ``tables``.

dropbear's client was refused at the key exchange (``Key exchange not in progress``):
it sends a guessed first key-exchange packet, which asyncssh and the client judged
differently while the server's first exchange was not the client's (server/wire.py,
``kex_algs``). Each test skips, saying how to install it, where a client is missing
(``.ci/run`` installs them where it can).
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import pty
import shutil
import struct
import subprocess
import termios
from pathlib import Path

import pyte
import pytest
from conftest import LammaServer, reply_line
from procs import exited, stop_popen, stop_process

pytestmark = pytest.mark.slow      # OpenSSH, PuTTY and dropbear as processes

CLIENTS = {
    "ssh": "openssh-client",
    "plink": "putty-tools",
    "dbclient": "dropbear-bin",
}


def need(client: str) -> str:
    path = shutil.which(client)
    if path is None:
        pytest.skip(f"{client} is not installed (apt-get install {CLIENTS[client]})")
    return path


def host_fingerprint(srv: LammaServer) -> str:
    import asyncssh
    key = asyncssh.read_private_key(str(srv.room.config.keys / "ssh_host_ed25519_key"))
    return str(key.get_fingerprint("sha256"))


def key_for(client: str, folder: Path) -> Path:
    """A new ed25519 key in the client's own format."""
    openssh = folder / "id_ed25519"
    if not openssh.exists():
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(openssh)],
                       check=True, timeout=30)
    if client == "plink":
        need("puttygen")
        ppk = folder / "id.ppk"
        subprocess.run(["puttygen", str(openssh), "-O", "private", "-o", str(ppk)],
                       check=True, capture_output=True, timeout=30)
        return ppk
    if client == "dbclient":
        need("dropbearconvert")
        db = folder / "id.dropbear"
        subprocess.run(["dropbearconvert", "openssh", "dropbear", str(openssh), str(db)],
                       check=True, capture_output=True, timeout=30)
        return db
    return openssh


def command(client: str, srv: LammaServer, name: str, key: Path | None, *,
            terminal: bool, remote: str = "", home: Path) -> list[str]:
    path = need(client)
    port = str(srv.port)
    if client == "ssh":
        args = [path, "-p", port, "-o", "StrictHostKeyChecking=no",
                "-o", f"UserKnownHostsFile={home / 'known_hosts'}", "-o", "BatchMode=no",
                "-F", "/dev/null", "-tt" if terminal else "-T"]
        if key is not None:
            args += ["-i", str(key), "-o", "IdentitiesOnly=yes",
                     "-o", "PreferredAuthentications=publickey"]
        else:
            args += ["-o", "PubkeyAuthentication=no",
                     "-o", "PreferredAuthentications=keyboard-interactive"]
        args += [f"{name}@127.0.0.1"]
    elif client == "plink":
        args = [path, "-P", port, "-hostkey", host_fingerprint(srv), "-l", name, "-noagent",
                "-t" if terminal else "-T"]
        if key is not None:
            args += ["-i", str(key)]
        if not terminal:
            args += ["-batch"]
        args += ["127.0.0.1"]
    else:
        args = [path, "-y", "-y", "-p", port, "-t" if terminal else "-T"]
        if key is not None:
            args += ["-i", str(key)]
        args += [f"{name}@127.0.0.1"]
    return args + ([remote] if remote else [])


def client_env(home: Path) -> dict[str, str]:
    """A home of the test's own: no agent, no known hosts or keys of the machine's."""
    env = {k: v for k, v in os.environ.items() if k not in ("SSH_AUTH_SOCK", "DISPLAY")}
    env.update(HOME=str(home), TERM="xterm-256color", LANG="C.UTF-8")
    return env


async def json_tables(client: str, srv: LammaServer, name: str, key: Path | None,
                      home: Path) -> dict:
    proc = await asyncio.create_subprocess_exec(
        *command(client, srv, name, key, terminal=False, remote="play", home=home),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=client_env(home))
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b'{"op":"tables"}\n')
    try:
        line = await reply_line(proc.stdout, 20)
    finally:
        proc.stdin.close()
        if not await exited(proc, 5):
            await stop_process(proc)
    assert line, (await asyncio.wait_for(proc.stderr.read(), 5)).decode(errors="replace") \
        if proc.stderr else ""
    return dict(json.loads(line))


async def lobby_in_a_pty(client: str, srv: LammaServer, name: str, key: Path | None,
                         home: Path) -> str:
    """The client in a real 80x24 PTY, its screen kept by pyte, until the lobby shows;
    PuTTY's "Press Return to begin session" is answered as a person would."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    proc = subprocess.Popen(command(client, srv, name, key, terminal=True, home=home),
                            stdin=slave, stdout=slave, stderr=slave, env=client_env(home),
                            start_new_session=True)
    os.close(slave)
    screen = pyte.Screen(80, 24)
    stream = pyte.ByteStream(screen)
    loop = asyncio.get_running_loop()
    got: asyncio.Queue[bytes] = asyncio.Queue()

    def readable() -> None:
        try:
            got.put_nowait(os.read(master, 65536))
        except OSError:
            got.put_nowait(b"")
    loop.add_reader(master, readable)
    answered = False
    text = ""
    try:
        async with asyncio.timeout(20):
            while "card room" not in text:
                data = await got.get()
                if not data:
                    break
                stream.feed(data)
                text = "\n".join(screen.display)
                if "Press Return" in text and not answered:
                    os.write(master, b"\r")
                    answered = True
        return text
    finally:
        loop.remove_reader(master)
        stop_popen(proc, grace=5)
        os.close(master)


@pytest.mark.parametrize("client", list(CLIENTS))
async def test_a_guest_and_a_key_run_a_program(client: str, room: LammaServer,
                                               tmp_path: Path) -> None:
    need(client)
    reply = await json_tables(client, room, f"{client[:4]}g", None, tmp_path)
    assert reply["type"] == "tables", reply
    key = key_for(client, tmp_path)
    reply = await json_tables(client, room, f"{client[:4]}k", key, tmp_path)
    assert reply["type"] == "tables", reply
    # The key's login bound the name: it is the key's, not a guest's.
    assert room.room.identity.owner(f"{client[:4]}k") is not None


@pytest.mark.parametrize("client", list(CLIENTS))
@pytest.mark.parametrize("with_key", [False, True], ids=["guest", "key"])
async def test_the_lobby_draws_in_a_pty(client: str, with_key: bool, room: LammaServer,
                                        tmp_path: Path) -> None:
    need(client)
    key = key_for(client, tmp_path) if with_key else None
    text = await lobby_in_a_pty(client, room, f"{client[:4]}{'k' if with_key else 'g'}",
                                key, tmp_path)
    assert "card room" in text, text


@pytest.mark.parametrize("client", list(CLIENTS))
async def test_a_program_plays_a_round_through_each_client(client: str,
                                                           lamma_server: LammaServer,
                                                           tmp_path: Path) -> None:
    """With a key, a program opens a table with three computer players and plays the
    first round to its end through the client (every byte of it over that client)."""
    need(client)
    key = key_for(client, tmp_path)
    proc = await asyncio.create_subprocess_exec(
        *command(client, lamma_server, f"{client[:4]}p", key, terminal=False,
                 remote="play", home=tmp_path),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env=client_env(tmp_path))
    assert proc.stdin is not None and proc.stdout is not None

    def send(obj: dict) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(obj).encode() + b"\n")
    send({"op": "create", "game": "estimation", "computer": [1, 2, 3]})
    moves = 0
    try:
        async with asyncio.timeout(60):
            while True:
                line = await proc.stdout.readline()
                assert line, "the client's connection ended"
                msg = json.loads(line)
                assert msg["type"] != "error", msg
                if msg["type"] != "view":
                    continue
                view = msg["view"] if "view" in msg else msg
                if (view.get("round") or 1) > 1 or view.get("result") is not None:
                    break                   # the first round is over
                if view.get("to_act") == 0 and view.get("legal"):
                    send({"op": "act", "action": view["legal"][0]})
                    moves += 1
    finally:
        proc.stdin.close()
        await stop_process(proc, grace=0)       # killed at once
    assert moves >= 13, moves               # at least a card for every trick
