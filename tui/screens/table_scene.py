"""One frame's arguments (``Scene``: the view, the screen's state, the table's facts, the
look, the language) and the lines kept from frame to frame (``DrawCache``); what every
render unit of the table draws from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text

from engine.catalogue import TITLES, terms
from engine.room.narration import ROUND, Said

from ..arabic import term
from ..cards import Look
from ..i18n import N_, Speech
from .table_keys import KeyContext
from .table_state import TableFacts, TableState, Turn, View
from .table_text import BID_RE, CARD_RE, Hit, W, ended, fit, rtl_fit, wrap

HAND_ROUND = N_("Hand {round}: {scores}")     # the narration's ROUND, at Tarneeb
BOARD_OVER = "Board {board} over: {score} points"   # the table's words (engine.room.table)


@dataclass
class DrawCache:
    """Lines that come back frame after frame, by what they show (one per screen)."""
    hand: tuple[Any, tuple[Text, Text], tuple[Hit, ...]] | None = None
    scores: dict[tuple[Any, ...], Text] = field(default_factory=dict)
    # Whole sections (info bar, middle) by what they show: a move changes a few
    # of the frame's parts, and the others come back as the same Text objects,
    # which the board then skips without comparing them (``Board.set_lines``).
    sections: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    # One line per place (``kept``): the last one built there and what it was built from.
    rows: dict[str, tuple[tuple[Any, ...], Text]] = field(default_factory=dict)
    # The last frame's info bar, scores, middle and chat, and what they were drawn from
    # (``still_lines``): (view, facts, animation, look key, lines).
    still: tuple[Any, ...] | None = None
    # The score panel's events (``shown_events``): (the facts' events, round, them).
    events: tuple[Any, ...] | None = None
    _turn: Turn | None = None

    def section(self, key: tuple[Any, ...]) -> Any:
        return self.sections.get(key)

    def keep(self, key: tuple[Any, ...], value: Any) -> Any:
        if len(self.sections) > 64:
            self.sections.clear()
        self.sections[key] = value
        return value

    def kept(self, place: str, key: tuple[Any, ...], build: Callable[[], Text]) -> Text:
        """The line at ``place`` built from what ``key`` says (plain values, the look's
        among them): last frame's very object while the key is the same (a card played
        changes one row of the middle; the others then cost the board nothing), else
        ``build()``."""
        hit = self.rows.get(place)
        if hit is not None and hit[0] == key:
            return hit[1]
        line = build()
        self.rows[place] = (key, line)
        return line

    def turn(self, view: View | None, seat: int | None) -> Turn:
        """The viewer's legal actions grouped once per view (a new view is a new dict),
        not once per key press and again per frame."""
        t = self._turn
        if t is None or t.view is not view or t.seat != seat:
            t = self._turn = Turn(view, seat)
        return t


class Scene:
    """One frame's arguments, and what is derived from them once."""

    __slots__ = ("cache", "facts", "keys", "look", "look_key", "now", "rtl", "speech", "state",
                 "terms", "turn", "view", "you")

    def __init__(self, view: View | None, state: TableState, facts: TableFacts, look: Look,
                 now: float, cache: DrawCache | None = None,
                 speech: Speech | None = None) -> None:
        self.view = view
        self.state = state
        self.facts = facts
        self.look = look
        if speech is None:
            speech = Speech(look.language or "en", look.text_mode or "shaped")
        self.speech = speech
        self.rtl = speech.rtl
        # Everything drawn depends on these (the language and its text mode too).
        self.look_key = (look.unicode, look.colour, look.english_only, look.reduce_motion,
                         speech.code, speech.mode)
        self.now = now
        self.cache = cache if cache is not None else DrawCache()
        self.turn = self.cache.turn(view, facts.seat)
        self.terms = terms(facts.game)      # what differs by game (engine.catalogue)
        self.keys = KeyContext.of(view, self.turn, state.rank, facts.may_fill, facts.board,
                                  practice=facts.practice, hands=self.terms.hands,
                                  seated=facts.seat is not None)
        self.you = " " + speech._("(you)")

    def _(self, message: str) -> str:
        return self.speech._(message)

    def game_title(self) -> str:
        """The game's name in this language (a table's own title for a game the
        catalogue does not know)."""
        return self._(TITLES[self.facts.game]) if self.facts.game in TITLES else self.facts.title

    def game_word(self, message: str) -> str:
        """``message`` in the game's own words where its language has them (Tarneeb's
        "Trump"), else as said everywhere (marked: ``engine.catalogue.GAME_WORDS``)."""
        said = self.speech.pgettext(self.terms.context, message)
        return said if said != message else self._(message)

    def term(self, key: str, english: str) -> str:
        return term(key, english, self.look.english_only, self.speech)

    def say(self, text: str) -> str:
        """``text`` (a name, a chat line) to be put into a line: an Arabic interface's
        line is laid out whole (``line``); otherwise Arabic in it is shown here."""
        return text if self.rtl else self.speech.show(text)

    def seat_label(self, seat: int) -> str:
        """The seat's label, an empty seat's ("(empty)", a ``Said``) in this language."""
        label = self.facts.seats[seat].label
        if isinstance(getattr(label, "template", None), str):
            return self.speech.error(label)         # type: ignore[arg-type]
        return label

    def name(self, seat: int | None, you: bool = True, limit: int = 0) -> str:
        """The seat's name as said in a line (``say``), " (you)" for the viewer's own,
        at most ``limit`` characters (cut before it is shown)."""
        if seat is None:
            return "—"
        label = self.seat_label(seat)
        suffix = self.you if you and seat == self.facts.seat else ""
        if limit:
            label, suffix = label[:limit], suffix[:max(0, limit - len(label))]
        return self.say(label) + suffix

    def line(self, text: Text, width: int = W) -> Text:
        """A whole line of ``width`` cells: cut or padded (English), or right-aligned
        and mirrored (Arabic)."""
        if not self.rtl:
            return fit(text, width)
        return rtl_fit(self.speech, text, width)

    def told(self, text: object) -> bool:
        """Is this line of the narration shown among the table's events? Not an event's
        board's end while the board's head says its score (said once, in one wording)."""
        return not (getattr(text, "template", None) == BOARD_OVER
                    and self.facts.board is not None and self.view is not None
                    and self.view.get("phase") == "over")

    def bid(self, n: int | None, suit: str | None) -> Text:
        """A bid: in an Arabic interface one run, so it stays whole, left to right."""
        if not self.rtl or n is None or not suit:
            return self.look.bid(n, suit)
        return Text(self.look.bid_str(n, suit), style=self.look.suit_style(suit))

    def pretty(self, text: str) -> str:
        """Event texts use card codes (QS) and bids (5H); show suit symbols."""
        return pretty(self.look, text)

    def narrate(self, text: str) -> str:
        """A line of the table's narration (``engine.room.narration.Said``) in this
        language, with suit symbols; Tarneeb's rounds are hands."""
        if self.terms.hands and getattr(text, "template", None) == ROUND:
            params = getattr(text, "params", ())
            text = Said(HAND_ROUND, **dict(params.items() if isinstance(params, dict)
                                           else params))
        return self.pretty(said_in(self.speech, text))


