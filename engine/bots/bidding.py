"""Every decision but card play: dash offer, auction, call, declarations (Estimation)
and declarations (Tarneeb 41), by calibrated hand counting (a calibrated hand-count
bidder measured better than rollout bidding in issue 5). ``strong`` then weighs the
numbers near these by rollouts of the round where that measured a gain (issue 46:
``contract.py`` for the bid and the call, ``declaring.py`` for the declaration)."""

from __future__ import annotations

import math
from functools import lru_cache

from .. import scoring
from ..types import Action, BidAction, CallAction, DashAction, DeclareAction, RoundRecord, View
from .cards import SUIT_INDEX, mask
from .evaluate import best_suit, dash_danger, expected_tricks, trick_probs

# Calibration (a linear fit over 16,000 random hands played out by the fast player):
# tricks actually taken ≈ A * count + B, residual sd ≈ 1.1 (Estimation), ≈ 1.0 (Tarneeb).
EST_A, EST_B, EST_SD = 0.97, 0.45, 1.1
# ``strong`` plays its cards by Monte Carlo, aiming at its number: measured over its
# own rounds against ``easy`` (372 declarations, 100 ms), it took 0.14 tricks fewer than
# the count above with a residual sd of 0.73, and its declarations sat 0.19 above the
# count (the table adjustment), so most missed numbers were short. Its declarations
# use its own calibration (shift, a gentler pull toward 13, a narrower spread).
STRONG_SHIFT = 0.65          # subtracted from the count (measured 0.25 < 0.45 < 0.65)
STRONG_TABLE = 0.1           # pull toward 13 per trick of the projected total (normal: 0.2)
STRONG_SD = 0.9
TAR_A, TAR_B, TAR_SD = 0.97, 0.40, 1.05
# ``strong``'s Tarneeb 41 declaration by the expected points of the hand for its team
# (issue 46), constants fitted by ``tests/bench/tarneeb_numbers.py --fit`` over its own
# logged hands (a strong pair against an easy pair, seed 7, 38 matches, 30 samples):
# the made rate as a logistic curve of the declaration less the hand count (it plays to
# its number, so it makes more above the count than a normal spread says), the partner's
# less the opponents' points of a played hand as a line in the count, and the share of
# each declaration 2..7 among all four seats' (for the chance the hand is void, T-13).
TAR_MADE = (1.774, -1.644)
TAR_REST = (-1.521, 0.406)
TAR_LATER = (0.520, 0.221, 0.157, 0.065, 0.026, 0.007)
# Reading the table: a later seat's declaration drawn from ``TAR_LATER`` counted as
# ``TAR_PRIOR`` hands and that seat's declarations in the match so far (``_shares``).
# Off: at low-declaring tables it declared up to keep hands from being void and lost
# more by the misses than the voids cost (held out seed 13, 20 samples, 40 seeds each,
# paired, margin a hand: against a dash pair -0.49 +- 0.23, under -0.09 +- 0.18, easy
# -0.05 +- 0.11; voids a match 51 -> 61 beside a dash partner without it). The made
# rate (``TAR_MADE``) would have to read the table too (docs/bots.md).
TAR_READ = False
TAR_PRIOR = 4.0
# Off: ``strong`` declares as ``normal`` does (the before of a paired benchmark).
TARNEEB_EV = True
# ``strong``'s Estimation declaration: the hand-count choice, then the numbers near it
# weighed by rollouts of the round on sampled deals (``declaring.py``), in the games of
# ``DECLARE_EV_GAMES``; off: the hand-count choice alone (the before of a paired
# benchmark). Held out (seed 61, docs/bots.md) the rollouts gained in the calculator
# (+1.86 +- 0.68 a round pooled over greedy, over, easy, normal) and nothing in the
# committee scoring (-0.10 +- 0.87 over every style): there the count alone stays.
DECLARE_EV = True
DECLARE_EV_GAMES: tuple[str, ...] = ("estimation-kotshina",)
# ``strong``'s bid, With or pass, and call: the hand-count choice, then pass, With and
# bids near the count in the hand's best suits weighed by rollouts of the round
# (``contract.py``), in the games of ``BID_EV_GAMES``; off: the hand-count choice alone.
# Held out (seeds 61 and 67, 50 samples, docs/bots.md): committee +0.79 +- 0.54 a round
# (greedy, over, easy), the calculator's auction rounds +0.73 +- 0.52 (greedy, over).
BID_EV = True
BID_EV_GAMES: tuple[str, ...] = ("estimation", "estimation-kotshina")
# The dash offer weighed the same way (``contract.dash``: take, or decline and bid the
# hand count's plan) in ``DASH_EV_GAMES``: none, since on tuning seed 77 (committee,
# greedy, over, easy, 12 units each) it took a quarter of the dashes the count declined
# and lost -1.60 +- 1.38 a round (made 83 -> 78 %); why the rollouts overrate the dash
# is not yet known.
DASH_EV = True
DASH_EV_GAMES: tuple[str, ...] = ()
# ``strong``'s Estimation declaration by a fast estimator fitted offline
# (``tests/bench/estimation_numbers.py --fit`` over its own logged declarations, tuning
# seed 7, with one in three moved a trick off its choice so the curve sees both sides):
# the chance the number is made, a logistic curve of ``est_made_x`` (the number less the
# count with the table's shift, its square, a zero declaration, the table's projected
# total less 13: it plays to its number, so it makes more a trick off its count than a
# normal spread says), and a missed number's tricks as a normal spread around the count
# (mean offset, sd). In the games of ``EST_FIT_GAMES``: none, since held out (seed 61,
# committee, greedy, over, easy) it gained nothing over the spread above (+0.06 +- 0.61
# a round, docs/bots.md): the fit confirms the hand count's choice.
EST_MADE = (1.073, -0.908, -0.462, 0.241, 0.002)
EST_MISS = (-0.570, 1.183)
EST_FIT = True
EST_FIT_GAMES: tuple[str, ...] = ()
# The trumps a hand is counted for, as codes (NT first: the order the counts are made in).
TRUMPS = ("NT", "S", "H", "D", "C")


