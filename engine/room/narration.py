"""What happened at a table, in words: one line per move, trick and round.

The screens show the last few of these under the table; they are built once per
move here, not per screen. A line is a ``Said``: its English text (what ``str``
gives, for the JSON interface, logs and tests) with the template it was said from
(marked with ``N_`` for the catalogue) and its parameters, so that each screen says
it in its own player's language (``tui.screens.table_draw``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import N_ as N_
from .errors import Said as Said

# The lines a table says (tui/locale/ar.po has their Arabic).
MATCH_BEGINS = N_("The match begins")
MATCH_OVER = N_("Match over")
MATCH_WON = N_("Match over: {winners} win")
MATCH_WON_ALONE = N_("Match over: {winner} wins")     # one winner: "dua wins", not "dua win"
MATCH_DRAWN = N_("Match over: a draw between {winners}")     # tied first: nobody "wins"
LEFT = N_("{who} left the table")
TAKES_SEAT = N_("{who} takes {bot}'s seat")
TAKES_TRICK = N_("{who} takes the trick")
ROUND = N_("Round {round}: {scores}")
VOID = N_("Hand void: declarations under 11; redeal")
BY_TIMER = N_("{move} (timer)")
MOVES = {
    "take": N_("{who} takes the dash call"),
    "normal": N_("{who} plays normally"),
    "bid": N_("{who} bids {bid}"),
    "with": N_("{who} says With"),
    "pass": N_("{who} passes"),
    "call": N_("{who} calls {bid}"),
    "declare": N_("{who} declares {n}"),
    "play": N_("{who} plays {card}"),
    "other": N_("{who}: {move}"),
}

# Lines built as plain text elsewhere (the table's own), recognised by their shape.
_KNOWN = [MATCH_BEGINS, MATCH_OVER, MATCH_DRAWN, MATCH_WON_ALONE, MATCH_WON, TAKES_SEAT, LEFT, TAKES_TRICK]


def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{(\w+)\}", template)
    rx = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+)" for i, p in enumerate(parts))
    return re.compile(rx, re.DOTALL)


_PATTERNS = [(t, _pattern(t)) for t in _KNOWN]


def said(text: str) -> Said:
    """``text`` as a ``Said``: itself if it is one; a line of known shape with its
    template and parameters; otherwise the text as its own template."""
    if isinstance(text, Said):
        return text
    for template, rx in _PATTERNS:
        m = rx.fullmatch(text)
        if m is not None:
            return Said(template, **m.groupdict())
    return Said(text)


def match_over(winners: Sequence[str], draw: bool = False) -> Said:
    """The line that ends a match: who won (one alone, or several), a draw between
    those tied first (as the result's head says it: not "cem, dua win"), or no one."""
    if not winners:
        return Said(MATCH_OVER)
    if draw:
        return Said(MATCH_DRAWN, winners=", ".join(winners))
    if len(winners) == 1:
        return Said(MATCH_WON_ALONE, winner=winners[0])
    return Said(MATCH_WON, winners=", ".join(winners))


@dataclass
class Event:
    seat: int | None
    action: Mapping[str, Any] | None
    text: str                     # English (a ``Said``: each screen says it in its language)
    round: int | None = None      # the round it belongs to (screens show the current one)
    at: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.text = said(self.text)

    @property
    def template(self) -> str:
        return self.text.template if isinstance(self.text, Said) else self.text

    @property
    def params(self) -> dict[str, object]:
        return dict(self.text.params) if isinstance(self.text, Said) else {}


def describe(who: str, action: Mapping[str, Any], by: str) -> Said:
    """``who``'s move in words; ``by``: "player", "bot" or "timer"."""
    t = action.get("type")
    if t == "dash":
        text = Said(MOVES["take" if action.get("take") else "normal"], who=who)
    elif t in ("bid", "call"):
        text = Said(MOVES[t], who=who, bid=f"{action['n']}{action.get('suit') or ''}")
    elif t in ("with", "pass"):
        text = Said(MOVES[t], who=who)
    elif t == "declare":
        text = Said(MOVES[t], who=who, n=action["n"])
    elif t == "play":
        text = Said(MOVES[t], who=who, card=action["card"])
    else:
        text = Said(MOVES["other"], who=who, move=str(t))
    if by == "timer":
        text = Said(BY_TIMER, move=text)
    return text


def round_text(labels: Sequence[str], rec: Mapping[str, Any]) -> Said:
    """A finished round (an entry of the engine's ``history``) in one line."""
    if rec.get("void"):
        return Said(VOID)
    scores = rec.get("scores") or [0, 0, 0, 0]
    parts = [f"{labels[i]} {scores[i]:+d}" for i in range(4)]
    return Said(ROUND, round=rec.get("round"), scores=", ".join(parts))
