"""The player's language: message catalogues, right-to-left lines, Arabic keys.

Messages live in one gettext catalogue per language (``tui/locale/<code>.po``,
read with Babel at the first use): a third language is a file, not a code change.
English is the source language (the msgids). Code marks text with ``_`` (a
``Speech``'s method) or, for text kept in module constants, ``N_`` (marks it for
the catalogue, translated where it is drawn); `tests/test_i18n.py` extracts every
marked message and fails when one lacks its Arabic.

Arabic is drawn in one of two modes, which the player picks once on a test line:

- ``shaped``: for terminals without bidi support (xterm, tmux, Windows Terminal and
  most others). The server joins the letters (arabic-reshaper) and puts each line in
  visual order with a right-to-left paragraph direction (the Unicode bidi algorithm,
  python-bidi), so a left-to-right terminal shows it as it is read.
- ``logical``: for terminals that do their own bidi (GNOME Terminal/VTE, Konsole,
  mlterm): text is sent in reading order, unjoined; the terminal shapes and orders it.

Either way cards, numbers and suit signs stay left to right: a styled run of a line
with no Arabic letter in it (a card, a key, a score, a Latin name) is kept left to
right as a whole.
"""

from __future__ import annotations

import gettext as _gettext
import re
from collections.abc import Callable, Mapping
from functools import cache, lru_cache
from pathlib import Path

from rich.cells import cell_len
from rich.console import Console
from rich.style import Style
from rich.text import Text

LOCALE_DIR = Path(__file__).parent / "locale"
LANGUAGES = ("en", "ar")                  # English first: the default
LANGUAGE_NAMES = {"en": "English", "ar": "العربية"}
RTL_LANGUAGES = frozenset({"ar"})
TEXT_MODES = ("shaped", "logical")


def N_(message: str) -> str:
    """Mark ``message`` for the catalogue without translating it (module constants:
    the screen translates it where it is drawn, in the player's language)."""
    return message


# ------------------------------------------------------------------ choosing
def language_from_env(env: Mapping[str, object]) -> str | None:
    """The language a client's locale variables ask for (POSIX order: ``LC_ALL``,
    then ``LC_MESSAGES``, then ``LANG``; the first one set decides), or None when
    they name none we have (the caller keeps its default). ``ar_EG.UTF-8``,
    ``ar_SY``, ``ar`` → ``ar``."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var)
        if isinstance(value, bytes):
            value = value.decode("ascii", "replace")
        if not isinstance(value, str) or not value.strip():
            continue
        code = value.strip()[:64].split(".")[0].split("@")[0].split("_")[0].lower()
        if code in ("c", "posix"):
            return None
        return code if code in LANGUAGES else None
    return None


# ----------------------------------------------------------------- catalogues
class Catalogue:
    """One language's messages: ``(context, msgid) -> msgstr`` and its plural rule."""

    def __init__(self, code: str, messages: dict[tuple[str | None, str], str | tuple[str, ...]],
                 plural: Callable[[int], int]):
        self.code = code
        self.messages = messages
        self.plural = plural

    @classmethod
    def load(cls, code: str) -> Catalogue:
        path = LOCALE_DIR / f"{code}.po"
        if not path.exists():
            return cls(code, {}, lambda n: int(n != 1))
        from babel.messages.pofile import read_po  # only at the first use of a language

        with path.open("rb") as f:
            catalog = read_po(f, locale=code)
        messages: dict[tuple[str | None, str], str | tuple[str, ...]] = {}
        for m in catalog:
            if not m.id or m.fuzzy:
                continue
            key = m.id[0] if isinstance(m.id, (tuple, list)) else m.id
            if isinstance(m.string, (tuple, list)):
                if all(m.string):
                    messages[(m.context, key)] = tuple(m.string)
            elif m.string:
                messages[(m.context, key)] = m.string
        return cls(code, messages, _gettext.c2py(catalog.plural_expr))


@cache
def catalogue(code: str) -> Catalogue:
    return Catalogue.load(code)


def preload() -> None:
    """Read every catalogue and warm the shaping libraries now (the server's start):
    the first Arabic session would otherwise stop the loop ~0.1 s for everyone."""
    for code in LANGUAGES:
        catalogue(code)
    Speech("ar", "shaped").show("\u0644\u0645\u0651\u0629 10\u2660")


