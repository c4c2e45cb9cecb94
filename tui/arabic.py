"""Arabic names of the game terms, shaped and ordered for terminals.

Most terminals neither join Arabic letters nor lay them out right to left:
arabic-reshaper picks the joined letter forms and python-bidi puts them in
visual order, so a left-to-right terminal shows the word as it is read.
"""

from __future__ import annotations

from functools import lru_cache

TERMS = {
    "dash": "داش",
    "with": "ويذ",
    "risk": "ريسك",
    "saayda": "صعايدة",
    "tarneeb": "طرنيب",
}


@lru_cache(maxsize=64)
def shaped(text: str) -> str:
    try:
        import arabic_reshaper
        from bidi.algorithm import get_display
    except ImportError:      # pragma: no cover - the dependencies are declared
        return text
    return get_display(arabic_reshaper.reshape(text))


def term(key: str, english: str, english_only: bool = False) -> str:
    """``English (عربي)`` unless the player asked for English terms only."""
    if english_only or key not in TERMS:
        return english
    return f"{english} {shaped(TERMS[key])}"
