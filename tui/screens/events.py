"""Duplicate events (docs/events.md): the list, entering and resuming an entry, making
an event, the standings and a board's comparison — what the room's ``Events`` says,
drawn; who may see what is decided there, never here.

Each screen is a ``RecordScreen``: a title line, one block of text, the keys (and on a
terminal under 80×24 only the request to enlarge it)."""

from __future__ import annotations

import textwrap
import time
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType

from engine import MatchRecord, replay
from engine.duplicate import BOARDS
from engine.room import BOT_NAMES, RoomError
from engine.room.duplicate import HOURS, Comparison, EventListing, Events, Standing
from engine.room.store import EventRow

from ..host import host
from ..i18n import N_, Speech
from ..sentences import say
from ..widgets.lines import Lines
from .frame import DialogScreen, arrows, form_keys
from .record import RecordScreen, W
from .seats import JoinCodeScreen
from .table_draw import Shown, units
from .words import Laid, columns, cut, game_title, pad

if TYPE_CHECKING:
    from engine.room.members import Member


LIST_ROWS = 12          # events shown at once
LIST_W = 80             # the list's row (its columns and a space): narrower, two lines an event
STANDING_ROWS = 14
# The list's columns: heading and width (the name's first, left-aligned).
EVENT_COLUMNS = ((N_("event"), 26), (N_("game"), 18), (N_("boards"), 8),
                 (N_("closes"), 12), (N_("entries"), 8), (N_("you"), 7))
YOU_WORDS = {"new": N_("new"), "playing": N_("playing"), "finished": N_("done")}
LIST_KEYS = [("⏎", N_("play")), ("s", N_("standings")), ("j", N_("code")),
             ("n", N_("new event")), ("esc", N_("back"))]
STANDINGS_KEYS = [("←→", N_("board")), ("⏎", N_("compare")), ("↑↓", N_("scroll")),
                  ("esc", N_("back"))]
COMPARE_KEYS = [("tab", N_("replay")), ("←→", N_("board")), ("esc", N_("back"))]
REPLAY_KEYS = [("tab", N_("the field")), ("←→", N_("board")), ("esc", N_("back"))]
ROLE_WORDS = {"caller": N_("caller, called {call}"), "with": N_("With"), "dash": N_("dash"),
              "": N_("declared")}
HOURS_CHOICES = (1, 2, 3, 6, 12, 24, 48, 72)


def said_name(speech: Speech, events: Events, ev: EventRow) -> str:
    """An event's name in the player's language."""
    return say(speech, events.name(ev))


def listed_name(speech: Speech, events: Events, ev: EventRow) -> str:
    """An event's name in the list, where its game has a column of its own: a daily
    event is its day."""
    if ev.daily is not None:
        return speech._("Daily {date}").format(date=ev.daily.partition(":")[2])
    return said_name(speech, events, ev)


