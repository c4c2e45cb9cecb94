"""What the lobby's screens share for the player's language (issue 14): the names of
games, lengths and timers as people read them (the JSON interface keeps its English
codes), and lines laid out right to left for Arabic.

English lines are left exactly as the screens always built them: these helpers are
only used where ``speech.rtl`` (and a plain ``speech.line`` is a no-op for English).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.cells import cell_len, set_cell_size
from rich.style import Style
from rich.text import Text

from engine.room import title

from ..i18n import Speech
from .table_draw import word_cut


def game_title(speech: Speech, game: str) -> str:
    """A game's title in the player's words (engine.catalogue.TITLES, marked there)."""
    return speech._(title(game))


def length_word(speech: Speech, value: object) -> str:
    """A Kotshina match length (micro, mini, full) in the player's words."""
    if value == "micro":
        return speech.pgettext("match length", "micro")
    if value == "mini":
        return speech.pgettext("match length", "mini")
    if value == "full":
        return speech.pgettext("match length", "full")
    return str(value)


DIALOG = 64     # a dialog's inside: 70 columns less its border and padding (lamma.tcss)


def too_small_text(speech: Speech, width: int = 0, height: int = 0) -> Text:
    """The request to enlarge a window under 40×20, said with the size it needs and
    wrapped to the window (``width`` columns; 0: one line), with the size it is when
    known (a screen made of widgets shows it in its ``#too-small`` lines: lamma.tcss)."""
    from .sizes import ENLARGE, MIN_H, MIN_W, enlarge_lines, size_text
    if width <= 0:
        return Text(speech.show(speech._(ENLARGE).format(size=size_text(MIN_W, MIN_H))))
    lines = [line for line in enlarge_lines(width, height, speech) if line.plain.strip()]
    return Text("\n").join(lines[:TOO_SMALL_ROWS])


TOO_SMALL_ROWS = 4      # the rows of a screen's #too-small (lamma.tcss)


def dialog_width(width: int) -> int:
    """The inside of a dialog on a window ``width`` columns wide: ``DIALOG``, or under
    80 columns (the compact layout: the dialog as wide as the window, less its border
    and a column of padding each side) the window's width less four."""
    return DIALOG if width >= 80 else max(20, width - 4)


