"""A review of one seat's decisions in one finished round (learn from your own game).

    from engine import replay
    from engine.bots.review import review_round
    r = review_round(replay(record), round_no=2, seat=0)

For each decision the seat took in the round (the dash offer, every bid, With or pass,
the call, the declaration, every card) the review gives the strong computer player's
choice at that point and the expected points of both, measured on the *same* sampled
deals of the hidden cards. Those samples are drawn only from what the seat knew then:
its view at that moment (``Match.view(seat)``), through the strong player's own
sampler (``bots.montecarlo.sample_fit``: voids, the shown card, the declarations as
soft evidence; in Estimation's card play each deal then moved towards one the other
seats' plays are explained by, ``explain_play``). Nothing here reads another seat's hand.

- A card: every candidate card (touching cards count once) is rolled out to the end
  of the round by the fast player on each sample and scored with the game's real table
  (``montecarlo.make_scorer``) — the strong player's own method, with a fixed number of
  samples instead of a time budget, so the review is the same whoever asks. Where the
  strong player reads the table (Estimation: ``bots.model``), each sample also draws a
  style for every other seat from what it has shown, and that seat plays the rollout
  by it: the review's picture of the opponents is the player's own.
- Any other decision (dash, bid, With, pass, call, declaration): the strong player's
  bidding choice (``bots.choose``) and the chosen one are each applied to a copy of
  the table on each sample; the other seats go on bidding until the cards are played,
  then the round is rolled out and scored as above — with the same model of the others
  as a card: where the strong player reads the table each sample draws every other
  seat's style, which weighs the deal, makes that seat's bids and declarations still
  to come (``styles.STYLES``; our own kind: the strong player's bidding) and plays its
  cards. The suggestion is the strong player's choice — what the hint at a practice
  table says too (the hint weighs ``NEIGHBOURS`` legal actions beside it to name the
  next best).

Samples are added in batches until the difference between the two choices is resolved
(more than ``RESOLVE`` standard errors from zero, or a standard error under
``CLEAR_SE`` points) or ``max_samples`` is reached; each decision reports its noise
(the standard error of the difference). The points lost mark a decision when they are
above the noise (``SIGNIFICANT`` standard errors) and above a threshold: an
inaccuracy from 2 points, a mistake from 5, a blunder from 10 (``MARKS``).

The round's ``worth`` is the seat's expected tricks when it plays to take them, from
its view as the cards began (declarations known; the others as the model reads them),
next to what it declared.

Every sample is drawn from a ``random.Random`` seeded from the match's seed, the round,
the seat and the decision's place in the log: a review never changes with who asks.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict, TypeVar, cast

from ..match import Match
from ..types import Action, LoggedAction, MatchRecord, PlayAction, View
from . import choose, fast_play, model, reads_table
from .cards import CARD_INDEX, CODES
from .montecarlo import Public, candidates, deal, deal_styles, make_scorer, play_out, runs
from .play import current_winner
from .sim import rollout, rollout_modes
from .stylemodel import Weights
from .styles import STYLES

# Points lost from which a decision is marked (the largest that applies).
MARKS: tuple[tuple[float, str], ...] = ((10.0, "blunder"), (5.0, "mistake"),
                                        (2.0, "inaccuracy"))
SIGNIFICANT = 2.0        # a mark needs the points lost beyond this many standard errors
RESOLVE = 3.0            # stop sampling once the difference is this many standard errors out
CLEAR_SE = 0.4           # ... or once its standard error is under this many points
BATCH = 16               # samples added at a time
MIN_SAMPLES = 128        # default least samples per decision
MAX_SAMPLES = 512       # default most samples per decision
STRONG_SAMPLES = 100    # the strong player's own declaration: its rollouts' samples


class ReviewedDecision(TypedDict):
    """``Decision.to_dict()``: one decision of a review, as the screens and programs get
    it."""
    index: int                  # its place in the match log
    phase: str
    chosen: Action
    suggested: Action
    ev_chosen: float | None
    ev_suggested: float | None
    noise: float
    samples: int
    forced: NotRequired[bool]
    mark: NotRequired[str]      # "inaccuracy", "mistake" or "blunder" (``MARKS``)


class RoundReview(TypedDict):
    """``Review.to_dict()``: a seat's decisions in one round; as the room hands it out,
    with ``"type": "review"``."""
    type: NotRequired[Literal["review"]]
    round: int
    seat: int
    worth: float | None
    declared: int | None
    decisions: list[ReviewedDecision]


class ReviewPlan(TypedDict):
    """``review_plan``: the pieces of a review, computed one at a time."""
    indices: list[int]          # the log places of the seat's decisions in the round
    play_at: int | None         # where its cards began (None: no card was played)
    declared: int | None


class HintChoice(TypedDict):
    action: Action
    ev: float


class Hint(TypedDict):
    """``hint``: the strong player's choice now and its expected points (None: the only
    legal choice), and the next best's; as the room hands it out, with ``"type": "hint"``."""
    type: NotRequired[Literal["hint"]]
    action: Action
    ev: float | None
    next_best: HintChoice | None
    void: NotRequired[bool]     # Tarneeb: the last declaration leaves the total under 11 (T-13)


