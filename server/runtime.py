"""Process-wide adjustments for running many Textual apps in one process.

Call :func:`prepare` once, before the first session's App runs.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from engine.room.stats import STATS

log = logging.getLogger("lamma.runtime")

SLOW_COLLECTION = 0.1       # seconds: a collection that stops the loop this long is logged

_prepared = False


def patch_textual() -> None:
    """Stop every App from swapping the process-wide ``sys.stdout``/``sys.stderr``
    (see ``tui.textual_compat.disable_stdio_redirect``), let a finished
    session's objects go by reference counting (``acyclic_textual``), count a
    callback's parameters once per function (``fast_callbacks``), parse the CSS
    once for every session (``shared_stylesheets``), find a message's handlers
    once per kind of node and message (``fast_dispatch``), let a printable text
    skip Rich's control-code translation (``fast_control_strip``) and format a key
    event without Rich's repr (``cheap_key_str``)."""
    from tui.textual_compat import (
        acyclic_textual,
        cheap_key_str,
        disable_stdio_redirect,
        fast_callbacks,
        fast_control_strip,
        fast_dispatch,
        shared_stylesheets,
    )

    disable_stdio_redirect()
    acyclic_textual()
    fast_callbacks()
    fast_dispatch()
    fast_control_strip()
    cheap_key_str()
    shared_stylesheets()


def prestart_executor(loop: asyncio.AbstractEventLoop, workers: int = 4) -> ThreadPoolExecutor:
    """Create the default executor and all its threads now.

    Threads snapshot ``sys.stderr`` when created; asyncssh uses the default
    executor (e.g. for key loading), so make them before any App runs.
    """
    executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="lamma-exec")
    barrier = threading.Barrier(workers + 1)
    for _ in range(workers):
        executor.submit(barrier.wait, 5)
    try:
        barrier.wait(5)
    except threading.BrokenBarrierError:
        pass
    loop.set_default_executor(executor)
    return executor


def tune_gc() -> None:
    """Keep full collections off the hot path.

    Everything imported so far is frozen out of the collector; generation 2
    is practically switched off and collected by :func:`gc_task` instead,
    every 0.1 s, which then freezes what survived.  The young
    generations keep CPython's thresholds (700, 10): many short pauses.
    Larger ones (2000, 20) made each generation-1 collection scan ~40,000
    survivors, a ~10 ms pause every couple of dozen moves (server benchmark),
    which is what a p95 sees.
    """
    collect_and_freeze()
    gc.set_threshold(700, 10, 1_000_000)


def collect_and_freeze() -> int:
    """A full collection, then everything that survived it is frozen.

    Frozen objects are never scanned again, so each full collection scans
    only what was allocated (and survived the young generations) since the
    last one: a few milliseconds, however many sessions are held, where a
    scan of the whole heap took ~1 s per 100 sessions (issue 12).  Both
    ``gc.freeze`` and the scan of the unfrozen rest are cheap; a frozen
    object that later dies in a reference cycle is never found (reference
    counting still frees everything else), which is why a finished session
    breaks its cycles itself (``TeardownMixin.break_cycles``,
    ``ssh.unlink_asyncssh``).  Returns the number of objects collected."""
    global _frozen
    found = gc.collect()
    # Counted here, as they are frozen: after a full collection every survivor is in
    # the oldest generation, a few thousand objects to count, where
    # gc.get_freeze_count() walks every frozen object (~20 ms for 3 million, which
    # after every collection took a third of the server's CPU in the churn benchmark).
    _frozen += len(gc.get_objects(2))
    gc.freeze()
    return found


_frozen = 0     # objects frozen by collect_and_freeze, some of which may have died since


def frozen_count() -> int:
    """How many objects were frozen since the last whole collection, without
    ``gc.get_freeze_count()``'s walk over every one of them: counted as they were
    frozen (to within the few made while counting), those that died since included."""
    return _frozen


def collect_frozen() -> int:
    """The rare path back: unfreeze everything and collect it all (a pause
    as long as a scan of the whole heap), then freeze again.  Finds what
    died in cycles after it was frozen; for an operator or a quiet hour."""
    global _frozen
    gc.unfreeze()
    _frozen = 0
    return collect_and_freeze()


WHOLE_EVERY = 3600.0      # seconds at least between two scans of the whole heap ...
WHOLE_FLOOR = 500_000     # ... which wait for the frozen heap to double from at least this
FROZEN_CHECK_EVERY = 60.0  # seconds between two counts of the frozen heap alive (a walk)


