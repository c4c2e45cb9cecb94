"""Computer-player strength against many styles of play (issue 31). Prints figures.

Estimation (``--game estimation`` or ``estimation-kotshina``): a unit is a short match
of stacked deals (``--rounds``; the calculator plays its whole default match, five
fixed rounds). For each opponent style every unit is played four times with the tested
level in one seat and the style in the other three, and four times again with ``easy``
in that seat: the same deals, the same opponents, the same random streams for them. The
difference in the seat's points per round is the tested level's gain over ``easy`` in
the same seat; the figure is the mean over units with a 95 % interval (a unit's four
seats and its rounds are one sample). Styles are ``engine.bots.styles`` (greedy,
cautious, over, under, dash, random), our levels (easy, normal, strong) and mixed
tables (``mixed1``: greedy, cautious, easy; ``mixed2``: over, under, strong — in the
seats after the tested one, in turn order).

Tarneeb 41 (``--game tarneeb41``): whole matches. For each style two tables: ``pair``
(the tested pair against a pair of the style) and ``partner`` (the tested player with
a partner of the style, against a pair of the style); each seed is played with the
tested side in both seat pairs, and again with ``easy`` in the tested seats.

Decision time is the deciding thread's CPU time (``time.thread_time``), play decisions
of the tested seats only.

Run:  .venv/bin/python tests/bench/bots_styles.py --game estimation --units 100 --budget 100
      (--styles greedy,cautious  --seed 7  --dump run.jsonl  --report a.jsonl b.jsonl
       --minutes 40: stop starting new units after that long)
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
from engine.bots import styles

EST_STYLES = ("greedy", "cautious", "over", "under", "dash", "random", "easy", "normal",
              "strong", "mixed1", "mixed2")
TAR_STYLES = ("greedy", "cautious", "over", "under", "dash", "random", "easy", "normal",
              "strong")
MIXED = {"mixed1": ("greedy", "cautious", "easy"), "mixed2": ("over", "under", "strong")}


def _deals(seed: int, n: int):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        deck = [r + s for r in "AKQJT98765432" for s in "SHDC"]
        rng.shuffle(deck)
        out.append([deck[i::4] for i in range(4)])
    return out


def _table(style: str, seat: int, tested: str) -> list[str]:
    """Policy names by seat: ``tested`` in ``seat``, the style (or a mixed table) elsewhere."""
    names = [style] * 4
    if style in MIXED:
        for i, name in enumerate(MIXED[style]):
            names[(seat + 1 + i) & 3] = name
    names[seat] = tested
    return names


def _policy(name, budget):
    """A style or level by name; ``strong-old``: ``strong`` with the hand-count
    declaration, bid and call alone (``bidding.DECLARE_EV``, ``BID_EV`` and ``EST_FIT`` off for its
    own decisions only)."""
    if name != "strong-old":
        return styles.policy(name, budget)
    from engine.bots import bidding
    inner = styles.policy("strong", budget)

    def old(v, rng):
        was = bidding.DECLARE_EV, bidding.BID_EV, bidding.EST_FIT
        bidding.DECLARE_EV = bidding.BID_EV = bidding.EST_FIT = False
        try:
            return inner(v, rng)
        finally:
            bidding.DECLARE_EV, bidding.BID_EV, bidding.EST_FIT = was
    return old


def play_est(game, length, rounds, deals, names, budget, seed, timed):
    """One match of ``rounds`` rounds; per round the history record; play-decision CPU
    times of the seats in ``timed``."""
    m = new_match(game, length, deals=deals)
    pols = [_policy(n, budget) for n in names]
    rngs = [random.Random(seed * 8 + s) for s in range(4)]
    times = []
    while m.to_act is not None and len(m.history) < rounds:
        s = m.to_act
        v = m.view(s)
        t = time.thread_time()
        a = pols[s](v, rngs[s])
        if s in timed and v["phase"] == "play" and len(v["legal"]) > 1:
            times.append(time.thread_time() - t)
        m.apply(s, a)
    return m.history, times


def _role(h, seat):
    """c caller, w With, l last declarer, d dash, - else (for reading the dumps)."""
    if seat in h["dash_players"]:
        return "d"
    if h["caller"] == seat and not h["all_pass"]:
        return "c"
    if seat in h["with_players"]:
        return "w"
    return "l" if h["last_declarer"] == seat else "-"


def est_unit(args):
    seed, style, tested, budget, game, rounds, base_level, kot_length = args
    length = 13 if game == "estimation" else kot_length
    deals = _deals(seed, rounds)
    out = []
    for seat in range(4):
        hist, times = play_est(game, length, rounds, deals, _table(style, seat, tested),
                               budget, seed, {seat})
        base, _ = play_est(game, length, rounds, deals, _table(style, seat, base_level),
                           budget, seed, set())
        lead, blead = _lead(hist, seat), _lead(base, seat)
        out.append({
            "seat": seat,
            "s": [h["scores"][seat] for h in hist], "b": [h["scores"][seat] for h in base],
            "d": [h["declarations"][seat] for h in hist],
            "t": [h["tricks_taken"][seat] for h in hist],
            "m": [h["made"][seat] for h in hist], "bm": [h["made"][seat] for h in base],
            "bd": [h["declarations"][seat] for h in base],
            "bt": [h["tricks_taken"][seat] for h in base],
            "dash": [seat in h["dash_players"] for h in hist],
            "role": [_role(h, seat) for h in hist], "brole": [_role(h, seat) for h in base],
            "mult": [h.get("multiplier", 1) for h in hist],
            "bk": [h["breakdown"][seat] for h in hist], "bbk": [h["breakdown"][seat] for h in base],
            "times": times,
            # The match (the calculator's five rounds are all of it, K-15): did the seat
            # finish on top (a shared top counts), and by how much over the best other.
            "top": lead >= 0, "btop": blead >= 0, "lead": lead, "blead": blead,
        })
    return {"style": style, "seed": seed, "seats": out}


def _lead(hist, seat):
    """The seat's total over the played rounds less the best other seat's."""
    tot = [sum(h["scores"][s] for h in hist) for s in range(4)]
    return tot[seat] - max(t for s, t in enumerate(tot) if s != seat)


def tar_match(seed, names, budget, tested_seats):
    m = new_match("tarneeb41", seed=seed)
    pols = [styles.policy(n, budget) for n in names]
    rngs = [random.Random(seed * 8 + s) for s in range(4)]
    times = []
    while m.to_act is not None and len(m.history) < 200:
        s = m.to_act
        v = m.view(s)
        t = time.thread_time()
        a = pols[s](v, rngs[s])
        if s in tested_seats and v["phase"] == "play" and len(v["legal"]) > 1:
            times.append(time.thread_time() - t)
        m.apply(s, a)
    team = tested_seats[0] & 1
    won = m.result is not None and team in m.result["winners"]
    hands = len([h for h in m.history if not h.get("void")])
    tt = m.team_totals()
    voids = len(m.history) - hands
    return won, hands, times, (tt[team] - tt[1 - team]) / max(1, hands), voids


def tar_unit(args):
    seed, style, tested, budget, _game, _rounds, _base, _length = args
    out = []
    for table in ("pair", "partner"):
        for side in (0, 1):
            res = {}
            for who in (tested, "easy"):
                names = [style] * 4
                names[side] = who
                names[side + 2] = who if table == "pair" else style
                seats = [side, side + 2] if table == "pair" else [side]
                res[who] = tar_match(seed, names, budget, seats)
            out.append({"table": table, "side": side, "won": res[tested][0],
                        "base_won": res["easy"][0], "hands": res[tested][1],
                        "times": res[tested][2],
                        # The tested team's margin over the other a scored hand, and
                        # the void hands (T-13), with easy's in the same seats beside.
                        "margin": res[tested][3], "base_margin": res["easy"][3],
                        "voids": res[tested][4], "base_voids": res["easy"][4]})
    return {"style": style, "seed": seed, "seats": out}


def mean_ci(xs):
    n = len(xs)
    if not n:
        return float("nan"), 0.0, 0
    mu = statistics.fmean(xs)
    sd = statistics.stdev(xs) if n > 1 else 0.0
    return mu, 1.96 * sd / math.sqrt(n), n


def prop(flags):
    n = len(flags)
    if not n:
        return float("nan"), 0.0, 0
    p = sum(flags) / n
    return 100 * p, 100 * 1.96 * math.sqrt(p * (1 - p) / n), n


def pct(ms, q):
    return ms[min(len(ms) - 1, int(q * (len(ms) - 1) + 0.5))] if ms else float("nan")


def report(units, game, label=""):
    by = {}
    for u in units:
        by.setdefault(u["style"], []).append(u)
    order = [s for s in (TAR_STYLES if game == "tarneeb41" else EST_STYLES) if s in by]
    order += sorted(set(by) - set(order))
    print(f"\n{label}")
    if game == "tarneeb41":
        print("| style | table | matches | tested side won % | easy side won % | "
              "difference (pts of %) | margin a hand: tested − easy | voids a match: "
              "tested / easy | hands a match | play decision ms mean / p95 / max |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for style in order:
            for table in ("pair", "partner"):
                rows = [r for u in by[style] for r in u["seats"] if r["table"] == table]
                if not rows:
                    continue
                w = prop([r["won"] for r in rows])
                b = prop([r["base_won"] for r in rows])
                # Paired by seed and side.
                d = mean_ci([100 * (r["won"] - r["base_won"]) for r in rows])
                h = mean_ci([r["hands"] for r in rows])
                mg = mean_ci([r.get("margin", 0) - r.get("base_margin", 0) for r in rows])
                vo = (statistics.fmean(r.get("voids", 0) for r in rows),
                      statistics.fmean(r.get("base_voids", 0) for r in rows))
                ms = sorted(1000 * t for r in rows for t in r["times"])
                tm = (f"{statistics.fmean(ms):.1f} / {pct(ms, 0.95):.1f} / {ms[-1]:.0f}"
                      if ms else "—")
                print(f"| {style} | {table} | {len(rows)} | {w[0]:.1f} ± {w[1]:.1f} | "
                      f"{b[0]:.1f} ± {b[1]:.1f} | {d[0]:+.1f} ± {d[1]:.1f} | "
                      f"{mg[0]:+.2f} ± {mg[1]:.2f} | {vo[0]:.2f} / {vo[1]:.2f} | "
                      f"{h[0]:.1f} | {tm} |")
        return
    print("| opponents | units (seat-rounds) | tested − easy, same seat | tested | easy | "
          "made: tested / easy | tested declared − took | play decision ms mean / p95 / max |")
    print("|---|---|---|---|---|---|---|---|")
    for style in order:
        us = by[style]
        per = [statistics.fmean(x - y for r in u["seats"] for x, y in zip(r["s"], r["b"],
                                                                         strict=True))
               for u in us]
        d = mean_ci(per)
        sr = [x for u in us for r in u["seats"] for x in r["s"]]
        br = [x for u in us for r in u["seats"] for x in r["b"]]
        made = prop([x for u in us for r in u["seats"] for x in r["m"]])
        bmade = prop([x for u in us for r in u["seats"] for x in r["bm"]])
        over = statistics.fmean(dd - t for u in us for r in u["seats"]
                                for dd, t in zip(r["d"], r["t"], strict=True))
        ms = sorted(1000 * t for u in us for r in u["seats"] for t in r["times"])
        tm = f"{statistics.fmean(ms):.1f} / {pct(ms, 0.95):.1f} / {ms[-1]:.0f}" if ms else "—"
        print(f"| {style} | {len(us)} ({len(sr)}) | {d[0]:+.2f} ± {d[1]:.2f} | "
              f"{statistics.fmean(sr):+.2f} | {statistics.fmean(br):+.2f} | "
              f"{made[0]:.1f} ± {made[1]:.1f} % / {bmade[0]:.1f} % | {over:+.2f} | {tm} |")
    if game != "estimation-kotshina":
        return
    # The calculator's unit is a whole match: who finished on top (K-15) says more than
    # points, which a Sa'ayda (K-14) doubles for the whole table.
    print("\n| opponents | matches | tested on top % | easy on top % | "
          "difference (pts of %) | lead over the best other seat: tested − easy |")
    print("|---|---|---|---|---|---|")
    for style in order:
        rows = [r for u in by[style] for r in u["seats"] if "top" in r]
        if not rows:
            continue
        w = prop([r["top"] for r in rows])
        b = prop([r["btop"] for r in rows])
        per = [statistics.fmean(100 * (r["top"] - r["btop"]) for r in u["seats"])
               for u in by[style] if "top" in u["seats"][0]]
        d = mean_ci(per)
        lead = mean_ci([statistics.fmean(r["lead"] - r["blead"] for r in u["seats"])
                        for u in by[style] if "top" in u["seats"][0]])
        print(f"| {style} | {len(rows)} | {w[0]:.1f} ± {w[1]:.1f} | {b[0]:.1f} ± {b[1]:.1f} | "
              f"{d[0]:+.1f} ± {d[1]:.1f} | {lead[0]:+.1f} ± {lead[1]:.1f} |")


def compare(after, before):
    """After minus before, paired by unit (same style, seed and game): the tested
    player's points a round (Tarneeb: matches won, in points of %)."""
    def load(paths):
        units = {}
        for path in paths:
            with open(path) as f:
                for line in f:
                    u = json.loads(line)
                    units[(u["game"], u["style"], u["seed"])] = u
        return units

    a, b = load(after), load(before)
    by = {}
    for key, ua in a.items():
        ub = b.get(key)
        if ub is None:
            continue
        if key[0] == "tarneeb41":
            x = statistics.fmean(100 * r["won"] for r in ua["seats"]) - statistics.fmean(
                100 * r["won"] for r in ub["seats"])
            if "margin" in ua["seats"][0] and "margin" in ub["seats"][0]:
                # The team's margin a scored hand, paired the same way.
                by.setdefault((key[0], key[1] + " (margin a hand)"), []).append(
                    statistics.fmean(r["margin"] for r in ua["seats"])
                    - statistics.fmean(r["margin"] for r in ub["seats"]))
        else:
            x = statistics.fmean(v for r in ua["seats"] for v in r["s"]) - statistics.fmean(
                v for r in ub["seats"] for v in r["s"])
        by.setdefault((key[0], key[1]), []).append(x)
    print("| game | opponents | units | after − before (tested seat; Tarneeb: won, pts of %) |")
    print("|---|---|---|---|")
    for (game, style), xs in by.items():
        d = mean_ci(xs)
        print(f"| {game} | {style} | {d[2]} | {d[0]:+.2f} ± {d[1]:.2f} |")
    for game in sorted({g for g, _ in by}):
        rows = [(st, xs) for (g, st), xs in by.items() if g == game and "(" not in st]
        if len(rows) > 1:                   # every unit of the game's styles, pooled
            d = mean_ci([x for _, xs in rows for x in xs])
            print(f"| {game} | pooled | {d[2]} | {d[0]:+.2f} ± {d[1]:.2f} |")


