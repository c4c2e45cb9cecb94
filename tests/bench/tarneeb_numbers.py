"""What a Tarneeb 41 declaration is worth to the ``strong`` player (issue 46). Prints
figures; ``--dump`` writes the logged hands the declaration's estimator is fitted on.

Whole matches of a tested pair (``--level``, default strong) against a pair of
``--against`` (default easy), deals from ``--seed``; for every hand, each seat's hand
count (``evaluate.expected_tricks`` with the trump), its place in the order, the
declarations, the tricks taken, and whether the hand was void (T-13). The report: how
often the tested pair voids hands, its mean declaration and made rate, and the made rate
by the declaration less the count (what the estimator's mean and spread come from).

Run:  .venv/bin/python tests/bench/tarneeb_numbers.py --matches 20 --samples 30 --seed 7 \
          --dump /tmp/tar.jsonl
      .venv/bin/python tests/bench/tarneeb_numbers.py --report /tmp/tar.jsonl
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine import bots, new_match
from engine.bots import bidding, styles
from engine.bots.cards import SUIT_INDEX, mask
from engine.bots.evaluate import expected_tricks


def play(args):
    """One match; ``tested`` "strong-old" is ``strong`` with its declarations as before
    issue 46 (``bidding.TARNEEB_EV`` off), for a before/after paired by seed and side."""
    seed, tested, against, budget, side = args
    bidding.TARNEEB_EV = tested != "strong-old"
    names = [against] * 4
    names[side] = names[side + 2] = tested.removesuffix("-old")
    m = new_match("tarneeb41", seed=seed)
    pols = [styles.policy(n, budget) for n in names]
    rngs = [random.Random(seed * 8 + s) for s in range(4)]
    hands = []
    counts: list[float | None] = [None] * 4
    order: list[int] = []
    while m.to_act is not None and len(m.history) < 200:
        s = m.to_act
        v = m.view(s)
        if v["phase"] == "declare":
            if all(d is None for d in v["declarations"]):
                order = []
            order.append(s)
            counts[s] = expected_tricks(mask(v["hand"]), SUIT_INDEX[v["trump"]])
        a = pols[s](v, rngs[s])
        n_hist = len(m.history)
        m.apply(s, a)
        if len(m.history) > n_hist:
            h = m.history[-1]
            hands.append({"void": h["void"], "decl": list(h["declarations"]),
                          "taken": h.get("tricks_taken"), "count": list(counts),
                          "order": list(order), "tested": [side, side + 2],
                          "totals": h.get("totals")})
    won = m.result is not None and side in m.result["winners"]
    tt = m.team_totals()
    return {"seed": seed, "side": side, "tested": tested, "against": against,
            "won": won, "hands": hands, "margin": tt[side] - tt[1 - side]}


def mean_ci(xs):
    n = len(xs)
    if n < 2:
        return (xs[0] if xs else float("nan")), 0.0, n
    return statistics.fmean(xs), 1.96 * statistics.stdev(xs) / math.sqrt(n), n


def paired(matches, after, before):
    """``after`` less ``before`` on the same seeds and sides: matches won (points of %),
    and the team's margin over the other team a scored hand."""
    key = {(mt["tested"], mt["against"], mt["seed"], mt["side"]): mt for mt in matches}
    won, margin = [], []
    for (t, ag, seed, side), mt in key.items():
        b = key.get((before, ag, seed, side))
        if t != after or b is None:
            continue
        won.append(100 * (mt["won"] - b["won"]))

        def per_hand(x):
            return x.get("margin", 0) / max(1, sum(not h["void"] for h in x["hands"]))
        margin.append(per_hand(mt) - per_hand(b))
    if won:
        w, m = mean_ci(won), mean_ci(margin)
        print(f"{after} − {before}, paired over {w[2]} matches: won {w[0]:+.1f} ± {w[1]:.1f} "
              f"pts of %, team margin a scored hand {m[0]:+.2f} ± {m[1]:.2f}")


def report(matches):
    by: dict[tuple[str, str], list[dict]] = {}
    for mt in matches:
        by.setdefault((mt["tested"], mt["against"]), []).append(mt)
    for (tested, against), ms in sorted(by.items()):
        voids = [sum(h["void"] for h in mt["hands"]) for mt in ms]
        scored = [sum(not h["void"] for h in mt["hands"]) for mt in ms]
        decl, made, opp = [], [], []
        for mt in ms:
            for h in mt["hands"]:
                if h["void"]:
                    continue
                for s in range(4):
                    if s in h["tested"]:
                        decl.append(h["decl"][s])
                        made.append(h["taken"][s] >= h["decl"][s])
                    else:
                        opp.append(h["decl"][s])
        margins = [mt.get("margin", 0) / max(1, n) for mt, n in zip(ms, scored, strict=True)]
        print(f"{tested} pair against {against}: {len(ms)} matches, won "
              f"{100 * statistics.fmean(mt['won'] for mt in ms):.1f} %, void hands a match "
              f"{statistics.fmean(voids):.2f} (total {sum(voids)}), scored hands a match "
              f"{statistics.fmean(scored):.1f}, declared {statistics.fmean(decl):.2f} "
              f"(opponents {statistics.fmean(opp):.2f}), made "
              f"{100 * statistics.fmean(made):.1f} %, margin a scored hand "
              f"{statistics.fmean(margins):+.2f}")
        # Made rate by the declaration less the count: the estimator's calibration.
        rows: dict[int, list[bool]] = {}
        tk: list[float] = []
        for mt in ms:
            for h in mt["hands"]:
                if h["void"]:
                    continue
                for s in h["tested"]:
                    c = h["count"][s]
                    rows.setdefault(round(h["decl"][s] - c), []).append(
                        h["taken"][s] >= h["decl"][s])
                    tk.append(h["taken"][s] - c)
        print(f"  taken − count {statistics.fmean(tk):+.2f} sd {statistics.pstdev(tk):.2f}; "
              "made by declared − count: " + ", ".join(
                  f"{k:+d}: {100 * statistics.fmean(v):.0f} % ({len(v)})"
                  for k, v in sorted(rows.items())))


