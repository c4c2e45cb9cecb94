"""Computer players for every phase of Estimation (both scorings) and Tarneeb 41.

    from engine import bots
    action = bots.choose(m.view(seat), level="strong", budget_ms=100)
    m.apply(seat, action)

``choose`` sees only a seat's view — exactly what a person in that seat sees — and
returns one of ``view["legal"]`` (a fresh dict). Levels:

- ``easy``: fast rules: plain hand count for dash, bids and declarations; the fast
  card player (win while the number needs tricks, lose on purpose once made; a dash
  player throws its highest card when void; never trump the partner's winning trick).
- ``normal``: calibrated hand-count bidding and declarations (expected value of each
  number under the real table: With, risk, the last declarer's position, bigger bids
  when far behind late; Tarneeb: the 41 qualification needs the partner above zero),
  with the fast card player.
- ``strong``: ``normal``'s bidding, then in Estimation pass, With, the bids near its
  count in the hand's best suits and the call weighed by rollouts of the round
  (``contract.py``; ``bidding.BID_EV_GAMES``); Estimation declarations on its own calibration
  (it plays to its number by Monte Carlo, so it declares a little under the count:
  ``bidding.STRONG_*``), in the calculator then the numbers within two of that one
  weighed by rollouts of the round on sampled deals under the real scoring
  (``declaring.py``; ``bidding.DECLARE_EV_GAMES``); Tarneeb 41
  declarations by the hand's expected points for its team with the chance the hand is
  void (``bidding.TAR_MADE``, ``TAR_REST``, ``TAR_LATER``: fitted over its own hands);
  determinised Monte Carlo card play (``montecarlo.py``;
  hidden cards sampled with the declarations as soft evidence, and in Estimation moved
  towards deals the others' plays so far are explained by: ``explain_play``) inside a
  hard time budget (``budget_ms``, default 100). It reads the table (``model.py``): each other
  seat's style, weighed from what it has shown, decides how that seat plays in the
  rollouts and what its declaration says of its hand, and shifts strong's own count
  in its bids, calls and declarations.

Decisions are synchronous and pure; the server runs them off its event loop through
``engine.bots.worker.BotPool``.
"""

from __future__ import annotations

import random
import time

from ..catalogue import LEVELS
from ..types import Action, View
from . import bidding, contract, declaring, model
from .cards import CODES, mask, view_cards
from .montecarlo import choose_card as mc_card
from .play import CHEAP, DUMP, WIN, current_winner, fast_card

# Tests set this to fail loudly instead of falling back to the first legal action.
STRICT = False
# ``strong`` reads the table (``model.py``); tests switch it off to see that it matters.
READ_TABLE = True
# A fixed number of Monte Carlo samples for ``strong``'s card play (the budget is then
# only a ceiling): tests set it to get the same answer on any machine.
SAMPLES: int | None = None

__all__ = ["LEVELS", "choose", "fast_play", "reads_table"]


def fast_play(v: View) -> str:
    """The fast card player's choice from a view (card code)."""
    seat = v["seat"]
    assert seat is not None
    hand, others, trick, trump = view_cards(v)
    if v["game"] == "tarneeb41":
        mood = WIN
        if trick and v["trick"][current_winner(trick, trump)]["seat"] == seat ^ 2:
            mood = CHEAP
    else:
        d = v["declarations"][seat] or 0
        mood = WIN if d > v["tricks_taken"][seat] else DUMP
    return CODES[fast_card(hand, others, trick, trump, mood)]


def reads_table(view: View) -> bool:
    """Does ``strong`` read the other seats' styles (``model.py``) at this view? Not in
    Tarneeb 41: there the model cost it 6.3 ± 4.5 points of match win rate beside a
    partner of another style (docs/bots.md), and gained nothing beyond the noise beside
    its own kind. The review (``review.py``) reads the table where it does."""
    return READ_TABLE and view["game"] != "tarneeb41"


def _bids_by_points(view: View, level: str, counted: bool) -> bool:
    """``strong``'s bid and call by rollouts of the round (``contract.py``) here?"""
    return (level == "strong" and bidding.BID_EV and not counted
            and view["game"] in bidding.BID_EV_GAMES)


def choose(view: View, level: str = "strong", budget_ms: float = 100,
           rng: random.Random | None = None, samples: int | None = None,
           counted: bool = False) -> Action:
    """One legal action for the seat of ``view`` (``view["legal"]`` must not be empty).

    ``samples``: the strong player's budget in samples instead of time (its cards and
    its Estimation declaration); with a seeded ``rng`` the choice is then the same
    wherever and whenever it is made. ``counted``: ``strong``'s Estimation declaration
    by the hand count alone, without its rollouts (the review's samples of the seats
    still to declare: many a decision)."""
    start = time.perf_counter()
    legal = view["legal"]
    if not legal:
        raise ValueError("nothing to choose: it is not this seat's turn")
    if level not in LEVELS:
        raise ValueError(f"level is one of {', '.join(LEVELS)}")
    if len(legal) == 1:
        return legal[0].copy()
    if rng is None:
        rng = random.Random()
    phase = view["phase"]
    action: Action | None = None
    reads = reads_table(view)
    if phase == "play":
        code = None
        if level == "strong":
            w = model.weights(view) if reads else None
            code = mc_card(view, budget_ms, rng, start, prefer_card=fast_play(view), w=w,
                           samples=samples if samples is not None else SAMPLES)
        if code is None:
            code = fast_play(view)
        action = {"type": "play", "card": code}
    else:
        hand = mask(view["hand"])
        shift = 0.0
        if level == "strong" and reads and phase != "dash":
            shift = model.trick_shift(view)
        if view["game"] == "tarneeb41":
            action = bidding.tarneeb_declare(view, hand, level, shift)
        elif phase == "dash":
            risk = model.dash_risk(view) if level == "strong" and reads else 0.0
            action = bidding.dash(view, hand, level, risk)
            if (level == "strong" and bidding.DASH_EV and not counted
                    and view["game"] in bidding.DASH_EV_GAMES):
                w = model.weights(view) if reads else None
                action = contract.dash(view, action, model.trick_shift(view, w) if w else 0.0,
                                       budget_ms, rng, start, w=w,
                                       samples=samples if samples is not None else SAMPLES)
        elif phase == "auction":
            action = bidding.auction(view, hand, level, shift)
            if _bids_by_points(view, level, counted):
                w = model.weights(view) if reads else None
                action = contract.bid(view, action, shift, budget_ms, rng, start, w=w,
                                      samples=samples if samples is not None else SAMPLES)
        elif phase == "call":
            action = bidding.call(view, hand, level, shift)
            if _bids_by_points(view, level, counted) and view["kind"] != "fixed":
                w = model.weights(view) if reads else None
                action = contract.call(view, action, shift, budget_ms, rng, start, w=w,
                                       samples=samples if samples is not None else SAMPLES)
        elif phase == "declare":
            action = bidding.declare(view, hand, level, shift)
            if (level == "strong" and bidding.DECLARE_EV and not counted
                    and view["game"] in bidding.DECLARE_EV_GAMES):
                w = model.weights(view) if reads else None
                n = declaring.choose(view, action["n"], budget_ms, rng, start, w=w,
                                     samples=samples if samples is not None else SAMPLES)
                action = {"type": "declare", "n": n}
    for a in legal:
        if a == action:
            return a.copy()
    if STRICT:
        raise AssertionError(f"bot chose {action!r}, not legal in phase {phase}")
    return legal[0].copy()     # never reached by design; a legal move whatever happens