def closes_in(speech: Speech, ev: EventRow, now: float) -> str:
    """How long an event stays open, or that it has closed."""
    left = ev.closes - now
    if left <= 0:
        return speech._("closed")
    hours, minutes = int(left // 3600), int(left % 3600 // 60)
    if hours:
        return speech._("{h} h {m} min").format(h=hours, m=minutes)
    return speech._("{m} min").format(m=max(1, minutes))


def board_keys(screen: str) -> list[BindingType]:
    """← → the previous and the next board of an event (its standings, a board's
    comparison)."""
    return [Binding("left", "board(-1)", show=False, id=f"{screen}.previous"),
            Binding("right", "board(1)", show=False, id=f"{screen}.next")]


def signed(n: int) -> str:
    return f"{n:+d}"




class EventsScreen(RecordScreen):
    """The events this player may see: enter one, come back to an entry, see results."""

    BINDINGS = [
        *arrows("events", "move"),
        Binding("enter", "enter", show=False, id="events.enter"),
        Binding("s", "standings", show=False, id="events.standings"),
        Binding("j", "code", show=False, id="events.code"),
        Binding("n", "new", show=False, id="events.new"),
    ]
    KEYS = LIST_KEYS
    BLOCK_ID = "events-text"

    def __init__(self, notice: str | None = None) -> None:
        super().__init__()
        self.cursor = 0
        self.rows: list[tuple[EventRow, EventListing]] = []
        self.status: Text | None = Text(" " + notice, style="bold") if notice else None

    @property
    def events(self) -> Events:
        return host(self).registry.events

    def paint(self) -> None:
        self.rows = self.events.rows(host(self).member)
        self.cursor = max(0, min(self.cursor, len(self.rows) - 1))
        self.set_title(N_("Events"), host(self).speech._(
            "the same deals for everyone, at any hour"))
        self.show_rows()

    def show_rows(self) -> None:
        if self.width < LIST_W:
            self.show_narrow()
            return
        speech = host(self).speech
        _ = speech._
        now = self.events.clock()
        lines: list[Text] = [self.head()]
        if not self.rows:
            lines += [Text(""), Text(" " + _("No events open now."), style="dim")]
        first = max(0, min(self.cursor - LIST_ROWS // 2, len(self.rows) - LIST_ROWS))
        for i in range(first, min(len(self.rows), first + LIST_ROWS)):
            ev, row = self.rows[i]
            lines.append(self.line(ev, row, now, i == self.cursor))
        lines += [Text("")] * (LIST_ROWS + 1 - len(lines))
        lines.append(Text(""))
        lines += self.about(now)
        lines += [Text("")] * (19 - len(lines))
        lines.append(self.status or Text(""))
        self.set_block(lines)

    def show_narrow(self) -> None:
        """The list on a phone (under 80 columns): two lines an event, its name whole on
        the first, its game, when it closes and how far you are on the second; how
        many boards and entries the chosen one has, under the list."""
        speech = host(self).speech
        _ = speech._
        now = self.events.clock()
        rows = self.block_rows
        lines: list[Text] = self.narrow_head()
        if not self.rows:
            lines += [Text(""), Text(" " + _("No events open now."), style="dim")]
        about = self.about(now)
        if self.rows:
            ev, row = self.rows[self.cursor]
            about.insert(1, Text(f" {_('boards')}: {ev.boards} · {_('entries')}: "
                                 f"{row['entries']}", style="dim"))
        about = self.fold(about)
        # the list, then a blank line, the chosen event whole, the status: the list has
        # the rows left (two an event; the last says which are shown when not all are)
        room = rows - len(lines) - len(about) - 2
        shown = max(1, min(LIST_ROWS, room // 2))
        if len(self.rows) > shown:
            shown = max(1, min(LIST_ROWS, (room - 1) // 2))
        first = max(0, min(self.cursor - shown // 2, len(self.rows) - shown))
        for i in range(first, min(len(self.rows), first + shown)):
            ev, row = self.rows[i]
            lines += self.narrow_lines(ev, row, now, i == self.cursor)
        if len(self.rows) > shown:
            last = min(len(self.rows), first + shown)
            lines.append(Text(" " + _("{first}–{last} of {total}").format(
                first=first + 1, last=last, total=len(self.rows)), style="dim"))
        lines.append(Text(""))
        lines += about
        lines += [Text("")] * (rows - 1 - len(lines))
        lines.append(self.status or Text(""))
        self.set_block(lines)

    def narrow_columns(self) -> list[int]:
        """The second line's columns on a phone: an indent, the game (what is left),
        when it closes, how far you are."""
        # "closes" holds "20 h 58 min" and a space (issue 44: it was cut "20 h 58 m…")
        return [2, max(8, self.width - 1 - 2 - 12 - 7), 12, 7]

    def narrow_head(self) -> list[Text]:
        speech = host(self).speech
        _ = speech._
        indent, game, closes, you = self.narrow_columns()
        words = [_("event"), _("game"), _("closes"), _("you")]
        if speech.rtl:
            return [columns(speech, [(words[0], self.width - 1)], self.width,
                            style="bold"),
                    columns(speech, [("", indent), (words[1], game), (words[2], closes),
                                     (words[3], you)], self.width, style="bold underline")]
        return [Text(" " + words[0], style="bold"),
                Text(" " + " " * indent + pad(cut(words[1], game - 1), game)
                     + pad(cut(words[2], closes - 1), closes) + cut(words[3], you).rjust(you),
                     style="bold underline")]

    def narrow_lines(self, ev: EventRow, row: EventListing, now: float,
                     selected: bool) -> list[Text]:
        """An event in two lines: its name, whole; its game, when it closes, and how
        far you are in it."""
        speech = host(self).speech
        indent, game, closes, you = self.narrow_columns()
        name = listed_name(speech, self.events, ev)
        cells = [speech._(game_title(speech, ev.game)), closes_in(speech, ev, now),
                 speech._(YOU_WORDS.get(row["you"], row["you"]))]
        style = "reverse" if selected else ""
        if speech.rtl:
            return [columns(speech, [(name, self.width - 1)], self.width, style=style),
                    columns(speech, [("", indent), (cells[0], game), (cells[1], closes),
                                     (cells[2], you)], self.width, style=style)]
        first = Text(" " + pad(cut(name, self.width - 2), self.width - 2), style=style)
        second = Text(" " + " " * indent + pad(cut(cells[0], game - 1), game)
                      + pad(cut(cells[1], closes - 1), closes) + cut(cells[2], you).rjust(you),
                      style=style)
        return [first, second]

    def head(self) -> Text:
        speech = host(self).speech
        if speech.rtl:
            return columns(speech, [(speech._(h), w) for h, w in EVENT_COLUMNS], self.width,
                           style="bold underline")
        return Text(" " + "".join(pad(cut(h, w - 1), w) for h, w in EVENT_COLUMNS)[:W - 1],
                    style="bold underline")

    def line(self, ev: EventRow, row: EventListing, now: float, selected: bool) -> Text:
        speech = host(self).speech
        cells = [listed_name(speech, self.events, ev), speech._(game_title(speech, ev.game)),
                 str(ev.boards), closes_in(speech, ev, now), str(row["entries"]),
                 speech._(YOU_WORDS.get(row["you"], row["you"]))]
        style = "reverse" if selected else ""
        if speech.rtl:
            return columns(speech, [(c, w) for c, (_h, w) in
                                    zip(cells, EVENT_COLUMNS, strict=True)],
                           self.width, style=style)
        # Each cell cut short of its column: a long name never runs into the game.
        return Text(" " + "".join(pad(cut(c, w - 1), w) for c, (_h, w) in
                                  zip(cells, EVENT_COLUMNS, strict=True))[:W - 1],
                    style=style)

    def about(self, now: float) -> list[Text]:
        """The chosen event in words: what it is, how far the player is."""
        speech = host(self).speech
        _ = speech._
        if not self.rows:
            return [Text(" " + _("A daily event opens for each game at 00:00 UTC."),
                         style="dim")]
        ev, row = self.rows[self.cursor]
        what = _("{game}: {boards} boards, each one deal played to its end with "
                 "computer players.").format(game=game_title(speech, ev.game),
                                             boards=ev.boards)
        lines = [Text(" " + what)]
        if row["you"] == "finished" or row["status"] == "closed":
            lines.append(Text(" " + _("⏎ shows the standings and each board compared."),
                              style="dim"))
        elif row["you"] == "playing":
            lines.append(Text(" " + _("⏎ goes on with your entry where you left it."),
                              style="dim"))
        else:
            lines.append(Text(" " + _("⏎ enters it: one entry per player; the others' "
                                      "scores show once you finish."), style="dim"))
        code = row.get("code")
        if ev.private and code:
            lines.append(Text(" " + _("Private: friends press j and type {code}.").format(
                code=code[:4] + "-" + code[4:]), style="bold"))
        return lines

    def selected(self) -> tuple[EventRow, EventListing] | None:
        return self.rows[self.cursor] if self.rows else None

    def action_move(self, delta: int) -> None:
        if self.rows:
            self.cursor = (self.cursor + delta) % len(self.rows)
            self.show_rows()

    def refused(self, exc: RoomError) -> None:
        self.status = Text(" " + host(self).speech.error(exc), style="bold red")
        self.show_rows()

    def action_enter(self) -> None:
        chosen = self.selected()
        if chosen is None:
            return
        ev, row = chosen
        if row["you"] == "finished" or row["status"] == "closed":
            host(self).push_screen(StandingsScreen(ev.id))
            return
        self.enter(ev.id)

    def enter(self, event: int, code: str | None = None) -> None:
        app = host(self)
        try:
            entered = app.registry.events.enter(app.member, event, code)
        except RoomError as exc:
            self.refused(exc)
            return
        from .table import TableScreen
        speech = app.speech
        notice = speech._("Board {board} of event {event}.").format(board=entered.board,
                                                                    event=entered.event)
        self.status = None
        if app.member.table is not None:
            app.push_screen(TableScreen(notice=notice))
        entered.go()

    def action_standings(self) -> None:
        chosen = self.selected()
        if chosen is not None:
            host(self).push_screen(StandingsScreen(chosen[0].id))

    def action_code(self) -> None:
        def done(event: Any) -> None:
            if event is not None:
                self.paint()
                self.cursor = next((i for i, (e, _r) in enumerate(self.rows)
                                    if e.id == event.id), 0)
                self.show_rows()
        host(self).push_screen(EventCodeScreen(), done)

    def action_new(self) -> None:
        def done(made: EventRow | None) -> None:
            if made is None:
                return
            speech = host(self).speech
            said = speech._("Event {event} is open until {when} UTC.").format(
                event=made.id, when=time.strftime("%m-%d %H:%M", time.gmtime(made.closes)))
            if made.code:
                said += " " + speech._("Its code: {code}").format(
                    code=made.code[:4] + "-" + made.code[4:])
            self.status = Text(" " + said, style="bold")
            self.paint()
        host(self).push_screen(CreateEventScreen(), done)


class EventCodeScreen(JoinCodeScreen):
    """A private event's code; dismissed with the event once the code is right."""

    TITLE_WORDS = (N_("Find a private event"), N_("Type the code its maker gave you"))

    async def find(self, member: Member, code: str) -> Any:
        return host(self).registry.events.named(member, code=code)


class StandingsScreen(RecordScreen):
    """An event's standings; a board chosen below them opens its comparison."""

    BINDINGS = [
        *board_keys("standings"),
        *arrows("standings", "move", 100),
        Binding("enter", "compare", show=False, id="standings.compare"),
    ]
    KEYS = STANDINGS_KEYS
    BLOCK_ID = "standings-text"

    def __init__(self, event: int, notice: str | None = None) -> None:
        super().__init__()
        self.event = event
        self.board = 1
        self.first = 0
        self.page = STANDING_ROWS       # the rows shown at once (fewer on a phone)
        self.notice = notice
        self.ev: EventRow | None = None
        self.rows: list[Standing] = []
        self.error: str | None = None

    def paint(self) -> None:
        app = host(self)
        speech = app.speech
        events = app.registry.events
        try:
            self.ev, self.rows = events.standings(app.member, self.event)
        except RoomError as exc:
            self.ev, self.rows, self.error = None, [], speech.error(exc)
        name = said_name(speech, events, self.ev) if self.ev is not None else ""
        self.set_title(N_("Standings"), name)
        self.show_rows()

    def show_rows(self) -> None:
        speech = host(self).speech
        _ = speech._
        lines: list[Text] = []
        if self.notice:             # (whole, over the rows it needs)
            lines += self.fold([Text(" " + self.notice, style="bold")])
        if self.ev is None:
            self.set_block([*lines, Text(" " + (self.error or ""), style="bold red")])
            return
        ev = self.ev
        shown = bool(self.rows) and "percent" in self.rows[0]
        me = host(self).member.name.casefold()
        nw = max(6, min(24, self.width - 26))     # the name's column (narrower on a phone)
        if speech.rtl:
            lines.append(columns(speech, [(_("rank"), 8), (_("name"), 22), (_("score %"), 10),
                                          (_("boards"), 8)], self.width, style="bold underline"))
        else:
            lines.append(Text(f" {'rank':>5}  {'name':<{nw}}{'score %':>10}{'boards':>8}",
                              style="bold underline"))
        if not self.rows:
            lines.append(Text(" " + _("Nobody has finished a board yet."), style="dim"))
        tail: list[Text] = []
        if not shown:
            for part in textwrap.wrap(_("Finish every board to see the others' scores and "
                                        "each board compared (or wait until the event "
                                        "closes)."), self.width - 4):
                tail.append(Text(" " + part, style="dim"))
        tail.append(self.boards_line())
        # as many as the block holds with the boards under them (a phone: fewer)
        self.page = min(STANDING_ROWS, max(1, self.block_rows - len(lines) - len(tail)))
        if len(self.rows) > self.page:      # scrolled (↑↓, PgUp PgDn): which are shown
            self.page = max(1, self.page - 1)
            self.first = max(0, min(self.first, len(self.rows) - self.page))
            tail.insert(0, Text(" " + _("{first}–{last} of {total}").format(
                first=self.first + 1, last=self.first + self.page, total=len(self.rows)),
                style="dim"))
        self.first = max(0, min(self.first, len(self.rows) - self.page))
        for r in self.rows[self.first:self.first + self.page]:
            rank = "" if r.get("rank") is None else str(r["rank"])
            pct = f"{r['percent']:.2f}" if "percent" in r else "—"
            mine = r["name"].casefold() == me
            style = "bold reverse" if mine else ""
            if speech.rtl:
                lines.append(columns(speech, [(rank, 8), (r["name"], 22), (pct, 10),
                                              (f"{r['boards']}/{ev.boards}", 8)], self.width,
                                     style=style))
            else:
                lines.append(Text(f" {rank:>5}  {cut(r['name'], nw - 1):<{nw}}{pct:>10}"
                                  f"{r['boards']:>5}/{ev.boards:<2}", style=style))
        lines += [Text("")] * (min(STANDING_ROWS + 2, self.block_rows - len(tail)) - len(lines))
        self.set_block(lines + tail)

    def boards_line(self) -> Text:
        """The boards, the chosen one marked: ⏎ compares it."""
        assert self.ev is not None
        speech = host(self).speech
        if speech.rtl:
            # each number a part of its own, so that they read 1 2 3 … from the right
            # (laid as one run, the bidi algorithm put them out of order: "2 3 4 1")
            parts: list[Text | Shown] = [Text(" " + speech._("Boards:") + " ")]
            for k in range(1, self.ev.boards + 1):
                parts += [Text(f"{k}", style="bold reverse" if k == self.board else ""),
                          Text(" ")]
            laid = Laid(no_wrap=True, end="")
            laid.append_text(units(speech, parts, self.width))
            return laid
        t = Text(" " + speech._("Boards:") + " ")
        for k in range(1, self.ev.boards + 1):
            t.append(f"{k}", style="bold reverse" if k == self.board else "")
            t.append(" ")
        return t

    def action_board(self, delta: int) -> None:
        if self.ev is not None:
            self.board = (self.board - 1 + delta) % self.ev.boards + 1
            self.show_rows()

    def action_move(self, delta: int) -> None:
        """A row up or down (±1), or a page (±100)."""
        if abs(delta) != 1:
            delta = (1 if delta > 0 else -1) * max(1, self.page - 1)
        top = max(0, len(self.rows) - self.page)
        self.first = max(0, min(top, self.first + delta))
        self.show_rows()

    def action_compare(self) -> None:
        if self.ev is not None:
            host(self).push_screen(ComparisonScreen(self.ev.id, self.board))


class ComparisonScreen(RecordScreen):
    """One board after the event: the player's score and percentage, the field in
    their seat, what was said there, and (tab) their board beside the best one."""

    BINDINGS = [
        *board_keys("compare"),
        Binding("tab", "page", show=False, id="compare.page"),
    ]
    KEYS = COMPARE_KEYS
    BLOCK_ID = "compare-text"

    def __init__(self, event: int, board: int) -> None:
        super().__init__()
        self.event = event
        self.board = board
        self.replay = False
        self.cmp: Comparison | None = None
        self.error: str | None = None
        self.top = 0                # the first line shown where the window is too short

    def draw(self) -> None:
        self.KEYS = REPLAY_KEYS if self.replay else COMPARE_KEYS
        super().draw()

    def paint(self) -> None:
        app = host(self)
        speech = app.speech
        try:
            self.cmp = app.registry.events.comparison(app.member, self.event, self.board)
            self.error = None
        except RoomError as exc:
            self.cmp, self.error = None, speech.error(exc)
        if self.cmp is None:
            self.set_title(N_("Board"), str(self.board))
            self.set_block([Text(""), Text(" " + (self.error or ""), style="bold red")])
            return
        ev = self.cmp.event
        self.set_title(N_("Board"), speech._("{n} of {total} · {name}").format(
            n=self.board, total=ev.boards,
            name=said_name(speech, app.registry.events, ev)))
        self.show_page(self.fold(self.replay_lines() if self.replay else self.field_lines()))

    def show_page(self, lines: list[Text]) -> None:
        """``lines``, or where the window does not hold them all (a phone) a page of
        them from ``top``, the last row saying which; the keys then say ↑↓ scrolls
        (a tap on ↑ or ↓ too; PgUp, PgDn a page, the wheel three lines): the record
        screens' ``set_block``."""
        self.set_block(lines)

    def row(self, cells: list[tuple[str, int, bool]], style: str = "") -> Text:
        """One row of cells (text, width, right-aligned), in reading order: in Arabic
        each cell shaped on its own from the right (a number stays whole)."""
        speech = host(self).speech
        if speech.rtl:
            return columns(speech, [(text, w) for text, w, _right in cells],
                           self.width, style=style)
        return Text(" " + "".join(cut(text, w - 1).rjust(w - 1) + " " if right
                                  else pad(text, w) for text, w, right in cells).rstrip(),
                    style=style)

    def field_lines(self) -> list[Text]:
        cmp = self.cmp
        assert cmp is not None
        speech = host(self).speech
        _ = speech._
        look = host(self).look
        lines: list[Text] = []
        mine = cmp.mine
        narrow = self.width < W         # a phone: what a row holds at 80 columns, in two
        if mine is not None:
            res = mine.result
            yours = [(_("Your score"), 16, False), (signed(res.score), 6, True)]
            points = [(f"{mine.percent:.2f} %", 10, True),
                      (_("of the matchpoints"), 22, False)]
            side = ([(_("your side"), 12, False), (signed(res.side), 6, True)]
                    if res.side is not None else [])
            if narrow:
                lines.append(self.row(yours, style="bold"))
                lines.append(self.row([("", 2, False), *points], style="bold"))
                if side:
                    lines.append(self.row(side, style="bold"))
            else:
                lines.append(self.row(yours + points + side, style="bold"))
            lines.append(self.row([(self.bid_words(res.role, res.declared, res.call), 30,
                                    False),
                                   (_("made") if res.made else _("failed"), 10,
                                    False)], style="dim"))
        else:
            lines.append(Text(" " + _("You did not play this board."), style="dim"))
        lines.append(Text(""))
        lines.append(Text(" " + _("The field in your seat: scores, and how many had each"),
                          style="bold underline"))
        top = max((n for _s, n in cmp.scores), default=1)
        for score, n in cmp.scores[:4]:
            size = max(1, round(12 * n / top))
            bar = ("█" if look.unicode else "#") * size
            own = mine is not None and mine.result.score == score
            lines.append(self.row([("", 2, False), (signed(score), 6, True), (bar, 14, False),
                                   (str(n), 4, True),
                                   # (pointing at the row from the word: mirrored in Arabic)
                                   (("→ " if speech.rtl else "← ") + _("you") if own else "",
                                    10, False)],
                                  style="bold" if own else ""))
        if len(cmp.scores) > 4:
            lines.append(Text("   " + _("… and {n} other scores").format(
                n=len(cmp.scores) - 4), style="dim"))
        lines.append(Text(""))
        lines.append(Text(" " + _("Said most in your seat"), style="bold underline"))
        for (role, n, call), said, made in cmp.bids:
            words = self.bid_words(role, n, call)
            counts = [(speech.ngettext("{n} player", "{n} players", said).format(n=said), 14,
                       False), (_("made by {n}").format(n=made), 16, False)]
            if narrow:
                lines.append(self.row([("", 2, False), (words, self.width - 3, False)]))
                lines.append(self.row([("", 4, False), *counts], style="dim"))
            else:
                lines.append(self.row([("", 2, False), (words, 28, False), *counts]))
        lines.append(Text(""))
        nw = min(30, self.width - 17)
        lines.append(self.row([(_("Results on this board"), nw, False), (_("score"), 8, True),
                               ("%", 8, True)], style="bold underline"))
        me = host(self).member.name.casefold()
        for r in cmp.results[:4]:
            lines.append(self.row([("  " + r["name"], nw, False), (signed(r["score"]), 8, True),
                                   (f"{r['percent']:.2f}", 8, True)],
                                  style="bold" if r["name"].casefold() == me else ""))
        if len(cmp.results) > 4:
            lines.append(Text("   " + _("… and {n} others").format(n=len(cmp.results) - 4),
                              style="dim"))
        return lines

    def bid_words(self, role: str, n: int, call: str | None) -> str:
        """What a seat said (its role, its number and a caller's call) in words."""
        speech = host(self).speech
        if role == "dash":
            return speech._(ROLE_WORDS["dash"])
        if role == "caller":
            call = call or ""
            shown = call[:-2] + host(self).look.suit("NT") if call.endswith("NT") else \
                call[:-1] + host(self).look.suit(call[-1:]) if call else ""
            return speech._(ROLE_WORDS["caller"]).format(call=shown)
        words = speech._(ROLE_WORDS.get(role, ROLE_WORDS[""]))
        return f"{words} {n}"

    def replay_lines(self) -> list[Text]:
        """The player's board beside the best of the others' in their seat, trick by
        trick (their own cards marked *)."""
        cmp = self.cmp
        assert cmp is not None
        speech = host(self).speech
        _ = speech._
        left = self.board_rows(cmp.my_record, _("Yours"), cmp.seat)
        if cmp.best_record is not None and cmp.best_record != cmp.my_record:
            best = _("Best of the others: {name}").format(name=cmp.best_name or "—")
            right = self.board_rows(cmp.best_record, best, cmp.seat)
        else:
            # nobody else has played it in this seat (the room's best is one's own)
            right = [[(_("No one else has played this board yet."), 39, False)]]
        if self.width < 80:
            # a phone: one board under the other (each is 39 cells wide), scrolled
            out: list[Text] = []
            for column in (left, right):
                if out:
                    out.append(Text(""))
                out += [self.row(cells, style="bold underline" if i == 0 else "")
                        for i, cells in enumerate(column)]
            return out
        blank: list[tuple[str, int, bool]] = [("", 39, False)]
        rows = max(len(left), len(right))
        left += [blank] * (rows - len(left))
        right += [blank] * (rows - len(right))
        return [self.row([*a, ("", 1, False), *b], style="bold underline" if i == 0 else "")
                for i, (a, b) in enumerate(zip(left, right, strict=True))][:21]

    def board_rows(self, record: MatchRecord | None, head: str, seat: int
                   ) -> list[list[tuple[str, int, bool]]]:
        """One board's column (39 cells wide), row by row, as cells: its head and
        score, what each seat said and took, then each trick and who took it."""
        speech = host(self).speech
        _ = speech._
        look = host(self).look
        none = [[(head, 39, False)], [(_("(no replay kept)"), 39, False)]]
        if record is None:
            return none
        try:
            match = replay(record)
        except Exception:
            return none
        rec = next((r for r in match.history if not r.get("void")), None)
        if rec is None:
            return none[:1]
        decl = rec["declarations"]
        names = [_("you") if s == seat else BOT_NAMES[s] for s in range(4)]
        out = [[(head, 31, False), (signed(rec["scores"][seat]), 8, True)],
               [(_("said"), 8, False),
                (" ".join(f"{decl[s]}" + ("*" if s == seat else "") for s in range(4)), 12,
                 False),
                (_("took"), 8, False),
                (" ".join(str(n) for n in rec["tricks_taken"]), 11, False)]]
        for i, trick in enumerate(rec["tricks"], start=1):
            cards = " ".join(look.card_str(c["card"]) + ("*" if c["seat"] == seat else "")
                             for c in trick["cards"])
            if speech.rtl:
                # the arrow a cell of its own, pointing on in reading order from the
                # cards to who took them whatever script the name is in ("أنت", "Bot-2")
                out.append([(f"{i:>2}.", 4, False), (cards, 24, False), ("←", 2, False),
                            (names[trick["winner"]], 9, False)])
            else:
                out.append([(f"{i:>2}.", 4, False), (cards, 24, False),
                            ("→ " + names[trick["winner"]], 11, False)])
        return out

    def action_board(self, delta: int) -> None:
        cmp = self.cmp
        boards = cmp.event.boards if cmp is not None else max(self.board, 1)
        self.board = (self.board - 1 + delta) % boards + 1
        self.top = 0
        self.paint()

    def action_page(self) -> None:
        self.replay = not self.replay
        self.top = 0
        self.draw()


class CreateEventScreen(DialogScreen[EventRow]):
    """Make an event for friends: game, boards, hours open, public or by code. (The
    dialogs' frame: too small a window says so, as the other dialogs do.)"""

    BINDINGS = form_keys("new_event")
    FIELDS = ("game", "boards", "hours", "private")
    LABELS = {"game": N_("Game"), "boards": N_("Boards"), "hours": N_("Open for"),
              "private": N_("Visibility")}
    KEYS = [("↑↓", N_("field")), ("←→", N_("change")), ("enter", N_("create")),
            ("esc", N_("back"))]

    def __init__(self) -> None:
        super().__init__()
        self.field = 0
        self.values = {"game": 0, "boards": 8 - BOARDS[0], "hours": 5, "private": 1}

    def parts(self) -> ComposeResult:
        yield Lines(None, id="new-event-form")
        yield Lines(id="new-event-status")

    def options(self, field: str) -> list[Any]:
        from engine.room import GAMES
        if field == "game":
            return list(GAMES)
        if field == "boards":
            return list(range(BOARDS[0], BOARDS[1] + 1))
        if field == "hours":
            return [h for h in HOURS_CHOICES if HOURS[0] <= h <= HOURS[1]]
        return [False, True]

    def value(self, field: str) -> Any:
        opts = self.options(field)
        return opts[self.values[field] % len(opts)]

    def label(self, field: str, value: Any) -> str:
        speech = host(self).speech
        if field == "game":
            return game_title(speech, value)
        if field == "boards":
            return speech.ngettext("{n} board", "{n} boards", value).format(n=value)
        if field == "hours":
            return speech.ngettext("{n} hour", "{n} hours", value).format(n=value)
        return speech._("private (by code)") if value else speech._("public")

    def paint(self) -> None:
        speech = self.speech
        rtl = speech.rtl
        lines: list[Text | str] = [Text(" " + speech._("New event"), style="bold"), ""]
        for i, f in enumerate(self.FIELDS):
            t = Text("  ")
            t.append(pad(speech._(self.LABELS[f]), 18 if rtl else 12) + " ",
                     style="bold" if i == self.field else "")
            label = self.label(f, self.value(f))
            t.append(f"▶ {label} ◀" if rtl else f"◀ {label} ▶",
                     style="reverse" if i == self.field else "")
            lines.append(t)
        lines.append("")
        width = self.inside
        for part in textwrap.wrap(speech._("Everyone who enters plays the same deals, each "
                                           "with computer players; each board is compared "
                                           "with those who held the same cards."),
                                  width - 4):
            lines.append(Text("  " + part, style="dim"))
        self.set_block("new-event-form", lines)

    def action_field(self, d: int) -> None:
        self.field = (self.field + d) % len(self.FIELDS)
        self.draw()

    def action_value(self, d: int) -> None:
        f = self.FIELDS[self.field]
        self.values[f] = (self.values[f] + d) % len(self.options(f))
        self.draw()

    def action_create(self) -> None:
        app = host(self)
        try:
            made = app.registry.events.create(app.member, self.value("game"),
                                              self.value("boards"), self.value("hours"),
                                              self.value("private"))
        except RoomError as exc:
            self.refuse("new-event-status", app.speech.error(exc), self.inside - 4)
            return
        self.dismiss(made)
