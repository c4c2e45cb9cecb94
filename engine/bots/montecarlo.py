"""``strong`` card play: determinised Monte Carlo over the public information.

1. Read the view: own hand, every card played, who showed a void (did not follow
   the led suit), how many cards each seat still holds, and in Tarneeb the dealer's
   shown card while it is still in the dealer's hand.
2. Sample the unseen cards to the other seats consistently with all of that.
3. For every candidate card (touching cards evaluated once) roll the round out with
   the fast player on the same samples and score it with the game's real table
   (``engine.scoring``): committee, calculator with the multiplier, Tarneeb's team goal.
4. Stop at the time budget; only complete samples count; best average wins.
"""

from __future__ import annotations

import random
import time

from .. import scoring
from .cards import ABOVE, BELOW, CARD_INDEX, CODES, SM, SUIT_INDEX, lo
from .play import current_winner
from .sim import rollout


class Public:
    """What a seat knows about the round in play, as ints."""

    __slots__ = ("seat", "hand", "trump", "trick", "leader", "taken", "decl", "unseen",
                 "counts", "voids", "fixed", "game", "v")

    def __init__(self, v: dict):
        self.v = v
        self.seat = seat = v["seat"]
        self.game = v["game"]
        self.hand = hand = sum(1 << CARD_INDEX[c] for c in v["hand"])
        self.trump = SUIT_INDEX[v["trump"]] if v["trump"] is not None else -1
        played = 0
        counts = [13, 13, 13, 13]
        voids = [0, 0, 0, 0]                 # per seat, suit masks they cannot hold
        for t in v["tricks"]:
            cards = t["cards"]
            led = CARD_INDEX[cards[0]["card"]] // 13
            for e in cards:
                c = CARD_INDEX[e["card"]]
                played |= 1 << c
                counts[e["seat"]] -= 1
                if c // 13 != led:
                    voids[e["seat"]] |= SM[led]
        trick = []
        if v["trick"]:
            led = CARD_INDEX[v["trick"][0]["card"]] // 13
            for e in v["trick"]:
                c = CARD_INDEX[e["card"]]
                trick.append(c)
                played |= 1 << c
                counts[e["seat"]] -= 1
                if c // 13 != led:
                    voids[e["seat"]] |= SM[led]
        self.trick = trick
        self.leader = v["leader"] if v["leader"] is not None else seat
        self.taken = list(v["tricks_taken"])
        self.decl = [d if d is not None else 0 for d in v["declarations"]]
        self.unseen = ((1 << 52) - 1) & ~played & ~hand
        self.counts = counts
        self.voids = voids
        fixed = [0, 0, 0, 0]
        shown = v.get("shown_card")
        if shown is not None and v["dealer"] != seat:
            b = 1 << CARD_INDEX[shown]
            if self.unseen & b:
                fixed[v["dealer"]] = b       # T-8, T-10: the shown card is the dealer's
        self.fixed = fixed


def sample(pub: Public, rng: random.Random) -> list[int]:
    """One deal of the unseen cards to the other seats, consistent with the voids."""
    seat = pub.seat
    others = [s for s in range(4) if s != seat]
    base_unseen = pub.unseen
    for fix in pub.fixed:
        base_unseen &= ~fix
    cards = []
    m = base_unseen
    while m:
        low = m & -m
        cards.append(low.bit_length() - 1)
        m ^= low
    for attempt in range(30):
        relax = attempt >= 25
        hands = list(pub.fixed)
        room = {s: pub.counts[s] - bin(pub.fixed[s]).count("1") for s in others}
        rng.shuffle(cards)
        # The most constrained cards first.
        elig = []
        for c in cards:
            bit = 1 << c
            e = [s for s in others if relax or not pub.voids[s] & bit]
            elig.append((len(e), c, e))
        elig.sort(key=lambda x: x[0])
        ok = True
        for _, c, e in elig:
            cand = [s for s in e if room[s] > 0]
            if not cand:
                ok = False
                break
            # Weight by the room left, so that seats fill evenly.
            tot = sum(room[s] for s in cand)
            r = rng.random() * tot
            for s in cand:
                r -= room[s]
                if r < 0:
                    break
            hands[s] |= 1 << c
            room[s] -= 1
        if ok:
            hands[seat] = pub.hand
            return hands
    hands = list(pub.fixed)
    hands[seat] = pub.hand
    i = 0
    for s in others:
        need = pub.counts[s] - bin(hands[s]).count("1")
        for c in cards[i:i + need]:
            hands[s] |= 1 << c
        i += need
    return hands


