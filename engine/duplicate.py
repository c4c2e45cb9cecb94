"""Duplicate events: every entrant plays the same boards, each with computer players in
the other seats, and is compared only with those who held the same cards.

- A *board* is one round played once to its end (``Match.board``): in Estimation a
  bidding round or a fast round with its trump, in the calculator scoring a bidding round
  or a fixed round with its trump, in Tarneeb 41 one hand; each with its dealer, at ×1.
  ``plan`` says which round each board of an event is, ``board_seed`` its deal.
- The computer players decide from the board and what has happened on it so far
  (``decision_seed``, and a budget in samples, not time), so two entrants who play alike
  see the same replies.
- A board is scored by *matchpoints* among everyone who played it in the same seat: 2
  for each entrant scored below you, 1 for each tie, as a percentage of the maximum
  (``matchpoints``); an event's result is the average over its boards, a board not
  played counting 0 (``standings``).

Pure: no I/O, no clock; the room (``engine.room.duplicate``) keeps the events and who
may see what.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypedDict

from .match import FAST_ORDER, Match
from .types import Board, LoggedAction, RoundRecord

BOARDS = (4, 24)              # the boards an event may have, fewest and most
DAILY_BOARDS = 8              # the room's daily events (engine.room.duplicate)
ENTRANT_SEAT = 0              # where the entrant sits on every board; the others compute
ALONE = 50.0                  # a board's percentage for the only one to have played it


def board_seed(event_seed: int, board: int) -> int:
    """The seed of board ``board`` (1-based) of an event: its deal, and a void Tarneeb
    hand's next one, come from it (``new_match(seed=…, board=…)``)."""
    digest = hashlib.sha256(f"lamma-board:{event_seed}:{board}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def plan(game: str, boards: int, board: int) -> Board:
    """Which round board ``board`` (1-based) of an event of ``boards`` boards is.

    The dealer goes round the table board by board (E-3, T-7). Estimation plays its
    bidding rounds and then its fast rounds, in the match's proportion (5 of 18) and
    trump order (NT, S, H, D, C: E-6); the calculator scoring plays its fixed rounds
    (its default match), trumps in the same order; Tarneeb 41 plays hands."""
    if not 1 <= board <= boards:
        raise ValueError(f"board {board} is not one of 1-{boards}")
    dealer = (board - 1) % 4
    if game == "tarneeb41":
        return {"kind": "hand", "trump": None, "dealer": dealer}
    if game == "estimation-kotshina":
        return {"kind": "fixed", "trump": FAST_ORDER[(board - 1) % 5], "dealer": dealer}
    if game == "estimation":
        fast = round(boards * 5 / 18)
        first_fast = boards - fast + 1
        if board < first_fast:
            return {"kind": "auction", "trump": None, "dealer": dealer}
        return {"kind": "fast", "trump": FAST_ORDER[(board - first_fast) % 5],
                "dealer": dealer}
    raise ValueError(f"unknown game {game!r}")


def entrant_seat(game: str, boards: int, board: int) -> int:
    """The seat the entrant plays board ``board`` from (the computer players hold the
    other three): the same on every board, so a board's field is everyone."""
    return ENTRANT_SEAT


def decision_seed(seed: int, log: Sequence[tuple[int, LoggedAction]]) -> int:
    """The seed of a computer player's decision on the board of seed ``seed`` after
    ``log`` (``Match.log``): the same board played alike so far, the same seed."""
    h = hashlib.sha256(f"lamma-decision:{seed}:".encode())
    h.update(json.dumps([[s, a] for s, a in log], sort_keys=True,
                        separators=(",", ":")).encode())
    return int.from_bytes(h.digest()[:8], "big") >> 1


# ---------------------------------------------------------------- a board's result

class BoardFacts(TypedDict):
    """``BoardResult.facts``: what the seat said and took on the board."""
    side: int | None
    declared: int
    made: bool
    role: str
    call: str | None
    taken: int


@dataclass(frozen=True)
class BoardResult:
    """What a finished board gives its entrant's seat.

    ``score``: the round's score for the seat (E-34, K-13, T-19: the rules' own);
    ``side``: in Tarneeb 41 the side's score for the hand (the seat and its partner),
    shown beside; ``declared``: the seat's declaration (a dash player's 0), ``made``
    whether it took exactly that many (in Tarneeb at least), ``role``: "caller", "with",
    "dash" or "" (declared only), ``call``: the caller's call as ``5S``; ``taken``: its
    tricks."""
    score: int
    side: int | None
    declared: int
    made: bool
    role: str
    call: str | None
    taken: int

    def facts(self) -> BoardFacts:
        """JSON-ready, without the score (kept beside it)."""
        return {"side": self.side, "declared": self.declared, "made": self.made,
                "role": self.role, "call": self.call, "taken": self.taken}

    def bid(self) -> tuple[str, int, str | None]:
        """What the seat said, as compared in the field: (role, number, call)."""
        return (self.role, self.declared, self.call)


def scored_round(history: Sequence[RoundRecord]) -> RoundRecord:
    """The one scored round of a finished board's history (a void Tarneeb hand is not
    one: the next is dealt, T-13)."""
    scored = [r for r in history if not r.get("void")]
    if len(scored) != 1:
        raise ValueError(f"a finished board has one scored round, not {len(scored)}")
    return scored[0]


def result_of(history: Sequence[RoundRecord], seat: int) -> BoardResult:
    """``seat``'s result on a finished board, from its history (``Match.history``, or a
    view's: the records without their tricks)."""
    r = scored_round(history)
    scores = r["scores"]
    side = scores[seat] + scores[seat ^ 2] if r.get("kind") == "hand" else None
    role = ""
    call = None
    if seat in r.get("dash_players", ()):
        role = "dash"
    elif r.get("caller") == seat and not r.get("all_pass") and (c := r.get("call")):
        role = "caller"
        call = f"{c['n']}{c['suit']}"
    elif seat in r.get("with_players", ()):
        role = "with"
    return BoardResult(int(scores[seat]), side, int(r["declarations"][seat]),
                       bool(r["made"][seat]), role, call, int(r["tricks_taken"][seat]))


def board_result(match: Match, seat: int) -> BoardResult:
    """``seat``'s result on the finished board ``match``."""
    if match.board is None or match.result is None:
        raise ValueError("not a finished board")
    return result_of(match.history, seat)


# ---------------------------------------------------------------- matchpoints

def matchpoints(scores: Sequence[int]) -> list[float]:
    """Each score's percentage among ``scores`` (one board, one seat): 2 for each score
    below it, 1 for each other equal to it, out of 2 for each other score. Alone:
    ``ALONE``."""
    n = len(scores)
    if n == 1:
        return [ALONE]
    top = 2 * (n - 1)
    out = []
    for i, s in enumerate(scores):
        below = sum(1 for t in scores if t < s)
        ties = sum(1 for j, t in enumerate(scores) if t == s and j != i)
        out.append(100.0 * (2 * below + ties) / top)
    return out


@dataclass(frozen=True)
class Played:
    """One entrant's result on one board: who, the board (1-based), the seat, the score."""
    entrant: str
    board: int
    seat: int
    score: int


def percentages(results: Iterable[Played]) -> dict[tuple[str, int], float]:
    """(entrant, board) → the entrant's percentage on that board, among everyone who
    played it in the same seat."""
    groups: dict[tuple[int, int], list[Played]] = {}
    for p in results:
        groups.setdefault((p.board, p.seat), []).append(p)
    out: dict[tuple[str, int], float] = {}
    for group in groups.values():
        for p, pct in zip(group, matchpoints([p.score for p in group]), strict=True):
            out[(p.entrant, p.board)] = pct
    return out


@dataclass(frozen=True)
class Standing:
    rank: int
    entrant: str
    percent: float          # the average over the event's boards (one not played: 0)
    boards: int             # boards played


def standings(boards: int, results: Iterable[Played]) -> list[Standing]:
    """Every entrant with a board played, best first; equal percentages share a rank
    (1, 1, 3). Ties are listed by boards played, then by entrant."""
    results = list(results)
    pct = percentages(results)
    total: dict[str, float] = {}
    played: Counter[str] = Counter()
    for p in results:
        total[p.entrant] = total.get(p.entrant, 0.0) + pct[(p.entrant, p.board)]
        played[p.entrant] += 1
    avg = {e: round(t / boards, 2) for e, t in total.items()}
    order = sorted(avg, key=lambda e: (-avg[e], -played[e], e))
    out: list[Standing] = []
    for i, e in enumerate(order):
        rank = out[-1].rank if out and out[-1].percent == avg[e] else i + 1
        out.append(Standing(rank, e, avg[e], played[e]))
    return out


def distribution(scores: Iterable[int]) -> list[tuple[int, int]]:
    """(score, how many scored it), highest score first: the field at a glance."""
    return sorted(Counter(scores).items(), key=lambda sc: -sc[0])


def common_bids(results: Iterable[BoardResult], most: int = 3
                ) -> list[tuple[tuple[str, int, str | None], int, int]]:
    """The ``most`` most common things said in a seat: (bid, how many said it, how many
    of them made it), most common first (then the higher number)."""
    said: Counter[tuple[str, int, str | None]] = Counter()
    made: Counter[tuple[str, int, str | None]] = Counter()
    for r in results:
        said[r.bid()] += 1
        made[r.bid()] += r.made
    order = sorted(said, key=lambda b: (-said[b], -b[1], b[0], b[2] or ""))
    return [(b, said[b], made[b]) for b in order[:most]]


__all__ = ["ALONE", "BOARDS", "DAILY_BOARDS", "ENTRANT_SEAT", "BoardFacts", "BoardResult", "Played",
           "Standing", "board_result", "board_seed", "common_bids", "decision_seed",
           "distribution", "entrant_seat", "matchpoints", "percentages", "plan",
           "result_of", "scored_round", "standings"]