def said_keys(speech: Speech, keys: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A footer's labels (marked N_) in the player's language (English: the very list)."""
    if speech.code == "en":
        return keys
    return [(k, speech._(label)) for k, label in keys]


# ------------------------------------------------------------------- layout
def cut(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells in reading order (its end goes, not its start):
    after its last whole word that leaves room for " …" (issue 44: a word or a number
    is never cut in two where a whole one holds); one word alone, where it ends."""
    if cell_len(text) <= width:
        return text
    head = set_cell_size(text, max(0, width - 1))
    if " " in head.strip():
        words = head[:head.rstrip().rfind(" ")].rstrip()
        if words and cell_len(words) + 2 <= width:
            return words + " …"
    return head + "…"


def names_in(names: Sequence[str], width: int, sep: str = ", ") -> list[str]:
    """As many of ``names`` as hold in ``width`` cells said one after another (``sep``
    between them), each whole, then "+N" for the N left out (never a name cut in two)."""
    kept: list[str] = []
    used = 0
    for i, name in enumerate(names):
        rest = len(names) - i - 1
        need = cell_len(name) + (len(sep) if kept else 0)
        more = len(sep) + len(f"+{rest}") if rest else 0
        if used + need + more > width:
            left = len(names) - len(kept)
            return [*kept, f"+{left}"] if kept else [f"+{left}"]
        kept.append(name)
        used += need
    return kept


def people_first(names: Sequence[str], computer: Sequence[bool], width: int,
                 counted: Callable[[int], str], sep: str = ", ") -> list[str]:
    """``names`` (``computer``: which are computer players') as ``names_in`` says them
    when all hold whole; else the computer players go first: the last of them listed
    are counted at the end (``counted(n)``, e.g. "+2 bots"), and a person is left out
    (into "+N", people listed first) only when no computer player is listed or counted
    and still not all hold."""
    names = list(names)
    if names_in(names, width, sep) == names:
        return names
    bots = [i for i, b in enumerate(computer) if b]
    for dropped in range(1, len(bots) + 1):
        gone = set(bots[len(bots) - dropped:])
        shown = [n for i, n in enumerate(names) if i not in gone] + [counted(dropped)]
        if names_in(shown, width, sep) == shown:
            return shown
    people = [n for n, b in zip(names, computer, strict=True) if not b]
    return names_in(people + [n for n, b in zip(names, computer, strict=True) if b],
                    width, sep)


def pad(text: str, width: int) -> str:
    """``text`` cut or filled with spaces after it to ``width`` cells."""
    text = cut(text, width)
    return text + " " * max(0, width - cell_len(text))


class Laid(Text):
    """A line already laid out for its language (``columns``): ``lay`` keeps it."""


def lay(speech: Speech, text: Text | str, width: int) -> Text:
    """One whole line for ``speech``: for Arabic cut to ``width`` in reading order,
    then right-aligned (and mirrored when shaped); English as it is (a name or a
    chat line in Arabic in it joined and ordered, when shaped)."""
    if isinstance(text, Laid):
        return text
    if isinstance(text, str):
        text = Text(text)
    if not speech.rtl:
        return speech.line(text, width)
    if cell_len(text.plain) > width:
        text = word_cut(text, width)        # (after a whole word: issue 44)
    return speech.line(text, width)


def block(speech: Speech, lines: Sequence[Text | str], width: int) -> Text:
    """Lines laid out (``lay``) and joined into one Text (for ``Lines.set``/``Block``)."""
    out = Text(no_wrap=True, overflow="ellipsis")
    for i, line in enumerate(lines):
        if i:
            out.append("\n")
        out.append_text(lay(speech, line, width))
    return out


Cell = tuple[str | Sequence[str], int]   # text (or items said one after another), width


def columns(speech: Speech, cells: Sequence[Cell], width: int,
            style: str | Style = "") -> Laid:
    """One row of a right-to-left table: ``cells`` in reading order, each in its
    column (the first at the right), each cut to its width; a cell given as a list
    of items says them one after another, separated by Arabic commas (names keep
    their own direction: the first at the right). Shaped: each cell joined and
    ordered on its own; logical: the row in reading order, the terminal orders it.
    Wider than ``width`` (a phone), the widest column gives way (down to six), so the
    row's start, at the right, stays in the window."""
    over = sum(w for _v, w in cells) - width
    if over > 0 and cells:
        i = max(range(len(cells)), key=lambda k: cells[k][1])
        cells = [*cells[:i], (cells[i][0], max(6, cells[i][1] - over)), *cells[i + 1:]]
    parts: list[str] = []
    for value, w in cells:
        if isinstance(value, str):
            parts.append(_shown_cell(speech, value, w))
        else:
            parts.append(_shown_items(speech, list(value), w))
    if speech.shaped:
        row = "".join(reversed(parts))
        row = " " * max(0, width - cell_len(row)) + row
    else:
        row = "".join(parts).rstrip()
        row = " " * max(0, width - cell_len(row)) + row
    return Laid(row, style=style, no_wrap=True, end="")


def _shown_cell(speech: Speech, text: str, w: int) -> str:
    text = cut(text, w - 1) if w > 1 else text
    if speech.shaped:
        shown = speech.show(text)
        return " " * max(0, w - cell_len(shown)) + shown    # right-aligned in its column
    return text + " " * max(0, w - cell_len(text))


def _shown_items(speech: Speech, items: list[str], w: int) -> str:
    if not speech.shaped:
        return _shown_cell(speech, "، ".join(names_in(items, w - 1, "، ")), w)
    # As many whole as hold (then "+N"), each shown on its own, the first at the right.
    kept = names_in(items, w - 1, "، ")
    shown = " ،".join(speech.show(item) for item in reversed(kept))
    return " " * max(0, w - cell_len(shown)) + shown
