"""Duplicate events in the store (server/store/events.py, matches.finish_board): events
(a daily one once however many processes make it), one entry per key, the boards an
entrant was dealt, each board's result written with its match's end, once; an event's
boards never listed among the replays. The same tests run on PostgreSQL
(tests/test_store_postgres.py)."""

from __future__ import annotations

import json

import pytest
from test_store import together

import server.store.database as store_module
from engine import new_match
from engine.duplicate import board_result, board_seed, plan
from engine.room.store import EventRow, FinishedBoard
from server.store import MIGRATIONS, Store, StoreError

DAY = 1_716_940_800.0


@pytest.fixture
def opener(tmp_path):
    path = tmp_path / "lamma.db"
    return lambda process="": Store(path, process=process)


def a_board(k: int = 1):
    """Board ``k`` of an Estimation event played to its end (first legal actions)."""
    m = new_match("estimation", seed=board_seed(9, k), board=plan("estimation", 8, k))
    while m.to_act is not None:
        m.apply(m.to_act, m.legal_actions(m.to_act)[0])
    return m


def board_match(store, event: int, entrant: str, k: int, m, table: str = "t1") -> int:
    settings = {"event": {"id": event, "board": k, "boards": 8, "spec": m.to_dict()["board"],
                          "seed": m.seed, "samples": 8, "entrant": entrant, "ranked": True}}
    mid = store.create_match(table, {**m.to_dict(), "log": []}, ["ali", None, None, None],
                             settings)
    for seq, (seat, action) in enumerate(m.log):
        store.append_action(mid, seq, seat, action)
    return mid


def finished(event: int, entrant: str, k: int, m, ranked: bool = True) -> FinishedBoard:
    return FinishedBoard(event, k, entrant, ranked, "ali", 0, board_result(m, 0), m.result,
                         len(m.history), m.to_dict())


def test_events_entries_and_results(opener):
    s = opener()
    daily = EventRow(0, "estimation", 8, 2**61 + 5, 16, DAY, DAY + 86400,
                     daily="estimation:2024-05-29")
    made = s.create_event(daily)
    assert made is not None and made.seed == 2**61 + 5 and made.daily == daily.daily
    assert s.create_event(daily) is None                # the day's daily event: once
    mine = s.create_event(EventRow(0, "tarneeb41", 4, 7, 16, DAY, DAY + 3600, True, "K7QMR2XD",
                                   "fp-sam", "sam"))
    assert mine is not None and s.event_with_code("K7QMR2XD") == mine
    assert [e.id for e in s.events(DAY)] == [made.id, mine.id]
    assert [e.id for e in s.events(DAY + 7200)] == [made.id]
    assert s.open_events(DAY + 10, None) == 1 and s.open_events(DAY + 10, "fp-sam") == 1
    assert s.open_events(DAY + 10, "fp-bea") == 0
    assert s.add_entry(made.id, "fp-ali", "ali", DAY + 5)
    assert not s.add_entry(made.id, "fp-ali", "ali-phone", DAY + 6)     # one per key
    assert s.entry(made.id, "fp-ali").name == "ali"
    assert [e.entrant for e in s.entries(made.id)] == ["fp-ali"]
    m = a_board(1)
    mid = board_match(s, made.id, "fp-ali", 1, m)
    [started] = s.boards_started(made.id, "fp-ali")
    assert (started.board, started.table_id, started.match_id, started.finished) == (
        1, "t1", mid, False)
    # the stored board replays as the same board (its round, dealer and seed)
    [back] = s.unfinished()
    assert back.record["board"] == m.to_dict()["board"]
    assert back.settings["event"]["entrant"] == "fp-ali"
    assert s.finish_board(mid, finished(made.id, "fp-ali", 1, m))
    assert not s.finish_board(mid, finished(made.id, "fp-ali", 1, m))    # once
    [result] = s.results(made.id)
    assert (result.entrant, result.name, result.board, result.seat, result.match_id) == (
        "fp-ali", "ali", 1, 0, mid)
    assert result.score == board_result(m, 0).score
    assert result.facts == board_result(m, 0).facts()
    assert s.boards_started(made.id, "fp-ali")[0].finished
    assert s.entered("fp-ali") == {made.id: 1}
    assert s.finished_matches() == []           # an event's board is no replay to list
    assert s.close_event(mine.id, DAY + 100) and not s.close_event(mine.id, DAY + 100)
    assert s.event(mine.id).closes == DAY + 100


def test_a_guests_board_is_finished_and_ranked_nowhere(opener):
    s = opener()
    ev = s.create_event(EventRow(0, "estimation", 8, 3, 16, DAY, DAY + 86400))
    m = a_board(2)
    mid = board_match(s, ev.id, "guest:tok:dana", 2, m)
    assert s.finish_board(mid, finished(ev.id, "guest:tok:dana", 2, m, ranked=False))
    assert s.results(ev.id) == []
    assert s.boards_started(ev.id, "guest:tok:dana")[0].finished


def test_two_processes_make_the_daily_event_and_finish_a_board_once(opener):
    first = opener("a")
    stores = [first, opener("b")]
    row = EventRow(0, "tarneeb41", 8, 11, 16, DAY, DAY + 86400, daily="tarneeb41:2024-05-29")
    made = together(2, lambda i: stores[i].create_event(row))
    assert sum(r is not None for r in made) == 1
    ev = next(r for r in made if r is not None)
    m = a_board(3)
    mid = board_match(first, ev.id, "fp-ali", 3, m)
    done = together(2, lambda i: stores[i].finish_board(mid, finished(ev.id, "fp-ali", 3, m)))
    assert sorted(done) == [False, True]
    assert len(stores[1].results(ev.id)) == 1


