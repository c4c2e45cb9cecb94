"""The lobby: tables, quick play, create, sit, watch, join by code, take a
computer player's seat, help, quit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen

from engine.catalogue import GAMES, terms
from engine.room import LobbyRow, RoomError, code_label, display_name, title

from ..host import host
from ..i18n import N_, Speech
from ..sentences import back_in_seat
from ..widgets.board import BLANK, Board
from ..widgets.lines import keys_text
from ..widgets.taps import Tap, lines_taps, tap_at
from .command import CommandScreen
from .create import CreateScreen
from .events import EventsScreen
from .frame import arrows
from .help import HelpScreen
from .options import OptionsScreen
from .profile import LeaderboardScreen, ProfileScreen
from .replay import ReplayListScreen
from .sizes import COMPACT, SMALL, enlarge_lines, layout
from .table_compact import boxed, wrap
from .table_draw import W, fit  # the standard lobby: 80 columns
from .words import columns, game_title, lay, length_word, people_first, said_keys

if TYPE_CHECKING:
    from engine.room import Member, Registry

LIST_ROWS = 16
LIST_TOP = 2        # the list's head: under the title and a blank row
TITLE_BAR = "bright_white on blue"
# 80 columns hold seven or eight keys, those that do something for the table chosen:
# ↑↓ is left to the help screen; b and r are shown on the profile screen, j by the
# note of whoever shares a private table's code (all of them on the help screen).
LOBBY_KEYS = [("⏎", N_("sit")), ("p", N_("play")), ("n", N_("new")), ("e", N_("events")),
              ("i", N_("profile")), ("?", N_("help")), ("q", N_("quit"))]
# A match under way cannot be sat at: it can be watched ...
WATCH_KEYS = [("w", N_("watch")), ("p", N_("play")), ("n", N_("new")), ("e", N_("events")),
              ("i", N_("profile")), ("?", N_("help")), ("q", N_("quit"))]
# ... and its computer players' seats taken.
TAKE_KEYS = [("t", N_("take a seat")), ("w", N_("watch")), ("p", N_("play")),
             ("n", N_("new")), ("e", N_("events")), ("?", N_("help")), ("q", N_("quit"))]
# A match where one's own seat waits (a connection dropped): Enter goes back to it.
BACK_KEYS = [("⏎", N_("back to your seat")), ("p", N_("play")), ("n", N_("new")),
             ("e", N_("events")), ("?", N_("help")), ("q", N_("quit"))]
# The keys the row above shows (a tap on each does what it does: issue 26).
MORE_KEYS = [("b", N_("leaderboard")), ("r", N_("replays")), ("o", N_("options")),
             ("j", N_("code")), ("/", N_("command"))]
EN = Speech("en")


# The English row's columns: "#" (6), game (19), length (9) and seats (25) for every row,
# so that the status starts at one column; the status has the rest.
SEATS_AT, SEATS = 34, 25
STATUS_ROOM = W - SEATS_AT - SEATS


def row_line(row: LobbyRow) -> str:
    """One table's line in an English listing (80 columns). Who watches is never cut
    (``fitted_status``): that row's status may then start before the column."""
    seats, tail = fitted_status(EN, row, SEATS, STATUS_ROOM)
    line = (f" {row['id']:>3}  {title(row['game'])[:18]:<19}"
            f"{said_length(EN, row['game'], row['length'], row.get('ranked')):<9}"
            f"{', '.join(said_seats_in(EN, row, seats - 1)):<{seats}}{tail}")
    if row["private"] and len(line) <= 70:      # only where 80 columns hold it
        line += " · private"
    return line


def seats_floor(speech: Speech, row: LobbyRow, seats: int, names: int, sep: str) -> int:
    """The fewest cells (a blank one after them) in which the seats still list
    ``names`` of their names whole, the rest folded ("amira, bassem, +2"), or as many
    as ``seats`` cells list (none where not even the first name holds)."""
    def listed(cells: int) -> int:      # names said whole in ``cells``, not "+N (bots)"
        said = said_seats_in(speech, row, cells - 1, sep)
        return -1 if cell_len(sep.join(said)) >= cells else \
            sum(not name.startswith("+") for name in said)
    want = min(names, listed(seats))
    return next((cells for cells in range(2, seats) if listed(cells) >= want), seats)


