"""One Textual App per SSH session (and per Pilot test)."""

from __future__ import annotations

import weakref
from functools import partial
from typing import TYPE_CHECKING, ClassVar

from rich.console import Console
from rich.text import Text
from textual import events
from textual.app import App
from textual.binding import Binding, BindingType
from textual.widgets import Input

from engine.room import Registry, RoomError, Said, Session, Table
from engine.room.events import TableChange

from .cards import Look
from .i18n import Speech, latin_key
from .messages import InputLimited, Kicked, LobbyChanged, SeatNotice, TableChanged
from .sentences import SEAT_YOURS, back_in_seat, say
from .textual_compat import (
    ColorSystemName,
    TeardownMixin,
    client_console,
    deliver_key,
    handling_app,
    run_as_app,
    screen_for_key_now,
)

if TYPE_CHECKING:
    from asyncssh import SSHServerProcess

    from .widgets.board import Surface


def console_for(term: str, colorterm: str) -> Console:
    """A Console that matches the *client's* terminal, not the server's."""
    term = (term or "").lower()
    colorterm = (colorterm or "").lower()
    system: ColorSystemName | None
    if colorterm in ("truecolor", "24bit"):
        system = "truecolor"
    elif "256" in term:
        system = "256"
    elif term in ("", "dumb", "unknown") or term.startswith("vt1") or term.startswith("vt2"):
        system = None
    else:
        system = "standard"
    return client_console(system, term)


class TuiMember(Session):
    """The tables' handle on one App: it only ever *posts messages*."""

    kind = "tui"

    def __init__(self, app: LammaApp, name: str, ident: str, guest: bool):
        super().__init__(name, ident, guest)
        self._app_ref = weakref.ref(app)
        self._table_pending = False
        self._lobby_pending = False
        # The newest "state" change of the member's table: a message already on its
        # way shows this one (one message pending is enough).
        self.latest: TableChange | None = None

    def _app(self) -> LammaApp | None:
        app = self._app_ref()
        if app is None or app.ended:
            return None
        return app

    def table_changed(self, change: TableChange) -> None:
        app = self._app()
        if app is None:
            return
        if change.what == "state":
            self.latest = change
            if self._table_pending:
                return  # one pending message is enough: it shows the latest
            if app.table_changed_now(change):
                return
            self._table_pending = True
        app.post_message(TableChanged(change))

    def lobby_changed(self) -> None:
        app = self._app()
        if app is None or self._lobby_pending:
            return
        self._lobby_pending = True
        app.post_message(LobbyChanged())

    def seat_granted(self, table: Table, seat: int) -> None:
        # Said in English here (this may run in another session's context); the
        # App says it in its player's language when the message arrives (sentences).
        self.notice(Said(SEAT_YOURS, seat=seat))

    def request_dropped(self, table: Table, seat: int, reason: str) -> None:
        self.notice(reason)

    def notice(self, text: str) -> None:
        app = self._app()
        if app is not None:
            app.post_message(SeatNotice(text))

    def kick(self, reason: str) -> None:
        self.closed = True
        app = self._app()
        if app is not None:
            app.post_message(Kicked(reason))


