"""Help: every key on every screen, and a short summary of the game at hand.

In English the keys are one picture (``KEYS``) and the game one paragraph. In
another language both come from the message catalogue — the keys as (key, what it
does) pairs under a heading per screen, the game's rules one entry per sentence —
and are laid out for the width of the window, right to left for Arabic
(``Speech.line``: keys and commands stay left to right). The English picture is
laid out for the width too: a line too long goes on under its text column. At a
table the game being played comes first, then the table's keys: what a player who
presses ? there asks first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget

from engine.catalogue import GAMES, terms

from ..host import host
from ..i18n import N_, Speech
from ..widgets.lines import KeyBar, Line
from .frame import Framed
from .words import too_small_text

if TYPE_CHECKING:
    from textual.geometry import Size

KEYS = """\
Lobby
  ↑ ↓  choose a table      Enter  sit down       w  watch
  p    quick play          n      new table      ?  help       q  quit
  i    your profile        b      leaderboard    r  replays
  e    events: the same deals for everyone, played with computer players
  /    a command (/help lists them): /ignore, /report, an operator's /kick
  j    join a private table by its code (Enter joins, Esc back)
  t    take a computer player's seat (0-3 the seat, Esc back): at once
       before the start or between rounds, else when the round ends;
       the match then no longer counts for level points

Profile, leaderboard, replays
  b  leaderboard   r  replays   ↑ ↓  choose   Enter  watch   Esc  back
  Replay   ← → (or p n)  trick by trick    PgUp PgDn  round by round
           Home End  first and last trick   (every hand is open)
           v  the round's review (Tab: another seat)

Table
  Dash offer   y  take the dash call (no trick at all)   n  play normally
  Auction      ← → number  n s h d c suit  Enter bid  p pass  w With
  Call         ← →  raise the number, suit keys change it, Enter confirms
  Declaring    ← → or digits (1 then 0–3 for 10–13), Enter declares
  Play         ← →  move between playable cards, Enter or Space plays;
               or type it: rank a k q j t 2-9 (10 for ten), suit s h d c
  Review       v  the last round's decisions, the strong player's choices
                  and their expected points (← → through them)
               h  a hint on your turn at a practice table
                  (H while bidding or calling)
  Anywhere     r  score sheet   /  chat   o  options (ASCII suits,
                  monochrome, English terms only, reduce motion)
               b  computer players fill empty seats (the host, before
                  the start)
               ?  help   Ctrl+L  redraw   Esc  back   q  leave, asks first
                  (x while choosing a card, where q means queen)

Commands (typed in chat, or after / in the lobby)
  /ignore NAME   hide their chat     /unignore NAME   show it again
  /ignored   who you ignore          /help   what you may do
  /report NAME REASON   tell the room's operators
  Operators (keys in keys/operators on the server) also have:
  /who  /tables  /announce TEXT  /mute NAME [30m|2h|7d]  /unmute NAME
  /kick NAME [REASON]  /ban NAME|key:FP|addr:IP [TIME] [REASON]
  /unban  /bans  /close TABLE  /reports  /log
  (every one is logged with who did it)
