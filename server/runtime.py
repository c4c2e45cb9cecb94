"""Process-wide adjustments for running many Textual apps in one process.

Call :func:`prepare` once, before the first session's App runs.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

log = logging.getLogger("lamma.runtime")

_prepared = False


def patch_textual() -> None:
    """Stop every App from swapping the process-wide ``sys.stdout``/``sys.stderr``
    (see ``tui.textual_compat.disable_stdio_redirect``), and let a finished
    session's objects go by reference counting (``acyclic_textual``)."""
    from tui.textual_compat import acyclic_textual, disable_stdio_redirect

    disable_stdio_redirect()
    acyclic_textual()


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
    at a quiet moment.  The young generations keep CPython's thresholds
    (700, 10): many short pauses.  Larger ones (2000, 20) made each
    generation-1 collection scan ~40,000 survivors, a ~10 ms pause every
    couple of dozen moves (server benchmark), which is what a p95 sees.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(700, 10, 1_000_000)


async def gc_task(interval: float = 10.0, growth: float = 0.25) -> None:
    """Collect the old generation when memory has grown by ``growth`` since
    the last full collection (finished sessions leave reference cycles
    behind: ~10,000 objects each).  A full collection scans every live
    object and stops the loop for it: ~1 s per 100 connected sessions on the
    2-core machine (server benchmark), so it runs when there is garbage to
    find, not on a clock (it was every 120 s).  The check is cheap (counting
    allocated blocks: ~0.5 ms for 3 million)."""
    base = sys.getallocatedblocks()
    while True:
        await asyncio.sleep(interval)
        if sys.getallocatedblocks() > base * (1 + growth):
            gc.collect()
            base = sys.getallocatedblocks()


def prepare(loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Patch Textual (once per process) and pre-start this loop's executor."""
    global _prepared
    if not _prepared:
        _prepared = True
        patch_textual()
    loop = loop or asyncio.get_running_loop()
    if not getattr(loop, "_lamma_executor", False):
        prestart_executor(loop)
        loop._lamma_executor = True  # type: ignore[attr-defined]
