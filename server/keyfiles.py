"""Key files an operator edits while the room runs (``keys/authorized_keys``,
``keys/operators``): each is read again whenever it changes, and only then."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")


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
