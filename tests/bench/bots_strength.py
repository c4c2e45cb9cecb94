"""Computer-player strength by duplicate deals (issue 5). A script that prints figures.

Estimation (committee scoring): every deal is played with the tested level in each of
the four seats against the same three opponents, and again with ``easy`` in that seat;
the difference is the tested level's points per round over ``easy`` in the same seat,
so the luck of the cards cancels. The deal is round 1 of a 13-round match (an auction
round, scores level). Tarneeb 41: whole matches, the tested pair against an ``easy``
pair, each seed played twice with the teams swapped.

Run:  .venv/bin/python tests/bench/bots_strength.py --deals 2000 --budget 100 --jobs 2
      (--only est-easy,est-strong,tarneeb  --matches 400  --tarneeb-budget 100)
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from multiprocessing import Pool

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))

from engine import bots, new_match


def _deal(seed: int):
    rng = random.Random(seed)
    deck = [r + s for r in "AKQJT98765432" for s in "SHDC"]
    rng.shuffle(deck)
    return [deck[i::4] for i in range(4)]


def play_round(deal, levels, budget, seed, timed_seat=None):
    """One Estimation auction round; returns (history record, decision times of timed_seat)."""
    m = new_match("estimation", 13, deals=[deal])
    rng = random.Random(seed)
    times = []
    while not m.history:
        s = m.to_act
        v = m.view(s)
        t = time.perf_counter()
        a = bots.choose(v, levels[s], budget_ms=budget, rng=rng)
        if s == timed_seat or timed_seat == "all":
            times.append(time.perf_counter() - t)
        m.apply(s, a)
    return m.history[0], times


def est_deal(args):
    """One duplicate deal: the tested level in each seat vs ``opp``; ``easy`` as baseline."""
    seed, tested, opp, budget = args
    deal = _deal(seed)
    out = []
    cache = {}
    for seat in range(4):
        test_levels = [opp] * 4
        test_levels[seat] = tested
        base_levels = [opp] * 4
        base_levels[seat] = "easy"
        if tested == opp:
            # Four players of one level: the same round serves every seat as the tested one.
            if "same" not in cache:
                cache["same"] = play_round(deal, test_levels, budget, seed * 10, timed_seat="all")
            rec, times = cache["same"][0], (cache["same"][1] if seat == 0 else [])
        else:
            rec, times = play_round(deal, test_levels, budget, seed * 10 + seat, timed_seat=seat)
        key = tuple(base_levels)
        if key not in cache or "strong" in key:
            cache[key] = play_round(deal, base_levels, budget, seed * 10 + seat + 5)[0]
        base = cache[key]
        out.append({
            "diff": rec["scores"][seat] - base["scores"][seat],
            "score": rec["scores"][seat], "base": base["scores"][seat],
            "made": rec["made"][seat], "base_made": base["made"][seat],
            "caller": rec["caller"] == seat and not rec["all_pass"],
            "base_caller": base["caller"] == seat and not base["all_pass"],
            "dash": seat in rec["dash_players"], "base_dash": seat in base["dash_players"],
            "times": times,
            "decl": rec["declarations"][seat], "taken": rec["tricks_taken"][seat],
            "sum": sum(rec["declarations"]),
        })
    return out


def tarneeb_match(args):
    seed, tested, budget, swap = args
    m = new_match("tarneeb41", seed=seed)
    rng = random.Random(seed)
    team = 1 if swap else 0
    levels = ["easy"] * 4
    levels[team] = levels[team + 2] = tested
    times = []
    while m.to_act is not None and len(m.history) < 200:
        s = m.to_act
        v = m.view(s)
        t = time.perf_counter()
        a = bots.choose(v, levels[s], budget_ms=budget, rng=rng)
        if levels[s] == tested:
            times.append(time.perf_counter() - t)
        m.apply(s, a)
    won = m.result is not None and team in m.result["winners"]
    return won, len([h for h in m.history if not h.get("void")]), times


def mean_ci(xs):
    n = len(xs)
    mu = statistics.fmean(xs)
    sd = statistics.stdev(xs) if n > 1 else 0.0
    return mu, 1.96 * sd / math.sqrt(n) if n else 0.0, n


def prop_ci(flags):
    n = len(flags)
    if not n:
        return float("nan"), 0.0, 0
    p = sum(flags) / n
    return 100 * p, 100 * 1.96 * math.sqrt(p * (1 - p) / n), n


def fmt(name, m):
    mu, ci, n = m
    return f"  {name:<38} {mu:8.2f} ± {ci:5.2f}   (n={n})"


def report_est(title, rows, per_deal):
    print(f"\n{title}")
    print(fmt("points per round over easy (same seat)", mean_ci(per_deal)))
    print(fmt("  tested points per round", mean_ci([r["score"] for r in rows])))
    print(fmt("  easy points per round, same seats", mean_ci([r["base"] for r in rows])))
    print(fmt("declarations made %", prop_ci([r["made"] for r in rows])))
    print(fmt("  easy in the same seats %", prop_ci([r["base_made"] for r in rows])))
    print(fmt("calls made %", prop_ci([r["made"] for r in rows if r["caller"]])))
    print(fmt("  easy calls made %", prop_ci([r["base_made"] for r in rows if r["base_caller"]])))
    print(fmt("dash calls made %", prop_ci([r["made"] for r in rows if r["dash"]])))
    print(fmt("  easy dash calls made %", prop_ci([r["base_made"] for r in rows if r["base_dash"]])))
    times = sorted(t for r in rows for t in r["times"])
    timing(times)


def timing(times):
    if not times:
        return
    ms = [1000 * t for t in times]
    print(f"  decision time ms: mean {statistics.fmean(ms):.1f}  p95 {ms[int(0.95 * (len(ms) - 1))]:.1f}"
          f"  max {ms[-1]:.1f}  (n={len(ms)} decisions, every phase)")


def progress(results, n, t0, dump=None, run=""):
    """Collect results, printing the running figure every 50 deals (a long run shows its
    trend, and a run cut short still says something). With ``dump`` (an open file) every
    deal is written at once as one JSON line, so separate or interrupted runs can be
    pooled afterwards with --report."""
    out = []
    for d in results:
        out.append(d)
        if dump is not None:
            dump.write(json.dumps({"run": run, "deal": len(out) - 1, "seats": d}) + "\n")
            dump.flush()
        if len(out) % 50 == 0 and len(out) < n:
            mu, ci, _ = mean_ci([statistics.fmean(x["diff"] for x in d) for d in out])
            made = prop_ci([r["made"] for d in out for r in d])
            print(f"  … {len(out)}/{n} deals, {time.time() - t0:.0f} s: {mu:+.2f} ± {ci:.2f} pts/round, "
                  f"made {made[0]:.1f}%", flush=True)
    return out


def report_files(paths):
    """Pool the deals dumped by one or more runs (deduplicated by run and deal)."""
    seen = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                rec = json.loads(line)
                seen[(rec["run"], rec["deal"])] = rec["seats"]
    by_run = {}
    for (run, _), d in seen.items():
        by_run.setdefault(run, []).append(d)
    groups = sorted(by_run.items())
    if len(groups) > 1:     # e.g. the same level and budget on other seeds: one sample
        groups.append((" + ".join(by_run), [d for res in by_run.values() for d in res]))
    for run, res in groups:
        rows = [r for d in res for r in d]
        per = [statistics.fmean(x["diff"] for x in d) for d in res]
        report_est(f"{run}: {len(res)} duplicate deals from {len(paths)} file(s)", rows, per)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--strong-deals", type=int, default=None,
                    help="deals for strong vs three strong (default: --deals)")
    ap.add_argument("--matches", type=int, default=100, help="Tarneeb seeds (each played twice)")
    ap.add_argument("--budget", type=float, default=100)
    ap.add_argument("--tarneeb-budget", type=float, default=None)
    ap.add_argument("--level", default="strong")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="est-easy,est-strong,tarneeb")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dump", default=None,
                    help="append every Estimation deal as a JSON line to this file")
    ap.add_argument("--report", nargs="+", default=None, metavar="DUMP",
                    help="print the figures pooled from dump files, play nothing")
    a = ap.parse_args()
    if a.report:
        report_files(a.report)
        return
    only = a.only.split(",")
    dump = open(a.dump, "a") if a.dump else None
    print(f"level {a.level}, budget {a.budget:g} ms, {a.jobs} worker processes")
    with Pool(a.jobs) as pool:
        if "est-easy" in only:
            t = time.time()
            jobs = [(a.seed * 1_000_000 + i, a.level, "easy", a.budget) for i in range(a.deals)]
            res = progress(pool.imap(est_deal, jobs, chunksize=4), len(jobs), t, dump,
                           f"Estimation, {a.level} vs three easy, {a.budget:g} ms, seed {a.seed}")
            rows = [r for d in res for r in d]
            per = [statistics.fmean(x["diff"] for x in d) for d in res]
            report_est(f"Estimation, {a.level} vs three easy: {a.deals} duplicate deals "
                       f"({time.time() - t:.0f} s)", rows, per)
        if "est-strong" in only:
            t = time.time()
            n = a.strong_deals or a.deals
            jobs = [(a.seed * 1_000_000 + 500_000 + i, a.level, a.level, a.budget) for i in range(n)]
            res = progress(pool.imap(est_deal, jobs, chunksize=2), len(jobs), t, dump,
                           f"Estimation, {a.level} vs three {a.level}, {a.budget:g} ms, seed {a.seed}")
            rows = [r for d in res for r in d]
            per = [statistics.fmean(x["diff"] for x in d) for d in res]
            report_est(f"Estimation, {a.level} vs three {a.level}: {n} duplicate deals "
                       f"({time.time() - t:.0f} s)", rows, per)
        if "tarneeb" in only:
            t = time.time()
            tb = a.tarneeb_budget or a.budget
            jobs = [(a.seed * 1_000_000 + 900_000 + i, a.level, tb, swap)
                    for i in range(a.matches) for swap in (False, True)]
            res = pool.map(tarneeb_match, jobs, chunksize=2)
            print(f"\nTarneeb 41, {a.level} pair vs easy pair: {len(res)} matches "
                  f"({a.matches} seeds × both sides, budget {tb:g} ms, {time.time() - t:.0f} s)")
            print(fmt("matches won %", prop_ci([w for w, _, _ in res])))
            print(fmt("hands per match", mean_ci([h for _, h, _ in res])))
            timing(sorted(x for _, _, ts in res for x in ts))


if __name__ == "__main__":
    main()
