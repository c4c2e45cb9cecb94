"""Sanitising everything a client sends before anyone else can see it, and
everything stored before it is drawn.

Names (issue 11, "Names that cannot impersonate"): 1–16 letters of one script
(Common and Inherited characters such as digits, ``_``, ``-`` and combining
accents go with any), no invisible (default-ignorable) code point, at most
``MAX_MARKS_ON_ONE`` non-spacing marks on one letter and ``MAX_ACCENTS``
script-less accents in a name, and no name that looks like a reserved word or a
computer player's name. Two names look alike when their ``skeleton`` (Unicode
TR39's, folded for case) is the same; the store and the SSH front end compare
skeletons against the names already owned and the guests online.

Unicode's confusable and script data come from ``confusable-homoglyphs`` (it ships
Unicode's confusables.txt and Scripts.txt as JSON); its confusable pairs are read
back into TR39's one-way map (each source character to its prototype).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from functools import cache, lru_cache

from confusable_homoglyphs import (  # type: ignore[import-untyped]
    categories as _scripts,
)
from confusable_homoglyphs import (
    confusables as _confusables,
)

from .errors import N_, Said

NAME_MAX = 16
CHAT_MAX = 200
MAX_MARKS_ON_ONE = 2   # non-spacing marks on one letter (Arabic shadda + fatha is 2)
MAX_ACCENTS = 4        # script-less (Inherited) combining accents in one name

# Names that belong to the room itself or to its computer players.
RESERVED = {"admin", "administrator", "root", "system", "server", "lamma",
            "guest", "computer", "bot", "nobody", "spectator"}
_BOT_RE = re.compile(r"^bot[-_]?\d*$")

# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15.1):
# drawn as nothing, so a name holding one looks like the name without it.
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
_DI_STARTS = [lo for lo, _ in DEFAULT_IGNORABLE]

COMMON, INHERITED = "COMMON", "INHERITED"
# Writing systems that mix scripts by nature (TR39's Jpan, Hanb, Kore): one script here.
_ONE_WRITING = (frozenset({"HAN", "HIRAGANA", "KATAKANA"}), frozenset({"HAN", "BOPOMOFO"}),
                frozenset({"HAN", "HANGUL"}))


def is_default_ignorable(ch: str) -> bool:
    cp = ord(ch)
    i = bisect.bisect_right(_DI_STARTS, cp) - 1
    return i >= 0 and cp <= DEFAULT_IGNORABLE[i][1]


def script_of(ch: str) -> str:
    """The Unicode script of one character (``LATIN``, ``COMMON``, ``INHERITED``…;
    ``Unknown`` for one the data does not know)."""
    return str(_scripts.alias(ch))


def _stacks(ch: str) -> bool:
    """A mark drawn over or under its letter (a spacing mark takes its own column)."""
    return unicodedata.category(ch) in ("Mn", "Me")


# ---- TR39 skeletons -------------------------------------------------------------------

@cache
def _prototypes() -> dict[str, str]:
    """TR39's map from each confusable source character to its prototype.

    The library keeps confusables.txt as an undirected list of pairs; every source
    maps to exactly one prototype and no prototype is a source, so each connected
    group is a star around its prototype (the one member next to all others). A pair
    alone gives no direction: the longer string (sources are single code points), or
    else one NFKC leaves alone (山, not the radical ⼭), an ASCII one, the lower code
    point — either makes the two equal just the same."""
    adjacent: dict[str, set[str]] = {}
    data: dict[str, list[dict[str, str]]] = _confusables.confusables_data
    for raw, found in data.items():
        a = raw.replace("\u200e", "")      # the file's comments wrap RTL text in LRMs
        for entry in found:
            b = entry["c"].replace("\u200e", "")
            if a and b and a != b:
                adjacent.setdefault(a, set()).add(b)
                adjacent.setdefault(b, set()).add(a)
    proto: dict[str, str] = {}
    seen: set[str] = set()
    for start in adjacent:
        if start in seen:
            continue
        group, todo = [], [start]
        seen.add(start)
        while todo:
            node = todo.pop()
            group.append(node)
            for other in adjacent[node]:
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
        if len(group) > 2:
            centre = max(group, key=lambda n: (len(adjacent[n]), -len(n), n))
        else:
            centre = min(group, key=lambda n: (-len(n), unicodedata.normalize("NFKC", n) != n,
                                               not n.isascii(), n))
        for node in group:
            if node != centre and len(node) == 1:
                proto[node] = centre
    return proto


def _letters_script(text: str) -> str:
    for ch in text:
        s = script_of(ch)
        if s not in (COMMON, INHERITED):
            return s
    return COMMON


def _map(text: str, proto: dict[str, str]) -> str:
    return unicodedata.normalize("NFD", "".join(proto.get(ch, ch) for ch in text))


@lru_cache(maxsize=4096)
def skeleton(name: str) -> str:
    """The form under which two names look alike (TR39 ``skeleton``, case-folded):
    NFKC, then each character that looks like one of another script is replaced by it
    (``В`` → ``B``, so capitals of Cyrillic or Greek meet Latin ones), then case is
    folded and every character mapped to its prototype (``а`` → ``a``, ``0`` → ``o``,
    ``1`` → ``l``) until nothing changes. ``ALICE``, ``alice`` and ``a1ice`` share one;
    so do ``alice`` and ``аlice`` (Cyrillic а)."""
    proto = _prototypes()
    text = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name))
    # Across scripts first, while the capitals are there: Cyrillic В looks like B,
    # but its small в does not look like b. (Not within a script: I → l before
    # folding would part ALICE from alice.)
    text = unicodedata.normalize("NFD", "".join(
        proto[ch] if ch in proto and script_of(ch) not in (COMMON, INHERITED)
        and _letters_script(proto[ch]) not in (script_of(ch), COMMON) else ch
        for ch in text))
    for _ in range(8):
        folded = _map(unicodedata.normalize("NFD", text.casefold()), proto)
        if folded == text:
            break
        text = folded
    return text


@cache
def _reserved_skeletons() -> tuple[dict[str, str], re.Pattern[str]]:
    words = {skeleton(w): w for w in sorted(RESERVED)}
    alt = "|".join(sorted({re.escape(skeleton(d)) for d in "0123456789"}, key=len, reverse=True))
    sep = "|".join(re.escape(skeleton(s)) for s in "-_")
    bots = re.compile(rf"^{re.escape(skeleton('bot'))}(?:{sep})?(?:{alt})*$")
    return words, bots


def reserved_lookalike(name: str) -> str | None:
    """The reserved word or computer player's name that ``name`` looks like, if any."""
    words, bots = _reserved_skeletons()
    s = skeleton(name)
    if s in words:
        return words[s]
    if bots.match(s):
        return "Bot-1"
    return None


