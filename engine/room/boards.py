"""A table that plays one board of a duplicate event (``engine.duplicate``,
``duplicate.py``): which event, which board, whose entry, and how its computer players
decide. A table with ``Table.event`` set is played by its entrant alone against three
computer players: nobody else sits, watches, takes a seat or chats there, leaving keeps
the board where it was, and no turn timer moves for an entrant who is away."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

from engine import Board, check_board
from engine.duplicate import decision_seed

from .errors import N_

# Refusals at an event's board (said in the player's language).
NO_WATCHING = N_("Nobody watches an event's board: the deals are secret until the event "
                 "closes.")
NO_CHAT = N_("There is no chat at an event's board.")
NOT_YOURS = N_("Board {board} of event {event} is another entrant's.")

# A computer player's decision at an event's board is waited for this long (seconds)
# before the simple player moves instead (which would make the board play otherwise for
# this entrant than for another): many times a decision's usual time.
DEADLINE_S = 30.0


class EventBoardSettings(TypedDict):
    """``EventBoard.settings()``: kept as JSON with the table's settings."""
    id: int
    board: int
    boards: int
    spec: Board
    seed: int
    samples: int
    entrant: str
    ranked: bool


@dataclass
class EventBoard:
    """What a board's table knows of its event.

    ``entrant``: who the entry is (a key's fingerprint: all its names share one entry;
    a guest's identity, never ranked); ``seed``: the board's (its deal, and its computer
    players' decisions with ``samples`` samples each: ``decision_seed``)."""
    event: int
    board: int
    boards: int
    spec: Board
    seed: int
    samples: int
    entrant: str
    ranked: bool = True

    def settings(self) -> EventBoardSettings:
        """JSON-ready, kept with the table's settings (a restart plays it on)."""
        return {"id": self.event, "board": self.board, "boards": self.boards,
                "spec": self.spec.copy(), "seed": self.seed, "samples": self.samples,
                "entrant": self.entrant, "ranked": self.ranked}

    @classmethod
    def from_settings(cls, game: str, info: EventBoardSettings) -> EventBoard:
        """``settings()`` read back (ValueError if it is not whole: it was JSON)."""
        for key in ("id", "board", "boards", "seed", "samples"):
            if type(info.get(key)) is not int:
                raise ValueError(f"an event board's {key} is not a number")
        if not isinstance(info.get("entrant"), str):
            raise ValueError("an event board's entrant is not named")
        return cls(info["id"], info["board"], info["boards"],
                   check_board(game, info.get("spec")), info["seed"], info["samples"],
                   info["entrant"], bool(info.get("ranked", True)))

    def decision_seed(self, log: Any) -> int:
        return decision_seed(self.seed, log)


def entrant_of(ident: str) -> tuple[str, bool]:
    """Whose entry an identity plays (``Member.ident``): a key's fingerprint, shared by
    every name of that key, ranked; a guest's own identity, not ranked (guests are not
    kept)."""
    kind, _, rest = ident.partition(":")
    if kind == "key":
        fingerprint = rest.rpartition(":")[0]
        if fingerprint:
            return fingerprint, True
    return ident, False
