"""Bit-mask helpers shared by the computer players (cards are ints as in ``engine.cards``)."""

from __future__ import annotations

import random
from collections.abc import Iterable

from ..cards import BID_SUIT_ORDER, CARD_INDEX, CODES, NT, SUIT_CODES, SUIT_MASKS, suit_index
from ..types import View

SM = SUIT_MASKS
# ABOVE[c]: the cards of c's suit higher than c; BELOW[c]: lower than c.
ABOVE = tuple(SM[c // 13] & ~((2 << c) - 1) for c in range(52))
BELOW = tuple(SM[c // 13] & ((1 << c) - 1) for c in range(52))
SUIT_INDEX: dict[str, int] = {code: suit_index(code) for code in SUIT_CODES}   # "NT" → NT
SUIT_CODE: dict[int, str] = {i: code for code, i in SUIT_INDEX.items()}          # NT → "NT"


def hi(m: int) -> int:
    """The highest card of a non-empty mask."""
    return m.bit_length() - 1


def lo(m: int) -> int:
    """The lowest card of a non-empty mask."""
    return (m & -m).bit_length() - 1


def any_card(m: int, rng: random.Random) -> int:
    """A card of the non-empty mask ``m``, each as likely (one ``randrange`` drawn)."""
    k = rng.randrange(m.bit_count())
    while k:
        m &= m - 1
        k -= 1
    return (m & -m).bit_length() - 1


MIN_BID = 4                  # E-10


def bid_key(n: int, suit: str) -> int:
    """A bid's place in the auction's order (E-11: more tricks, then NT > S > H > D > C)."""
    return n * 5 + BID_SUIT_ORDER[suit]


def lowest_bid(key: int, suit: str) -> int:
    """The lowest number in ``suit`` that beats a bid of ``key``."""
    n = MIN_BID
    while bid_key(n, suit) <= key:
        n += 1
    return n


def mask(codes: Iterable[str]) -> int:
    m = 0
    for code in codes:
        m |= 1 << CARD_INDEX[code]
    return m


__all__ = ["ABOVE", "BELOW", "CARD_INDEX", "CODES", "MIN_BID", "NT", "SM", "SUIT_CODE", "SUIT_INDEX",
           "any_card", "bid_key", "hi", "lo", "lowest_bid", "mask"]


def view_cards(v: View) -> tuple[int, int, list[int], int]:
    """What a fast card choice needs from a view: the seat's hand (a mask), the cards
    nobody has shown (a mask), the trick so far (indices) and the trump (-1: none)."""
    hand = mask(v["hand"])
    played = 0
    for t in v["tricks"]:
        for e in t["cards"]:
            played |= 1 << CARD_INDEX[e["card"]]
    trick = [CARD_INDEX[e["card"]] for e in v["trick"]]
    for c in trick:
        played |= 1 << c
    others = ((1 << 52) - 1) & ~played & ~hand
    trump = SUIT_INDEX[v["trump"]] if v["trump"] is not None else -1
    return hand, others, trick, trump
