"""The catalogue: which games, lengths, seats and computer-player levels exist.

One place for these facts: the engine checks against them, the room offers them
to people and programs, and the screens list them.
"""

from __future__ import annotations

from typing import TypeGuard

from .errors import N_
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