def test_a_board_is_claimed_once_across_processes(opener):
    """One entry, one deal (issue 41): two processes claim the same entry's board, only
    one may deal it; a claim never stored is given up after its time, one stored never."""
    a, b = opener("east"), opener("west")
    try:
        assert a.claim_board(3, "key:x", 1, DAY, 60.0)
        assert not b.claim_board(3, "key:x", 1, DAY + 1, 60.0)
        assert b.claim_board(3, "key:x", 2, DAY + 1, 60.0)       # another board
        assert b.claim_board(3, "key:y", 1, DAY + 1, 60.0)       # another entrant
        # never dealt (the process died between the claim and the match): free again
        assert not a.claim_board(3, "key:x", 1, DAY + 30, 60.0)
        assert b.claim_board(3, "key:x", 1, DAY + 61, 60.0)
        # dealt and stored: never again, however old the claim
        m = a_board(2)
        board_match(a, 3, "key:x", 2, m)
        assert not a.claim_board(3, "key:x", 2, DAY + 10_000, 60.0)
    finally:
        a.close()
        b.close()


def test_two_processes_starting_one_board_at_once_make_one_row(opener):
    """One entry, one deal (issue 41), raced: two processes claim the same entry's board
    at the same instant (rounds of it, on threads released together) and one may deal
    it; each stores the match it would deal, and one row of it is kept."""
    a, b = opener("east"), opener("west")
    try:
        for k in range(1, 9):
            claims = together(2, lambda i, k=k: (a, b)[i].claim_board(5, "key:x", k, DAY, 60.0))
            assert sorted(claims) == [False, True], (k, claims)
        m = a_board(1)

        def deal(i):
            try:
                return board_match((a, b)[i], 5, "key:x", 1, m, table=f"t{i}")
            except StoreError as e:
                return str(e)
        made = together(2, deal)
        assert sum(isinstance(r, int) for r in made) == 1, made
        assert any(isinstance(r, str) and "stored already" in r for r in made), made
        assert [s.board for s in a.boards_started(5, "key:x")] == [1]
    finally:
        a.close()
        b.close()


def old_board_match(store, event: int, entrant: str, k: int, m, table: str) -> int:
    """Board ``k`` of an entry stored as the code before matches_one_deal stored it (a
    copy of a board stored already was stored again)."""
    return store._x(
        "INSERT INTO matches (table_id, game, length, seed, deals, seats, settings, "
        "humans_throughout, created, process, board, event_id, event_board, entrant) "
        "VALUES (?, ?, ?, ?, '[]', '[\"ali\", null, null, null]', ?, 0, ?, ?, ?, ?, ?, ?) "
        "RETURNING id",
        (table, m.game, json.dumps(m.to_dict()["length"]), str(m.seed),
         json.dumps({"event": {"id": event, "board": k, "boards": 8, "entrant": entrant,
                               "spec": m.to_dict()["board"], "seed": m.seed, "samples": 8,
                               "ranked": True}}),
         DAY + k, store.process, json.dumps(m.to_dict()["board"]), event, k,
         entrant)).fetchall()[0][0]


def test_copies_of_a_board_from_before_claims_are_set_aside(opener, monkeypatch):
    """matches_one_deal's migration: a database whose entries were dealt boards twice
    (before schema 11) keeps one match of each board — the scored one, else one played
    to its end, else the one in play — the others belong to no entry and are never
    resumed; every board dealt has its claim; from then on a copy cannot be stored."""
    m1, m2 = a_board(1), a_board(2)
    with monkeypatch.context() as mp:
        mp.setattr(store_module, "MIGRATIONS", MIGRATIONS[:14])
        old = opener("p")
        assert old.version() == 14
        ev = old.create_event(EventRow(0, "estimation", 8, 9, 16, DAY, DAY + 86400))
        first = old_board_match(old, ev.id, "key:x", 1, m1, "t1")     # abandoned
        old.abandon(first, 1)
        scored = old_board_match(old, ev.id, "key:x", 1, m1, "t2")
        assert old.finish_board(scored, finished(ev.id, "key:x", 1, m1))
        third = old_board_match(old, ev.id, "key:x", 1, m1, "t3")     # in play
        gone = old_board_match(old, ev.id, "key:x", 2, m2, "t4")      # abandoned
        old.abandon(gone, 0)
        playing = old_board_match(old, ev.id, "key:x", 2, m2, "t5")   # in play: kept
        alone = old_board_match(old, ev.id, "key:y", 1, m1, "t6")
        old.close()
    s = opener("p")
    assert s.version() == len(MIGRATIONS)
    started = s.boards_started(ev.id, "key:x")
    assert [(b.board, b.match_id) for b in started] == [(1, scored), (2, playing)]
    assert [b.match_id for b in s.boards_started(ev.id, "key:y")] == [alone]
    # the copies set aside are never resumed; the board in play and the other entry's are
    assert sorted(u.id for u in s.unfinished()) == sorted([playing, alone])
    assert {first, third, gone}.isdisjoint(u.id for u in s.unfinished())
    assert s.results(ev.id)[0].match_id == scored
    assert s.finished_matches() == []                 # copies are no replays to list
    # every board dealt is claimed, and stays so
    for who, k in (("key:x", 1), ("key:x", 2), ("key:y", 1)):
        assert not s.claim_board(ev.id, who, k, DAY + 10_000, 60.0)
    assert s.claim_board(ev.id, "key:x", 3, DAY + 10_000, 60.0)
    with pytest.raises(StoreError, match="stored already"):
        board_match(s, ev.id, "key:x", 2, m2, "t7")
    # a match that is no event's board is stored as ever, however many
    assert s.create_match("t8", m1.to_dict(), ["ana", None, None, None], {}) > 0
    assert s.create_match("t9", m1.to_dict(), ["ana", None, None, None], {}) > 0
