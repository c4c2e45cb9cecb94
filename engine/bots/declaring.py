"""``strong``'s Estimation declaration by the expected points of the round (issue 46).

Each candidate number is weighed on the same sampled deals: the hidden cards drawn by
the card player's own sampler (voids, the declarations made so far as soft evidence,
each other seat's style drawn from its weights: ``montecarlo.deal_styles``), the seats
still to declare given a number from their sampled hand by their style's offset (the
last declarer kept off 13, E-22 / K-10), the round rolled out with the seat playing to
the candidate (``sim``: win while the number needs tricks, then lose) and scored with
the game's real table — caller and With, risk (E-23, K-9), sole winner and loser, a
dash call, the Sa'ayda (K-14) — all of it, since the whole table's declarations are in
the sample. A rollout that ends over the number counts ``OVER_CREDIT`` as made (as
``montecarlo.LONG_CREDIT`` for a card). Candidates: the hand-count choice (``bidding.declare``) and the
legal numbers within ``SPAN`` of it.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from .. import scoring
from ..types import View
from .evaluate import expected_tricks
from .montecarlo import EV_OFFSET, Public, deal_styles, declared
from .sim import rollout, rollout_modes
from .stylemodel import Weights, models

SPAN = 2                 # candidates: the hand-count choice and this far either side
MIN_SAMPLES = 24         # below this many samples the hand-count choice stands
GATE = 1.0               # standard errors another number must gain by
# A rollout that ends over the seat's number counts this much as made: the fast player
# that plays the seat's cards in the rollouts ends over the number in 38 % of them (the
# hand-count choice; made 56 %), ``strong`` in 2-3 % of its rounds (made 80-85 %).
OVER_CREDIT = 0.85


class Table:
    """What scores a sampled round: the roles known at the declaration."""

    def __init__(self, v: View, seat: int):
        self.seat = seat
        self.kot = v["game"] == "estimation-kotshina"
        self.all_pass = bool(v.get("all_pass"))
        self.caller: int | None = None if self.all_pass else v.get("caller")
        contract = v.get("call")
        self.call_n: int | None = contract["n"] if contract else None
        self.with_players = list(v.get("with_players") or [])
        self.dash = list(v.get("dash_players") or [])
        self.last: int | None = v.get("last_declarer")
        self.mult = v.get("multiplier") or 1
        # The order of the declarations still to come (the seat's own first), and the
        # whole order for a fixed round's caller (K-2: the first of a tie).
        self.to_come = list(v.get("declaration_order") or [seat])
        self.dealer = dealer = v["dealer"]
        self.order = [(dealer + 1 + i) & 3 for i in range(4)]
        self.fixed_caller = self.kot and v["kind"] == "fixed"

    def leader(self, decl: Sequence[int]) -> int:
        """E-25 / K-4: the caller leads; all pass: the first declarer (E-24: the dealer)."""
        c = self.caller_of(decl)
        if c is not None:
            return c
        for i in range(4):
            s = (self.dealer + i) & 3
            if s not in self.dash:
                return s
        return self.dealer

    def caller_of(self, decl: Sequence[int]) -> int | None:
        if self.fixed_caller:
            top = max(decl)
            return next(s for s in self.order if decl[s] == top)
        return self.caller

    def score(self, decl: Sequence[int], taken: Sequence[int]) -> float:
        seat = self.seat
        if self.kot:
            _, raw, made = scoring.estimation_kotshina(
                decl, taken, caller=self.caller_of(decl), dash_players=self.dash,
                last_declarer=self.last)
            if not any(made):
                return 0.0                           # K-14 Sa'ayda: nobody scores
            return float(raw[seat] * self.mult)
        _, raw = scoring.estimation_committee(
            decl, taken, caller=self.caller, call_n=self.call_n,
            with_players=self.with_players, dash_players=self.dash,
            last_declarer=self.last, all_pass=self.all_pass)
        return float(raw[seat])


def _later(table: Table, v: View, hands: list[int], names: Sequence[str] | None,
           decl: list[int], trump: int, game: str) -> None:
    """Numbers for the seats still to declare after the seat, from their sampled hands."""
    cap = table.call_n if (table.call_n is not None and not table.all_pass
                           and not table.fixed_caller) else 13
    others_declare(table.to_come[1:], table.last, cap, hands, names, decl, trump, game)


def others_declare(seats: Sequence[int], last: int | None, cap: int, hands: list[int],
                   names: Sequence[str] | None, decl: list[int], trump: int,
                   game: str) -> None:
    """A number for each of ``seats`` (in order) from its sampled hand by its style's
    offset (``names``; none: our own calibration), the ``last`` declarer kept off 13."""
    by_name = {m.name: m for m in models(game)}
    for s in seats:
        off = EV_OFFSET
        if names is not None:
            st = by_name.get(names[s])
            if st is not None and st.name != "num":
                off = st.offset
        n = round(expected_tricks(hands[s], trump) + off)
        n = max(0, min(cap, n))
        if s == last and sum(decl) - decl[s] + n == 13:
            n = n + 1 if n < cap else n - 1          # E-22 / K-10
        decl[s] = n


def play(table: Table, hands: list[int], modes: list[int] | None, rng: random.Random,
         decl: list[int], trump: int) -> float:
    """The seat's points of one sampled round rolled out from its first lead (each seat
    by its mode, where ``modes`` are given); a rollout that ends over the seat's number
    counts ``OVER_CREDIT`` as made."""
    seat = table.seat
    ld = table.leader(decl)
    taken = [0, 0, 0, 0]
    if modes is None:
        rollout(list(hands), [], ld, trump, taken, decl, False)
    else:
        rollout_modes(list(hands), [], ld, trump, taken, decl, False, modes, rng)
    val = table.score(decl, taken)
    if OVER_CREDIT and taken[seat] > decl[seat]:
        fixed = list(taken)
        fixed[seat] = decl[seat]
        val = (1.0 - OVER_CREDIT) * val + OVER_CREDIT * table.score(decl, fixed)
    return val


def values(v: View, cands: list[int], budget_ms: float, rng: random.Random,
           start: float | None = None, w: Weights | None = None,
           samples: int | None = None, ref: int = 0
           ) -> tuple[list[float], list[float], int]:
    """Summed points of each candidate number over the samples, the summed squares of
    each one's difference from candidate ``ref`` (the same samples), and the samples."""
    if start is None:
        start = time.perf_counter()
    deadline = start + budget_ms / 1000.0 * 0.9
    seat = v["seat"]
    assert seat is not None
    pub = Public(v)
    pub.evidence = declared(v, seat)
    table = Table(v, seat)
    trump = pub.trump
    game = pub.game
    base = [d if d is not None else 0 for d in v["declarations"]]
    sums = [0.0] * len(cands)
    squares = [0.0] * len(cands)
    n = 0
    now = time.perf_counter
    slowest = 0.0
    while (n < samples) if samples is not None else (now() + slowest < deadline):
        t0 = now()
        hands, modes, names = deal_styles(pub, rng, w)
        decl = list(base)
        _later(table, v, hands, names, decl, trump, game)
        row: list[float] = []
        for c in cands:
            decl[seat] = c
            row.append(play(table, hands, modes, rng, decl, trump))
        dt = now() - t0
        if dt > slowest:
            slowest = dt
        r0 = row[ref]
        for i, x in enumerate(row):
            sums[i] += x
            squares[i] += (x - r0) ** 2
        n += 1
    return sums, squares, n


def choose(v: View, first: int, budget_ms: float, rng: random.Random,
           start: float | None = None, w: Weights | None = None,
           samples: int | None = None) -> int:
    """The number to declare: ``first`` (the hand-count choice) unless a number within
    ``SPAN`` of it scores more on the same samples."""
    legal = [a["n"] for a in v["legal"] if a["type"] == "declare"]
    cands = [n for n in legal if abs(n - first) <= SPAN]
    if first not in cands or len(cands) < 2:
        return first
    ref = cands.index(first)
    sums, squares, k = values(v, cands, budget_ms, rng, start, w, samples, ref)
    if k < MIN_SAMPLES:
        return first
    best, gain = first, 0.0
    for i, c in enumerate(cands):
        d = (sums[i] - sums[ref]) / k
        var = max(0.0, squares[i] / k - d * d) / (k - 1)
        # Another number only where its gain stands out of the samples' noise.
        if d > GATE * math.sqrt(var) and d > gain:
            best, gain = c, d
    return best


__all__ = ["GATE", "SPAN", "Table", "choose", "others_declare", "play", "values"]