def strong_count(v: View, hand: int) -> float:
    """``strong``'s count of its hand for a declaration, before the table's styles."""
    code = v["trump"] or v.get("fixed_trump")
    trump = SUIT_INDEX[code] if code is not None else -1
    if v["game"] == "tarneeb41":
        return TAR_A * expected_tricks(hand, trump) + TAR_B
    return mean_tricks(hand, trump, "strong") - STRONG_SHIFT


def mean_tricks(hand: int, trump: int | None, level: str) -> float:
    raw = expected_tricks(hand, trump, simple=level == "easy")
    if level == "easy":
        return raw
    return EST_A * raw + EST_B


def _seat(v: View) -> int:
    """The seat a view belongs to: a computer player decides only for a seat."""
    seat = v["seat"]
    assert seat is not None
    return seat


def _aggression(v: View) -> float:
    """Bid bigger when far behind late in the match (Estimation advice)."""
    rounds, rnd = v.get("rounds"), v.get("round")
    seat = _seat(v)
    if not rounds or rnd is None:
        return 0.0
    left = rounds - rnd          # rounds after this one
    if left > 1:
        return 0.0
    totals = v["totals"] or [0, 0, 0, 0]
    gap = max(t for s, t in enumerate(totals) if s != seat) - totals[seat]
    if gap <= 20:
        return 0.0
    return min(2.5, gap / 25.0) * (1.0 if left == 0 else 0.6)


# ---- Estimation -----------------------------------------------------------------

def est_over(known: int, n: int, after: int) -> float:
    """The table's projected total less 13 with ``n`` declared (3.25 a seat still to
    declare), clamped: what the fitted made curve reads of the others."""
    return max(-4.0, min(4.0, known + n + 3.25 * after - 13))


def est_made_x(d: float, n: int, over: float) -> list[float]:
    """The fitted made curve's inputs (``EST_MADE``), ``d`` the number less the count."""
    return [1.0, d, d * d, 1.0 if n == 0 else 0.0, over]