"""

# The same keys for another language: (heading, [(keys, what they do)]) per screen;
# a pair without keys ("", label) starts a part of the table's keys.
KEY_SECTIONS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (N_("Lobby"), (
        ("↑ ↓", N_("choose a table")), ("Enter", N_("sit down")), ("w", N_("watch")),
        ("p", N_("quick play")), ("n", N_("new table")), ("?", N_("help")),
        ("q", N_("quit")), ("i", N_("your profile")), ("b", N_("leaderboard")),
        ("r", N_("replays")),
        ("e", N_("events: the same deals for everyone, played with computer players")),
        ("/", N_("a command (/help lists them)")),
        ("j", N_("join a private table by its code (Enter joins, Esc back)")),
        ("t", N_("take a computer player's seat (0-3 the seat, Esc back): at once before "
                 "the start or between rounds, else when the round ends; the match then no "
                 "longer counts for level points")),
    )),
    (N_("Profile, leaderboard, replays"), (
        ("b", N_("leaderboard")), ("r", N_("replays")), ("↑ ↓", N_("choose")),
        ("Enter", N_("watch")), ("Esc", N_("back")),
        ("← →", N_("trick by trick (also p n)")), ("PgUp PgDn", N_("round by round")),
        ("Home End", N_("first and last trick (every hand is open)")),
        ("v", N_("the round's review (Tab: another seat)")),
    )),
    (N_("Table"), (
        ("", N_("Dash offer")), ("y", N_("take the dash call (no trick at all)")),
        ("n", N_("play normally")),
        ("", N_("Auction")), ("← →", N_("number")), ("n s h d c", N_("suit")),
        ("Enter", N_("bid")), ("p", N_("pass")), ("w", N_("With")),
        ("", N_("Call")), ("← →", N_("raise the number, suit keys change it")),
        ("Enter", N_("confirms")),
        ("", N_("Declaring")), ("← →", N_("or digits (1 then 0–3 for 10–13)")),
        ("Enter", N_("declares")),
        ("", N_("Play")), ("← →", N_("move between playable cards")),
        ("Enter Space", N_("plays")),
        ("a k q j t 2-9 10", N_("or type the rank")), ("s h d c", N_("then the suit")),
        ("", N_("Review")), ("v", N_("the last round's decisions, the strong player's "
                                     "choices and their expected points (← → through them)")),
        ("h", N_("a hint on your turn at a practice table (H while bidding or calling)")),
        ("", N_("Anywhere")), ("r", N_("score sheet")), ("/", N_("chat")),
        ("o", N_("options")), ("b", N_("computer players fill empty seats (the host, before the start)")),
        ("?", N_("help")), ("Ctrl+L", N_("redraw")), ("Esc", N_("back")),
        ("q", N_("leave, asks first (x while choosing a card, where q means queen)")),
    )),
    (N_("Commands (typed in chat, or after / in the lobby)"), (
        ("/ignore NAME", N_("hide their chat")), ("/unignore NAME", N_("show it again")),
        ("/ignored", N_("who you ignore")), ("/report NAME REASON",
                                              N_("tell the room's operators")),
        ("/help", N_("what you may do")),
    )),
)
# What another language adds under the keys (English needs neither).
LAYOUT_NOTE = N_("The letters of the Arabic keyboard layout act as the Latin letters on the "
                 "same keys (ح is p, ى is n, ي is d), and ٠–٩ as 0–9.")
OPERATOR_NOTE = N_("Operators (keys in keys/operators on the server) also have:")
OPERATOR_COMMANDS = ("/who  /tables  /announce TEXT  /mute NAME [30m|2h|7d]  /unmute NAME",
                     "/kick NAME [REASON]  /ban NAME|key:FP|addr:IP [TIME] [REASON]",
                     "/unban  /bans  /close TABLE  /reports  /log")


def terms_text(english_only: bool) -> str:
    from ..arabic import TERMS, shaped
    if english_only:
        return ""
    names = [("dash", "Dash"), ("with", "With"), ("risk", "Risk"), ("saayda", "Sa'ayda"),
             ("tarneeb", "Tarneeb")]
    return "Terms  " + "   ".join(f"{e} {shaped(TERMS[k])}" for k, e in names) + "\n"


# Each game's summary (the catalogue's per-game description), by game.
RULES: dict[str, tuple[str, ...]] = {game: terms(game).summary for game in GAMES}
BACK, SCROLL = N_("back"), N_("scroll")     # the footer's words
GAMES_NOTE = (N_("Games: Estimation, Estimation (calculator scoring), Tarneeb 41."),
              N_("Open a table and press ? there for its rules summary."))


# ------------------------------------------------------------ the English picture
def text_column(line: str, width: int) -> int:
    """Where a line of the picture's text starts: after its indent and its first
    field (a key or a label, up to two spaces), so a wrapped line goes on under its
    words; at most half the width."""
    indent = len(line) - len(line.lstrip(" "))
    found = re.search(r"\S {2,}", line[indent:]) if indent else None
    col = indent + found.end() if found else indent
    return col if col <= width // 2 else min(indent, width // 2)


def hang(line: str, width: int) -> list[str]:
    """``line`` of the picture cut at spaces into lines of at most ``width`` cells,
    each after the first indented to its text column (a hanging indent)."""
    col = text_column(line, width)
    out: list[str] = []
    while cell_len(line) > width:
        cut = 0
        for i in range(col + 1, len(line)):
            if line[i] == " " and line[col:i].strip() and cell_len(line[:i]) <= width:
                cut = i
        if not cut:                                   # one word wider than the line
            cut = col + 1
            while cut < len(line) and cell_len(line[:cut + 1]) <= width:
                cut += 1
        out.append(line[:cut].rstrip())
        line = " " * col + line[cut:].lstrip(" ")
    out.append(line)
    return out


Part = TypeVar("Part")


def at_a_table_first(parts: Sequence[Part], table: Part, game: str | None) -> list[Part]:
    """At a table (``game`` known) its keys come first; elsewhere the parts' order."""
    if game not in RULES:
        return list(parts)
    return [p for p in parts if p == table] + [p for p in parts if p != table]


