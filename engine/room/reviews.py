"""Reviews of finished rounds, and hints at practice tables (``engine.bots.review``), as the
room gives them: who may ask for what is decided here, whichever front end asks.

- A round's review for a seat: at a table, of the asker's own seat and a round that
  has ended; of a stored match, any seat of a *finished* match the asker played (its
  name in the match's seats). Never a running round, never another seat's while the
  match is played.
- Computed in the scheduler's aside lane (``thinking.Scheduler``: a worker of its own,
  below the live tables' in priority), one decision per job, each person's in turn; kept in
  memory and, for a stored match, in the store (``Records.save_review``): a replay or a
  restart shows it without computing it again. The same for every asker (seeded).
- A hint: at a practice table, for the seat whose turn it is, on its own view.
- At a table another process drives (``replica.Replica``, a room on PostgreSQL) both
  are worked out here, from the match as the store has it (the driver stores every
  action before anyone is shown it, so the store is never behind what the asker
  saw): the same seeds, so the same review as its driver would give; a hint only
  while the stored match says it is the asker's turn at a table stored as practice.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from engine import MatchRecord
from engine.bots.review import MAX_SAMPLES, MIN_SAMPLES, Hint, RoundNotOver, RoundReview

from . import bots
from .errors import RoomError
from .thinking import Work

if TYPE_CHECKING:
    from .members import Member
    from .store import Records, StoredMatch
    from .table import Table

# Samples per decision (tests make them few); hint samples per bid (a hinted card is
# judged on the review's bounds, so that the review never marks a hint followed).
SAMPLES = {"min": MIN_SAMPLES, "max": MAX_SAMPLES, "hint": 48}
CACHE = 256             # reviews kept in memory

_cache: OrderedDict[tuple[Any, ...], RoundReview] = OrderedDict()
_running: dict[tuple[Any, ...], asyncio.Future[RoundReview]] = {}


def _round_no(raw: object) -> int:
    if type(raw) is not int or not 1 <= raw <= 10_000:
        raise RoomError("\"round\" is a round's number (1 for the first).")
    return raw


def _remember(key: tuple[Any, ...], body: RoundReview) -> None:
    _cache[key] = body
    _cache.move_to_end(key)
    while len(_cache) > CACHE:
        _cache.popitem(last=False)


async def _compute(record: MatchRecord, round_no: int, seat: int,
                   owner: str) -> RoundReview:
    """The review, one piece (a decision) at a time in the scheduler's aside lane: a
    live table's computer player never waits behind it, and another person's review
    takes its turn between two of this one's pieces."""
    from engine.bots.review import review_part, review_plan
    think = bots.scheduler()
    plan = await think.submit(Work.REVIEW, owner, review_plan, record, round_no, seat,
                              admitted=True)
    decisions = []
    for i in plan["indices"]:
        decisions.append(await think.submit(
            Work.REVIEW, owner, review_part, record, round_no, seat, i, False,
            SAMPLES["min"], SAMPLES["max"], admitted=True))
    worth = None
    if plan["play_at"] is not None:
        worth = await think.submit(Work.REVIEW, owner, review_part, record, round_no, seat,
                                   plan["play_at"], True, admitted=True)
    return {"type": "review", "round": round_no, "seat": seat, "worth": worth,
            "declared": plan["declared"], "decisions": decisions}


async def _review(key: tuple[Any, ...], record: MatchRecord, round_no: int, seat: int,
                  records: Records | None, match_id: int | None,
                  owner: str) -> RoundReview:
    body = _cache.get(key)
    if body is not None:
        return body
    if records is not None and match_id is not None:
        kept = records.review(match_id, round_no, seat)
        if kept is not None:
            body = kept                             # as it was saved, read back
            _remember(key, body)
            return body
    running = _running.get(key)
    if running is not None:
        return await asyncio.shield(running)
    # A review to work out: refused at once, saying when to try again, if this person has
    # their share being worked out or the room's thinking is full (thinking.Scheduler).
    bots.scheduler().admit(Work.REVIEW, owner)
    fut: asyncio.Future[RoundReview] = asyncio.get_running_loop().create_future()
    _running[key] = fut
    try:
        try:
            body = await _compute(record, round_no, seat, owner)
        except RoundNotOver:
            raise RoomError("Round {round} has not ended: a round is reviewed once it is "
                            "over.", round=round_no) from None
        if records is not None and match_id is not None:
            records.save_review(match_id, round_no, seat, body.copy())
        _remember(key, body)
        fut.set_result(body)
        return body
    except BaseException as exc:
        if not fut.done():
            fut.set_exception(exc)
            fut.exception()         # retrieved: nobody else may be waiting
        raise
    finally:
        _running.pop(key, None)


def _stored(table: Table) -> StoredMatch:
    """The match a table driven by another process shows, as the store has it."""
    from .store import StoreUnavailable
    mid = table.replica.stored_id if table.replica is not None else None
    records = table.registry.records
    if mid is None or records is None:
        raise RoomError("No match has started at this table.")
    try:
        stored = records.match(mid)
    except StoreUnavailable:
        raise RoomError("The room's database does not answer just now: try again in a "
                        "moment.") from None
    if stored is None or stored.table_id != table.id:
        raise RoomError("No match has started at this table.")
    return stored


