"""The engine's contract as types: the actions, the phases and the view.

Actions and views are plain dicts at run time (JSON as they are); these
``TypedDict``s only name their keys for readers and for the type checker.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, NotRequired, TypedDict

Phase = Literal["dash", "auction", "call", "declare", "play", "over"]
# "auction": an Estimation auction round; "fast" (E-6) and "fixed" (K fixed rounds) have a
# fixed trump; "hand": a Tarneeb hand.
Kind = Literal["auction", "fast", "fixed", "hand"]
SuitCode = Literal["S", "H", "D", "C", "NT"]
# A match length: Estimation 18/13/24, the calculator "micro"/"mini"/"full", Tarneeb None.
Length = int | str | None
Deal = Sequence[Sequence[str]]       # a stacked deal: four hands of 13 card codes, by seat


# ---- actions ---------------------------------------------------------------------

class PlayAction(TypedDict):
    type: Literal["play"]
    card: str                      # a card code such as "QS" or "TD"


class DashAction(TypedDict):
    type: Literal["dash"]
    take: bool


class BidAction(TypedDict):
    type: Literal["bid"]
    n: int
    suit: NotRequired[SuitCode]    # absent in a fast round: the trump is fixed (E-15)


class WithAction(TypedDict):
    type: Literal["with"]


class PassAction(TypedDict):
    type: Literal["pass"]


class CallAction(TypedDict):
    type: Literal["call"]
    n: int
    suit: SuitCode


class DeclareAction(TypedDict):
    type: Literal["declare"]
    n: int


class LeaveAction(TypedDict):
    """Only in ``Match.log``: ``Match.leave`` records it; ``apply`` never takes it."""
    type: Literal["leave"]


Action = PlayAction | DashAction | BidAction | WithAction | PassAction | CallAction | DeclareAction
LoggedAction = Action | LeaveAction


# ---- the view ----------------------------------------------------------------------

class CardPlayed(TypedDict):
    seat: int
    card: str


class TrickView(TypedDict):
    leader: int
    cards: list[CardPlayed]
    winner: int


class Contract(TypedDict):
    """A standing bid or a call: tricks and suit."""
    n: int
    suit: SuitCode


class AuctionTurn(TypedDict):
    """One turn of this round's auction as every seat heard it: a bid (``n``, and its
    ``suit`` but in a fast round), With, or a pass."""
    seat: int
    type: Literal["bid", "with", "pass"]
    n: NotRequired[int]
    suit: NotRequired[SuitCode]


class AuctionView(TypedDict):
    bid: Contract | None
    owner: int | None
    with_players: list[int]
    passed: list[int]
    dash_players: list[int]
    bids: list[AuctionTurn]    # every turn of the auction so far, in order (public: E-10..E-14)


class Board(TypedDict):
    """One round played once to its end (a duplicate event's board, ``engine.duplicate``):
    its kind ("auction" or "fast" in Estimation, "auction" or "fixed" in the calculator
    scoring, "hand" in Tarneeb 41), a fast or fixed round's trump, and its dealer."""
    kind: Kind
    trump: SuitCode | None
    dealer: int


class Result(TypedDict):
    winners: list[int]
    draw: bool


class RoundRecord(TypedDict, total=False):
    """One finished round or hand, as ``Match.history`` keeps it (a view's history: the
    same without "tricks"). A voided Tarneeb hand has only round, void, dealer,
    shown_card, trump and declarations; a key a game does not use is absent or keeps
    its neutral value (None, [], False, or 1 for the multiplier)."""
    round: int
    void: bool                     # Tarneeb: True for a hand voided under 11 (T-13)
    kind: Kind
    dealer: int
    trump: SuitCode | None
    fixed_trump: SuitCode | None
    shown_card: str                # Tarneeb: the dealer's card shown
    caller: int | None
    call: Contract | None
    with_players: list[int]
    dash_players: list[int]
    declarations: list[int]
    last_declarer: int | None
    all_pass: bool
    tricks_taken: list[int]
    made: list[bool]
    tricks: list[TrickView]        # only in ``Match.history``, not in a view's
    scores: list[int]
    multiplier: int
    breakdown: list[dict[str, int]]    # a seat's points by ``scoring.BONUS_KEYS``
    saayda: bool                   # the calculator scoring: all four missed (K-13)
    over: bool                     # Estimation: the declarations' total over 13
    totals: list[int]
    team_totals: list[int]         # Tarneeb


class MatchRecord(TypedDict):
    """``Match.to_dict()``: all that ``replay`` needs to rebuild the identical match
    (stored as JSON, and what the computer players' workers are handed)."""
    game: str
    length: Length
    seed: int | None
    deals: list[list[list[str]]]   # by round, by seat: the cards dealt
    log: list[list[Any]]           # [seat, action] pairs (``Match.log``)
    board: NotRequired[Board]      # a duplicate event's board: its one round


class OverUnder(TypedDict):
    """Estimation, once every declaration is in and until the round ends: the table is
    over (its declarations' total above 13) or under, and by how much (E-22); the last
    declarer when they are in risk (E-23; the calculator's K-9), else None."""
    total: int
    over: bool
    by: int
    at_risk: int | None


class View(TypedDict):
    """``Match.view(seat)``: all that ``seat`` may know (``seat`` None: a spectator).

    Every view has every key; a key a game does not use keeps its neutral value
    (None, [], False, or 1 for the multiplier)."""
    game: str
    length: Length
    seat: int | None
    rounds: int | None             # None: Tarneeb plays until a team wins
    phase: Phase
    to_act: int | None
    dealer: int
    trump: SuitCode | None
    hand: list[str]
    trick: list[CardPlayed]
    leader: int | None
    tricks: list[TrickView]
    declarations: list[int | None]
    tricks_taken: list[int]
    totals: list[int]
    legal: list[Action]
    declaration_order: list[int]
    history: list[RoundRecord]     # ``Match.history`` records without their "tricks"
    result: Result | None
    left: int | None
    kind: Kind | None
    fixed_trump: SuitCode | None
    auction: AuctionView | None
    dash_players: list[int]
    with_players: list[int]
    all_pass: bool
    caller: int | None
    call: Contract | None
    last_declarer: int | None
    forbidden: int | None
    multiplier: int
    over_under: OverUnder | None   # Estimation while the round is played, else None
    shown_card: str | None
    teams: list[list[int]] | None
    team_totals: list[int] | None
    round: int


__all__ = ["Action", "AuctionTurn", "AuctionView", "BidAction", "Board", "CallAction", "CardPlayed", "Contract",
           "DashAction", "Deal", "DeclareAction", "Kind", "LeaveAction", "Length", "LoggedAction", "MatchRecord", "OverUnder",
           "PassAction", "Phase", "PlayAction", "Result", "RoundRecord", "SuitCode", "TrickView",
           "View", "WithAction"]
