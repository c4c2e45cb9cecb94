"""``strong`` card play: determinised Monte Carlo over the public information.

1. Read the view: own hand, every card played, who showed a void (did not follow
   the led suit), how many cards each seat still holds, and in Tarneeb the dealer's
   shown card while it is still in the dealer's hand.
2. Sample the unseen cards to the other seats consistently with all of that, with
   the Estimation declarations as soft evidence: of a few candidate deals, one is
   kept in proportion to how well each seat's hand (with the cards it has played
   since) fits its declaration by the hand-count evaluator (``fit_weight``).
3. For every candidate card (touching cards evaluated once) roll the round out with
   the fast player on the same samples and score it with the game's real table
   (``engine.scoring``): committee, calculator with the multiplier, Tarneeb's team goal;
   in Estimation a rollout that ends over the seat's number counts half as made
   (``LONG_CREDIT``: the fast player in the rollouts goes over far more than we do).
4. Stop at the time budget; only complete samples count; best average wins.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence

from .. import scoring
from ..types import CardPlayed, View
from .cards import (
    ABOVE,
    BELOW,
    CARD_INDEX,
    CODES,
    MIN_BID,
    SM,
    SUIT_CODE,
    SUIT_INDEX,
    any_card,
    bid_key,
    lowest_bid,
)
from .evaluate import best_index, dash_danger, expected_tricks
from .play import DUMP, WIN, current_winner, fast_card
from .sim import M_GREEDY, M_NUM, rollout, rollout_modes
from .stylemodel import BID_SPARE, Style, Weights, draw, is_plain, models

# (seat, kind, number): kind 0 a declaration, 1 the caller's, 2 a dash player's.
Evidence = list[tuple[int, int, int]]
# A turn of the auction: (kind, suit, number). Kind 0: a bid of ``number`` in ``suit``
# (NT -1); 1: a pass, the standing bid's key then (number * 5 + its suit's rank, E-5; -1
# none); 2: a fast round's bid of ``number`` in the fixed trump ``suit``; 3: a pass
# there, the standing number then (0 none).
BidTurn = tuple[int, int, int]
# The round's value for the deciding seat from the declarations and the tricks taken.
Scorer = Callable[[Sequence[int], Sequence[int]], int]
# A card a seat played, and what it was played into: (card, the trick before it, every
# card unplayed before it, the seat's tricks before it, the seat's cards played from it on).
Play = tuple[int, list[int], int, int, int]


class Public:
    """What a seat knows about the round in play, as ints."""

    __slots__ = ("bids", "counts", "decl", "evidence", "fixed", "game", "hand", "leader",
                 "played_by", "plays", "seat", "taken", "trick", "trump", "unseen", "v", "voids")
    v: View
    seat: int
    game: str
    hand: int                  # own cards
    trump: int                 # NT (-1) for no trump
    trick: list[int]
    leader: int
    taken: list[int]
    decl: list[int]            # 0 for a seat that has not declared
    unseen: int                # cards neither played nor in the own hand
    counts: list[int]          # cards each seat still holds
    voids: list[int]           # per seat, the suits (as masks) it has shown it cannot hold
    fixed: list[int]           # per seat, cards known to be there (Tarneeb's shown card)
    played_by: list[int]
    evidence: Evidence
    bids: list[list[BidTurn]]  # per seat, its turns of this round's auction (``auction_evidence``)
    plays: list[list[Play]] | None    # per seat, its plays this round (``seat_plays``)

    def __init__(self, v: View):
        self.v = v
        seat = v["seat"]
        assert seat is not None            # a seat's view: only a seat plays cards
        self.seat = seat
        self.game = v["game"]
        self.hand = hand = sum(1 << CARD_INDEX[c] for c in v["hand"])
        self.trump = SUIT_INDEX[v["trump"]] if v["trump"] is not None else -1
        played = 0
        played_by = [0, 0, 0, 0]
        counts = [13, 13, 13, 13]
        voids = [0, 0, 0, 0]                 # per seat, suit masks they cannot hold
        for t in v["tricks"]:
            cards = t["cards"]
            led = CARD_INDEX[cards[0]["card"]] // 13
            for e in cards:
                c = CARD_INDEX[e["card"]]
                played |= 1 << c
                played_by[e["seat"]] |= 1 << c
                counts[e["seat"]] -= 1
                if c // 13 != led:
                    voids[e["seat"]] |= SM[led]
        trick: list[int] = []
        if v["trick"]:
            led = CARD_INDEX[v["trick"][0]["card"]] // 13
            for e in v["trick"]:
                c = CARD_INDEX[e["card"]]
                trick.append(c)
                played |= 1 << c
                played_by[e["seat"]] |= 1 << c
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
        self.played_by = played_by
        self.evidence = evidence_model(v, seat, self.trump)
        self.bids = (auction_evidence(v, seat) if BID_READ
                     and (BID_READ_PLAY or v["phase"] != "play") else [[], [], [], []])
        self.plays = None


def sample(pub: Public, rng: random.Random) -> list[int]:
    """One deal of the unseen cards to the other seats, consistent with the voids.

    Cards some seat cannot hold (a shown void) are placed first, each to a seat that
    may hold it weighted by the room left; the free cards are then shuffled and cut."""
    seat = pub.seat
    others = [s for s in range(4) if s != seat]
    unseen = pub.unseen
    for fix in pub.fixed:
        unseen &= ~fix
    voids = pub.voids
    tight = unseen & (voids[others[0]] | voids[others[1]] | voids[others[2]])
    free = []
    m = unseen & ~tight
    while m:
        low = m & -m
        free.append(low.bit_length() - 1)
        m ^= low
    tight_cards = []
    m = tight
    while m:
        low = m & -m
        tight_cards.append(low.bit_length() - 1)
        m ^= low
    fixed = pub.fixed
    counts = pub.counts
    for _attempt in range(30):
        hands = list(fixed)
        room = [counts[s] - bin(fixed[s]).count("1") if s != seat else 0 for s in range(4)]
        ok = True
        if tight_cards:
            rng.shuffle(tight_cards)
            elig = []
            for c in tight_cards:
                bit = 1 << c
                e = [s for s in others if not voids[s] & bit]
                elig.append((len(e), c, e))
            elig.sort(key=lambda x: x[0])
            for _, c, e in elig:
                cand = [s for s in e if room[s] > 0]
                if not cand:
                    ok = False
                    break
                if len(cand) == 1:
                    s = cand[0]
                else:
                    tot = sum(room[s] for s in cand)
                    r = rng.random() * tot
                    for s in cand:
                        r -= room[s]
                        if r < 0:
                            break
                hands[s] |= 1 << c
                room[s] -= 1
            if not ok:
                continue
        rng.shuffle(free)
        i = 0
        for s in others:
            k = room[s]
            h = hands[s]
            for c in free[i:i + k]:
                h |= 1 << c
            hands[s] = h
            i += k
        hands[seat] = pub.hand
        return hands
    # Inconsistent constraints (should not happen): ignore the voids.
    cards = tight_cards + free
    hands = list(fixed)
    hands[seat] = pub.hand
    i = 0
    for s in others:
        need = counts[s] - bin(hands[s]).count("1")
        for c in cards[i:i + need]:
            hands[s] |= 1 << c
        i += need
    return hands


# ---- declarations as soft evidence ----------------------------------------------
# A seat's declaration says what its hand looked like when it declared: its cards now
# plus the cards it has played since. The hand-count evaluator puts a number on a
# sampled hand; a sample whose hands fit the declarations is kept more often
# (sampling-importance-resampling over a few candidate deals).
EV_OFFSET = 0.2          # declarations sit a little above the raw count (normal's calibration)
EV_SD = 0.8              # how far a declaration strays from the count
EV_SD_CALL = 0.6         # a caller bid at most its count: only a shortfall is evidence
EV_DASH = 1.0            # a dash player's hand was a dash (danger below this, softly)
EV_CANDIDATES = 4        # candidate deals per kept sample (8 measured no better)


def evidence_model(v: View, seat: int, trump: int) -> Evidence:
    """[(seat, kind, number)] for the other seats whose declaration is known, in play."""
    if v["game"] == "tarneeb41" or v["phase"] != "play":
        return []
    return declared(v, seat)


def declared(v: View, seat: int) -> Evidence:
    """[(seat, kind, number)] for the other seats that have declared (kind 2: a dash
    player's 0, E-9; 1: the caller; 0: the others), in any phase."""
    decl = v["declarations"]
    dash = set(v.get("dash_players") or [])
    caller = v.get("caller") if not v.get("all_pass") else None
    out: Evidence = []
    for s in range(4):
        d = decl[s]
        if s == seat or d is None:
            continue
        if s in dash:
            out.append((s, 2, 0))
        elif s == caller:
            out.append((s, 1, d))
        else:
            out.append((s, 0, d))
    return out


# ---- the auction as evidence ------------------------------------------------------
# Every turn of the auction was heard by all: a bid says the hand's count in its suit
# reached the number less the bidder's spare (and, for the fast player's styles, that
# the suit was its best, by ``best_suit``'s rule); a pass, that the count of its best
# suit (our levels and people: of any suit) did not reach the lowest bid beating the
# standing one. The same hand count and spares the bid rollouts read
# (``stylemodel.BID_SPARE``, the styles' own rule); With says nothing here. Where it is
# on, every sampled deal hears it: the card play's, and the bid, call and declaration
# rollouts' (``contract.py``, ``declaring.py``). Off: it
# places more cards (from the fourth trick on 53.9 -> 55.5 %, greedy and over tables)
# but held out (committee, greedy and over, seeds 61, 67, 71, 100 samples) it gained
# +0.19 +- 0.39 a round for 1.5 times the play decision's CPU; heard by the bid, call
# and declaration rollouts only (``BID_READ_PLAY`` False, free in the card play)
# +0.27 +- 0.39 (docs/bots.md).
BID_READ = False
BID_READ_PLAY = True     # the card play's deals hear it too (else the bids' and declarations')
EV_SD_BID = 0.5          # a style's bid: its own rule on the count, rounding aside
EV_SD_BID_NUM = 1.0      # our levels, the strong player and people: looser
PASS_MARGIN = 0.25       # a pass with a hand that reached a bid misfits at least this much
_TRUMPS = (-1, 0, 1, 2, 3)


def auction_evidence(v: View, seat: int) -> list[list[BidTurn]]:
    """Per other seat than ``seat``, its turns of this round's auction (``BidTurn``), in
    order (none in Tarneeb: it has no auction)."""
    out: list[list[BidTurn]] = [[], [], [], []]
    a = v.get("auction")
    if not a:
        return out
    fast = v.get("kind") == "fast"
    fixed = v.get("fixed_trump")
    trump = SUIT_INDEX[fixed] if fixed is not None else -1
    standing = -1
    for t in a.get("bids") or []:
        s = t["seat"]
        if t["type"] == "bid":
            n = t["n"]
            if fast:
                out[s].append((2, trump, n))
                standing = n
            else:
                out[s].append((0, SUIT_INDEX[t["suit"]], n))
                standing = bid_key(n, t["suit"])
        elif t["type"] == "pass":
            out[s].append((3, trump, max(standing, 0)) if fast else (1, 0, standing))
    out[seat] = []
    return out


def _bid_misfit(turns: list[BidTurn], h: int, st: Style | None) -> float:
    """How far a seat's hand ``h`` (with its played cards) is from its auction turns."""
    name = st.name if st is not None else "num"
    spare = BID_SPARE.get(name, 0.0)
    own = name != "num"                # a style of the fast player's: its best suit only
    sd = EV_SD_BID if own else EV_SD_BID_NUM
    counts: list[float] | None = None
    best = 0                                           # the best suit's index in counts
    z = 0.0
    for kind, suit, n in turns:
        if kind >= 2:                                  # a fast round: the fixed trump
            c = expected_tricks(h, suit) + spare
            if kind == 2:
                x = n - c
                if x > 0:
                    z += (x / sd) ** 2
            elif c >= max(n + 1, MIN_BID):             # it could have bid, and passed
                z += ((c - max(n + 1, MIN_BID) + PASS_MARGIN) / sd) ** 2
            continue
        if counts is None:
            counts = [expected_tricks(h, t) for t in _TRUMPS]
            best = best_index(counts)
        if kind == 0:
            c = counts[suit + 1]
            x = n - spare - c
            if x > 0:
                z += (x / sd) ** 2
            if own and best != suit + 1:
                z += (max(counts[best] - c, 0.0) / sd) ** 2
        else:
            if own:
                x = counts[best] + spare - lowest_bid(n, SUIT_CODE[best - 1])
            else:
                x = max(counts[i] + spare - lowest_bid(n, SUIT_CODE[i - 1]) for i in range(5))
            if x >= 0:                                 # it could have bid, and passed
                z += ((x + PASS_MARGIN) / sd) ** 2
    return z


def fit_weight(pub: Public, hands: list[int], styles: Sequence[Style] | None = None) -> float:
    """How well a sampled deal fits the other seats' declarations (and auction turns,
    ``misfits``) (0..1]; with
    ``styles`` (a style model per seat), each declaration is read by its seat's model."""
    return math.exp(-0.5 * sum(misfits(pub, hands, styles)))


def misfits(pub: Public, hands: list[int], styles: Sequence[Style] | None = None
            ) -> list[float]:
    """Per seat, how far its sampled hand is from its declaration and, where the auction
    is read (``BID_READ``), its turns of it (squared standard errors; 0 where nothing is
    declared or read): ``fit_weight`` is exp(-sum / 2)."""
    trump = pub.trump
    pb = pub.played_by
    z = [0.0, 0.0, 0.0, 0.0]
    for s, kind, n in pub.evidence:
        st = styles[s] if styles is not None else None
        if st is not None and not st.evidence:
            continue
        z[s] = _misfit(hands[s] | pb[s], kind, n, trump, st)
    for s, turns in enumerate(pub.bids):
        st = styles[s] if styles is not None else None
        if turns and (st is None or st.evidence):
            z[s] += _bid_misfit(turns, hands[s] | pb[s], st)
    return z


def _misfit(h: int, kind: int, n: int, trump: int, st: Style | None) -> float:
    """One seat's term of ``misfits``: its hand ``h`` (with its played cards), its
    declaration's ``kind`` and number ``n`` (``declared``), read by ``st``."""
    if kind == 2:
        d = dash_danger(h) - (EV_DASH if st is None else st.dash)
        return d * d * 2.0 if d > 0 else 0.0
    offset, sd = (EV_OFFSET, EV_SD) if st is None else (st.offset, st.sd)
    x = expected_tricks(h, trump) + offset - n
    if kind == 1:
        if x < 0:
            return (x / EV_SD_CALL) ** 2
        if x > 1.5:
            return ((x - 1.5) / 1.5) ** 2
        return 0.0
    if n == 0 and offset < 0:
        return (x / sd) ** 2 if x > 0 else 0.0  # a low declarer's 0: only a hand above it misfits
    return (x / sd) ** 2


def sample_fit(pub: Public, rng: random.Random, k: int = EV_CANDIDATES,
               styles: Sequence[Style] | None = None) -> list[int]:
    """One deal drawn among ``k`` candidates in proportion to ``fit_weight``."""
    if not (pub.evidence or any(pub.bids)) or k <= 1:
        return sample(pub, rng)
    deals = []
    ws = []
    for _ in range(k):
        h = sample(pub, rng)
        deals.append(h)
        ws.append(fit_weight(pub, h, styles))
    tot = sum(ws)
    if tot <= 0.0:
        return deals[0]
    r = rng.random() * tot
    for h, w in zip(deals, ws, strict=True):
        r -= w
        if r < 0:
            return h
    return deals[-1]


def candidates(pub: Public, legal: list[int]) -> list[int]:
    """One card per run of touching legal cards (the lowest of each run)."""
    return sorted(set(runs(pub, legal).values()))


def runs(pub: Public, legal: list[int]) -> dict[int, int]:
    """Each legal card's run of touching legal cards, named by its lowest card.

    A card of the trick in play still splits a run: the J and K around the Q on the
    table are the same card for every later trick, not for this one (one wins it)."""
    out: dict[int, int] = {}
    prev = rep = -1
    gaps = pub.unseen
    for c in pub.trick:
        gaps |= 1 << c
    for c in sorted(legal):
        if prev < 0 or prev // 13 != c // 13 or gaps & ABOVE[prev] & BELOW[c]:
            rep = c
        out[c] = rep
        prev = c
    return out


def make_scorer(v: View) -> Scorer:
    """The round's value for this seat from the final tricks taken (real tables)."""
    seat = v["seat"]
    assert seat is not None
    game = v["game"]
    if game == "tarneeb41":
        totals = v["totals"]
        team, opp = (seat, seat ^ 2), (seat ^ 1, seat ^ 3)

        def score_tarneeb(decl: Sequence[int], taken: Sequence[int]) -> int:
            _, raw, _ = scoring.tarneeb(decl, taken)
            val = raw[team[0]] + raw[team[1]] - raw[opp[0]] - raw[opp[1]]
            t = [totals[s] + raw[s] for s in range(4)]
            qa = scoring.tarneeb_qualifies(t[team[0]], t[team[1]])     # T-20, T-21
            qb = scoring.tarneeb_qualifies(t[opp[0]], t[opp[1]])
            if qa and not qb:
                val += 60
            elif qb and not qa:
                val -= 60
            return val
        return score_tarneeb
    caller = v["caller"]
    dash = list(v["dash_players"])
    last = v["last_declarer"]
    all_pass = bool(v.get("all_pass"))
    if game == "estimation-kotshina":
        mult = v.get("multiplier") or 1

        def score_kotshina(decl: Sequence[int], taken: Sequence[int]) -> int:
            _, raw, made = scoring.estimation_kotshina(
                decl, taken, caller=None if all_pass else caller, dash_players=dash,
                last_declarer=last)
            if not any(made):
                return 0                             # K-14 Sa'ayda: nobody scores
            return raw[seat] * mult
        return score_kotshina
    contract = v.get("call")
    call_n = contract["n"] if contract else None
    withp = list(v["with_players"])

    def score_committee(decl: Sequence[int], taken: Sequence[int]) -> int:
        _, raw = scoring.estimation_committee(
            decl, taken, caller=caller, call_n=call_n, with_players=withp,
            dash_players=dash, last_declarer=last, all_pass=all_pass)
        return raw[seat]
    return score_committee


def deal(pub: Public, rng: random.Random, w: Weights | None = None
         ) -> tuple[list[int], list[int] | None]:
    """One sample of the unseen cards and, with ``w`` (style weights per seat,
    ``model.weights``; not all our own kind), a style drawn for every other seat: its
    declarations weigh the deal (``fit_weight``) and it plays the rollout by its policy
    (the modes, ``sim.rollout_modes``); ``None`` modes: every seat plays as we do."""
    hands, modes, _ = deal_styles(pub, rng, w)
    return hands, modes


def deal_styles(pub: Public, rng: random.Random, w: Weights | None = None
                ) -> tuple[list[int], list[int] | None, list[str] | None]:
    """``deal``, and the name of the style drawn for every seat (``stylemodel.NAMES``;
    the seat's own: ``num``), for what is still to bid (the review)."""
    if w is None or is_plain(w):
        return sample_fit(pub, rng), None, None
    st = [models(pub.game)[k] for k in draw(w, rng)]
    modes = [x.mode for x in st]
    modes[pub.seat] = M_NUM
    names = [x.name for x in st]
    names[pub.seat] = "num"
    return explain_play(pub, sample_fit(pub, rng, styles=st), st, rng), modes, names


# ---- the play as evidence --------------------------------------------------------
# Late in a round the cards played say more of the hands than anything else: knowing
# the deal from the fourth trick on was worth +3.07 a round against greedy and over
# tables (tuning seed 77, 50 samples; the first three tricks +0.39). A
# seat read as a style that plays by the fast player (``PLAY_READ``) played every card
# the fast player would have played from its hand then (its number still needing
# tricks or made); a sampled hand under which it would not have is unlikely. So the
# sample is moved towards hands that explain the play: ``PLAY_STEPS`` proposals to swap
# a card of a read seat with one of another seat, taken by Metropolis with each play
# left unexplained weighing ``PLAY_EPS`` and the declarations' fit (``fit_weight``).
# ``num`` too: our levels' plays (easy, normal) are the fast player's to the number; a
# strong player or a person, whose plays are not, is moved too, without placing worse (at
# tables of four strong players, from the fourth trick on: 44.0 -> 44.0 % of 918 cards,
# a reader's 960 views 40.6 -> 42.4 %). Blind swaps (30 steps, the other seat drawn among all three) were measured off:
# +0.45 +- 0.54 a round held out for 2.4 times the decision's CPU. A swap now moves out
# the card the fast player would have played at the seat's first unexplained play where
# the seat holds it (``_misses``); 10 such steps place more than 30 blind ones, for
# about 1.9 times the decision's CPU at a fixed count of samples, which the room's time
# budget takes from its samples. Held out at 100 samples, paired: the committee against
# greedy and over +1.35 +- 0.46 a round (seeds 61, 67, 71), the calculator against normal
# +1.01 +- 0.82 (seeds 61, 67, 71); at the room's 100 ms budget +1.23 +- 0.73 (committee,
# seed 61), decision p95 unchanged; docs/bots.md. ``evaluate``'s guard times a whole
# sample, its deal included, so no sample starts that the deadline would throw away.
PLAY_READ: tuple[str, ...] = ("greedy", "over", "under", "dash", "num")
PLAY_EPS = 0.1
PLAY_STEPS = 10
_FULL = (1 << 52) - 1


def seat_plays(pub: Public) -> list[list[Play]]:
    """Per seat, its plays this round in order (``Play``); kept on ``pub``."""
    if pub.plays is not None:
        return pub.plays
    v = pub.v
    # Each finished trick with its winner as the engine ruled it (E-27); the one in
    # play has none yet.
    seq: list[tuple[list[CardPlayed], int | None]] = [(t["cards"], t["winner"])
                                                       for t in v["tricks"]]
    if v["trick"]:
        seq.append((v["trick"], None))
    per: list[list[tuple[int, list[int], int, int]]] = [[], [], [], []]
    gone = 0
    taken = [0, 0, 0, 0]
    for cards, winner in seq:
        trick: list[int] = []
        for e in cards:
            c = CARD_INDEX[e["card"]]
            per[e["seat"]].append((c, list(trick), _FULL & ~gone, taken[e["seat"]]))
            gone |= 1 << c
            trick.append(c)
        if winner is not None:
            taken[winner] += 1
    out: list[list[Play]] = []
    for rows in per:
        later = 0                       # the seat's cards played from this play on
        plays: list[Play] = []
        for c, before, every, tk in reversed(rows):
            later |= 1 << c
            plays.append((c, before, every, tk, later))
        plays.reverse()
        out.append(plays)
    pub.plays = out
    return out


def unexplained(pub: Public, seat: int, hand: int, greedy: bool) -> int:
    """How many of ``seat``'s plays this round the fast player would not have made
    holding ``hand`` now (and the cards it has played since each)."""
    return _misses(pub, seat, hand, greedy)[0]


def _misses(pub: Public, seat: int, hand: int, greedy: bool) -> tuple[int, int]:
    """``unexplained``, and the card the fast player would have played at the first
    play it does not explain (-1 where it explains every one)."""
    n = 0
    want = -1
    d = pub.decl[seat]
    trump = pub.trump
    for c, trick, every, tk, later in seat_plays(pub)[seat]:
        h = hand | later
        f = fast_card(h, every & ~h, trick, trump, WIN if greedy or d > tk else DUMP)
        if f != c:
            if not n:
                want = f
            n += 1
    return n, want


def explain_play(pub: Public, hands: list[int], styles: Sequence[Style],
                 rng: random.Random, steps: int | None = None) -> list[int]:
    """``hands`` moved towards a deal the read seats' plays are explained by (see
    ``PLAY_READ``) in ``steps`` proposals (default ``PLAY_STEPS``); unchanged where
    nothing is read or everything is explained."""
    if steps is None:
        steps = PLAY_STEPS
    if pub.game == "tarneeb41" or not steps or not (pub.v["tricks"] or pub.v["trick"]):
        return hands
    seat = pub.seat
    read = [s for s in range(4) if s != seat and styles[s].name in PLAY_READ]
    if not read:
        return hands
    greedy = [st.mode == M_GREEDY for st in styles]
    miss = [0, 0, 0, 0]
    want = [-1, -1, -1, -1]
    for s in read:
        miss[s], want[s] = _misses(pub, s, hands[s], greedy[s])
    if not any(miss):
        return hands
    hands = list(hands)
    others = [s for s in range(4) if s != seat]
    voids, fixed = pub.voids, pub.fixed
    # The declarations' fit, kept per seat: a swap changes two seats' terms only.
    trump, pb = pub.trump, pub.played_by
    said = {s: (kind, n) for s, kind, n in pub.evidence if styles[s].evidence}
    bids = pub.bids
    heard = [bool(bids[s]) and styles[s].evidence for s in range(4)]
    z = misfits(pub, hands, styles)
    for _ in range(steps):
        # Where a read seat holds the card the fast player would have played instead
        # of its first unexplained play, that card is the one moved out (placed right
        # from the fourth trick on: 10 such steps 54.2 %, 30 57.0 %, 30 blind ones 51.4 %, 100
        # blind 55.3 %), to a seat not void in its suit; otherwise a card of a read seat
        # drawn blind, to either of the two other seats.
        bad = [s for s in read if want[s] >= 0 and (hands[s] & ~fixed[s]) >> want[s] & 1
               and any(not voids[o] >> want[s] & 1 for o in others if o != s)]
        if bad:
            a = bad[rng.randrange(len(bad))] if len(bad) > 1 else bad[0]
            x = want[a]
            takers = [o for o in others if o != a and not voids[o] >> x & 1]
            b = takers[rng.randrange(len(takers))] if len(takers) > 1 else takers[0]
        else:
            a = read[rng.randrange(len(read))]
            b = others[rng.randrange(2)]
            if b == a:
                b = others[2]
            x = -1
        ha, hb = hands[a] & ~fixed[a], hands[b] & ~fixed[b]
        if not ha or not hb:
            continue
        if x < 0:
            x = any_card(ha, rng)
        y = any_card(hb, rng)
        if voids[b] >> x & 1 or voids[a] >> y & 1:
            continue
        old_a, old_b = hands[a], hands[b]
        hands[a] = old_a ^ (1 << x) | (1 << y)
        hands[b] = old_b ^ (1 << y) | (1 << x)
        ma, wa = _misses(pub, a, hands[a], greedy[a])
        mb, wb = _misses(pub, b, hands[b], greedy[b]) if b in read else (0, -1)
        za = _misfit(hands[a] | pb[a], *said[a], trump, styles[a]) if a in said else 0.0
        zb = _misfit(hands[b] | pb[b], *said[b], trump, styles[b]) if b in said else 0.0
        if heard[a]:
            za += _bid_misfit(bids[a], hands[a] | pb[a], styles[a])
        if heard[b]:
            zb += _bid_misfit(bids[b], hands[b] | pb[b], styles[b])
        odds = PLAY_EPS ** (ma + mb - miss[a] - miss[b]) * math.exp(
            -0.5 * (za + zb - z[a] - z[b]))
        if odds >= 1.0 or rng.random() < odds:
            miss[a], miss[b], want[a], want[b], z[a], z[b] = ma, mb, wa, wb, za, zb
        else:
            hands[a], hands[b] = old_a, old_b
    return hands


# The rollouts play the seat's own later cards by the fast player, which takes tricks
# it did not want far more often than the Monte Carlo player that will really play
# them: against greedy tables the rollouts ended over the number in 30-45 % of the
# samples of an early trick, strong itself in 2-3 % of its rounds, and short 15-20 %:
# it kept ducking tricks it needed for fear of an excess it would have avoided. A
# rollout that ends over the seat's number is scored this much as if it had made it
# (the rest as it ended). Estimation only (a Tarneeb trick over the number costs
# nothing). Measured 0.35 / 0.5 / 0.7 on seed 31: +0.28 / +0.89 / -0.01 points a
# round pooled over five styles (±0.6, 100 paired units each).
LONG_CREDIT = 0.5


def play_out(pub: Public, hands: list[int], c: int, score: Scorer,
             modes: list[int] | None, rng: random.Random) -> float:
    """The seat's points when it plays card ``c`` into the deal ``hands`` and the round
    is rolled out to its end (each seat by its mode, where ``modes`` are given); a
    rollout that ends over the seat's number counts ``LONG_CREDIT`` as made."""
    h = list(hands)
    h[pub.seat] ^= 1 << c
    trick = [*pub.trick, c]
    taken = list(pub.taken)
    ld = pub.leader
    if len(trick) == 4:
        wn = (ld + current_winner(trick, pub.trump)) & 3
        taken[wn] += 1
        ld = wn
        trick = []
    tarneeb = pub.game == "tarneeb41"
    if modes is None:
        rollout(h, trick, ld, pub.trump, taken, pub.decl, tarneeb)
    else:
        rollout_modes(h, trick, ld, pub.trump, taken, pub.decl, tarneeb, modes, rng)
    val: float = score(pub.decl, taken)
    seat = pub.seat
    if LONG_CREDIT and not tarneeb and taken[seat] > pub.decl[seat]:
        fixed = list(taken)
        fixed[seat] = pub.decl[seat]
        val = (1.0 - LONG_CREDIT) * val + LONG_CREDIT * score(pub.decl, fixed)
    return val


def evaluate(v: View, budget_ms: float, rng: random.Random, start: float | None = None,
             w: Weights | None = None, reps: list[int] | None = None,
             samples: int | None = None) -> tuple[list[int], list[float], int] | None:
    """Every candidate card (``reps``, default one per run of touching legal cards) rolled
    out on the same sampled deals until the budget: (cards, summed points, samples), or
    None if no sample finished. With ``w`` (style weights per seat, ``model.weights``),
    each sample draws a style model for every other seat: its declarations weigh the
    deal (``fit_weight``) and it plays the rollout by its policy.

    ``samples``: exactly that many samples, however long they take (the time budget is
    not looked at): with a seeded ``rng`` the choice is then a function of the view
    alone, the same on any machine under any load (a duplicate event's computer
    players, ``engine.duplicate``)."""
    if start is None:
        start = time.perf_counter()
    deadline = start + budget_ms / 1000.0 * 0.9
    pub = Public(v)
    if reps is None:
        legal = [CARD_INDEX[a["card"]] for a in v["legal"] if a["type"] == "play"]
        reps = candidates(pub, legal)
    score = make_scorer(v)
    sums = [0.0] * len(reps)
    n = 0
    now = time.perf_counter
    slowest = 0.0                       # the longest rollout so far: never start one late
    whole = 0.0                         # the longest sample (its deal too): nor a sample
    counted = samples is not None
    while (n < samples) if samples is not None else (now() + whole < deadline):
        ts = now()
        hands, modes = deal(pub, rng, w)
        row: list[float] = []
        for c in reps:
            t0 = now()
            if not counted and t0 + slowest >= deadline:
                break
            row.append(play_out(pub, hands, c, score, modes, rng))
            dt = now() - t0
            if dt > slowest:
                slowest = dt
        if len(row) < len(reps):
            break                       # out of time: only complete samples count
        dt = now() - ts
        if dt > whole:
            whole = dt
        for i, x in enumerate(row):
            sums[i] += x
        n += 1
    if n == 0:
        return None
    return reps, sums, n


def choose_card(v: View, budget_ms: float, rng: random.Random, start: float | None = None,
                prefer_card: str | None = None, w: Weights | None = None,
                samples: int | None = None) -> str | None:
    """The card code to play, or None if no sample finished in time."""
    if start is None:
        start = time.perf_counter()
    pub = Public(v)
    plays = [a for a in v["legal"] if a["type"] == "play"]
    legal = [CARD_INDEX[a["card"]] for a in plays]
    if len(legal) == 1:
        return plays[0]["card"]
    reps = candidates(pub, legal)
    if pub.game == "tarneeb41" and pub.trick:
        # Never trump the partner's winning trick.
        wi = current_winner(pub.trick, pub.trump)
        if (pub.leader + wi) & 3 == pub.seat ^ 2 and pub.trump >= 0:
            led = pub.trick[0] // 13
            keep = [c for c in reps if c // 13 == led or c // 13 != pub.trump]
            reps = keep or reps
    if len(reps) == 1:
        return CODES[reps[0]]
    res = evaluate(v, budget_ms, rng, start, w, reps, samples)
    if res is None:
        return None
    reps, sums, _ = res
    # Ties (often: the rollouts play the same card later anyway) go to the fast
    # player's own choice, then to the lowest card.
    prefer = -1
    if prefer_card is not None:
        rep = runs(pub, legal).get(CARD_INDEX[prefer_card], -1)
        if rep in reps:
            prefer = reps.index(rep)
    best = max(range(len(reps)), key=lambda i: (sums[i], i == prefer, -(reps[i] % 13)))
    return CODES[reps[best]]


__all__ = ["PLAY_EPS", "PLAY_READ", "PLAY_STEPS", "Public", "candidates", "choose_card",
           "deal_styles", "evaluate", "explain_play", "fit_weight", "make_scorer", "misfits",
           "runs", "sample", "sample_fit", "seat_plays", "unexplained"]
