"""The computer players' thinking, scheduled for everyone at once (issue 40).

Every piece of thinking the room does — a live table's computer player, an event board's,
a hint, a piece of a review — is a *job* of one of four classes, in priority order:

- ``LIVE``: a computer player at a live table (a person is waiting for it);
- ``BOARD``: a computer player on an event's board (the same player for every entrant:
  decided from a seed and a fixed number of samples, waited for, never substituted);
- ``HINT``: the strong player's choice for a practice table's turn;
- ``REVIEW``: one decision of a finished round's review.

Jobs run in worker processes, in three *lanes* of their own so that no class makes a
higher one wait behind its work in a worker: ``play`` (LIVE), ``boards`` (BOARD) and
``aside`` (HINT, then REVIEW), each lane's process niced below the one before, so that on
a busy machine the boards get the CPU the live tables leave, and the hints and reviews
what both leave. A lane
hands its pool one job per worker at a time and keeps the rest here, so the order is
ours: the highest class first and, within a class, one job per person in turn (a person
with a hundred jobs waiting waits behind everyone else's first).

What one person may have waiting is bounded: a second hint replaces the first (the first
is cancelled and never computed), reviews at most ``REVIEWS_PER_PERSON`` at a time, and
the aside lane refuses new work beyond ``ASIDE_WAITING`` jobs, saying when to try again
("busy, try again in N s", from what the lane's jobs took lately). A job whose asker is
gone (``drop``) or whose position has moved on (``stale``) is cancelled before it runs.

The lanes' pools are made by the callables given (``engine.room.bots``), so that a pool
that died is replaced at the next job; the scheduler itself runs on the event loop.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import Future as CFuture
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Protocol, TypedDict

from .errors import N_, RoomError


class WorkFigures(TypedDict):
    """One class of work as ``Scheduler.figures`` counts it."""
    waiting: int
    running: int
    seconds: float          # what a job took lately (a moving average)
    done: int
    dropped: int


class Work(IntEnum):
    """A job's class; the lower, the sooner."""
    LIVE = 0
    BOARD = 1
    HINT = 2
    REVIEW = 3


PLAY, BOARDS, ASIDE = "play", "boards", "aside"
LANE_OF = {Work.LIVE: PLAY, Work.BOARD: BOARDS, Work.HINT: ASIDE, Work.REVIEW: ASIDE}

SERVED_KEPT = 4096          # owners whose last turn is remembered (the oldest forgotten)
REVIEWS_PER_PERSON = 2      # reviews one person may have being worked out at once
ASIDE_WAITING = 12          # hints and review pieces waiting in the room, at most
EXPECTED_S = {Work.LIVE: 0.1, Work.BOARD: 0.2, Work.HINT: 1.0, Work.REVIEW: 1.0}


class Pool(Protocol):
    """What a lane needs of a worker pool (``engine.bots.worker.BotPool``)."""

    def run(self, fn: Callable[..., Any], *args: Any) -> CFuture[Any]: ...


class Busy(RoomError):
    """The aside lane is full: said with when to try again."""


class Dropped(RoomError):
    """A job nobody waits for any more (its asker left, or its position moved on)."""


@dataclass(eq=False)
class Job:
    work: Work
    owner: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    future: asyncio.Future[Any]
    stale: Callable[[], bool] | None = None
    queued_at: float = field(default_factory=time.monotonic)
    started_at: float | None = None


