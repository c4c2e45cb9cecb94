"""The one hook through which computer players (and the turn timer) choose.

Computer players think in worker processes (``engine.bots.worker.BotPool``), never
on the server's event loop: ``decide`` awaits a worker's answer, and whatever comes
back is checked against the engine before the table applies it. If no answer comes
within ``DEADLINE_S``, or the pool has died, the engine's ``auto_action`` (a simple
legal player) moves, the trouble is logged once, and a dead pool is started anew for
the next decision.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import time
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

from .boards import DEADLINE_S as EVENT_DEADLINE_S
from .catalogue import DEFAULT_LEVEL
from .stats import STATS
from .thinking import Scheduler, Work

if TYPE_CHECKING:
    from engine import Action, Match
    from engine.bots.worker import BotPool

log = logging.getLogger("lamma.bots")

BUDGET_MS = 100         # per decision (issue 5's default); the human-pace pause hides it
WORKER_NICE = 10        # the worker yields the CPU to the event loop when both want it
DEADLINE_S = 2.0        # a decision not back by then (a queue behind other tables, a stuck
                        # worker) is made by the simple player instead
# One core is the event loop's; the others think (at least one worker).
WORKERS = max(1, (os.cpu_count() or 2) - 1)

BOARD_NICE = 15         # event boards: the CPU the live tables leave
ASIDE_NICE = 19         # hints and reviews: the CPU the live tables and the boards leave

_pool: BotPool | None = None
# The workers of their own (issue 40): "boards" for event boards, "aside" for hints and
# reviews, each started on first use.
_own: dict[str, BotPool] = {}
_scheduler: tuple[asyncio.AbstractEventLoop, Scheduler] | None = None


def pool() -> BotPool:
    """The process-wide worker pool, started on first use."""
    global _pool
    if _pool is None:
        from engine.bots.worker import BotPool  # the worker's imports wait for a first bot
        # Each worker lowers its own priority as it starts (lower_priority can only reach
        # the ones already running).
        _pool = BotPool(workers=WORKERS, nice=WORKER_NICE)
        _warned.discard("broken")       # a new pool: its own death, if any, is news again
        atexit.register(close_pool)      # stop the worker before the interpreter unwinds
    return _pool


def _own_pool(kind: str, nice: int) -> BotPool:
    p = _own.get(kind)
    if p is None:
        from engine.bots.worker import BotPool
        p = _own[kind] = BotPool(workers=1, nice=nice)
        atexit.register(close_pool)
    return p


def aside_pool() -> BotPool:
    """The worker for hints and reviews (issue 40): a process of its own, so that a live
    table's decision never waits behind one in a pool's queue."""
    return _own_pool("aside", ASIDE_NICE)


def board_pool() -> BotPool:
    """The worker for event boards' computer players (issue 40): a process of its own,
    so a live table's decision never waits behind a board's (256 samples: seconds)."""
    return _own_pool("boards", BOARD_NICE)


def scheduler() -> Scheduler:
    """The room's scheduler of thinking (``thinking.Scheduler``) on the running loop: one
    per loop, since its jobs' futures belong to it (a test's loop, then another)."""
    global _scheduler
    loop = asyncio.get_running_loop()
    if _scheduler is None or _scheduler[0] is not loop:
        _scheduler = (loop, Scheduler(pool, aside_pool, play_slots=WORKERS,
                                      boards=board_pool))
    return _scheduler[1]


def drop_asks(owner: str) -> None:
    """Cancels ``owner``'s hints and reviews still waiting (they left the table)."""
    if _scheduler is not None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if _scheduler[0] is loop:
            _scheduler[1].drop(owner)


def lower_priority(bot_pool: BotPool, nice: int = WORKER_NICE) -> None:
    """Run the worker processes ``nice`` steps below this process (issue 5).

    On a machine with few cores the worker and the event loop compete for a
    CPU; a decision only has to fit its time budget, a key press has to be
    drawn at once.  Best effort: a pool without processes (yet), or a system
    that refuses, is left as it is."""
    procs = getattr(getattr(bot_pool, "_pool", None), "_processes", None) or {}
    try:
        target = min(19, os.getpriority(os.PRIO_PROCESS, 0) + nice)
    except (AttributeError, OSError):
        return
    for pid in list(procs):
        try:
            os.setpriority(os.PRIO_PROCESS, pid, target)
        except OSError:
            pass