def fitted_status(speech: Speech, row: LobbyRow, seats: int, room: int,
                  sep: str = ", ") -> tuple[int, str]:
    """A row's seats' cells and its status (with the practice mark and who watches,
    never left out: issue 29) after them, where the seats have ``seats`` cells and
    the status ``room``. The status is said shorter first; then the seats' names give
    up cells, but never below two names listed ("amira, bassem, +2"): the watcher
    words are said shorter first ("3 watch"), then the round ("12/18"); only then
    down to the first name and the fold ("amira, +3"), and below that last."""
    n = row["spectators"]
    watching, watch = (" · " + said.format(n=n) if n else "" for said in (
        speech.ngettext("{n} watching", "{n} watching", n),
        speech.ngettext("{n} watch", "{n} watch", n)))
    mark = " · " + speech._("practice") if row.get("practice") else ""
    long, short, compact = (said_status(speech, row, short=s, compact=c)
                            for s, c in ((False, False), (True, False), (True, True)))
    shorter = [(short, watching), (short, watch), (compact, watch)]
    # Each floor is looked for only when the one before did not hold (most rows fit at
    # once; a floor is some twenty layouts of the seats: 0.3 ms a row, every listing)
    stages = ((lambda: seats, [(long, watching), (short, watching)]),
              (lambda: seats_floor(speech, row, seats, 2, sep), shorter),
              (lambda: seats_floor(speech, row, seats, 1, sep), shorter))
    for floor_of, forms in stages:
        floor = floor_of()
        for status, after in forms:
            tail = status + mark + after
            cells = seats - max(0, cell_len(tail) - room)
            if cells >= floor:
                return cells, tail
    return cells, tail                  # the shortest, the names as they then hold


# The columns' words, in the player's language (the English listing too).
RANKED_MARK = "*"        # after a ranked table's length (the lobby's note says what it is)


def said_length(speech: Speech, game: str, length, ranked: object = False) -> str:
    if length is None:
        said = speech._("to 41")
    elif terms(game).length_in_rounds:
        said = speech.ngettext("{n} rd", "{n} rds", length).format(n=length)
    else:
        said = length_word(speech, length)
    return f"{said} {RANKED_MARK}" if ranked else said


def said_seats(speech: Speech, summary: LobbyRow) -> list[str]:
    """The seats' names; "(away)" after a person whose seat waits for them in a match
    under way (a dropped connection: connecting again sits them back at once). At a
    finished table a seat is not at it once its person went back to the lobby: not
    away."""
    under_way = summary["status"] == "playing"
    names = []
    for s in summary["seats"]:
        if s["kind"] == "empty":
            names.append("·")
        else:
            n = display_name(s["name"] or "?", bool(s.get("guest")))
            if under_way and s["kind"] == "human" and not s.get("connected", True):
                n += speech._("(away)")
            names.append(n)
    return names


def said_seats_in(speech: Speech, summary: LobbyRow, width: int,
                  sep: str = ", ") -> list[str]:
    """The seats as ``said_seats``, in ``width`` cells: where not all hold, the computer
    players are counted before any person is left out (``people_first``)."""
    return people_first(said_seats(speech, summary),
                        [s["kind"] == "bot" for s in summary["seats"]], width,
                        lambda n: speech.ngettext("+{n} bot", "+{n} bots", n).format(n=n),
                        sep)


def said_status(speech: Speech, summary: LobbyRow, short: bool = False,
                compact: bool = False) -> str:
    """The table's status; ``short``: without its first word, where a mark after it
    needs the room; ``compact`` (with ``short``): a match's round as "12/18", where
    who watches needs the room still."""
    if summary["status"] == "waiting":
        free = sum(1 for s in summary["seats"] if s["kind"] == "empty")
        if short:
            return speech._("{free} free").format(free=free)
        return speech._("waiting ({free} free)").format(free=free)
    if summary["status"] == "over":
        return speech._("finished")
    r, rr = summary.get("round"), summary.get("rounds")
    if rr:
        if short and compact:
            return speech._("{r}/{rounds}").format(r=r, rounds=rr)
        if short:
            return speech._("{r} of {rounds}").format(r=r, rounds=rr)
        return speech._("round {r} of {rounds}").format(r=r, rounds=rr)
    return speech._("hand {r}").format(r=r)


# ------------------------------------------------------------ right to left
# #, game, length (and the ranked mark), seats; the status has the rest (the Arabic titles
# are shorter).
ROW_COLUMNS = (5, 17, 10, 26)