def _init(plain: bool, samples: int | None = None, oracle: bool = False,
          old_numbers: bool = False) -> None:
    if plain:
        bots.READ_TABLE = False
    if old_numbers:
        from engine.bots import bidding
        bidding.TARNEEB_EV = False
        bidding.DECLARE_EV = False
        bidding.BID_EV = False
        bidding.DASH_EV = False
        bidding.EST_FIT = False
    bots.SAMPLES = samples
    import os

    from engine.bots import bidding, contract, declaring, montecarlo
    # Which games weigh their numbers which way, from the environment (a before/after
    # pair: the same command, one variable empty): DECLARE_EV_GAMES (declarations rolled
    # out), BID_EV_GAMES (bids and calls), DASH_EV_GAMES (the dash answer),
    # EST_FIT_GAMES (declarations by the fitted curve); games comma-separated.
    for name in ("DECLARE_EV_GAMES", "BID_EV_GAMES", "DASH_EV_GAMES", "EST_FIT_GAMES"):
        if os.environ.get(name) is not None:
            setattr(bidding, name, tuple(g for g in os.environ[name].split(",") if g))
    # PLAY_STEPS: the proposals a sample is moved by towards the play (0: the play is
    # not read; montecarlo.PLAY_STEPS)
    if os.environ.get("PLAY_STEPS"):
        montecarlo.PLAY_STEPS = int(os.environ["PLAY_STEPS"])
    # PLAY_READ: the styles whose plays are read, comma-separated (montecarlo.PLAY_READ)
    if os.environ.get("PLAY_READ") is not None:
        montecarlo.PLAY_READ = tuple(s for s in os.environ["PLAY_READ"].split(",") if s)
    # BID_READ: 1 reads the auction's turns in every sampled deal, 2 in the bid, call and
    # declaration rollouts' only, 0 in none (montecarlo.BID_READ, BID_READ_PLAY)
    if os.environ.get("BID_READ"):
        montecarlo.BID_READ = os.environ["BID_READ"] in ("1", "2")
        montecarlo.BID_READ_PLAY = os.environ["BID_READ"] == "1"
    # Tarneeb: TAR_READ=1 reads each later seat's declarations (off in play)
    if os.environ.get("TAR_READ"):
        bidding.TAR_READ = os.environ["TAR_READ"] == "1"
    # tuning only: the gates, the over credit, and how many hands of logged shares a
    # Tarneeb seat's own declarations are read against
    for name, module, attr in (("DECLARE_GATE", declaring, "GATE"),
                               ("BID_GATE", contract, "GATE"),
                               ("DECLARE_OVER", declaring, "OVER_CREDIT"),
                               ("TAR_PRIOR", bidding, "TAR_PRIOR"),
                               ("LONG_CREDIT", montecarlo, "LONG_CREDIT")):
        if os.environ.get(name):
            setattr(module, attr, float(os.environ[name]))
    if oracle:
        _see_every_card()
    # TRUE_STYLE=greedy: a bound, not a player: every other seat is read as that style
    # with certainty (the model's weights told the table, the cards still hidden)
    if os.environ.get("TRUE_STYLE"):
        _know_the_table(os.environ["TRUE_STYLE"])