# ------------------------------------------------------------------- shaping
def _has_rtl(text: str) -> bool:
    return any("\u0590" <= ch <= "\u08ff" or "\ufb1d" <= ch <= "\ufefc" for ch in text)


@lru_cache(maxsize=4096)
def _reshape(text: str) -> str:
    import arabic_reshaper
    return str(arabic_reshaper.reshape(text))


_LRE, _PDF, _RLM = "\u202a", "\u202c", "\u200f"
# What stays left to right whole inside Arabic: a name or bid in brackets without
# Arabic in it ("(Bot-3)"), a card (10♠), a number with its sign (+10.2, -9.7, ±0.4;
# not after a Latin word, "ali +3", which the bidi algorithm keeps with it), a date
# (2024-05-29: after an Arabic word its parts were put in the other order), a /command,
# a client's quoted value or JSON object in a refusal.
_LATIN_IN = r"[\x20-\x27\x2a-\x7e\u2660-\u2667]"
_LTR_WHOLE = re.compile(rf"\({_LATIN_IN}*[A-Za-z0-9]{_LATIN_IN}*\)|\d{{4}}-\d\d-\d\d"
                        r"|(?:10|[2-9AKQJT])?[\u2660\u2665\u2666\u2663]"
                        r"|(?<![\w.])(?<![A-Za-z0-9)] )[+\-±\u2212]\d+(?:\.\d+)?"
                        r"|/[A-Za-z]+|\"[^\"]*\"|\{[^{}]*\}")
_MARKS = str.maketrans("", "", "\u200e\u200f\u202a\u202b\u202c\u202d\u202e")


@lru_cache(maxsize=8192)
def _shape(chunk: str, base: str | None) -> str:
    """One piece of text with Arabic in it, joined and in visual order (paragraph
    direction ``base``: "R", or None for "by its first strong letter"). Each card
    (``10♠``), /command or quoted value is embedded left to right so it stays whole;
    direction marks in the text are dropped (terminals draw some of them)."""
    # The pure-Python algorithm: it mirrors brackets (L4), the compiled one does not.
    from bidi.algorithm import get_display

    # In a right-to-left line a Latin bracket or a signed number is a unit of its
    # own, said in the line's order (a right-to-left mark either side: "4♥ (Bot-3)" is
    # the bid, then the name, not one left-to-right stretch whose closing bracket
    # strays; "±0.6، 256" keeps its order).
    def whole(m: re.Match[str]) -> str:
        iso = _RLM if base == "R" and m.group(0)[0] in "(+-±\u2212" else ""
        return iso + _LRE + m.group(0) + _PDF + iso

    marked = _LTR_WHOLE.sub(whole, chunk.translate(_MARKS))
    shown = get_display(_reshape(marked), base_dir=base)
    return str(shown).translate(_MARKS)


def _mirror_spaces(chunk: str) -> str:
    """A left-to-right run in a right-to-left line: its text stays, the spaces at its
    ends change sides (the space said before it is at its right): " Bot-4" next to
    "5♣" reads "5♣ Bot-4", not "Bot-45♣"."""
    body = chunk.strip(" ")
    if not body:
        return chunk
    lead = len(chunk) - len(chunk.lstrip(" "))
    trail = len(chunk) - len(chunk.rstrip(" "))
    return " " * trail + body + " " * lead


_OPENS, _CLOSES = "([{", ")]}"
_MIRRORED = str.maketrans(_OPENS + _CLOSES, _CLOSES + _OPENS)