def candidates(pub: Public, legal: list[int]) -> list[int]:
    """One card per run of touching legal cards (the lowest of each run)."""
    legal = sorted(legal)
    reps = []
    prev = None
    for c in legal:
        if prev is not None and prev // 13 == c // 13 and not pub.unseen & ABOVE[prev] & BELOW[c]:
            prev = c
            continue
        reps.append(c)
        prev = c
    return reps


def make_scorer(v: dict):
    """The round's value for this seat from the final tricks taken (real tables)."""
    seat = v["seat"]
    game = v["game"]
    if game == "tarneeb41":
        totals = v["totals"]
        team, opp = (seat, seat ^ 2), (seat ^ 1, seat ^ 3)

        def qualifies(t, pair):
            a, b = t[pair[0]], t[pair[1]]
            return (a >= 41 and b > 0) or (b >= 41 and a > 0)

        def score(decl, taken):
            _, raw, _ = scoring.tarneeb(decl, taken)
            val = raw[team[0]] + raw[team[1]] - raw[opp[0]] - raw[opp[1]]
            t = [totals[s] + raw[s] for s in range(4)]
            qa, qb = qualifies(t, team), qualifies(t, opp)
            if qa and not qb:
                val += 60
            elif qb and not qa:
                val -= 60
            return val
        return score
    caller = v["caller"]
    dash = list(v["dash_players"])
    last = v["last_declarer"]
    all_pass = bool(v.get("all_pass"))
    if game == "estimation-kotshina":
        mult = v.get("multiplier") or 1

        def score(decl, taken):
            _, raw, made = scoring.estimation_kotshina(
                decl, taken, caller=None if all_pass else caller, dash_players=dash,
                last_declarer=last)
            if not any(made):
                return 0                             # K-14 Sa'ayda: nobody scores
            return raw[seat] * mult
        return score
    call_n = v["call"]["n"] if v.get("call") else None
    withp = list(v["with_players"])

    def score(decl, taken):
        _, raw = scoring.estimation_committee(
            decl, taken, caller=caller, call_n=call_n, with_players=withp,
            dash_players=dash, last_declarer=last, all_pass=all_pass)
        return raw[seat]
    return score


def choose_card(v: dict, budget_ms: float, rng: random.Random, start: float | None = None,
                prefer_card: str | None = None):
    """The card code to play, or None if no sample finished in time."""
    if start is None:
        start = time.perf_counter()
    deadline = start + budget_ms / 1000.0 * 0.9
    pub = Public(v)
    legal = [CARD_INDEX[a["card"]] for a in v["legal"]]
    if len(legal) == 1:
        return v["legal"][0]["card"]
    reps = candidates(pub, legal)
    if pub.game == "tarneeb41" and pub.trick:
        # Never trump the partner's winning trick.
        w = current_winner(pub.trick, pub.trump)
        if (pub.leader + w) & 3 == pub.seat ^ 2 and pub.trump >= 0:
            led = pub.trick[0] // 13
            keep = [c for c in reps if c // 13 == led or c // 13 != pub.trump]
            reps = keep or reps
    if len(reps) == 1:
        return CODES[reps[0]]
    score = make_scorer(v)
    tarneeb = pub.game == "tarneeb41"
    seat, trump, leader = pub.seat, pub.trump, pub.leader
    decl = pub.decl
    sums = [0.0] * len(reps)
    n = 0
    now = time.perf_counter
    slowest = 0.0                       # the longest rollout so far: never start one late
    while now() + slowest < deadline:
        hands = sample(pub, rng)
        row = []
        for c in reps:
            t0 = now()
            if t0 + slowest >= deadline:
                row = None
                break
            h = list(hands)
            h[seat] ^= 1 << c
            trick = pub.trick + [c]
            taken = list(pub.taken)
            ld = leader
            if len(trick) == 4:
                w = (ld + current_winner(trick, trump)) & 3
                taken[w] += 1
                ld = w
                trick = []
            rollout(h, trick, ld, trump, taken, decl, tarneeb)
            row.append(score(decl, taken))
            dt = now() - t0
            if dt > slowest:
                slowest = dt
        if row is None:
            break
        for i, x in enumerate(row):
            sums[i] += x
        n += 1
    if n == 0:
        return None
    # Ties (often: the rollouts play the same card later anyway) go to the fast
    # player's own choice, then to the lowest card.
    prefer = -1
    if prefer_card is not None:
        pc = CARD_INDEX[prefer_card]
        for i, c in enumerate(reps):
            if c // 13 == pc // 13 and c <= pc and not pub.unseen & ABOVE[c] & BELOW[pc]:
                prefer = i
    best = max(range(len(reps)), key=lambda i: (sums[i], i == prefer, -(reps[i] % 13)))
    return CODES[reps[best]]


__all__ = ["choose_card", "sample", "Public", "candidates", "make_scorer", "lo"]
