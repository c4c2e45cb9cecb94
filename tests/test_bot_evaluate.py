"""The hand count (``evaluate.expected_tricks``) read from per-suit tables is the count
as it was written suit by suit, to the last bit: every seeded decision and golden screen
depends on it."""

from __future__ import annotations

import random

from engine.bots import evaluate
from engine.bots.cards import SM


def _ranks(hand: int, s: int) -> list[int]:
    sub = (hand >> (13 * s)) & 0x1FFF
    return [r for r in range(12, -1, -1) if sub >> r & 1]


def counted(hand: int, trump: int | None, simple: bool = False) -> float:
    """The count as it was written before its tables (commit c6d63da)."""
    if trump is None:
        trump = -1
    total = 0.0
    tlen = bin(hand & SM[trump]).count("1") if trump >= 0 else 0
    for s in range(4):
        rk = _ranks(hand, s)
        n = len(rk)
        if not n:
            if trump >= 0 and s != trump and tlen >= 3 and not simple:
                total += 0.35
            continue
        top = set(rk)
        if s == trump:
            v = 0.0
            if 12 in top:
                v += 1
            if 11 in top:
                v += 0.95 if n >= 2 else (0.9 if 12 in top else 0.4)
            if 10 in top and n >= 3:
                v += 0.75 if (12 in top or 11 in top) else 0.55
            if 9 in top and n >= 4:
                v += 0.3
            v += max(0, n - 3) * 0.95
            total += min(v, n)
            continue
        v = 0.0
        if 12 in top:
            v += 1 if n <= 6 else 0.8
        if 11 in top:
            if n >= 2:
                v += 0.9 if 12 in top else 0.7
            else:
                v += 0.2
        if 10 in top:
            if n >= 3:
                v += 0.5 if (12 in top or 11 in top) else 0.3
            elif n == 2 and (12 in top or 11 in top):
                v += 0.25
        if 9 in top and n >= 4 and len(top & {12, 11, 10}) >= 2:
            v += 0.2
        if trump < 0 and n >= 5 and (12 in top or 11 in top):
            v += 0.55 * (n - 4)                         # a long suit runs in NT
        elif trump >= 0 and n >= 6:
            v -= 0.15 * (n - 5)                         # long side suits get ruffed
        if trump >= 0 and n == 1 and tlen >= 3 and not simple:
            v += 0.2                                    # a singleton ruffs
        total += max(v, 0.0)
    return total * evaluate.SCALE


def test_the_tables_count_every_hand_as_the_count_written_out_does():
    rng = random.Random(5)
    for _ in range(5000):
        h = sum(1 << c for c in rng.sample(range(52), rng.choice([13, 13, 10, 7, 4, 1, 0])))
        for trump in (None, -1, 0, 1, 2, 3):
            for simple in (False, True):
                assert evaluate.expected_tricks(h, trump, simple) == counted(h, trump, simple), (
                    h, trump, simple)


def test_the_edges_of_the_tables():
    # A void trump, a void everywhere but one suit, every card.
    for h in (0, (1 << 13) - 1, ((1 << 13) - 1) << 39, (1 << 52) - 1, 1 << 12 | 1 << 25):
        for trump in (None, -1, 0, 1, 2, 3):
            assert evaluate.expected_tricks(h, trump) == counted(h, trump)
