"""The table screen's picture, as a pure function of what it shows.

``draw_table(view, state, facts, look, now)`` gives the 80×24 table: 23 lines,
the footer and where the hand's cards are (``Hit``); ``place`` puts it on a
board of any size (centred, the footer on the last row) or asks for a larger
window.  Everything comes in as arguments: the engine's ``view`` of the seat,
the screen's ``TableState``, the table's ``TableFacts`` and the player's
``Look``; ``now`` decides whether a notice or a refusal is still shown.  No
App, room or clock is read, so the picture can be tested without Pilot.

The hand rows, the footer and the score rows are the lines that come back
frame after frame: ``DrawCache`` keeps them, keyed on what they show, so a
redraw with nothing changed builds little.  The cache never changes the
result; callers must not modify the lines they get.

Layout (rows of the 80×24 table): 0 info bar, 1 note, 2–6 scores and events,
7–12 the trick (or a round summary, or the match result), 14–16 the phase
controls, 18–19 the hand, 21–22 chat, the footer on the board's last row.

Everything said is said in the player's language (``Speech``, one per session).
In an Arabic interface text lines are right-aligned and mirrored (``Scene.line``:
the first thing said at the right); tables of columns (scores, the round summary)
are mirrored column by column (``cells_row``); a label before numbers, suits or
cards is put at the right of them, and they stay left to right (``units``). The
table's geometry (who sits left, right, across) and the hand are never mirrored.
An English frame is what it always was: its code paths are the English ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.cells import cell_len, get_character_cell_size
from rich.style import Style
from rich.text import Span, Text

from engine.catalogue import TITLES, terms
from engine.duplicate import result_of, scored_round
from engine.match import call_keeps_trump
from engine.room.narration import ROUND, Said

from ..arabic import term
from ..cards import Look
from ..i18n import N_, Speech
from ..widgets.board import BLANK
from ..widgets.taps import line_taps
from .table_keys import KEY, KeyContext, footer, pgettext
from .table_state import MaybeView, TableFacts, TableState, Turn, View

W = 80
H = 24
HAND_X = 10          # the hand's first column
HAND_Y = 18          # the hand's upper row (the cards that cannot be played sit one lower)
CARD_W = 4           # a card's cells ("10♥" right-aligned in 4)
_CARD_RE = re.compile(r"\b[AKQJT2-9][SHDC]\b")
_BID_RE = re.compile(r"\b(\d{1,2})(NT|S|H|D|C)\b")
REVERSE = Style(reverse=True)
ACTING = {"dash": N_("{who} is answering the dash offer…"), "auction": N_("{who} is bidding…"),
          "call": N_("{who} is making the call…"), "declare": N_("{who} is declaring…"),
          "play": N_("{who} is playing…")}
ACTING_ELSE = N_("{who} is to act…")
HAND_ROUND = N_("Hand {round}: {scores}")     # the narration's ROUND, at Tarneeb
BOARD_OVER = "Board {board} over: {score} points"   # the table's words (engine.room.table)
BONUS_KEYS = ["caller", "with", "sole", "risk", "dash", "super"]
BONUS_NAMES = {"caller": "caller", "with": "With", "sole": "sole", "risk": "risk",
               "dash": "dash", "super": "super"}
# The summary's bonus columns in the catalogue (context "column"; With, risk and
# dash are terms: ``tui.arabic``).
_COLUMNS = (pgettext("column", "caller"), pgettext("column", "sole"),
            pgettext("column", "super"))
KIND_WORDS = {"fast": N_("fast"), "fixed": N_("fixed")}
LENGTH_WORDS = {"micro": N_("micro"), "mini": N_("mini"), "full": N_("full")}
# The score panel's tags: dealer, caller, With, dash, Tarneeb's teams (context "tag";
# drawn as English letters in English, looked up in the catalogue otherwise).
TAGS = {"D": pgettext("tag", "D"), "C": pgettext("tag", "C"), "W": pgettext("tag", "W"),
        "X": pgettext("tag", "X"), "a": pgettext("tag", "a"), "b": pgettext("tag", "b")}


# ----------------------------------------------------------------- text tools
def _after(pad: int, text: Text, **line: Any) -> Text:
    """``pad`` spaces, then ``text`` (its style a span over it): what appending it to
    a Text of the spaces makes, made at once (a line is drawn ~20 times a move)."""
    spans = [Span(pad, pad + len(text), text.style)] if text.style else []
    spans += [Span(start + pad, end + pad, style) for start, end, style in text.spans]
    return Text(" " * pad + text.plain, spans=spans, **line)


def center(text: Text, width: int = W) -> Text:
    return _after(max(0, (width - text.cell_len) // 2), text, no_wrap=True)


def fit(text: Text | str, width: int, right: bool = False) -> Text:
    """``text`` cut or padded to exactly ``width`` cells."""
    if isinstance(text, str):
        text = Text(text)
    n = text.cell_len
    if n == width:
        return text         # nothing to change (callers never modify the result)
    if n < width and not right:
        # padded: ``text.copy()`` with the spaces appended, made at once
        return Text(text.plain + " " * (width - n), style=text.style, justify=text.justify,
                    overflow=text.overflow, no_wrap=text.no_wrap, end=text.end,
                    tab_size=text.tab_size, spans=list(text.spans))
    if n > width:
        t = word_cut(text, width)
        n = t.cell_len
    else:
        t = text.copy()
    pad = width - n
    if pad > 0:
        if right:
            t = _after(pad, t) if len(t) else Text(" " * pad)   # (Rich appends no empty text)
        else:
            t.append(" " * pad)
    return t


def word_cut(text: Text, width: int) -> Text:
    """``text`` cut to at most ``width`` cells where it ends: after its last whole word
    that leaves room for " …" (never inside a word or a number: issue 44), or, a word
    too long for the width alone, inside it ("…" at the end)."""
    plain = text.plain
    head = plain[:len(plain)]
    k = len(head)
    while k > 0 and cell_len(head[:k]) > width - 2:
        k -= 1
    space = head.rfind(" ", 0, k + 1)
    while space > 0 and head[space - 1] == " ":
        space -= 1
    if space > 0 and head[:space].strip() and cell_len(head[:space]) >= width // 3:
        out = text[:space]
        out.append(" …")
        return out
    t = text.copy()
    t.truncate(width, overflow="ellipsis")
    return t


def join(*parts: Text | str) -> Text:
    """The parts one after another (a part's style a span over it), made at once."""
    plain: list[str] = []
    spans: list[Span] = []
    at = 0
    for p in parts:
        if isinstance(p, str):
            if not p.isprintable():
                p = Text(p).plain           # Rich's control codes stripped, as append does
            plain.append(p)
            at += len(p)
            continue
        n = len(p)
        if p.style:
            spans.append(Span(at, at + n, p.style))
        if p.spans:
            spans += [Span(start + at, end + at, style) for start, end, style in p.spans]
        plain.append(p.plain)
        at += n
    return Text("".join(plain), no_wrap=True, spans=spans)


def wrap(text: Text, width: int, indent: str = " ") -> list[Text]:
    """``text`` cut at spaces into lines of at most ``width`` cells (its styles kept);
    a word longer than a line is cut where the line ends; the lines after the first
    start with ``indent``."""
    plain = text.plain
    if cell_len(plain) <= width:
        return [text]
    cuts: list[int] = []
    start = 0           # where the line being filled starts in the text
    lead = 0            # the indent it is drawn after
    for m in re.finditer(r"[^ ]+", plain):       # (a no-break space holds words together)
        if lead + cell_len(plain[start:m.end()]) <= width:
            continue
        if m.start() > start and plain[start:m.start()].strip():
            cuts.append(m.start())
            start, lead = m.start(), len(indent)
        while lead + cell_len(plain[start:m.end()]) > width:     # longer than a line
            k = start + 1
            while k < m.end() and lead + cell_len(plain[start:k + 1]) <= width:
                k += 1
            cuts.append(k)
            start, lead = k, len(indent)
    out: list[Text] = []
    for i, piece in enumerate(text.divide(cuts)):
        piece.rstrip()
        if i and indent:
            piece = Text(indent, style=piece.style) + piece
        out.append(piece)
    return out


# ------------------------------------------------------------ right to left
def arabic(text: str) -> bool:
    """``text`` has a right-to-left letter in it (Arabic, or its joined forms)."""
    return not text.isascii() and any(
        "\u0590" <= ch <= "\u08ff" or "\ufb1d" <= ch <= "\ufefc" for ch in text)


def crop_left(text: Text, width: int) -> Text:
    """A right-to-left line cut to ``width`` cells at its left, where it ends."""
    if text.cell_len <= width:
        return text
    plain = text.plain
    over = text.cell_len - (width - 1)          # cells to drop, "…" included
    i = 0
    while over > 0 and i < len(plain):
        over -= get_character_cell_size(plain[i])
        i += 1
    out = Text("…", end=text.end, no_wrap=True, style=text.style)
    out.append_text(text[i:])
    return fit(out, width, right=True)


def cut_end(speech: Speech, text: Text, width: int) -> Text:
    """A right-to-left line in reading order, cut at its end (with "…") so that laid
    out (``Speech.line``) it takes at most ``width`` cells: its start is kept, also
    where a left-to-right run ends it ("… ali -17, bea -2": cut at the right of that
    run, not at the line's left, which would lose "ali -17")."""
    over = speech.line(text, 0).cell_len - width
    if over <= 0:
        return text
    plain = text.plain
    # after a whole word where one holds (issue 44: never inside a word or a figure)
    for k in sorted((i for i, ch in enumerate(plain) if ch == " "), reverse=True):
        head = plain[:k].rstrip()
        if not head.strip() or cell_len(head) < width // 3:
            break
        t = text[:len(head)]
        t.append(" …")
        if speech.line(t, 0).cell_len <= width:
            return t
    k = len(plain) - over - 1
    while k > 0:
        t = text[:k]
        t.rstrip()
        t.append("…")
        if speech.line(t, 0).cell_len <= width:
            return t
        k -= 1
    return Text("…"[:width])


def rtl_fit(speech: Speech, text: Text, width: int) -> Text:
    """An Arabic interface's line: right-aligned to exactly ``width`` cells and, when
    the text is joined here, mirrored (``Speech.line``); too long, it loses its end
    in reading order (``cut_end``: at the left once mirrored, or at the right of a
    left-to-right run that ends it)."""
    if speech.shaped:
        return crop_left(speech.line(cut_end(speech, text, width), width), width)
    if text.cell_len > width:
        text = fit(text, width)
    return fit(speech.line(text, width), width)


def right_align(speech: Speech, text: Text, width: int) -> Text:
    """A laid-out right-to-left line padded at its left to ``width`` cells, or cut
    where it ends (its left once mirrored, its end in reading order otherwise)."""
    if speech.shaped and text.cell_len > width:
        return crop_left(text, width)
    return fit(text, width, right=True)


@dataclass(frozen=True)
class Shown:
    """A part of a line already laid out (``cells_row``): ``units`` keeps it as it is."""
    text: Text


def units(speech: Speech, parts: list[Text | Shown], width: int) -> Text:
    """Parts of an Arabic interface's line, said in this order: a part with Arabic
    in it is laid out right to left, a part without (numbers, suits, cards, keys)
    is kept whole, left to right; the first part is at the right. Right-aligned to
    ``width`` cells (0: not padded)."""
    texts = [p.text if isinstance(p, Shown) else p for p in parts]
    if speech.shaped:
        out = Text(no_wrap=True)
        for part, text in zip(reversed(parts), reversed(texts), strict=True):
            laid = not isinstance(part, Shown) and arabic(text.plain)
            out.append_text(speech.line(text, 0) if laid else text)
    else:                           # the terminal orders it: reading order
        out = join(*texts)
    return right_align(speech, out, width) if width else out


def fields(template: str, style: str, **params: Any) -> Text:
    """``template`` filled in, on ``style``, each field a run of its own (styled like
    the line): laid out for an Arabic interface (``Speech.line``), a field without
    Arabic in it (a size, a score) is kept whole, left to right."""
    out = Text(style=style, no_wrap=True)
    pos = 0
    for m in re.finditer(r"\{(\w+)\}", template):
        out.append(template[pos:m.start()])
        out.append(str(params[m.group(1)]), style=style)
        pos = m.end()
    out.append(template[pos:])
    return out


@dataclass(frozen=True)
class Cell:
    """A column's cell: ``text`` in ``width`` cells (0: as wide as it is), at the
    right of the cell if ``right``, in ``style``."""
    text: str
    width: int = 0
    right: bool = False
    style: str | Style = ""


def cells_row(speech: Speech, cells: list[Cell], style: str | Style = "") -> Text:
    """A row of columns for an Arabic interface, mirrored when it is joined here:
    the first column at the right, each cell aligned to the other side (a number
    that hugs the right edge of its English column hugs the left one here), each
    cell shown by itself (joined and in visual order), so the columns stay where
    they are. For a terminal that orders text itself: the cells in reading order,
    aligned as in English (the terminal mirrors the whole line)."""
    out = Text(no_wrap=True, style=style)
    shaped = speech.shaped
    for c in reversed(cells) if shaped else cells:
        shown = speech.show(c.text) if shaped else c.text
        pad = " " * max(0, c.width - cell_len(shown))
        out.append(shown + pad if c.right == shaped else pad + shown, style=c.style or None)
    return out


# ---------------------------------------------------------------- the results
@dataclass(frozen=True)
class Hit:
    """A clickable area of the picture: ``card`` drawn at columns x … x+width-1,
    rows y … y+height-1; or, without a card, what a tap there does (``tap``):
    ("key", key, character) presses a key, ("number", n) chooses a number of the
    bid, call or declaration, ("suit", suit) a bid's suit."""
    x: int
    y: int
    width: int
    height: int
    card: str = ""
    tap: tuple[str, ...] = ()

    def contains(self, x: int, y: int) -> bool:
        return self.x <= x < self.x + self.width and self.y <= y < self.y + self.height

    def moved(self, dx: int, dy: int = 0) -> Hit:
        return Hit(self.x + dx, self.y + dy, self.width, self.height, self.card, self.tap)


@dataclass(frozen=True)
class Frame:
    """The 80×24 table: 23 lines, the footer, the clickable cards."""
    lines: list[Text]
    footer: Text
    hits: tuple[Hit, ...]


@dataclass(frozen=True)
class Placed:
    """What a board of ``width``×``height`` shows, and where its cards and the keys
    a tap presses are."""
    lines: list[Text]
    hits: tuple[Hit, ...] = ()
    small: bool = False          # too small: a request to enlarge the window
    x: int = 0                   # the column the lines start at (``place``)
    compact: bool = False        # the compact layout (issue 26: under 80×24)
    # The rows a player's own move shows first, most important first (the trick, the
    # scores, the hand, the phase's controls): the board sends them ahead of the rest on
    # its echo, as many as hold in a small send (a slow link: ``Board.set_lines``).
    focus: tuple[int, ...] = ()


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
                                  practice=facts.practice, hands=self.terms.hands)
        self.you = " " + speech._("(you)")

    def _(self, message: str) -> str:
        return self.speech._(message)

    def game_title(self) -> str:
        """The game's name in this language (a table's own title for a game the
        catalogue does not know)."""
        return self._(TITLES[self.facts.game]) if self.facts.game in TITLES else self.facts.title

    def game_word(self, message: str) -> str:
        """``message`` in the game's own words where its language has them (Tarneeb's
        "Trump"), else as said everywhere."""
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
    text = _CARD_RE.sub(lambda m: look.card_str(m.group(0)), text)
    return _BID_RE.sub(lambda m: m.group(1) + look.suit(m.group(2)), text)


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


