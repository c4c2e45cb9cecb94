"""Styles of play that are not ours: the opponents the benchmark and the tests put at a
table, written as people play (issue 31). Each is a small policy ``(view, rng) -> action``
that returns one of ``view["legal"]`` (a fresh dict) and sees only the view.

- ``greedy``: wins every trick it can and never plays to its number; bids and
  declares high (a hand count and one more). Never takes the dash. In Tarneeb it
  overtakes its own partner too (tricks are personal).
- ``cautious``: declares low (the count less one), bids only with a trick to spare,
  takes a trick only when it is sure or cheap (last to play, the top card of the led
  suit) and ducks everything once it has its number.
- ``over``: declares two above its count (bids one above), plays to its number.
- ``under``: declares two below its count, bids only with two to spare, plays to its
  number.
- ``dash``: takes the dash with almost any hand that is not strong, declares 0 with a
  weak hand; otherwise declares its count and plays to its number. In Tarneeb:
  declares the minimum, plays to win.
- ``random``: any legal action (Tarneeb declarations among the lowest three, or no
  match would ever end).

The hand count is ``evaluate.expected_tricks`` uncalibrated: what a person counts.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..types import Action, View
from .cards import CARD_INDEX, CODES, SUIT_CODE, SUIT_INDEX, mask, view_cards
from .evaluate import best_suit, dash_danger, expected_tricks
from .play import CHEAP, DUCK, DUMP, WIN, current_winner, fast_card

Policy = Callable[[View, random.Random], Action]

NAMES = ("greedy", "cautious", "over", "under", "dash", "random")


def _seat(v: View) -> int:
    seat = v["seat"]
    assert seat is not None
    return seat


def _count(v: View) -> float:
    hand = mask(v["hand"])
    code = v["trump"] or v["fixed_trump"]
    if code is None:
        return best_suit(hand)[1]
    return expected_tricks(hand, SUIT_INDEX[code])


def _pick(v: View, action: Action) -> Action:
    for a in v["legal"]:
        if a == action:
            return a.copy()
    return v["legal"][0].copy()


def _declare(v: View, want: float, high: bool = False) -> Action:
    ns = [a["n"] for a in v["legal"] if a["type"] == "declare"]
    w = max(0, round(want))
    n = min(ns, key=lambda n: (abs(n - w), -n if high else n))
    return _pick(v, {"type": "declare", "n": n})


def _auction(v: View, spare: float) -> Action:
    """Bid the lowest legal bid in the best suit when the count plus ``spare`` reaches it."""
    hand = mask(v["hand"])
    fixed = v["fixed_trump"] if v["kind"] == "fast" else None
    if fixed is not None:
        suit_code: str | None = None
        count = expected_tricks(hand, SUIT_INDEX[fixed])
    else:
        s, count = best_suit(hand)
        suit_code = SUIT_CODE[s]
    for a in v["legal"]:
        if a["type"] != "bid" or a.get("suit") != suit_code:
            continue
        if a["n"] <= count + spare:
            return a.copy()
        break
    return _pick(v, {"type": "pass"})


def _call(v: View) -> Action:
    """Keep the won bid (or, in a fixed round, the fixed trump)."""
    calls = [a for a in v["legal"] if a["type"] == "call"]
    state = v["auction"]
    bid = state["bid"] if state else None
    suit = bid["suit"] if bid is not None else (v["fixed_trump"] or v["trump"])
    same = [a for a in calls if a["suit"] == suit]
    return min(same or calls, key=lambda a: a["n"]).copy()


def _card(v: View, mood: int) -> Action:
    hand, others, trick, trump = view_cards(v)
    return _pick(v, {"type": "play", "card": CODES[fast_card(hand, others, trick, trump, mood)]})


def _need(v: View) -> int:
    seat = _seat(v)
    return (v["declarations"][seat] or 0) - v["tricks_taken"][seat]


def _partner_wins(v: View) -> bool:
    trick = [CARD_INDEX[e["card"]] for e in v["trick"]]
    if not trick:
        return False
    trump = SUIT_INDEX[v["trump"]] if v["trump"] is not None else -1
    return v["trick"][current_winner(trick, trump)]["seat"] == _seat(v) ^ 2


def _to_number(v: View) -> int:
    """Our fast player's mood: win while the number needs tricks, then lose."""
    if v["game"] == "tarneeb41":
        return CHEAP if _partner_wins(v) else WIN
    return WIN if _need(v) > 0 else DUMP


