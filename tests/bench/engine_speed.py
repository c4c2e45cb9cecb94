"""Engine speed: random-play rounds per second and legal_actions+apply pairs per second.

A script that prints figures, not a test. Machines here are shared and noisy, so
it measures this process's CPU time (what "on one core" means when another job
steals the core) and prints the best of a few runs next to their median.
Run: .venv/bin/python tests/bench/engine_speed.py [seconds-per-run] [runs]
"""

from __future__ import annotations

import random
import statistics
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))

from engine import new_match

GAMES = [("estimation", 18), ("estimation-kotshina", "full"), ("tarneeb41", None)]


def run(game, length, seconds: float) -> tuple[float, float]:
    rnd = random.Random(1).random
    rounds = actions = 0
    clock = time.process_time
    start = clock()
    seed = 0
    tarneeb = game == "tarneeb41"
    while clock() - start < seconds:
        seed += 1
        m = new_match(game, length, seed=seed)
        n = 0
        while m.to_act is not None and n < 3000:
            seat = m.to_act
            legal = m.legal_actions(seat)
            if tarneeb and m.phase == "declare":
                action = legal[1]           # declare 3: random declarations rarely end a match
            else:
                action = legal[int(rnd() * len(legal))]
            m.apply(seat, action)
            n += 1
        actions += n
        rounds += len(m.history)
    elapsed = clock() - start
    return rounds / elapsed, actions / elapsed


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    print(f"{'game':24} {'rounds/s best':>14} {'median':>8} {'legal+apply/s best':>19} {'median':>9}")
    for game, length in GAMES:
        results = [run(game, length, seconds) for _ in range(runs)]
        r = [x[0] for x in results]
        a = [x[1] for x in results]
        print(f"{game + ' ' + str(length or ''):24} {max(r):14,.0f} {statistics.median(r):8,.0f} "
              f"{max(a):19,.0f} {statistics.median(a):9,.0f}")


if __name__ == "__main__":
    main()