# ------------------------------------------------------------------ the frame
def draw_table(view: View | None, state: TableState, facts: TableFacts, look: Look,
               now: float, cache: DrawCache | None = None,
               speech: Speech | None = None) -> Frame:
    """The 80×24 table for ``view`` as seen from ``facts.seat``, said by ``speech``
    (by default: the look's language)."""
    sc = Scene(view, state, facts, look, now, cache, speech)
    hand, hits = hand_rows(sc)
    info, scores, middle, chat = still_lines(sc)
    notes = note_lines(sc)
    lines: list[Text] = [info, *notes[:1]]
    # A notice longer than a row (a hint) goes on under itself: the scores and the
    # middle move down a row into the blank row 13 (and the phase a row into 17).
    lines += notes[1:3]
    lines += scores                         # 5 lines (rows 2-6)
    lines += middle                         # 6 lines (rows 7-12)
    # blank rows are the one BLANK object: the board skips a line it drew last frame
    if len(notes) < 2:
        lines.append(BLANK)                 # 13
    phase = phase_lines(sc)
    phase_row = len(lines)
    lines += phase                          # 3 lines (14-16)
    if len(notes) < 3:
        lines.append(BLANK)                 # 17
    lines += hand                           # 2 lines (18-19)
    lines.append(BLANK)                     # 20
    lines += chat                           # 2 lines (21-22)
    return Frame(lines[:H - 1], footer_line(sc),
                 hits + tuple(phase_hits(sc, phase, phase_row)))


