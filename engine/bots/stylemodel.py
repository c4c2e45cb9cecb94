"""The style models of the opponent model (``model.py``): how a seat of each style plays
its cards in the rollouts and what its declarations say of its hand. Apart from
``model.py`` so that the card player (``montecarlo.py``) can read them without
importing the model that calls it."""

from __future__ import annotations

import random
from typing import NamedTuple

from .sim import M_DUCK, M_GREEDY, M_NUM, M_RANDOM
from .styles import SPARE as _STYLE_SPARE


class Style(NamedTuple):
    """A style model: how a seat plays and what its declarations say of its hand."""
    name: str
    mode: int          # rollout policy (``sim.M_*``)
    offset: float      # declaration minus the raw hand count (``expected_tricks``)
    sd: float          # spread of the declaration around it
    dash: float        # the dash danger under which it takes the dash
    evidence: bool     # whether its declarations say anything of its hand


# Estimation and Tarneeb share the names; the numbers are each style's own rule
# (``styles.py``) or, for ``num`` (our levels), their calibration.
MODELS: tuple[Style, ...] = (
    Style("num", M_NUM, 0.2, 0.8, 1.0, True),
    Style("greedy", M_GREEDY, 1.0, 0.8, -1.0, True),
    Style("cautious", M_DUCK, -1.0, 0.8, 1.0, True),
    Style("over", M_NUM, 2.0, 0.8, 0.6, True),
    Style("under", M_NUM, -2.0, 0.8, 1.0, True),
    Style("dash", M_NUM, 0.0, 1.0, 3.0, True),
    Style("random", M_RANDOM, 0.0, 1.0, 99.0, False),
)
TARNEEB_MODELS: tuple[Style, ...] = (
    Style("num", M_NUM, 0.4, 1.0, 0.0, True),
    Style("greedy", M_GREEDY, 1.0, 0.8, 0.0, True),
    Style("cautious", M_DUCK, -1.0, 0.8, 0.0, True),
    Style("over", M_NUM, 2.0, 0.8, 0.0, True),
    Style("under", M_NUM, -2.0, 0.8, 0.0, True),
    Style("dash", M_NUM, 0.0, 1.0, 0.0, False),
    Style("random", M_RANDOM, 0.0, 1.0, 0.0, False),
)
NAMES: tuple[str, ...] = tuple(s.name for s in MODELS)
# A seat bids a suit up to its count plus this (the styles' own spare, ``styles.SPARE``;
# ``num``: our levels' calibrated count less their margin; ``random`` its count): what
# the bid rollouts (``contract.py``) and the auction's evidence (``montecarlo.py``) read.
BID_SPARE: dict[str, float] = {"num": 0.25, "random": 0.0, **_STYLE_SPARE}
K = len(MODELS)
NUM = 0                 # the index of our own rollout policy's model

# Weights: per seat, one weight per model (the own seat: all on ``num``).
Weights = list[list[float]]


def models(game: str) -> tuple[Style, ...]:
    return TARNEEB_MODELS if game == "tarneeb41" else MODELS


def draw(w: Weights, rng: random.Random) -> list[int]:
    """A model index for every seat, drawn from its weights."""
    out = []
    for ws in w:
        r = rng.random()
        pick = len(ws) - 1
        for k, x in enumerate(ws):
            r -= x
            if r < 0:
                pick = k
                break
        out.append(pick)
    return out


def is_plain(w: Weights) -> bool:
    """Every seat on our own policy alone (the model says nothing)."""
    return all(ws[NUM] >= 1.0 - 1e-9 for ws in w)


__all__ = [
    "BID_SPARE",
    "MODELS",
    "NAMES",
    "NUM",
    "TARNEEB_MODELS",
    "K",
    "Style",
    "Weights",
    "draw",
    "is_plain",
    "models",
]