def said_row(speech: Speech, row: LobbyRow) -> Text:
    """One table's line in an Arabic listing: the same columns, from the right."""
    # every row's status in one column, as in English (a practice table's mark after it,
    # and who watches, never left out: ``fitted_status`` says how, and the seats' cells)
    room = W - sum(ROW_COLUMNS)
    seats, status = fitted_status(speech, row, ROW_COLUMNS[3], room - 1,  # a column's
                                  "، ")                                  # last cell blank
    room += ROW_COLUMNS[3] - seats
    if row["private"]:                 # only where 80 columns hold it
        extra = speech._("private")
        if len(status) + 3 + len(extra) < room:
            status += " · " + extra
    cells = [(f"{row['id']:>3}", ROW_COLUMNS[0]),
             (game_title(speech, row["game"]), ROW_COLUMNS[1]),
             (said_length(speech, row["game"], row["length"], row.get("ranked")),
              ROW_COLUMNS[2]),
             (said_seats_in(speech, row, seats - 1, "، "), seats),
             (status, room)]
    return columns(speech, cells, W)


def said_head(speech: Speech) -> Text:
    return columns(speech, [("#", ROW_COLUMNS[0]), (speech._("game"), ROW_COLUMNS[1]),
                            (speech._("length"), ROW_COLUMNS[2]),
                            (speech._("seats"), ROW_COLUMNS[3]),
                            (speech._("status"), W - sum(ROW_COLUMNS))],
                   W, style="bold underline")


# Arabic rows, per row and text mode, kept as the English ones are (below).
_SAID_ROWS: dict[tuple[int, str, str], tuple[LobbyRow, Text]] = {}


def said_row_text(speech: Speech, row: LobbyRow) -> Text:
    key = (id(row), speech.code, speech.mode)
    hit = _SAID_ROWS.get(key)
    if hit is not None and hit[0] is row:
        return hit[1]
    if len(_SAID_ROWS) >= ROW_TEXTS_MAX:
        _SAID_ROWS.clear()
    text = fit(said_row(speech, row), W)
    _SAID_ROWS[key] = (row, text)
    return text


def highlighted(text: Text) -> Text:
    """A row's line highlighted (an Arabic row's padding at its left is not)."""
    plain = text.plain
    start = len(plain) - len(plain.lstrip(" "))
    out = Text(plain[:start], no_wrap=True, overflow="ellipsis")
    out.append(plain[start:], style="reverse")
    return out


# Each row's line, formatted once for every lobby screen of the process: the registry
# hands every screen the same row dict until its table changes (the entry holds the
# row, so its id is not reused while cached).
_ROW_TEXTS: dict[int, tuple[LobbyRow, Text, Text]] = {}
ROW_TEXTS_MAX = 1024     # rows of every table (500 at most) and then some


def row_text(row: LobbyRow, shaped: bool = False) -> Text:
    """A row's line, not highlighted: shared (a Line never changes the Text it shows).
    ``shaped``: a name in Arabic in it joined and in its order (English, shaped mode)."""
    hit = _ROW_TEXTS.get(id(row))
    if hit is None or hit[0] is not row:
        if len(_ROW_TEXTS) >= ROW_TEXTS_MAX:
            _ROW_TEXTS.clear()
        text = fit(Text(row_line(row), no_wrap=True, overflow="ellipsis"), W)
        hit = _ROW_TEXTS[id(row)] = (row, text, fit(EN.line(text, W), W))
    return hit[2] if shaped else hit[1]


# Shared by every lobby screen too.
LIST_HEAD = Text.assemble((f" {'#':>3}  {'game':<19}{'length':<9}{'seats':<25}status",
                           "bold underline"), no_wrap=True, overflow="ellipsis")
NO_TABLES = Text.assemble(("  No tables yet: press p for quick play or n for a new table.",
                           "dim"), no_wrap=True, overflow="ellipsis")
# The screens a key of the lobby opens, by name (``LobbyScreen.action_open``): the
# options are the language, the Arabic text mode and the look of cards.
OPENS: dict[str, Callable[[], Screen[Any]]] = {
    "profile": ProfileScreen, "leaderboard": LeaderboardScreen, "replays": ReplayListScreen,
    "events": EventsScreen, "options": OptionsScreen, "new": CreateScreen,
    "command": CommandScreen, "help": lambda: HelpScreen(None)}
QUIT_ASK = N_("Quit? q or y quits; any other key stays.")
NO_TABLES_SAID = N_("No tables yet: press p for quick play or n for a new table.")