class Lane:
    """One lane: its pool, its slots (jobs handed to the pool at once) and its queues."""

    def __init__(self, name: str, pool: Callable[[], Pool], slots: int = 1) -> None:
        self.name = name
        self.pool = pool
        self.slots = max(1, slots)
        self.running: set[Job] = set()
        # class -> owner -> that owner's jobs, oldest first; owners in arrival order.
        self.queues: dict[Work, OrderedDict[str, deque[Job]]] = {}
        # When each owner was last served (a count of jobs started): the one served
        # longest ago goes next, so a newcomer does not wait behind a long queue's owner.
        self.served: OrderedDict[str, int] = OrderedDict()
        self.started = 0

    def waiting(self, work: Work | None = None, owner: str | None = None) -> int:
        n = 0
        for w, owners in self.queues.items():
            if work is not None and w != work:
                continue
            for who, jobs in owners.items():
                if owner is None or who == owner:
                    n += len(jobs)
        return n

    def jobs(self, work: Work, owner: str) -> list[Job]:
        """``owner``'s jobs of a class still waiting, oldest first."""
        owners = self.queues.get(work)
        return list(owners.get(owner, ())) if owners is not None else []

    def push(self, job: Job) -> None:
        owners = self.queues.setdefault(job.work, OrderedDict())
        owners.setdefault(job.owner, deque()).append(job)

    def remove(self, job: Job) -> None:
        owners = self.queues.get(job.work)
        if owners is None or job.owner not in owners:
            return
        jobs = owners[job.owner]
        try:
            jobs.remove(job)
        except ValueError:
            return
        if not jobs:
            del owners[job.owner]

    def pop(self) -> Job | None:
        """The next job: the highest class first; within it, the owner served longest
        ago (never served: first), in arrival order among equals."""
        for work in sorted(self.queues):
            owners = self.queues[work]
            if not owners:
                continue
            owner = min(owners, key=lambda o: self.served.get(o, -1))
            jobs = owners[owner]
            job = jobs.popleft()
            if not jobs:
                del owners[owner]
            self.started += 1
            self.served[owner] = self.started
            self.served.move_to_end(owner)
            while len(self.served) > SERVED_KEPT:
                self.served.popitem(last=False)
            return job
        return None


