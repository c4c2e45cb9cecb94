"""Computer players off the server's event loop: one worker process.

The engine has no asyncio; the server wraps the future itself::

    pool = BotPool()                                   # once, at start-up
    action = await asyncio.wrap_future(pool.submit(m.view(seat), "strong", 100))
    m.apply(seat, action)                              # back on the loop, after its pause
    ...
    pool.close()                                       # at shutdown

A view is plain JSON-like data, so it pickles as is; the worker only computes.
``submit`` never blocks: decisions queue in the worker, each within its budget.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
import random
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from ..types import Action, View

T = TypeVar("T")


def think(view: View, level: str, budget_ms: float, seed: int | None = None,
          samples: int | None = None) -> Action:
    """``choose`` in a worker: what ``submit`` runs, and what the room's scheduler hands a
    pool (``engine.room.thinking``)."""
    from . import choose
    return choose(view, level, budget_ms, random.Random(seed), samples)


def _watch_parent(parent: int, nice: int = 0) -> None:
    """End this worker when the server that started it is gone (even by SIGKILL):
    the pool's pipes never say so, since the worker holds both of their ends. Each
    worker also lowers its own priority by ``nice`` as it starts (workers are started
    one by one as they are needed, so the parent cannot do it for all of them)."""
    import os
    import threading
    import time

    if nice:
        try:
            os.nice(nice)
        except OSError:
            pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, daemon=True, name="lamma-parent-watch").start()


def _warm() -> bool:
    from . import choose  # noqa: F401  (import the package once in the worker)
    return True


class BotPool:
    """A ``ProcessPoolExecutor`` of ``workers`` processes (default 1) for ``choose``."""

    def __init__(self, workers: int = 1, nice: int = 0):
        ctx = mp.get_context("spawn")      # no fork of a running server's threads
        import os
        self._pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                            initializer=_watch_parent,
                                            initargs=(os.getpid(), nice))
        self._pool.submit(_warm)
        self._broken = False

    def broken(self) -> bool:
        """Whether a worker of this pool died (a job ended in ``BrokenProcessPool``)."""
        return self._broken

    def _watch(self, fut: cf.Future[T]) -> cf.Future[T]:
        def done(f: cf.Future[T]) -> None:
            if not f.cancelled() and isinstance(f.exception(), BrokenProcessPool):
                self._broken = True
        fut.add_done_callback(done)
        return fut

    def submit(self, view: View, level: str = "strong", budget_ms: float = 100,
               seed: int | None = None, samples: int | None = None) -> cf.Future[Action]:
        """A Future of the action dict for ``view``'s seat (``seed`` and ``samples``: a
        choice made the same way every time, see ``choose``)."""
        return self._watch(self._pool.submit(think, view, level, budget_ms, seed, samples))

    def run(self, fn: Callable[..., T], *args: Any) -> cf.Future[T]:
        """A Future of ``fn(*args)`` computed in the pool (a module-level function of
        plain data, such as ``engine.bots.review.review_part``)."""
        try:
            return self._watch(self._pool.submit(fn, *args))
        except BrokenProcessPool:
            self._broken = True
            raise

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def __enter__(self) -> BotPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