def compact_row(speech: Speech, row: LobbyRow, cw: int) -> list[Text]:
    """A table's rows in the compact lobby: its number, game and length (the
    status after them where the width holds it), then the status, the seats and who
    watches, wrapped at a word (or a name) over the rows they need."""
    _ = speech._
    one = f"{row['id']:>3}  {game_title(speech, row['game'])}  " \
        f"{said_length(speech, row['game'], row['length'], row.get('ranked'))}"
    if row.get("practice"):
        one += "  " + _("practice")
    status = said_status(speech, row)
    extras = [status]
    if cell_len(one) + 3 + cell_len(status) <= cw - 1:
        one = one + "  " + " " * (cw - 2 - cell_len(one) - cell_len(status)) + status
        extras = []
    # the seats' names held together (no-break spaces): a name is never cut in two
    extras.append(speech.pgettext("list", ", ").join(
        name.replace(" ", "\u00a0") for name in said_seats(speech, row)))
    if row["spectators"]:
        n = row["spectators"]
        extras.append(speech.ngettext("{n} watching", "{n} watching", n).format(n=n)
                      .replace(" ", "\u00a0"))
    if row["private"]:
        extras.append(_("private"))
    two = Text("     " + " · ".join(extras), no_wrap=True)
    out = [fit(lay(speech, Text(one, no_wrap=True), cw), cw)]
    out += [fit(lay(speech, Text(part.plain.replace("\u00a0", " "), style=part.style,
                                 no_wrap=True), cw), cw)
            for part in wrap(two, cw - 1, "     ")]
    return out


@dataclass
class CompactPage:
    """The compact lobby as drawn: its lines, their column, the footer's rows and
    where each table listed is (first row, after its last, the table's index)."""

    lines: list[Text]
    x: int
    footer: int
    spans: list[tuple[int, int, int]]


