"""The table's parts (issue 42): a table left behind goes by reference counting, parts
and replica included (the server freezes what survives a collection, so a cycle that
dies later is never found: server/runtime.py), and a Tarneeb seat a person leaves goes
on with the computer player that takes it."""

from __future__ import annotations

import asyncio
import gc
import weakref

from test_cluster_side import Kept, lobby_row

from engine.room import Registry, Session, remote
from engine.room.frames import checked_row


def _freed(ref: weakref.ref) -> bool:
    return ref() is None


async def test_a_closed_table_goes_by_reference_counting_parts_and_all():
    reg = Registry(bot_pause=3600, trick_pause=0.0)
    alice = Session("alice", "key:a:alice")
    table = reg.create("estimation", 13)
    table.sit(alice, 0)
    table.fill_with_bots(alice)
    assert table.match is not None and table.turns.handle is not None
    ref, runner = weakref.ref(table), weakref.ref(table.runner)
    gc.disable()
    try:
        table.detach(alice, keep_seat=False)        # the match ends; nobody is left
        assert table.id not in reg.tables
        del table
        await asyncio.sleep(0)
        assert _freed(ref) and _freed(runner), gc.get_referrers(ref()) if ref() else ""
    finally:
        gc.enable()


async def test_a_replica_left_behind_goes_by_reference_counting():
    reg = Registry()
    side = remote.join_cluster(reg, Kept("p2"))
    info = checked_row({"id": "7", "row": lobby_row("7"), "holders": [None] * 4,
                        "code": None})
    rt = side.remote_table("7")
    rt.apply_row(info)
    assert rt.table.replica is rt
    table_ref, replica_ref = weakref.ref(rt.table), weakref.ref(rt)
    del rt
    gc.disable()
    try:
        side.table_gone("7")
        assert _freed(table_ref) and _freed(replica_ref)
    finally:
        gc.enable()


async def test_a_tarneeb_seat_left_mid_match_is_played_on_by_its_computer_player():
    """T-26: a person who leaves a Tarneeb match is replaced by a computer player, which
    then plays the seat's turns (its move was once scheduled for an older turn and
    dropped: the match stood still)."""
    reg = Registry(bot_pause=0.0, trick_pause=0.0)
    ana, ben = Session("ana", "key:a:ana"), Session("ben", "key:b:ben")
    table = reg.create("tarneeb41")
    table.sit(ana, 0)
    table.sit(ben, 1)
    table.fill_with_bots(ana, level="easy")
    m = table.match
    assert m is not None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while m.to_act not in (0, 1):
        assert loop.time() < deadline, "the computer players never came to a person"
        await asyncio.sleep(0.01)
    seat = m.to_act
    leaver = ana if seat == 0 else ben
    table.detach(leaver, keep_seat=False)
    assert table.seats[seat].kind == "bot"
    played = len(m.log)
    deadline = loop.time() + 30
    while len(m.log) == played:
        assert loop.time() < deadline, "the computer player in the left seat never moved"
        await asyncio.sleep(0.01)


async def test_a_match_resumed_between_rounds_is_between_rounds():
    """A table resumed from the store (a restart, a takeover) knows whether it is
    between rounds: a computer player's seat is then taken at once, as before the
    restart, not promised at the end of the next round (round_log was never set)."""
    from stacked import quick_policy

    from engine import new_match, round_began
    m = new_match("estimation", length=13, seed=4)
    ended = None
    while ended is None:
        before = len(m.history)
        m.apply(m.to_act, quick_policy(m, m.to_act))
        if len(m.history) > before:
            ended = len(m.log)
    assert round_began(m) == ended
    reg = Registry(bot_pause=3600)
    seats = [{"kind": "bot", "level": "easy"}] * 4
    table = reg.resume("9", m, 1, {"timer": 0, "seats": seats}, [None] * 4, False)
    assert table.between_rounds()
    ana = Session("ana", "key:a:ana")
    assert table.take_seat(ana, 2) and ana.seat == 2 and table.seats[2].held_by(ana)
    # one action into the round: no longer between rounds
    m.apply(m.to_act, quick_policy(m, m.to_act))
    assert round_began(m) == ended
    other = Registry(bot_pause=3600).resume("9", m, 1, {"timer": 0, "seats": seats},
                                            [None] * 4, False)
    assert not other.between_rounds()


async def test_sitting_at_a_finished_table_says_its_match_is_over():
    """A finished table is listed first in the lobby, where the cursor starts: Enter there
    said "already playing" (a player's finding); it says the match is over."""
    import pytest

    from engine.room.errors import RoomError
    reg = Registry(bot_pause=0.0, trick_pause=0.0)
    ana, ben = Session("ana", "key:a:ana"), Session("ben", "key:b:ben")
    table = reg.create("estimation-kotshina", "micro")
    table.sit(ana, 0)
    table.fill_with_bots(ana, level="easy")
    table.detach(ana, keep_seat=False)          # a computer player takes her seat
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while table.status != "over":
        assert loop.time() < deadline, "the computer players never finished the match"
        await asyncio.sleep(0.01)
    with pytest.raises(RoomError) as refused:
        table.sit(ben)
    assert str(refused.value) == (f"Table {table.id}'s match is over; you can look at its "
                                  "score sheet by watching it."), refused.value


async def test_a_checked_act_says_the_rules_reason_and_changes_nothing():
    """A screen asks why a number cannot be declared before sending it (E-22: the last
    declarer's number that would make 13): the table answers with the rules' reason and
    applies nothing."""
    import pytest
    from stacked import quick_policy as first_legal

    from engine.room.errors import RoomError, Said
    reg = Registry(bot_pause=3600.0, trick_pause=0.0)
    people = [Session(n, f"key:{n}:{n}") for n in ("ana", "ben", "cem", "dua")]
    table = reg.create("estimation", 13)
    for i, p in enumerate(people):
        table.sit(p, i)
    m = table.match
    assert m is not None
    while not (m.phase == "declare" and m.view(m.to_act)["declaration_order"] == [m.to_act]):
        table.act(people[m.to_act], first_legal(m, m.to_act))
    last = m.to_act
    v = m.view(last)
    barred = 13 - sum(d for d in v["declarations"] if d is not None)
    assert 0 <= barred <= 13 and {"type": "declare", "n": barred} not in v["legal"]
    logged = len(m.log)
    with pytest.raises(RoomError) as refused:
        table.act(people[last], {"type": "declare", "n": barred}, only_check=True)
    reason = refused.value.params["reason"]
    assert isinstance(reason, Said) and "would make the total 13" in reason, reason
    ok = next(a for a in v["legal"] if a["type"] == "declare")
    table.act(people[last], ok, only_check=True)          # taken: nothing raised, nothing applied
    assert len(m.log) == logged and m.to_act == last
    with pytest.raises(RoomError, match="not your turn"):
        table.act(people[(last + 1) % 4], ok, only_check=True)



def test_tarneebs_rounds_are_hands_in_a_seat_promise():
    """A player's finding: Estimation's words at a Tarneeb table ("when this round ends")."""
    reg = Registry(bot_pause=0.0, trick_pause=0.0)
    assert "when this hand ends" in reg.create("tarneeb41").request_text(2)
    assert "when this round ends" in reg.create("estimation", 13).request_text(2)
