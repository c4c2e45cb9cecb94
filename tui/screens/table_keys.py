"""The table screen's keys, declared once: key → action → footer label.

Each ``Key`` says which keys (Textual key names, or the characters typed) run
which action of the screen, what the footer shows for it (nothing for keys the
footer leaves out), and ``when`` it does something.  The screen runs the first
entry that matches a key and does something now; the footer lists, in the
table's order, the entries that do something now and have a label.  The same
``KeyContext`` answers both, so the footer cannot drift from the keys.

The entries that are always there come first, so a turn starting or ending
repaints only the tail of the footer.

Labels are English, marked for the catalogue in the context "key" (a footer's
"bid" is a verb, a column's "bid" a noun); the footer says them in the player's
language (``table_draw.footer_line``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from .table_state import Turn, View

DIGITS = "0123456789"
SUIT_CHARS = "nshdc"             # n: no trump
CARD_SUIT_CHARS = "shdc"
RANK_CHARS = "akqjtAKQJT23456789"


class KeyContext(NamedTuple):
    """What decides which keys do something: the mode, and a few facts of the view.
    (A named tuple: made for every frame and a key of the footer's memo.)"""
    mode: str               # waiting | dash | bid | call | declare | play | idle
    phase: str | None       # the engine's phase (None before the match)
    history: bool           # a round was scored: the score sheet has something
    rank: str | None        # a typed rank waiting for its suit
    can_pass: bool = False
    can_with: bool = False
    suit_open: bool = False  # call: the suit can still be chosen (not fixed)
    may_fill: bool = False   # the table lets us fill its empty seats (Table.may(member, "fill"))
    event: bool = False      # an event's board: no chat (docs/events.md)
    board_over: str = ""     # an event's board shown over: "next" board, or "last"
    compact: bool = False    # drawn in the compact layout (a phone): the log is a key away
    practice: bool = False   # a practice table: hints on our turn
    hands: bool = False      # the game's rounds are hands (Tarneeb 41): r shows "hands"
    seated: bool = True      # at a seat (a review is of one's own seat: not a watcher's)

    @classmethod
    def of(cls, view: View | None, turn: Turn, rank: str | None,
           may_fill: bool = False, board: tuple[int, int, int] | None = None,
           compact: bool = False, practice: bool = False, hands: bool = False,
           seated: bool = True) -> KeyContext:
        types = turn.types
        if "play" in types:
            mode = "play"
        elif view is None:
            mode = "waiting"
        elif "dash" in types:
            mode = "dash"
        elif types & {"bid", "pass", "with"}:
            mode = "bid"
        elif "call" in types:
            mode = "call"
        elif "declare" in types:
            mode = "declare"
        else:
            mode = "idle"
        return cls(mode=mode, phase=view.get("phase") if view is not None else None,
                   history=bool(view is not None and view.get("history")), rank=rank,
                   can_pass="pass" in types, can_with="with" in types,
                   suit_open=mode == "call" and not all(a.get("suit") is None
                                                        for a in turn.of("call")),
                   may_fill=may_fill, event=board is not None,
                   board_over="" if board is None or view is None
                   or view.get("phase") != "over"
                   else ("last" if board[1] >= board[2] else "next"),
                   compact=compact, practice=practice, hands=hands, seated=seated)

    @property
    def kind(self) -> str:
        """The action a number or suit key chooses for: bid, call or declare."""
        return self.mode


def pgettext(context: str, message: str) -> str:
    """Mark ``message``, said in ``context``, for the catalogue (translated where drawn)."""
    return message


KEY = "key"         # the catalogue's context of the footer's labels


def _always(ctx: KeyContext) -> bool:
    return True


@dataclass(frozen=True)
class Key:
    action: str                             # the screen's handler (TableScreen.HANDLERS)
    names: frozenset[str] = frozenset()     # Textual key names
    chars: str = ""                         # or characters typed
    shown: str = ""                         # footer: the key as shown ("" = not shown)
    label: str = ""                         # footer: what it does (English)
    when: Callable[[KeyContext], bool] = _always

    def matches(self, key: str, char: str) -> bool:
        return key in self.names or (len(char) == 1 and char in self.chars)


def _k(action: str, names: str = "", chars: str = "", shown: str = "", label: str = "",
       when: Callable[[KeyContext], bool] = _always) -> Key:
    return Key(action, frozenset(names.split()), chars, shown, label, when)


HINTED = ("dash", "bid", "call", "declare", "play")     # the modes a hint answers


def _playing(ctx: KeyContext) -> bool:
    return ctx.phase == "play"


COMMON: tuple[Key, ...] = (
    _k("chat", "slash", shown="/", label=pgettext("key", "chat"), when=lambda c: not c.event),
    # the compact layout has no room for the narration and the chat: e shows them
    _k("log", "e", shown="e", label=pgettext("key", "log"), when=lambda c: c.compact),
    _k("options", "o", shown="o", label=pgettext("key", "opts")),
    _k("help", "question_mark", shown="?", label=pgettext("key", "help")),
    # while cards are played q types a queen: x leaves (q too when it is not our turn)
    _k("leave", "x", shown="x", label=pgettext("key", "leave"), when=_playing),
    _k("leave", "q x", shown="q", label=pgettext("key", "leave"),
       when=lambda c: not _playing(c)),
    _k("leave", "q", when=lambda c: _playing(c) and c.mode != "play"),
    _k("rounds", "r", shown="r", label=pgettext("key", "rounds"),
       when=lambda c: c.history and not c.hands),
    _k("rounds", "r", shown="r", label=pgettext("key", "hands"),
       when=lambda c: c.history and c.hands),
    # the last ended round's review (v), a hint at a practice table on our turn (h; H
    # while a bid or call is chosen, where h is hearts; never over a typed rank's suit)
    _k("review", "v", shown="v", label=pgettext("key", "review"),
       when=lambda c: c.history and c.seated),
    _k("hint", "h", shown="h", label=pgettext("key", "hint"),
       when=lambda c: c.practice and c.mode in ("dash", "declare", "play") and c.rank is None),
    _k("hint", "H", shown="H", label=pgettext("key", "hint"),
       when=lambda c: c.practice and c.mode in ("bid", "call")),
    # H on one's turn anywhere else: the hint where h is one, else the room's reason
    # for none (a table that counts); it did nothing, silently.
    _k("hint", "H", when=lambda c: c.rank is None and c.mode in HINTED),
    _k("nothing", "escape", when=lambda c: c.mode != "play"),
)

_NUMBER_KEYS = (
    _k("step_suit", "up down"),
    _k("type_number", chars=DIGITS),
)

MODES: dict[str, tuple[Key, ...]] = {
    "waiting": (
        # Offered to whom the table lets fill its seats (its host, an operator); anyone
        # else's b is answered with the table's reason (docs/roles.md).
        _k("fill_seats", "b", shown="b", label=pgettext("key", "computer players"),
           when=lambda c: c.may_fill),
        _k("fill_seats", "b", when=lambda c: not c.may_fill),
    ),
    "dash": (
        _k("take_dash", "y", shown="y", label=pgettext("key", "take dash")),
        _k("play_normally", "n", shown="n", label=pgettext("key", "normal")),
    ),
    "bid": (
        _k("step_number", "left right", shown="←→", label=pgettext("key", "num")),
        _k("choose_suit", chars=SUIT_CHARS, shown="nshdc", label=pgettext("key", "suit")),
        _k("submit", "enter space", shown="⏎", label=pgettext("key", "bid")),
        _k("pass", "p", shown="p", label=pgettext("key", "pass"), when=lambda c: c.can_pass),
        _k("with", "w", shown="w", label=pgettext("key", "With"), when=lambda c: c.can_with),
        *_NUMBER_KEYS,
    ),
    "call": (
        _k("step_number", "left right", shown="←→", label=pgettext("key", "num")),
        _k("choose_suit", chars=SUIT_CHARS, shown="nshdc", label=pgettext("key", "suit"),
           when=lambda c: c.suit_open),
        _k("choose_suit", chars=SUIT_CHARS, when=lambda c: not c.suit_open),  # says why not
        _k("submit", "enter space", shown="⏎", label=pgettext("key", "call")),
        *_NUMBER_KEYS,
    ),
    "declare": (
        _k("step_number", "left right", shown="←→/0-9", label=pgettext("key", "number")),
        _k("type_number", chars=DIGITS),
        _k("submit", "enter space", shown="⏎", label=pgettext("key", "declare")),
    ),
    "play": (
        _k("step_card", "left right", shown="←→", label=pgettext("key", "card")),
        _k("play_card", "enter space", shown="⏎", label=pgettext("key", "play")),
        _k("type_rank", chars=RANK_CHARS, shown="qs…", label=pgettext("key", "type")),
        _k("clear_rank", "escape"),
        _k("type_ten", chars="0", when=lambda c: c.rank == "1"),
        _k("type_suit", chars=CARD_SUIT_CHARS, when=lambda c: c.rank not in (None, "1")),
        _k("type_one", chars="1"),
    ),
    "idle": (
        # An event's board is over: on to the next board, or to the results.
        _k("next_board", "enter space n", shown="⏎", label=pgettext("key", "next board"),
           when=lambda c: c.board_over == "next"),
        _k("next_board", "enter space n", shown="⏎", label=pgettext("key", "results"),
           when=lambda c: c.board_over == "last"),
    ),
}


# ``active`` and ``footer`` by context: a context is a handful of values, and the
# footer was worked out again for every frame (~40 µs, the frame's third dearest part).
_ACTIVE: dict[KeyContext, tuple[Key, ...]] = {}
_FOOTERS: dict[KeyContext, tuple[tuple[str, str], ...]] = {}
_MEMO_MAX = 1024


def active(ctx: KeyContext) -> tuple[Key, ...]:
    """The entries that do something now, in the table's order."""
    hit = _ACTIVE.get(ctx)
    if hit is None:
        if len(_ACTIVE) >= _MEMO_MAX:
            _ACTIVE.clear()
        hit = _ACTIVE[ctx] = tuple(k for k in COMMON + MODES[ctx.mode] if k.when(ctx))
    return hit


def footer(ctx: KeyContext) -> tuple[tuple[str, str], ...]:
    """(key as shown, label) of the keys that do something now."""
    hit = _FOOTERS.get(ctx)
    if hit is None:
        if len(_FOOTERS) >= _MEMO_MAX:
            _FOOTERS.clear()
        hit = _FOOTERS[ctx] = tuple((k.shown, k.label) for k in active(ctx) if k.shown)
    return hit


def resolve(ctx: KeyContext, key: str, char: str) -> Key | None:
    """The entry ``key`` (typed as ``char``) runs now, or None."""
    for k in active(ctx):
        if k.matches(key, char):
            return k
    return None


def actions() -> set[str]:
    """Every action id in the table (the screen has a handler for each)."""
    return {k.action for k in COMMON} | {k.action for keys in MODES.values() for k in keys}
