"""How cards, suits and bids look on a terminal."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from engine.cards import BID_SUIT_ORDER

from .i18n import LANGUAGES, TEXT_MODES

SUIT_ORDER = ["S", "H", "D", "C"]          # display order within a hand (after trump)
# The bid suits from the highest, as the rules order them (E-5: NT > S > H > D > C).
BID_SUITS = sorted(BID_SUIT_ORDER, key=BID_SUIT_ORDER.__getitem__, reverse=True)
RANKS = "AKQJT98765432"
UNICODE_SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣", "NT": "NT"}
ASCII_SUITS = {"S": "S", "H": "H", "D": "D", "C": "C", "NT": "NT"}
RED = Style(color="red", bold=True)
RED_DIM = Style(color="red", dim=True)
# Styles are immutable: one object each, not a new Style (and its hash worked out again
# wherever it is a key) for every black card drawn.
BLACK = Style(bold=True)
BLACK_DIM = Style(dim=True)


class Look:
    """Per-player display settings: unicode suits and colour."""

    def __init__(self, unicode: bool = True, colour: bool = True,
                 english_only: bool = False, reduce_motion: bool = False,
                 language: str | None = None, text_mode: str | None = None):
        self.unicode = unicode
        self.colour = colour
        self.english_only = english_only
        self.reduce_motion = reduce_motion
        # The interface's language (tui.i18n.LANGUAGES) and how Arabic is drawn
        # (TEXT_MODES); None until chosen (the client's locale, the test line).
        self.language = language
        self.text_mode = text_mode

    SETTINGS = ("unicode", "colour", "english_only", "reduce_motion")
    CHOICES = {"language": LANGUAGES, "text_mode": TEXT_MODES}

    def to_dict(self) -> dict:
        d: dict[str, object] = {k: getattr(self, k) for k in self.SETTINGS}
        for k in self.CHOICES:
            if getattr(self, k) is not None:
                d[k] = getattr(self, k)
        return d

    def update(self, d: dict) -> None:
        for k in self.SETTINGS:
            if isinstance(d.get(k), bool):
                setattr(self, k, d[k])
        for k, allowed in self.CHOICES.items():
            if d.get(k) in allowed:
                setattr(self, k, d[k])

    def style(self, spec: str) -> str:
        """A style for chrome (bars, markers): colours dropped in monochrome."""
        if self.colour:
            return spec
        keep = [w for w in spec.split() if w in ("bold", "dim", "reverse", "underline", "strike")]
        return " ".join(keep) or "none"

    def suit(self, s: str | None) -> str:
        if s is None:
            return "?"
        return (UNICODE_SUITS if self.unicode else ASCII_SUITS).get(s, "?")

    def rank(self, r: str) -> str:
        return "10" if r == "T" else r

    def card_str(self, code: str) -> str:
        return self.rank(code[0]) + self.suit(code[1])

    def suit_style(self, s: str | None, dim: bool = False) -> Style:
        if self.colour and s in ("H", "D"):
            return RED_DIM if dim else RED
        return BLACK_DIM if dim else BLACK

    def card(self, code: str, dim: bool = False, width: int = 0) -> Text:
        text = self.card_str(code)
        if width:
            text = text.rjust(width)
        return Text(text, style=self.suit_style(code[1], dim))

    def bid(self, n: int | None, suit: str | None) -> Text:
        if n is None:
            return Text("—")
        t = Text(str(n))
        if suit:
            t.append(self.suit(suit), style=self.suit_style(suit))
        return t

    def bid_str(self, n, suit) -> str:
        if n is None:
            return "—"
        return f"{n}{self.suit(suit) if suit else ''}"


def sort_hand(cards: list[str], trump: str | None) -> list[str]:
    """Grouped by suit with the trump first, each suit high to low."""
    order = list(SUIT_ORDER)
    if trump in order:
        order.remove(trump)
        order.insert(0, trump)
    return sorted(cards, key=lambda c: (order.index(c[1]) if c[1] in order else 9,
                                        RANKS.index(c[0]) if c[0] in RANKS else 99))


def parse_rank_key(key: str) -> str | None:
    key = key.lower()
    if key in ("a", "k", "q", "j", "t"):
        return key.upper()
    if key in "23456789" and len(key) == 1:
        return key
    return None