@dataclass
class Decision:
    """One of the seat's decisions, at ``index`` in the match log."""

    index: int
    phase: str
    chosen: Action
    suggested: Action
    ev_chosen: float | None = None        # None for a forced decision (nothing to weigh)
    ev_suggested: float | None = None
    noise: float = 0.0                    # standard error of ev_suggested - ev_chosen
    samples: int = 0
    forced: bool = False
    mark: str | None = None

    def to_dict(self) -> ReviewedDecision:
        d: ReviewedDecision = {"index": self.index, "phase": self.phase,
                               "chosen": self.chosen.copy(), "suggested": self.suggested.copy(),
                               "ev_chosen": _r(self.ev_chosen),
                               "ev_suggested": _r(self.ev_suggested),
                               "noise": round(self.noise, 2), "samples": self.samples}
        if self.forced:
            d["forced"] = True
        if self.mark is not None:
            d["mark"] = self.mark
        return d


@dataclass
class Review:
    round: int
    seat: int
    worth: float | None                   # expected tricks with strong play
    declared: int | None
    decisions: list[Decision] = field(default_factory=list)

    def to_dict(self) -> RoundReview:
        return {"round": self.round, "seat": self.seat, "worth": _r(self.worth),
                "declared": self.declared,
                "decisions": [d.to_dict() for d in self.decisions]}


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 2)


def mark_for(lost: float, noise: float) -> str | None:
    """The mark of a decision that lost ``lost`` expected points with that noise."""
    if lost <= SIGNIFICANT * noise:
        return None
    for threshold, name in MARKS:
        if lost >= threshold:
            return name
    return None


def _least(min_samples: int, max_samples: int) -> int:
    """The samples a decision is weighed on before it may stop: at least two (a
    standard error), at most the most."""
    return max(2, min(min_samples, max_samples))


def seed_for(match_seed: int, round_no: int, seat: int, index: int) -> int:
    """A stable seed (no ``hash()``: it differs between processes)."""
    h = hashlib.sha256(f"review:{match_seed}:{round_no}:{seat}:{index}".encode()).digest()
    return int.from_bytes(h[:8], "big")


class RoundNotOver(ValueError):
    """The round asked for has not ended (or does not exist)."""


# ---- the table at a decision -----------------------------------------------------

def _clone(m: Match) -> Match:
    """A copy of ``m`` that the rest of a round's bidding may change (not its history)."""
    return m.fork()                   # nothing in a round's bidding draws from its rng