Still = tuple[Text, list[Text], list[Text], list[Text]]
# A move's own echo first (``Placed.focus``), most important first: the middle (the
# trick, who plays: rows 7-12), the hand (18-19), the phase's controls (14-16); the
# info bar, the scores with the events beside them, the chat and the footer after.
FOCUS = (*range(7, 13), 18, 19, 14, 15, 16)


def still_lines(sc: Scene) -> Still:
    """The info bar, the scores, the middle and the chat: drawn from the view, the
    table's facts, the look and the trick's animation only.  A frame drawn for a key
    pressed (a rank typed, the cursor moved) has them all as the last frame had: the
    same view object (one per version), facts equal, the same animation; they come
    back whole then, not section by section."""
    cache = sc.cache
    drew = cache.still
    if (drew is not None and drew[0] is sc.view and drew[2] is sc.state.anim
            and drew[3] == sc.look_key and drew[1] == sc.facts):
        return drew[4]
    lines = (info_line(sc), score_lines(sc), middle_lines(sc), chat_lines(sc))
    cache.still = (sc.view, sc.facts, sc.state.anim, sc.look_key, lines)
    return lines


def place(frame: Frame, width: int, height: int) -> Placed:
    """``frame`` on a board of ``width``×``height`` (at least 80×24): centred across
    (its lines left as they are, the column they start at in ``x``: a board draws them
    there, so a frame's unchanged lines stay the same objects on a terminal wider than
    80 columns, which the board skips), the table at the top, the footer on the last
    row."""
    lines = list(frame.lines)
    lines += [BLANK] * (height - 1 - len(lines))
    lines.append(frame.footer)
    x = (width - W) // 2
    hits = frame.hits + footer_hits(frame.footer, height - 1)
    if x:
        hits = tuple(h.moved(x) for h in hits)
    return Placed(lines, hits, x=x, focus=FOCUS)


# ----------------------------------------------------------------------- info
def info_line(sc: Scene) -> Text:
    facts, v = sc.facts, sc.view
    left = facts.seconds_left
    secs = None if left is None else int(left + 0.999)
    call = v.get("call") if v else None
    key = ("info", sc.look_key, facts.id, facts.title, facts.length, facts.game,
           facts.practice, facts.code_label, facts.seat, facts.deadline_seat, secs, facts.board,
           tuple(s.label for s in facts.seats),
           None if v is None else (v.get("rounds"), v.get("round"), v.get("kind"),
                                   v.get("fixed_trump"), v.get("trump"),
                                   call and (call.get("n"), call.get("suit")),
                                   v.get("caller"), v.get("multiplier"),
                                   v.get("shown_card")))
    hit = sc.cache.section(key)
    if hit is None:
        hit = sc.cache.keep(key, _info_line(sc))
    return hit


def _info_line(sc: Scene) -> Text:
    facts, v, look, _ = sc.facts, sc.view, sc.look, sc._
    bar = look.style("bold reverse") if not look.colour else "bold white on blue"
    t = Text(no_wrap=True, overflow="ellipsis", style=bar)
    t.append(f" #{facts.id} ")
    t.append(sc.game_title())
    if facts.board is not None and v is not None:
        # An event's board: which, in place of the match's length and round.
        t.append(" · " + _("Event {event}, board {n} of {total}").format(
            event=facts.board[0], n=facts.board[1], total=facts.board[2]))
    elif facts.length is not None and sc.terms.counted:
        length = facts.length
        t.append(f" {sc._(LENGTH_WORDS[length]) if length in LENGTH_WORDS else length}")
    if facts.practice:
        t.append(" · " + _("Practice"))
    if v is None:
        t.append(" · " + _("waiting for players"))
        if facts.code_label:
            t.append(" · " + _("private, code {code}").format(code=facts.code_label))
    else:
        if facts.board is not None:
            pass
        elif v.get("rounds"):
            t.append(" · " + _("Round {n} of {total}").format(n=v["round"], total=v["rounds"]))
        else:
            t.append(" · " + _("Hand {n}").format(n=v["round"]))
        kind = v.get("kind")
        if kind in ("fast", "fixed"):
            ft = v.get("fixed_trump")
            t.append(" (" + _(KIND_WORDS[kind]) + f" {look.suit(ft)})")
        trump = v.get("trump")
        t.append(" · " + sc.game_word("Trump") + " ")
        t.append(look.suit(trump) if trump else "—")
        call = v.get("call")
        if call and v.get("caller") is not None:
            t.append(" · " + _("Call") + f" {look.bid_str(call.get('n'), call.get('suit'))} "
                     f"{sc.name(v['caller'], you=False)}")
        if (v.get("multiplier") or 1) > 1:
            if sc.rtl:      # the dot with the words: "×2" is kept whole, left to right
                t.append(" · ")
                t.append(f"×{v['multiplier']}", style="bold")
            else:
                t.append(f" · ×{v['multiplier']}", style="bold")
        shown = v.get("shown_card")
        if shown:
            t.append(" · " + _("Shown") + f" {look.card_str(shown)}")
    right = Text(" " * 6, style=bar)
    left = facts.seconds_left
    if left is not None:
        secs = int(left + 0.999)
        mine = facts.deadline_seat == facts.seat
        if sc.rtl:
            shown = sc.speech.show(_("{n}s").format(n=secs))
            right = Text(f" {shown:>4} ", style=bar)
        else:
            right = Text(f" {secs:>3}s ", style=bar)
        if mine and secs <= 10:
            right.stylize(look.style("bold red on white"))
    if sc.rtl:          # the timer at the left, the line read from the right
        line = rtl_fit(sc.speech, t, W - 6)
        line.style = bar
        # (in reading order, the timer last, for a terminal that orders text itself)
        return join(right, line) if sc.speech.shaped else join(line, right)
    t.append(" " * max(0, W - 6 - t.cell_len))
    return join(fit(t, W - 6), right)


def note_lines(sc: Scene) -> list[Text]:
    """Row 1 (``note_line``); a notice too long for it (a hint) whole, in as many
    lines as it needs (three at most: a hint takes two at 80 columns)."""
    state = sc.state
    if state.notice and sc.now < state.notice_until:
        said = Text(" " + sc.say(sc._(state.notice)), style=sc.look.style("bold"))
        return [sc.line(part) for part in wrap(said, W - 1)]
    return [note_line(sc)]


