"""What the table screen is drawn from, besides the engine's view: the screen's own
state (cursor, typed digits, notices), the table's facts as plain data, and the
viewer's legal actions grouped once per view.

Nothing here reads the room or the clock: ``table_draw`` and ``table_keys`` get
all of it as arguments, so they can be tested without an App.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, Never

from rich.text import Text

from engine import Action as EngineAction
from engine import BidAction, CallAction, Contract, DeclareAction, PlayAction
from engine import View as EngineView
from engine.room.events import SeatShown

from ..cards import BID_SUITS, sort_hand

# The screens are drawn from the engine's own types: a key a screen reads that the
# view does not have is a type error.
View = EngineView
Action = EngineAction
# A view, or {} before the first one has come: read with .get (the keys still checked,
# and what the empty one gives is None).
Empty = dict[str, Never]
MaybeView = EngineView | Empty


def standing_bid(v: MaybeView) -> Contract | None:
    """The auction's standing bid (None: no auction, or no bid yet)."""
    a = v.get("auction")
    return a.get("bid") if a else None


@dataclass(frozen=True)
class TrickAnim:
    """The finished trick on its way to the winner: shown in the middle, then
    (``moved``) as a dim pile on the winner's side."""
    cards: tuple[Mapping[str, Any], ...]
    winner: int
    moved: bool = False


@dataclass
class TableState:
    """The screen's own state: what the player has chosen but not yet sent, and
    the passing lines (the notice where they landed, a refusal)."""
    sel_n: int | None = None          # bid, call or declaration number
    sel_suit: str | None = None       # bid or call suit
    sel_card: str | None = None       # the card the cursor is on
    tapped: str | None = None         # the card a tap chose (a second tap on it plays it)
    rank: str | None = None           # a typed rank waiting for its suit ("1" before 10)
    one_at: float = 0.0               # when "1" was typed (1 then 0–3 for 10–13)
    notice: str | None = None         # where the person landed, shown until notice_until
    notice_until: float = 0.0
    message: Text | None = None       # a refusal, shown until message_until
    message_until: float = 0.0
    anim: TrickAnim | None = None


# A seat as shown: the table engine's (engine.room.events.SeatShown), the same for
# every screen at the table. TableFacts is a named tuple, not a frozen dataclass: made
# for every frame (a frozen dataclass sets each field through object.__setattr__).
SeatFacts = SeatShown


class TableFacts(NamedTuple):
    """The table, as far as its screen shows it (built from the room's ``Table``)."""
    id: str
    game: str
    title: str                  # the game's name as people read it
    length: Any
    seats: tuple[SeatFacts, ...]
    seat: int | None = None     # the viewer's seat; None while watching
    code_label: str | None = None   # a private table's code, as people type it
    seconds_left: float | None = None
    deadline_seat: int | None = None
    # (round, text), moves other than plays; a text is English, and when it is a
    # narration ``Said`` the picture says it in the player's language
    events: tuple[tuple[int | None, str], ...] = ()
    chat: tuple[tuple[str, str], ...] = ()            # the last two (who, text)
    request: str | None = None  # the viewer's wait for a computer player's seat (a Said)
    points: Mapping[int, Mapping[str, Any]] | None = None   # paid at the match end
    # Before the start: may the viewer fill the empty seats (the table's say:
    # Table.may(member, "fill")), and who may (the host's name as shown; None: nobody seated).
    may_fill: bool = False
    host: str | None = None
    # An event's board (docs/events.md): (event, board, boards); None at other tables.
    board: tuple[int, int, int] | None = None
    practice: bool = False      # a practice table: hints (h; H while bidding) on the viewer's turn

    def name(self, seat: int | None, you: bool = True) -> str:
        if seat is None:
            return "—"
        label = self.seats[seat].label
        if you and seat == self.seat:
            label += " (you)"
        return label

    def positions(self) -> dict[str, int]:
        base = self.seat if self.seat is not None else 0
        return {"bottom": base, "right": (base + 1) % 4, "top": (base + 2) % 4,
                "left": (base + 3) % 4}


class Turn:
    """The viewer's legal actions in ``view``, by type (none when it is not their turn)."""

    __slots__ = ("by_type", "seat", "types", "view")

    def __init__(self, view: View | None, seat: int | None) -> None:
        self.view = view
        self.seat = seat
        self.by_type: dict[str, list[Action]] = {}
        if view is not None and seat is not None and view.get("to_act") == seat:
            for a in view.get("legal") or ():
                self.by_type.setdefault(a.get("type"), []).append(a)
        self.types = set(self.by_type)

    def of(self, kind: str) -> list[Action]:
        return self.by_type.get(kind, [])

    # The same, typed by kind (the engine's action types narrowed by their "type").
    def contracts(self, kind: str) -> list[BidAction | CallAction]:
        """The legal bids (``kind`` "bid") or calls ("call"): a number and a suit (a
        fast round's bid has none: its trump is fixed)."""
        return [a for a in self.of(kind) if a["type"] == "bid" or a["type"] == "call"]

    def declares(self) -> list[DeclareAction]:
        return [a for a in self.of("declare") if a["type"] == "declare"]

    def numbers(self, kind: str) -> list[int]:
        """The numbers the legal bids, calls or declarations (``kind``) offer, low first."""
        acts = self.declares() if kind == "declare" else self.contracts(kind)
        return sorted({a["n"] for a in acts})

    def plays(self) -> list[PlayAction]:
        return [a for a in self.of("play") if a["type"] == "play"]

    # ------------------------------------------------------------ auction rows
    def number_cells(self, kind: str, sel_n: int | None) -> list[tuple[int, str]]:
        """(number, state) for the number row: "sel", "ok", "dim" (cannot be chosen)."""
        numbers = sorted({a["n"] for a in self.contracts(kind)})
        lo = 4 if kind == "bid" else (min(numbers) if numbers else 4)
        return [(n, ("sel" if n == sel_n else "ok") if n in numbers else "dim")
                for n in range(min([lo, *numbers]), 14)]

    def suit_cells(self, kind: str, sel_n: int | None,
                   sel_suit: str | None) -> list[tuple[str, str]]:
        """(suit, state) for the suit row; [] when the suit is fixed."""
        acts = self.contracts(kind)
        if all(a.get("suit") is None for a in acts):
            return []
        ok = {a.get("suit") for a in acts if a["n"] == sel_n}
        return [(s, "dim" if s not in ok else ("sel" if s == sel_suit else "ok"))
                for s in BID_SUITS]

    def declare_cells(self, sel_n: int | None) -> list[tuple[int, str]]:
        numbers = {a["n"] for a in self.declares()}
        forbidden = self.view.get("forbidden") if self.view is not None else None
        cand = numbers | ({forbidden} if forbidden is not None else set())
        lo, hi = (min(cand), max(cand)) if cand else (0, 13)
        out = []
        for n in range(lo, hi + 1):
            if n in numbers:
                out.append((n, "sel" if n == sel_n else "ok"))
            else:
                out.append((n, "forbidden" if n == forbidden else "dim"))
        return out

    # -------------------------------------------------------------------- hand
    def hand(self) -> list[str]:
        v = self.view
        if not v:
            return []
        return sort_hand(list(v.get("hand") or []), v.get("trump") or v.get("fixed_trump"))

    def playable(self) -> set[str]:
        return {a["card"] for a in self.plays()}

    def playable_in_order(self) -> list[str]:
        ok = self.playable()
        return [c for c in self.hand() if c in ok]
