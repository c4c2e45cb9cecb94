"""What the table's keys and taps choose and do at the player's turn (issue 42: out of
``TableScreen``, which keeps the screen's own business: drawing, the table's changes,
the other screens it opens).

``Chooser`` moves the number, suit or card being chosen (the screen's ``TableState``)
within what the turn allows: no App, so it is tested with a view alone. ``TurnKeys``
runs the key table's (``table_keys``) actions of a turn, and the taps on a card, a
number or a suit, through the screen's ``Acting`` interface (the screen owns it; this
module does not import the screen).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from engine.types import Action, Contract

from ..cards import BID_SUITS, Look, parse_rank_key
from ..i18n import Speech
from .table_keys import KeyContext
from .table_state import Empty, MaybeView, TableState, Turn, View, standing_bid

SUIT_KEYS = {"n": "NT", "s": "S", "h": "H", "d": "D", "c": "C"}


class Chooser:
    """The choice being made at a turn, kept in ``state`` and checked against ``turn()``
    (the viewer's legal actions now)."""

    def __init__(self, state: TableState, turn: Callable[[], Turn]) -> None:
        self.state = state
        self.turn = turn

    def reset(self, view: View | None) -> None:
        """A new decision: the lowest bid, the call as won, the first declaration or
        the first playable card is chosen to start with."""
        state = self.state
        state.sel_n = state.sel_suit = state.sel_card = None
        state.rank = None
        turn = self.turn()
        types = turn.types
        v: MaybeView = view or {}
        if "bid" in types:
            low = min(turn.contracts("bid"), key=lambda a: (
                a["n"], -BID_SUITS.index(a["suit"]) if a.get("suit") in BID_SUITS else 0))
            state.sel_n, state.sel_suit = low["n"], low.get("suit")
        elif "call" in types:
            calls = turn.contracts("call")
            want: Contract | Empty = standing_bid(v) or v.get("call") or {}
            pick = next((a for a in calls if a["n"] == want.get("n")
                         and a.get("suit") == want.get("suit")), None)
            if pick is None and v.get("fixed_trump"):
                pick = next((a for a in calls if a.get("suit") == v.get("fixed_trump")
                             and a["n"] == want.get("n")), None)
                pick = pick or next((a for a in calls if a.get("suit") == v.get("fixed_trump")),
                                    None)
            pick = pick or calls[0]
            state.sel_n, state.sel_suit = pick["n"], pick.get("suit")
        elif "declare" in types:
            state.sel_n = turn.declares()[0]["n"]
        elif "play" in types:
            playable = turn.playable_in_order()
            state.sel_card = playable[0] if playable else None

    def number(self, kind: str, n: int) -> bool:
        """Choose ``n`` (a bid's, a call's or a declaration's); False if it cannot be."""
        state = self.state
        if kind in ("bid", "call"):
            ok = [a for a in self.turn().contracts(kind) if a["n"] == n]
            if not ok:
                return False
            state.sel_n = n
            if not any(a.get("suit") == state.sel_suit for a in ok):
                # keep the suit if possible, else the lowest legal one
                ranked = sorted(ok, key=lambda a: -BID_SUITS.index(a["suit"])
                                if a.get("suit") in BID_SUITS else 0)
                state.sel_suit = ranked[0].get("suit")
            return True
        if n in self.turn().numbers(kind):
            state.sel_n = n
            return True
        return False

    def step_number(self, kind: str, d: int) -> None:
        numbers = self.turn().numbers(kind)
        if not numbers:
            return
        if self.state.sel_n not in numbers:
            self.number(kind, numbers[0])
            return
        i = numbers.index(self.state.sel_n)
        self.number(kind, numbers[(i + d) % len(numbers)])

    def step_suit(self, kind: str, d: int) -> None:
        state = self.state
        ok = [s for s in BID_SUITS if any(a["n"] == state.sel_n and a.get("suit") == s
                                          for a in self.turn().contracts(kind))]
        if not ok:
            return
        i = ok.index(state.sel_suit) if state.sel_suit in ok else 0
        state.sel_suit = ok[(i + d) % len(ok)]

    def step_card(self, d: int) -> None:
        cards = self.turn().playable_in_order()
        if not cards:
            return
        sel = self.state.sel_card
        i = cards.index(sel) if sel in cards else 0
        self.state.sel_card = cards[(i + d) % len(cards)]

    def digit(self, kind: str, d: int, now: float) -> bool:
        """A digit typed at ``now``: 1 then 0-3 within a second is 10-13. False if the
        number cannot be chosen (said to the player)."""
        state = self.state
        if state.one_at and now - state.one_at <= 1.0 and d <= 3:
            state.one_at = 0.0
            if self.number(kind, 10 + d):
                return True
        state.one_at = 0.0
        numbers = set(self.turn().numbers(kind))
        if d == 1 and numbers & {10, 11, 12, 13}:
            state.one_at = now
        return self.number(kind, d) or bool(d == 1 and state.one_at)

    def suit(self, kind: str, suit: str) -> bool:
        """Choose ``suit`` (with the lowest number it may have if not the chosen one);
        False if no bid or call of it can be made."""
        state = self.state
        acts = self.turn().contracts(kind)
        if any(a["n"] == state.sel_n and a.get("suit") == suit for a in acts):
            state.sel_suit = suit
        elif any(a.get("suit") == suit for a in acts):
            state.sel_n = min(a["n"] for a in acts if a.get("suit") == suit)
            state.sel_suit = suit
        else:
            return False
        return True


class Acting(Protocol):
    """What a turn's keys ask of the table screen."""

    view: View | None
    state: TableState

    @property
    def look(self) -> Look: ...

    @property
    def seat(self) -> int | None: ...

    @property
    def speech(self) -> Speech: ...

    def turn(self) -> Turn: ...

    def key_context(self) -> KeyContext: ...

    def act(self, action: Action) -> None: ...

    def why_not(self, action: Action) -> str | None: ...

    def flash(self, text: str) -> None: ...


TurnHandler = Callable[["TurnKeys", str, str, KeyContext], None]


class TurnKeys:
    """The key table's actions of a turn (the dash offer, the auction, the call, the
    declarations, the play) and the taps, run on ``screen``."""

    def __init__(self, screen: Acting, chooser: Chooser) -> None:
        self.screen = screen
        self.chooser = chooser

    def run(self, action: str, key: str, char: str, ctx: KeyContext) -> bool:
        """Run ``action`` if it is one of a turn's; False if it is not."""
        handler = self.HANDLERS.get(action)
        if handler is None:
            return False
        handler(self, key, char, ctx)
        return True

    def _take_dash(self, key: str, char: str, ctx: KeyContext) -> None:
        self.screen.act({"type": "dash", "take": True})

    def _play_normally(self, key: str, char: str, ctx: KeyContext) -> None:
        self.screen.act({"type": "dash", "take": False})

    def _pass(self, key: str, char: str, ctx: KeyContext) -> None:
        self.screen.act({"type": "pass"})

    def _with(self, key: str, char: str, ctx: KeyContext) -> None:
        self.screen.act({"type": "with"})

    def _step_number(self, key: str, char: str, ctx: KeyContext) -> None:
        self.chooser.step_number(ctx.kind, -1 if key == "left" else 1)

    def _step_suit(self, key: str, char: str, ctx: KeyContext) -> None:
        self.chooser.step_suit(ctx.kind, -1 if key == "up" else 1)

    def _type_number(self, key: str, char: str, ctx: KeyContext) -> None:
        d = int(char)
        if not self.chooser.digit(ctx.kind, d, time.monotonic()):
            self.refused(ctx, d)

    def _choose_suit(self, key: str, char: str, ctx: KeyContext) -> None:
        if not self.chooser.suit(ctx.kind, SUIT_KEYS[char]):
            self.screen.flash(self.screen.speech._("That suit cannot be chosen now."))

    def _submit(self, key: str, char: str, ctx: KeyContext) -> None:
        screen, state = self.screen, self.screen.state
        if ctx.kind == "declare":
            for a in screen.turn().declares():
                if a["n"] == state.sel_n:
                    screen.act(a)
                    return
            screen.flash(screen.speech._("Choose a number first."))
            return
        for c in screen.turn().contracts(ctx.kind):
            if c["n"] == state.sel_n and c.get("suit") == state.sel_suit:
                screen.act(c)
                return
        screen.flash(screen.speech._("Choose a number and suit that can be played."))

    def _step_card(self, key: str, char: str, ctx: KeyContext) -> None:
        self.chooser.step_card(-1 if key == "left" else 1)
        self.screen.state.rank = None

    def _play_card(self, key: str, char: str, ctx: KeyContext) -> None:
        card = self.screen.state.sel_card
        if card in self.screen.turn().playable():
            self.screen.act({"type": "play", "card": card})

    def _clear_rank(self, key: str, char: str, ctx: KeyContext) -> None:
        self.screen.state.rank = None

    def _type_ten(self, key: str, char: str, ctx: KeyContext) -> None:
        self.screen.state.rank = "T"

    def _type_one(self, key: str, char: str, ctx: KeyContext) -> None:
        self.screen.state.rank = "1"

    def _type_rank(self, key: str, char: str, ctx: KeyContext) -> None:
        self.screen.state.rank = parse_rank_key(char)

    def _type_suit(self, key: str, char: str, ctx: KeyContext) -> None:
        screen = self.screen
        state = screen.state
        card = f"{state.rank}{char.upper()}"      # the table offers s h d c after a rank
        state.rank = None
        look = screen.look
        if card in screen.turn().playable():
            state.sel_card = card
            screen.act({"type": "play", "card": card})
        elif screen.view is not None and card in screen.view["hand"]:
            screen.flash(screen.speech._("{card} cannot be played now (follow suit).").format(
                card=look.card_str(card)))
        else:
            screen.flash(screen.speech._("You do not hold {card}.").format(card=look.card_str(card)))

    HANDLERS: dict[str, TurnHandler] = {
        "take_dash": _take_dash, "play_normally": _play_normally, "pass": _pass,
        "with": _with, "step_number": _step_number, "step_suit": _step_suit,
        "type_number": _type_number, "choose_suit": _choose_suit, "submit": _submit,
        "step_card": _step_card, "play_card": _play_card, "clear_rank": _clear_rank,
        "type_ten": _type_ten, "type_one": _type_one, "type_rank": _type_rank,
        "type_suit": _type_suit,
    }

    # ----------------------------------------------------------------- taps
    def tap_card(self, card: str) -> bool:
        screen = self.screen
        state = screen.state
        turn = screen.turn()
        if "play" in turn.types and card in turn.playable():
            # A tap plays only the card a tap chose: the cursor's card (where the keys
            # left it, or the first playable one) is chosen by a first tap too.
            if card == state.sel_card and card == state.tapped:
                state.tapped = None
                screen.act({"type": "play", "card": card})
            else:
                state.sel_card = state.tapped = card
                state.rank = None
            return True
        v = screen.view
        if v is None or screen.seat is None:
            return False
        if v.get("phase") != "play":
            screen.flash(screen.speech._("The cards are played once the declarations are made."))
        elif "play" not in turn.types:
            screen.flash(screen.speech._("It is not your turn."))
        else:
            screen.flash(screen.speech._("{card} cannot be played now (follow suit).").format(
                card=screen.look.card_str(card)))
        return True

    def refused(self, ctx: KeyContext, n: int) -> None:
        """A number that cannot be chosen: said, with the rules' reason for a declaration
        (the last declarer's number that would make 13, E-22; Tarneeb's 2 at least): "9
        is not possible now" alone left the choice where it was, and Enter declared it."""
        _ = self.screen.speech._
        why = self.screen.why_not({"type": "declare", "n": n}) if ctx.mode == "declare" else None
        self.screen.flash(_("{n} is not possible now: {reason}.").format(n=n, reason=why)
                          if why else _("{n} is not possible now.").format(n=n))

    def tap_number(self, n: int) -> bool:
        ctx = self.screen.key_context()
        if ctx.mode not in ("bid", "call", "declare"):
            return False
        if not self.chooser.number(ctx.kind, n):
            self.refused(ctx, n)
        return True

    def tap_suit(self, suit: str) -> bool:
        ctx = self.screen.key_context()
        if ctx.mode not in ("bid", "call"):
            return False
        char = next(k for k, s in SUIT_KEYS.items() if s == suit)
        self._choose_suit(char, char, ctx)
        return True