def note_line(sc: Scene) -> Text:
    """Row 1: where you landed, the seat you wait for, or the private code."""
    facts, look, state = sc.facts, sc.look, sc.state
    if state.notice and sc.now < state.notice_until:
        return sc.line(Text(" " + sc.say(sc._(state.notice)), style=look.style("bold")))
    if facts.request is not None:
        return sc.line(Text(" " + said_in(sc.speech, facts.request), style=look.style("bold")))
    if facts.code_label and sc.view is not None:
        return sc.line(Text(" " + sc._("Private table · code {code} · friends press j in the "
                                       "lobby and type it").format(code=facts.code_label),
                            style=look.style("dim")))
    return BLANK


# --------------------------------------------------------------------- scores
SCORE_HEAD = f"  {'player':<19}{'bid':>4}{'won':>4}{'total':>7}"
_SCORE_SEP = Text("│ ", style="dim")        # between the scores and the events


def score_head(sc: Scene) -> tuple[str, ...]:
    """The score panel's column names (player, bid, won, total) in the language."""
    sp = sc.speech
    return (sp.pgettext("column", "player"), sp.pgettext("column", "bid"),
            sp.pgettext("column", "won"), sp.pgettext("column", "total"))


def score_lines(sc: Scene) -> list[Text]:
    """Rows 2-6: the scores left, the latest events right.  Each row is keyed on
    its plain strings and the turn marker; its Text is built only when new.
    In an Arabic interface joined here the panel is mirrored: the scores at the
    right, their columns from the right, the events at the left; for a terminal
    that orders text itself it is sent in reading order (the scores first)."""
    v, rtl = sc.view, sc.rtl
    seats, rows, side = score_rows(sc)
    to_act = v.get("to_act") if v else None
    out = []
    drawn = sc.cache.scores         # rows, and their halves (English)
    if len(drawn) > 96:
        drawn.clear()
    marker = sc.look.style("bold yellow")
    lang = (sc.speech.code, sc.speech.mode)
    for i in range(5):
        # only the marker shows the turn: a move repaints two cells, not two rows
        turn = i > 0 and to_act == seats[i - 1]
        # the joined line is reused while its row and side text are unchanged
        key = (turn, rows[i], side[i], marker, lang)
        line = drawn.get(key)
        if line is None:
            plain = rows[i]
            text, style = side[i]
            if rtl and sc.speech.shaped:
                line = join(sc.line(Text(text, style=style), W - 38), Text(" │", style="dim"),
                            fit(score_row(sc, i, turn, plain, marker), 36))
            elif rtl:       # in reading order: the terminal lays it out
                line = join(fit(score_row(sc, i, turn, plain, marker), 36),
                            _SCORE_SEP, fit(Text(text, style=style), W - 38))
            else:
                # its two halves kept apart too: a trick taken scrolls the events (every
                # row's right half is the one below's), a turn moves the marker (left)
                left_key = ("left", i == 0, turn, plain, marker)
                left = drawn.get(left_key)
                if left is None:
                    if i == 0:
                        row = Text(plain, style="bold underline")
                    else:
                        row = Text(no_wrap=True)
                        row.append("▶ " if turn else "  ", style=marker)
                        row.append(plain)
                    left = drawn[left_key] = fit(row, 36)
                right_key = ("right", text, style)
                right = drawn.get(right_key)
                if right is None:
                    right = drawn[right_key] = fit(Text(text, style=style), W - 38)
                line = join(left, _SCORE_SEP, right)
            drawn[key] = line
        out.append(line)
    return out


# What the score panel shows of a view besides the turn (``score_rows``, ``side_lines``).
_SCORE_VIEW = ("dealer", "caller", "with_players", "dash_players", "teams", "declarations",
               "tricks_taken", "totals", "team_totals", "round")


def _tuple(x: Any) -> Any:
    """A view's list (of lists) as a key: tuples all the way down (a list of numbers,
    the usual one, at once)."""
    if not isinstance(x, list):
        return x
    t = tuple(x)
    try:
        hash(t)
    except TypeError:               # lists in it (Tarneeb's teams)
        return tuple(map(_tuple, x))
    return t


Rows = tuple[tuple[int, ...], tuple[Any, ...], list[tuple[str, str]]]


def score_rows(sc: Scene) -> Rows:
    """The seats from the viewer round (bottom, right, top, left), the panel's rows
    as plain strings (the head first) and the events beside them; kept by what
    they show, since building them cost ~0.1 ms a frame and a card played changes
    none of it (only the turn marker)."""
    facts, v = sc.facts, sc.view
    rnd = v.get("round") if v else None
    key = ("scores", sc.look_key, facts.game, facts.seat, facts.seats, shown_events(sc, rnd),
           None if not v else tuple(map(_tuple, map(v.get, _SCORE_VIEW))))
    hit = sc.cache.section(key)
    if hit is None:
        hit = sc.cache.keep(key, _score_rows(sc))
    return hit


def shown_events(sc: Scene, rnd: int | None) -> tuple[tuple[str, Any], ...]:
    """The last five events of round ``rnd`` (or of none), each with the template it
    was said from: kept while the table's events are the same object (``narration``)."""
    events = sc.facts.events
    drew = sc.cache.events
    if drew is not None and drew[0] is events and drew[1] == rnd:
        return drew[2]
    shown = tuple((text, getattr(text, "template", None)) for text in
                  [text for r, text in events if r is None or r == rnd][-5:])
    sc.cache.events = (events, rnd, shown)
    return shown


def _score_rows(sc: Scene) -> Rows:
    facts, v, rtl = sc.facts, sc.view, sc.rtl
    teamed = sc.terms.teams
    rows: list[Any] = [score_head(sc) if rtl else SCORE_HEAD]
    pos = facts.positions()
    seats = (pos["bottom"], pos["right"], pos["top"], pos["left"])
    for s in seats:
        label = sc.seat_label(s)
        suffix = sc.you if s == facts.seat else ""
        if facts.seats[s].away:
            suffix += " " + sc._("away")
        label, suffix = label[:14], suffix[:max(0, 14 - len(label))]
        name = sc.say(label) + suffix
        tags = ""
        if v:
            if v.get("dealer") == s:
                tags += "D"
            if v.get("caller") == s:
                tags += "C"
            if s in (v.get("with_players") or []):
                tags += "W"
            if s in (v.get("dash_players") or []):
                tags += "X"
            teams = v.get("teams")
            if teamed and teams:
                tags += "ab"[0 if s in teams[0] else 1]
        decl = tricks = total = ""
        if v:
            d = (v.get("declarations") or [None] * 4)[s]
            decl = "" if d is None else str(d)
            tricks = str((v.get("tricks_taken") or [0] * 4)[s])
            total = str((v.get("totals") or [0] * 4)[s])
        if rtl:
            # Arabic letters would join into a word: a space between two tags
            tags = " ".join(sc.speech.pgettext("tag", t) for t in tags)
            rows.append((name, tags, decl, tricks, total))
        else:
            rows.append(f"{name[:14]:<14} {tags:<4}{decl:>4}{tricks:>4}{total:>7}")
    return seats, tuple(rows), side_lines(sc)


def score_row(sc: Scene, i: int, turn: bool, cells: tuple[str, ...], marker: str) -> Text:
    """A row of the score panel, mirrored (an Arabic interface): 0 is the head."""
    if i == 0:
        player, bid, won, total = cells
        return cells_row(sc.speech, [Cell("", 2), Cell(player, 19), Cell(bid, 4, True),
                                     Cell(won, 4, True), Cell(total, 7, True)],
                         style="bold underline")
    name, tags, decl, tricks, total = cells
    return cells_row(sc.speech, [Cell("◀" if turn else "", 2, style=marker), Cell(name, 14),
                                 Cell("", 1), Cell(tags, 4), Cell(decl, 4, True),
                                 Cell(tricks, 4, True), Cell(total, 7, True)])


