"""What a finished match pays in the room: level points, badge wins, statistics.

These are rules ("Room points, stats and badges" in each game's rules: E-38 … E-40,
the calculator scoring's and Tarneeb 41's Decisions), so they are worked out here,
from the match itself; the store only writes what it is given.

    from engine.records import match_record, ranked
    for seat, rec in match_record(match, people_throughout=True).items(): ...

Pure: no I/O; nothing here knows who sat where, only seats.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .match import Match
from .types import Length

Outcome = Literal["win", "draw", "loss"]

# Level points a ranked match pays for each outcome (E-38; Tarneeb 41's Decision). The
# calculator scoring pays none (its Decision): statistics and badge wins only.
LEVEL_POINTS: dict[str, dict[Outcome, int] | None] = {
    "estimation": {"win": 30, "draw": 10, "loss": -4},           # E-38
    "estimation-kotshina": None,
    "tarneeb41": {"win": 20, "draw": 0, "loss": -4},
}
# The badge each game's wins count towards (E-40: "every game in the room has a badge";
# the calculator scoring counts towards Estimation's), and how many wins earn it.
BADGE_OF = {"estimation": "estimation", "estimation-kotshina": "estimation",
            "tarneeb41": "tarneeb41"}
BADGE_WINS = 5                                                     # E-40


def ranked(game: str, length: Length) -> bool:
    """Does a match of ``game`` at ``length`` pay level points (with four people from
    the first deal to the end)? Estimation's only at 18 rounds: "eighteen rounds is the
    usual, and ranked play rests on it" (seed 000; the 13- and 24-round matches give
    statistics only). The calculator scoring never does."""
    if LEVEL_POINTS.get(game) is None:
        return False
    if game == "estimation":
        return length in (18, None)         # None: the default length, 18
    return True


def counts_for_badge(game: str, length: Length) -> bool:
    """Do this kind of match's wins count towards a badge (people throughout)? Ranked
    Estimation and Tarneeb 41, and the calculator scoring (its Decision)."""
    return game == "estimation-kotshina" or ranked(game, length)


def badge_due(counted_wins: int) -> bool:
    """E-40: a badge at the fifth counted win."""
    return counted_wins >= BADGE_WINS


@dataclass(frozen=True)
class RoundStats:
    """One seat's rounds in one match, for the profile's percentages."""

    rounds: int = 0
    declarations: int = 0
    declarations_made: int = 0
    calls: int = 0
    calls_made: int = 0
    dash_calls: int = 0
    dash_calls_made: int = 0


@dataclass(frozen=True)
class SeatRecord:
    """What one seat's player is paid for a finished match."""

    outcome: Outcome
    stats: RoundStats
    level_points: int           # 0 unless ranked with people throughout
    counted_win: bool           # a win that counts towards ``badge``
    badge: str                  # the badge this game's wins count towards


def outcome(match: Match, seat: int) -> Outcome:
    result = match.result
    if result is None:
        raise ValueError("the match is not over")
    if seat not in result["winners"]:
        return "loss"
    return "draw" if result["draw"] else "win"


def round_stats(match: Match, seat: int) -> RoundStats:
    """Declarations and calls made and dash calls kept, over the match's played rounds
    (a dealt-again Tarneeb hand is no round)."""
    rounds = [r for r in match.history if not r.get("void")]
    decl = made = calls = calls_made = dash = dash_made = 0
    for r in rounds:
        if seat in r["dash_players"]:
            dash += 1
            dash_made += r["tricks_taken"][seat] == 0
            continue
        decl += 1
        made += bool(r["made"][seat])
        if r["caller"] == seat and not r.get("all_pass"):
            calls += 1
            calls_made += bool(r["made"][seat])
    return RoundStats(len(rounds), decl, made, calls, calls_made, dash, dash_made)


def match_record(match: Match, people_throughout: bool) -> dict[int, SeatRecord]:
    """Every seat's record of a finished match. ``people_throughout``: the four seats
    were held by people from the first deal to the end (no computer player, nobody who
    took a computer player's seat): the only matches that pay level points and count
    badge wins (E-38's Decision)."""
    game, length = match.game, match.length
    points = LEVEL_POINTS.get(game) if ranked(game, length) and people_throughout else None
    badges = people_throughout and counts_for_badge(game, length)
    out: dict[int, SeatRecord] = {}
    for seat in range(4):
        result = outcome(match, seat)
        out[seat] = SeatRecord(result, round_stats(match, seat),
                               points[result] if points else 0,
                               badges and result == "win", BADGE_OF[game])
    return out