def table_record(table: Table) -> tuple[MatchRecord, int | None]:
    """The record of the match at ``table`` (``Match.to_dict()``) and its stored id:
    its own match where this process drives it, else the store's (RoomError if there
    is none). Only ever read through a seat's views (``engine.bots.review``)."""
    m = table.match
    if m is not None:
        return m.to_dict(), table.match_id
    stored = _stored(table)
    return stored.record, stored.id


def table_review(table: Table, member: Member, raw_round: object) -> asyncio.Future[RoundReview]:
    """The review of ``member``'s seat at ``table`` for an ended round; refusals
    (RoomError) are raised at once, before anything is computed."""
    round_no = _round_no(raw_round)
    if member.table is not table or member.seat is None:
        raise RoomError("A review is of your own seat: sit at the table first.")
    shown = table.view_of(member)
    if table.match is not None:
        history = table.match.history
    elif shown is not None:
        history = shown["history"]      # driven elsewhere: what its frame shows us
    else:
        raise RoomError("No match has started at this table.")
    if round_no > len(history):
        raise RoomError("Round {round} has not ended: a round is reviewed once it is "
                        "over.", round=round_no)
    if history[round_no - 1].get("void"):
        # A voided hand (Tarneeb): no card was played, so its hands never became
        # public; whoever holds the seat now may not have held it then.
        raise RoomError("Round {round} was void: no card was played in it, so there is "
                        "nothing to review.", round=round_no)
    seat = member.seat
    record, mid = table_record(table)
    records = table.registry.records
    key = ("match", mid, round_no, seat) if mid is not None else (
        "table", table.id, record.get("seed"), round_no, seat)
    return asyncio.ensure_future(_review(key, record, round_no, seat, records, mid,
                                         member.ident))


def played_by(stored: StoredMatch, member: Member) -> bool:
    """Did ``member`` play this stored match under their name (the rounds they may
    review: a guest's play is nobody's to come back to)?"""
    return not member.guest and member.name in stored.seats


def may_review(stored: StoredMatch, member: Member) -> bool:
    """May ``member`` review this stored match's rounds (``match_review``) now?"""
    return played_by(stored, member) and stored.finished


def match_review(records: Records | None, member: Member, raw_match: object,
                 raw_round: object, raw_seat: object) -> asyncio.Future[RoundReview]:
    """The review of any seat of a finished stored match that ``member`` played."""
    round_no = _round_no(raw_round)
    if type(raw_seat) is not int or not 0 <= raw_seat <= 3:
        raise RoomError("\"seat\" is 0, 1, 2 or 3.")
    if type(raw_match) is not int or raw_match < 1:
        raise RoomError("\"match\" is a stored match's number (see the replays).")
    stored = records.match(raw_match) if records is not None else None
    if stored is None or not played_by(stored, member):
        raise RoomError("No such match of yours: a review of a stored match is for one "
                        "you played under your own name, not as a guest (a guest's "
                        "matches are kept, their statistics are not).")
    if not stored.finished:
        raise RoomError("That match is still being played: review your own rounds at its "
                        "table, and the others once it is over.")
    rounds = _rounds_of(stored.record)
    if round_no > rounds:
        raise RoomError("Round {round} has not ended: a round is reviewed once it is "
                        "over.", round=round_no)
    key = ("match", raw_match, round_no, raw_seat)
    return asyncio.ensure_future(_review(key, stored.record, round_no, raw_seat, records,
                                         raw_match, member.ident))


def _rounds_of(record: MatchRecord) -> int:
    from engine import replay
    try:
        return len(replay(record).history)
    except Exception:           # a damaged row: nothing to review
        return 0


def hint_for(table: Table, member: Member) -> asyncio.Future[Hint]:
    """The strong player's choice for ``member``'s turn at a practice table."""
    if member.table is not table or member.seat is None:
        raise RoomError("A hint is for your own turn: sit at a practice table first.")
    if not table.practice:
        raise RoomError("Hints are given at practice tables only: this table counts.")
    not_yours = RoomError("A hint is for your own turn: it is not your turn.")
    if table.status != "playing":
        raise not_yours
    m = table.match
    if m is not None:
        if m.to_act != member.seat:
            raise not_yours
        record = m.to_dict()
    else:
        # Driven elsewhere: our turn as its frame shows it, then the store says what
        # the table is (a frame is another process's word) and where the match is.
        shown = table.view_of(member)
        if shown is None or shown.get("to_act") != member.seat:
            raise not_yours
        stored = _stored(table)
        if not stored.settings.get("practice"):
            raise RoomError("Hints are given at practice tables only: this table counts.")
        if stored.finished:
            raise not_yours
        record = stored.record
    from engine.bots.review import hint
    # One hint waiting a person: this one replaces any still waiting; it is dropped
    # unasked if the position has moved on by its turn (thinking.Scheduler).
    asked_at = len(m.log) if m is not None else None

    def moved_on() -> bool:
        now = table.match
        return now is not m or (now is not None and len(now.log) != asked_at)
    fut = bots.scheduler().submit(Work.HINT, member.ident, hint, record, member.seat,
                                  SAMPLES["hint"], SAMPLES["min"], SAMPLES["max"],
                                  stale=moved_on if m is not None else None)

    async def reply() -> Hint:
        try:
            got = await fut
        except ValueError:
            raise not_yours from None      # the stored match moved on: not our turn now
        said: Hint = got
        return {"type": "hint", **said}
    return asyncio.ensure_future(reply())


def forget() -> None:
    """Empty the memory cache (tests: a restart)."""
    _cache.clear()