def _ltr_unit(chunk: str) -> str:
    """A run without Arabic in a right-to-left line, in visual order: its text stays
    left to right (``_mirror_spaces``), but a bracket at its ends whose partner is in
    another run ("(الآن " + "30×12" + ")": the size is a run of its own) belongs to
    the line, not to the run: it goes to the run's other side and faces the other
    way (mirrored, as the bidi algorithm mirrors a bracket in a right-to-left
    line), so the pair matches: "(30×12 ﻥﻵﺍ)", not ")30×12 ﻥﻵﺍ)"."""
    stack: list[int] = []
    alone: set[int] = set()
    for i, ch in enumerate(chunk):
        if ch in _OPENS:
            stack.append(i)
        elif ch in _CLOSES:
            if stack and chunk[stack[-1]] == _OPENS[_CLOSES.index(ch)]:
                stack.pop()
            else:
                alone.add(i)
    alone.update(stack)
    if not alone:
        return _mirror_spaces(chunk)
    start, end = 0, len(chunk)
    while start < end and (chunk[start] == " " or start in alone):
        start += 1
    while end > start and (chunk[end - 1] == " " or end - 1 in alone):
        end -= 1
    lead, body, trail = chunk[:start], chunk[start:end], chunk[end:]
    return trail[::-1].translate(_MIRRORED) + body + lead[::-1].translate(_MIRRORED)


def _visual(runs: tuple[tuple[str, Style | None], ...], base: str | None
            ) -> tuple[tuple[str, Style | None], ...]:
    """Runs of (text, style) in reading order → the same in visual order. For a
    right-to-left interface the runs are reversed (the first thing said is at the
    right) and each run with Arabic in it is put in visual order by the Unicode bidi
    algorithm; a run without Arabic (a card, a key, a score, a Latin name) stays as
    it is, left to right, but for a bracket at its end paired in another run
    (``_ltr_unit``). Otherwise only the runs with Arabic change."""
    if base == "R":
        return tuple((_shape(chunk, "R") if _has_rtl(chunk) else _ltr_unit(chunk), style)
                     for chunk, style in reversed(runs))
    return tuple((_shape(chunk, None) if _has_rtl(chunk) else chunk, style)
                 for chunk, style in runs)


_visual_cached = lru_cache(maxsize=8192)(_visual)


def _runs(text: Text) -> tuple[tuple[str, Style | None], ...]:
    """A Text's plain string cut where its style changes (base style included)."""
    global _CONSOLE
    if _CONSOLE is None:
        _CONSOLE = Console(width=1000, color_system="truecolor", legacy_windows=False)
    return tuple((seg.text, seg.style or None) for seg in text.render(_CONSOLE, end="")
                 if seg.text)


_CONSOLE: Console | None = None


