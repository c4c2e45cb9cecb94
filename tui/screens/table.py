"""The table: score panel, trick, phase controls, hand, chat; keyboard first.

Everything shown is derived from the engine's ``view(seat)`` and its
``legal`` list, so the same screen plays all three games: the screen never
decides what is legal, it dims what the engine did not list.

The screen holds its state (``TableState``), turns keys into actions through
the one key table (``table_keys``: a turn's own keys and taps are
``table_actions.TurnKeys``, the others ``ScreenKeys`` below) and hands the lines
drawn by the pure ``table_draw`` (its render units) to its ``Board``: one widget drawing a list of lines, no
containers and no layout per move; the board repaints only the cells that
changed (a card played by someone else costs a few dozen bytes).  A click is
resolved through the card positions the same drawing returned.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Input

from engine.catalogue import terms
from engine.room import Member, RoomError, Said, Table
from engine.room.events import TableChange
from engine.room.stats import STATS

from ..host import Hosted, host
from ..i18n import N_
from ..textual_compat import ShapedInput, run_as_app
from ..widgets.board import Board
from . import table_draw as draw
from .sizes import WIDE, layout
from .table_actions import Chooser, TurnKeys
from .table_keys import KeyContext, footer, resolve
from .table_layout import draw_screen
from .table_state import (
    Action,
    TableFacts,
    TableState,
    TrickAnim,
    Turn,
    View,
)
from .table_wide import picture_x

if TYPE_CHECKING:
    from engine.bots.review import Hint

    from ..host import Host

TRICK_HOLD = 0.7     # the finished trick stays, then moves to the winner
NOTICE_SECONDS = 8.0
CHAT_BOX_ROWS = 2      # the chat box and the margin under it (TableScreen #chat-input)
CHAT_PROMPT = N_("say something, Enter sends, Esc cancels")
WIDE_CHAT = 12         # the chat's lines the wide layout shows beside the table


def table_facts(change: TableChange, member: Member) -> TableFacts:
    """What the table screen shows, for ``member``, as plain data: what everyone at
    the table is shown (worked out once for them all: ``change.facts``) and what is
    ``member``'s own (their seat, chat, wait for a seat, whether they may fill)."""
    shown = change.facts
    return TableFacts(
        id=shown.id, game=shown.game, title=shown.title, length=shown.length,
        seats=shown.seats, seat=member.seat, code_label=shown.code_label,
        seconds_left=change.table.seconds_left(), deadline_seat=shown.deadline_seat,
        events=shown.events, chat=change.chat_for(member),
        request=change.request_for(member), points=shown.points,
        may_fill=change.may_fill(member), host=shown.host, board=shown.board,
        practice=change.table.practice)


def position(v: View | None) -> tuple[Any, ...]:
    """Where a match is, as far as a decision goes: it changes with every action (a
    hint is for one position; ``Hints.drop``)."""
    if v is None:
        return ()
    return (v.get("round"), v.get("phase"), v.get("to_act"), len(v.get("history") or []),
            len(v.get("tricks") or []), len(v.get("trick") or []), len(v.get("hand") or []),
            repr(v.get("auction")), repr(v.get("declarations")),
            repr(v.get("dash_players")), repr(v.get("call")))


ScreenHandler = Callable[["ScreenKeys", str, str, KeyContext], None]