def pretty(look: Look, text: str) -> str:
    """Card codes (QS) and bids (5H) in ``text`` as the table shows them: with the
    look's suit signs (letters in its ASCII mode)."""
    text = CARD_RE.sub(lambda m: look.card_str(m.group(0)), text)
    return BID_RE.sub(lambda m: m.group(1) + look.suit(m.group(2)), text)


def move_words(speech: Speech, look: Look, action: Any) -> str:
    """An action in the player's words, without a player's name (a hint, a review),
    its card or bid as the table's narration shows it (``pretty``)."""
    from engine.room.narration import describe
    if action.get("type") == "play":
        return look.card_str(str(action["card"]))
    return pretty(look, said_in(speech, describe("", action, "player")).strip())


def said_in(speech: Speech, text: str) -> str:
    """A line of narration (``engine.room.narration.Said``: English, with the
    template and parameters it was said from) in ``speech``'s language, in reading
    order for an Arabic interface (its line is laid out whole); names in it shown
    for an English one. A plain string is said as it is."""
    template = getattr(text, "template", None)
    if not isinstance(template, str):
        return str(text)
    params = getattr(text, "params", ())
    if isinstance(params, dict):
        params = tuple(params.items())
    if not params:
        return speech._(template)
    if not speech.rtl and str(text).isascii():
        return str(text)

    def said(value: Any) -> Any:
        if isinstance(value, str):
            if isinstance(getattr(value, "template", None), str):
                return said_in(speech, value)
            return value if speech.rtl else speech.show(value)
        return value
    try:
        return speech._(template).format(**{k: said(v) for k, v in params})
    except (KeyError, IndexError, ValueError):
        return str(text)


# ---------------------------------------------------------------- text tools
def said_lines(sc: Scene, text: Text, width: int, limit: int = 3) -> list[Text]:
    """A sentence as whole lines of ``width`` cells in the player's language (cut at
    spaces in reading order, then each laid out): at most ``limit`` lines; a sentence
    that needs more ends its last one after a whole word, with " …" (never inside a
    word or a number: issue 44)."""
    parts = wrap(text, width)
    if len(parts) > limit > 0:
        parts = parts[:limit]
        parts[-1] = ended(parts[-1], width)
    # (a no-break space holds words together for the wrapping only: laid out, a space)
    return [sc.line(Text(part.plain.replace("\u00a0", " "), style=part.style,
                         spans=part.spans, no_wrap=True) if "\u00a0" in part.plain else part,
                    width) for part in parts[:limit]]


def laid(sc: Scene, lines: list[Text], width: int) -> list[Text]:
    return [sc.line(line, width) for line in lines]
