"""Textual's (and Rich's) private internals, fenced in.

Lamma runs one Textual App per SSH session, many in one process, and paints
sooner than Textual's own update timer would; for both it leans on a few
private attributes of Textual and Rich.  Every such reliance lives here,
behind a small named function or mixin whose docstring says which private
it uses and why (the SSH driver's own, driver-level ones stay in
``server/driver.py``).  Everything else in ``engine/``, ``server/`` and
``tui/`` uses public API and this module only.

``tests/test_textual_compat.py`` checks that each private used here still
exists with the expected shape in the installed Textual (pinned at 8.2.8),
and that no other module touches one: after an upgrade, a failure there
names the private and the function here to update.
"""

from __future__ import annotations

import contextlib
from typing import IO, TYPE_CHECKING, Any, Literal, cast

from rich.console import Console, RenderableType
from textual import events
from textual.app import App
from textual.driver import Driver
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget

if TYPE_CHECKING:
    # The mixins are plain classes at run time (as they were before this
    # module: no extra class in Textual's DOM/CSS hierarchy); the type checker
    # sees the class they are mixed into.
    _AppBase = App[Any]
    _ScreenBase = Screen[Any]
else:
    _AppBase = object
    _ScreenBase = object

ColorSystemName = Literal["standard", "256", "truecolor", "windows"]


# ------------------------------------------------------------------ console
class _NullFile:
    """A file-like where writes go nowhere (a terminal, to whoever asks)."""

    def write(self, text: str) -> None:
        pass

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def null_console_file() -> IO[str]:
    """The file for a session's Console: Textual writes frames through the
    driver, never through the Console's file.

    Relies on no private: this is our own copy of ``textual.app._NullFile``
    (write, flush, isatty), which Textual gives its own Console.  Rich only
    writes to and flushes it; the cast is because Rich types ``file`` as
    ``IO[str]`` while three methods are all it uses."""
    return cast("IO[str]", _NullFile())


def client_console(color_system: ColorSystemName | None, environ: dict[str, str]) -> Console:
    """A Console like the one ``App.__init__`` makes, but for the *client's*
    terminal: its colour system, and ``environ`` as its environment.

    Relies on Rich's private ``Console(_environ=...)`` keyword (Textual's own
    Console is built with it too): without it the Console reads the *server
    process's* environment (``NO_COLOR``, ``COLUMNS``, ``LINES``,
    ``TTY_COMPATIBLE``...), which says nothing about the client."""
    return Console(
        color_system=color_system,
        file=null_console_file(),
        markup=True,
        highlight=False,
        emoji=False,
        legacy_windows=False,
        _environ=environ,
        force_terminal=True,
        safe_box=False,
        soft_wrap=False,
    )


# ------------------------------------------------------- process-wide patch
class _NoRedirect(contextlib.AbstractContextManager[None]):
    """Stand-in for ``contextlib.redirect_stdout``/``redirect_stderr``."""

    def __init__(self, _target: object = None) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        return None


def disable_stdio_redirect() -> None:
    """Stop every App from swapping the process-wide ``sys.stdout``/``sys.stderr``.

    ``App._process_messages`` runs each app inside ``redirect_stdout`` and
    ``redirect_stderr`` (capturing ``print`` into the app).  With many apps
    in one process those swaps of process-wide state unwind out of order and
    pin finished apps; our apps never print, so the redirects are made to
    do nothing.

    Relies on ``textual.app`` looking up the module globals
    ``redirect_stdout`` and ``redirect_stderr`` (imported there from
    ``contextlib``) when an app runs: they are replaced for the whole
    process.  Idempotent."""
    import textual.app as textual_app

    # Monkeypatching a module global that the type checker types as the
    # contextlib class: both misc (assign to a type) and assignment apply.
    textual_app.redirect_stdout = _NoRedirect  # type: ignore[misc, assignment]
    textual_app.redirect_stderr = _NoRedirect  # type: ignore[misc, assignment]


# ---------------------------------------------------------------------- app
def app_is_closing(app: App[Any]) -> bool:
    """The app is shutting down or gone: posting to it is pointless.

    Relies on ``MessagePump._closing`` and ``_closed`` (public
    ``App.is_running`` is False before the app starts too, when messages
    posted to it are still delivered once it runs)."""
    return app._closing or app._closed


def app_driver(app: App[Any]) -> Driver | None:
    """The app's driver (None before it runs), to write to the terminal directly.

    Relies on ``App._driver``: Textual has no public accessor."""
    return app._driver


def app_updates_suspended(app: App[Any]) -> bool:
    """Inside ``App.batch_update()`` (or ``delay_update``): Textual paints
    nothing now and repaints when the batch ends, so nothing may be written
    around it either.

    Relies on ``App._batch_count`` (the batch depth): no public accessor."""
    return app._batch_count != 0


# ------------------------------------------------------------------- screen
def screen_paint_pending(screen: Screen[Any]) -> bool:
    """The screen has a layout or a full repaint pending: it will redraw
    everything on its next update, so painting a few cells now would race it.

    Relies on ``Screen._layout_required`` and ``Screen._repaint_required``."""
    return screen._layout_required or screen._repaint_required


class PromptScreenMixin(_ScreenBase):
    """Paint as soon as the screen's message queue is empty.

    Textual's screen waits for its 60 fps update timer before painting dirty
    widgets: up to 17 ms added to every move.  Here a screen with something
    to paint does the timer's work at once when it goes idle (messages that
    arrive together still make one frame).  Mix in before ``Screen``.

    Relies on ``Screen._on_idle(event)`` (overridden; Textual's still runs
    after), ``Screen._on_timer_update()`` (what the update timer calls),
    the screen's ``_layout_required``, ``_scroll_required``,
    ``_recompose_required``, ``_repaint_required`` and ``_dirty_widgets``,
    and ``App._batch_count``: the conditions under which the timer itself
    would paint, minus layout, scroll and recompose (left to the timer)."""

    async def _on_idle(self, event: events.Idle) -> None:
        event.prevent_default()
        app = self.app
        if (not app._batch_count and self.is_current and not self._layout_required
                and not self._scroll_required and not self._recompose_required
                and (self._dirty_widgets or self._repaint_required)):
            self._on_timer_update()
        await super()._on_idle(event)


# ------------------------------------------------------------------- widget
def invalidate_lines(widget: Widget, region: Region) -> None:
    """Tell the widget's rendered-line cache that ``region`` (widget
    coordinates) changed, so Textual's next paint of those lines renders them
    again instead of reusing the cache.  Needed when cells are written to the
    terminal behind the compositor's back.

    Relies on ``Widget._styles_cache`` (a ``textual._styles_cache.StylesCache``)
    and its ``set_dirty(*regions)``."""
    widget._styles_cache.set_dirty(region)


# ---------------------------------------------------------------------- app
class FrameHookMixin(_AppBase):
    """Calls :meth:`frame_displayed` after each frame the app hands to its
    driver.  Mix in before ``App``.

    Textual's public ``App.post_display_hook()`` is called after every
    attempt, even with nothing to show, and does not say which screen.

    Relies on ``App._display(screen, renderable)`` (overridden; Textual's
    runs first) and ``App._batch_count``: a frame was displayed when the
    renderable was not None and no batch update held it back."""

    def frame_displayed(self, screen: Screen[Any]) -> None:
        """Called after ``screen``'s frame was displayed."""

    def _display(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        super()._display(screen, renderable)
        if renderable is not None and not self._batch_count:
            self.frame_displayed(screen)
