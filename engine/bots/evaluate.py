"""Hand evaluation: expected tricks, dash danger, and the value of a declaration.

Sure tricks before hoped-for ones (Estimation advice): an ace is a trick, a guarded
king usually is, a lone queen rarely anything; a long trump is worth more than its
cards. The raw count is calibrated in ``bidding.py`` (EST_A/EST_B: a linear fit of
tricks actually taken by the fast player over 16,000 hands, residual sd about 1.1).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

SCALE = 1.0


def _ranks(hand: int, s: int) -> list[int]:
    sub = (hand >> (13 * s)) & 0x1FFF
    return [r for r in range(12, -1, -1) if sub >> r & 1]


def _suit_value(sub: int, role: int) -> float:
    """One suit's tricks (its 13-bit ``sub``) as ``expected_tricks`` counts them: ``role``
    0 the trump, 1 a side suit beside a trump, 2 a suit at NT (a side suit's singleton
    and void bonuses are added by ``_tables``: they depend on the trump's length)."""
    rk = _ranks(sub, 0)
    n = len(rk)
    if not n:
        return 0.0
    top = set(rk)
    if role == 0:
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
        return min(v, n)
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
    if role == 2 and n >= 5 and (12 in top or 11 in top):
        v += 0.55 * (n - 4)                         # a long suit runs in NT
    elif role == 1 and n >= 6:
        v -= 0.15 * (n - 5)                         # long side suits get ruffed
    return v


# Every suit's value by its 13 bits, worked out once (``_suit_value``): the count is
# asked for tens of thousands of times a decision (every sampled hand's fit), and a
# lookup is a tenth of the counting. Filled at import (70 ms; the CLI does not import
# the bots), not on the first count, whose time a decision's budget would pay. A side
# suit's value beside a trump of three or more (``_RUFF``) counts a void 0.35 and a
# singleton 0.2 more; the sums are made in the same order as the count written out
# suit by suit, so every count is the same to the last bit (tests/test_bot_evaluate.py).
_TRUMP_V: list[float] = []
_PLAIN: list[float] = []
_RUFF: list[float] = []
_NT_V: list[float] = []


def _tables() -> None:
    _TRUMP_V.extend(_suit_value(p, 0) for p in range(1 << 13))
    for p in range(1 << 13):
        v = _suit_value(p, 1)
        _PLAIN.append(max(v, 0.0))
        if p.bit_count() == 1:
            v += 0.2                                # a singleton ruffs
        _RUFF.append(max(v, 0.0) if p else 0.35)    # a void ruffs
    _NT_V.extend(max(_suit_value(p, 2), 0.0) for p in range(1 << 13))


def expected_tricks(hand: int, trump: int | None, simple: bool = False) -> float:
    """Expected tricks of ``hand`` playing alone with ``trump`` (-1 NT, None unknown)."""
    if trump is None or trump < 0:
        return (_NT_V[hand & 0x1FFF] + _NT_V[hand >> 13 & 0x1FFF] + _NT_V[hand >> 26 & 0x1FFF]
                + _NT_V[hand >> 39 & 0x1FFF]) * SCALE
    side = _PLAIN if simple or (hand >> (13 * trump) & 0x1FFF).bit_count() < 3 else _RUFF
    total = 0.0
    for s in range(4):
        p = hand >> (13 * s) & 0x1FFF
        total += _TRUMP_V[p] if s == trump else side[p]
    return total * SCALE


_tables()


# A later count must beat the best so far by more than this to take its place: counts
# equal but for rounding go to the first (``best_suit``, ``best_index``).
TIE = 1e-9


def best_suit(hand: int, suits: Iterable[int] = (-1, 0, 1, 2, 3)) -> tuple[int, float]:
    """(suit, expected tricks) of the best trump for this hand."""
    # A loop, not ``best_index`` over a list: the bid rollouts ask this of every other
    # seat's sampled hand, and the list costs 0.4-0.6 µs more a call (2.9 against 3.3-3.6).
    best, bv = -1, -1.0
    for s in suits:
        v = expected_tricks(hand, s)
        if v > bv + TIE:
            best, bv = s, v
    return best, bv


def best_index(counts: Sequence[float]) -> int:
    """The first of the highest counts (``best_suit``'s rule over counts at hand)."""
    best = 0
    for i in range(1, len(counts)):
        if counts[i] > counts[best] + TIE:
            best = i
    return best


def dash_danger(hand: int) -> float:
    """How likely a hand is forced to win a trick, trump unknown (0 = a perfect dash).

    No ace, no long suit, no card that will be forced to win late; middle cards are
    the worst (they win tricks nobody wanted).
    """
    d = 0.0
    for s in range(4):
        rk = _ranks(hand, s)
        n = len(rk)
        if not n:
            continue
        for i, r in enumerate(sorted(rk)):
            # The i-th lowest card of the suit needs i+1 lower covers to hide under.
            if r >= 12:
                d += 1.0
            elif r >= 11:
                d += 0.6
            elif r >= 10:
                d += 0.35
            elif r >= 8:
                d += 0.12 + 0.05 * i
            elif r >= 5:
                d += 0.03 * i
        if n >= 5:
            d += 0.3 * (n - 4)
        if rk[-1] >= 6:                                 # no low card in the suit at all
            d += 0.25
    return d


def trick_probs(mean: float, sd: float = 1.1) -> list[float]:
    """A discrete distribution of tricks 0..13 around ``mean``."""
    w = [math.exp(-0.5 * ((t - mean) / sd) ** 2) for t in range(14)]
    z = sum(w)
    return [x / z for x in w]
