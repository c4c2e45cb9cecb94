"""The computer players' thinking, scheduled (issue 40): classes in priority order, a
fair share per person, what one person may have waiting, cancellation, and "busy, try
again in N s" — all without timing, on pools whose jobs finish when the test says."""

from __future__ import annotations

import asyncio
import concurrent.futures as cf

import pytest

from engine.room import thinking
from engine.room.thinking import Busy, Dropped, Scheduler, Work


class HeldPool:
    """A pool that starts each job it is given and finishes it when told (``finish``)."""

    def __init__(self) -> None:
        self.started: list[tuple[str, cf.Future]] = []

    def run(self, fn, *args):
        fut: cf.Future = cf.Future()
        fut.set_running_or_notify_cancel()
        self.started.append((args[0], fut))
        return fut

    def names(self) -> list[str]:
        return [name for name, _ in self.started]

    async def finish(self, index: int = 0) -> None:
        name, fut = self.started[index]
        fut.set_result(f"done {name}")
        for _ in range(5):                      # the loop hands the result back
            await asyncio.sleep(0)


def job(name: str) -> str:
    return name


def make() -> tuple[Scheduler, HeldPool, HeldPool]:
    play, aside = HeldPool(), HeldPool()
    return Scheduler(lambda: play, lambda: aside), play, aside


async def test_boards_have_a_worker_of_their_own():
    """With a boards pool, a live decision never waits behind a board's in a worker."""
    play, aside, boards = HeldPool(), HeldPool(), HeldPool()
    s = Scheduler(lambda: play, lambda: aside, boards=lambda: boards)
    s.submit(Work.BOARD, "ana", job, "board-1")
    s.submit(Work.BOARD, "bob", job, "board-2")
    live = s.submit(Work.LIVE, "table 7", job, "live")
    assert play.names() == ["live"] and boards.names() == ["board-1"]
    await play.finish(0)
    assert await live == "done live"
    await boards.finish(0)
    assert boards.names() == ["board-1", "board-2"]


async def test_a_live_decision_goes_before_waiting_board_work():
    """Sharing one pool (no boards pool given): live jumps the boards' queue."""
    s, play, _ = make()
    first = s.submit(Work.BOARD, "ana", job, "board-1")
    s.submit(Work.BOARD, "ana", job, "board-2")
    live = s.submit(Work.LIVE, "table 7", job, "live")
    assert play.names() == ["board-1"]          # one job a worker: the rest wait here
    await play.finish(0)
    assert await first == "done board-1"
    assert play.names() == ["board-1", "live"]  # the live one overtook board-2
    await play.finish(1)
    assert await live == "done live"
    assert play.names()[-1] == "board-2"


async def test_live_decisions_never_wait_behind_hints_or_reviews():
    s, play, aside = make()
    for i in range(5):
        s.submit(Work.REVIEW, f"p{i}", job, f"review-{i}")
        s.submit(Work.HINT, f"q{i}", job, f"hint-{i}")
    live = s.submit(Work.LIVE, "table 1", job, "live")
    assert play.names() == ["live"]             # its own lane, at once
    await play.finish(0)
    assert await live == "done live"
    # and the aside lane serves hints before reviews
    assert aside.names() == ["review-0"]
    await aside.finish(0)
    assert aside.names()[1].startswith("hint-")


async def test_a_second_hint_replaces_the_one_still_waiting():
    s, _, aside = make()
    running = s.submit(Work.HINT, "ana", job, "hint-1")
    waiting = s.submit(Work.HINT, "ana", job, "hint-2")
    newest = s.submit(Work.HINT, "ana", job, "hint-3")
    assert waiting.cancelled()                  # replaced: never computed
    assert not running.done() and not newest.done()
    await aside.finish(0)
    assert aside.names() == ["hint-1", "hint-3"]
    assert s.lanes[thinking.ASIDE].waiting() == 0


async def test_each_person_in_turn_within_a_class():
    s, _, aside = make()
    # the pieces of reviews under way (admitted at their start, as reviews.py does)
    for i in range(3):
        s.submit(Work.REVIEW, "ana", job, f"ana-{i}", admitted=True)
    s.submit(Work.REVIEW, "bob", job, "bob-0", admitted=True)
    s.submit(Work.REVIEW, "cem", job, "cem-0", admitted=True)
    for k in range(4):
        await aside.finish(k)
    # ana's first ran alone; then one each in turn, ana's second after bob's and cem's
    assert aside.names() == ["ana-0", "bob-0", "cem-0", "ana-1", "ana-2"]


async def test_reviews_per_person_are_capped_with_a_time_to_come_back(monkeypatch):
    monkeypatch.setattr(thinking, "REVIEWS_PER_PERSON", 2)
    s, _, _ = make()
    s.submit(Work.REVIEW, "ana", job, "a")
    s.submit(Work.REVIEW, "ana", job, "b")
    with pytest.raises(Busy) as refused:
        s.submit(Work.REVIEW, "ana", job, "c")
    assert "try again in" in str(refused.value) and refused.value.params["seconds"] >= 1
    s.submit(Work.REVIEW, "bob", job, "d")          # another person is not refused


async def test_the_aside_lane_says_busy_when_full(monkeypatch):
    monkeypatch.setattr(thinking, "ASIDE_WAITING", 4)
    s, play, _ = make()
    for i in range(5):                              # one runs, four wait
        s.submit(Work.HINT, f"p{i}", job, f"h{i}")
    with pytest.raises(Busy) as refused:
        s.submit(Work.HINT, "late", job, "x")
    assert refused.value.template.startswith("The computer players are busy")
    # a person replacing their own waiting hint is not a new job: accepted
    s.submit(Work.HINT, "p4", job, "h4 again")
    # and live work is never refused
    s.submit(Work.LIVE, "table 1", job, "live")
    assert play.names() == ["live"]


async def test_an_askers_waiting_work_is_dropped_when_they_leave():
    s, _, aside = make()
    s.submit(Work.REVIEW, "bob", job, "bob-0")      # runs
    mine = [s.submit(Work.REVIEW, "ana", job, f"ana-{i}") for i in range(2)]
    hint = s.submit(Work.HINT, "ana", job, "ana-hint")
    assert s.drop("ana") == 3
    for fut in [*mine, hint]:
        assert isinstance(fut.exception(), Dropped)
    await aside.finish(0)
    assert aside.names() == ["bob-0"]               # none of hers computed


async def test_a_stale_job_is_dropped_before_it_runs():
    s, _, aside = make()
    s.submit(Work.HINT, "bob", job, "bob")
    moved = {"on": False}
    fut = s.submit(Work.HINT, "ana", job, "ana", stale=lambda: moved["on"])
    moved["on"] = True
    await aside.finish(0)
    assert isinstance(fut.exception(), Dropped)
    assert aside.names() == ["bob"]


async def test_a_cancelled_wait_leaves_the_queue():
    s, play, _ = make()
    s.submit(Work.LIVE, "t1", job, "first")
    second = s.submit(Work.LIVE, "t2", job, "second")
    second.cancel()                                  # its deadline passed: a fallback moved
    await asyncio.sleep(0)
    assert s.lanes[thinking.PLAY].waiting() == 0
    await play.finish(0)
    assert play.names() == ["first"]


async def test_figures_count_by_class():
    s, play, _ = make()
    s.submit(Work.LIVE, "t1", job, "a")
    s.submit(Work.BOARD, "e1", job, "b")
    f = s.figures()
    assert f["live"]["running"] == 1 and f["board"]["waiting"] == 1
    await play.finish(0)
    assert s.figures()["live"]["done"] == 1