class TableScreen(Hosted, Screen[None]):

    AUTO_FOCUS = ""
    # Its key handling never waits (``on_key`` is plain): a key may be handled in the
    # driver's task as soon as it is read (``Host.key_now``), ~10 % of a move's CPU.
    KEYS_AT_ONCE = True
    DEFAULT_CSS = """
    TableScreen { align: left top; }
    TableScreen #chat-input { dock: bottom; margin-bottom: 1; width: 80; border: none;
                              height: 1; padding: 0 1; display: none; }
    """

    def __init__(self, notice: str | None = None) -> None:
        super().__init__()
        # Where the person landed ("you sit in seat 2", "you are watching"), shown a while.
        self.state = TableState(
            notice=notice, notice_until=time.monotonic() + NOTICE_SECONDS if notice else 0.0)
        self.view: View | None = None
        self._phase_key: tuple[Any, ...] | None = None
        # The position a hint was asked at (``position``) and its notice (None: none
        # shown or on its way): the hint goes once the decision it was for has passed.
        # The position a refusal was said at: it goes once the position changes.
        self._message_at: tuple[Any, ...] | None = None
        self._countdown: Any = None           # the 1 s timer while a turn timer runs
        self._seen: tuple[Any, int] = (None, 0)   # (round, finished tricks) last drawn
        self._cache = draw.DrawCache()
        self._timed_at: float | None = None     # the accepted action last timed to us
        self._board: Board | None = None        # found once, not queried per frame
        self._acted = False                     # the key being handled made a move
        # The version shown when our last move was accepted, until the frame showing it
        # (its echo: the rows it changes first, ``Placed.focus``) is drawn.
        self._echo_from: int | None = None
        self._hits: tuple[draw.Hit, ...] = ()     # where the last frame drew cards and keys
        self._chat_x = 0                          # the chat box's column (the wide layout)
        self._compact = False                   # the last frame was the compact layout
        self.trick_hold = TrickHold(self)
        self.hints = Hints(self)
        self.screen_keys = ScreenKeys(self)
        self.rendered_version = -1
        self.change: TableChange | None = None   # the last change of the table shown
        # What a turn's keys and taps choose and do (``table_actions``).
        self.chooser = Chooser(self.state, self.turn)
        self.turn_keys = TurnKeys(self, self.chooser)

    # ------------------------------------------------------------- compose
    def compose(self) -> ComposeResult:
        yield Board(id="board")
        chat = ShapedInput(id="chat-input", max_length=200, placeholder=self.chat_prompt())
        chat.cursor_blink = False
        yield chat

    def chat_prompt(self) -> str:
        speech = host(self).speech
        return speech.show(speech._(CHAT_PROMPT))

    def on_mount(self) -> None:
        from .. import settings
        settings.load(host(self))
        if self.state.notice:
            self.set_timer(NOTICE_SECONDS + 0.05, self.draw)
        self.redraw()

    def redraw(self) -> None:
        """Show the table as it is now (not a change it told us of)."""
        table = self.table
        if table is None:
            self._left()
        else:
            self.table_changed(TableChange(table, "state"))

    def on_board_resized(self, message: Board.Resized) -> None:
        self.draw()

    # ---------------------------------------------------------------- state
    def _(self, message: str) -> str:
        """``message`` in the player's language."""
        return host(self).speech._(message)

    @property
    def table(self) -> Table | None:
        return host(self).member.table

    @property
    def seat(self) -> int | None:
        return host(self).member.seat

    def turn(self) -> Turn:
        return self._cache.turn(self.view, self.seat)

    def legal(self, kind: str) -> list[Action]:
        return self.turn().of(kind)

    def key_context(self) -> KeyContext:
        change, table = self.change, self.table
        may_fill = change is not None and change.may_fill(host(self).member)
        # The board from the change's shared facts (worked out once a change), not a
        # whole TableFacts made again at every key press.
        board = change.facts.board if change is not None and change.table is table else None
        return KeyContext.of(self.view, self.turn(), self.state.rank, may_fill, board,
                             self._compact, practice=table is not None and table.practice,
                             hands=table is not None and terms(table.game).hands,
                             seated=self.seat is not None)

    def pname(self, seat: int | None, you: bool = True) -> str:
        facts = self.facts()
        return facts.name(seat, you) if facts is not None else "?"

    def facts(self) -> TableFacts | None:
        change = self.change
        if change is None or change.table is not self.table:
            return None
        return table_facts(change, host(self).member)

    def scene(self) -> draw.Scene:
        """The drawing's arguments now (the pieces below are drawn from it)."""
        facts = self.facts()
        assert facts is not None, "the table screen outlived its table"
        return draw.Scene(self.view, self.state, facts, self.look, time.monotonic(),
                          self._cache, host(self).speech)

    # pieces of the picture, as drawn now (the tests read them)
    def phase_lines(self) -> list[Text]:
        return draw.phase_lines(self.scene())

    def middle_lines(self) -> list[Text]:
        return draw.middle_lines(self.scene())

    def result_lines(self) -> list[Text]:
        return draw.result_lines(self.scene())

    def hand_lines(self) -> list[Text]:
        return draw.hand_rows(self.scene())[0]

    def key_list(self) -> list[tuple[str, str]]:
        """The keys that do something now, as the footer shows them."""
        return list(footer(self.key_context()))

    # -------------------------------------------------------------- updates
    def _left(self) -> None:
        """The table is gone (closed, or we are no longer at it): back to the lobby."""
        if host(self).screen is self:
            host(self).pop_screen()
            lobby = host(self).screen
            set_status = getattr(lobby, "set_status", None)
            if set_status is not None:
                set_status(host(self).speech._("The table was closed."))

    def table_changed(self, change: TableChange) -> None:
        """The table changed: drawn from ``change`` (what it carries for us)."""
        if not self.is_mounted:
            return          # on_mount draws the state of the moment
        table, what = self.table, change.what
        if table is None or what == "closed":
            self._left()
            return
        if change.table is not table:
            return          # a table we have left since
        self.change = change
        if what == "chat":
            self.draw()
            return
        if (self.view is not None and change.version == self.rendered_version
                and what == "state" and self.view.get("seat") == self.seat):
            return          # already drawn (from the seat we hold now)
        self.view = change.view_for(host(self).member)
        self.rendered_version = change.version
        key = None
        v = self.view
        state = self.state
        if v is not None:
            key = (v.get("round"), v.get("phase"), len(v.get("tricks") or []),
                   len(v.get("trick") or []), v.get("to_act"))
            seen = (v.get("round"), len(v.get("tricks") or []))
            if (v.get("phase") == "play" and not v.get("trick") and seen[0] == self._seen[0]
                    and seen[1] == self._seen[1] + 1):
                last = v["tricks"][-1]
                state.anim = TrickAnim(tuple(last["cards"]), last["winner"])
                self.trick_hold.start()
            elif v.get("trick") or seen != self._seen:
                state.anim = None
            self._seen = seen
        if key != self._phase_key:
            self._phase_key = key
            self.chooser.reset(v)
        if self.hints.at is not None and position(v) != self.hints.at:
            self.hints.drop()
        if state.message is not None and position(v) != self._message_at:
            state.message = None        # a refusal no longer true (the turn came)
        self.draw()
        # act → view, once per accepted action this screen shows (issue 12's metrics)
        at = table.accepted_at
        if at is not None and at != self._timed_at:
            self._timed_at = at
            STATS.act_to_view.observe(time.monotonic() - at)

    def on_unmount(self) -> None:
        self.trick_hold.drop()

    # ------------------------------------------------------------- drawing
    def draw(self) -> None:
        board = self._board
        if board is None or not board.is_attached:
            try:
                board = self._board = self.query_one(Board)
            except NoMatches:       # a table update racing the app's shutdown
                return
        width, height = board.area.size
        if width <= 0 or height <= 0:
            return
        facts = self.facts()
        if facts is None:
            return              # the table closed: table_changed leaves the screen
        # The open chat box takes two rows under the board: at 80×24 the table is drawn
        # as for 24, cut there; under that the compact layout is drawn for the rows left.
        # (the chat box is looked for only when the board is short: a query a frame)
        chat_rows = CHAT_BOX_ROWS if height < draw.H and self._chatting() else 0
        # The wide layout shows the chat beside the table: its last lines.
        change = self.change
        wide = layout(width, height) == WIDE
        chat = (change.chat_for(host(self).member, WIDE_CHAT)
                if change is not None and wide else ())
        # The chat box goes under the picture, which a wide Arabic board draws at the
        # right of the panel (a query only when the place changes).
        chat_x = picture_x(width, host(self).speech.rtl) if wide else 0
        if chat_x != self._chat_x:
            self._chat_x = chat_x
            self.query_one("#chat-input", Input).styles.margin = (0, 0, 1, chat_x)
        placed = draw_screen(self.view, self.state, facts, self.look, width, height,
                             time.monotonic(), self._cache, host(self).speech,
                             chat_rows=chat_rows, chat=chat)
        first: tuple[int, ...] = ()
        if self._echo_from is not None and self._echo_from != self.rendered_version:
            first = placed.focus                # our own move's echo: its rows first
            self._echo_from = None
        board.set_lines(placed.lines, at=placed.at or [placed.x] * len(placed.lines),
                        first=first)
        self._hits = placed.hits
        self._compact = placed.compact
        if not placed.small:
            self.update_countdown(draw=False)

    def _chatting(self) -> bool:
        try:
            return bool(self.query_one("#chat-input", Input).display)
        except NoMatches:
            return False

    def notice(self, text: str) -> None:
        """The table's word on our request for a computer player's seat (SeatNotice)."""
        self.state.notice = text
        self.state.notice_until = time.monotonic() + NOTICE_SECONDS
        if self.is_mounted:
            self.set_timer(NOTICE_SECONDS + 0.05, self.draw)
            self.draw()

    def update_countdown(self, draw: bool = True) -> None:
        table = self.table
        left = table.seconds_left() if table is not None else None
        if left is not None:
            if self._countdown is None:
                self._countdown = self.set_interval(1.0, self.update_countdown)
        elif self._countdown is not None:
            self._countdown.stop()
            self._countdown = None
        if draw:
            self.draw()

    def flash(self, text: str) -> None:
        """A refusal, said (``text`` in the player's language) for a few seconds."""
        self.state.message = Text(" " + text, style=self.look.style("bold red"))
        self.state.message_until = time.monotonic() + 4
        self._message_at = position(self.view)
        self.set_timer(4.05, self.draw)
        self.draw()

    # -------------------------------------------------------------- actions
    def act(self, action: Action) -> None:
        table = self.table
        if table is None:
            return
        self.state.tapped = None        # a tap's choice lasts until a move is made
        try:
            table.act(host(self).member, action)
        except RoomError as exc:
            self.flash(host(self).speech.error(exc))
        else:
            self._acted = True
            self._echo_from = self.rendered_version

    def why_not(self, action: Action) -> str | None:
        """The rules' reason ``action`` would be refused (in this language), asked of the
        table without acting; None if it would be taken or the table cannot tell here."""
        table = self.table
        if table is None:
            return None
        try:
            table.act(host(self).member, action, only_check=True)
        except RoomError as exc:
            reason = exc.params.get("reason")       # the rules' words, without the action
            said = RoomError(reason.template, **reason.params) if isinstance(reason, Said) else exc
            return host(self).speech.error(said)
        return None

    # ------------------------------------------------------------------ keys
    def on_key(self, event: events.Key) -> None:
        chat = self.query_one("#chat-input", Input)
        if chat.has_focus:
            if event.key == "escape":
                chat.value = ""
                chat.display = False
                self.query_one(Board).direct = True
                event.stop()
            return
        if self.press(event.key, event.character or ""):
            event.stop()
            event.prevent_default()

    def press(self, key: str, char: str, run: Callable[[], bool] | None = None) -> bool:
        """What ``key`` (typed as ``char``) does now, or ``run()`` (a tap's choice), on
        the view as it is, then the frame it leaves; False if it does nothing."""
        table = self.table
        if table is not None and table.version != self.rendered_version:
            self.redraw()   # never act on a stale view
        self._acted = False
        handled = run() if run is not None else self.route_key(key, char)
        if handled:
            table = self.table
            if table is not None and host(self).screen is self:
                if table.version != self.rendered_version:
                    self.redraw()   # our own move, shown: draw it
                elif not self._acted:
                    self.draw()
                # else: our move is accepted but not stored yet; its frame comes with
                # the change (drawing now would show the old view without the choice)
        return handled

    def route_key(self, key: str, char: str) -> bool:
        """Run what ``key`` does now (``table_keys``); False if it does nothing."""
        ctx = self.key_context()
        entry = resolve(ctx, key, char)
        if entry is None:
            return False
        if not self.turn_keys.run(entry.action, key, char, ctx):
            self.screen_keys.HANDLERS[entry.action](self.screen_keys, key, char, ctx)
        return True

    def new_board(self, go: Callable[[], None], notice: str) -> None:
        """We sit at another board's table now: drawn from scratch, then dealt."""
        self.view = None
        self.change = None
        self.rendered_version = -1
        self._phase_key = None
        self._seen = (None, 0)
        self.state.anim = None
        self.notice(notice)
        go()
        self.redraw()

    # ----------------------------------------------------------------- mouse
    def on_click(self, event: events.Click) -> None:
        """A tap (issue 26) does what a key does: on a card that can be played it
        chooses it and a second tap plays it (on one that cannot, it says why); on a
        number or a suit of the bid, call or declaration it chooses it; on a key's box
        (the footer, the phase's keys) it presses the key."""
        board = self.query_one(Board)
        x = event.screen_x - board.region.x
        y = event.screen_y - board.region.y
        hit = next((h for h in self._hits if h.contains(x, y)), None)
        if hit is None:
            return
        event.stop()
        if hit.card:
            self.press("", "", lambda: self.turn_keys.tap_card(hit.card))
        elif hit.tap and hit.tap[0] == "key":
            self.press(hit.tap[1], hit.tap[2])
        elif hit.tap and hit.tap[0] == "number":
            self.press("", "", lambda: self.turn_keys.tap_number(int(hit.tap[1])))
        elif hit.tap and hit.tap[0] == "suit":
            self.press("", "", lambda: self.turn_keys.tap_suit(hit.tap[1]))

    # ------------------------------------------------------------------ chat
    def on_input_submitted(self, event: Input.Submitted) -> None:
        chat = self.query_one("#chat-input", Input)
        text = event.value
        chat.value = ""
        chat.display = False
        self.query_one(Board).direct = True
        self.set_focus(None)
        if text.strip().startswith("/"):
            # A command (/ignore, /report; an operator's /kick …), not a chat line. (Its
            # answer is drawn again once the board has its rows back: Board.Resized.)
            try:
                self.notice(host(self).registry.moderator.command(host(self).member, text.strip()))
            except RoomError as exc:
                self.flash(host(self).speech.error(exc))
        elif self.table is not None and text.strip():
            try:
                self.table.say(host(self).member, text)
            except RoomError as exc:
                self.flash(host(self).speech.error(exc))

    # ----------------------------------------------------------------- leave
    def leave(self) -> None:
        table = self.table
        if table is None:
            host(self).pop_screen()
            return
        if table.status == "playing" and self.seat is not None and table.event is None:
            from .confirm import ConfirmScreen
            if table.leaving_ends_match() and table.practice:
                # practice counts for nothing: no loss to warn of
                q = self._("Leave the practice match? In Estimation leaving ends it for "
                           "everyone (practice is not recorded).  y / n")
            elif table.leaving_ends_match():
                q = self._("Leave the match? In Estimation leaving ends the match for everyone "
                           "and counts as your loss.  y / n")
            else:
                q = self._("Leave the match? A computer player takes your seat.  y / n")

            def done(yes: bool | None) -> None:
                if yes:
                    self.do_leave()
            host(self).push_screen(ConfirmScreen(q), done)
        else:
            self.do_leave()

    def do_leave(self) -> None:
        table = self.table
        if table is not None:
            table.detach(host(self).member, keep_seat=False)
        if self._countdown is not None:
            self._countdown.stop()
            self._countdown = None
        if host(self).screen is self:
            host(self).pop_screen()


