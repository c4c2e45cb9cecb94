"""A store's writer held at a gate: the store a ``TableStore``'s writer thread writes
through (``TableStore(store, writes=Gated(store.another(), gate))``), each of whose
writes waits for ``gate`` first, so that a test decides when a queued write lands
(everything queued behind it waits too: one writer, in order)."""

from __future__ import annotations

import threading

from server.store import Store


class Gated:
    """The writer's own Store; each write first waits for ``gate`` (on the writer's
    thread, never the event loop's), and an action in ``fail`` (match id, seq)
    raises instead of being written."""

    WRITES = ("create_match", "append_action", "set_seats", "finish_match", "abandon")

    def __init__(self, store: Store, gate: threading.Event):
        self.store = store
        self.gate = gate
        self.fail: set[tuple[int, int]] = set()     # (match id, seq) that raise

    def __getattr__(self, name):
        attr = getattr(self.store, name)
        if name not in self.WRITES:
            return attr

        def write(*args):
            assert self.gate.wait(10), "the gate was never opened"
            assert threading.current_thread() is not threading.main_thread()
            if name == "append_action" and (args[0], args[1]) in self.fail:
                raise RuntimeError("disk on fire")
            return attr(*args)
        return write
