"""A table's turn at being driven (its row's ``epoch``) fences every write of its match:
a copy of a table that this very process has since taken back (a new turn) is refused
as another process's would be, whatever the order its late writes land in.

On the run's throwaway PostgreSQL (tests/pg.py): two stores named p1 and p2 on one
database, p1's writer thread held at a gate so that a write waits in its queue across
the table's change of hands."""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace

import pytest
from gated import Gated
from stacked import random_match

from engine import replay
from engine.room.store import MatchRef
from server.persistence import TableStore
from server.store import Store

pytestmark = pytest.mark.slow      # a PostgreSQL server


def copy_of(tid: str, match, ref: MatchRef, epoch: int) -> SimpleNamespace:
    """What the table store reads of a table object: its id, match, the match's
    stored record and its turn at driving the table."""
    return SimpleNamespace(id=tid, match=match, match_ref=ref, epoch=epoch)


async def test_an_old_copys_action_held_across_a_take_back_is_refused_the_new_copys_stored(
        pg_url):
    """The same process, the same match: only the turn tells the two copies apart. The
    old copy's action 5, queued before p1 lost the table and written after p1 took it
    back, is refused (LeaseLost, its copy told); the new copy's own action 5, queued
    behind it, is stored, and the stored log is the new copy's."""
    m = random_match("estimation", 13, seed=5, until=6)
    p1 = Store(pg_url, process="p1")
    p2 = Store(pg_url, process="p2")
    assert p1.claim_new_table("7", "p1", None, 0, 0, 100, None) is None
    mid = p1.create_match("7", {**m.to_dict(), "log": []}, [None] * 4, {})
    for seq, (seat, action) in enumerate(m.log[:5]):
        p1.append_action(mid, seq, seat, action, 0)
    writes = p1.another()
    writes.fenced = True                # as server.service sets the writer's in a cluster
    gate = threading.Event()
    ts = TableStore(p1, writes=Gated(writes, gate))
    ts.start(asyncio.get_running_loop())
    lost: list[tuple[str, MatchRef | None]] = []
    ts.on_lease_lost = lambda tid, ref: lost.append((tid, ref))
    try:
        old = copy_of("7", m, MatchRef(mid), 0)
        seat, act = m.log[5]
        ts.action(old, seat, act)           # queued in p1's writer, held there
        now = p1.now()
        took = p2.take_over("7", "p2", "p1", mid, now, now)
        assert took is not None and took[0] == 1
        back = p1.take_over("7", "p1", "p2", mid, now, now)
        assert back is not None
        epoch, _frame, _age, stored = back
        assert epoch == 2 and stored is not None and len(stored.record["log"]) == 5
        # The new copy, replayed from what p1's takeover read, plays another action 5.
        again = replay(stored.record)
        other = next(a for a in again.legal_actions(seat) if a != act)
        again.apply(seat, other)
        new = copy_of("7", again, MatchRef(mid), epoch)
        ts.action(new, seat, other)
        gate.set()
        assert await asyncio.to_thread(ts.flush, 10)
        await asyncio.sleep(0.05)           # the results handed back on the loop
    finally:
        gate.set()
        ts.close()
    assert old.match_ref.broken and not new.match_ref.broken
    assert lost == [("7", old.match_ref)]
    log = p1.match(mid).record["log"]
    assert log == [[s, a] for s, a in again.log]
    assert replay(p1.match(mid).record).log == again.log
    for s in (writes, p1, p2):
        s.close()


def test_an_old_copys_seats_and_abandon_after_a_take_back_are_not_written(pg_url):
    """The old copy's seat change and abandon (its table closed here) after p1 took the
    table back: nothing is written over the match the new copy plays; the new copy's
    own are."""
    m = random_match("estimation", 13, seed=5, until=5)
    p1 = Store(pg_url, process="p1")
    p2 = Store(pg_url, process="p2")
    assert p1.claim_new_table("8", "p1", None, 0, 0, 100, None) is None
    mid = p1.create_match("8", {**m.to_dict(), "log": []}, ["ana", None, None, None], {})
    now = p1.now()
    assert p2.take_over("8", "p2", "p1", mid, now, now) is not None
    assert p1.take_over("8", "p1", "p2", mid, now, now) is not None
    writes = p1.another()
    writes.fenced = True
    writes.set_seats(mid, [None, None, None, None], {"old": True}, 0)
    writes.abandon(mid, 1, 0)
    row = p1._x("SELECT seats, settings, finished FROM matches WHERE id = ?",
                (mid,)).fetchone()
    assert (row[0], row[1], row[2]) == ('["ana", null, null, null]', "{}", None)
    writes.set_seats(mid, ["ana", "ben", None, None], {"new": True}, 2)
    writes.abandon(mid, 1, 2)
    row = p1._x("SELECT seats, settings, finished FROM matches WHERE id = ?",
                (mid,)).fetchone()
    assert (row[0], row[1]) == ('["ana", "ben", null, null]', '{"new": true}')
    assert row[2] is not None
    for s in (writes, p1, p2):
        s.close()


async def test_a_table_made_here_and_one_taken_over_write_at_their_rows_turn(tmp_path,
                                                                               pg_url):
    """The turn reaches the table objects: one made here is at its row's first turn; one
    taken over (its row handed on, then claimed by any of the three) at the turn its
    claim gave, and its match is stored on from where the stalled copy left it."""
    import psycopg
    from test_cluster_rooms import made, play, three_rooms, until

    async with three_rooms(tmp_path, pg_url) as rooms:
        p1 = rooms[0]
        alice, tid = await made(p1, "alice", [1, 2, 3])
        table = p1.registry.tables[tid]
        assert table.epoch == 0
        await play([alice], lambda: table.match is not None and len(table.match.log) > 4)
        with psycopg.connect(pg_url, autocommit=True) as db:
            db.execute("UPDATE room_tables SET driver = 'p9', epoch = epoch + 1 "
                       "WHERE id = %s", (tid,))
        await until(lambda: table.closed, what="p1 stops playing the table")
        await until(lambda: any(tid in p.registry.tables for p in rooms), timeout=20,
                    what="another driver takes the table")
        new = next(p for p in rooms if tid in p.registry.tables).registry.tables[tid]
        with psycopg.connect(pg_url) as db:
            row = db.execute("SELECT epoch FROM room_tables WHERE id = %s",
                             (tid,)).fetchone()
        assert row is not None and new.epoch == row[0] == 2

        def stored() -> list[int]:
            with psycopg.connect(pg_url) as db:
                return [r[0] for r in db.execute(
                    "SELECT seq FROM actions a JOIN matches m ON m.id = a.match_id "
                    "WHERE m.table_id = %s ORDER BY seq", (tid,))]
        await play([alice], lambda: len(new.match.log) > len(table.match.log) + 4,
                   timeout=30)
        await until(lambda: len(stored()) > len(table.match.log), what="stored on")
        seqs = stored()
        assert seqs == list(range(len(seqs)))       # one log, no gap
        await alice.close()
