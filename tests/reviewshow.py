"""A round's review as the review screen shows it, fixed for screen tests (golden
screens, phones, Arabic): a first round of Estimation played by the golden screens'
policy, and a review of seat 0's decisions written here — not computed, so the screens
change only with the screen, never with the computer players' play."""

from __future__ import annotations

import asyncio
from typing import Any

from stacked import quick_choice

from engine import new_match, replay
from engine.bots.review import review_plan

SEED = 5
MARKS = (None, "inaccuracy", None, None, "mistake", None, "blunder")
LOST = {None: 0.0, "inaccuracy": 2.4, "mistake": 6.1, "blunder": 12.3}


def policy(m: Any, seat: int) -> dict[str, Any]:
    """Seat 0 bids the lowest bid it may (so it calls); everyone else declines the dash
    and passes, declares near 3, plays the first legal card (tests/test_golden.py)."""
    legal = m.legal_actions(seat)
    bids = [a for a in legal if a["type"] == "bid"]
    if seat == 0 and bids and not m.history:
        return bids[0]
    return quick_choice(legal)


def record() -> dict[str, Any]:
    """The match's record once its first round has ended."""
    m = new_match("estimation", 13, seed=SEED)
    while not m.history:
        s = m.to_act
        m.apply(s, policy(m, s))
    return m.to_dict()


def fixed_review(rec: dict[str, Any], round_no: int = 1, seat: int = 0) -> dict[str, Any]:
    """A review of ``seat``'s decisions in the round as the room would send it: every
    decision with one legal action forced, the others marked in turn (``MARKS``), a
    marked one with another legal action suggested."""
    plan = review_plan(rec, round_no, seat)
    decisions = []
    for k, i in enumerate(plan["indices"]):
        at = replay({**rec, "log": rec["log"][:i]})
        legal = at.legal_actions(seat)
        chosen = rec["log"][i][1]
        d: dict[str, Any] = {"index": i, "phase": at.view(seat)["phase"], "chosen": chosen,
                             "suggested": chosen, "ev_chosen": None, "ev_suggested": None,
                             "noise": 0.0, "samples": 0}
        if len(legal) == 1:
            d["forced"] = True
        else:
            mark = MARKS[k % len(MARKS)]
            ev = -4.5 - k % 7
            d.update(ev_chosen=ev, ev_suggested=ev + LOST[mark], noise=0.6, samples=256)
            if mark is not None:
                d["mark"] = mark
                d["suggested"] = next(a for a in reversed(legal) if a != chosen)
        decisions.append(d)
    return {"type": "review", "round": round_no, "seat": seat, "worth": 3.4,
            "declared": plan["declared"], "decisions": decisions}


def loader(body: dict[str, Any]):
    """A review screen's loader that has the review at once."""
    def load(seat: int) -> asyncio.Future[dict[str, Any]]:
        fut = asyncio.get_running_loop().create_future()
        fut.set_result(body)
        return fut
    return load


def followed(rec: dict[str, Any], body: dict[str, Any]) -> int:
    """The place in the list of the first card seat 0 played to a trick already led
    (the screen then shows the trick too)."""
    for k, d in enumerate(body["decisions"]):
        if d["phase"] == "play":
            v = replay({**rec, "log": rec["log"][:d["index"]]}).view(0)
            if v["trick"]:
                return k
    raise AssertionError("seat 0 led every trick")


async def open_review(app, pilot, names: list[str], at: int | None = None):
    """The review screen over whatever ``app`` shows, at decision ``at`` (by default
    the first card played to a trick led by another)."""
    from tui.screens.review import ReviewScreen
    rec = record()
    body = fixed_review(rec)
    app.push_screen(ReviewScreen(rec, 1, 0, names, loader(body)))
    await pilot.pause()
    await pilot.pause()
    screen = app.screen
    for _ in range(followed(rec, body) if at is None else at):
        await pilot.press("right")
    await pilot.pause()
    return screen, rec, body