def is_reserved(name: str) -> bool:
    folded = name.casefold()
    return folded in RESERVED or bool(_BOT_RE.match(folded))


def _script_title(script: str) -> str:
    return script.replace("_", " ").title()


def check_name(raw: str) -> tuple[str | None, str]:
    """Return (name, "") for a valid player name, else (None, reason).

    1–16 characters: letters of one script, digits, ``_`` and ``-``; combining marks
    on a letter (at most ``MAX_MARKS_ON_ONE`` stacked on one, and at most
    ``MAX_ACCENTS`` script-less accents in all); no invisible character; nothing that
    looks like a reserved word or a computer player's name. The name is
    NFC-normalised. A reason is a ``Said``: English, with its template for the
    person's language.
    """
    if not isinstance(raw, str):
        return None, Said(N_("A name is required."))
    name = unicodedata.normalize("NFC", raw)
    if not name:
        return None, Said(N_("A name is required: ssh -p PORT NAME@HOST"))
    if len(name) > NAME_MAX:
        return None, Said(N_("Names are at most {n} characters."), n=NAME_MAX)
    general = Said(N_("Names may use letters of any script, digits, '_' and '-' "
                      "(1 to {n} characters)."), n=NAME_MAX)
    stacked = accents = 0
    after_letter = False
    for ch in name:
        if is_default_ignorable(ch):
            return None, Said(N_("Names may not contain invisible characters ({code} is "
                                 "drawn as nothing)."), code=f"U+{ord(ch):04X}")
        cat = unicodedata.category(ch)
        if cat[0] == "M":
            if not after_letter:
                return None, Said(N_("A combining mark in a name must follow a letter."))
            if _stacks(ch):
                stacked += 1
                if stacked > MAX_MARKS_ON_ONE:
                    return None, Said(N_("At most {n} combining marks on one letter of a "
                                         "name."), n=MAX_MARKS_ON_ONE)
            if script_of(ch) in (COMMON, INHERITED):
                accents += 1
                if accents > MAX_ACCENTS:
                    return None, Said(N_("At most {n} combining accents in a name."),
                                      n=MAX_ACCENTS)
            continue
        stacked = 0
        after_letter = cat[0] == "L"
        if ch in "_-" or cat[0] == "L" or cat == "Nd":
            continue
        return None, general
    scripts = {script_of(ch) for ch in name} - {COMMON, INHERITED}
    if "Unknown" in scripts:
        return None, Said(N_("This name uses characters the room does not know yet."))
    if len(scripts) > 1 and not any(scripts <= w for w in _ONE_WRITING):
        mixed = " and ".join(_script_title(s) for s in sorted(scripts))
        return None, Said(N_("A name is written in one script: '{name}' mixes {mixed} "
                             "letters (which can look alike). Choose another."),
                          name=name, mixed=mixed)
    if is_reserved(name):
        return None, Said(N_("The name '{name}' is reserved; please choose another."),
                          name=name)
    like = reserved_lookalike(name)
    if like is not None:
        if like == "Bot-1":
            return None, Said(N_("The name '{name}' looks like '{like}', a computer player's "
                                 "name; please choose another."), name=name, like=like)
        return None, Said(N_("The name '{name}' looks like '{like}', a reserved name; please "
                             "choose another."), name=name, like=like)
    return name, ""