def est_probs(n: int, base: float, over: float) -> list[float]:
    """Tricks 0..13 for a declaration of ``n`` by ``strong`` with count ``base``: made
    by the fitted curve, the rest spread around the count (``EST_MISS``)."""
    z = sum(w * x for w, x in zip(EST_MADE, est_made_x(n - base, n, over), strict=True))
    made = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
    spread = trick_probs(max(0.0, base + EST_MISS[0]), EST_MISS[1])
    rest = 1.0 - spread[n]
    out = [(1.0 - made) * p / rest if rest > 1e-9 else 0.0 for p in spread]
    out[n] = made
    return out


def dash(v: View, hand: int, level: str, risk: float = 0.0) -> DashAction:
    """``risk``: how much less danger a hand may hold at this table (``model.dash_risk``:
    other seats that duck or play at random leave a dash player the tricks)."""
    d = dash_danger(hand)
    if level == "easy":
        take = d < 1.0
    else:
        limit = (1.4 if v["game"] == "estimation-kotshina" else 1.5) - risk
        # A dash wants a hand that would not make much of an ordinary declaration either.
        _, best = best_suit(hand)
        take = d < limit and best < 3.0
    return {"type": "dash", "take": take}


def auction(v: View, hand: int, level: str, shift: float = 0.0) -> Action:
    legal = v["legal"]
    bids: list[BidAction] = [a for a in legal if a["type"] == "bid"]
    fast = v["kind"] == "fast"
    fixed = v["fixed_trump"]
    margin = 0.0 if level == "easy" else 0.15
    agg = 0.0 if level == "easy" else _aggression(v)
    ests = {code: mean_tricks(hand, SUIT_INDEX[code], level) + shift
            for code in ((fixed,) if fast and fixed is not None else TRUMPS)}
    best: tuple[tuple[int, float], Action] | None = None
    for a in bids:
        suit = a.get("suit", fixed)
        assert suit is not None             # a fast round's bids are in its fixed trump
        e = ests[suit] + agg
        if e >= a["n"] + margin and (level == "easy" or e >= 4.4):
            key = (a["n"], -e)
            if best is None or key < best[0]:
                best = (key, a)
    if best is not None:
        return best[1]
    state = v.get("auction")
    bid = state["bid"] if state else None
    if level != "easy" and bid is not None and any(a["type"] == "with" for a in legal):
        e = ests.get(bid["suit"], ests.get(v.get("fixed_trump") or "", 0.0))
        if bid["n"] - 0.2 <= e <= bid["n"] + 0.7:
            return {"type": "with"}
    return {"type": "pass"}


def call(v: View, hand: int, level: str, shift: float = 0.0) -> CallAction:
    legal: list[CallAction] = [a for a in v["legal"] if a["type"] == "call"]
    if v["kind"] == "fixed":
        # K-3: keep the number, choose the trump that suits the hand.
        best = max(legal, key=lambda a: mean_tricks(hand, SUIT_INDEX[a["suit"]], level)
                   + (0.01 if a["suit"] == v["fixed_trump"] else 0.0))
        return best
    agg = 0.0 if level == "easy" else _aggression(v)
    scored: list[tuple[float, float, int, CallAction]] = []
    ests = {s: mean_tricks(hand, SUIT_INDEX[s], level) + shift for s in TRUMPS}
    for a in legal:
        e = ests[a["suit"]] + agg
        n = a["n"]
        # Prefer the number closest to the count; a super call only with the hand for it.
        penalty = abs(e - n) + (1.0 if n >= 8 and e < 7.6 else 0.0)
        scored.append((penalty, -e, n, a))
    if level == "easy":
        state = v["auction"]
        won = state["bid"] if state else None
        assert won is not None                  # a call follows a won auction
        confirm: CallAction = {"type": "call", "n": won["n"], "suit": won["suit"]}
        return confirm if confirm in legal else legal[0]
    scored.sort(key=lambda x: x[:3])
    return scored[0][3]


