"""The fast card player: a few bit operations per card.

It is the ``easy`` and ``normal`` card play and the rollout policy of ``strong``.
Three moods:

- ``WIN``: the declaration still needs tricks: cash sure winners, win cheaply when
  last to play, otherwise try with the best winner;
- ``DUMP`` (Estimation, number made or a dash player): lose on purpose; under a
  winning card throw the highest card that still loses; void, throw the highest card;
- ``CHEAP`` (Tarneeb, partner already winning the trick): play the lowest card and
  never trump the partner's trick;
- ``DUCK`` (a cautious player that still needs tricks, ``styles.py``): take only a
  trick that is sure or cheap (last to play, or the highest card left in the led
  suit), otherwise play low; lead a sure winner or else the lowest card.
"""

from __future__ import annotations

from ..cards import trick_winner as current_winner  # E-27, T-16: one definition
from .cards import ABOVE, SM, hi, lo

WIN, DUMP, CHEAP, DUCK = 0, 1, 2, 3

__all__ = ["CHEAP", "DUCK", "DUMP", "WIN", "current_winner", "fast_card"]


def _rank_max(m: int) -> int:
    """The card of ``m`` with the highest rank (any suit; ties: the lower suit index)."""
    best, br = -1, -1
    for s in (0, 1, 2, 3):
        sub = m & SM[s]
        if sub:
            c = hi(sub)
            r = c % 13
            if r > br:
                best, br = c, r
    return best


def _rank_min(m: int) -> int:
    best, br = -1, 99
    for s in (0, 1, 2, 3):
        sub = m & SM[s]
        if sub:
            c = lo(sub)
            r = c % 13
            if r < br:
                best, br = c, r
    return best


def fast_card(hand: int, others: int, trick: list[int], trump: int, mood: int,
              w: int = -1) -> int:
    """The card to play. ``others``: every card still unplayed outside this hand;
    ``w``: the card winning the trick so far if the caller knows it."""
    tmask = SM[trump] if trump >= 0 else 0
    if not trick:
        return _lead(hand, others, tmask, mood)
    led = trick[0] // 13
    follow = hand & SM[led]
    legal = follow or hand
    if legal & (legal - 1) == 0:
        return lo(legal)
    if w < 0:
        w = trick[current_winner(trick, trump)]
    ws = w // 13
    if follow:
        winners = follow & ABOVE[w] if ws == led else 0
    elif tmask:
        winners = hand & (ABOVE[w] if ws == trump else tmask)
    else:
        winners = 0
    last = len(trick) == 3
    if mood == WIN or mood == DUCK:
        if winners:
            if last or (mood == WIN and not follow):
                return lo(winners)                      # cheapest winner, lowest ruff
            if follow:
                # The lowest winner nobody can beat in suit (sure: take it); WIN then
                # tries with the best, DUCK plays low.
                m = winners
                while m:
                    c = lo(m)
                    if not others & ABOVE[c]:
                        return c
                    m &= m - 1
                if mood == WIN:
                    return hi(winners)
    elif mood == DUMP:
        # Lose on purpose.
        losers = legal & ~winners
        if losers:
            return _rank_max(losers)
        return hi(legal) if last else lo(legal)
    # WIN that cannot win, DUCK not taking it, CHEAP: the cheapest card (keep trumps).
    if follow:
        return lo(follow)
    side = hand & ~tmask
    return _rank_min(side or hand)


def _lead(hand: int, others: int, tmask: int, mood: int) -> int:
    if mood == WIN:
        trumps = hand & tmask
        if trumps:
            c = hi(trumps)
            if others & tmask and not others & ABOVE[c]:
                return c                                # draw trumps with the top one
        best, blen = -1, -1
        for s in (0, 1, 2, 3):
            sub = hand & SM[s] & ~tmask
            if sub:
                c = hi(sub)
                if not others & ABOVE[c]:
                    n = bin(others & SM[s]).count("1")
                    if n > blen:
                        best, blen = c, n
        if best >= 0:
            return best
        # No sure winner: lead low from the longest side suit.
        best, blen = -1, -1
        for s in (0, 1, 2, 3):
            sub = hand & SM[s] & ~tmask
            if sub:
                n = bin(sub).count("1")
                if n > blen:
                    best, blen = lo(sub), n
        return best if best >= 0 else lo(hand)
    if mood == DUCK:
        for s in (0, 1, 2, 3):
            sub = hand & SM[s]
            if sub:
                c = hi(sub)
                if not others & ABOVE[c] and (sub & tmask or not others & tmask):
                    return c                            # a sure winner
        return _rank_min(hand & ~tmask or hand)
    # DUMP / CHEAP: the lowest card that someone can still beat.
    best, br = -1, 99
    for s in (0, 1, 2, 3):
        sub = hand & SM[s]
        if sub:
            c = lo(sub)
            r = c % 13 + (13 if sub & tmask else 0)
            if not others & ABOVE[c]:
                r += 30
            if r < br:
                best, br = c, r
    return best
