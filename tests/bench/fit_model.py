"""Fit the opponent model's tables (``engine/bots/model_table.py``) to the pool of styles.

Plays matches whose seats are drawn from the pool the benchmark plays against (the
styles of ``engine.bots.styles`` and our levels, ``strong`` at a small budget), records
every public event of every seat with the style model it was really played by, and
writes:

- the prior: each model's share of the seats in the benchmark's pool;
- per event key ("context|outcome"), log P(outcome | context, model), add-one smoothed
  within each context (a half count added), play events counted as a view shows them
  after each trick of the round, each such view weighing one;
- per model, the tricks ``strong`` takes more than its own count per seat of that
  style (``--shifts``: strong's rounds against each style, our levels the reference);
- the two tempering exponents (play events, round events), chosen by the log loss of
  the true model on matches not used for counting, at checkpoints through each round
  (before it, after the declarations, after tricks 3, 6, 9 and 12).

Seeds here are the fitting's own (not the benchmark's).

Run:  .venv/bin/python tests/bench/fit_model.py --matches 600 --write
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine import new_match
from engine.bots import model, styles

ROOT = Path(__file__).resolve().parents[2]

LABEL = {"easy": "num", "normal": "num", "strong": "num", "greedy": "greedy",
         "cautious": "cautious", "over": "over", "under": "under", "dash": "dash",
         "random": "random"}
# The benchmark's pool, counted in opponent seats (bots_styles.py: a style's table has
# three seats of it; mixed1 = greedy, cautious, easy; mixed2 = over, under, strong).
POOL_EST = {"greedy": 4, "cautious": 4, "over": 4, "under": 4, "dash": 3, "random": 3,
            "easy": 4, "normal": 3, "strong": 4}
# Tarneeb: a style's two tables (pair, partner) put it in two or three seats: equal.
POOL_TAR = {"greedy": 1, "cautious": 1, "over": 1, "under": 1, "dash": 1, "random": 1,
            "easy": 1, "normal": 1, "strong": 1}
CHECKS = (0, 1, 3, 6, 9, 12)     # checkpoints: before the round, declared, after trick n


def prior(pool):
    tot = sum(pool.values())
    p = defaultdict(float)
    for name, n in pool.items():
        p[LABEL[name]] += n / tot
    return [p[name] for name in model.NAMES]


def simulate(game, length, rounds, seed, pool, strong_budget):
    """One match; per round, per seat: (label, round events, play events by trick)."""
    rng = random.Random(seed)
    names = rng.choices(list(pool), weights=list(pool.values()), k=4)
    pols = [styles.policy(n, strong_budget) for n in names]
    rngs = [random.Random(seed * 4 + s) for s in range(4)]
    m = new_match(game, length, seed=seed)
    while m.to_act is not None and len(m.history) < rounds:
        s = m.to_act
        m.apply(s, pols[s](m.view(s), rngs[s]))
    out = []
    for h in m.history:
        if h.get("void"):
            ev = list(model.round_events(game, "hand", h["declarations"], None, [], None))
            out.append((names, ev, [], []))
            continue
        kind = h.get("kind")
        decl_ev = list(model.round_events(game, kind, h["declarations"], h.get("caller")
                                          if not h.get("all_pass") else None,
                                          h.get("dash_players") or [], None))
        full_ev = list(model.round_events(game, kind, h["declarations"], h.get("caller")
                                          if not h.get("all_pass") else None,
                                          h.get("dash_players") or [], h["tricks_taken"]))
        trump = -1 if h["trump"] in (None, "NT") else "SHDC".index(h["trump"])
        # The play events as a view after k tricks shows them (what a seat learns of a
        # card depends on the cards played after it).
        by_trick = [list(model.play_events(game, trump, h["declarations"], h["tricks"][:k], []))
                    for k in range(len(h["tricks"]) + 1)]
        out.append((names, decl_ev, by_trick, full_ev))
    return out


def run_matches(game, length, rounds, seeds, pool, strong_budget):
    data = []
    for seed in seeds:
        data.append(simulate(game, length, rounds, seed, pool, strong_budget))
    return data


def count(data):
    counts = defaultdict(lambda: defaultdict(lambda: [0.0] * model.K))
    for match in data:
        for names, _decl_ev, by_trick, full_ev in match:
            # Play events counted as seen at every point of the round, each point once.
            w = 1.0 / max(1, len(by_trick) - 1)
            weighted = [(e, 1.0) for e in full_ev] + [(e, w) for t in by_trick[1:] for e in t]
            for (s, key), x in weighted:
                ctx, out = key.split("|")
                counts[ctx][out][model.NAMES.index(LABEL[names[s]])] += x
    table = {}
    for ctx, outs in counts.items():
        tot = [sum(outs[o][k] for o in outs) for k in range(model.K)]
        n_out = len(outs) + (1 if len(outs) == 1 else 0)
        for o, row in outs.items():
            table[f"{ctx}|{o}"] = tuple(
                round(math.log((row[k] + 0.5) / (tot[k] + 0.5 * n_out)), 4)
                for k in range(model.K))
    return table


def log_loss(data, table, pri, a_play, a_round, detail=None):
    """Mean −log posterior of the true model at the checkpoints (``detail``: a dict to
    fill with the posterior of the true model by round and checkpoint)."""
    lp0 = [math.log(p) for p in pri]
    tot = 0.0
    n = 0
    for match in data:
        hist = [list(lp0) for _ in range(4)]        # evidence of finished rounds
        for r, (names, decl_ev, by_trick, full_ev) in enumerate(match):
            for chk in CHECKS:
                cur = [list(x) for x in hist]
                if chk >= 1:
                    for s, key in decl_ev:
                        row = table.get(key)
                        if row:
                            for k in range(model.K):
                                cur[s][k] += a_round * row[k]
                if by_trick and chk >= 1:
                    for s, key in by_trick[min(chk, len(by_trick) - 1)]:
                        row = table.get(key)
                        if row:
                            for k in range(model.K):
                                cur[s][k] += a_play * row[k]
                for s in range(4):
                    top = max(cur[s])
                    z = math.log(sum(math.exp(x - top) for x in cur[s])) + top
                    truth = model.NAMES.index(LABEL[names[s]])
                    tot += z - cur[s][truth]
                    n += 1
                    if detail is not None:
                        detail.setdefault((min(r, 2), chk, LABEL[names[s]]), []).append(
                            math.exp(cur[s][truth] - z))
            for s, key in full_ev:
                row = table.get(key)
                if row:
                    for k in range(model.K):
                        hist[s][k] += a_round * row[k]
    return tot / n


def shift_rows(game, length, rounds, style, seeds, budget, partner=None):
    """(tricks taken − strong's own count) of ``strong``'s declarations (not calls, not
    dash) against ``style`` in the other seats (Tarneeb: ``partner`` beside it)."""
    from engine.bots import bidding
    from engine.bots.cards import mask
    out = []
    for seed in seeds:
        seat = seed % 4
        names = [style] * 4
        names[seat] = "strong"
        if partner is not None:
            names[seat ^ 2] = partner
        pols = [styles.policy(n, budget) for n in names]
        rngs = [random.Random(seed * 4 + s) for s in range(4)]
        m = new_match(game, length, seed=seed)
        counts = {}
        while m.to_act is not None and len(m.history) < rounds:
            s = m.to_act
            v = m.view(s)
            if s == seat and v["phase"] == "declare":
                counts[len(m.history)] = bidding.strong_count(v, mask(v["hand"]))
            m.apply(s, pols[s](v, rngs[s]))
        for i, h in enumerate(m.history):
            if i in counts and not h.get("void") and h.get("caller") != seat:
                out.append(h["tricks_taken"][seat] - counts[i])
    return out


def fit_shifts(n, budget):
    """Per model, the tricks strong takes more than its count per seat of that style."""
    import statistics
    est = {}
    for style in ("easy", "normal", "greedy", "cautious", "over", "under", "dash", "random"):
        rows = []
        for gi, (game, length, rounds) in enumerate((("estimation", 13, 4),
                                                     ("estimation-kotshina", "micro", 5))):
            base = 80_000_000 + 1_000_000 * gi
            rows += shift_rows(game, length, rounds, style, range(base, base + n), budget)
        est[style] = (statistics.fmean(rows), len(rows))
        print(f"  estimation, strong against three {style}: taken − count "
              f"{est[style][0]:+.3f} (n={len(rows)})", flush=True)
    ref = (est["easy"][0] + est["normal"][0]) / 2
    e_shift = [0.0 if name == "num" else round((est[name][0] - ref) / 3, 3)
               for name in model.NAMES]
    tar = {}
    for style in ("easy", "normal", "greedy", "cautious", "over", "under", "dash", "random"):
        for partner in ("strong", style):
            base = 90_000_000 + (500_000 if partner != "strong" else 0)
            rows = shift_rows("tarneeb41", None, 6, style, range(base, base + n // 2), budget,
                              partner)
            tar[style, partner] = statistics.fmean(rows)
            print(f"  tarneeb, strong with {partner} against two {style}: taken − count "
                  f"{tar[style, partner]:+.3f} (n={len(rows)})", flush=True)
    ref_pair = (tar["easy", "strong"] + tar["normal", "strong"]) / 2
    t_opp = [0.0 if name == "num" else round((tar[name, "strong"] - ref_pair) / 2, 3)
             for name in model.NAMES]
    # The partner's own effect: its style beside strong against the same opponents.
    part = {}
    for name in ("easy", "normal", "greedy", "cautious", "over", "under", "dash", "random"):
        part[name] = tar[name, name] - tar[name, "strong"]
    ref_part = (part["easy"] + part["normal"]) / 2
    t_part = [0.0 if name == "num" else round(part[name] - ref_part, 3) for name in model.NAMES]
    return e_shift, t_opp, t_part


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=400, help="matches per game (fitting)")
    ap.add_argument("--strong-budget", type=float, default=3)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--shifts", type=int, default=0,
                    help="matches per style for the trick shifts (0: keep the table's)")
    ap.add_argument("--shift-budget", type=float, default=20)
    a = ap.parse_args()
    t0 = time.time()
    shifts = None
    if a.shifts:
        shifts = fit_shifts(a.shifts, a.shift_budget)
        print(f"shifts: estimation {shifts[0]}, tarneeb opponent {shifts[1]}, "
              f"partner {shifts[2]} ({time.time() - t0:.0f} s)", flush=True)
    if shifts is None:
        from engine.bots import model_table as old
        shifts = (old.SHIFT_ESTIMATION, old.SHIFT_TARNEEB, old.SHIFT_PARTNER)
    fits = {}
    for fam, games, pool in (
            ("ESTIMATION", [("estimation", 13, 4), ("estimation-kotshina", "micro", 5)],
             POOL_EST),
            ("TARNEEB", [("tarneeb41", None, 8)], POOL_TAR)):
        train, test = [], []
        for gi, (game, length, rounds) in enumerate(games):
            n = a.matches // len(games)
            base = 70_000_000 + 1_000_000 * gi + (500_000 if fam == "TARNEEB" else 0)
            train += run_matches(game, length, rounds, range(base, base + n), pool,
                                 a.strong_budget)
            test += run_matches(game, length, rounds, range(base + n, base + n + n // 3), pool,
                                a.strong_budget)
        table = count(train)
        pri = prior(pool)
        best = None
        for ap_ in (0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0):
            for ar in (0.3, 0.5, 0.7, 1.0):
                loss = log_loss(test, table, pri, ap_, ar)
                if best is None or loss < best[0]:
                    best = (loss, ap_, ar)
        flat = log_loss(test, table, pri, 0.0, 0.0)
        print(f"{fam}: {len(table)} keys, prior {[round(p, 3) for p in pri]}; log loss "
              f"prior only {flat:.3f}, fitted {best[0]:.3f} (alpha play {best[1]}, "
              f"round {best[2]}), {time.time() - t0:.0f} s", flush=True)
        fits[fam] = (table, pri, best)
        detail = {}
        log_loss(test, table, pri, best[1], best[2], detail)
        print("  posterior of the true model, mean (round 1 / 2 / 3+, at checkpoints "
              f"{CHECKS}):")
        for name in model.NAMES:
            cells = []
            for r in range(3):
                cells.append(" ".join(
                    f"{sum(detail.get((r, c, name), [0])) / max(1, len(detail.get((r, c, name), []))):.2f}"
                    for c in CHECKS))
            print(f"    {name:9} " + " | ".join(cells))
    if not a.write:
        return
    lines = ['"""The opponent model\'s tables, fitted to the pool of styles by',
             "``tests/bench/fit_model.py`` (generated: do not edit; see ``model.py``).",
             "",
             "Per event key (\"context|outcome\"), log P(outcome | context, model) for the models",
             'in ``model.NAMES`` order; the prior of each model; the tempering exponents."""',
             "", "from __future__ import annotations", ""]
    e_tab, e_pri, e_best = fits["ESTIMATION"]
    t_tab, t_pri, t_best = fits["TARNEEB"]
    # One pair of exponents for both games keeps the model simple: their mean.
    lines.append(f"ALPHA_PLAY = {(e_best[1] + t_best[1]) / 2:g}")
    lines.append(f"ALPHA_ROUND = {(e_best[2] + t_best[2]) / 2:g}")
    lines.append(f"PRIOR_ESTIMATION = {tuple(round(p, 4) for p in e_pri)!r}")
    lines.append(f"PRIOR_TARNEEB = {tuple(round(p, 4) for p in t_pri)!r}")
    lines.append(f"SHIFT_ESTIMATION = {tuple(shifts[0])!r}")
    lines.append(f"SHIFT_TARNEEB = {tuple(shifts[1])!r}")
    lines.append(f"SHIFT_PARTNER = {tuple(shifts[2])!r}")
    for name, tab in (("ESTIMATION", e_tab), ("TARNEEB", t_tab)):
        lines.append(f"{name}: dict[str, tuple[float, ...]] = {{")
        for key in sorted(tab):
            lines.append(f"    {key!r}: {tab[key]!r},")
        lines.append("}")
    (ROOT / "engine" / "bots" / "model_table.py").write_text("\n".join(lines) + "\n")
    print("written engine/bots/model_table.py")


if __name__ == "__main__":
    main()
