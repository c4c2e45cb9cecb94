"""The table's picture alone: CPU to draw a move's four screens (issue 42).

A script that prints figures, not a test. A seeded 18-round Estimation match is played
(the tests' quick policy); after every move each of the four seats' pictures is drawn
(``table_layout.draw_screen``, each seat with its own ``DrawCache`` kept from move to
move, as a screen keeps one) at 80×24, 60×20 (compact) and 120×30 (wide), and this
process's CPU time is summed over the drawing only.

To compare two trees, run it from each, alternately (the other tree on ``PYTHONPATH``):
    PYTHONPATH=/path/to/before .venv/bin/python tests/bench/draw_bench.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[1]))         # tests/: stacked
sys.path.append(str(HERE.parents[2]))            # the tree (after PYTHONPATH)

from stacked import quick_policy  # noqa: E402

from engine import new_match  # noqa: E402
from tui.cards import Look  # noqa: E402
from tui.screens.table_draw import DrawCache  # noqa: E402
from tui.screens.table_layout import draw_screen  # noqa: E402
from tui.screens.table_state import SeatFacts, TableFacts, TableState  # noqa: E402

SIZES = ((80, 24), (60, 20), (120, 30))
MOVES = 400


def ms_a_move(width: int, height: int) -> float:
    m = new_match("estimation", 18, seed=7)
    caches = [DrawCache() for _ in range(4)]
    states = [TableState() for _ in range(4)]
    seats = tuple(SeatFacts(n, "human") for n in ("ali", "bea", "cem", "dua"))
    facts = [TableFacts(id="7", game="estimation", title="Estimation", length=18,
                        seats=seats, seat=s) for s in range(4)]
    look = Look()
    moves, spent = 0, 0.0
    while m.to_act is not None and moves < MOVES:
        views = [m.view(s) for s in range(4)]
        t = time.process_time()
        for s in range(4):
            draw_screen(views[s], states[s], facts[s], look, width, height, now=0.0,
                        cache=caches[s])
        spent += time.process_time() - t
        m.apply(m.to_act, quick_policy(m, m.to_act))
        moves += 1
    return spent / moves * 1000


def main() -> None:
    for width, height in SIZES:
        print(f"{width}x{height} {ms_a_move(width, height):.3f} ms a move (four screens)")


if __name__ == "__main__":
    main()