async def gc_task(check: float = 0.1) -> None:
    """Every ``check`` s a full collection, and what survived it frozen
    (:func:`collect_and_freeze`).  Each one scans what was made since the last tick
    and is still alive: with 500 sessions at 125 tables moving every 2 s, a few
    thousand objects, mostly 1-5 ms; with nothing made, empty generations.  An object
    that lives on is scanned once or twice before it is frozen, not again in every
    older generation (500 sessions, alternately: the longest answer 189-193 ms before,
    16-74 ms after; the CPU per move the same within the machine's noise).  Between
    ticks CPython's own young collections run as before.

    Before: the young generation on the tick (CPython's rule, 700 more allocations
    than frees, hardly fires on a server that replaces objects as fast as it makes
    them: the young list grew to 150,000 objects) and a full collection after each
    generation-1 one, which then found up to ~125,000 objects (100-110 ms; up to
    270 ms while 500 sessions connected) and generation-1 collections of up to 96 ms.
    Full collections on a 10 s clock grew with whatever arrived in between (0.1-0.2 s
    with 100 sessions held)."""
    whole_at = checked_at = time.monotonic()
    whole_frozen = max(frozen_count(), WHOLE_FLOOR)
    while True:
        await asyncio.sleep(check)
        collect_and_freeze()
        # What died in a cycle after it was frozen is found only by a whole scan (a
        # pause of ~1 s per 100 sessions): once the frozen heap alive has doubled since
        # the last one, and at most once an hour, so the leak stays bounded.  The count
        # kept as objects are frozen (``frozen_count``) includes every one that died
        # since: alone it doubles within minutes on a busy server, and a whole scan came
        # every hour.  It bounds the heap alive from above; that is counted (a walk of
        # it, ~20 ms for 3 million) only once the count has doubled, at most once a
        # minute.
        now = time.monotonic()
        if (now - whole_at < WHOLE_EVERY or now - checked_at < FROZEN_CHECK_EVERY
                or frozen_count() <= 2 * whole_frozen):
            continue
        checked_at = now
        alive = gc.get_freeze_count()
        if alive > 2 * whole_frozen:
            log.info("a whole collection: %d objects frozen alive (%d after the last)",
                     alive, whole_frozen)
            collect_frozen()
            whole_at = time.monotonic()
            whole_frozen = max(frozen_count(), WHOLE_FLOOR)


# ------------------------------------------------------- collector pauses
_gc_started = 0.0


def _on_gc(phase: str, info: dict[str, Any]) -> None:
    """``gc.callbacks``: the pause of every collection into ``STATS.gc_pause``
    (full ones into ``STATS.gc_full_pause`` too); a slow one is logged with
    what it scanned."""
    global _gc_started
    now = time.perf_counter()
    if phase == "start":
        _gc_started = now
        return
    pause = now - _gc_started
    generation = info.get("generation", -1)
    STATS.gc_pause.observe(pause)
    if generation == 2:
        STATS.gc_full_pause.observe(pause)
    if pause > SLOW_COLLECTION and not sys.is_finalizing():    # (nobody reads it at exit)
        # (no count of the tracked objects: a pass over millions of them, and a list
        # of them, would lengthen the very pause it reports)
        log.warning("slow collection: generation %d stopped everything for %.0f ms; "
                    "%d objects collected, %d frozen", generation, pause * 1000,
                    info.get("collected", 0), frozen_count())


def measure_gc() -> None:
    """Time every collection (see :func:`_on_gc`).  Idempotent."""
    if _on_gc not in gc.callbacks:
        gc.callbacks.append(_on_gc)


def raise_open_files() -> int:
    """The soft limit on open files raised to the hard one (a soft 1,024 is common and
    every connection is a socket: 64 addresses holding 16 idle connections each filled
    it, and then nobody could connect, issue 30). Returns the limit now in force."""
    try:
        import resource
    except ImportError:             # not a POSIX system: the room's own cap still holds
        return 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            log.warning("could not raise the open-files limit from %d to %d", soft, hard)
    elif hard == resource.RLIM_INFINITY and soft != resource.RLIM_INFINITY:
        # "Unlimited" cannot be a soft limit everywhere: as far as the kernel allows.
        for wanted in (1 << 20, 1 << 16):
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
                soft = wanted
                break
            except (ValueError, OSError):
                continue
    return int(soft) if soft != resource.RLIM_INFINITY else 1 << 20


def quiet_accept_errors(loop: asyncio.AbstractEventLoop) -> None:
    """asyncio logs a traceback for every accept that fails for want of file
    descriptors (and retries a second later): under a flood of connections the log grew
    68 MB in ~36 s (issue 30). Those are counted and said once every 10 s instead;
    anything else goes to the loop's default handler as before."""
    from .limits import Tally

    tally = Tally(log, "%d connection(s) could not be accepted: %s (the room's connection "
                       "cap should stay under the open-files limit)")

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") == "socket.accept() out of system resource":
            tally.note(str(context.get("exception") or "out of file descriptors"))
            return
        loop.default_exception_handler(context)

    if loop.get_exception_handler() is None:
        loop.set_exception_handler(handler)


SWITCH_INTERVAL = 0.001    # seconds a thread holds the GIL before another may have it


def prepare(loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Patch Textual and time the collector (once per process), and pre-start
    this loop's executor."""
    global _prepared
    if not _prepared:
        _prepared = True
        patch_textual()
        measure_gc()
        # The store's writer thread needs the GIL two or three times per commit; with
        # Python's 5 ms switch interval each can wait that long while the loop is busy.
        # It matters when moves come in bursts: with server_bench's tables all on one
        # beat (its drivers before `Pace`) lobby act → view p95 went 35.7 → 28.8 and
        # 50.9 → 23.5 ms; with the moves spread out (paced, two alternate pairs) it
        # makes no difference (p95 2.9, 3.7 ms at 1 ms; 3.4, 2.7 ms at 5 ms; CPU per
        # move within noise). Kept for the bursts (tables that waited through a stall).
        sys.setswitchinterval(SWITCH_INTERVAL)
    loop = loop or asyncio.get_running_loop()
    if not getattr(loop, "_lamma_executor", False):
        prestart_executor(loop)
        loop._lamma_executor = True  # type: ignore[attr-defined]
