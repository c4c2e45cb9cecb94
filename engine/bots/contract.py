"""``strong``'s bid, With or pass, and call in Estimation by the expected points of the
round (issue 46).

Each candidate is weighed on the same sampled deals as the declaration
(``declaring.py``: the card player's sampler, a style drawn for every other seat). On
each deal the rest of the auction is settled from the sampled hands: every other seat
still in it goes up to its best suit's count plus its style's spare trick
(``stylemodel.BID_SPARE``: the styles' own rule, ``styles.py``), the standing bid's owner at least to
its bid; the highest willingness wins at the lowest number that beats the next one
(E-11). A bid in a suit up to a number either wins that contract (the seat calls the
number, the others declare under it) or loses to the best other seat, whose contract
it then plays as one more declarer; a pass is the same loss, or the all-pass round
(E-14) when nobody else bids; With joins the owner's contract while nobody outbids it.
Each outcome is rolled out once per deal and scored by the real table
(``declaring.play``). So the chance a bid wins the auction and what it is worth either
way come from the same deals.

The hand-count choice (``bidding.auction``, ``bidding.call``) stands unless another
candidate gains more than ``GATE`` standard errors on the same deals. The dash offer
(``dash``) is weighed the same way, but left off (``bidding.DASH_EV_GAMES``): it lost.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from ..types import Action, BidAction, CallAction, DashAction, View
from . import declaring
from .bidding import EST_A, EST_B, STRONG_SHIFT
from .cards import MIN_BID, SUIT_CODE, SUIT_INDEX, bid_key, lowest_bid, mask
from .evaluate import best_suit, expected_tricks
from .montecarlo import Public, deal_styles, declared
from .stylemodel import BID_SPARE, Weights

SUITS = 2                    # suits weighed: the hand's best by count (and the count's own)
MIN_SAMPLES = 24             # below this many deals the hand-count choice stands
# Standard errors another answer must gain by: up to eight candidates are weighed, so
# one of them clears a single standard error by chance alone far more often than one.
GATE = 2.0

# An outcome of the auction: (caller or -1 for all pass, trump code, the call's number,
# the seat's With).
Outcome = tuple[int, str, int, bool]


def own_count(hand: int, trump: int, shift: float) -> float:
    """``strong``'s count of its hand for a trump (``bidding.strong_count``'s)."""
    return EST_A * expected_tricks(hand, trump) + EST_B - STRONG_SHIFT + shift


class _Round:
    """The table at the seat's bid or call, and what settles a sampled round."""

    def __init__(self, v: View, shift: float):
        seat = v["seat"]
        assert seat is not None
        self.v = v
        self.seat = seat
        self.game = v["game"]
        self.kot = self.game == "estimation-kotshina"
        self.fast = v["kind"] == "fast"
        self.fixed = v.get("fixed_trump")
        state = v.get("auction")
        bid = state["bid"] if state else None
        self.bid: tuple[int, str] | None = (bid["n"], bid["suit"]) if bid else None
        self.owner: int | None = state["owner"] if state else None
        self.withp = list(state["with_players"]) if state else []
        passed = set(state["passed"]) if state else set()
        self.dash = list(v.get("dash_players") or [])
        self.dealer = v["dealer"]
        self.bidders = [s for s in range(4)
                        if s != seat and s not in passed and s not in self.dash]
        self.shift = shift
        self.table = declaring.Table(v, seat)
        self.table.fixed_caller = False

    def willing(self, hands: list[int], names: Sequence[str] | None) -> list[tuple[int, int, str]]:
        """(key, seat, suit) of how far each other seat in the auction would go."""
        out: list[tuple[int, int, str]] = []
        suit: str
        for s in self.bidders:
            if self.fast and self.fixed is not None:
                suit, count = self.fixed, expected_tricks(hands[s], SUIT_INDEX[self.fixed])
            else:
                i, count = best_suit(hands[s])
                suit = SUIT_CODE[i]
            style = names[s] if names is not None else "num"
            n = math.floor(count + BID_SPARE.get(style, 0.0))
            key = bid_key(n, suit) if n >= MIN_BID else -1
            if s == self.owner and self.bid is not None:
                if key < bid_key(*self.bid):
                    key, suit = bid_key(*self.bid), self.bid[1]
            if key >= 0:
                out.append((key, s, suit))
        out.sort(reverse=True)
        return out

    def lost(self, will: list[tuple[int, int, str]], mine: int) -> Outcome:
        """The contract when the seat does not win: the best other seat's, at the
        lowest number beating the next willingness (the seat's own ``mine`` too)."""
        if not will:
            return (-1, "", 0, False)                      # E-14: all pass
        _, c, suit = will[0]
        beat = max([k for k, _, _ in will[1:]] + [mine, -1])
        if c != self.owner and self.bid is not None:
            beat = max(beat, bid_key(*self.bid))
        n = lowest_bid(beat, suit)
        if c == self.owner and self.bid is not None:
            n = max(n, self.bid[0])
        return (c, suit, n, False)

    def value(self, out: Outcome, mine: int | None, hands: list[int],
              modes: list[int] | None, names: Sequence[str] | None,
              rng: random.Random, dashing: bool = False) -> float:
        """The seat's points of the round the outcome leads to, rolled out on the deal;
        ``mine``: the seat's number as caller (None: it declares its count);
        ``dashing``: the seat took the dash (E-9: 0, out of the auction)."""
        caller, suit, call_n, with_me = out
        trump_code: str
        seat = self.seat
        t = self.table
        dash = [*self.dash, seat] if dashing else self.dash
        t.dash = dash
        decl = [0, 0, 0, 0]
        if caller < 0:
            t.caller, t.call_n, t.all_pass, t.with_players = None, None, True, []
            trump_code = self.fixed if self.fast and self.fixed is not None else "NT"
            order = [(self.dealer + i) & 3 for i in range(4)]
            order = [s for s in order if s not in dash]
            cap = 13
        else:
            t.caller, t.call_n, t.all_pass = caller, call_n, False
            trump_code = suit
            withp = [s for s in self.withp if caller == self.owner]
            if with_me:
                withp.append(seat)
            t.with_players = [] if self.kot else withp
            decl[caller] = call_n
            after = [(caller + i) & 3 for i in range(1, 4)]
            order = [s for s in after if s in t.with_players] + \
                [s for s in after if s not in t.with_players and s not in dash]
            cap = call_n                                   # E-21: none above the call
        trump = SUIT_INDEX[trump_code]
        last = order[-1] if order else None
        t.last = last
        others = [s for s in order if s != seat and s != caller]
        for s in t.with_players:
            if s != seat:
                decl[s] = call_n
        declaring.others_declare([s for s in others if s not in t.with_players], last,
                                 cap, hands, names, decl, trump, self.game)
        if dashing:
            decl[seat] = 0
        elif caller != seat:
            if with_me:
                n = call_n
            else:
                n = max(0, min(cap, round(own_count(hands[seat], trump, self.shift))))
                if seat == last and sum(decl) + n == 13:
                    n = n + 1 if n < cap else n - 1
            decl[seat] = n
        else:
            assert mine is not None
            decl[seat] = mine
        return declaring.play(t, hands, modes, rng, decl, trump)


