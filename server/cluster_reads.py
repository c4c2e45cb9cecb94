"""What the cluster reads back of other processes' writing (on its worker thread): a
table's last frame with the events stored after it, a dead driver's frame for a takeover,
the lobby's rows. Moved out of ``server/cluster.py`` (over its 900 lines)."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from engine.room.frames import Damaged, RowRead, merged
from engine.room.table import CHAT_KEEP

if TYPE_CHECKING:
    from .store import Store

log = logging.getLogger("lamma.cluster")

EVENTS_READ = 500       # events read at a time (engine.room.remote.EVENTS_READ)


def with_events(store: Store, tid: str, frame: dict[str, Any]) -> dict[str, Any]:
    """``frame`` (a table's last frame written, as read) with the events stored after
    it applied, in order (the driver writes a whole frame only every CHECKPOINT_EVERY
    events): as far as they are whole and follow on."""
    seq = frame.get("seq")
    if not isinstance(seq, int):
        return frame
    for got, _driver, _epoch, _kind, body in store.table_events(tid, seq, EVENTS_READ):
        if got != seq + 1:
            break
        try:
            frame = merged(frame, json.loads(body), CHAT_KEEP)
        except (Damaged, ValueError, TypeError, RecursionError) as e:
            log.error("table %s: its event %d is damaged (%s); its frame goes without it",
                      tid, got, str(e)[:200])
            break
        seq = got
    return frame


def frame_carried(store: Store, tid: str, text: str | None, age: float
                   ) -> dict[str, Any] | None:
    """A dead driver's last frame and the events after it, for the process taking its
    table over (its chat, narration and turn timer; ``ClusterSide.adopt`` checks the
    rest): None if there is none or it cannot be read (the match goes on without them:
    it is in the log). ``age``: seconds since the driver last wrote the table."""
    if not text:
        return None
    try:
        frame = json.loads(text)
        if not isinstance(frame, dict):
            raise ValueError("not an object")
        frame = with_events(store, tid, frame)
        if frame.get("deadline_in") is not None:
            # The turn's time left, less what passed since the frame was written.
            frame["deadline_in"] = float(frame["deadline_in"]) - age
    except (ValueError, TypeError, RecursionError) as e:
        log.error("table %s: its last frame is damaged (%s); taken over without it", tid,
                  str(e)[:200])
        return None
    return frame


def rows_read(rows: list[tuple[str, str, str, str, str | None, str | None]]
               ) -> list[RowRead]:
    out: list[RowRead] = []
    for tid, driver, row, holders, code, creator in rows:
        try:
            out.append({"id": tid, "driver": driver, "row": json.loads(row),
                        "holders": json.loads(holders), "code": code, "creator": creator})
        except (ValueError, RecursionError):
            # Said once where the rows are read (ClusterSide.damaged).
            out.append({"id": tid, "$damaged": "its row is not JSON"})
    return out
