"""Engine speed: random-play rounds per second and legal_actions+apply pairs per second.

A script that prints figures, not a test (machines here are shared and noisy).
Run: .venv/bin/python tests/bench/engine_speed.py [seconds-per-game]
"""

from __future__ import annotations

import random
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))

from engine import new_match  # noqa: E402

GAMES = [("estimation", 18), ("estimation-kotshina", "full"), ("tarneeb41", None)]


def run(game, length, seconds: float) -> tuple[float, float]:
    rnd = random.Random(1).random
    rounds = actions = 0
    start = time.perf_counter()
    seed = 0
    while time.perf_counter() - start < seconds:
        seed += 1
        m = new_match(game, length, seed=seed)
        # Tarneeb: declare low so the match ends; random declarations rarely qualify anyone.
        while m.to_act is not None and len(m.log) < 3000:
            seat = m.to_act
            legal = m.legal_actions(seat)
            if game == "tarneeb41" and m.phase == "declare":
                action = legal[1]
            else:
                action = legal[int(rnd() * len(legal))]
            m.apply(seat, action)
            actions += 1
        rounds += len(m.history)
    elapsed = time.perf_counter() - start
    return rounds / elapsed, actions / elapsed


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    print(f"{'game':24} {'rounds/s':>10} {'legal+apply/s':>14}")
    for game, length in GAMES:
        r, a = run(game, length, seconds)
        print(f"{game + ' ' + str(length or ''):24} {r:10,.0f} {a:14,.0f}")


if __name__ == "__main__":
    main()