def _pts(h, s):
    return h["decl"][s] if h["taken"][s] >= h["decl"][s] else -h["decl"][s]


def fit(matches):
    """The declaration estimator's constants (``bidding.TAR_*``) from logged hands of the
    tested pair: the made rate as a logistic curve of the declaration less the count, the
    rest of the table's points (partner less opponents) as a line in the count, and the
    distribution of a declaration still to come (any seat)."""
    xs, ys, cs, rest, later = [], [], [], [], []
    for mt in matches:
        for h in mt["hands"]:
            for s in range(4):
                later.append(h["decl"][s])
            if h["void"]:
                continue
            for s in h["tested"]:
                c = h["count"][s]
                xs.append(h["decl"][s] - c)
                ys.append(h["taken"][s] >= h["decl"][s])
                cs.append(c)
                rest.append(_pts(h, s ^ 2) - _pts(h, s ^ 1) - _pts(h, s ^ 3))
    # Logistic regression by Newton's method: P(made) = 1 / (1 + exp(-(a + b x))).
    a, b = 0.0, 0.0
    for _ in range(50):
        ga = gb = haa = hab = hbb = 0.0
        for x, y in zip(xs, ys, strict=True):
            p = 1 / (1 + math.exp(-(a + b * x)))
            ga += y - p
            gb += (y - p) * x
            w = p * (1 - p)
            haa += w
            hab += w * x
            hbb += w * x * x
        det = haa * hbb - hab * hab
        a += (hbb * ga - hab * gb) / det
        b += (haa * gb - hab * ga) / det
    mc, mr = statistics.fmean(cs), statistics.fmean(rest)
    r1 = (sum((c - mc) * (r - mr) for c, r in zip(cs, rest, strict=True))
          / sum((c - mc) ** 2 for c in cs))
    r0 = mr - r1 * mc
    dist = [later.count(k) / len(later) for k in range(2, 8)]
    print(f"fit over {len(xs)} declarations: TAR_MADE = ({a:.3f}, {b:.3f}); "
          f"TAR_REST = ({r0:.3f}, {r1:.3f}); TAR_LATER = "
          f"({', '.join(f'{p:.3f}' for p in dist)})  # declarations 2..7")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=20, help="deal seeds (each from both sides)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--level", default="strong")
    ap.add_argument("--against", default="easy")
    ap.add_argument("--budget", type=float, default=100)
    ap.add_argument("--samples", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--old", action="store_true",
                    help="also strong-old (declarations as before issue 46), paired")
    ap.add_argument("--dump", default=None)
    ap.add_argument("--report", nargs="+", default=None)
    ap.add_argument("--fit", action="store_true", help="with --report: the estimator's "
                    "constants from the tested pair's hands")
    a = ap.parse_args()
    if a.report:
        ms = [json.loads(line) for p in a.report for line in open(p)]
        report(ms)
        paired(ms, "strong", "strong-old")
        paired(ms, "strong", "easy")
        if a.fit:
            fit([mt for mt in ms if mt["tested"] == "strong"])
        return
    bots.SAMPLES = a.samples
    levels = [a.level, "easy"] + (["strong-old"] if a.old else [])
    jobs = [(a.seed * 1_000_000 + i * 7 + 3, lvl, a.against, a.budget, side)
            for i in range(a.matches) for side in (0, 1) for lvl in levels]
    t0 = time.time()
    out = []
    dump = open(a.dump, "a") if a.dump else None

    def take(r):
        out.append(r)
        if dump:
            dump.write(json.dumps(r) + "\n")
            dump.flush()

    if a.jobs > 1:
        with Pool(a.jobs, initializer=_init, initargs=(a.samples,)) as pool:
            for r in pool.imap_unordered(play, jobs):
                take(r)
    else:
        for j in jobs:
            take(play(j))
    print(f"{len(out)} matches, {time.time() - t0:.0f} s")
    report(out)
    paired(out, "strong", "strong-old")
    paired(out, "strong", "easy")


def _init(samples):
    bots.SAMPLES = samples


if __name__ == "__main__":
    main()