def side_lines(sc: Scene, width: int = W - 38) -> list[tuple[str, str]]:
    """Right of the scores, ``width`` cells: Tarneeb teams, then the latest events
    (text, style), the newest whole over the rows it needs (wrapped at its words: a
    line of scores is never cut in a number), the older above it as hold whole."""
    facts, v = sc.facts, sc.view
    out: list[tuple[str, str]] = []
    team_totals = v.get("team_totals") if v else None
    if v and team_totals:
        a, b = team_totals
        teams = v.get("teams") or [[0, 2], [1, 3]]
        out.append((sc._("Teams  a {a}  ·  b {b}   ({first}+{second} vs …)").format(
            a=a, b=b, first=sc.name(teams[0][0], False, 8),
            second=sc.name(teams[0][1], False, 8)), "bold"))
    rnd = v.get("round") if v else None
    evs = [text for r, text in facts.events if (r is None or r == rnd) and sc.told(text)]
    room = 5 - len(out)
    evs = evs[-room:]
    cache = sc.cache
    said: list[tuple[str, str]] = []
    for i, text in reversed(list(enumerate(evs))):
        key = ("pretty", text, getattr(text, "template", None), sc.look_key)
        shown = cache.section(key)
        if shown is None:
            shown = cache.keep(key, sc.narrate(text))
        style = "bold" if i == len(evs) - 1 else "dim"
        parts = [p.plain for p in wrap(Text(shown), width, "  ")] if width else [shown]
        if len(parts) > room - len(said):
            if said:
                break           # an older one that does not hold whole (all of it: e)
            parts = parts[:room]
            cut = parts[-1].rstrip()        # the newest itself: ends after a whole word
            while cut and cell_len(cut) + 2 > width:
                k = cut.rfind(" ")
                cut = cut[:k].rstrip() if k > 0 else ""
            parts[-1] = cut + " …"
        said = [(p, style) for p in parts] + said
        if len(said) >= room:
            break
    out += said
    return out + [("", "")] * (5 - len(out))


# --------------------------------------------------------------------- middle
def middle_lines(sc: Scene) -> list[Text]:
    v, anim = sc.view, sc.state.anim
    if v is not None and (v.get("phase") == "over"
                          or (v.get("phase") != "play" and v.get("history")
                              and not v.get("tricks"))):
        return _middle_lines(sc)
    facts = sc.facts
    tricks = v.get("tricks") if v else None
    key = ("middle", sc.look_key, facts.seat, facts.seats,
           None if v is None else (
               v.get("phase"), v.get("leader"),
               tuple((c["seat"], c["card"]) for c in v.get("trick") or ()),
               tricks[-1]["winner"] if tricks else None),
           None if anim is None else (
               tuple((c["seat"], c["card"]) for c in anim.cards), anim.winner, anim.moved))
    hit = sc.cache.section(key)
    if hit is None:
        hit = sc.cache.keep(key, _middle_lines(sc))
    return list(hit)


Slot = tuple[str, Any]


def trick_slots(sc: Scene) -> tuple[dict[int, Slot], tuple[str, str]]:
    """What each seat's place at the middle shows, as plain values ("card", code) /
    ("pile", codes) / ("mark", text), and the note under it (text, style): the trick
    as it is played, the finished one on its way to its winner, the seats before the
    match."""
    facts, v, look, anim = sc.facts, sc.view, sc.look, sc.state.anim
    slots: dict[int, Slot] = {}
    note: tuple[str, str] = ("", "")            # (text, style)
    if v is None:
        empty = sc.speech.show(sc._("empty"))
        slots = {s: ("mark", empty if facts.seats[s].kind == "empty" else " ✓ ")
                 for s in range(4)}
        note = (sc._("Waiting for players · b: computer players fill the empty seats")
                if facts.may_fill else sc._("Waiting for players"), "bold")
        return slots, note
    trick = v.get("trick") or []
    if not trick and anim is not None:
        who = sc.name(anim.winner)
        if not anim.moved:
            for c in anim.cards:
                slots[c["seat"]] = ("card", c["card"])
            note = (sc._("{who} takes the trick").format(who=who), "bold")
        else:
            note = (sc._("{who} took the trick").format(who=who), "bold")
            if not look.reduce_motion:
                slots[anim.winner] = ("pile", tuple(c["card"] for c in anim.cards))
    elif not trick and v.get("tricks"):
        last = v["tricks"][-1]
        note = (sc._("{who} took the last trick").format(who=sc.name(last["winner"])), "dim")
    for c in trick:
        slots[c["seat"]] = ("card", c["card"])
    if not note[0] and v.get("phase") == "play":
        lead = v.get("leader")
        if not trick and lead is not None:
            note = (sc._("{who} leads").format(who=sc.name(lead)), "dim")
    return slots, note


def _middle_lines(sc: Scene) -> list[Text]:
    facts, v, look = sc.facts, sc.view, sc.look
    # What each seat's slot shows: a row is built from it only when it changed (``kept``).
    if v is not None and v.get("phase") == "over":
        if facts.board is not None:
            return (board_lines(sc) + [Text("")] * 6)[:6]
        return ([Text(""), *result_lines(sc)] + [Text("")] * 6)[:6]
    if v is not None and v.get("phase") != "play" and v.get("history") and not v.get("tricks"):
        return (summary_lines(sc, v["history"][-1]) + [Text("")] * 6)[:6]
    slots, note = trick_slots(sc)
    pos = facts.positions()

    def slot(w: str) -> Slot | None:
        return slots.get(pos[w])

    def shown(d: Slot | None) -> Text:
        if d is None:
            return BLANK
        kind, what = d
        if kind == "card":
            return look.card(what)
        if kind == "pile":
            p = Text()
            for code in what:
                p.append_text(look.card(code, dim=True))
                p.append(" ")
            return p
        return Text(what, style="dim")

    def name(w: str) -> str:
        return sc.speech.show(sc.seat_label(pos[w])[:16])

    def named(label: str) -> Text:
        return Text(label, style="bold")

    def noted() -> Text:
        t = Text(note[0], style=note[1])
        return center(sc.speech.line(t, 0) if sc.rtl else t)

    kept, lk = sc.cache.kept, sc.look_key
    top, left, right = name("top"), name("left"), name("right")
    tslot, lslot, rslot, bslot = slot("top"), slot("left"), slot("right"), slot("bottom")
    return [BLANK,
            kept("top name", (lk, top), lambda: center(named(top))),
            kept("top card", (lk, tslot), lambda: center(shown(tslot))),
            kept("sides", (lk, left, lslot, rslot, right),
                 lambda: join(fit(named(left), 18), fit(shown(lslot), 13, right=True),
                              " " * 18, fit(shown(rslot), 13),
                              fit(named(right), 18, right=True))),
            kept("bottom card", (lk, bslot), lambda: center(shown(bslot))),
            kept("note", (lk, note), noted)]


def summary_title(speech: Speech, game: str, n: object) -> str:
    """A round's summary's title: Tarneeb's rounds are hands (its info bar's word)."""
    if terms(game).hands:
        return speech._("Hand {n} summary").format(n=n)
    return speech._("Round {n} summary").format(n=n)


