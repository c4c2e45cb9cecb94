"""The fence's reads and the write it guards are one transaction even on a revived
connection, and a takeover never waits on a writer in the middle of a match's write
(found by a review of the epoch fence, both reproduced before the mend).

On the run's throwaway PostgreSQL (tests/pg.py)."""

from __future__ import annotations

import threading
import time

import pytest
from stacked import random_match

from server.store import Store

pytestmark = pytest.mark.slow      # a PostgreSQL server


def _match_at_p1(pg_url):
    m = random_match("estimation", 13, seed=5, until=8)
    p1 = Store(pg_url, process="p1")
    assert p1.claim_new_table("7", "p1", None, 0, 0, 100, None) is None
    mid = p1.create_match("7", {**m.to_dict(), "log": []}, [None] * 4, {})
    return m, p1, mid


def test_a_write_on_a_revived_connection_reads_its_fence_in_its_own_transaction(pg_url):
    """A lost connection is in no transaction (UNKNOWN): the fenced write begins its own
    (which revives the connection) instead of running its reads and its insert each on
    its own, where a takeover could commit between them."""
    m, p1, mid = _match_at_p1(pg_url)
    w = p1.another()
    w.fenced = True
    try:
        w.db.close()
        w._lost_at = time.monotonic() - 5 * w.REVIVE_EVERY      # lost, and due a revive
        seen: list[tuple[str, str]] = []
        plain = w._x

        def spy(sql, args=()):
            got = plain(sql, args)
            seen.append((sql.split()[0], w.db.info.transaction_status.name))
            return got
        w._x = spy
        seat, action = m.log[0]
        w.append_action(mid, 0, seat, action, 0)
        assert seen[0] == ("BEGIN", "INTRANS"), seen
        assert [s for _, s in seen[1:-1]] == ["INTRANS"] * (len(seen) - 2), seen
        assert seen[-1][0] == "COMMIT", seen
        assert [a for _, a in p1.match(mid).record["log"]] == [action]
    finally:
        w.close()
        p1.close()


def test_a_takeover_skips_a_match_in_the_middle_of_a_write_instead_of_deadlocking(pg_url):
    """A writer's group holds the match FOR SHARE (an action's fence), then updates the
    table's row (its frame); a takeover that locked the table's row first and then
    waited for the match deadlocked with it (PostgreSQL aborting one after a second:
    the writer took that for the database gone). Now the takeover skips the match while
    it is being written: the writer commits, the takeover is not taken this time."""
    m, p1, mid = _match_at_p1(pg_url)
    for seq, (seat, action) in enumerate(m.log[:5]):
        p1.append_action(mid, seq, seat, action, 0)
    p2 = Store(pg_url, process="p2")
    w = p1.another()
    w.fenced = True
    try:
        w._x("BEGIN")
        seat, action = m.log[5]
        w.append_action(mid, 5, seat, action, 0)           # joins: FOR SHARE held
        took: dict[str, object] = {}

        def take() -> None:
            now = p2.now()
            try:
                took["got"] = p2.take_over("7", "p2", "p1", mid, now + 100, now)
            except Exception as e:                         # a deadlock's victim
                took["got"] = e
        t = threading.Thread(target=take)
        t.start()
        t.join(0.3)
        w.publish_table("7", "p1", mid, "playing", 0, None, "{}", "[]", None)
        w._x("COMMIT")
        t.join(10)
        assert not t.is_alive()
        assert took["got"] is None, took
        assert len(p1.match(mid).record["log"]) == 6
        now = p2.now()
        assert p2.take_over("7", "p2", "p1", mid, now + 100, now) is not None   # free now
    finally:
        for s in (w, p1, p2):
            s.close()
