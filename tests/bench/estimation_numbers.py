"""What an Estimation declaration is worth to the ``strong`` player (issue 46): logs its
declarations and fits the fast estimator its declaration is chosen by. Prints figures;
``--dump`` writes the logged declarations, ``--fit`` fits the constants from them.

Short matches of stacked deals (as ``bots_styles.py``: 4 rounds a unit, ``strong`` in
each seat in turn, a style in the other three), deals and streams from ``--seed``. For
every declaration of the ``strong`` seat: its hand count with the trump
(``bidding.mean_tricks``), the table's shift (``model.trick_shift``), what the others
declared before it, how many are still to declare, its role (caller, With, last
declarer), the number, the tricks it took. With ``--explore P`` the seat declares a
legal number one off its choice with chance P (it then plays to that number as to any
other), so the fit sees the made rate a trick above and below the count and not only
where the choice falls.

The fit (``--fit``, pure Python): the chance the number is made as a logistic curve of
the number less the count (and its square), a zero declaration, and the table's
projected total less 13 — ``strong`` plays its cards to its number, so it makes more a
trick off its count than a normal spread around the count says; and the tricks of a
missed number as a normal spread around the count (its mean offset and sd). The printed
constants go into ``engine/bots/bidding.py`` (``EST_MADE``, ``EST_MISS``).

The constants in ``bidding.py`` are the fit of ``data/estimation_declarations_seed7.jsonl.gz``
(2,264 declarations, made by the first command below in 14 minutes on 2 cores; a test
fits it again and compares).

Run:  .venv/bin/python tests/bench/estimation_numbers.py --units 40 --samples 50 --seed 7 \\
          --jobs 2 --explore 0.3 --dump /tmp/est.jsonl
      .venv/bin/python tests/bench/estimation_numbers.py --fit /tmp/est.jsonl
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bots_styles import _deals, _table  # the same units as bots_styles.py

from engine import bots, new_match
from engine.bots import bidding, model, styles
from engine.bots.cards import SUIT_INDEX, mask

STYLES = ("greedy", "over", "cautious", "under", "easy", "normal")


def _features(v) -> dict:
    """What the estimator may read at a declaration: the hand count, the table's shift,
    the others' declarations so far, the seats to come, the role."""
    seat = v["seat"]
    code = v["trump"] or v.get("fixed_trump")
    trump = SUIT_INDEX[code] if code is not None else None
    count = bidding.mean_tricks(mask(v["hand"]), trump, "strong")
    shift = model.trick_shift(v) if bots.reads_table(v) else 0.0
    decl = v["declarations"]
    known = sum(d for s, d in enumerate(decl) if d is not None and s != seat)
    after = max(0, len(v.get("declaration_order") or []) - 1)
    contract = v.get("call")
    return {"count": count, "shift": shift, "known": known, "after": after,
            "call_n": contract["n"] if contract else None,
            "with": seat in (v.get("with_players") or []),
            "last": v.get("last_declarer") == seat and after <= 0,
            "all_pass": bool(v.get("all_pass")), "kind": v["kind"],
            "legal": [a["n"] for a in v["legal"] if a["type"] == "declare"]}


def unit(args):
    seed, style, game, rounds, explore = args
    length = 13 if game == "estimation" else "mini"
    deals = _deals(seed, rounds)
    out = []
    for seat in range(4):
        names = _table(style, seat, "strong")
        m = new_match(game, length, deals=deals)
        pols = [styles.policy(n, 100) for n in names]
        rngs = [random.Random(seed * 8 + s) for s in range(4)]
        pick = random.Random(seed * 8 + 100 + seat)
        rows = {}
        while m.to_act is not None and len(m.history) < rounds:
            s = m.to_act
            v = m.view(s)
            a = pols[s](v, rngs[s])
            if s == seat and v["phase"] == "declare" and a["type"] == "declare":
                f = _features(v)
                f["chosen"] = a["n"]
                if explore and pick.random() < explore:
                    near = [n for n in (a["n"] - 1, a["n"] + 1) if n in f["legal"]]
                    if near:
                        a = {"type": "declare", "n": pick.choice(near)}
                f["n"] = a["n"]
                rows[len(m.history)] = f
            m.apply(s, a)
        for i, f in rows.items():
            if i >= len(m.history):
                continue
            h = m.history[i]
            if seat in h.get("dash_players", ()):
                continue
            f["taken"] = h["tricks_taken"][seat]
            f["made"] = h["made"][seat]
            f["score"] = h["scores"][seat]
            f["caller"] = h["caller"] == seat and not h["all_pass"]
            f["total"] = sum(h["declarations"])
            out.append(f)
    return {"game": game, "style": style, "seed": seed, "rows": out}