def summary_lines(sc: Scene, rec: dict[str, Any]) -> list[Text]:
    look, _ = sc.look, sc._
    head = Text(" " + summary_title(sc.speech, sc.facts.game, rec.get("round")),
                style="bold underline")
    if rec.get("void"):
        head.append("  " + _("hand void (declarations under 11): redeal"), style="bold")
        return [sc.line(head) if sc.rtl else head]
    if (rec.get("multiplier") or 1) > 1:
        if sc.rtl:          # the gap with the words: "×2" is kept whole, left to right
            head.append("  ")
            head.append(f"×{rec['multiplier']}", style="bold")
        else:
            head.append(f"  ×{rec['multiplier']}", style="bold")
    if rec.get("over") is not None:
        head.append("  " + (_("over") if rec["over"] else _("under")), style="dim")
    if rec.get("saayda"):
        saayda = sc.term("saayda", "Sa'ayda")
        head.append("  " + _("{saayda}: all missed, next round ×2").format(saayda=saayda),
                    style="bold")
    if rec.get("all_pass"):
        head.append("  " + _("all passed"), style="dim")
    hint = "  " + (_("(r: all hands)") if sc.terms.hands else _("(r: all rounds)"))
    if head.cell_len + cell_len(hint) <= W:     # a Sa'ayda round's line has no room
        head.append(hint, style="dim")
    decl = rec.get("declarations") or [None] * 4
    took = rec.get("tricks_taken") or [0] * 4
    scores = rec.get("scores") or [0] * 4
    bd = rec.get("breakdown") or [{}] * 4
    made = rec.get("made")
    totals = sc.view["totals"] if sc.view else [0] * 4
    used = [k for k in BONUS_KEYS if any(isinstance(b, dict) and b.get(k) for b in bd)]
    if sc.rtl:
        return [sc.line(head), *summary_table(sc, used, decl, took, scores, bd, made, totals)]
    names = {k: (sc.term(k, BONUS_NAMES[k]) if k in ("with", "risk", "dash")
                 else BONUS_NAMES[k]) for k in used}
    widths = {k: max(len(names[k]), 4) + 1 for k in used}
    hdr = Text(f" {'player':<14}{'bid':>4}{'won':>4}{'base':>6}", style="bold")
    for k in used:
        hdr.append(names[k].rjust(widths[k]))
    if made is not None:
        hdr.append("  result")
    hdr.append(f"{'pts':>6}{'total':>7}")
    lines = [head, hdr]
    for s in range(4):
        b = bd[s] if s < len(bd) and isinstance(bd[s], dict) else {}
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(f" {sc.name(s, False, 14):<14}{'' if decl[s] is None else decl[s]:>4}"
                 f"{took[s]:>4}")
        t.append(f"{b.get('base', 0):>+6d}" if "base" in b else f"{'':>6}")
        for k in used:
            val = b.get(k)
            t.append((f"{val:+d}" if val else "·").rjust(widths[k]), style="" if val else "dim")
        if made is not None:
            t.append("  made  " if made[s] else "  failed",
                     style=look.style("green") if made[s] else look.style("red"))
        t.append(f"{scores[s]:>+6d}", style="bold")
        t.append(f"{totals[s]:>7}")
        lines.append(t)
    return lines[:6]


def summary_table(sc: Scene, used: list[str], decl: list[Any], took: list[int],
                  scores: list[int], bd: list[Any], made: list[bool] | None,
                  totals: list[int]) -> list[Text]:
    """The round summary's table for an Arabic interface: its columns mirrored."""
    sp, look = sc.speech, sc.look
    names = {k: (sc.term(k, BONUS_NAMES[k]) if k in ("with", "risk", "dash")
                 else sp.pgettext("column", BONUS_NAMES[k])) for k in used}
    widths = {k: max(cell_len(sp.show(names[k])), 4) + 1 for k in used}
    hdr = [Cell("", 1), Cell(sp.pgettext("column", "player"), 14), Cell(sp.pgettext("column", "bid"), 4, True),
           Cell(sp.pgettext("column", "won"), 4, True), Cell(sp.pgettext("column", "base"), 6, True)]
    hdr += [Cell(names[k], widths[k], True) for k in used]
    if made is not None:
        hdr.append(Cell(sp.pgettext("column", "result"), 8, True))
    hdr += [Cell(sp.pgettext("column", "pts"), 6, True), Cell(sp.pgettext("column", "total"), 7, True)]
    lines = [right_align(sp, cells_row(sp, hdr, style="bold"), W)]
    for s in range(4):
        b = bd[s] if s < len(bd) and isinstance(bd[s], dict) else {}
        row = [Cell("", 1), Cell(sc.facts.seats[s].label[:14], 14),
               Cell("" if decl[s] is None else str(decl[s]), 4, True),
               Cell(str(took[s]), 4, True),
               Cell(f"{b.get('base', 0):+d}" if "base" in b else "", 6, True)]
        for k in used:
            val = b.get(k)
            row.append(Cell(f"{val:+d}" if val else "·", widths[k], True,
                            "" if val else "dim"))
        if made is not None:
            row.append(Cell(sc._("made") if made[s] else sc._("failed"), 8, True,
                            look.style("green") if made[s] else look.style("red")))
        row += [Cell(f"{scores[s]:+d}", 6, True, "bold"), Cell(str(totals[s]), 7, True)]
        lines.append(right_align(sp, cells_row(sp, row), W))
    return lines[:5]


def board_head(sc: Scene) -> tuple[Text, dict[str, Any]] | None:
    """An event's board over: the entrant's score (the side's beside it in Tarneeb 41)
    as a sentence not yet laid out, and the round's record its summary shows."""
    facts, _ = sc.facts, sc._
    v: MaybeView = sc.view or {}
    seat = facts.seat if facts.seat is not None else 0
    history = v.get("history") or []
    try:
        mine = result_of(history, seat)
        rec = dict(scored_round(history))
    except (ValueError, KeyError, IndexError):
        return None
    assert facts.board is not None
    head = Text(" " + _("Board {n} over: your score {score}").format(
        n=facts.board[1], score=f"{mine.score:+d}"), style="bold")
    if mine.side is not None:
        head.append("  " + _("(your side {side})").format(side=f"{mine.side:+d}"))
    return head, rec


def board_lines(sc: Scene) -> list[Text]:
    """An event's board over: its head, then the round as its summary shows it."""
    got = board_head(sc)
    if got is None:
        return []
    head, rec = got
    return [sc.line(head) if sc.rtl else head, *summary_lines(sc, rec)[1:]]


def result_head(sc: Scene) -> Text:
    """The match's end in a sentence (not yet laid out): who won, or the draw, and who
    left."""
    v: MaybeView = sc.view or {}
    _ = sc._
    res = v.get("result") or {}
    winners = res.get("winners") or []
    comma = sc.speech.pgettext("list", ", ")
    head = Text(" " + _("Match over:") + " ", style="bold")
    if res.get("draw"):
        head.append(_("a draw between {names}").format(
            names=comma.join(sc.name(w) for w in winners)))
    elif winners:
        head.append(sc.speech.ngettext("{names} wins", "{names} win", len(winners)).format(
            names=comma.join(sc.name(w) for w in winners)))
    if v.get("left") is not None:
        head.append("  " + _("({who} left)").format(who=sc.name(v["left"])), style="dim")
    return head


def paid_words(sc: Scene, seat: int) -> tuple[str | None, str | None]:
    """What the match paid ``seat``, as the store paid it (E-38 … E-40, Tarneeb 20/−4):
    its level points and its new badge, in words (None: nothing)."""
    _ = sc._
    got = (sc.facts.points or {}).get(seat)
    points = _("{points} level points").format(points=f"{got['points']:+d}") \
        if got and got.get("points") else None
    badge = _("new badge: {badge}").format(badge=_(got["badge"])) \
        if got and got.get("badge") else None
    return points, badge


def result_lines(sc: Scene) -> list[Text]:
    facts = sc.facts
    v: MaybeView = sc.view or {}
    winners = (v.get("result") or {}).get("winners") or []
    head = result_head(sc)
    lines = [sc.line(head) if sc.rtl else head]
    totals = v.get("totals") or [0] * 4
    for s in sorted(range(4), key=lambda s: -totals[s]):
        points, badge = paid_words(sc, s)
        style = "bold" if s in winners else ""
        if sc.rtl:
            row = cells_row(sc.speech, [Cell("", 1), Cell("★" if s in winners else "", 2),
                                        Cell(facts.seats[s].label + (
                                            sc.you if s == facts.seat else ""), 20),
                                        Cell(str(totals[s]), 6, True)], style=style)
            parts: list[Text | Shown] = [Shown(row)]
            if points:
                parts.append(Text("   " + points, style=style))
            if badge:
                parts.append(Text("   " + badge, style="bold"))
            lines.append(units(sc.speech, parts, W))
            continue
        mark = "★ " if s in winners else "  "
        line = Text(f" {mark}{sc.name(s):<20}{totals[s]:>6}", style=style)
        if points:
            line.append("   " + points)
        if badge:
            line.append("   " + badge, style="bold")
        lines.append(line)
    return lines


