"""Lamma's rules engine: Estimation (both scorings) and Tarneeb 41, pure Python.

    from engine import new_match, replay, IllegalAction
    m = new_match("estimation", length=18, seed=7)
    m.apply(m.to_act, m.legal_actions(m.to_act)[0])

See ``match.py`` for the phases and ``scoring.py`` for the tables; rule ids
(E-…, K-…, T-…) from ``../shared/rules/`` are written where each rule lives.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .catalogue import GAMES, LENGTHS
from .errors import BadDeal, IllegalAction
from .match import EstimationMatch, Match, TarneebMatch, check_board
from .types import (
    Action,
    AuctionView,
    BidAction,
    Board,
    CallAction,
    CardPlayed,
    Contract,
    DashAction,
    Deal,
    DeclareAction,
    Kind,
    LeaveAction,
    Length,
    LoggedAction,
    MatchRecord,
    OverUnder,
    PassAction,
    Phase,
    PlayAction,
    Result,
    RoundRecord,
    SuitCode,
    TrickView,
    View,
    WithAction,
)

__all__ = [
    "GAMES",
    "LENGTHS",
    "Action",
    "AuctionView",
    "BadDeal",
    "BidAction",
    "Board",
    "CallAction",
    "CardPlayed",
    "Contract",
    "DashAction",
    "Deal",
    "DeclareAction",
    "IllegalAction",
    "Kind",
    "LeaveAction",
    "Length",
    "LoggedAction",
    "Match",
    "MatchRecord",
    "OverUnder",
    "PassAction",
    "Phase",
    "PlayAction",
    "Result",
    "RoundRecord",
    "SuitCode",
    "TrickView",
    "View",
    "WithAction",
    "check_board",
    "from_json",
    "leaving_ends_match",
    "new_match",
    "replay",
    "round_began",
]


def new_match(game: str, length: Length = None, seed: int | None = None,
              deals: Sequence[Deal] | None = None, board: Board | None = None) -> Match:
    """A new match of ``game``; see the engine issue for lengths, seeds and deals.
    ``board``: only that one round (its kind, trump and dealer), played once to its end
    (a duplicate event's board: ``engine.duplicate``)."""
    if game in ("estimation", "estimation-kotshina"):
        return EstimationMatch(game, length, seed, deals, board)
    if game == "tarneeb41":
        return TarneebMatch(length, seed, deals, board)
    raise ValueError(f"unknown game {game!r}: choose one of {', '.join(GAMES)}")


def replay(game: str | MatchRecord | Mapping[str, Any], length: Length = None, seed: int | None = None,
           deals: Sequence[Deal] | None = None, log: Iterable[Sequence[Any]] = (),
           board: Board | None = None) -> Match:
    """Rebuild the identical match from its game, length, seed or deals and log
    (``(seat, action)`` pairs, ``Match.log`` or the record's lists).

    ``game`` may also be a record from ``Match.to_dict()``, or one read back from the
    store (``StoredMatch.record``), whose keys are checked as the match is rebuilt.
    """
    if isinstance(game, Mapping):
        rec = game
        return replay(rec["game"], rec.get("length"), rec.get("seed"), rec.get("deals"),
                      rec.get("log", ()), rec.get("board"))
    if seed is None and not deals:
        raise ValueError("a replay needs the seed or the deals of the match")
    m = new_match(game, length, seed if seed is not None else 0, deals, board)
    for seat, action in log:
        if isinstance(action, dict) and action.get("type") == "leave":
            m.leave(seat)
        else:
            m.apply(seat, action)
    return m


def round_began(match: Match) -> int:
    """``len(match.log)`` when the round (or hand) being played began: the match
    replayed from its record, watching where a round ended (a table resumed from the
    store knows from it whether it is between rounds)."""
    rec = match.to_dict()
    m = replay({**rec, "log": []})
    began = 0
    for i, (seat, action) in enumerate(rec["log"]):
        before = len(m.history)
        if isinstance(action, dict) and action.get("type") == "leave":
            m.leave(seat)
        else:
            m.apply(seat, action)
        if len(m.history) > before:
            began = i + 1
    return began


def leaving_ends_match(game: str) -> bool:
    """Does a player who leaves a match of ``game`` on purpose end it for everyone
    (Estimation, E-37), or take a computer player's place (Tarneeb 41)?"""
    if game in ("estimation", "estimation-kotshina"):
        return EstimationMatch.LEAVING_ENDS_MATCH
    if game == "tarneeb41":
        return TarneebMatch.LEAVING_ENDS_MATCH
    raise ValueError(f"unknown game {game!r}: choose one of {', '.join(GAMES)}")


def from_json(text: str) -> Match:
    return replay(json.loads(text))
