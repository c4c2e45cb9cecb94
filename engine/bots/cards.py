"""Bit-mask helpers shared by the computer players (cards are ints as in ``engine.cards``)."""

from __future__ import annotations

from collections.abc import Iterable

from ..cards import CARD_INDEX, CODES, NT, SUIT_CODES, SUIT_MASKS, suit_index

SM = SUIT_MASKS
# ABOVE[c]: the cards of c's suit higher than c; BELOW[c]: lower than c.
ABOVE = tuple(SM[c // 13] & ~((2 << c) - 1) for c in range(52))
BELOW = tuple(SM[c // 13] & ((1 << c) - 1) for c in range(52))
SUIT_INDEX: dict[str, int] = {code: suit_index(code) for code in SUIT_CODES}   # "NT" → NT


def hi(m: int) -> int:
    """The highest card of a non-empty mask."""
    return m.bit_length() - 1


def lo(m: int) -> int:
    """The lowest card of a non-empty mask."""
    return (m & -m).bit_length() - 1


def mask(codes: Iterable[str]) -> int:
    m = 0
    for code in codes:
        m |= 1 << CARD_INDEX[code]
    return m


__all__ = ["ABOVE", "BELOW", "CARD_INDEX", "CODES", "NT", "SM", "SUIT_INDEX", "hi", "lo", "mask"]
