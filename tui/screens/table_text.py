"""Text primitives of the table's picture: lines cut, padded, wrapped and mirrored to a
width, the cells of a row, and where a tap lands (``Hit``). No scene: what any render
unit and the other screens use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len, get_character_cell_size
from rich.style import Style
from rich.text import Span, Text

from ..i18n import Speech
from ..widgets.taps import line_taps

W = 80
H = 24
HAND_X = 10          # the hand's first column
HAND_Y = 18          # the hand's upper row (the cards that cannot be played sit one lower)
CARD_W = 4           # a card's cells ("10♥" right-aligned in 4)
CARD_RE = re.compile(r"\b[AKQJT2-9][SHDC]\b")
BID_RE = re.compile(r"\b(\d{1,2})(NT|S|H|D|C)\b")
REVERSE = Style(reverse=True)


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
    head = text.plain
    room, k = width - 2, 0          # k: the characters that fit in ``room`` cells
    for ch in head:
        room -= get_character_cell_size(ch)
        if room < 0:
            break
        k += 1
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
    # Each line's own column where a line starts elsewhere than ``x`` (the chat's rows
    # run to the board's edge: ``table_chat.chat_span``); empty: every line at ``x``.
    at: tuple[int, ...] = ()


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


def ended(part: Text, width: int) -> Text:
    """A line of a sentence that goes on where it cannot be shown: its words that hold
    with " …" after them (the ellipsis at its end in reading order)."""
    plain = part.plain.rstrip()
    while plain and cell_len(plain) + 2 > width:
        cut = plain.rstrip().rfind(" ")
        plain = plain[:cut].rstrip() if cut > 0 else ""
    out = part[:len(plain)] if plain else Text("", style=part.style)
    out.append(" …", style="dim")
    return out


def boxed(parts: list[tuple[str, str]], width: int, style: str = "bold reverse"
          ) -> list[Text]:
    """Keys in reversed boxes, each with what it does, packed into lines of ``width``
    cells (in reading order: an Arabic line is laid out by the caller)."""
    lines: list[Text] = []
    line = Text(no_wrap=True)
    for key, label in parts:
        item = Text(no_wrap=True)
        item.append(f" {key} ", style=style)
        item.append(label)
        gap = " " if line.plain else ""
        if line.plain and line.cell_len + len(gap) + item.cell_len > width:
            lines.append(line)
            line = Text(no_wrap=True)
            gap = ""
        line.append(gap)
        line.append_text(item)
    if line.plain:
        lines.append(line)
    return lines


def key_hits(lines: list[Text], y0: int) -> list[Hit]:
    """A tap on a key's box presses it (``tui.widgets.taps``)."""
    out = []
    for i, line in enumerate(lines):
        out += [Hit(t.x, t.y, t.width, 1, tap=("key", t.key, t.char))
                for t in line_taps(line, y0 + i)]
    return out