def compact_page(speech: Speech, colour: bool, member: Member, rows: list[LobbyRow], cursor: int,
                 keys: list[tuple[str, str]], said: tuple[Text, Text], width: int,
                 height: int) -> CompactPage:
    """Under 80×24: the title, two rows a table (its number, game and length; then
    its status, seats and watchers), the note and the status (``said``) wrapped to the
    width, and every key of the lobby over as many rows as they need."""
    _ = speech._
    cw = min(width, W)
    x = (width - cw) // 2
    bar = TITLE_BAR if colour else "reverse"
    head = Text(no_wrap=True)
    head.append(" " + _("Lamma") + " ", style="bold reverse")
    head.append("  " + _("you: {name}").format(name=member.display_name))
    if member.guest:
        head.append("  " + _("(guest: nothing is kept)"), style="dim")
    title = Text(no_wrap=True, style=bar)
    title.append_text(lay(speech, head, cw))
    top = [fit(title, cw), BLANK]
    # Every key of the lobby (the standard footer leaves some to the row above it,
    # or to the help, for the table chosen: here they all go on over more rows).
    keys = keys + [k for k in LOBBY_KEYS[1:] if k not in keys]
    shown_keys = said_keys(speech, keys + MORE_KEYS)
    footer = [lay(speech, line, cw) for line in boxed(shown_keys, cw - 1)]
    notes = []
    for part in said:
        if part.plain.strip():      # whole: the listing gives up its rows
            notes += [lay(speech, line, cw) for line in wrap(part, cw - 1)]
    room = height - len(top) - len(notes) - len(footer) - (1 if notes else 0)
    listing: list[Text] = []
    spans: list[tuple[int, int, int]] = []
    if not rows:
        listing = [lay(speech, line, cw) for line in
                   wrap(Text("  " + _(NO_TABLES_SAID), style="dim"), cw - 1)]
    else:
        made: dict[int, list[Text]] = {}

        def of(i: int) -> list[Text]:
            if i not in made:
                made[i] = compact_row(speech, rows[i], cw)
            return made[i]
        # the chosen table about the middle, as many whole tables as the rows hold
        first = max(0, min(cursor - max(1, room // 2) // 2, len(rows) - 1))
        while True:
            used, last = 0, first
            while last < len(rows) and (last == first or used + len(of(last)) <= room):
                used += len(of(last))
                last += 1
            if cursor < last or first >= cursor:
                break
            first += 1
        while first > 0 and used + len(of(first - 1)) <= room:
            first -= 1
            used += len(of(first))
        for i in range(first, last):
            lines_i = of(i)
            if i == cursor:
                lines_i = [highlighted(t) for t in lines_i]
            spans.append((len(top) + len(listing), len(top) + len(listing) + len(lines_i), i))
            listing += lines_i
    lines = top + listing[:max(0, room)]
    lines += [BLANK] * (height - len(lines) - len(notes) - len(footer))
    lines += notes + footer
    lines = lines[:height]
    return CompactPage(lines, x, len(footer),
                       [sp for sp in spans if sp[1] <= len(top) + max(0, room)])


def lobby_note(registry: Registry, member: Member, speech: Speech, rows: list[LobbyRow]) -> Text:
    """The code of a private table of ``member``'s, to read out to friends; else, when a
    ranked table is listed, what its mark means (in reading order: laid out where
    it is drawn)."""
    for row in rows:
        if not row.get("code"):
            continue
        table = registry.find(row["id"])
        if table is None:
            continue
        if member.table is table or any(s.held_by(member) for s in table.seats):
            return Text(" " + speech._(
                "Your private table #{table}: code {code} (friends press j and "
                "type it)").format(table=row["id"], code=code_label(row["code"])),
                style="bold")
    if any(row.get("ranked") for row in rows):
        return Text(" " + speech._(
            "{mark} ranked: pays level points and badge wins (four people to the "
            "end)").format(mark=RANKED_MARK), style="dim")
    return Text("")


class LobbyScreen(Screen[None]):

    BINDINGS = [
        *arrows("lobby", "move"),
        Binding("enter", "sit", show=False, id="lobby.sit"),
        Binding("w", "watch", show=False, id="lobby.watch"),
        Binding("p", "quick", show=False, id="lobby.quick"),
        Binding("n", "open('new')", show=False, id="lobby.new"),
        Binding("j", "code", show=False, id="lobby.code"),
        Binding("t", "take", show=False, id="lobby.take"),
        Binding("question_mark", "open('help')", show=False, id="lobby.help"),
        Binding("q", "quit", show=False, id="lobby.quit"),
        Binding("i", "open('profile')", show=False, id="lobby.profile"),
        Binding("b", "open('leaderboard')", show=False, id="lobby.leaderboard"),
        Binding("r", "open('replays')", show=False, id="lobby.replays"),
        Binding("slash", "open('command')", show=False, id="lobby.command"),
        Binding("e", "open('events')", show=False, id="lobby.events"),
        Binding("o", "open('options')", show=False, id="lobby.options"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.cursor = 0
        self.rows: list[LobbyRow] = []
        # What the list shows now: the rows (the registry's shared dicts, the same
        # object while a table is unchanged) and the cursor, None before the first draw.
        self._shown: tuple[list[LobbyRow], int] | None = None
        # The highlighted row's Text, with the row it shows (the others': row_text).
        self._selected_text: tuple[LobbyRow, Text] | None = None
        self.redraws = 0        # listings drawn (tests and benchmarks count them)
        self._keys_shown: list[tuple[str, str]] | None = None
        # What each part of the screen shows (``lines``); one Board draws them all:
        # a screen of one widget costs a new session a third of what twenty-odd
        # one-line widgets did (issue 12: sessions coming and going).
        self._title: Text = BLANK
        self._list: list[Text] = []
        # The status in the standard layout: whole, over as many lines as it needs (the
        # list then shows fewer tables: ``list_rows``).
        self._status_lines: list[Text] = [BLANK]
        self.list_rows = LIST_ROWS
        self._status_said: Text = BLANK     # the status before it was laid out
        self._note: Text = BLANK
        self._note_said: Text = BLANK       # the note before it was cut to 80 columns
        self._keys: Text = BLANK
        self._more: Text = BLANK            # the row of keys above the footer
        # (keys, width, laid out, the row above laid out)
        self._footer: tuple[Text, int, Text, Text] | None = None
        self._board: Board | None = None
        self.too_small = False
        self.compact = False
        self._taps: list[Tap] = []          # the keys' boxes as drawn (a tap presses one)
        self.asking_quit = False            # "Quit?" asked: q or y quits, else stays
        # the compact listing: its column and width, and each table's rows (first,
        # after the last, the table's index)
        self._list_at = (0, W)
        self._compact_spans: list[tuple[int, int, int]] = []

    def compose(self) -> ComposeResult:
        yield Board(id="board")

    def on_mount(self) -> None:
        app = host(self)
        app.registry.lobby.add(app.member)
        self._board = self.query_one(Board)
        self.draw()

    def on_board_resized(self, message: Board.Resized) -> None:
        self.paint()

    def lines(self, part: str) -> list[Text]:
        """What a part of the screen shows: "title", "list" (the head, then the rows),
        "status", "note" or "keys" (the footer, in reading order)."""
        return {"title": [self._title], "list": list(self._list),
                "status": list(self._status_lines),
                "note": [self._note], "keys": [self._keys]}[part]

    def footer(self) -> Text:
        """The keys as the last row shows them (laid out from the right in Arabic)."""
        footer = self._footer
        return footer[2] if footer is not None else self._keys

    def paint(self) -> None:
        """The parts on the board for its size (``sizes.layout``): the standard body (80
        columns, centred) at the top, the keys on the last two rows; the compact one
        under 80×24; under 40×20 only the request to enlarge the window."""
        board = self._board
        if board is None or not board.is_attached:
            return
        width, height = board.area.size
        if width <= 0 or height <= 0:
            return
        speech = host(self).speech
        kind = layout(width, height)
        self.too_small = kind == SMALL
        self.compact = kind == COMPACT
        if self.too_small:
            lines = enlarge_lines(width, height, speech)
            board.set_lines(lines)
            self._taps = []
            return
        if self.compact:
            self.paint_compact(width, height)
            return
        body = [self._title, BLANK, *self._list]
        body += [BLANK] * (self.list_rows + 3 - len(body)) + [BLANK, *self._status_lines,
                                                              self._note]
        x = (width - W) // 2
        footer = self._footer
        if footer is None or footer[0] is not self._keys or footer[1] != width:
            laid = speech.line(self._keys, width) if speech.rtl else self._keys
            more = speech.line(self._more, width) if speech.rtl else self._more
            footer = self._footer = (self._keys, width, laid, more)
        lines = body + [BLANK] * (height - 2 - len(body)) + [footer[3], footer[2]]
        board.set_lines(lines, at=[x] * len(body))
        self._taps = lines_taps(lines[-2:], first=height - 2)

    def paint_compact(self, width: int, height: int) -> None:
        """Under 80×24 (``compact_page``), the listing's place kept for taps."""
        board = self._board
        assert board is not None
        app = host(self)
        keys = self._keys_for(self.rows[self.cursor] if self.rows else None)
        page = compact_page(app.speech, app.look.colour, app.member, self.rows, self.cursor,
                            keys, (self._note_said, self._status_said), width, height)
        lines = page.lines
        board.set_lines(lines, at=[page.x] * len(lines))
        self._taps = lines_taps(lines, [page.x] * len(lines),
                                rows=range(len(lines) - page.footer, len(lines)))
        self._list_at = (page.x, min(width, W))
        self._compact_spans = page.spans

    def _keys_for(self, chosen: LobbyRow | None) -> list[tuple[str, str]]:
        """The keys for the table chosen: back to one's own seat, take a computer
        player's seat, watch a match under way, or sit."""
        if chosen is not None and self._held(chosen):
            return BACK_KEYS
        if chosen is not None and self._takeable(chosen):
            return TAKE_KEYS
        if chosen is not None and chosen["status"] != "waiting":
            return WATCH_KEYS
        return LOBBY_KEYS

    def draw(self) -> None:
        """Everything again, in the player's language (also when it changes)."""
        speech = host(self).speech
        _ = speech._
        who = host(self).member.display_name
        head = Text()
        head.append(" " + _("Lamma") + " ", style="bold reverse")
        head.append("  " + _("card room · Estimation · Tarneeb 41"), style="bold")
        head.append("    " + _("you: {name}").format(name=who))
        if host(self).member.guest:
            head.append("  " + _("(guest: nothing is kept)"), style="dim")
        bar = TITLE_BAR if host(self).look.colour else "reverse"
        title = Text(no_wrap=True, style=bar)
        title.append_text(lay(speech, head, W))
        self._title = fit(title, W)     # the bar's colour to the 80th column
        self._shown = None
        self._selected_text = None
        self._keys_shown = None
        self._note = self._note_said = BLANK
        self._footer = None
        self._more = keys_text(said_keys(speech, MORE_KEYS), speech)
        self.lobby_changed()

    def on_screen_resume(self) -> None:
        host(self).registry.lobby.add(host(self).member)
        self._shown = None      # where we sat or watched may have changed the note
        self.lobby_changed()

    def on_screen_suspend(self) -> None:
        host(self).registry.lobby.discard(host(self).member)

    # ------------------------------------------------------------------ draw
    def lobby_changed(self) -> None:
        """Draw the listing; with the same rows and cursor as drawn, nothing to do,
        and a row whose table did not change keeps its Text (and its line)."""
        if not self.is_mounted:
            return
        app = host(self)
        rows = app.registry.lobby_view(app.member)
        if rows:
            self.cursor = max(0, min(self.cursor, len(rows) - 1))
        else:
            self.cursor = 0
        shown = self._shown
        if (shown is not None and shown[1] == self.cursor and len(shown[0]) == len(rows)
                and all(a is b for a, b in zip(shown[0], rows, strict=True))):
            return
        self.rows = rows
        self._shown = (rows, self.cursor)
        self.redraws += 1
        speech = host(self).speech
        rtl = speech.rtl
        lines: list[Text] = [fit(said_head(speech), W) if rtl else LIST_HEAD]
        if not rows:
            lines += [BLANK, fit(lay(speech, Text("  " + speech._(NO_TABLES_SAID),
                                                      style="dim"), W), W)
                      if rtl else NO_TABLES]
        shown_rows = self.list_rows
        first = max(0, min(self.cursor - shown_rows // 2, len(rows) - shown_rows))
        for i in range(first, min(len(rows), first + shown_rows)):
            row = rows[i]
            selected = i == self.cursor
            if not selected:
                lines.append(self._row_text(row))
                continue
            cached = self._selected_text
            if cached is None or cached[0] is not row:
                if rtl:
                    text = highlighted(self._row_text(row))
                else:
                    text = Text(no_wrap=True, overflow="ellipsis")
                    text.append(self._row_text(row).plain, style="reverse")
                text = fit(text, W)
                cached = self._selected_text = (row, text)
            lines.append(cached[1])
        self._list = lines
        note = lobby_note(app.registry, app.member, speech, rows)
        if note.plain != self._note_said.plain:
            self._note_said, self._note = note, fit(lay(speech, note, W), W)
        keys = self._keys_for(rows[self.cursor] if rows else None)
        if keys is not self._keys_shown:
            self._keys_shown = keys
            self._keys = keys_text(said_keys(speech, keys), speech)
        self.paint()

    def _row_text(self, row: LobbyRow) -> Text:
        speech = host(self).speech
        if speech.rtl:
            return said_row_text(speech, row)
        return row_text(row, speech.shaped)

    def _held(self, row: LobbyRow) -> bool:
        """Is ``row`` a match under way where this player's seat waits for them?"""
        if row["status"] != "playing":
            return False
        table = host(self).registry.find(row["id"])
        member = host(self).member
        return (table is not None and member.table is not table
                and any(s.held_by(member) for s in table.seats))

    @staticmethod
    def _takeable(row: LobbyRow) -> bool:
        return row["status"] == "playing" and any(s["kind"] == "bot" for s in row["seats"])

    def notice(self, text: str) -> None:
        """A word from the room (an operator's announcement) while in the lobby."""
        if self.is_mounted:
            self.set_status(text)

    def set_status(self, text: str, error: bool = False, style: str = "") -> None:
        """``text``: already in the player's language."""
        speech = host(self).speech
        line = Text(" " + text if text else "", style=style or ("bold red" if error else "dim"))
        self._status_said = line
        self._status_lines = [fit(lay(speech, part, W), W)
                              for part in wrap(line, W - 1)] if text else [BLANK]
        rows = LIST_ROWS + 1 - len(self._status_lines)
        if rows != self.list_rows:
            self.list_rows = rows
            self._shown = None      # the list again, for the rows it has now
            self.lobby_changed()
            return
        self.paint()

    def refused(self, exc: RoomError) -> None:
        self.set_status(host(self).speech.error(exc), error=True)

    # --------------------------------------------------------------- actions
    def action_move(self, delta: int) -> None:
        if self.rows:
            self.cursor = (self.cursor + delta) % len(self.rows)
            self.lobby_changed()

    def _selected(self):
        if not self.rows:
            return None
        tid = self.rows[self.cursor]["id"]
        return host(self).registry.find(tid)

    def action_sit(self) -> None:
        table = self._selected()
        if table is None:
            self.set_status(host(self).speech._("No table selected."), error=True)
            return
        back = self._held(self.rows[self.cursor])
        try:
            table.sit(host(self).member)
        except RoomError as exc:
            self.refused(exc)
            return
        if back:
            self.open_table(back_in_seat(host(self).speech, table))
            return
        host(self).open_table()

    def action_watch(self) -> None:
        table = self._selected()
        if table is None:
            return
        try:
            table.watch(host(self).member)
        except RoomError as exc:
            self.refused(exc)
            return
        host(self).open_table()

    def action_open(self, name: str) -> None:
        """Another of the room's screens, by its name (``OPENS``)."""
        host(self).push_screen(OPENS[name]())

    def action_quick(self) -> None:
        app = host(self)
        for row in app.registry.listing(app.member):
            if row["status"] == "waiting" and not row["private"]:
                table = app.registry.find(row["id"])
                if table is None:
                    continue
                try:
                    table.sit(app.member)
                except RoomError:
                    continue
                app.open_table()
                return
        try:
            # the catalogue's first game, as the new-table form's first choice
            table = app.registry.create(GAMES[0], creator=app.member)
            try:
                table.sit(app.member, 0)
            except RoomError:
                app.registry.gc_table(table)    # no empty table left behind
                raise
            # quick play: its creator's choice, at the room's level for quick play
            table.fill_with_bots(app.member, level=app.registry.quick_level)
        except RoomError as exc:
            self.refused(exc)
            return
        app.open_table()

    def action_code(self) -> None:
        from .seats import JoinCodeScreen

        def done(table) -> None:
            if table is not None:
                self.arrive(table)
        host(self).push_screen(JoinCodeScreen(), done)

    def arrive(self, table) -> None:
        """After a right code: a free seat, else a computer player's, else watch."""
        if table.status == "waiting" and any(s.kind == "empty" for s in table.seats):
            try:
                seat = table.sit(host(self).member)
            except RoomError as exc:
                self.refused(exc)
                return
            self.open_table(host(self).speech._("You sit in seat {seat} at table #{table}.")
                            .format(seat=seat, table=table.id))
            return
        if table.status != "over" and any(s.kind == "bot" for s in table.seats):
            self.choose_seat(table, full=True)
            return
        self.watch_table(table, host(self).speech._("Table #{table} is full: you are watching.")
                         .format(table=table.id))

    def action_take(self) -> None:
        table = self._selected()
        if table is None:
            self.set_status(host(self).speech._("No table selected."), error=True)
            return
        if table.status == "over":
            self.set_status(host(self).speech._("The match at table #{table} is over.")
                            .format(table=table.id), error=True)
            return
        if not any(s.kind == "bot" for s in table.seats):
            self.set_status(host(self).speech._("No computer player sits at table #{table}.")
                            .format(table=table.id), error=True)
            return
        self.choose_seat(table)

    def choose_seat(self, table, full: bool = False) -> None:
        from .seats import TakeSeatScreen, take_seat

        def done(seat) -> None:
            if seat is None:
                if full:
                    self.watch_table(table, host(self).speech._(
                        "Table #{table} is full: you are watching.").format(table=table.id))
                return
            try:
                text = take_seat(table, host(self).member, seat, host(self).speech)
            except RoomError as exc:
                self.refused(exc)
                return
            self.open_table(text)
        host(self).push_screen(TakeSeatScreen(table, full), done)

    def watch_table(self, table, notice: str) -> None:
        try:
            table.watch(host(self).member)
        except RoomError as exc:
            self.refused(exc)
            return
        self.open_table(notice)

    def open_table(self, notice: str) -> None:
        """The table screen, with a sentence saying where the person is: said there,
        not left in the lobby's status (back in the lobby they may sit nowhere)."""
        from .table import TableScreen
        if host(self).member.table is None:
            self.set_status(notice)
            return
        self.set_status("")
        host(self).push_screen(TableScreen(notice=notice))

    def action_quit(self) -> None:
        """Asks once (a stray tap must not end the session): ``q`` again or ``y``
        quits, any other key or a tap stays (``on_key``)."""
        if self.asking_quit:
            host(self).exit()
            return
        self.asking_quit = True
        self.set_status(host(self).speech._(QUIT_ASK), style="bold")

    def on_key(self, event: events.Key) -> None:
        """The answer to "Quit?": before the lobby's bindings see the key."""
        if not self.asking_quit:
            return
        event.stop()
        event.prevent_default()
        if event.key in ("q", "y"):
            host(self).exit()
            return
        self.stay()

    def stay(self) -> None:
        """Not quitting after all: the question goes."""
        self.asking_quit = False
        self.set_status("")

    def on_click(self, event: events.Click) -> None:
        """A tap on a key presses it; on a table, chooses it, and on the chosen table
        again sits there (as Enter: issue 26)."""
        board = self._board
        if board is None or self.too_small:
            return
        area = board.area
        if self.asking_quit and tap_at(self._taps, event.screen_x - area.x,
                                       event.screen_y - area.y) is None:
            event.stop()
            self.stay()          # a tap anywhere but on a key: not quitting
            return
        tap = tap_at(self._taps, event.screen_x - area.x, event.screen_y - area.y)
        if tap is not None:
            event.stop()
            host(self).post_message(events.Key(tap.key, tap.char or None))
            return
        row = self._row_at(event.screen_x - area.x, event.screen_y - area.y, area.width)
        if row is None:
            return
        event.stop()
        if row == self.cursor:
            self.action_sit()
        else:
            self.cursor = row
            self.lobby_changed()

    def _row_at(self, x: int, y: int, width: int) -> int | None:
        """The table listed at (x, y) of the board, or None."""
        if self.compact:
            left, cw = self._list_at
            if not left <= x < left + cw:
                return None
            return next((i for y0, y1, i in self._compact_spans if y0 <= y < y1), None)
        else:
            left = (width - W) // 2
            shown = self.list_rows
            if not (left <= x < left + W and LIST_TOP < y <= LIST_TOP + shown):
                return None
            first = max(0, min(self.cursor - shown // 2, len(self.rows) - shown))
            row = y - LIST_TOP - 1 + first
        return row if 0 <= row < len(self.rows) else None
