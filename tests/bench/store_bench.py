"""How fast the store commits on SQLite and on PostgreSQL, on this machine.

Prints figures; asserts nothing. Every append_action is its own committed
transaction (a move is durable before anyone sees it), so commits per second
bound the moves per second one process can take, whatever the tables.

    .venv/bin/python tests/bench/store_bench.py [--actions 3000] [--matches 40]

SQLite: WAL, synchronous=NORMAL (as the server runs it). PostgreSQL: a throwaway
server from tests/test_store_postgres.py with its default, durable settings
(fsync on, synchronous_commit on), reached over a Unix socket; then the same with
synchronous_commit=off set in the URL, the nearer match to SQLite's NORMAL.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent)]

from stacked import random_match  # noqa: E402

from engine.room.store import finished, people_throughout  # noqa: E402
from server.store import Store  # noqa: E402


def finish(store, mid, m):
    """``m`` recorded as finished, paid as the rules say for the stored seats."""
    return store.finish_match(mid, finished(m, people_throughout(store.match(mid))))



def bench(store: Store, actions: int, matches: int) -> dict:
    m = random_match("estimation", 18, seed=1)
    log = m.log
    for name in ("ana", "ben", "cat", "dee"):
        store.bind(name, "fp-" + name)
    out = {}
    # append_action: one commit each, the server's hot path.
    lat = []
    t0 = time.perf_counter()
    done = 0
    while done < actions:
        mid = store.create_match("b", {**m.to_dict(), "log": []}, ["ana", "ben", "cat", "dee"], {})
        for seq, (seat, action) in enumerate(log):
            if done >= actions:
                break
            t = time.perf_counter()
            store.append_action(mid, seq, seat, action)
            lat.append(time.perf_counter() - t)
            done += 1
    out["append_action commits/s"] = done / (time.perf_counter() - t0)
    lat.sort()
    out["append_action median / p99 ms"] = (1000 * statistics.median(lat),
                                            1000 * lat[int(0.99 * len(lat))])
    # finish_match: one transaction with statistics, points and badges for four players.
    whole = random_match("estimation", 13, seed=2)
    ids = []
    for _ in range(matches):
        mid = store.create_match("f", {**whole.to_dict(), "log": []},
                                 ["ana", "ben", "cat", "dee"], {})
        ids.append(mid)
    t0 = time.perf_counter()
    for mid in ids:
        finish(store, mid, whole)
    out["finish_match per s"] = matches / (time.perf_counter() - t0)
    # Restart: load every unfinished match with its actions.
    t0 = time.perf_counter()
    n = len(store.unfinished())
    out[f"restart: unfinished() {n} matches/{done} actions, ms"] = 1000 * (time.perf_counter() - t0)
    return out


def show(title: str, figures: dict) -> None:
    print(title)
    for k, v in figures.items():
        text = " / ".join(f"{x:,.2f}" for x in v) if isinstance(v, tuple) else f"{v:,.0f}"
        print(f"  {k:46} {text}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--actions", type=int, default=3000)
    ap.add_argument("--matches", type=int, default=40)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        s = Store(Path(tmp) / "lamma.db")
        show("SQLite (WAL, synchronous=NORMAL)", bench(s, args.actions, args.matches))
        s.close()
    from pg import throwaway_postgres, why_not

    reason = why_not()
    if reason:
        print(f"PostgreSQL: skipped ({reason})")
        return
    with throwaway_postgres(durable=True) as (url, admin):
        admin.execute("CREATE DATABASE bench")
        s = Store(url.format(db="bench"))
        show("PostgreSQL (fsync on, synchronous_commit on, Unix socket)",
             bench(s, args.actions, args.matches))
        s.close()
        # As SQLite's NORMAL: a commit survives a killed Lamma process at once, and
        # PostgreSQL's own crash could lose its last fraction of a second. A URL
        # setting: ...?options=-c%20synchronous_commit%3Doff
        admin.execute("CREATE DATABASE bench2")
        s = Store(url.format(db="bench2") + "&options=-c%20synchronous_commit%3Doff")
        assert s.db.execute("SHOW synchronous_commit").fetchone()[0] == "off"
        show("PostgreSQL, synchronous_commit=off in the URL",
             bench(s, args.actions, args.matches))
        s.close()


if __name__ == "__main__":
    main()
