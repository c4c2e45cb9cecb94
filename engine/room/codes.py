"""Invitation codes of private tables.

Codes are typed by people: no 0/O, 1/I/L; case and dashes are ignored. 8 characters
of 31 are about 40 bits: with CODE_TRIES wrong codes per CODE_WINDOW per session,
guessing one takes years, not hours.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections import deque

from .errors import RoomError

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LEN = 8
CODE_TRIES = 5          # wrong codes ...
CODE_WINDOW = 60.0      # ... per this many seconds, per session; then every try is refused


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LEN))


def normalize_code(raw: object) -> str | None:
    """What a person typed, as the stored form: upper case, no spaces or dashes."""
    if not isinstance(raw, str) or len(raw) > 40:
        return None
    text = "".join(ch for ch in raw if ch not in " -\t").upper()
    if not text or not text.isascii() or not text.isalnum():
        return None
    return text


def code_label(code: str | None) -> str:
    """K7QMR2XD -> K7QM-R2XD (easier to read out); older codes as they are."""
    if code and len(code) == CODE_LEN:
        return code[:4] + "-" + code[4:]
    return code or ""


def code_matches(code: str | None, raw: object) -> bool:
    """Constant-time: the time taken says nothing about how close a guess was."""
    typed = normalize_code(raw)
    stored = normalize_code(code)
    if typed is None or stored is None:
        return False
    return hmac.compare_digest(typed.encode(), stored.encode())


class CodeGuard:
    """One session's wrong codes: while it has too many recent ones, every try is
    refused unchecked, so guessing costs wall-clock time and not only requests."""

    def __init__(self) -> None:
        self.fails: deque[float] = deque(maxlen=CODE_TRIES)

    def check(self) -> None:
        fails = self.fails
        now = time.monotonic()
        if len(fails) == fails.maxlen and now - fails[0] < CODE_WINDOW:
            wait = int(CODE_WINDOW - (now - fails[0])) + 1
            raise RoomError("Too many wrong codes: wait {wait} s and try again.", wait=wait)

    def failed(self, template: str, /, **params: object) -> RoomError:
        """Count a wrong code; the error to raise (``RoomError(template, **params)``:
        the caller marks ``template`` with ``N_``)."""
        self.fails.append(time.monotonic())
        return RoomError(template, **params)