class Speech:
    """One session's language and Arabic text mode: what its screens say and how.

    ``_``/``ngettext``/``pgettext`` translate (reading order); ``show`` prepares a
    string for the terminal; ``line`` lays a whole line out for the language
    (right-aligned and mirrored for Arabic)."""

    def __init__(self, code: str = "en", mode: str = "shaped"):
        self.code = code if code in LANGUAGES else "en"
        self.mode = mode if mode in TEXT_MODES else "shaped"
        self.catalogue = catalogue(self.code)

    @property
    def rtl(self) -> bool:
        return self.code in RTL_LANGUAGES

    @property
    def shaped(self) -> bool:
        """Arabic is joined and ordered here (not by the terminal)."""
        return self.mode == "shaped"

    # ------------------------------------------------------------ translating
    def _(self, message: str) -> str:
        found = self.catalogue.messages.get((None, message))
        return found if isinstance(found, str) else message

    gettext = _

    def pgettext(self, context: str, message: str) -> str:
        found = self.catalogue.messages.get((context, message))
        return found if isinstance(found, str) else message

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        found = self.catalogue.messages.get((None, singular))
        if isinstance(found, tuple):
            i = self.catalogue.plural(n)
            if 0 <= i < len(found):
                return found[i]
        return singular if n == 1 else plural

    def error(self, exc: BaseException) -> str:
        """A refusal (``IllegalAction``, ``RoomError``) in this language. Such an
        error may carry ``template`` (its message as marked, with ``{placeholders}``)
        and ``params``; a parameter that is itself a message (a phase's words) is
        said in this language too. Without a template the message is looked up as
        it is."""
        template = getattr(exc, "template", None)
        if not isinstance(template, str):
            return self._(str(exc))
        params = getattr(exc, "params", None) or {}
        if not isinstance(params, dict):
            params = dict(params)
        said = {k: self._word(k, v) for k, v in params.items()}
        try:
            return self._(template).format(**said)
        except (KeyError, IndexError, ValueError):
            return str(exc)

    # Parameters that hold people's names (or a list of them): never looked up, so a
    # player called "Help" keeps the name.
    _NAMES = frozenset({"name", "names", "who", "other", "winners", "bot", "caller"})

    def _word(self, key: str, value: object) -> object:
        """A parameter of a message: another message said in this language (a
        ``Said`` by its template, a marked word as it is), a name or a number as it is."""
        if not isinstance(value, str) or key in self._NAMES:
            return value
        if isinstance(getattr(value, "template", None), str):
            return self.error(value)          # type: ignore[arg-type]
        return self._(value)

    # ---------------------------------------------------------------- drawing
    def show(self, text: str) -> str:
        """``text`` ready for the terminal: in shaped mode Arabic is joined and put
        in visual order (right to left for an Arabic interface, by its first strong
        letter otherwise); unchanged in logical mode and for text without Arabic."""
        if text.isascii() or self.mode != "shaped" or not _has_rtl(text):
            return text
        return "".join(t for t, _ in _visual_cached(((text, None),), "R" if self.rtl else None))

    def line(self, text: Text | str, width: int) -> Text:
        """One whole line laid out for the language: as it is for English (Arabic
        inside shaped if needed); right-aligned to ``width`` cells and, in shaped
        mode, mirrored (the first thing said is at the right) for Arabic."""
        if isinstance(text, str):
            text = Text(text)
        plain = text.plain
        if not self.rtl:
            if self.mode != "shaped" or plain.isascii() or not _has_rtl(plain):
                return text
            return _from_runs(_visual_cached(_runs(text), None), text)
        pad = max(0, width - cell_len(plain)) if width else 0
        if self.mode != "shaped":
            out = Text(" " * pad, end=text.end, no_wrap=True)
            out.append_text(text)
            return out
        runs = _runs(text)
        shown = _visual_cached(runs, "R")
        width_now = sum(cell_len(t) for t, _ in shown)
        out = Text(" " * max(0, width - width_now) if width else "", end=text.end,
                   no_wrap=True)
        for chunk, style in shown:
            out.append(chunk, style)
        return out


def _from_runs(runs: tuple[tuple[str, Style | None], ...], like: Text) -> Text:
    out = Text(end=like.end, no_wrap=True)
    for chunk, style in runs:
        out.append(chunk, style)
    return out


# --------------------------------------------------------------------- keys
# The standard Arabic keyboard layout (the PC "Arabic (101)" layout that Windows,
# macOS and X11's "ara" share on the letter keys): each letter → the Latin letter on
# the same physical key, so a player need not switch layouts to press a key. "لا" is
# one key (b) that sends two characters; the driver passes it as one key press.
ARABIC_KEYS = {
    "ض": "q", "ص": "w", "ث": "e", "ق": "r", "ف": "t", "غ": "y", "ع": "u", "ه": "i",
    "خ": "o", "ح": "p", "ج": "[", "د": "]",
    "ش": "a", "س": "s", "ي": "d", "ب": "f", "ل": "g", "ا": "h", "ت": "j", "ن": "k",
    "م": "l", "ك": ";", "ط": "'",
    "ئ": "z", "ء": "x", "ؤ": "c", "ر": "v", "لا": "b", "ى": "n", "ة": "m", "و": ",",
    "ز": ".", "ظ": "/", "ذ": "`",
    "؟": "?", "،": ",", "؛": ";",
}
# Arabic-Indic and Extended (Persian) digits act as 0–9.
ARABIC_KEYS.update({chr(0x0660 + d): str(d) for d in range(10)})
ARABIC_KEYS.update({chr(0x06F0 + d): str(d) for d in range(10)})

# Textual's key names for the Latin characters that have them.
_KEY_NAMES = {"[": "left_square_bracket", "]": "right_square_bracket", ";": "semicolon",
              "'": "apostrophe", ",": "comma", ".": "full_stop", "/": "slash",
              "`": "grave_accent", "?": "question_mark"}


def latin_key(character: str) -> tuple[str, str] | None:
    """(key, character) of the Latin twin of an Arabic-layout key press, or None."""
    latin = ARABIC_KEYS.get(character)
    if latin is None:
        return None
    return _KEY_NAMES.get(latin, latin), latin
