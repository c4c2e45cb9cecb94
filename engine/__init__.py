"""Lamma's rules engine: Estimation (both scorings) and Tarneeb 41, pure Python.

    from engine import new_match, replay, IllegalAction
    m = new_match("estimation", length=18, seed=7)
    m.apply(m.to_act, m.legal_actions(m.to_act)[0])

See ``match.py`` for the phases and ``scoring.py`` for the tables; rule ids
(E-…, K-…, T-…) from ``../shared/rules/`` are written where each rule lives.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from .catalogue import GAMES, LENGTHS
from .errors import BadDeal, IllegalAction
from .match import EstimationMatch, Match, TarneebMatch
from .types import (
    Action,
    AuctionView,
    BidAction,
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
    PassAction,
    Phase,
    PlayAction,
    Result,
    SuitCode,
    TrickView,
    View,
    WithAction,
)

__all__ = ["GAMES", "LENGTHS", "Action", "AuctionView", "BadDeal", "BidAction", "CallAction",
           "CardPlayed", "Contract", "DashAction", "Deal", "DeclareAction", "IllegalAction",
           "Kind", "LeaveAction", "Length", "LoggedAction", "Match", "PassAction", "Phase",
           "PlayAction", "Result", "SuitCode", "TrickView", "View", "WithAction", "from_json",
           "leaving_ends_match", "new_match", "replay"]


def new_match(game: str, length: Length = None, seed: int | None = None,
              deals: Sequence[Deal] | None = None) -> Match:
    """A new match of ``game``; see the engine issue for lengths, seeds and deals."""
    if game in ("estimation", "estimation-kotshina"):
        return EstimationMatch(game, length, seed, deals)
    if game == "tarneeb41":
        return TarneebMatch(length, seed, deals)
    raise ValueError(f"unknown game {game!r}: choose one of {', '.join(GAMES)}")


def replay(game: str | dict[str, Any], length: Length = None, seed: int | None = None,
           deals: Sequence[Deal] | None = None, log: Iterable[Sequence[Any]] = ()) -> Match:
    """Rebuild the identical match from its game, length, seed or deals and log
    (``(seat, action)`` pairs, ``Match.log`` or the record's lists).

    ``game`` may also be a record from ``Match.to_dict()``.
    """
    if isinstance(game, dict):
        rec = game
        return replay(rec["game"], rec.get("length"), rec.get("seed"), rec.get("deals"),
                      rec.get("log", ()))
    if seed is None and not deals:
        raise ValueError("a replay needs the seed or the deals of the match")
    m = new_match(game, length, seed if seed is not None else 0, deals)
    for seat, action in log:
        if isinstance(action, dict) and action.get("type") == "leave":
            m.leave(seat)
        else:
            m.apply(seat, action)
    return m


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
