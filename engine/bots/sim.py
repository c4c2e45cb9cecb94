"""A lean round simulator for rollouts: four hand masks, the trick as a list of ints.

``rollout`` plays the rest of a round with the fast player for every seat and
returns the tricks taken. It knows only what the caller hands it (a sampled deal).
"""

from __future__ import annotations

import random

from .cards import SM, any_card
from .play import CHEAP, DUCK, DUMP, WIN, current_winner, fast_card


def rollout(hands: list[int], trick: list[int], leader: int, trump: int,
            taken: list[int], decl: list[int], tarneeb: bool) -> list[int]:
    """Play to the end of the round. ``hands``, ``trick`` and ``taken`` are modified."""
    everyone = hands[0] | hands[1] | hands[2] | hands[3]
    seat = (leader + len(trick)) & 3
    # The winning card and its seat, kept as the trick grows.
    if trick:
        wi = current_winner(trick, trump)
        wc, wseat = trick[wi], (leader + wi) & 3
    else:
        wc, wseat = -1, -1
    while everyone:
        hand = hands[seat]
        if tarneeb:
            mood = CHEAP if wseat == seat ^ 2 else WIN
        else:
            mood = WIN if decl[seat] > taken[seat] else DUMP
        c = fast_card(hand, everyone & ~hand, trick, trump, mood, wc)
        bit = 1 << c
        hands[seat] = hand ^ bit
        everyone ^= bit
        if not trick:
            wc, wseat = c, seat
        elif c // 13 == wc // 13:
            if c > wc:
                wc, wseat = c, seat
        elif c // 13 == trump:
            wc, wseat = c, seat
        trick.append(c)
        if len(trick) == 4:
            taken[wseat] += 1
            leader = seat = wseat
            trick = []
            wc, wseat = -1, -1
        else:
            seat = (seat + 1) & 3
    return taken


# Rollout policies by seat for ``rollout_modes`` (the opponent models of ``model.py``).
M_NUM, M_GREEDY, M_DUCK, M_RANDOM = 0, 1, 2, 3


def rollout_modes(hands: list[int], trick: list[int], leader: int, trump: int,
                  taken: list[int], decl: list[int], tarneeb: bool, modes: list[int],
                  rng: random.Random) -> list[int]:
    """``rollout`` with a policy per seat: ``M_NUM`` our fast player (win while the
    number needs tricks, then lose; Tarneeb: never over the partner), ``M_GREEDY`` win
    whatever it can, ``M_DUCK`` take only sure or cheap tricks while the number needs
    them, then lose, ``M_RANDOM`` any legal card."""
    everyone = hands[0] | hands[1] | hands[2] | hands[3]
    seat = (leader + len(trick)) & 3
    if trick:
        wi = current_winner(trick, trump)
        wc, wseat = trick[wi], (leader + wi) & 3
    else:
        wc, wseat = -1, -1
    while everyone:
        hand = hands[seat]
        mode = modes[seat]
        if mode == M_RANDOM:
            legal = hand & SM[trick[0] // 13] if trick else 0
            c = any_card(legal or hand, rng)
        else:
            if mode == M_GREEDY:
                mood = WIN
            elif tarneeb:
                mood = CHEAP if wseat == seat ^ 2 else (DUCK if mode == M_DUCK else WIN)
            elif decl[seat] > taken[seat]:
                mood = DUCK if mode == M_DUCK else WIN
            else:
                mood = DUMP
            c = fast_card(hand, everyone & ~hand, trick, trump, mood, wc)
        bit = 1 << c
        hands[seat] = hand ^ bit
        everyone ^= bit
        if not trick:
            wc, wseat = c, seat
        elif c // 13 == wc // 13:
            if c > wc:
                wc, wseat = c, seat
        elif c // 13 == trump:
            wc, wseat = c, seat
        trick.append(c)
        if len(trick) == 4:
            taken[wseat] += 1
            leader = seat = wseat
            trick = []
            wc, wseat = -1, -1
        else:
            seat = (seat + 1) & 3
    return taken
