"""Round reviews (issue 29): the time per round, and how often the review's suggested
choice is also the choice of a deeper search (four times the samples) on the same
decisions. A script that prints figures (docs/review.md).

Rounds: round 1 of matches of each game, seat 0 played by the ``normal`` computer
player (its choices are often not the strong player's, so there is something to
review), the others by ``normal`` too. Each round is reviewed with the defaults
(``engine.bots.review``: 128 to 512 samples per card, up to 256 for the other
decisions); the time is the whole ``review_round`` in one process.

The deeper search, on every decision that is not forced, on other samples (its own
seeds) and with the same model of the other players as the review:
- a card: every candidate card on four times the review's samples of that decision;
- any other decision: the review's suggestion (the strong player's choice, issue 46)
  and up to four legal actions next to it, on four times the samples: agreement there
  says how often the rollouts put the strong player's choice first.
Agreement is the share of decisions whose suggested action the deeper search also
chooses (a card touching the suggested one counts as the same); where they differ,
what the suggestion loses is measured by the deeper search (its choice's expected
points less the suggestion's, on its samples).

Run:  .venv/bin/python tests/bench/review_bench.py --rounds 12 --pool
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))

from engine import bots, new_match, replay
from engine.bots.montecarlo import Public, candidates, runs
from engine.bots.review import (
    Decision,
    _bid_row,
    _card_decision,
    _reading,
    _run_of,
    bid_candidates,
    review_part,
    review_round,
)
from engine.cards import CARD_INDEX

GAMES = ("estimation", "estimation-kotshina", "tarneeb41")


def a_round(game: str, seed: int):
    """A match of ``game`` played until a round whose cards were played has ended."""
    m = new_match(game, seed=seed)
    rng = random.Random(seed)
    while not m.history or sum(m.history[-1].get("tricks_taken") or [0]) != 13:
        s = m.to_act
        m.apply(s, bots.choose(m.view(s), "normal", rng=rng))
    return m


def same_card(v, a: str, b: str) -> bool:
    pub = Public(v)
    legal = [CARD_INDEX[x["card"]] for x in v["legal"]]
    reps = candidates(pub, legal)
    run = runs(pub, legal)
    return _run_of(run, reps, CARD_INDEX[a]) == _run_of(run, reps, CARD_INDEX[b])


def deeper(rec: dict, k: int, d: Decision) -> tuple[bool, float]:
    """Does a search on four times the samples choose the review's suggestion, and what
    does the suggestion lose against that search's choice by its own measure?"""
    at = replay({**rec, "log": rec["log"][:d.index]})
    v = at.view(0)
    n = 4 * max(d.samples, 1)
    if d.phase == "play":
        deep = Decision(d.index, d.phase, d.suggested, d.suggested)
        _card_decision(v, d.suggested, random.Random(d.index * 7919 + k), n, n, deep)
        lost = (deep.ev_suggested or 0.0) - (deep.ev_chosen or 0.0)
        return same_card(v, str(deep.suggested["card"]), str(d.suggested["card"])), lost
    # The review suggests the strong player's choice (issue 46); the deeper search
    # weighs it beside its neighbours and says which its rollouts put first.
    acts = bid_candidates(v["legal"], d.suggested)
    rng = random.Random(d.index * 7919 + k)
    sw = _reading(v)
    sums = [0.0] * len(acts)
    pub = Public(v)
    for _ in range(n):
        for i, x in enumerate(_bid_row(at, 0, acts, pub, rng, sw, at.rounds_done)):
            sums[i] += x
    best = max(range(len(acts)), key=lambda i: (sums[i], i == 0, -i))
    return best == 0, (sums[best] - sums[0]) / n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pool", action="store_true", help="also time a late round through "
                    "the worker pool, as the server computes it")
    args = ap.parse_args()
    times: list[float] = []
    agree = {"play": [0, 0], "other": [0, 0]}
    by_game = {g: [0, 0] for g in GAMES}         # agreement per game (all decisions)
    losses: list[float] = []
    marks: dict[str, int] = {}
    decisions = 0
    pieces: list[tuple[float, int, str, str]] = []
    for i in range(args.rounds):
        game = GAMES[i % len(GAMES)]
        m = a_round(game, args.seed * 1000 + i)
        rec = m.to_dict()
        k = len(m.history)
        t = time.perf_counter()
        r = review_round(rec, k, 0)
        times.append(time.perf_counter() - t)
        for d in r.decisions:
            if d.phase != "play" and not d.forced:
                # One piece as the worker pool runs it (a bid weighs up to six actions,
                # each bidding the round out: the longest pieces of a review).
                t = time.perf_counter()
                review_part(rec, k, 0, d.index)
                pieces.append((time.perf_counter() - t, d.samples, game, d.phase))
            decisions += 1
            if d.mark:
                marks[d.mark] = marks.get(d.mark, 0) + 1
            if d.forced:
                continue
            kind = "play" if d.phase == "play" else "other"
            agree[kind][1] += 1
            same, lost = deeper(rec, k, d)
            agree[kind][0] += same
            by_game[game][0] += same
            by_game[game][1] += 1
            if not same:
                losses.append(lost)
        print(f"round {i + 1:>2} {game:<20} {times[-1]:.2f} s  "
              f"{len(r.decisions)} decisions", flush=True)
    print()
    if not times:
        if args.pool:
            pool_time(args.seed)
        return
    print(f"rounds reviewed        {len(times)} ({decisions} decisions)")
    print(f"time per round         mean {statistics.mean(times):.2f} s, "
          f"max {max(times):.2f} s (one process)")
    for kind, (same, n) in agree.items():
        if n:
            print(f"agreement ({kind:<5})     {same}/{n} = {100 * same / n:.0f}% "
                  "with four times the samples")
    tot = sum(a[0] for a in agree.values()), sum(a[1] for a in agree.values())
    print(f"agreement (all)        {tot[0]}/{tot[1]} = {100 * tot[0] / max(1, tot[1]):.0f}%")
    for game, (same, n) in by_game.items():
        if n:
            print(f"  {game:<20} {same}/{n} = {100 * same / n:.0f}%")
    if losses:
        print(f"where they differ      the suggestion loses {statistics.mean(losses):.2f} "
              f"points on average by the deeper search's measure (median "
              f"{statistics.median(losses):.2f}, {sum(x < 1 for x in losses)}/{len(losses)} "
              "under 1 point)")
    print(f"marks                  {marks}")
    if pieces:
        took, n, game, phase = max(pieces)
        print(f"longest other piece    {took:.2f} s ({game} {phase}, {n} samples); mean "
              f"{statistics.mean(p[0] for p in pieces):.2f} s over {len(pieces)}")
    if args.pool:
        pool_time(args.seed)


def pool_time(seed: int) -> None:
    """The server's way: one decision per task in the bots' worker pool (each task
    replays the match to its decision), for a late round of an 18-round match."""
    import asyncio

    from engine.room import bots as room_bots
    from engine.room import reviews

    m = new_match("estimation", 18, seed=seed)
    rng = random.Random(seed)
    while len(m.history) < 10:
        s = m.to_act
        m.apply(s, bots.choose(m.view(s), "normal", rng=rng))
    rec = m.to_dict()

    async def run() -> float:
        await asyncio.wrap_future(room_bots.pool().run(len, rec["log"]))   # started, warm
        t = time.perf_counter()
        await reviews._compute(rec, 10, 0)
        return time.perf_counter() - t
    took = asyncio.run(run())
    room_bots.close_pool()
    print(f"through the worker pool  round 10 of 18: {took:.2f} s "
          f"({len(rec['log'])} actions in the log)")


if __name__ == "__main__":
    main()
