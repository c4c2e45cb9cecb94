"""The benchmark scripts still run (not timed: their figures are for the docs).

Nothing else calls them, so a change to what they import breaks them silently:
review_bench.py stopped with a TypeError when the review's ``_run_of`` took the
legal cards (found re-measuring issue 29's figures). Each runs here on the smallest
input that goes through its whole path and prints its summary."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

BENCH = Path(__file__).resolve().parent / "bench"


def run(script: str, *args: str) -> str:
    done = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True,
                          text=True, timeout=300, cwd=BENCH.parent.parent)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_review_benchmark_reviews_a_round_and_compares_it():
    out = run("review_bench.py", "--rounds", "1")
    assert "rounds reviewed        1" in out, out
    assert "agreement (all)" in out and "with four times the samples" in out, out


def test_the_styles_benchmark_plays_a_duplicate_unit():
    out = run("bots_styles.py", "--game", "estimation", "--styles", "greedy", "--units", "1",
              "--rounds", "1", "--samples", "8", "--jobs", "1")
    assert "| greedy | 1 (4) |" in out, out


def test_the_calculator_benchmark_says_who_finished_on_top():
    out = run("bots_styles.py", "--game", "estimation-kotshina", "--styles", "over",
              "--units", "1", "--rounds", "1", "--samples", "8", "--jobs", "1", "--oracle")
    assert "strong (oracle) at 8 samples" in out, out
    assert "| over | 1 (4) |" in out, out
    assert "tested on top %" in out and "| over | 4 |" in out, out


def test_the_calculator_benchmark_plays_its_auction_rounds():
    """``--length mini``: the calculator's mini match opens with auction rounds, where
    the bids and calls are weighed (the default micro match has none)."""
    out = run("bots_styles.py", "--game", "estimation-kotshina", "--length", "mini",
              "--styles", "over", "--units", "1", "--rounds", "1", "--samples", "8",
              "--jobs", "1")
    assert "| over | 1 (4) |" in out, out


def test_the_declarations_benchmark_logs_a_unit_and_fits_it(tmp_path):
    dump = tmp_path / "est.jsonl"
    out = run("estimation_numbers.py", "--styles", "greedy", "--units", "1", "--rounds", "2",
              "--samples", "8", "--jobs", "1", "--explore", "0.5", "--dump", str(dump))
    assert "1 units in" in out and "EST_MADE = (" in out, out
    rows = [r for line in dump.read_text().splitlines() for r in json.loads(line)["rows"]]
    assert rows and all({"count", "n", "chosen", "taken", "made"} <= r.keys() for r in rows)


def test_the_oracle_deals_the_true_hands(monkeypatch):
    """``--oracle`` is a bound only if strong's samples really are the true deal: after
    ``_see_every_card`` the sampler gives every seat its real hand (the patches are
    undone after the test: monkeypatch holds the originals)."""
    import random

    from engine import EstimationMatch, new_match
    from engine import match as em
    from engine.bots import montecarlo as mc
    sys.path.insert(0, str(BENCH))
    import bots_styles

    for cls in (em.Match, EstimationMatch, em.TarneebMatch):
        monkeypatch.setattr(cls, "view", cls.view)
    monkeypatch.setattr(mc, "sample_fit", mc.sample_fit)
    monkeypatch.setattr(mc, "sample", mc.sample)
    monkeypatch.setattr(mc, "explain_play", mc.explain_play)
    m = new_match("estimation-kotshina", seed=3)
    while m.phase != "play":
        m.apply(m.to_act, m.legal_actions(m.to_act)[0])
    truth = list(m.hands)
    pub = mc.Public(m.view(m.to_act))
    assert mc.sample_fit(pub, random.Random(1)) != truth     # a guess, before
    bots_styles._see_every_card()
    pub = mc.Public(m.view(m.to_act))
    assert mc.sample_fit(pub, random.Random(1)) == truth
    assert mc.deal(pub, random.Random(2))[0] == truth
    # Later in the round, with the table read (the play read as evidence moves a
    # sampled deal: never the true one).
    from engine.bots import model
    while len(m.view(0)["tricks"]) < 3:
        m.apply(m.to_act, m.legal_actions(m.to_act)[0])
    v = m.view(m.to_act)
    pub = mc.Public(v)
    w = model.weights(v)
    assert all(mc.deal_styles(pub, random.Random(k), w)[0] == list(m.hands) for k in range(20))


def test_the_web_benchmark_measures_both_transports():
    out = run("web_bench.py", "--sessions", "2")
    assert "ssh terminal:" in out and "browser (web):" in out and "on the wire" in out, out


@pytest.mark.parametrize("mode", ["parts", "parts-cells", "parts-direct"])
@pytest.mark.parametrize("size", ["80x24", "60x20"])
def test_the_widget_parts_prototype_draws_the_boards_frames(mode, size):
    """Issue 42's prototype: the table's parts as widgets give the terminal the same
    picture as the one board, move after move, at each seat (80x24, and the compact
    layout, whose parts move)."""
    out = run("widget_parts.py", "--check", "--mode", mode, "--size", size, "--moves", "40",
              "--from", "5", "--wait", "0.1")
    assert f"board vs {mode} at {size}: 35 moves counted, 8 screens" in out, out
    assert "moves x seats whose terminals differ: 0" in out, out