def declare(v: View, hand: int, level: str, shift: float = 0.0) -> DeclareAction:
    """``shift``: tricks to add to the count for the table's styles (``model.trick_shift``)."""
    legal = [a["n"] for a in v["legal"] if a["type"] == "declare"]
    trump = SUIT_INDEX[v["trump"]] if v["trump"] is not None else None
    fixed_trump = v.get("fixed_trump")
    if trump is None and fixed_trump:
        trump = SUIT_INDEX[fixed_trump]
    mean = mean_tricks(hand, trump, level)
    if level == "easy":
        want = round(mean)
        return {"type": "declare", "n": min(legal, key=lambda n: (abs(n - want), n))}
    seat = _seat(v)
    decl = v["declarations"]
    known = sum(d for s, d in enumerate(decl) if d is not None and s != seat)
    after = len(v.get("declaration_order") or []) - 1
    projected = known + mean + 3.0 * max(after, 0)
    fitted = level == "strong" and EST_FIT and v["game"] in EST_FIT_GAMES
    base = mean + shift
    if level == "strong":
        mean -= STRONG_SHIFT - shift
        mean += max(-5 * STRONG_TABLE, min(5 * STRONG_TABLE, STRONG_TABLE * (13 - projected)))
        probs = trick_probs(max(0.0, mean), STRONG_SD)
    else:
        mean += max(-1.0, min(1.0, 0.2 * (13 - projected)))
        probs = trick_probs(max(0.0, mean), EST_SD)
    kot = v["game"] == "estimation-kotshina"
    last = v.get("last_declarer") == seat and after <= 0
    contract = v.get("call")
    call_n = contract["n"] if contract else None
    with_me = (seat in (v.get("with_players") or [])) if not kot else True
    fixed = v["kind"] == "fixed"
    all_pass = bool(v.get("all_pass"))
    agg = _aggression(v)
    best: tuple[float, int] | None = None
    # Each number's expected score under the real table (``scoring``), without the sole
    # winner or loser nobody can foresee.
    for n in legal:
        if fitted:
            probs = est_probs(n, base, est_over(known, n, max(after, 0)))
        role: scoring.Role = None
        if kot:
            risk = scoring.kotshina_risk(known + n) if last else 0             # K-9
            if fixed:
                # K-2: the highest declaration calls (K-6).
                top = max([d for d in decl if d is not None] or [0])
                role = "caller" if n >= top and n > 0 else None
            elif call_n is not None and n == call_n and not all_pass:
                role = "with"                                                  # K-7
            ev = 0.0
            for t, p in enumerate(probs):
                if p < 1e-4:
                    continue
                ev += p * sum(scoring.kotshina_declarer(n, t, role=role, risk=risk).values())
        else:
            if not all_pass and with_me and call_n is not None and n == call_n:
                role = "with"                                                  # E-29, E-30
            super_call = call_n is not None and call_n >= 8
            at_risk = last and not all_pass and scoring.committee_risk(known + n, n)  # E-23
            ev = 0.0
            for t, p in enumerate(probs):
                if p < 1e-4:
                    continue
                ev += p * sum(scoring.committee_declarer(
                    n, t, role=role, super_call=super_call, risk=at_risk).values())
        ev += agg * 2.0 * n * probs[min(n, 13)]       # far behind late: the bigger number
        if best is None or ev > best[0]:
            best = (ev, n)
    assert best is not None
    return {"type": "declare", "n": best[1]}


# ---- Tarneeb 41 -------------------------------------------------------------------

def _shares(history: list[RoundRecord], seat: int) -> tuple[float, ...]:
    """The chance of each declaration 2..13 from ``seat`` (index ``n - 2``): the logged
    shares (``TAR_LATER``) counted as ``TAR_PRIOR`` hands, and with ``TAR_READ`` that
    seat's own declarations in this match so far (void hands too: T-13 declares all
    four), so a table that declares low is read as low within a few hands."""
    z0 = sum(TAR_LATER)
    if not TAR_READ:
        return tuple(r / z0 for r in TAR_LATER) + (0.0,) * (12 - len(TAR_LATER))
    w = [TAR_PRIOR * r / z0 for r in TAR_LATER] + [0.0] * (12 - len(TAR_LATER))
    for rec in history:
        d = rec.get("declarations") if isinstance(rec, dict) else None
        if isinstance(d, list) and len(d) == 4:
            n = d[seat]
            if isinstance(n, int) and 2 <= n <= 13:
                w[n - 2] += 1.0
    z = sum(w)
    return tuple(x / z for x in w)