def picture_lines(game: str | None, english_only: bool, width: int) -> list[Text]:
    """The English help laid out for ``width`` cells: at a table the game's rules
    first, then the keys (the table's first) as ``KEYS`` draws them, a line too long
    wrapped under its text column; in the lobby the note on the games last."""
    lines = [Text(" Help", style="bold"), Text("")]
    if game in RULES:
        lines.extend(Text(w) for w in wrap(" ".join(RULES[game]), width))
        lines.append(Text(""))
    parts = KEYS.rstrip("\n").split("\n\n")
    table = next(p for p in parts if p.startswith("Table\n"))
    for part in at_a_table_first(parts, table, game):
        lines.extend(Text(x) for raw in part.splitlines() for x in hang(raw, width))
        lines.append(Text(""))
    said = terms_text(english_only).rstrip("\n")
    if said:
        lines.extend(Text(x) for x in hang(said, width))
        lines.append(Text(""))
    if game not in RULES:
        lines.extend(Text(w) for sentence in GAMES_NOTE for w in wrap(sentence, width))
    while lines and not lines[-1].plain:
        lines.pop()
    return lines


# ------------------------------------------------------ another language's layout
def wrap(text: str, width: int) -> list[str]:
    """``text`` cut at spaces into lines of at most ``width`` cells (reading order)."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and cell_len(line) + 1 + cell_len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


def key_items(speech: Speech, pairs: Sequence[tuple[str, str]], width: int) -> list[Text]:
    """(key, what) pairs packed into lines of at most ``width`` cells, in reading
    order; a pair without a key starts a line with its words as a label, and one
    too long for a line is wrapped under its key."""
    lines: list[Text] = []
    line = Text()
    for key, what in pairs:
        said = speech._(what)
        if not key:
            if line.plain:
                lines.append(line)
            line = Text(said + ":", style="bold")
            continue
        item = Text()
        item.append(key, style="bold")
        item.append(" " + said)
        sep = "   " if line.plain else ""
        if cell_len(line.plain) + len(sep) + item.cell_len <= width:
            line.append(sep)
            line.append_text(item)
            continue
        if line.plain:
            lines.append(line)
            line = Text()
        if item.cell_len <= width:
            line = item
            continue
        indent = " " * (cell_len(key) + 1)
        words = wrap(said, width - len(indent))
        first = Text()
        first.append(key, style="bold")
        first.append(" " + words[0])
        lines.append(first)
        lines.extend(Text(indent + w) for w in words[1:])
    if line.plain:
        lines.append(line)
    return lines


def help_lines(speech: Speech, game: str | None, width: int) -> list[Text]:
    """The whole help in ``speech``'s language, laid out for ``width`` cells."""
    _ = speech._
    inner = max(20, width - 1)
    logical: list[Text] = [Text(_("Help"), style="bold"), Text("")]
    if game in RULES:                       # at a table: its game first
        for sentence in RULES[game]:
            logical.extend(Text(w) for w in wrap(_(sentence), inner))
        logical.append(Text(""))
    table = next(s for s in KEY_SECTIONS if s[0] == "Table")
    for heading, pairs in at_a_table_first(KEY_SECTIONS, table, game):
        logical.append(Text(_(heading), style="bold underline"))
        logical.extend(Text("  ") + t for t in key_items(speech, pairs, inner - 2))
        if heading == KEY_SECTIONS[-1][0]:
            logical.extend(Text(w) for w in wrap(_(OPERATOR_NOTE), inner))
            logical.extend(Text(part, style="dim") for c in OPERATOR_COMMANDS
                           for part in wrap(c, inner))
        logical.append(Text(""))
    if speech.code != "en":
        logical.extend(Text(w) for w in wrap(_(LAYOUT_NOTE), inner))
        logical.append(Text(""))
    if game not in RULES:
        for sentence in GAMES_NOTE:
            logical.extend(Text(w) for w in wrap(_(sentence), inner))
    while logical and not logical[-1].plain:
        logical.pop()
    return [speech.line(t, width) for t in logical]