# Tricks over its best suit's count each style bids up to in the auction (``_auction``);
# the strong player's bid rollouts and the auction's evidence read the same table
# (``stylemodel.BID_SPARE``).
SPARE: dict[str, float] = {"greedy": 1.5, "cautious": -1.0, "over": 1.0, "under": -2.0,
                           "dash": 0.0}


def _style(v: View, *, dash: float, spare: float, shift: float, mood: Callable[[View], int],
           tarneeb_shift: float, high: bool = False) -> Action:
    phase = v["phase"]
    if phase == "play":
        return _card(v, mood(v))
    if v["game"] == "tarneeb41":
        return _declare(v, max(2.0, _count(v) + tarneeb_shift), high)
    if phase == "dash":
        return _pick(v, {"type": "dash", "take": dash_danger(mask(v["hand"])) < dash})
    if phase == "auction":
        return _auction(v, spare)
    if phase == "call":
        return _call(v)
    return _declare(v, _count(v) + shift, high)


def greedy(v: View, rng: random.Random) -> Action:
    return _style(v, dash=-1.0, spare=SPARE["greedy"], shift=1.0, tarneeb_shift=1.0, high=True,
                  mood=lambda _v: WIN)


def _cautious_mood(v: View) -> int:
    if v["game"] == "tarneeb41" and _partner_wins(v):
        return CHEAP
    if v["game"] != "tarneeb41" and _need(v) <= 0:
        return DUMP
    return DUCK


def cautious(v: View, rng: random.Random) -> Action:
    return _style(v, dash=1.0, spare=SPARE["cautious"], shift=-1.0, tarneeb_shift=-1.0, mood=_cautious_mood)


def over(v: View, rng: random.Random) -> Action:
    return _style(v, dash=0.6, spare=SPARE["over"], shift=2.0, tarneeb_shift=2.0, high=True,
                  mood=_to_number)


def under(v: View, rng: random.Random) -> Action:
    return _style(v, dash=1.0, spare=SPARE["under"], shift=-2.0, tarneeb_shift=-2.0, mood=_to_number)


def dash(v: View, rng: random.Random) -> Action:
    if v["game"] != "tarneeb41" and v["phase"] == "declare" and _count(v) < 2.0:
        return _declare(v, 0.0)
    return _style(v, dash=3.0, spare=SPARE["dash"], shift=0.0, tarneeb_shift=-13.0, mood=_to_number)


def random_legal(v: View, rng: random.Random) -> Action:
    legal = v["legal"]
    if v["game"] == "tarneeb41" and v["phase"] == "declare":
        return legal[rng.randrange(min(3, len(legal)))].copy()
    return legal[rng.randrange(len(legal))].copy()


STYLES: dict[str, Policy] = {"greedy": greedy, "cautious": cautious, "over": over,
                             "under": under, "dash": dash, "random": random_legal}


def level(name: str, budget_ms: float = 100) -> Policy:
    """One of our levels as a policy."""
    from . import choose

    def policy(v: View, rng: random.Random) -> Action:
        return choose(v, name, budget_ms, rng)
    return policy


def policy(name: str, budget_ms: float = 100) -> Policy:
    """A style by name, or one of our levels (``easy``, ``normal``, ``strong``)."""
    if name in STYLES:
        return STYLES[name]
    return level(name, budget_ms)


__all__ = ["NAMES", "STYLES", "Policy", "cautious", "dash", "greedy", "level", "over",
           "policy", "random_legal", "under"]
