"""The Arabic names of the game terms: the words the players use, in any interface.

An English interface shows a term as ``English عربي``: most terminals neither join
Arabic letters nor lay them out right to left, so arabic-reshaper picks the joined
letter forms and python-bidi puts them in visual order, and a left-to-right
terminal shows the word as it is read. An Arabic interface says the term simply in
Arabic, in reading order: the line it is part of is laid out as a whole
(``tui.i18n.Speech.line``), so it is not shaped here.

These words are the game's own names (the same in every interface, from the rule
seeds), so they live here rather than in the catalogue, which translates the
English sentences around them (with a ``{dash}``-style placeholder for the term).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .i18n import Speech

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


def term(key: str, english: str, english_only: bool = False,
         speech: Speech | None = None) -> str:
    """The term in an Arabic interface (``speech``), in reading order; otherwise
    ``English عربي`` (shaped) unless the player asked for English terms only."""
    alone = _alone(key, english, english_only, speech)
    return alone if alone is not None else f"{english} {shaped(TERMS[key])}"


def _alone(key: str, english: str, english_only: bool, speech: Speech | None) -> str | None:
    """The term said in one language (the Arabic in an Arabic interface, the English
    where there is no Arabic or the player asked for English terms only), else None:
    both are said."""
    if key not in TERMS:
        return english
    if speech is not None and speech.rtl:
        return TERMS[key]
    return english if english_only else None


def term_said(key: str, english: str, english_only: bool = False,
              speech: Speech | None = None) -> str:
    """The term for a line that is laid out whole (``Speech.line``, which joins and
    orders any Arabic in it once): ``English عربي`` in reading order, or the Arabic
    alone in an Arabic interface (``term`` shapes it for a line drawn as it is; a
    line laid out after that would be shaped twice: reversed and unjoined)."""
    alone = _alone(key, english, english_only, speech)
    return alone if alone is not None else f"{english}\u00a0{TERMS[key]}"