# ---------------------------------------------------------------------- phase
def _same(text: Text) -> Text:
    return text


def phase_lines(sc: Scene) -> list[Text]:
    v, look, state, _ = sc.view, sc.look, sc.state, sc._
    # An Arabic interface's lines are laid out where they are made; English ones fit below.
    ln = sc.line if sc.rtl else _same
    lines: list[Text] = [BLANK, BLANK, BLANK]
    mode = sc.keys.mode
    if v is None:
        lines[0] = ln(Text(" " + _("Waiting for four players."), style="bold"))
        if sc.facts.may_fill:
            hint = _("b  fill the empty seats with computer players · q  leave")
        elif sc.facts.host is not None:
            hint = _("The host, {host}, may add computer players · q  leave").format(
                host=sc.facts.host)
        else:
            hint = _("q  leave")
        lines[1] = ln(Text(" " + hint, style="dim"))
    elif v.get("phase") == "over" and sc.facts.board is not None:
        board = sc.facts.board
        lines[0] = ln(Text(" " + (_("⏎  the event's results · q  back to the events")
                                  if board[1] >= board[2] else
                                  _("⏎  the next board · q  back to the events")),
                           style="bold"))
    elif v.get("phase") == "over":
        lines[0] = ln(Text(" " + _("The match is over. r  score sheet · q  back to the lobby"),
                           style="bold"))
    elif mode == "dash":
        lines[0] = ln(Text(" " + _("{dash} call? Promise to win no trick at all, before the "
                                   "trump is known.").format(dash=sc.term("dash", "Dash")),
                           style="bold"))
        lines[1] = ln(Text("   " + _("y  take the dash call      n  play normally")))
    elif mode in ("bid", "call"):
        lines = auction_lines(sc, mode)
    elif mode == "declare":
        lines = declare_lines(sc)
    elif mode == "play":
        # short: it comes and goes with every turn (bytes on every move)
        lines[0] = ln(Text(" " + _("Your turn"), style="bold"))
        if state.rank:
            lines[1] = ln(Text("   " + _("rank {rank} … now the suit: s h d c").format(
                rank=look.rank(state.rank))))
    else:
        lines = waiting_lines(sc)
    if state.message is not None and sc.now < state.message_until:
        lines[2] = ln(state.message)
    return [line if line is BLANK else fit(line, W) for line in lines[:3]]


def auction_state(sc: Scene) -> Text:
    v: MaybeView = sc.view or {}
    _ = sc._
    a = v.get("auction") or {}
    comma = sc.speech.pgettext("list", ", ")
    t = Text(" ")
    bid = a.get("bid")
    if bid:
        t.append(_("Standing bid") + " ")
        t.append_text(sc.bid(bid.get("n"), bid.get("suit")))
        t.append(f" {sc.name(a.get('owner'))}")
    else:
        t.append(_("No bid yet"))
    if a.get("with_players"):
        t.append(" · " + sc.speech.pgettext("key", "With") + " "
                 + comma.join(sc.name(s) for s in a["with_players"]))
    if a.get("passed"):
        t.append(" · " + _("passed") + " " + comma.join(sc.name(s) for s in a["passed"]),
                 style="dim")
    if a.get("dash_players"):
        t.append(" · " + _("dash") + " " + comma.join(sc.name(s) for s in a["dash_players"]))
    return t


def suit_choice(sc: Scene, kind: str, suits: Text) -> tuple[str | None, bool]:
    """The suits a bid or call may take, appended to ``suits``; and what is said of them
    (or None) and whether the suit is fixed (one shown, no choice). A fast round's call
    under 8 keeps the auction's trump (the engine's rule, E-18)."""
    v: MaybeView = sc.view or {}
    look, state, _ = sc.look, sc.state, sc._
    cells = sc.turn.suit_cells(kind, state.sel_n, state.sel_suit)
    if not cells:
        ft = v.get("fixed_trump") or v.get("trump")
        suits.append(" ")
        suits.append(look.suit(ft), style=look.suit_style(ft))
        if kind == "call" and call_keeps_trump(v.get("kind"), None):
            return _("(locked: raise to 8 or more to change it)"), True
        return _("(fixed this round)"), True
    for s, st in cells:
        cell = f" {look.suit(s)} "
        if st == "dim":
            suits.append(cell, style="dim")
        elif st == "sel":
            suits.append(cell, style=look.suit_style(s) + REVERSE)
        else:
            suits.append(cell, style=look.suit_style(s))
    if (kind == "call" and call_keeps_trump(v.get("kind"), state.sel_n)
            and any(st != "dim" for _s, st in cells)):
        return _("locked: raise to 8 or more to change the suit"), False
    return None, False


def auction_lines(sc: Scene, kind: str) -> list[Text]:
    v: MaybeView = sc.view or {}
    turn = sc.turn
    state = sc.state
    _ = sc._
    key = sc.speech.pgettext
    acts = turn.of(kind)
    row = Text(" " + (_("Bid") + " " if kind == "bid" else _("Call")) + " ", style="bold")
    # English: one line on a bold base; Arabic: the label said, the numbers kept as they are
    numbers = Text(style="bold") if sc.rtl else row
    for n, st in turn.number_cells(kind, state.sel_n):
        numbers.append(f" {n:>2} ",
                       style={"sel": "reverse bold", "ok": "bold", "dim": "dim"}[st])
    suit_row = Text(" " + _("Suit") + " ", style="bold")
    suits = Text(style="bold") if sc.rtl else suit_row
    note = Text(style="bold") if sc.rtl else suit_row
    said, fixed = suit_choice(sc, kind, suits)
    if said is not None:
        note.append((" " if fixed else "  ") + said, style="dim")
    hint = Text(" ")
    if acts:
        hint.append("Enter", style="bold")
        hint.append(" " + key("key", "bid" if kind == "bid" else "call") + " ")
        hint.append_text(sc.bid(state.sel_n, state.sel_suit))
        hint.append("  ")
    if turn.of("pass"):
        hint.append("p", style="bold")
        hint.append(" " + key("key", "pass") + "  ")
    if turn.of("with"):
        bid = (v.get("auction") or {}).get("bid") or {}
        hint.append("w", style="bold")
        hint.append(" " + key("key", "With") + " ")
        hint.append_text(sc.bid(bid.get("n"), bid.get("suit")))
        hint.append("  ")
    hint.append_text(auction_state(sc))
    if sc.rtl:
        # the label at the right; the numbers and suits left to right, as they are
        return [units(sc.speech, [row, numbers], W),
                units(sc.speech, [suit_row, suits, note], W), sc.line(hint)]
    return [row, suit_row, hint]


def declare_lines(sc: Scene) -> list[Text]:
    v: MaybeView = sc.view or {}
    state = sc.state
    _ = sc._
    row = Text(" " + _("Declare") + " ", style="bold")
    numbers = Text(style="bold") if sc.rtl else row
    styles = {"sel": "reverse bold", "ok": "bold", "dim": "dim", "forbidden": "dim strike"}
    for n, st in sc.turn.declare_cells(state.sel_n):
        numbers.append(f" {n:>2} ", style=styles[st])
    info = Text(" ")
    forbidden = v.get("forbidden")
    if forbidden is not None:
        info.append(_("{n} is disabled: it would make the total 13 (you declare last).").format(
            n=forbidden) + " ", style="bold")
    decl = v.get("declarations") or []
    total = sum(d for d in decl if d is not None)
    so_far = _("Declared so far: {total}").format(total=total)
    hint = Text(" Enter", style="bold")
    if sc.rtl:              # the margin at the right, "Enter" a key kept as it is
        hint = Text(" ", style="bold")
        hint.append("Enter", style=Style(bold=True))
    hint.append(" " + _("declare {n}   digits choose (1 then 0–3 for 10–13)").format(
        n=state.sel_n))
    # the total beside the forbidden number's sentence where the row holds both, else
    # on the keys' row (neither is cut: issue 44; the scores show each declaration)
    if info.cell_len + cell_len(so_far) < W:
        info.append(so_far, style="dim")
    elif hint.cell_len + 3 + cell_len(so_far) < W:
        hint.append("   " + so_far, style="dim")
    if sc.rtl:
        return [units(sc.speech, [row, numbers], W), sc.line(hint), sc.line(info)]
    return [row, hint, info]