class LammaApp(TeardownMixin, App):
    CSS_PATH = "lamma.tcss"
    ENABLE_COMMAND_PALETTE = False
    AUTO_FOCUS = ""
    TITLE = "Lamma"
    # The layouts by size (tui/screens/sizes.py): under 40×20 -tiny or -flat, the
    # compact one under 80×24 (-narrow or -short), the standard one from 80×24.
    HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] | None = [
        (0, "-tiny"), (40, "-narrow"), (80, "-wide")]
    VERTICAL_BREAKPOINTS: list[tuple[int, str]] | None = [
        (0, "-flat"), (20, "-short"), (24, "-tall")]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+l", "redraw", "Redraw", show=False, id="app.redraw"),
        Binding("ctrl+c", "quit_now", "Quit", show=False, priority=True, id="app.quit_now"),
    ]

    def __init__(self, registry: Registry, name: str, ident: str | None = None,
                 guest: bool = False, term: str = "xterm-256color", colorterm: str = "",
                 driver_class=None, look: Look | None = None, language: str | None = None):
        super().__init__(driver_class=driver_class)
        # The terminal's own colours: no RGB backgrounds to repeat on every
        # segment (fewer bytes per move) and the player's palette is kept.
        self.theme = "ansi-dark"
        self.console = console_for(term, colorterm)
        self.registry = registry
        self.member = TuiMember(self, name, ident or f"guest:{name}", guest)
        colour = self.console.color_system is not None
        self.look = look or Look(unicode=True, colour=colour)
        self.exit_reason: str | None = None     # why the session ended, as shown
        self.exit_words = ""                    # ... said, in reading order (``farewell``)
        self.look_loaded = False     # the player's stored look is read once (settings.load)
        # The language the client's locale asked for (LANG/LC_*), used when the
        # player has none stored: tui.i18n.language_from_env.
        self.env_language = language
        self.speech = Speech(self.look.language or language or "en",
                             self.look.text_mode or "shaped")
        self.ssh_process: SSHServerProcess[bytes] | None = None  # set by the server before run_async

    # -------------------------------------------------------------- lifecycle
    def on_mount(self) -> None:
        from . import settings
        from .screens.lobby import LobbyScreen
        settings.load(self)
        if self.look.language is None:
            # First connection: the client's locale chooses, and it is kept.
            self.look.language = self.env_language or "en"
            if self.env_language is not None:
                settings.save(self)
        self.apply_language()
        self.push_screen(LobbyScreen())
        if self.speech.rtl and self.look.text_mode is None:
            from .screens.textmode import TextModeScreen
            self.push_screen(TextModeScreen())
        held = self.registry.held_seat(self.member.ident)
        if held is not None:
            table, seat = held
            try:
                table.sit(self.member, seat)
            except RoomError:
                return
            if table.event is not None:
                # An event's board: its screens under the table (q goes back to them).
                from .screens.events import EventsScreen
                self.push_screen(EventsScreen())
            self.open_table(back_in_seat(self.speech, table))

    def open_table(self, notice: str | None = None) -> None:
        """The table screen of the member's table; ``notice``: where they are, said
        a while on arrival (in the player's language)."""
        from .screens.table import TableScreen
        if self.member.table is not None:
            self.push_screen(TableScreen(notice=notice))

    def open_standings(self, event: int, notice: str = "") -> None:
        """An event's standings (its entry done, from the table screen)."""
        from .screens.events import StandingsScreen
        self.push_screen(StandingsScreen(event, notice=notice))

    def release(self) -> None:
        """The session ends: keep any seat (the timer moves for us)."""
        member = self.member
        self.registry.lobby.discard(member)
        try:
            self.registry.detach(member, keep_seat=True)
        except Exception:
            pass
        member.closed = True

    def apply_language(self) -> None:
        """The look's language and text mode are the speech of every screen from now."""
        self.speech = Speech(self.look.language or "en", self.look.text_mode or "shaped")
        for screen in self.screen_stack:       # every screen says it again in it
            redraw = getattr(screen, "draw", None)
            if redraw is not None and screen.is_mounted:
                redraw()

    # ------------------------------------------------------------------- keys
    async def on_event(self, event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            self._latin_twin(event)
        await super().on_event(event)

    def _latin_twin(self, event: events.Key) -> None:
        """A key of the Arabic keyboard layout does what its Latin twin on the same
        physical key does, everywhere but where text is typed (chat, codes)."""
        if not event.character:
            return
        twin = latin_key(event.character)
        focused = self.focused
        # (a table's code is Latin letters and digits: typed with either layout)
        if twin is not None and (not isinstance(focused, Input) or focused.id == "code-input"):
            event.key, event.character = twin

    async def key_now(self, event: events.Key) -> bool:
        """A key from this session's terminal handled now, in the caller's task
        (the driver's reading of the input), where its trip through the app's
        and the screen's queues changes nothing but the cost: nothing is queued
        ahead of it, nothing is focused, and the screen's key handling never
        waits (``screen_for_key_now``).  False: not handled, post it."""
        screen = screen_for_key_now(self)
        if screen is None:
            return False
        self._latin_twin(event)
        await deliver_key(self, screen, event)
        return True

    # --------------------------------------------------------------- messages
    def table_changed_now(self, change: TableChange) -> bool:
        """Show the table's new state now, not through a ``TableChanged`` message,
        where that changes nothing but the cost: the change comes from outside
        every session's handling (a move's commit, a computer player's decision,
        a timer of the room's: a loop callback of its own), and this app has
        nothing queued that its message would have waited for.  Its handler then
        runs as the message's would have run next, in this app's context, an
        exception ending this session only.  A change made inside a handler (this
        session's or another's) is posted: that handler may still be changing
        what is drawn.  (The message's trip through Textual's queue and loop was
        ~200,000 instructions a screen: 7 % of the server's instructions a move at
        a table of four, ~4 % of its CPU.)  False: not shown, post the message."""
        if (handling_app() is not None or not self.is_running or self.message_queue_size
                or not self.screen_stack):
            return False
        run_as_app(self, partial(self._table_changed, change))
        return True

    def on_table_changed(self, message: TableChanged) -> None:
        change = message.change
        if change.what == "state" and self.member.latest is not None:
            change = self.member.latest         # newer ones came while it waited
        self._table_changed(change)

    def _table_changed(self, change: TableChange) -> None:
        if change.what == "state":
            self.member._table_pending = False
            self.member.latest = None           # shown now: it holds no table any more
        if not self.screen_stack:
            return          # no screen yet, or none left (the session is ending)
        handler = getattr(self.screen, "table_changed", None)
        if handler is not None:
            handler(change)
        else:
            for s in self.screen_stack:
                h = getattr(s, "table_changed", None)
                if h is not None:
                    h(change)

    def on_seat_notice(self, message: SeatNotice) -> None:
        text = say(self.speech, message.text)
        for s in self.screen_stack:
            h = getattr(s, "notice", None)
            if h is not None:
                h(text)

    def on_input_limited(self, message: InputLimited) -> None:
        """The driver held back some input (too fast, a paste too long): the
        screen's own notice line says so, or a toast where there is none."""
        try:
            screen = self.screen
        except Exception:       # no screen (the session is ending): nobody to tell
            return
        text = message.said(self.speech)
        handler = getattr(screen, "notice", None)
        if handler is not None:
            handler(text)
        else:
            self.notify(self.speech.show(text), severity="warning", timeout=5)

    def on_lobby_changed(self, message: LobbyChanged) -> None:
        self.member._lobby_pending = False
        for s in self.screen_stack:
            h = getattr(s, "lobby_changed", None)
            if h is not None:
                h()

    def on_kicked(self, message: Kicked) -> None:
        # Written to the terminal after the screen is gone (``farewell``): said in the
        # player's language, Arabic shaped or not as the player chose.
        self.exit_words = say(self.speech, message.reason)
        self.exit_reason = self.speech.show(self.exit_words)
        self.exit()

    def farewell(self, width: int) -> str:
        """The last words to the terminal once the screen is gone (a kick's reason, the
        room restarting): after "lamma: ", wrapped at words to ``width`` columns (a
        phone's 40: never "connect a" / "gain"), each line laid out for the language
        (an Arabic one from the right, joined when shaped); "" when there are none."""
        words = self.exit_words
        if not words:
            return ""
        from .screens.table_draw import wrap
        head = "lamma: "
        room = max(20, width - len(head) - 1)
        lines = []
        for i, part in enumerate(wrap(Text(words), room, "")):
            shown = self.speech.line(part, room).plain if self.speech.rtl else \
                self.speech.show(part.plain)
            lines.append((head if i == 0 else " " * len(head)) + shown.rstrip())
        return "\r\n".join(lines) + "\r\n"

    # The session's terminal for drawing past Textual's compositor: set by the SSH
    # driver while it takes frames (``tui.widgets.board.Surface``), else None.
    surface: Surface | None = None
    # Which table version the last frame written showed (tests and the benchmark
    # wait for this before reading what a client received).
    displayed_version = -1
    frames_seen = 0

    def post_display_hook(self) -> None:
        # Textual's display of a frame (or of nothing) has just ended: if the surface
        # sent a frame since the last, it showed the top screen as it is now.
        surface = self.surface
        if surface is not None and surface.frames != self.frames_seen and self.screen_stack:
            self.frames_seen = surface.frames
            self.displayed_version = getattr(self.screen_stack[-1], "rendered_version", -1)

    # ---------------------------------------------------------------- actions
    def action_redraw(self) -> None:
        surface = self.surface
        if surface is not None:
            surface.write("\x1b[2J")       # sent with the frame that follows
        self.screen.refresh(layout=True)

    def action_quit_now(self) -> None:
        self.exit()