def _score_from_play(m: Match, seat: int, rounds_done: int, modes: list[int] | None = None,
                     rng: random.Random | None = None, names: Sequence[str] | None = None
                     ) -> tuple[int, int]:
    """Bid the rest — each other seat by the style drawn for it where ``names`` are
    given (``styles.STYLES``; our own kind and the seat itself: the strong player) —,
    roll the cards out with the fast one (each seat by its style's policy where
    ``modes`` are given: ``sim.rollout_modes``): (points for ``seat``, tricks it took).
    ``m`` is a clone, changed here."""
    while m.phase != "play":
        if m.rounds_done > rounds_done or m.to_act is None:
            return 0, 0           # the round ended without cards (a voided hand)
        s = m.to_act
        v = m.view(s)
        # (every style plays only legal actions: tests/test_bot_styles.py)
        bidder = STYLES.get(names[s]) if names is not None and s != seat else None
        m.apply(s, bidder(v, rng) if bidder is not None and rng is not None
                else choose(v, "strong", counted=True))
    v = m.view(seat)
    score = make_scorer(v)
    decl = [d if d is not None else 0 for d in m.declarations]
    trump = m.trump if m.trump is not None else -1
    leader = m.leader if m.leader is not None else m.to_act
    assert leader is not None
    taken = list(m.taken)
    if modes is None:
        rollout(list(m.hands), list(m.trick), leader, trump, taken, decl,
                m.game == "tarneeb41")
    else:
        assert rng is not None
        rollout_modes(list(m.hands), list(m.trick), leader, trump, taken, decl,
                      m.game == "tarneeb41", modes, rng)
    return score(decl, taken), taken[seat]


def _strong(v: View, seed: int) -> Action:
    """The strong player's own choice at a bidding decision, the same whoever asks: its
    Estimation declaration's rollouts by a fixed number of samples (``STRONG_SAMPLES``)
    from a stream of the decision's own (not the review's samples)."""
    return choose(v, "strong", rng=random.Random(seed ^ 0x5EED),
                  samples=STRONG_SAMPLES).copy()


def _set_hands(m: Match, hands: list[int]) -> None:
    m.hands = list(hands)


# ---- one decision ------------------------------------------------------------------

class _Pairs:
    """Running sums for the difference suggested - chosen."""

    def __init__(self) -> None:
        self.n = 0
        self.s = 0.0
        self.ss = 0.0

    def add(self, d: float) -> None:
        self.n += 1
        self.s += d
        self.ss += d * d

    @property
    def mean(self) -> float:
        return self.s / self.n if self.n else 0.0

    @property
    def se(self) -> float:
        if self.n < 2:
            return math.inf
        var = max(0.0, (self.ss - self.s * self.s / self.n) / (self.n - 1))
        return math.sqrt(var / self.n)

    def resolved(self) -> bool:
        se = self.se
        return se < CLEAR_SE or abs(self.mean) > RESOLVE * se


def _reading(v: View) -> Weights | None:
    """The other seats' styles as the strong player reads them at this view (None
    where it does not read the table: ``bots.reads_table``)."""
    return model.weights(v) if reads_table(v) else None


def _run_of(run: dict[int, int], reps: list[int], c: int) -> int:
    """The candidate standing for card ``c``: the lowest of its touching run, as the
    card player reads runs (``run``: ``montecarlo.runs`` of the legal cards)."""
    rep = run.get(c, -1)
    return reps.index(rep) if rep in reps else -1


