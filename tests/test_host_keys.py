"""Host key rotation (issue 45): ``lamma keys rotate`` serves a new host key beside the
old one and names both to clients after login (``hostkeys-00@openssh.com``); OpenSSH,
which knew only the old key, connects without a warning and learns the new one
(UpdateHostKeys); after ``lamma keys retire`` it connects to the new key, again without a
warning, and forgets the old one. Real ``lamma`` processes and OpenSSH's ``ssh``."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import asyncssh
import pytest
from procs import LISTENING, stop_process, wait_line

from server.hostkeys import HOST_KEY_NAME, describe, host_keys, retire, rotate

ROOT = Path(__file__).resolve().parents[1]


def test_rotate_then_retire_in_the_keys_folder(tmp_path):
    keys = tmp_path / "keys"
    first = host_keys(keys)
    assert len(first) == 1
    current, nxt, made = rotate(keys)
    assert made and current.public_data == first[0].public_data
    assert (keys / (HOST_KEY_NAME + ".next")).stat().st_mode & 0o077 == 0
    again = rotate(keys)
    assert not again[2] and again[1].public_data == nxt.public_data    # one next key
    served = host_keys(keys)
    assert [k.public_data for k in served] == [current.public_data, nxt.public_data]
    assert any("next" in line for line in describe(keys))
    old, new, kept = retire(keys)
    assert (old, new) == (current.get_fingerprint("sha256"), nxt.get_fingerprint("sha256"))
    assert [k.public_data for k in host_keys(keys)] == [nxt.public_data]
    assert asyncssh.read_private_key(str(kept)).public_data == current.public_data
    assert (keys / (HOST_KEY_NAME + ".pub")).read_bytes() == nxt.export_public_key()
    assert any(line.startswith("retired") for line in describe(keys))
    with pytest.raises(ValueError, match="no next host key"):
        retire(keys)


def lamma(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "server.cli", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", **env})


def known(home: Path) -> set[str]:
    """The keys known_hosts holds (their base64)."""
    path = home / "known_hosts"
    return {line.split()[2] for line in path.read_text().splitlines() if line.strip()}


async def ssh_play(home: Path, port: int, key: Path) -> tuple[int, str, str]:
    """OpenSSH, strict about host keys and updating them, in a program session that
    stays a moment (the host keys' proof is asked for after login)."""
    proc = await asyncio.create_subprocess_exec(
        shutil.which("ssh") or "ssh", "-F", "/dev/null", "-p", str(port),
        "-o", f"UserKnownHostsFile={home / 'known_hosts'}",
        "-o", "StrictHostKeyChecking=yes", "-o", "UpdateHostKeys=yes",
        "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", "-i", str(key),
        "-o", "LogLevel=INFO", "-T", "ana@127.0.0.1", "play",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"})
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b'{"op":"tables"}\n')
    out = b""
    try:
        async with asyncio.timeout(20):
            while b'"tables"' not in out:
                line = await proc.stdout.readline()
                if not line:
                    break
                out += line
        await asyncio.sleep(1.0)            # the hostkeys proof comes and goes
        proc.stdin.close()
        _, err = await asyncio.wait_for(proc.communicate(), 20)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    return proc.returncode or 0, out.decode(), err.decode()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("ssh") is None, reason="no OpenSSH client")
async def test_openssh_learns_the_new_key_and_keeps_connecting_without_a_warning(tmp_path):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    keys, data, home = tmp_path / "keys", tmp_path / "data", tmp_path / "home"
    home.mkdir(mode=0o700)
    env = {"LAMMA_PORT": str(port), "LAMMA_DATA": str(data), "LAMMA_KEYS": str(keys),
           "LAMMA_SERVE_STATUS_EVERY": "0"}
    client_key = home / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(client_key)],
                   check=True, timeout=30)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", **env},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        assert proc.stdout is not None
        await wait_line(proc.stdout, LISTENING, 20)
        # The client knows the room's key (from a first visit).
        old_line = (keys / (HOST_KEY_NAME + ".pub")).read_text().split()
        (home / "known_hosts").write_text(f"[127.0.0.1]:{port} {old_line[0]} {old_line[1]}\n")
        os.chmod(home / "known_hosts", 0o600)

        run = await asyncio.to_thread(lamma, "keys", "rotate", env=env)
        assert run.returncode == 0, run.stderr
        assert "The running room: Host keys read again" in run.stdout, run.stdout
        new_pub = (keys / (HOST_KEY_NAME + ".next.pub")).read_text().split()[1]

        code, out, err = await ssh_play(home, port, client_key)
        assert code == 0 and '"tables"' in out, (code, out, err)
        assert "WARNING" not in err and "REMOTE HOST IDENTIFICATION" not in err, err
        assert known(home) == {old_line[1], new_pub}, (known(home), err)   # learnt

        run = await asyncio.to_thread(lamma, "keys", "retire", env=env)
        assert run.returncode == 0 and "The running room: Host keys read again" in \
            run.stdout, run
        code, out, err = await ssh_play(home, port, client_key)
        assert code == 0 and '"tables"' in out, (code, out, err)
        assert "WARNING" not in err, err
        assert known(home) == {new_pub}, (known(home), err)     # the old one forgotten
        # ... and the room signs with the new key now.
        conn = await asyncssh.connect("127.0.0.1", port, username="bo", known_hosts=None,
                                      client_keys=[asyncssh.generate_private_key(
                                          "ssh-ed25519")], agent_path=None)
        served = conn.get_server_host_key()
        conn.close()
        assert served is not None and served.export_public_key().split()[1].decode() == new_pub
    finally:
        await stop_process(proc)
