"""The catalogue: which games, lengths, seats and computer-player levels exist.

One place for these facts: the engine checks against them, the room offers them
to people and programs, and the screens list them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeGuard

from .errors import N_, pgettext
from .types import Length

GAMES = ("estimation", "estimation-kotshina", "tarneeb41")
# Per game, the lengths a match may have (the rules' "Match lengths"); the first is
# the default. Tarneeb 41 has one: play to 41.
LENGTHS: dict[str, tuple[Length, ...]] = {
    "estimation": (18, 13, 24),
    "estimation-kotshina": ("micro", "mini", "full"),
    "tarneeb41": (None,),
}
# Said in the player's language where drawn (entries of the message catalogue).
TITLES = {
    "estimation": N_("Estimation"),
    "estimation-kotshina": N_("Estimation (calc)"),
    "tarneeb41": N_("Tarneeb 41"),
}
# Each game's summary for the help, one catalogue entry a sentence (English: one paragraph).
SUMMARIES: dict[str, tuple[str, ...]] = {
    "estimation": (
        N_("Estimation (Egyptian committee rules): 4 players, each alone, 13 tricks a round."),
        N_("Each round: dash offer (promise no trick; at most two), auction (4–13 tricks and "
           "a suit; NT > ♠ > ♥ > ♦ > ♣; With joins the standing bid), the caller confirms or "
           "raises, everyone declares (the last one may not make the total 13), then play: "
           "follow suit, trump wins."),
        N_("Aim for exactly your number."),
        N_("Made: 13 + tricks and bonuses; missed: minus the difference and bonuses."),
    ),
    "estimation-kotshina": (
        N_("Estimation, calculator scoring: auction rounds as in Estimation (without With), "
           "then five fixed rounds (NT ♠ ♥ ♦ ♣) where everyone declares 0–13 and the highest "
           "declarer is the caller (8 or more may change the trump)."),
        N_("Made: 10 + tricks; missed: minus the difference."),
        N_("Caller and With ±10, sole winner/loser ±10, risk for the last declarer; if all "
           "four miss (Sa'ayda) the next round counts double."),
    ),
    "tarneeb41": (
        N_("Tarneeb 41 (Syrian): partners sit opposite."),
        N_("The dealer's last card is shown; trump is the other suit of its colour."),
        N_("Everyone declares 2–13 tricks (a total under 11 voids the hand)."),
        N_("Take at least your number: made adds it, failed subtracts it."),
        N_("A team wins when one player reaches 41 while the partner is above zero."),
    ),
}
SEATS = (0, 1, 2, 3)
LEVELS = ("easy", "normal", "strong")      # computer players (engine.bots.choose)
DEFAULT_LEVEL = "strong"


def default_length(game: str) -> Length:
    """The length a match of ``game`` has when none is asked for."""
    return LENGTHS[game][0]


def is_seat(value: object) -> TypeGuard[int]:
    """0–3 as a real int: ``True`` is an int in Python, but it is not a seat."""
    return type(value) is int and 0 <= value <= 3


def title(game: str) -> str:
    """The game's name as people read it (an unknown id as it is)."""
    return TITLES.get(game, game)


@dataclass(frozen=True)
class Terms:
    """What differs by game where people see it: the one place screens ask (issue 42),
    so that no screen compares game ids. Each field is a fact of the game's rules."""

    game: str
    title: str              # the game's name (a message-catalogue entry)
    context: str            # message context of the game's own words ("trump", "hand")
    hands: bool             # its rounds are called hands (Tarneeb 41: "Hand 3")
    teams: bool             # two teams of partners across the table (T41-2)
    with_call: bool         # a bidder may say With (Estimation's committee scoring, E-9)
    counted: bool           # a match is a number of rounds ("Round 3 of 18"), not to a score
    length_in_rounds: bool  # a length is said as rounds ("18 rounds"); else its own word
    badge: str              # the badge its wins count towards (E-40)
    caller: bool            # a round has a caller, the auction's winner (not Tarneeb 41)
    summary: tuple[str, ...]    # what the help says of it, a catalogue entry a sentence


TERMS: dict[str, Terms] = {
    "estimation": Terms("estimation", TITLES["estimation"], "estimation", hands=False,
                        teams=False, with_call=True, counted=True, length_in_rounds=True,
                        badge="estimation", caller=True, summary=SUMMARIES["estimation"]),
    "estimation-kotshina": Terms("estimation-kotshina", TITLES["estimation-kotshina"],
                                 "estimation", hands=False, teams=False, with_call=False,
                                 counted=True, length_in_rounds=False, badge="estimation",
                                 caller=True, summary=SUMMARIES["estimation-kotshina"]),
    "tarneeb41": Terms("tarneeb41", TITLES["tarneeb41"], "tarneeb", hands=True, teams=True,
                       with_call=False, counted=False, length_in_rounds=False,
                       badge="tarneeb41", caller=False, summary=SUMMARIES["tarneeb41"]),
}


# The games' own words, said in a game's context (``Terms.context``) where drawn:
# marked here, where the contexts are named.
GAME_WORDS = (pgettext("estimation", "trump"), pgettext("tarneeb", "trump"),
              N_("Trump"), pgettext("tarneeb", "Trump"))


def terms(game: str | None) -> Terms:
    """The description of ``game``; an unknown id reads as Estimation's (a record from an
    older room, say), so a screen never fails on it."""
    return TERMS.get(game or "", TERMS["estimation"])