class TrickHold:
    """The finished trick stays ``TRICK_HOLD``, then moves to its winner.  A loop
    timer run in the app's context (``run_as_app``), not a Textual timer: that is
    a task of its own, ~57 µs to start and run where this is ~3, once a trick at
    every screen of the table."""

    def __init__(self, ts: TableScreen) -> None:
        self.ts = ts
        self.handle: asyncio.TimerHandle | None = None

    def start(self) -> None:
        self.drop()             # the last trick's, if still waiting
        self.handle = asyncio.get_running_loop().call_later(TRICK_HOLD, self.held, self.ts.app)

    def held(self, app: App[Any]) -> None:
        self.handle = None
        # This runs from the loop, outside the app's context: the app is passed in.
        if not cast("Host", app).ended and app.is_running and self.ts.is_attached:
            run_as_app(app, self.move)

    def drop(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def move(self) -> None:
        ts = self.ts
        anim = ts.state.anim
        if anim is not None and not anim.moved:
            ts.state.anim = dataclasses.replace(anim, moved=True)
            ts.draw()


class Hints:
    """A hint asked for (``h``): said while its decision is pending. ``at`` is the
    position (``position``) it was asked at, ``notice`` what it says (None: none shown
    or on its way); it goes once the decision it was for has passed."""

    def __init__(self, ts: TableScreen) -> None:
        self.ts = ts
        self.at: tuple[Any, ...] | None = None
        self.notice: str | None = None

    def ask(self) -> None:
        from engine.room import reviews
        ts = self.ts
        table = ts.table
        if table is None:
            return
        if self.at is not None and self.at == position(ts.view):
            return      # this decision's hint is shown or on its way: a held key asks once
        try:
            fut = reviews.hint_for(table, host(ts).member)
        except RoomError as exc:        # not now, or busy: said with when to ask again
            ts.flash(host(ts).speech.error(exc))
            return
        at = self.at = position(ts.view)
        self.show(ts._("Thinking…"))

        def done(f: asyncio.Future[Hint]) -> None:
            if f.cancelled() or self.at != at:
                return          # the decision it was for has passed (or another asked)
            if f.exception() is not None:
                self.show(ts._("No hint now."))
                return
            self.show(self.line(f.result()))
        fut.add_done_callback(done)

    def show(self, text: str) -> None:
        """A hint (or its "Thinking…") stays while its decision is pending: it goes
        with the position (``drop``), not after the notices' seconds."""
        self.notice = text
        self.ts.notice(text)
        self.ts.state.notice_until = float("inf")

    def drop(self) -> None:
        """The decision a hint was for has passed (the turn moved on, the phase
        changed): its notice goes, and one still on its way is not shown."""
        state = self.ts.state
        if self.notice is not None and state.notice == self.notice:
            state.notice = None
        self.at = self.notice = None

    def line(self, h: Hint) -> str:
        """A hint in one line: the choice, its expected points, the next best's."""
        _ = self.ts._
        words = self.move_words(h["action"])
        if h.get("ev") is None:
            return _("Hint: {move} (the only choice)").format(move=words)
        if h.get("void"):
            # T-13: a last declaration that leaves the four under 11 voids the hand;
            # the hint chose it (the hand is worth less played), and says why.
            words = _("{move} (the hand is then void: declarations under 11)").format(
                move=words)
        nxt = h.get("next_best")
        if nxt is None:
            return _("Hint: {move}, {ev} points expected").format(move=words,
                                                                  ev=f"{h['ev']:+.1f}")
        return _("Hint: {move}, {ev} points expected; next best {other}, {ev2}").format(
            move=words, ev=f"{h['ev']:+.1f}", other=self.move_words(nxt["action"]),
            ev2=f"{nxt['ev']:+.1f}")

    def move_words(self, action: Action) -> str:
        return draw.move_words(host(self.ts).speech, self.ts.look, action)

class ScreenKeys:
    """The key table's actions that open another screen or leave this one (help, the
    log, the score sheet, a review, a hint, the options, the chat, an event's next
    board, filling the seats), run for ``ts``; a turn's own are ``TurnKeys``."""

    def __init__(self, ts: TableScreen) -> None:
        self.ts = ts

    # one handler per action of the key table: (these keys, key, character, context)
    def _help(self, key: str, char: str, ctx: KeyContext) -> None:
        from .help import HelpScreen
        table = self.ts.table
        host(self.ts).push_screen(HelpScreen(table.game if table is not None else None))

    def _log(self, key: str, char: str, ctx: KeyContext) -> None:
        from .log import LogScreen
        host(self.ts).push_screen(LogScreen(self.ts))

    def _rounds(self, key: str, char: str, ctx: KeyContext) -> None:
        from .sheet import SheetScreen
        host(self.ts).push_screen(SheetScreen(self.ts))

    def _review(self, key: str, char: str, ctx: KeyContext) -> None:
        from engine.room import reviews

        from .review import ReviewScreen
        table, view = self.ts.table, self.ts.view
        if table is None or view is None:
            return
        if self.ts.seat is None:       # watching: the room's own words for it
            self.ts.flash(self.ts._("A review is of your own seat: sit at the table first."))
            return
        round_no = len(view["history"])
        member = host(self.ts).member
        names = [self.ts.pname(s, you=False) for s in range(4)]
        try:
            # The match this process drives, or (driven elsewhere) the store's.
            record, _mid = reviews.table_record(table)
        except RoomError as exc:
            self.ts.flash(host(self.ts).speech.error(exc))
            return
        host(self.ts).push_screen(ReviewScreen(
            record, round_no, self.ts.seat, names,
            lambda seat: reviews.table_review(table, member, round_no)))

    def _hint(self, key: str, char: str, ctx: KeyContext) -> None:
        self.ts.hints.ask()

    def _options(self, key: str, char: str, ctx: KeyContext) -> None:
        from .options import OptionsScreen

        def done(_: object = None) -> None:
            self.ts.state.anim = None
            self.ts.query_one("#chat-input", Input).placeholder = self.ts.chat_prompt()
            self.ts.draw()
        host(self.ts).push_screen(OptionsScreen(), done)

    def _chat(self, key: str, char: str, ctx: KeyContext) -> None:
        chat = self.ts.query_one("#chat-input", Input)
        self.ts.query_one(Board).direct = False
        chat.display = True
        chat.focus()

    def _leave(self, key: str, char: str, ctx: KeyContext) -> None:
        self.ts.leave()

    def _nothing(self, key: str, char: str, ctx: KeyContext) -> None:
        pass

    def _next_board(self, key: str, char: str, ctx: KeyContext) -> None:
        """An event's board is over: its score said, then the next board, or back to
        the event's results once every board is played."""
        table = self.ts.table
        if table is None:
            return
        speech = host(self.ts).speech
        try:
            over = host(self.ts).registry.events.board_over(host(self.ts).member, table)
        except RoomError as exc:
            self.ts.flash(speech.error(exc))
            return
        if over is None:
            return
        said = speech._("Board {board}: {score} points.").format(board=over.board,
                                                                  score=over.score)
        if over.next is None:
            self.close_board(said, over.event)
            return
        self.ts.new_board(over.next.go, said + " " + speech._(
            "Board {board} of event {event}.").format(board=over.next.board,
                                                       event=over.event))

    def close_board(self, said: str, event: int) -> None:
        """The entry is done: back to the event's screens, its standings open."""
        self.ts.do_leave()
        host(self.ts).open_standings(event, said)

    def _fill_seats(self, key: str, char: str, ctx: KeyContext) -> None:
        table = self.ts.table
        if table is None:
            return
        try:
            table.fill_with_bots(host(self.ts).member)     # the table says who may
        except RoomError as exc:
            self.ts.flash(host(self.ts).speech.error(exc))

    HANDLERS: dict[str, ScreenHandler] = {
        "help": _help, "log": _log, "rounds": _rounds, "options": _options, "chat": _chat,
        "leave": _leave, "nothing": _nothing, "fill_seats": _fill_seats,
        "next_board": _next_board, "review": _review, "hint": _hint,
    }
