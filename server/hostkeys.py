"""The host keys (issue 45): the one clients know, and its successor while the room
changes to it.

OpenSSH's way (``hostkeys-00@openssh.com``, PROTOCOL 2.5; sshd does it, and asyncssh's
``send_server_host_keys``): once a client has logged in, the server names every host key
it holds, the client asks it to prove it holds them (``hostkeys-prove-00``), and a client
with ``UpdateHostKeys`` (OpenSSH's default when it uses its own known_hosts) adds the keys
it did not know to known_hosts and drops those no longer named. So:

1. ``lamma keys rotate`` makes the next key, ``ssh_host_ed25519_key.next``: the room
   still signs with the old one (known to every client: no warning) and names both, so
   each client that logs in learns the new one;
2. weeks later, ``lamma keys retire`` makes the next key the room's and keeps the old one
   as ``ssh_host_ed25519_key.retired-DATE`` (not served): clients that learnt the new key
   connect without a warning and drop the old one from known_hosts; a client that did not
   come meanwhile is told the key changed, as with any new key.

A running room reads the keys folder again on SIGHUP or ``lamma admin hostkeys`` (both
commands ask it themselves through the admin socket); new connections get the new set.
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

import asyncssh

HOST_KEY_NAME = "ssh_host_ed25519_key"
NEXT = ".next"
RETIRED = ".retired-"


def _write(path: Path, key: asyncssh.SSHKey) -> asyncssh.SSHKey:
    """``key`` written to ``path`` (0600) and its public half beside it, appearing whole
    and once: written to a file of its own and linked into place. If another process was
    first, its key."""
    draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(str(draft), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(key.export_private_key())
        try:
            os.link(draft, path)
        except FileExistsError:             # another process was first: its key
            return asyncssh.read_private_key(str(path))
    finally:
        draft.unlink(missing_ok=True)
    path.with_name(path.name + ".pub").write_bytes(key.export_public_key())
    return key


def load_host_key(keys_dir: Path) -> asyncssh.SSHKey:
    """The host key: generated on first start (mode 0600), reused after. Processes
    started together on one keys folder all end up with the same key."""
    keys_dir.mkdir(parents=True, exist_ok=True)
    path = keys_dir / HOST_KEY_NAME
    if path.exists():
        return asyncssh.read_private_key(str(path))
    return _write(path, asyncssh.generate_private_key("ssh-ed25519"))


def host_keys(keys_dir: Path) -> list[asyncssh.SSHKey]:
    """What the room serves: its key (the one it signs with), then the next one if a
    rotation is under way (named to clients, so that they learn it)."""
    keys = [load_host_key(keys_dir)]
    nxt = keys_dir / (HOST_KEY_NAME + NEXT)
    if nxt.exists():
        keys.append(asyncssh.read_private_key(str(nxt)))
    return keys


def fingerprint(key: asyncssh.SSHKey) -> str:
    return key.get_fingerprint("sha256")


def rotate(keys_dir: Path) -> tuple[asyncssh.SSHKey, asyncssh.SSHKey, bool]:
    """The next key made (if none is yet): (the room's key, the next one, made now)."""
    current = load_host_key(keys_dir)
    nxt = keys_dir / (HOST_KEY_NAME + NEXT)
    if nxt.exists():
        return current, asyncssh.read_private_key(str(nxt)), False
    return current, _write(nxt, asyncssh.generate_private_key("ssh-ed25519")), True


def retire(keys_dir: Path) -> tuple[str, str, Path]:
    """The next key becomes the room's; the old one is kept aside, not served. (the old
    fingerprint, the new one, where the old key is kept). ValueError if no rotation is
    under way."""
    path = keys_dir / HOST_KEY_NAME
    nxt = keys_dir / (HOST_KEY_NAME + NEXT)
    if not nxt.exists():
        raise ValueError("no next host key to change to: lamma keys rotate makes one "
                         "(and clients learn it as they connect, before it is retired)")
    old = fingerprint(asyncssh.read_private_key(str(path)))
    new = fingerprint(asyncssh.read_private_key(str(nxt)))
    kept = keys_dir / f"{HOST_KEY_NAME}{RETIRED}{time.strftime('%Y-%m-%dT%H%M%SZ', time.gmtime())}"
    # The old key aside first (a hard link: the room's file stays in place until the
    # next one replaces it in one rename, so there is always a host key to start with).
    os.link(path, kept)
    pub = path.with_name(path.name + ".pub")
    if pub.exists():
        os.replace(pub, kept.with_name(kept.name + ".pub"))
    os.replace(nxt, path)
    nxt_pub = nxt.with_name(nxt.name + ".pub")
    if nxt_pub.exists():
        os.replace(nxt_pub, pub)
    return old, new, kept


def describe(keys_dir: Path) -> list[str]:
    """The keys folder's host keys, one line each."""
    lines = []
    path = keys_dir / HOST_KEY_NAME
    if not path.exists():
        return [f"{path}: none yet (lamma serve makes one at its first start)"]
    lines.append(f"served, signs: {fingerprint(asyncssh.read_private_key(str(path)))} "
                 f"({path})")
    nxt = keys_dir / (HOST_KEY_NAME + NEXT)
    if nxt.exists():
        lines.append(f"served, named to clients (next): "
                     f"{fingerprint(asyncssh.read_private_key(str(nxt)))} ({nxt}); "
                     "lamma keys retire makes it the room's")
    for old in sorted(keys_dir.glob(HOST_KEY_NAME + RETIRED + "*")):
        if not old.name.endswith(".pub"):
            lines.append(f"retired, not served: "
                         f"{fingerprint(asyncssh.read_private_key(str(old)))} ({old})")
    return lines
