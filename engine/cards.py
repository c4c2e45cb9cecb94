"""Cards, suits and bids: the small vocabulary every game shares.

A card is an int 0..51 inside the engine (``suit * 13 + rank``, rank 0 is the
two and 12 the ace, so within a suit a bigger int is a higher card) and a code
such as ``"QS"`` or ``"TD"`` outside it. A hand is a bit mask of cards. Suits
inside the engine are 0..3 (S H D C) and ``NT`` (-1) for no trump.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeGuard

from .types import SuitCode

RANKS = "23456789TJQKA"          # index = rank
SUITS = "SHDC"                   # index = suit
NT = -1                          # "Sans": no trump
SUIT_CODES: tuple[SuitCode, ...] = ("S", "H", "D", "C", "NT")

# E-5: NT > S > H > D > C. The strength of a suit in a bid.
BID_SUIT_ORDER: dict[str, int] = {"C": 0, "D": 1, "H": 2, "S": 3, "NT": 4}
# T-25: between equal ranks of different suits, the first in the order C D H S.
TIMER_SUIT_ORDER = {3: 0, 2: 1, 1: 2, 0: 3}

CODES: tuple[str, ...] = tuple(RANKS[c % 13] + SUITS[c // 13] for c in range(52))
CARD_INDEX: dict[str, int] = {code: c for c, code in enumerate(CODES)}
FULL_SUIT = (1 << 13) - 1
SUIT_MASKS: tuple[int, ...] = tuple(FULL_SUIT << (13 * s) for s in range(4))


def parse_card(text: object) -> int | None:
    """``"QS"``, ``"qs"``, ``"10h"``, ``"Th"`` → card int; None if not a card."""
    if not isinstance(text, str) or len(text) > 4:
        return None
    c = CARD_INDEX.get(text)
    if c is not None:
        return c
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    return CARD_INDEX.get(t)


def suit_index(code: str) -> int:
    """``"S"`` → 0 … ``"C"`` → 3, ``"NT"`` → NT."""
    return NT if code == "NT" else SUITS.index(code)


def is_suit_code(value: object) -> TypeGuard[SuitCode]:
    """Exactly one of "S" "H" "D" "C" "NT": the suit of a bid or a call."""
    return type(value) is str and value in BID_SUIT_ORDER


def suit_code(s: int | None) -> SuitCode | None:
    if s is None:
        return None
    return SUIT_CODES[s]          # NT is -1: the last code


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """The cards of a mask, lowest int first."""
    out: list[int] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def sorted_codes(mask: int) -> list[str]:
    """A hand as codes: suits S H D C, high card first within a suit."""
    return [CODES[c] for s in range(4) for c in reversed(cards_of(mask & SUIT_MASKS[s]))]


def trick_winner(cards: list[int], trump: int) -> int:
    """Index in ``cards`` of the winning card (E-27, T-16)."""
    best = 0
    best_card = cards[0]
    best_suit = best_card // 13
    for i in range(1, len(cards)):
        c = cards[i]
        cs = c // 13
        if cs == best_suit:
            if c > best_card:
                best, best_card = i, c
        elif cs == trump:
            best, best_card, best_suit = i, c, cs
    return best