class HelpText(Widget):
    """The help laid out for the widget's width: by ``picture_lines`` (English, 80
    columns and up) or ``help_lines`` (another language, or a phone)."""

    DEFAULT_CSS = """
    HelpText { height: auto; width: 1fr; text-wrap: nowrap; text-overflow: clip; }
    """

    def __init__(self, speech: Speech, game: str | None, *, id: str | None = None,
                 picture: bool = False, english_only: bool = False):
        super().__init__(id=id)
        self.speech = speech
        self.game = game
        self.picture = picture
        self.english_only = english_only
        self._made: tuple[int, list[Text]] | None = None

    def lines(self, width: int) -> list[Text]:
        if self._made is None or self._made[0] != width:
            made = (picture_lines(self.game, self.english_only, width) if self.picture
                    else help_lines(self.speech, self.game, width))
            self._made = (width, made)
        return self._made[1]

    @property
    def content(self) -> Text:
        return Text("\n").join(self.lines(self.size.width or 76))

    @property
    def plain(self) -> str:
        return "\n".join(t.plain for t in self.lines(self.size.width or 76))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))

    def render(self) -> Text:
        out = Text(no_wrap=True, overflow="crop")
        for i, line in enumerate(self.lines(self.size.width)):
            if i:
                out.append("\n")
            out.append_text(line)
        return out


class HelpScreen(Framed, ModalScreen[None]):
    """The help in the frame's box (``#help``, one that scrolls), the too-small notice
    and the keys."""

    BOX = "help"
    BOX_KIND = VerticalScroll
    BINDINGS = [
        Binding("escape", "close", show=False, id="help.back"),
        Binding("question_mark", "close", show=False, id="help.close"),
        Binding("q", "close", show=False, id="help.quit"),
        Binding("enter", "close", show=False, id="help.enter"),
    ]

    def __init__(self, game: str | None) -> None:
        super().__init__()
        self.game = game

    @property
    def speech(self) -> Speech:
        speech = getattr(host(self), "speech", None)
        return speech if isinstance(speech, Speech) else Speech()

    def english(self) -> bool:
        """English in a window of 80 columns or more: the keys as one picture (under
        80, a phone, they are laid out for the width as another language's are)."""
        return self.speech.code == "en" and host(self).size.width >= 80

    def parts(self) -> ComposeResult:
        self._wide = self.english()
        look = getattr(host(self), "look", None)
        yield HelpText(self.speech, self.game, id="help-text", picture=self._wide,
                       english_only=bool(getattr(look, "english_only", False)))

    async def on_resize(self, event: events.Resize) -> None:
        if self.english() != self._wide:
            await self.recompose()
        # (then the frame draws)

    def draw(self) -> None:
        speech = self.speech
        self.query_one("#too-small", Line).set(too_small_text(speech, *host(self).size))
        if self._wide:
            self.query_one("#keys", KeyBar).show([("esc", "back"), ("↑↓", "scroll")])
        else:
            self.query_one("#keys", KeyBar).show([("esc", BACK), ("↑↓", SCROLL)], speech)
        self.query_one("#help").focus()      # so ↑ ↓ PgUp PgDn scroll the text

    def action_close(self) -> None:
        host(self).pop_screen()


def key_bar(speech: Speech, keys: list[tuple[str, str]], width: int) -> Text:
    """A footer of (key, label) pairs as ``KeyBar.show`` draws it, laid out for the
    language (right to left for Arabic: the first key at the right)."""
    t = Text(no_wrap=True, overflow="ellipsis")
    for i, (k, label) in enumerate(keys):
        if i:
            t.append("  ")
        t.append(f" {k} ", style="bold reverse")
        t.append(" " + label)
    return speech.line(t, width)