class _Cards:
    """A card decision's candidates and its samples: each row is one deal of the hidden
    cards with every candidate rolled out on it, drawn ``BATCH`` at a time from ``rng``
    and kept, so that judging another card reads the same rows (the hint judges until
    the review would say its card itself: ``hint``)."""

    def __init__(self, v: View, rng: random.Random) -> None:
        pub = self.pub = Public(v)
        legal = [CARD_INDEX[a["card"]] for a in v["legal"] if a["type"] == "play"]
        self.reps = candidates(pub, legal)
        self.run = runs(pub, legal)
        allowed = list(range(len(self.reps)))
        if pub.game == "tarneeb41" and pub.trick and pub.trump >= 0:
            w = current_winner(pub.trick, pub.trump)
            if (pub.leader + w) & 3 == pub.seat ^ 2:   # the strong player never trumps it
                led = pub.trick[0] // 13
                keep = [i for i, c in enumerate(self.reps)
                        if c // 13 == led or c // 13 != pub.trump]
                allowed = keep or allowed
        self.allowed = allowed
        self.score = make_scorer(v)
        self.prefer = _run_of(self.run, self.reps, CARD_INDEX[fast_play(v)])
        self.sw = _reading(v)
        self.rng = rng
        self.rows: list[list[float]] = []

    def index(self, code: str) -> int:
        """The candidate standing for the card ``code``."""
        ci = _run_of(self.run, self.reps, CARD_INDEX[code])
        if ci < 0:                                # cannot happen: the card was legal
            if self.rows:
                raise ValueError(f"{code} is not a candidate of this decision")
            self.reps.append(CARD_INDEX[code])
            ci = len(self.reps) - 1
        return ci

    def _upto(self, n: int) -> list[list[float]]:
        pub, reps, score = self.pub, self.reps, self.score
        while len(self.rows) < n:
            for _ in range(BATCH):
                hands, modes = deal(pub, self.rng, self.sw)
                self.rows.append([play_out(pub, hands, c, score, modes, self.rng)
                                  for c in reps])
        return self.rows[:n]

    def best_of(self, rows: list[list[float]]) -> int:
        reps, prefer = self.reps, self.prefer
        sums = [sum(r[i] for r in rows) for i in range(len(reps))]
        return max(self.allowed, key=lambda i: (sums[i], i == prefer, -(reps[i] % 13)))

    def judge(self, ci: int, lo: int, hi: int) -> tuple[int, list[list[float]], _Pairs]:
        """The review of candidate ``ci`` on these rows (``_judge``)."""
        return _judge(self._upto, self.best_of, ci, lo, hi)


Row = TypeVar("Row", list[float], list[int])


def _judge(upto: Callable[[int], list[Row]], best_of: Callable[[list[Row]], int], ci: int,
           lo: int, hi: int) -> tuple[int, list[Row], _Pairs]:
    """One decision's review of its candidate ``ci``: rows (one sample each, every
    candidate's points: ``upto(n)``, the first ``n``) are added ``BATCH`` at a time
    until the best so far against ``ci`` is resolved (from ``lo`` rows on; the best
    being ``ci`` is resolved at once) or there are ``hi``. (The best, the rows read,
    the pairs best − chosen.)"""
    n = 0
    rows: list[Row] = []
    while n < hi:
        n += BATCH
        rows = upto(n)
        if n >= lo:
            p = _pairs(rows, best_of(rows), ci)
            if p.resolved():
                break
    b = best_of(rows)
    return b, rows, _pairs(rows, b, ci)


def _pairs(rows: Sequence[Sequence[float]], b: int, ci: int) -> _Pairs:
    p = _Pairs()
    for r in rows:
        p.add(r[b] - r[ci])
    return p


def _card_decision(v: View, chosen: PlayAction, rng: random.Random, lo: int, hi: int,
                   dec: Decision) -> None:
    cards = _Cards(v, rng)
    ci = cards.index(str(chosen["card"]))
    b, rows, p = cards.judge(ci, lo, hi)
    n = len(rows)
    dec.samples = n
    dec.ev_chosen = sum(r[ci] for r in rows) / n
    dec.ev_suggested = sum(r[b] for r in rows) / n
    dec.noise = 0.0 if b == ci else p.se
    dec.suggested = {"type": "play",
                     "card": str(chosen["card"]) if b == ci else CODES[cards.reps[b]]}


NEIGHBOURS = 4           # legal actions next to the strong player's choice weighed with it


def bid_candidates(legal: list[Action], strong: Action) -> list[Action]:
    """The strong player's bidding choice first, then up to ``NEIGHBOURS`` legal actions
    next to it in the engine's order (a number either side, the pass, With …)."""
    at = next((k for k, a in enumerate(legal) if a == strong), 0)
    near = sorted(range(len(legal)), key=lambda k: (abs(k - at), k))[:NEIGHBOURS + 1]
    out = [strong.copy()]
    for k in near:
        a = legal[k].copy()
        if a not in out:
            out.append(a)
    return out


def _bid_row(m: Match, seat: int, acts: list[Action], pub: Public,
             rng: random.Random, sw: Weights | None, rounds_done: int) -> list[int]:
    """One sample for a decision other than a card: the hidden cards dealt from what the
    seat knows and, where the strong player reads the table (``sw``: ``_reading``), a
    style drawn for every other seat (its declarations weigh the deal, it plays the
    rollout by its policy: ``montecarlo.deal``); then each action of ``acts`` applied
    to a copy of the table and the round played out on that deal. The seat's points,
    per action. Where the model says nothing the deal is drawn as it always was."""
    hands, modes, names = deal_styles(pub, rng, sw)
    # The same random choices (a random style's bids and cards) for every action of the
    # sample.
    seed = rng.getrandbits(64) if modes is not None else 0
    row = []
    for a in acts:
        t = _clone(m)
        _set_hands(t, hands)
        t.apply(seat, a.copy())
        row.append(_score_from_play(t, seat, rounds_done, modes,
                                    random.Random(seed) if modes is not None else None,
                                    names)[0])
    return row


def _other_decision(m: Match, v: View, seat: int, chosen: Action,
                    strong: Action, rng: random.Random, lo: int, hi: int,
                    dec: Decision) -> None:
    """A bid, With, pass, call, declaration or dash offer: the chosen action against the
    strong player's choice, on the same samples; the suggestion is the strong player's
    choice, always (issue 46: the hint, the player at the table and the review say one
    thing). The rollouts play the rest of the round by the fast player and overrate
    some numbers the strong player measured worse in real play (a declaration a trick
    up in the committee scoring: docs/bots.md); taking their best of the neighbours,
    the review suggested another action for 22 of 34 hinted bids and declarations and
    marked 10 of them."""
    pub = Public(v)
    rounds_done = m.rounds_done
    acts = [strong.copy()] if chosen == strong else [strong.copy(), chosen.copy()]
    ci = acts.index(chosen)
    rows: list[list[int]] = []
    sw = _reading(v)

    def upto(n: int) -> list[list[int]]:
        while len(rows) < n:
            rows.append(_bid_row(m, seat, acts, pub, rng, sw, rounds_done))
        return rows[:n]

    b, read, p = _judge(upto, lambda _rows: 0, ci, lo, hi)
    n = len(read)
    dec.samples = n
    dec.ev_chosen = sum(r[ci] for r in read) / n
    dec.ev_suggested = sum(r[b] for r in read) / n
    dec.noise = 0.0 if b == ci else p.se
    dec.suggested = acts[b].copy()


def _worth(v: View, rng: random.Random, n: int) -> float:
    """Expected tricks of the seat playing to take them, from its view as play begins."""
    pub = Public(v)
    decl = list(pub.decl)
    decl[pub.seat] = 13
    sw = _reading(v)
    total = 0
    for _ in range(n):
        hands, modes = deal(pub, rng, sw)
        taken = list(pub.taken)
        if modes is None:
            rollout(hands, list(pub.trick), pub.leader, pub.trump, taken, decl,
                    pub.game == "tarneeb41")
        else:
            rollout_modes(hands, list(pub.trick), pub.leader, pub.trump, taken, decl,
                          pub.game == "tarneeb41", modes, rng)
        total += taken[pub.seat]
    return total / n


# ---- the round ---------------------------------------------------------------------

def round_span(record_or_match: Match | MatchRecord, round_no: int) -> tuple[int, int]:
    """[start, end) of round ``round_no`` (1-based) in the match log; RoundNotOver if it
    has not ended."""
    from .. import new_match
    m = _fresh(record_or_match, new_match)
    log = _log(record_or_match)
    start = None
    for i, (s, action) in enumerate(log):
        done = m.rounds_done
        if done == round_no - 1 and start is None:
            start = i
        if done >= round_no:
            assert start is not None
            return start, i
        _step(m, s, action)
    if m.rounds_done >= round_no and start is not None:
        return start, len(log)
    raise RoundNotOver(f"round {round_no} has not ended")


def _log(src: Match | MatchRecord) -> list[tuple[int, LoggedAction]]:
    if isinstance(src, Match):
        return [(s, a.copy()) for s, a in src.log]
    # a record's log as JSON gave it: the engine checks each action as it is applied
    return [(int(s), cast("LoggedAction", dict(a))) for s, a in src["log"]]


def _fresh(src: Match | MatchRecord, new_match: Any) -> Match:
    """The match before its first action, a duplicate event's board as its one round
    (as ``engine.replay`` builds it: without the board a board's log was replayed as a
    whole match's, and its review raised)."""
    if isinstance(src, Match):
        deals = [[[CODES[c] for c in hand] for hand in d] for d in src.deals]
        return new_match(src.game, src.length, src.seed, deals,   # type: ignore[no-any-return]
                         src.board)
    return new_match(src["game"], src.get("length"), src.get("seed") or 0,  # type: ignore[no-any-return]
                     src.get("deals"), src.get("board"))


def _step(m: Match, seat: int, action: LoggedAction) -> None:
    if action.get("type") == "leave":
        m.leave(seat)
    else:
        m.apply(seat, action)


def _decision_at(m: Match, i: int, action: Action, seat: int, round_no: int,
                 lo: int, hi: int) -> Decision:
    """The review of ``seat``'s ``action`` at log place ``i``; ``m`` is the match just
    before it (not changed)."""
    v = m.view(seat)
    legal = v["legal"]
    dec = Decision(index=i, phase=v["phase"], chosen=action.copy(), suggested=action.copy())
    if len(legal) <= 1:
        dec.forced = True
        return dec
    rng = random.Random(seed_for(m.seed, round_no, seat, i))
    if action["type"] == "play":        # (the play phase's actions: cards)
        _card_decision(v, action, rng, lo, hi, dec)
    else:
        # Each sample plays the rest of the bidding for two actions (the chosen and the
        # strong player's): half the samples at most keeps one piece of a review in the
        # bots' worker near a third of a second (a computer player's decision may be
        # queued behind it).
        strong = _strong(v, seed_for(m.seed, round_no, seat, i))
        _other_decision(m, v, seat, action, strong, rng, lo,
                        max(lo, hi // 2), dec)
    if dec.ev_chosen is not None and dec.ev_suggested is not None:
        dec.mark = mark_for(dec.ev_suggested - dec.ev_chosen, dec.noise)
    return dec


def review_round(src: Match | MatchRecord, round_no: int, seat: int,
                 min_samples: int = MIN_SAMPLES, max_samples: int = MAX_SAMPLES,
                 worth_samples: int = 64) -> Review:
    """The review of ``seat``'s decisions in round ``round_no`` (1-based) of a match
    (a ``Match`` or its record, ``Match.to_dict()``), in one pass. Raises RoundNotOver.
    ``review_plan`` and ``review_part`` compute the same in pieces."""
    from .. import new_match
    if seat not in (0, 1, 2, 3):
        raise ValueError("a seat is 0 to 3")
    start, end = round_span(src, round_no)
    log = _log(src)
    m = _fresh(src, new_match)
    for s, a in log[:start]:
        _step(m, s, a)
    out = Review(round=round_no, seat=seat, worth=None, declared=None)
    lo = _least(min_samples, max_samples)
    for i in range(start, end):
        s, action = log[i]
        if m.phase == "play" and out.worth is None and m.rounds_done + 1 == round_no:
            out.worth = _worth(m.view(seat),
                               random.Random(seed_for(m.seed, round_no, seat, -1)),
                               worth_samples)
        if s == seat and action["type"] != "leave":
            out.decisions.append(_decision_at(m, i, action, seat, round_no, lo, max_samples))
        _step(m, s, action)
    out.declared = _declared(m, round_no, seat)
    return out


def _declared(m: Match, round_no: int, seat: int) -> int | None:
    decl = m.history[round_no - 1].get("declarations") if len(m.history) >= round_no else None
    if isinstance(decl, Sequence) and len(decl) == 4 and isinstance(decl[seat], int):
        return int(decl[seat])
    return None


def review_plan(record: MatchRecord, round_no: int, seat: int) -> ReviewPlan:
    """The pieces of a review, to compute one at a time (``review_part``): the log
    places of the seat's decisions in the round, where its cards began (None: no card
    was played) and what it declared. Raises RoundNotOver."""
    from .. import new_match
    start, end = round_span(record, round_no)
    log = _log(record)
    m = _fresh(record, new_match)
    for s, a in log[:start]:
        _step(m, s, a)
    indices: list[int] = []
    play_at = None
    for i in range(start, end):
        s, action = log[i]
        if m.phase == "play" and play_at is None and m.rounds_done + 1 == round_no:
            play_at = i
        if s == seat and action.get("type") != "leave":
            indices.append(i)
        _step(m, s, action)
    return {"indices": indices, "play_at": play_at, "declared": _declared(m, round_no, seat)}


def review_part(record: MatchRecord, round_no: int, seat: int, index: int,
                worth: bool = False, min_samples: int = MIN_SAMPLES,
                max_samples: int = MAX_SAMPLES,
                worth_samples: int = 64) -> ReviewedDecision | float:
    """One piece of a review: the decision at log place ``index`` (a dict), or with
    ``worth`` the round's worth from the view at ``index`` (a float). The same numbers
    as ``review_round``'s: the same seeds."""
    from .. import new_match
    log = _log(record)
    m = _fresh(record, new_match)
    for s, a in log[:index]:
        _step(m, s, a)
    if worth:
        return round(_worth(m.view(seat), random.Random(seed_for(m.seed, round_no, seat, -1)),
                            worth_samples), 2)
    action = log[index][1]
    if action["type"] == "leave":
        raise ValueError(f"log place {index} is a leave, not a decision")
    lo = _least(min_samples, max_samples)
    return _decision_at(m, index, action, seat, round_no, lo, max_samples).to_dict()


# ---- a hint: the strong player's choice now, against the next best ----------------------

def hint(record: MatchRecord, seat: int, samples: int = 64,
         min_samples: int = MIN_SAMPLES, max_samples: int = MAX_SAMPLES) -> Hint:
    """What the strong player would do now for ``seat`` (whose turn it is) and why: its
    expected points against the next best choice's, on the same samples of what the
    seat sees. ``{"action", "ev", "next_best": {"action", "ev"} | None}``.

    A card is the one the review of this decision would call best if it were played
    (the review's own samples, seed and bounds: ``min_samples``, ``max_samples``, as
    the room reviews), so a hint followed is never marked; a bid, With, call or number
    is the strong player's, weighed on ``samples`` samples."""
    from .. import replay
    m = replay(record)
    v = m.view(seat)
    legal = v["legal"]
    if not legal:
        raise ValueError("it is not this seat's turn")
    rng = random.Random(seed_for(m.seed, m.rounds_done + 1, seat, len(m.log)))
    if len(legal) == 1:
        return {"action": legal[0].copy(), "ev": None, "next_best": None}
    if v["phase"] == "play":
        return _card_hint(v, rng, _least(min_samples, max_samples), max_samples)
    else:
        pub = Public(v)
        strong = _strong(v, seed_for(m.seed, m.rounds_done + 1, seat, len(m.log)))
        acts = bid_candidates(legal, strong)
        rounds_done = m.rounds_done
        sums = [0.0] * len(acts)
        sw = _reading(v)
        for _ in range(samples):
            for k, x in enumerate(_bid_row(m, seat, acts, pub, rng, sw, rounds_done)):
                sums[k] += x
        options = [(a, sums[k] / samples) for k, a in enumerate(acts)]
        # The hint's number is the strong player's (issue 46: the hint and the player
        # agree); the rollouts give its expected points and the next best beside it. A
        # tie among them (bids the rollouts cannot tell apart, often the suits of one
        # number) never picks a suit the strong player did not.
        options.sort(key=lambda o: (o[0] != strong, -o[1]))
        top, ev = options[0]
        # The next best is the best of the others the rollouts do not put above it (one
        # that 48 samples put above the strong player's choice is within their noise:
        # the strong player weighed it on its own samples and did not choose it).
        rest = sorted((o for o in options[1:] if o[1] <= ev), key=lambda o: -o[1])
        nxt = rest[0] if rest else None
        out: Hint = {"action": top, "ev": round(ev, 2),
                     "next_best": None if nxt is None else {"action": nxt[0],
                                                            "ev": round(nxt[1], 2)}}
        if _voids(v, top):
            out["void"] = True
        return out


def _voids(v: View, action: Action) -> bool:
    """Does this Tarneeb declaration, the hand's last, leave the four under 11 (T-13:
    the hand is void and dealt again)? A hint that chooses it says so."""
    if v["game"] != "tarneeb41" or action.get("type") != "declare":
        return False
    decl = v["declarations"]
    seat = v["seat"]
    if any(d is None for s, d in enumerate(decl) if s != seat):
        return False
    n = action.get("n")
    others = sum(d or 0 for s, d in enumerate(decl) if s != seat)
    return isinstance(n, int) and others + n < 11


def _card_hint(v: View, rng: random.Random, lo: int, hi: int) -> Hint:
    """The card the review would leave unmarked and call best: judged as the review
    judges a played card (``_Cards.judge``, the same rows), starting from the fast
    player's card and moving to the review's suggestion until the review of a card
    suggests that card. Each move stops at fewer rows than the one before (the rows
    are shared and the move's own card was best where it stopped), so it ends."""
    cards = _Cards(v, rng)
    c = cards.prefer if cards.prefer in cards.allowed else cards.allowed[0]
    rows: list[list[float]] = []
    for _ in range(len(cards.reps) + 1):
        b, rows, _p = cards.judge(c, lo, hi)
        if b == c:
            break
        c = b
    n = len(rows)
    sums = [sum(r[i] for r in rows) / n for i in range(len(cards.reps))]
    others = [i for i in cards.allowed if i != c]
    nxt = max(others, key=lambda i: sums[i]) if others else None
    return {"action": {"type": "play", "card": CODES[cards.reps[c]]}, "ev": round(sums[c], 2),
            "next_best": None if nxt is None else {
                "action": {"type": "play", "card": CODES[cards.reps[nxt]]},
                "ev": round(sums[nxt], 2)}}


def review_record(record: MatchRecord, round_no: int, seat: int,
                  min_samples: int = MIN_SAMPLES,
                  max_samples: int = MAX_SAMPLES) -> RoundReview:
    """``review_round`` of a match record as JSON-ready data (what the bots' worker
    pool runs: plain data in, plain data out)."""
    return review_round(record, round_no, seat, min_samples, max_samples).to_dict()


__all__ = [
    "MARKS",
    "Decision",
    "Review",
    "RoundNotOver",
    "hint",
    "mark_for",
    "review_part",
    "review_plan",
    "review_record",
    "review_round",
    "round_span",
    "seed_for",
]