def _know_the_table(style: str) -> None:
    from engine.bots import model
    k = model.NAMES.index(style)

    def told(v, events=None):
        own = v["seat"]
        return [[1.0 if i == (model.NUM if s == own else k) else 0.0
                 for i in range(len(model.NAMES))] for s in range(4)]
    model.weights = told


def _see_every_card() -> None:
    """A bound, not a player: ``strong``'s Monte Carlo deals are replaced by the true
    one (the match whose view was taken last), so it plays its cards seeing every hand;
    its declarations and everything else are unchanged. Benchmark only."""
    import os

    from engine import match as em
    from engine.bots import montecarlo as mc
    from engine.bots.cards import CARD_INDEX
    from engine.cards import sorted_codes

    last: dict[str, object] = {}

    def wrap(cls):
        orig = cls.view

        def view(self, seat):
            last["match"] = self
            return orig(self, seat)
        cls.view = view

    for cls in (em.Match, em.EstimationMatch, em.TarneebMatch):
        wrap(cls)

    def true_deal(pub, rng, k=0, styles=None):
        m = last["match"]
        return [sum(1 << CARD_INDEX[c] for c in sorted_codes(m.hands[s])) for s in range(4)]

    # ORACLE_TRICKS=A:B: the true deal only in card play while A to B-1 tricks are done
    # (4: from the fourth trick on; :4 the first three), sampled elsewhere, bids included
    span = os.environ.get("ORACLE_TRICKS")
    first, stop = 0, 14
    if span:
        lo, _, hi = span.partition(":")
        first, stop = int(lo or 0), int(hi or 14)

    def seen(pub):
        return not span or (pub.v["phase"] == "play" and first <= len(pub.v["tricks"]) < stop)

    # The reading of the play moves a deal towards one its style draws explain: the
    # true deal is left as it is.
    read = mc.explain_play

    def explain_play(pub, hands, styles, rng, steps=None):
        return hands if seen(pub) else read(pub, hands, styles, rng, steps)
    mc.explain_play = explain_play
    if span:
        sampled = mc.sample_fit

        def part_deal(pub, rng, k=mc.EV_CANDIDATES, styles=None):
            if seen(pub):
                return true_deal(pub, rng)
            return sampled(pub, rng, k, styles)
        mc.sample_fit = part_deal
        return
    mc.sample_fit = true_deal
    mc.sample = true_deal


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", default="estimation",
                    choices=("estimation", "estimation-kotshina", "tarneeb41"))
    ap.add_argument("--styles", default=None, help="comma-separated (default: all)")
    ap.add_argument("--units", type=int, default=40, help="units (Tarneeb: seeds) per style")
    ap.add_argument("--strong-units", type=int, default=None,
                    help="units for the styles with a strong opponent (default: --units)")
    ap.add_argument("--rounds", type=int, default=None,
                    help="rounds a unit (default: 4; the calculator's whole match, 5)")
    ap.add_argument("--budget", type=float, default=100)
    ap.add_argument("--level", default="strong")
    ap.add_argument("--base", default="easy",
                    help="the level in the tested seat's second play of each unit (default "
                         "easy; strong-old: strong with its declarations, bids and calls as before issue 46, "
                         "the other seats' strong players keeping the new ones)")
    ap.add_argument("--plain", action="store_true",
                    help="strong without the opponent model (bots.READ_TABLE off: as before "
                         "issue 31), the before of a before/after pair run in the same minutes")
    ap.add_argument("--oracle", action="store_true",
                    help="strong plays its cards seeing every hand (its samples are the "
                         "true deal): how far card play alone could go, a bound")
    ap.add_argument("--length", default="micro", choices=("micro", "mini", "full"),
                    help="the calculator's match (default micro: five fixed rounds, no "
                         "auction; mini: five auction rounds first, so --rounds 5 plays "
                         "only auctions)")
    ap.add_argument("--old-numbers", action="store_true",
                    help="strong's declarations as before issue 46 (the before of a "
                         "before/after pair)")
    ap.add_argument("--samples", type=int, default=None,
                    help="strong's card play by a fixed number of Monte Carlo samples a "
                         "decision (bots.SAMPLES; the budget is then not looked at): the "
                         "figures do not depend on the machine's load and a before/after "
                         "pair differs only where the code does (~360 is what 100 ms gives "
                         "on a quiet core, ~100 what 30 ms gives)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--first", type=int, default=0, help="first unit index (to split runs)")
    ap.add_argument("--minutes", type=float, default=None,
                    help="start no new unit after this long")
    ap.add_argument("--dump", default=None, help="append every unit as a JSON line")
    ap.add_argument("--report", nargs="+", default=None, metavar="DUMP")
    ap.add_argument("--compare", nargs=2, default=None, metavar=("AFTER", "BEFORE"),
                    help="two dumps (comma-separated files each): after minus before, paired")
    a = ap.parse_args()
    if a.compare:
        compare(a.compare[0].split(","), a.compare[1].split(","))
        return
    if a.report:
        units = {}
        for path in a.report:
            with open(path) as f:
                for line in f:
                    u = json.loads(line)
                    units[(u["game"], u["style"], u["seed"])] = u
        for game in ("estimation", "estimation-kotshina", "tarneeb41"):
            us = [u for (g, _, _), u in units.items() if g == game]
            if us:
                report(us, game, f"{game}: {len(us)} units from {len(a.report)} file(s)")
        return
    game = a.game
    _init(a.plain, a.samples, a.oracle, a.old_numbers)
    rounds = a.rounds or (5 if game == "estimation-kotshina" else 4)
    names = a.styles.split(",") if a.styles else list(
        TAR_STYLES if game == "tarneeb41" else EST_STYLES)
    strong_n = a.strong_units if a.strong_units is not None else a.units
    jobs = []
    for i in range(a.first, a.first + a.units):
        for style in names:
            heavy = style == "strong" or style == "mixed2"
            if heavy and i >= a.first + strong_n:
                continue
            seed = a.seed * 1_000_000 + i * 7 + 3
            jobs.append((seed, style, a.level, a.budget, game, rounds, a.base, a.length))
    fn = tar_unit if game == "tarneeb41" else est_unit
    dump = open(a.dump, "a") if a.dump else None
    t0 = time.time()
    at = f"{a.samples} samples" if a.samples else f"{a.budget:g} ms"
    who = a.level + (" (plain)" if a.plain else "") + (" (old numbers)" if a.old_numbers else "") + (" (oracle)" if a.oracle else "")
    print(f"{game}: {who} at {at}, seed {a.seed}, units {a.first}.."
          f"{a.first + a.units - 1}, {len(jobs)} jobs, {a.jobs} process(es)", flush=True)
    units = []

    def take(u):
        u["game"] = game
        u["samples"] = a.samples
        if a.oracle:
            u["oracle"] = True
        units.append(u)
        if dump is not None:
            dump.write(json.dumps(u) + "\n")
            dump.flush()
        if len(units) % 20 == 0:
            print(f"  … {len(units)}/{len(jobs)} units, {time.time() - t0:.0f} s", flush=True)

    if a.jobs > 1:
        with Pool(a.jobs, initializer=_init,
                  initargs=(a.plain, a.samples, a.oracle, a.old_numbers)) as pool:
            for u in pool.imap(fn, jobs):
                take(u)
                if a.minutes and time.time() - t0 > 60 * a.minutes:
                    pool.terminate()
                    break
    else:
        for job in jobs:
            if a.minutes and time.time() - t0 > 60 * a.minutes:
                print("  time is up", flush=True)
                break
            take(fn(job))
    report(units, game, f"{game}, {who} at {at}: {len(units)} units "
           f"({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
