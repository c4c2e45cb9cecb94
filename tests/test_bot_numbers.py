"""``strong``'s Estimation declaration by its fitted estimator (issue 46): the curve's
distribution, the declaration it chooses, and the offline fit that recovers a curve from
logged declarations (``tests/bench/estimation_numbers.py``)."""
from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import pytest

from engine import new_match
from engine.bots import bidding
from engine.bots.cards import SUIT_INDEX, mask

sys.path.insert(0, str(Path(__file__).resolve().parent / "bench"))

import estimation_numbers  # the bench script: its fit is tested here


def test_the_fitted_spread_is_a_distribution_with_the_curve_at_the_number():
    for n, base, over in ((0, 0.4, -3.0), (4, 3.2, 1.0), (7, 8.5, 2.5), (13, 11.0, 4.0)):
        probs = bidding.est_probs(n, base, over)
        assert len(probs) == 14 and all(p >= 0 for p in probs)
        assert math.isclose(sum(probs), 1.0, abs_tol=1e-9)
        z = sum(w * x for w, x in zip(bidding.EST_MADE, bidding.est_made_x(n - base, n, over),
                                      strict=True))
        assert math.isclose(probs[n], 1 / (1 + math.exp(-z)), rel_tol=1e-9)


def _declaring_view():
    """A committee round at its first declaration (after the auction), for seat to act."""
    rng = random.Random(5)
    m = new_match("estimation", 13, seed=11)
    while m.view(m.to_act)["phase"] != "declare":
        s = m.to_act
        v = m.view(s)
        legal = v["legal"]
        pas = [a for a in legal if a["type"] == "pass"]
        bids = [a for a in legal if a["type"] == "bid"]
        a = (bids[0] if bids and v["phase"] == "auction" and not v["auction"]["bid"]
             else pas[0] if pas else rng.choice(legal))
        m.apply(s, a)
    return m.view(m.to_act)


def test_the_declaration_follows_the_fitted_curve(monkeypatch):
    """With the estimator on, the number is the one the curve makes most worth: a curve
    made only two tricks under the count moves the declaration down; off, the count's
    spread decides as before."""
    v = _declaring_view()
    hand = mask(v["hand"])
    before = bidding.declare(v, hand, "strong")["n"]
    monkeypatch.setattr(bidding, "EST_FIT_GAMES", ("estimation",))
    monkeypatch.setattr(bidding, "EST_MISS", (0.0, 1.0))
    legal = [a["n"] for a in v["legal"] if a["type"] == "declare"]
    assert len(legal) > 5
    chosen = set()
    for peak in (-2.0, 1.0):
        # made ~ exp(-4 (d - peak)^2): sure at d = peak, hopeless a trick away
        monkeypatch.setattr(bidding, "EST_MADE", (6.0 - 4 * peak * peak, 8 * peak, -4.0, 0.0, 0.0))
        n = bidding.declare(v, hand, "strong")["n"]
        base = bidding.mean_tricks(hand, SUIT_INDEX[v["trump"]], "strong")
        want = min(legal, key=lambda k: abs(k - base - peak))
        assert n == want, (peak, n, want, base)
        chosen.add(n)
    assert len(chosen) == 2
    monkeypatch.setattr(bidding, "EST_FIT", False)
    assert bidding.declare(v, hand, "strong")["n"] == before


def test_the_offline_fit_recovers_the_curve_it_was_drawn_from():
    """Declarations drawn from a known made curve: the fit gives the curve back (the
    constants in ``bidding.EST_MADE`` come from this fit over logged rounds)."""
    true = (1.0, -1.0, -0.5, 0.3, 0.1)
    rng = random.Random(3)
    xs, ys = [], []
    for _ in range(3000):
        d = rng.uniform(-2.5, 1.5)
        n = rng.randrange(0, 8)
        x = bidding.est_made_x(d, n, rng.uniform(-4, 4))
        p = 1 / (1 + math.exp(-sum(w * a for w, a in zip(true, x, strict=True))))
        xs.append(x)
        ys.append(1 if rng.random() < p else 0)
    got = estimation_numbers._logistic(xs, ys)
    assert got == pytest.approx(true, abs=0.3), got


def test_the_constants_are_the_fit_of_the_logged_declarations_in_the_repository():
    """``bidding.EST_MADE`` and ``EST_MISS`` are what the fit makes of the committed log
    (reproducible from its seed by the bench script): a constant changed by hand, or a
    log replaced without refitting, fails here."""
    rows = estimation_numbers.load(Path(__file__).resolve().parent / "bench" / "data"
                                   / "estimation_declarations_seed7.jsonl.gz")
    made, miss = estimation_numbers.fit(rows, show=False)
    assert len(rows) == 2264
    assert [round(x, 3) for x in made] == pytest.approx(bidding.EST_MADE, abs=1.5e-3)
    assert [round(x, 3) for x in miss] == pytest.approx(bidding.EST_MISS, abs=1.5e-3)