def _weigh(v: View, shift: float, cands: list[tuple[Action, int, str]],
           budget_ms: float, rng: random.Random, start: float | None,
           w: Weights | None, samples: int | None, calling: bool
           ) -> tuple[list[float], list[list[float]], int]:
    """Each candidate's summed points over the deals and its row of points per deal.
    A candidate: (action, the number it goes to, its suit; pass / With: 0, "")."""
    if start is None:
        start = time.perf_counter()
    deadline = start + budget_ms / 1000.0 * 0.9
    pub = Public(v)
    pub.evidence = declared(v, pub.seat)
    r = _Round(v, shift)
    seat = r.seat
    sums = [0.0] * len(cands)
    rows: list[list[float]] = []
    now = time.perf_counter
    slowest = 0.0
    while (len(rows) < samples) if samples is not None else (now() + slowest < deadline):
        t0 = now()
        hands, modes, names = deal_styles(pub, rng, w)
        will = [] if calling else r.willing(hands, names)
        top = will[0][0] if will else -1
        seen: dict[tuple[Outcome, int | None, bool], float] = {}
        row = []
        for a, n, suit in cands:
            kind = a["type"]
            mine: int | None = None
            dashing = a["type"] == "dash" and a["take"]
            if dashing:
                out: Outcome = r.lost(will, -1)
            elif calling or kind == "bid" or (kind == "dash" and n):
                # (a declined dash: the hand count's plan, a bid up to ``n`` or a pass)
                key = bid_key(n, suit)
                if calling or key > top:
                    out = (seat, suit, n, False)
                    mine = n
                else:
                    out = r.lost(will, key)
            elif kind == "with":
                out = r.lost(will, -1)
                if out[0] == r.owner:
                    out = (out[0], out[1], out[2], True)
            else:
                out = r.lost(will, -1)
            k = (out, mine, dashing)
            if k not in seen:
                seen[k] = r.value(out, mine, hands, modes, names, rng, dashing)
            row.append(seen[k])
        for i, x in enumerate(row):
            sums[i] += x
        rows.append(row)
        dt = now() - t0
        if dt > slowest:
            slowest = dt
    return sums, rows, len(rows)


def _pick(cands: list[tuple[Action, int, str]], ref: int, sums: list[float],
          rows: list[list[float]], k: int) -> int:
    """The candidate that gains most over ``ref`` beyond the deals' noise (or ``ref``)."""
    best, gain = ref, 0.0
    for i in range(len(cands)):
        d = (sums[i] - sums[ref]) / k
        sq = sum((row[i] - row[ref]) ** 2 for row in rows) / k
        var = max(0.0, sq - d * d) / (k - 1)
        if d > GATE * math.sqrt(var) and d > gain:
            best, gain = i, d
    return best


