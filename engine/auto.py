"""A simple, always-legal player: the turn timer's choice for Estimation declarations
and cards until the computer players (``engine.bots``) replace it."""

from __future__ import annotations

from typing import Protocol

from .cards import NT, SUIT_MASKS, cards_of, trick_winner


class Playing(Protocol):
    """What the simple player reads of a match in play (``engine.match.Match``): this
    module imports nothing of the match, so the two are no circle (issue 42)."""

    @property
    def trick(self) -> list[int]: ...

    @property
    def trump(self) -> int | None: ...

    @property
    def declarations(self) -> list[int | None]: ...

    @property
    def taken(self) -> list[int]: ...

    def legal_play_mask(self, seat: int) -> int: ...


def estimate_tricks(hand: int, trump: int | None) -> int:
    """Sure tricks before hoped-for ones: aces, guarded kings, and a long trump's tail."""
    value = 0.0
    for s in range(4):
        cards = cards_of(hand & SUIT_MASKS[s])
        ranks = {c % 13 for c in cards}
        length = len(cards)
        if 12 in ranks:
            value += 1
        if 11 in ranks and length >= 2:
            value += 0.7
        if 10 in ranks and length >= 3:
            value += 0.4
        if trump is not None and trump != NT and s == trump and length > 3:
            value += length - 3
    return round(value)


def choose_card(match: Playing, seat: int) -> int:
    """Win while the declaration needs tricks, lose on purpose once it is made."""
    legal = cards_of(match.legal_play_mask(seat))
    if len(legal) == 1:
        return legal[0]
    trick = match.trick
    trump = match.trump
    assert trump is not None                 # cards are played only once the trump is known
    decl = match.declarations[seat]
    need = (decl if decl is not None else 0) - match.taken[seat]

    def wins(card: int) -> bool:
        return trick_winner([*trick, card], trump) == len(trick)

    by_rank = sorted(legal, key=lambda c: (c % 13, c))
    if not trick:
        # Leading: with tricks to win, lead the strongest card; else the lowest.
        return by_rank[-1] if need > 0 else by_rank[0]
    winners = [c for c in by_rank if wins(c)]
    losers = [c for c in by_rank if not wins(c)]
    if need > 0:
        if winners:
            # Last to play: the cheapest winner is enough; otherwise play the strongest.
            return winners[0] if len(trick) == 3 else winners[-1]
        return by_rank[0]
    # Made (or dash): throw the highest card that still loses, else the lowest winner.
    return losers[-1] if losers else winners[0]