def name_key(name: str) -> str:
    """The form under which names are unique (case-insensitive)."""
    return unicodedata.normalize("NFC", name).casefold()


def clean_chat(raw: object) -> str:
    """One line of chat with nothing that could act on a terminal.

    Control characters (C0, C1, DEL), format characters (bidi overrides,
    zero-width joiners used for spoofing), line/paragraph separators,
    surrogates and private-use characters are all dropped; whitespace
    runs collapse to one space.
    """
    if not isinstance(raw, str):
        return ""
    out: list[str] = []
    for ch in raw[: CHAT_MAX * 4]:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            if ch in "\t\n\r":
                out.append(" ")
            continue
        if cat == "Zs":
            out.append(" ")
            continue
        out.append(ch)
    text = re.sub(r" {2,}", " ", "".join(out)).strip()
    return text[:CHAT_MAX]


def safe_text(raw: object, limit: int = 80) -> str:
    """Any client string shown on a screen (e.g. TERM): printable only."""
    return clean_chat(str(raw))[:limit]


def clean_name(raw: object, limit: int = NAME_MAX) -> str:
    """A stored name as it may be drawn or sent: ``clean_chat``'s rules (no C0, C1,
    ESC, bidi or other control), no invisible code point, no more than
    ``MAX_MARKS_ON_ONE`` marks stacked on one letter, at most ``limit`` characters;
    ``?`` when nothing is left. A valid name comes back unchanged; one written by
    another version, a restored backup or a shared database cannot act on a
    terminal or a JSON client."""
    return _clean_name(raw if isinstance(raw, str) else "", limit)


@lru_cache(maxsize=8192)
def _clean_name(raw: str, limit: int) -> str:
    # Cached: every screen draws every seat's name on every frame, and names repeat.
    out: list[str] = []
    stacked = 0
    for ch in clean_chat(raw):
        if is_default_ignorable(ch):
            continue
        if _stacks(ch):
            stacked += 1
            if stacked > MAX_MARKS_ON_ONE:
                continue
        else:
            stacked = 0
        out.append(ch)
    return "".join(out).strip()[:limit] or "?"
