"""A lean round simulator for rollouts: four hand masks, the trick as a list of ints.

``rollout`` plays the rest of a round with the fast player for every seat and
returns the tricks taken. It knows only what the caller hands it (a sampled deal).
"""

from __future__ import annotations

import random

from .cards import ABOVE, SM, any_card, lo
from .play import CHEAP, DUCK, DUMP, WIN, _rank_min, current_winner, fast_card


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
M_NUM, M_GREEDY, M_DUCK, M_RANDOM, M_SEE = 0, 1, 2, 3, 4


def _beats(c: int, hand: int, led: int, trump: int) -> bool:
    """Can ``hand``, later in a trick led in ``led``, beat ``c`` (winning it so far)?"""
    s = c // 13
    if hand & SM[led]:
        return s == led and bool(hand & ABOVE[c])
    if trump < 0 or not hand & SM[trump]:
        return False
    return s != trump or bool(hand & ABOVE[c])


def seen_card(hands: list[int], seat: int, trick: list[int], trump: int, wc: int,
              everyone: int) -> int:
    """The card of a seat that needs tricks and sees the (sampled) deal: the cheapest
    card that wins the trick whatever the seats still to play hold, or else the
    cheapest card; leading, the lowest card nobody can beat, or else the fast lead."""
    hand = hands[seat]
    tmask = SM[trump] if trump >= 0 else 0
    if trick:
        led = trick[0] // 13
        follow = hand & SM[led]
        legal = follow or hand
        if legal & (legal - 1) == 0:
            return lo(legal)
        ws = wc // 13
        if follow:
            winners = follow & ABOVE[wc] if ws == led else 0
        elif tmask:
            winners = hand & (ABOVE[wc] if ws == trump else tmask)
        else:
            winners = 0
        later = [hands[(seat + i) & 3] for i in range(1, 4 - len(trick))]
        m = winners
        while m:
            c = lo(m)
            if not any(_beats(c, h, led, trump) for h in later):
                return c
            m &= m - 1
        if follow:
            return lo(follow)
        return _rank_min(hand & ~tmask or hand)
    others = [hands[(seat + i) & 3] for i in (1, 2, 3)]
    best, blen = -1, -1
    for s in (0, 1, 2, 3):
        m = hand & SM[s]
        while m:
            c = lo(m)
            if not any(_beats(c, h, s, trump) for h in others):
                # trumps first while the others hold some, then the longest suit
                n = bin(everyone & ~hand & SM[s]).count("1") + (20 if s == trump else 0)
                if n > blen:
                    best, blen = c, n
                break
            m &= m - 1
    if best >= 0:
        return best
    return fast_card(hand, everyone & ~hand, trick, trump, WIN, wc)


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
        elif mode == M_SEE and decl[seat] > taken[seat]:
            c = seen_card(hands, seat, trick, trump, wc, everyone)
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
