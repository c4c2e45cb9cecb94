"""Bit-mask helpers shared by the computer players (cards are ints as in ``engine.cards``)."""

from __future__ import annotations

from ..cards import CARD_INDEX, CODES, NT, SUIT_MASKS

SM = SUIT_MASKS
FULL = (1 << 52) - 1
# ABOVE[c]: the cards of c's suit higher than c; BELOW[c]: lower than c.
ABOVE = tuple(SM[c // 13] & ~((2 << c) - 1) for c in range(52))
BELOW = tuple(SM[c // 13] & ((1 << c) - 1) for c in range(52))
SUIT_INDEX = {"S": 0, "H": 1, "D": 2, "C": 3, "NT": NT}
SUIT_NAMES = ("S", "H", "D", "C")


def hi(m: int) -> int:
    """The highest card of a non-empty mask."""
    return m.bit_length() - 1


def lo(m: int) -> int:
    """The lowest card of a non-empty mask."""
    return (m & -m).bit_length() - 1


def mask(codes) -> int:
    m = 0
    for code in codes:
        m |= 1 << CARD_INDEX[code]
    return m


def trump_of(code) -> int | None:
    """A suit code ("S".."C", "NT") → -1..3; None stays None."""
    return None if code is None else SUIT_INDEX[code]


__all__ = ["SM", "FULL", "ABOVE", "BELOW", "NT", "CODES", "CARD_INDEX", "hi", "lo", "mask",
           "trump_of", "SUIT_INDEX", "SUIT_NAMES"]