# ---- the fit ------------------------------------------------------------------------

def _logistic(xs: list[list[float]], ys: list[int], ridge: float = 1e-3) -> list[float]:
    """Newton's method for a logistic regression (a few inputs: no library needed)."""
    k = len(xs[0])
    w = [0.0] * k
    for _ in range(30):
        g = [0.0] * k
        h = [[ridge if i == j else 0.0 for j in range(k)] for i in range(k)]
        for x, y in zip(xs, ys, strict=True):
            z = sum(a * b for a, b in zip(w, x, strict=True))
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            for i in range(k):
                g[i] += (y - p) * x[i]
                for j in range(k):
                    h[i][j] += p * (1 - p) * x[i] * x[j]
        step = _solve(h, g)
        w = [a + b for a, b in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 1e-8:
            break
    return w


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[c][c]:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c], strict=True)]
    return [m[i][n] / m[i][i] if m[i][i] else 0.0 for i in range(n)]


def fit(rows: list[dict], show: bool = True) -> tuple[list[float], tuple[float, float]]:
    """The made curve's constants and a missed number's spread, printed (``show``) with
    the made rate by the number less the count beside the curve's."""
    xs, ys = [], []
    for f in rows:
        base = f["count"] + f["shift"]
        xs.append(bidding.est_made_x(f["n"] - base, f["n"],
                                     bidding.est_over(f["known"], f["n"], f["after"])))
        ys.append(1 if f["made"] else 0)
    w = _logistic(xs, ys)
    miss = [f["taken"] - (f["count"] + f["shift"]) for f in rows if not f["made"]]
    # (a log too small to hold two missed numbers says nothing of their spread)
    mu, sd = (statistics.fmean(miss), statistics.pstdev(miss)) if len(miss) > 1 else (0.0, 1.0)
    if not show:
        return w, (mu, sd)
    print(f"{len(rows)} declarations, made {100 * sum(ys) / len(ys):.1f} %, "
          f"explored {sum(1 for f in rows if f['n'] != f['chosen'])}")
    print(f"EST_MADE = ({', '.join(f'{x:.3f}' for x in w)})")
    print(f"EST_MISS = ({mu:.3f}, {sd:.3f})   # a missed number's tricks: count + mean, sd")
    # How well the curve reads the data: made rate by the number less the count.
    print("d = n - count   declarations   made   fitted")
    for lo in (-2.5, -1.5, -0.5, 0.5, 1.5):
        sel = [(x, y) for x, y in zip(xs, ys, strict=True) if lo <= x[1] < lo + 1]
        if not sel:
            continue
        fitted = statistics.fmean(
            1 / (1 + math.exp(-sum(a * b for a, b in zip(w, x, strict=True)))) for x, _ in sel)
        print(f"  [{lo:+.1f}, {lo + 1:+.1f})   {len(sel):6d}   "
              f"{100 * statistics.fmean(y for _, y in sel):5.1f} %   {100 * fitted:5.1f} %")
    return w, (mu, sd)


def load(path: str | Path) -> list[dict]:
    """The logged declarations of a dump (gzipped when its name ends in .gz)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as fh:
        return [r for line in fh for r in json.loads(line)["rows"]]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", default="estimation", choices=("estimation", "estimation-kotshina"))
    ap.add_argument("--styles", default=",".join(STYLES))
    ap.add_argument("--units", type=int, default=20, help="units a style")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--samples", type=int, default=50)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--explore", type=float, default=0.0)
    ap.add_argument("--dump", default=None)
    ap.add_argument("--fit", nargs="+", default=None, metavar="DUMP")
    a = ap.parse_args()
    if a.fit:
        fit([r for path in a.fit for r in load(path)])
        return
    bots.SAMPLES = a.samples
    jobs = [(a.seed * 1_000_000 + i * 7 + 3, style, a.game, a.rounds, a.explore)
            for i in range(a.units) for style in a.styles.split(",")]
    # A new file each run: a log appended to an old one would no longer be the seed's.
    dump = open(a.dump, "w") if a.dump else None
    t0 = time.time()
    rows: list[dict] = []
    try:
        with Pool(a.jobs, initializer=_init, initargs=(a.samples,)) as pool:
            for u in pool.imap_unordered(unit, jobs):
                rows.extend(u["rows"])
                if dump is not None:
                    dump.write(json.dumps(u) + "\n")
                    dump.flush()
    finally:
        if dump is not None:
            dump.close()
    print(f"{len(jobs)} units in {time.time() - t0:.0f} s")
    fit(rows)


def _init(samples: int) -> None:
    bots.SAMPLES = samples


if __name__ == "__main__":
    main()
