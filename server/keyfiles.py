"""Key files an operator edits while the room runs (``keys/authorized_keys``,
``keys/operators``): each is read again whenever it changes, and only then; and the
allow-list read from the first (``--allow-list``)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

import asyncssh

T = TypeVar("T")
log = logging.getLogger("lamma.ssh")


class KeyFile(Generic[T]):
    """``path`` parsed by ``parse``; ``missing`` while there is no such file. Each
    ``current()`` costs one stat; the file is parsed again when its time or size moved."""

    def __init__(self, path: Path, parse: Callable[[str], T], missing: T):
        self.path = path
        self._parse = parse
        self._missing = missing
        self._stamp: tuple[int, int] | None = None
        self._value = missing

    def current(self) -> T:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            self._stamp, self._value = None, self._missing
            return self._value
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp != self._stamp:
            self._stamp = stamp
            self._value = self._parse(self.path.read_text(errors="replace"))
        return self._value


# authorized_keys options the room honours: "from" (the client's address must match),
# "no-pty" and "restrict" (programs only, no terminal; "pty" gives it back), and the
# forwarding ones (the room forwards nothing anyway). A key with any other option
# ("command=", "principals=", "environment=", "permitopen=", …) cannot be honoured: it is
# refused, with a log line, rather than admitted with its limits silently dropped.
HONOURED_OPTIONS = {"from", "no-pty", "restrict", "pty", "no-port-forwarding",
                    "no-agent-forwarding", "no-x11-forwarding", "no-user-rc"}


class AllowList:
    """``keys/authorized_keys`` for ``--allow-list``: read again whenever it changes."""

    def __init__(self, path: Path):
        self.file = KeyFile(path, self._parse, None)
        self._warned: set[str] = set()

    def _parse(self, text: str) -> asyncssh.SSHAuthorizedKeys | None:
        log.info("allow-list read: %s", self.file.path)
        try:
            return asyncssh.import_authorized_keys(text)
        except ValueError:              # no valid entry at all
            return None

    def admits(self, key: asyncssh.SSHKey, address: str) -> tuple[bool, bool]:
        """(admitted, terminal allowed) for ``key`` connecting from ``address``."""
        keys = self.file.current()
        if keys is None:
            return False, False
        try:
            options = keys.validate(key, address, address)
        except ValueError:                  # an address that is not an IP ("?")
            options = None
        if options is None:
            return False, False             # not listed, or "from" does not match
        unknown = set(options) - HONOURED_OPTIONS
        if unknown:
            fp = key.get_fingerprint("sha256")
            if fp not in self._warned:
                self._warned.add(fp)
                log.warning("allow-list: key %s has option(s) %s, which this room cannot "
                            "honour; the key is refused", fp, ", ".join(sorted(unknown)))
            return False, False
        terminal = ("no-pty" not in options and "restrict" not in options) or "pty" in options
        return True, terminal
