"""How many of the other seats' cards the strong player's sampled deals place with the
seat that holds them, from the fourth trick of a round on, by how long the play is read
(``montecarlo.explain_play``'s steps) and how sharply (``PLAY_EPS``).

Run long and sharp, the reading's chain samples the posterior of the deal under the
styles that really played (greedy and over tables, where the fast player's styles are
exactly the policies at the table): what it places is what any reading of the play,
the declarations and the voids can place; the rest the rules hide (issue 46,
docs/bots.md, "What the hidden cards leave").

    .venv/bin/python tests/bench/play_placement.py            # half a minute
    .venv/bin/python tests/bench/play_placement.py --steps 0,10,100 --eps 0.1
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from test_bot_model import style_match_views  # the tests' matches of styles

from engine.bots import montecarlo as mc
from engine.bots.cards import mask
from engine.bots.stylemodel import MODELS

STYLE = {m.name: m for m in MODELS}
TABLE = ["greedy", "over", "greedy", "over"]


def late_views(seeds: range, every: int, first_trick: int = 4):
    """Every ``every``-th play view from ``first_trick`` on of two-round matches of the
    table's styles: (a key, the view, every seat's true hand)."""
    for seed in seeds:
        n = 0
        for m, v in style_match_views("estimation", 18, TABLE, seed, 2):
            if v["phase"] == "play" and len(v["tricks"]) >= first_trick:
                if n % every == 0:
                    yield seed * 1000 + n, v, [mask(m.view(o)["hand"]) for o in range(4)]
                n += 1


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="3:9", help="match seeds, A:B (default 3:9)")
    ap.add_argument("--every", type=int, default=3)
    ap.add_argument("--samples", type=int, default=4, help="deals a view")
    ap.add_argument("--steps", default="0,10,30,100,300,1000")
    ap.add_argument("--eps", default="0.1,0.01")
    a = ap.parse_args()
    lo, _, hi = a.seeds.partition(":")
    views = list(late_views(range(int(lo), int(hi)), a.every))
    print(f"{len(views)} views from the fourth trick on, {a.samples} deals each")
    print("| PLAY_EPS | steps | placed | seconds |")
    print("|---|---|---|---|")
    for eps in (float(x) for x in a.eps.split(",")):
        mc.PLAY_EPS = eps
        for steps in (int(x) for x in a.steps.split(",")):
            t = time.perf_counter()
            right = total = 0
            for key, v, hands in views:
                pub = mc.Public(v)
                seats = [STYLE[n] for n in TABLE]
                seats[v["seat"]] = STYLE["num"]
                for k in range(a.samples):
                    rng = random.Random(key * 10 + k)
                    d = mc.sample_fit(pub, rng, styles=seats)
                    if steps:
                        d = mc.explain_play(pub, d, seats, rng, steps=steps)
                    for o in range(4):
                        if o != v["seat"]:
                            right += (d[o] & hands[o]).bit_count()
                            total += hands[o].bit_count()
            print(f"| {eps} | {steps} | {100 * right / total:.1f} % of {total} | "
                  f"{time.perf_counter() - t:.0f} |", flush=True)


if __name__ == "__main__":
    main()