def waiting_lines(sc: Scene) -> list[Text]:
    facts = sc.facts
    v: MaybeView = sc.view or {}
    _ = sc._
    who = v.get("to_act")
    t0 = Text(" ")
    if who is not None and v.get("phase") != "play":
        t0.append(_(ACTING.get(v.get("phase") or "", ACTING_ELSE)).format(who=sc.name(who)),
                  style="bold")
    if facts.seat is None:
        t0.append("   " + _("(you are watching)"), style="dim")
    lines = [t0, BLANK, BLANK]
    if v.get("phase") in ("dash", "auction", "call"):
        lines[1] = auction_state(sc)
    elif v.get("phase") == "declare":
        decl = v.get("declarations") or []
        total = sum(d for d in decl if d is not None)
        lines[1] = Text(" " + _("Declared so far: {total}").format(total=total), style="dim")
    if sc.rtl:
        return [sc.line(line) for line in lines]
    return lines


# ----------------------------------------------------------------------- hand
def hand_rows(sc: Scene) -> tuple[list[Text], tuple[Hit, ...]]:
    """The hand's two rows and where each card is drawn (both rows of its columns)."""
    look, v, turn, cache = sc.look, sc.view, sc.turn, sc.cache
    playing = sc.keys.mode == "play"
    ok = turn.playable()
    sel = sc.state.sel_card
    key = (tuple(v.get("hand") or ()) if v else (),
           (v.get("trump") or v.get("fixed_trump")) if v else None,
           playing, frozenset(ok) if playing else None,
           sel if playing else None, look.unicode, look.colour)
    if cache.hand is not None and cache.hand[0] == key:
        return list(cache.hand[1]), cache.hand[2]
    # Both rows built as strings and spans, then one Text each (not ~50 appends): the
    # rows are the same length at every card, so one offset serves both.
    up: list[str] = [" " * HAND_X]
    down: list[str] = [" " * HAND_X]
    up_spans: list[Span] = []
    down_spans: list[Span] = []
    at = HAND_X                     # characters so far (a Span's offsets)
    hits: list[Hit] = []
    x = HAND_X                      # cells so far (where a click lands)
    prev_suit = None
    for c in turn.hand():
        gap = "  " if prev_suit is not None and c[1] != prev_suit else ""
        prev_suit = c[1]
        label = look.card_str(c).rjust(CARD_W)
        up.append(gap)
        down.append(gap)
        at += len(gap)
        x += len(gap)
        hits.append(Hit(x, HAND_Y, CARD_W, 2, c))
        x += CARD_W
        blank = " " * len(label)
        # Legal cards stand raised on the upper row; on our turn the ones
        # that cannot be played drop to the lower row, dim.
        if not playing or c in ok:
            style = look.suit_style(c[1])
            if playing and c == sel:
                style = style + REVERSE
            up.append(label)
            down.append(blank)
            if style:
                up_spans.append(Span(at, at + len(label), style))
        else:
            up.append(blank)
            down.append(label)
            dim = look.suit_style(c[1], dim=True)
            if dim:
                down_spans.append(Span(at, at + len(label), dim))
        at += len(label)
    rows = (Text("".join(up), no_wrap=True, spans=up_spans),
            Text("".join(down), no_wrap=True, spans=down_spans))
    cache.hand = (key, rows, tuple(hits))
    return list(rows), cache.hand[2]


# ----------------------------------------------------------------------- chat
def chat_lines(sc: Scene) -> list[Text]:
    out = []
    for who, text in sc.facts.chat[-2:]:
        if sc.rtl:
            out.append(rtl_chat_line(sc, who, text))
            continue
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(f" {sc.say(who)}: ", style=sc.look.style("bold cyan"))
        t.append(sc.say(text))
        out.append(sc.line(t))
    return [*out, BLANK, BLANK][:2]


def rtl_chat_line(sc: Scene, who: str, text: str) -> Text:
    """A chat line of an Arabic interface, read from the right: the name, its colon,
    the words. A name or words without Arabic are kept left to right; the colon
    goes with the part that has Arabic, so it sits between the two once mirrored.
    A line without any Arabic stays as it is, right-aligned."""
    name = sc.look.style("bold cyan")
    t = Text(no_wrap=True)
    if not (arabic(who) or arabic(text)):
        t.append(f" {who}: ", style=name)
        t.append(text)
        return right_align(sc.speech, t, W)
    t.append(" ")
    if arabic(text):
        t.append(who, style=name)
        t.append(": " + text)
    else:
        t.append(who + ": ", style=name)
        t.append(text)
    return sc.line(t)


# --------------------------------------------------------------------- footer
def footer_line(sc: Scene) -> Text:
    """The keys that do something now (``table_keys``), each in a reversed box, with
    what they do in the player's language (an Arabic footer starts at the right)."""
    keys = footer(sc.keys)
    cache = sc.cache
    # kept by what it shows: a seat's footer changes as its turn comes and goes
    key = ("footer", keys, sc.speech.code, sc.speech.mode)
    line = cache.section(key)
    if line is not None:
        return line
    say = sc.speech.pgettext
    t = Text(no_wrap=True, overflow="ellipsis")
    for k, label in keys:
        # the reversed key box separates entries; no extra gap (80 columns)
        t.append(f" {k} ", style="bold reverse")
        t.append(say(KEY, label))
    return cache.keep(key, sc.line(t))


_TOKEN = re.compile(r"\S+")


def token_hits(line: Text, y: int, kind: str, tokens: dict[str, str]) -> list[Hit]:
    """Taps on the cells of a row of numbers or suits, found in the line as drawn (an
    Arabic row is mirrored): each token of ``tokens`` (as shown → its value) a cell one
    wider on each side."""
    plain = line.plain
    out = []
    for m in _TOKEN.finditer(plain):
        value = tokens.get(m.group(0))
        if value is None:
            continue
        x = cell_len(plain[:m.start()])
        out.append(Hit(max(0, x - 1), y, cell_len(m.group(0)) + 2, 1, tap=(kind, value)))
    return out


def number_tokens() -> dict[str, str]:
    return {str(n): str(n) for n in range(14)}


def phase_hits(sc: Scene, lines: list[Text], y0: int) -> list[Hit]:
    """Taps on the phase's numbers and suits (rows from ``y0``): the standard picture's
    number row and suit row of a bid or a call, the number row of a declaration."""
    mode = sc.keys.mode
    if mode in ("bid", "call"):
        suits = {sc.look.suit(s): s for s in ("NT", "S", "H", "D", "C")}
        return (token_hits(lines[0], y0, "number", number_tokens())
                + token_hits(lines[1], y0 + 1, "suit", suits))
    if mode == "declare":
        return token_hits(lines[0], y0, "number", number_tokens())
    return []


_FOOTER_HITS: dict[tuple[int, int], tuple[Text, tuple[Hit, ...]]] = {}


def footer_hits(line: Text, y: int, x: int = 0) -> tuple[Hit, ...]:
    """The keys in the footer's boxes, each a tap that presses it (``tui.widgets.taps``);
    worked out once per footer line (the footers are kept by what they show)."""
    hit = _FOOTER_HITS.get((id(line), y))
    if hit is not None and hit[0] is line:
        return hit[1] if not x else tuple(h.moved(x) for h in hit[1])
    hits = tuple(Hit(t.x, t.y, t.width, 1, tap=("key", t.key, t.char))
                 for t in line_taps(line, y))
    if len(_FOOTER_HITS) > 256:
        _FOOTER_HITS.clear()
    _FOOTER_HITS[(id(line), y)] = (line, hits)
    return hits if not x else tuple(h.moved(x) for h in hits)