@lru_cache(maxsize=256)
def _later_totals(seats: tuple[tuple[float, ...], ...]) -> dict[int, float]:
    """What the declarations still to be made (one share table a seat) add up to:
    total -> chance (each seat independent; 2 at least, T-12)."""
    dist = {0: 1.0}
    for shares in seats:
        nxt: dict[int, float] = {}
        for total, q in dist.items():
            for k, r in enumerate(shares, start=2):
                if r:
                    nxt[total + k] = nxt.get(total + k, 0.0) + q * r
        dist = nxt
    z = sum(dist.values())
    return {t: q / z for t, q in dist.items()}


def _played(need: int, seats: tuple[tuple[float, ...], ...]) -> float:
    """The chance that the declarations still to be made (``seats``: one share table
    each, ``_shares``) add up to ``need`` or more."""
    if not seats:
        return 1.0 if need <= 0 else 0.0
    return sum(q for total, q in _later_totals(seats).items() if total >= need)


def tarneeb_declare(v: View, hand: int, level: str, shift: float = 0.0) -> DeclareAction:
    legal = [a["n"] for a in v["legal"] if a["type"] == "declare"]
    trump_code = v["trump"]
    assert trump_code is not None                 # T-9: known from the shown card
    trump = SUIT_INDEX[trump_code]
    raw = expected_tricks(hand, trump, simple=level == "easy")
    if level == "easy":
        want = max(2, round(raw))
        return {"type": "declare", "n": min(legal, key=lambda n: (abs(n - want), n))}
    mean = TAR_A * raw + TAR_B + shift
    strong = level == "strong" and TARNEEB_EV
    if strong:
        at_least = [1.0 / (1.0 + math.exp(-(TAR_MADE[0] + TAR_MADE[1] * (n - raw - shift))))
                    for n in range(14)]
    else:
        probs = trick_probs(mean, TAR_SD)
        at_least = [sum(probs[n:]) for n in range(14)]
    seat = _seat(v)
    totals = v["totals"]
    me, partner = totals[seat], totals[seat ^ 2]
    opp_best = max(totals[seat ^ 1], totals[seat ^ 3])
    decl = v["declarations"]
    others = sum(d for d in decl if d is not None)
    to_come = sum(1 for d in decl if d is None) - 1
    last = to_come == 0
    history = v["history"]
    later = tuple(_shares(history, s) for s in range(4) if s != seat and decl[s] is None)
    rest = TAR_REST[0] + TAR_REST[1] * (raw + shift)
    best: tuple[float, int] | None = None
    for n in legal:
        p = at_least[n]
        if strong:
            # The points of the hand for the team (mine, the partner's less the
            # opponents'), times the chance it is played at all (T-13: a void hand
            # scores nothing for anyone).
            played = _played(11 - others - n, later)
            ev = played * (n * (2 * p - 1) + rest)
            if me + n >= 41 and partner > 0:
                ev += played * p * 25
            if partner >= 41 - 4 and me <= 0:
                ev += played * (25 * p if me + n > 0 else -10)
            if opp_best >= 33:
                ev += played * 0.3 * n * p
        elif last and others + n < 11:
            ev = 0.0                                    # T-13: the hand is void
        else:
            ev = n * (2 * p - 1)
            # T-20: a player at 41 wins the match only with the partner above zero.
            if me + n >= 41 and partner > 0:
                ev += p * 25
            if partner >= 41 - 4 and me <= 0:
                # The team needs me above zero: make my number, and make it count.
                ev += 25 * p if me + n > 0 else -10
            if opp_best >= 33:
                ev += 0.3 * n * p                       # they are close: push
        if best is None or ev > best[0]:
            best = (ev, n)
    assert best is not None
    return {"type": "declare", "n": best[1]}


__all__ = ["auction", "call", "dash", "declare", "mask", "mean_tricks", "strong_count",
           "tarneeb_declare"]
