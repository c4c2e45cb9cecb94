"""The computer players' worker pool survives its workers (issue 11): a killed worker
is replaced, a decision that misses its deadline is made by the simple player, and a
repeated trouble is logged once."""

from __future__ import annotations

import asyncio
import logging
import os
import signal

from engine import new_match
from engine.room import bots


def worker_pids(pool) -> list[int]:
    return list(pool._pool._processes)


async def test_a_killed_worker_is_replaced_and_play_goes_on(caplog, monkeypatch):
    monkeypatch.setattr(bots, "_warned", set())
    bots.close_pool()
    m = new_match("estimation", length=13, seed=5)
    try:
        first = await bots.decide(m, m.to_act, "easy")
        assert first in m.legal_actions(m.to_act)
        old = bots.pool()
        old_pids = worker_pids(old)
        for pid in old_pids:
            os.kill(pid, signal.SIGKILL)
        with caplog.at_level(logging.WARNING, logger="lamma.bots"):
            for _ in range(3):                     # the dead pool answers, then is replaced
                action = await bots.decide(m, m.to_act, "easy")
                assert action in m.legal_actions(m.to_act)
        new = bots.pool()
        assert new is not old
        again = await bots.decide(m, m.to_act, "strong")
        assert again in m.legal_actions(m.to_act)
        assert worker_pids(new) and set(worker_pids(new)).isdisjoint(old_pids)
        died = [r for r in caplog.records if "worker process died" in r.getMessage()]
        assert len(died) == 1                      # logged once, not per decision
    finally:
        bots.close_pool()


async def test_a_late_decision_is_made_by_the_simple_player(monkeypatch, caplog):
    monkeypatch.setattr(bots, "_warned", set())
    monkeypatch.setattr(bots, "DEADLINE_S", 0.05)

    class Stuck:
        def run(self, fn, *args):
            import concurrent.futures as cf
            return cf.Future()                     # never answers

        def close(self):
            pass

    monkeypatch.setattr(bots, "_pool", Stuck())
    m = new_match("tarneeb41", seed=2)
    with caplog.at_level(logging.WARNING, logger="lamma.bots"):
        for _ in range(2):
            started = asyncio.get_running_loop().time()
            action = await bots.decide(m, m.to_act, "strong")
            assert asyncio.get_running_loop().time() - started < 1.0
            assert action == m.auto_action(m.to_act)
    assert sum("took over" in r.getMessage() for r in caplog.records) == 1


def test_a_decision_dropped_with_its_loop_is_not_logged_as_a_failure(caplog):
    """A decision still waiting when its loop is gone (a test's loop closed, a process
    stopping) is closed by the collector: it ends quietly, not with "computer player
    failed" (that log's traceback, formatted inside a collection that an ``ast.parse``
    had started, broke Python 3.11's AST depth check in a later test)."""
    m = new_match("estimation", length=13, seed=5)
    decision = bots.decide(m, m.to_act, "strong")

    async def ask() -> None:
        decision.send(None)                 # runs until it waits for the worker
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(ask())
    finally:
        loop.close()
    with caplog.at_level(logging.DEBUG, logger="lamma.bots"):
        decision.close()                    # what the collector does with it
    assert [r.getMessage() for r in caplog.records] == []
    bots.close_pool()
