"""Sanitising everything a client sends before anyone else can see it."""

from __future__ import annotations

import re
import unicodedata

NAME_MAX = 16
CHAT_MAX = 200

# Names that belong to the room itself or to its computer players.
RESERVED = {"admin", "administrator", "root", "system", "server", "lamma",
            "guest", "computer", "bot", "nobody", "spectator"}
_BOT_RE = re.compile(r"^bot[-_]?\d*$")


def is_reserved(name: str) -> bool:
    folded = name.casefold()
    return folded in RESERVED or bool(_BOT_RE.match(folded))


def check_name(raw: str) -> tuple[str | None, str]:
    """Return (name, "") for a valid player name, else (None, reason).

    1–16 characters: letters of any script, digits, ``_`` and ``-``.
    The name is NFC-normalised; letters include combining marks of the same
    script (needed by e.g. Arabic or Devanagari) but nothing else.
    """
    if not isinstance(raw, str):
        return None, "A name is required."
    name = unicodedata.normalize("NFC", raw)
    if not name:
        return None, "A name is required: ssh -p PORT NAME@HOST"
    if len(name) > NAME_MAX:
        return None, f"Names are at most {NAME_MAX} characters."
    for i, ch in enumerate(name):
        if ch in "_-":
            continue
        cat = unicodedata.category(ch)
        if cat[0] == "L" or cat == "Nd":
            continue
        if cat in ("Mn", "Mc") and i > 0:
            continue
        return None, ("Names may use letters of any script, digits, '_' and '-' "
                      f"(1–{NAME_MAX} characters).")
    if is_reserved(name):
        return None, f"The name '{name}' is reserved; please choose another."
    return name, ""


def name_key(name: str) -> str:
    """The form under which names are unique (case-insensitive)."""
    return unicodedata.normalize("NFC", name).casefold()


def clean_chat(raw: object) -> str:
    """One line of chat with nothing that could act on a terminal.

    Control characters (C0, C1, DEL), format characters (bidi overrides,
    zero-width joiners used for spoofing), line/paragraph separators,
    surrogates and private-use characters are all dropped; whitespace
    runs collapse to one space.
    """
    if not isinstance(raw, str):
        return ""
    out: list[str] = []
    for ch in raw[: CHAT_MAX * 4]:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            if ch in "\t\n\r":
                out.append(" ")
            continue
        if cat == "Zs":
            out.append(" ")
            continue
        out.append(ch)
    text = re.sub(r" {2,}", " ", "".join(out)).strip()
    return text[:CHAT_MAX]


def safe_text(raw: object, limit: int = 80) -> str:
    """Any client string shown on a screen (e.g. TERM): printable only."""
    return clean_chat(str(raw))[:limit]