def _targets(hand: int, suit: str, low: int, shift: float, top: int = 13) -> list[int]:
    r = round(own_count(hand, SUIT_INDEX[suit], shift))
    return [n for n in (r - 1, r, r + 1) if low <= n <= top]


def bid(v: View, first: Action, shift: float, budget_ms: float, rng: random.Random,
        start: float | None = None, w: Weights | None = None,
        samples: int | None = None) -> Action:
    """The auction's answer: ``first`` (the hand-count choice) unless pass, With or a
    bid in one of the hand's best suits (up to a number near its count) scores more."""
    hand = mask(v["hand"])
    fast = v["kind"] == "fast"
    fixed = v.get("fixed_trump")
    lowest: dict[str, BidAction] = {}
    for a in v["legal"]:
        if a["type"] == "bid":
            suit = a.get("suit", fixed)
            if suit is not None and suit not in lowest:
                lowest[suit] = a
    counts = {s: own_count(hand, SUIT_INDEX[s], shift) for s in lowest}
    suits = sorted(counts, key=lambda s: -counts[s])[:SUITS]
    if first["type"] == "bid":
        fs = first.get("suit", fixed)
        if fs is not None and fs not in suits and fs in lowest:
            suits.append(fs)
    cands: list[tuple[Action, int, str]] = [({"type": "pass"}, 0, "")]
    if any(a["type"] == "with" for a in v["legal"]):
        cands.append(({"type": "with"}, 0, ""))
    for s in suits:
        low = lowest[s]
        for n in _targets(hand, s, low["n"], shift):
            cands.append((low, n, s if not fast else str(fixed)))
    acts = [c[0] for c in cands]
    if first not in acts or len({repr(a) for a in acts}) < 2:
        return first
    sums, rows, k = _weigh(v, shift, cands, budget_ms, rng, start, w, samples, False)
    if k < MIN_SAMPLES:
        return first
    # The hand-count choice's own best number is the reference.
    mine = [i for i, a in enumerate(acts) if a == first]
    ref = max(mine, key=lambda i: sums[i])
    return cands[_pick(cands, ref, sums, rows, k)][0]


def call(v: View, first: CallAction, shift: float, budget_ms: float, rng: random.Random,
         start: float | None = None, w: Weights | None = None,
         samples: int | None = None) -> CallAction:
    """The call after a won auction: ``first`` (the hand-count choice) unless a number
    near the count in one of the hand's best suits scores more."""
    hand = mask(v["hand"])
    legal: list[CallAction] = [a for a in v["legal"] if a["type"] == "call"]
    suits = sorted({a["suit"] for a in legal},
                   key=lambda s: -own_count(hand, SUIT_INDEX[s], shift))[:SUITS]
    if first["suit"] not in suits:
        suits.append(first["suit"])
    cands: list[tuple[Action, int, str]] = [(first, first["n"], first["suit"])]
    for s in suits:
        ns = {a["n"] for a in legal if a["suit"] == s}
        for n in _targets(hand, s, min(ns, default=14), shift):
            a: CallAction = {"type": "call", "n": n, "suit": s}
            if n in ns and a != first:
                cands.append((a, n, s))
    if len(cands) < 2:
        return first
    sums, rows, k = _weigh(v, shift, cands, budget_ms, rng, start, w, samples, True)
    if k < MIN_SAMPLES:
        return first
    got = cands[_pick(cands, 0, sums, rows, k)][0]
    assert got["type"] == "call"
    return got


def dash(v: View, first: DashAction, shift: float, budget_ms: float,
         rng: random.Random, start: float | None = None, w: Weights | None = None,
         samples: int | None = None) -> DashAction:
    """The dash offer: ``first`` (the hand count's answer) unless the other scores more.
    Declined, the seat is weighed on its hand count's plan: the lowest bid in its best
    suit up to its count there (4 at least), or a pass."""
    hand = mask(v["hand"])
    fixed = v.get("fixed_trump") if v["kind"] == "fast" else None
    suits = [fixed] if fixed is not None else list(SUIT_INDEX)
    best = max(suits, key=lambda s: own_count(hand, SUIT_INDEX[s], shift))
    r = round(own_count(hand, SUIT_INDEX[best], shift))
    take: DashAction = {"type": "dash", "take": True}
    decline: DashAction = {"type": "dash", "take": False}
    cands: list[tuple[Action, int, str]] = [
        (take, 0, ""), (decline, r if r >= MIN_BID else 0, best)]
    ref = 0 if first["take"] else 1
    sums, rows, k = _weigh(v, shift, cands, budget_ms, rng, start, w, samples, False)
    if k < MIN_SAMPLES:
        return first
    return take if _pick(cands, ref, sums, rows, k) == 0 else decline


__all__ = ["GATE", "bid", "call", "dash", "own_count"]