class Scheduler:
    """The room's thinking: ``submit`` a job, await its future."""

    def __init__(self, play: Callable[[], Pool], aside: Callable[[], Pool],
                 play_slots: int = 1, aside_slots: int = 1,
                 boards: Callable[[], Pool] | None = None) -> None:
        self.lanes = {PLAY: Lane(PLAY, play, play_slots), ASIDE: Lane(ASIDE, aside, aside_slots)}
        # Without a boards pool, boards queue in the play lane, behind live decisions.
        self.lanes[BOARDS] = Lane(BOARDS, boards) if boards is not None else self.lanes[PLAY]
        # What a job of each class took lately (s), a moving average: "try again in N s".
        self.took = dict(EXPECTED_S)
        self.done = dict.fromkeys(Work, 0)
        self.dropped = dict.fromkeys(Work, 0)

    # ------------------------------------------------------------------ asking
    def admit(self, work: Work, owner: str) -> None:
        """Refuses (``Busy``) a hint or review the aside lane cannot take now."""
        if LANE_OF[work] != ASIDE:
            return
        lane = self.lanes[ASIDE]
        if work == Work.REVIEW:
            mine = lane.waiting(Work.REVIEW, owner) + sum(
                1 for j in lane.running if j.owner == owner and j.work == Work.REVIEW)
            if mine >= REVIEWS_PER_PERSON:
                raise Busy(N_("You have {n} reviews being worked out: try again in {seconds} s."),
                           n=REVIEWS_PER_PERSON, seconds=self.wait_estimate(work))
        replaced = 1 if work == Work.HINT and lane.waiting(Work.HINT, owner) else 0
        if lane.waiting() - replaced >= ASIDE_WAITING:
            raise Busy(N_("The computer players are busy: try again in {seconds} s."),
                       seconds=self.wait_estimate(work))

    def wait_estimate(self, work: Work) -> int:
        """Seconds until a job of this class asked now would likely be done (≥ 1)."""
        lane = self.lanes[LANE_OF[work]]
        ahead = sum(lane.waiting(w) * self.took[w] for w in Work if w <= work)
        ahead += sum(self.took[j.work] for j in lane.running)
        return max(1, math.ceil((ahead + self.took[work]) / lane.slots))

    def submit(self, work: Work, owner: str, fn: Callable[..., Any], *args: Any,
               stale: Callable[[], bool] | None = None,
               admitted: bool = False) -> asyncio.Future[Any]:
        """Queues ``fn(*args)`` (a module-level function of plain data) for a worker and
        returns the future of its result. A hint replaces the owner's hint still waiting;
        hints and reviews are refused (``Busy``) past the limits (``admit``), unless the
        work was admitted already (the next piece of a review under way)."""
        if not admitted:
            self.admit(work, owner)
        lane = self.lanes[LANE_OF[work]]
        if work == Work.HINT:
            for old in lane.jobs(Work.HINT, owner):
                lane.remove(old)
                self.dropped[Work.HINT] += 1
                if not old.future.done():
                    old.future.cancel()
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        job = Job(work, owner, fn, args, fut, stale)
        lane.push(job)

        def forgotten(f: asyncio.Future[Any]) -> None:
            if f.cancelled() and job.started_at is None:
                lane.remove(job)            # given up while waiting: never computed
        fut.add_done_callback(forgotten)
        self._pump(lane)
        return fut

    def drop(self, owner: str) -> int:
        """Cancels what ``owner`` has waiting of hints and reviews (the asker left);
        how many jobs."""
        n = 0
        lane = self.lanes[ASIDE]
        for work in (Work.HINT, Work.REVIEW):
            for job in lane.jobs(work, owner):
                lane.remove(job)
                self.dropped[work] += 1
                n += 1
                if not job.future.done():
                    job.future.set_exception(Dropped(N_("Nobody waits for this any more.")))
                    job.future.exception()          # retrieved: the asker is gone
        return n

    # ------------------------------------------------------------------ running
    def _pump(self, lane: Lane) -> None:
        while len(lane.running) < lane.slots:
            job = lane.pop()
            if job is None:
                return
            if job.future.done():
                continue
            if job.stale is not None and job.stale():
                self.dropped[job.work] += 1
                job.future.set_exception(Dropped(N_("The position has moved on.")))
                job.future.exception()
                continue
            try:
                cf = lane.pool().run(job.fn, *job.args)
            except Exception as exc:        # a pool shut down or broken at submit
                job.future.set_exception(exc)
                continue
            job.started_at = time.monotonic()
            lane.running.add(job)
            loop = asyncio.get_running_loop()

            def finished(f: CFuture[Any], job: Job = job, loop: asyncio.AbstractEventLoop = loop
                         ) -> None:
                try:
                    loop.call_soon_threadsafe(self._finished, lane, job, f)
                except RuntimeError:        # the loop is closed: nobody waits
                    pass
            cf.add_done_callback(finished)

    def _finished(self, lane: Lane, job: Job, f: CFuture[Any]) -> None:
        lane.running.discard(job)
        if job.started_at is not None and not f.cancelled() and f.exception() is None:
            took = time.monotonic() - job.started_at
            self.took[job.work] = 0.8 * self.took[job.work] + 0.2 * took
            self.done[job.work] += 1
        if not job.future.done():
            if f.cancelled():
                job.future.cancel()
            elif f.exception() is not None:
                job.future.set_exception(f.exception())     # type: ignore[arg-type]
            else:
                job.future.set_result(f.result())
        self._pump(lane)

    # ------------------------------------------------------------------ figures
    def figures(self) -> dict[str, WorkFigures]:
        """Waiting and running by class (its name in lower case), and what each took
        lately (metrics, tests)."""
        out: dict[str, WorkFigures] = {}
        for work in Work:
            lane = self.lanes[LANE_OF[work]]
            out[work.name.lower()] = {
                "waiting": lane.waiting(work),
                "running": sum(1 for j in lane.running if j.work == work),
                "seconds": round(self.took[work], 3), "done": self.done[work],
                "dropped": self.dropped[work]}
        return out