def close_pool() -> None:
    global _pool
    if _pool is not None:
        _pool.close()
        _pool = None
    for kind in list(_own):
        _own.pop(kind).close()


_warned: set[str] = set()


def _warn_once(kind: str, text: str) -> None:
    """A trouble that repeats on every decision (a dead pool, a slow machine) is
    logged the first time, not once per move."""
    if kind not in _warned:
        _warned.add(kind)
        log.warning("%s (logged once; the simple player moves meanwhile)", text)


async def decide(match: Match, seat: int, level: str = DEFAULT_LEVEL,
                 seed: int | None = None, samples: int | None = None,
                 owner: str = "") -> Action:
    """A legal action for ``seat``, thought out in a worker process.

    A live table's decision (``Work.LIVE``) is waited for ``DEADLINE_S``, then the simple
    player moves. ``seed`` and ``samples`` (an event's board, ``boards.py``): decided with
    that seed and that many samples, not against the clock, so the same view gets the
    same action for every entrant (``Work.BOARD``): waited for as long as it takes, its
    deadline only logged, and asked again of a new worker if the worker died — never
    answered by another player. ``owner``: whose table (the scheduler's fair share)."""
    from engine.bots.worker import think
    asked = time.perf_counter()
    view = match.view(seat)
    fixed = samples is not None
    work = Work.BOARD if fixed else Work.LIVE
    tries = 0
    try:
        while True:
            tries += 1
            try:
                future = scheduler().submit(work, owner, think, view, level, BUDGET_MS,
                                            seed, samples)
                if fixed:
                    action = await _waited(future)
                else:
                    action = await asyncio.wait_for(future, DEADLINE_S)
                break
            except BrokenProcessPool:
                # The worker died (killed, out of memory): a new pool serves the next one.
                close_broken()
                _warn_once("broken", "the computer players' worker process died; "
                                     "starting a new one")
                if not fixed or tries >= 5:
                    raise
        if action in match.legal_actions(seat):
            return action
        log.warning("bot chose an illegal action %r; using auto_action", action)
    except TimeoutError:
        _warn_once("deadline", f"a computer player's decision took over {DEADLINE_S} s")
    except BrokenProcessPool:
        pass
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise               # this decision itself was cancelled (the table closed)
        # the pool was shut down under it: the simple player moves instead
    except Exception:
        log.exception("computer player failed; using auto_action")
    finally:
        # From asking to the answer back on the loop: what the table waited, a deadline
        # or a dead worker included (a cancelled decision waited for nothing).
        if not _cancelled():
            STATS.bot_decision.observe(time.perf_counter() - asked)
    return match.auto_action(seat)


async def _waited(future: asyncio.Future[Action]) -> Action:
    """An event board's decision: waited for whatever it takes; past the board's deadline
    the wait is logged (once), never cut short."""
    try:
        return await asyncio.wait_for(asyncio.shield(future), EVENT_DEADLINE_S)
    except TimeoutError:
        _warn_once("board-deadline", f"an event board's computer player took over "
                                     f"{EVENT_DEADLINE_S} s; still waiting for it")
        return await future


def close_broken() -> None:
    """Closes the pools whose worker died (a new one serves the next job)."""
    global _pool
    if _pool is not None and _pool.broken():
        _pool.close()
        _pool = None
    for kind, p in list(_own.items()):
        if p.broken():
            _own.pop(kind).close()


def _cancelled() -> bool:
    """This decision's task is being cancelled, or it has no loop any more (its
    coroutine closed by the collector after the loop went: nothing waited)."""
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return True
    return task is not None and task.cancelling() > 0


def timer_needs_bot(match: Match) -> bool:
    """room.md: the timer declines the dash, passes, confirms the call (auto_action);
    Estimation declarations and cards are a computer player's choice; Tarneeb is T-25."""
    return match.game != "tarneeb41" and match.phase in ("declare", "play")


def timeout_action(match: Match, seat: int) -> Action:
    """The turn timer's move when no computer player is needed (see ``timer_needs_bot``)."""
    return match.auto_action(seat)
