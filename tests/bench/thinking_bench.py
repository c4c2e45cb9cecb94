"""The computer players' thinking under a flood (issue 40): decisions a second the pools
give on this machine, and each class's latency while the classes below it flood.

Scenarios, each on fresh pools (the room's: ``engine.room.bots``, WORKERS play workers and
one aside worker niced below them), with a live table's decision asked every ``--every``
seconds as a bystander table's computer player would be:

- ``baseline``: nothing else;
- ``hints``: ``--flooders`` people ask hints as fast as they can (each replacing their own
  waiting one, as the scheduler does);
- ``reviews``: as many people ask reviews' pieces, two at a time each;
- ``boards``: ``--flooders`` event boards decide back to back (seeded, 256 samples).

Printed: live decisions' p50/p95/max wait (ask → answer, what a table waits), how many
went past the room's 2 s deadline (the simple player would have moved), and the flood's
own throughput. Compare within one run.

Run:  .venv/bin/python tests/bench/thinking_bench.py --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine import new_match
from engine.bots.review import hint
from engine.bots.worker import think
from engine.room import bots, reviews
from engine.room.thinking import Busy, Work


def positions(n: int) -> list:
    """Estimation views mid-play (the costliest decisions: cards), and their records."""
    out = []
    seed = 1
    while len(out) < n:
        m = new_match("estimation", length=18, seed=seed)
        seed += 1
        while m.phase != "play" and m.result is None:
            s = m.to_act
            m.apply(s, m.auto_action(s))
        for _ in range(6):
            if m.phase != "play":
                break
            s = m.to_act
            m.apply(s, m.auto_action(s))
        if m.phase == "play":
            out.append((m.view(m.to_act), m.to_dict(), m.to_act))
    return out


async def scenario(name: str, seconds: float, every: float, flooders: int) -> dict:
    bots.close_pool()
    think_ = bots.scheduler()
    spots = positions(8)
    # warm both lanes
    await think_.submit(Work.LIVE, "warm", think, spots[0][0], "strong", bots.BUDGET_MS)
    if name in ("hints", "reviews"):
        await think_.submit(Work.HINT, "warm", hint, spots[0][1], spots[0][2], 8)
    waits: list[float] = []
    late = 0
    flood_done = 0
    busy = 0
    stop = time.monotonic() + seconds

    async def bystander() -> None:
        nonlocal late
        i = 0
        while time.monotonic() < stop:
            view = spots[i % len(spots)][0]
            i += 1
            asked = time.perf_counter()
            try:
                await asyncio.wait_for(think_.submit(Work.LIVE, "table 1", think, view,
                                                     "strong", bots.BUDGET_MS), 30)
            except TimeoutError:
                pass
            took = time.perf_counter() - asked
            waits.append(took)
            late += took > bots.DEADLINE_S
            await asyncio.sleep(every)

    async def flooder(k: int) -> None:
        nonlocal flood_done, busy
        j = 0
        while time.monotonic() < stop:
            _view, record, seat = spots[(k + j) % len(spots)]
            j += 1
            try:
                if name == "hints":
                    fut = think_.submit(Work.HINT, f"p{k}", hint, record, seat,
                                        reviews.SAMPLES["hint"], reviews.SAMPLES["min"],
                                        reviews.SAMPLES["max"])
                elif name == "reviews":
                    fut = think_.submit(Work.REVIEW, f"p{k}", hint, record, seat, 128)
                else:
                    fut = think_.submit(Work.BOARD, f"e{k}", think, _view, "strong",
                                        bots.BUDGET_MS, 1234 + j, 256)
            except Busy:
                busy += 1
                await asyncio.sleep(0.05)
                continue
            try:
                await fut
                flood_done += 1
            except Exception:
                pass
            if name == "hints":
                await asyncio.sleep(0.01)       # a held key: 100 a second

    tasks = [asyncio.ensure_future(bystander())]
    if name != "baseline":
        tasks += [asyncio.ensure_future(flooder(k)) for k in range(flooders)]
    await asyncio.gather(*tasks, return_exceptions=True)
    waits.sort()
    return {"scenario": name, "live": len(waits),
            "p50_ms": round(1000 * statistics.median(waits)),
            "p95_ms": round(1000 * waits[int(0.95 * (len(waits) - 1))]),
            "max_ms": round(1000 * waits[-1]), "past_deadline": late,
            "flood_done": flood_done, "flood_busy": busy}


async def throughput(seconds: float) -> float:
    """Live decisions a second the play lane gives when asked back to back."""
    bots.close_pool()
    think_ = bots.scheduler()
    spots = positions(8)
    await think_.submit(Work.LIVE, "warm", think, spots[0][0], "strong", bots.BUDGET_MS)
    done = 0
    stop = time.monotonic() + seconds

    async def one(k: int) -> None:
        nonlocal done
        i = k
        while time.monotonic() < stop:
            await think_.submit(Work.LIVE, f"t{k}", think, spots[i % 8][0], "strong",
                                bots.BUDGET_MS)
            i += 1
            done += 1
    await asyncio.gather(*(one(k) for k in range(8)))
    return done / seconds


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--every", type=float, default=0.3)
    ap.add_argument("--flooders", type=int, default=8)
    args = ap.parse_args()
    print(f"play workers: {bots.WORKERS}; boards: 1 (nice {bots.BOARD_NICE}); "
          f"aside: 1 (nice {bots.ASIDE_NICE})")
    print(f"decisions a second (strong, {bots.BUDGET_MS} ms budget, back to back): "
          f"{await throughput(args.seconds / 2):.1f}")
    for name in ("baseline", "hints", "reviews", "boards", "baseline"):
        row = await scenario(name, args.seconds, args.every, args.flooders)
        print("  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    bots.close_pool()


if __name__ == "__main__":
    asyncio.run(main())
