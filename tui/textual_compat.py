"""Textual's (and Rich's) private internals, fenced in.

Lamma runs one Textual App per SSH session, many in one process, and handles
a key or a table's change without Textual's queues where that changes nothing
but the cost; for both it leans on a few private attributes of Textual and
Rich.  Every such reliance lives here, behind a small named function, class or
mixin whose docstring says which private it uses and why (the SSH driver's
own, its key parser, stays in ``server/driver.py``).  Everything else in
``engine/``, ``server/`` and ``tui/`` uses public API and this module only.
The table's direct drawing is no longer one of them: it is a seam of our own
(``tui.widgets.board.Surface``, which the SSH driver implements).

Process-wide patches (a Textual or Rich attribute replaced for every App in
the process) are five, installed by :func:`acyclic_textual` (three: no
reference cycle inside a strip or an LRU cache, so that nothing frozen by the
collector's policy dies in one), :func:`fast_control_strip` (one: ~10 % of the
server's instructions a move) and :func:`shared_stylesheets` (one: the CSS
parsed once for the process).  The rest is per session: mixed into our
App (:class:`TeardownMixin`) or subclassed (:class:`SessionStylesheet`,
:class:`ShapedInput`).

``tests/test_textual_compat.py`` checks that each private used here still
exists with the expected shape in the installed Textual (pinned at 8.2.8),
and that no other module touches one: after an upgrade, a failure there
names the private and the function here to update.  ``docs/performance.md``
says what each one buys.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from typing import IO, TYPE_CHECKING, Any, Literal, cast
from weakref import WeakSet

from rich import control as rich_control
from rich import text as rich_text
from rich.console import Console
from rich.text import Text
from textual import events
from textual._context import active_app
from textual.app import App
from textual.cache import LRUCache
from textual.css.stylesheet import Stylesheet
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input

if TYPE_CHECKING:
    # The mixins are plain classes at run time (as they were before this
    # module: no extra class in Textual's DOM/CSS hierarchy); the type checker
    # sees the class they are mixed into.
    _AppBase = App[Any]
else:
    _AppBase = object

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


def client_console(color_system: ColorSystemName | None, term: str) -> Console:
    """A Console like the one ``App.__init__`` makes, but for the *client's*
    terminal (its colour system, ``term`` its TERM), and nothing of the server
    process's environment: every setting Rich would read from the environment
    (``NO_COLOR``, ``TTY_INTERACTIVE``, ``COLUMNS``, ``LINES``, and ``TERM`` for a
    dumb terminal) is given here, as the client's terminal has it.  (The size is
    never read: the app's size comes from its driver; 80x25 is what Rich assumes
    without a terminal of its own.)  No private of Rich."""
    dumb = term.lower() in ("dumb", "unknown")
    return Console(
        color_system=color_system,
        file=null_console_file(),
        markup=True,
        highlight=False,
        emoji=False,
        legacy_windows=False,
        force_terminal=True,
        force_interactive=not dumb,
        no_color=False,
        width=80,
        height=25,
        safe_box=False,
        soft_wrap=False,
    )


# ---------------------------------------------------------------------- app
def handling_app() -> App[Any] | None:
    """The app whose handler runs in this context (a message, a timer, a test's
    Pilot), or None: a loop callback of the room's own (the store's commit, a
    computer player's decision) runs in none.

    Relies on ``textual._context.active_app``: the context variable Textual sets
    while an app handles a message, and that ``self.app`` reads."""
    return active_app.get(None)


def run_as_app(app: App[Any], call: Callable[[], None]) -> None:
    """``call()`` as a handler of ``app``'s runs from its message loop: in its
    context (``self.app`` is ``app``; a timer started there is its own) and an
    exception ends ``app``, that one session, as the loop would end it.

    Relies on ``App._context()`` (sets ``active_app`` and ``active_message_pump``
    for the block) and ``App._handle_exception(error)`` (what the loop calls with
    a handler's exception: the app exits with the traceback)."""
    with app._context():
        try:
            call()
        except Exception as error:
            app._handle_exception(error)


def screen_for_key_now(app: App[Any]) -> Screen[Any] | None:
    """The screen a key pressed now would reach with nothing ahead of it: the
    app and that screen running with empty queues, no widget focused (the app
    then forwards a key to the screen itself), nothing maximized, and a screen
    whose key handling never waits (``KEYS_AT_ONCE``: a handler that waited would
    let the screen's own loop handle its next message meanwhile); else None.

    Relies on ``Screen.maximized`` and on what ``App.on_event`` does with a key
    (``deliver_key``)."""
    if not app.is_running or app.message_queue_size or not app.screen_stack:
        return None
    screen = app.screen
    if (not getattr(screen, "KEYS_AT_ONCE", False) or screen.focused is not None
            or screen.maximized is not None or not screen.is_running
            or screen.message_queue_size):
        return None
    return screen


async def deliver_key(app: App[Any], screen: Screen[Any], event: events.Key) -> None:
    """``event`` (a key the app has not seen) handled here, in this task, as the
    app's and then ``screen``'s message loops would handle it from their queues
    (``screen_for_key_now`` says when they are empty): the bindings with
    priority, from the app down; else the key forwarded to the screen, handled
    there in the screen's context (a key it leaves bubbles to the app, posted,
    as before).  Two trips through Textual's queues and loops less: ~250 µs of
    the server's CPU a key, measured (two keys a card played).  An exception
    ends the app, that one session, as its loop would end it.

    Relies on what ``App.on_event`` does with an unforwarded key when nothing
    is focused or maximized (``app_focus`` set, ``App._check_bindings(key,
    priority=True)``, ``Event._set_forwarded()``, ``Screen._forward_event``'s
    post), ``MessagePump._dispatch_message(message)`` (a message loop's handling
    of one message), ``App._context()`` and ``MessagePump._context()`` (the
    context a loop handles a message in), ``App._handle_exception(error)``, and
    what a loop does after a message: it publishes it on ``message_signal``,
    then runs its idle handlers if its queue is empty.  Those are not run here:
    what a handler leaves them (a refresh, a callback after the next paint)
    prompts the screen's loop to idle by itself (``check_idle``)."""
    try:
        with app._context():
            if not app.app_focus:
                app.app_focus = True
            if await app._check_bindings(event.key, priority=True):
                return
            event._set_forwarded()
            with screen._context():
                await screen._dispatch_message(event)
    except Exception as error:
        app._handle_exception(error)
        return
    screen.message_signal.publish(event)


# ----------------------------------------------------------------- teardown
# A finished session's objects must go by reference counting: whatever is
# left in reference cycles waits for a full collection of the whole heap, which
# with a few hundred sessions stops every session for seconds, and an object the
# collector's policy has frozen (``server.runtime.collect_and_freeze``) and that
# later dies in a cycle waits for a scan of the whole heap.  Textual's objects
# are full of cycles (each node's styles point back at it; its animator,
# logger, workers point at the app; an LRUCache is a ring of links; a Strip
# caches itself...): acyclic_textual() removes the last two kinds for the
# whole process, and a finished app is hollowed (TeardownMixin.break_cycles).

_strip_divide = Strip.divide
_strip_crop_extend = Strip.crop_extend
_lru_clear = LRUCache.clear


def _divide(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    # Textual caches ``[self]`` in the strip's own divide cache: a cycle.
    cell_length = self.cell_length
    cuts = [cut for cut in cuts if cut <= cell_length]
    if cuts == [cell_length]:
        return [self]
    return _strip_divide(self, cuts)


def _crop_extend(self: Strip, start: int, end: int, style: Any) -> Strip:
    # The whole strip is ``self``, which Textual would cache in ``self``.
    if start <= 0 and end == self.cell_length:
        return self
    return _strip_crop_extend(self, start, end, style)


def _clear_links(self: LRUCache[Any, Any]) -> None:
    # The cache is a ring of [prev, next, key, value] links: emptied, the old
    # ring would stay a cycle.
    for link in self._cache.values():
        link.clear()
    _lru_clear(self)


def acyclic_textual() -> None:
    """Process-wide (three patches): ``Strip.divide`` and ``Strip.crop_extend`` no
    longer put a strip in its own cache (the same results, uncached: ``[self]`` and
    ``self``); ``LRUCache.clear`` unlinks the ring it drops.  Strips and caches are
    made and dropped by every widget of every app, Textual's own included, all the
    time: no one app could do this for itself.

    Relies on ``LRUCache._cache`` (key -> link lists) and the shapes of
    ``Strip.divide(cuts)``, ``Strip.crop_extend(start, end, style)``.  Idempotent."""
    Strip.divide = _divide  # type: ignore[method-assign]
    Strip.crop_extend = _crop_extend  # type: ignore[method-assign]
    LRUCache.clear = _clear_links  # type: ignore[method-assign]


def _hollow(obj: object) -> None:
    """Drop every attribute of a finished Textual object (its caches' rings
    too): the cycles through it end, and what it held goes at once."""
    attrs = vars(obj)
    for value in attrs.values():
        if isinstance(value, LRUCache):
            value.clear()
        elif isinstance(value, Stylesheet):
            _hollow(value)
    attrs.clear()


def _virtual_nodes(node: Any) -> list[Any]:
    """The virtual ``DOMNode``s Textual made to hold ``node``'s component styles
    (each is a cycle with its styles)."""
    return [styles.node for styles in node._component_styles.values()]


class _Registry(WeakSet[Any]):
    """An app's registry of mounted nodes (``App._registry``) that notes each node
    that leaves it: Textual discards a node there when it is done with it (a
    widget or screen removed, or the app ending), just before it drops the virtual
    nodes of the node's component styles, which are hollowed here."""

    def __init__(self, nodes: Iterable[Any], departed: WeakSet[Any]) -> None:
        super().__init__(nodes)
        self.departed = departed

    def discard(self, item: Any) -> None:
        if item in self:
            for virtual in _virtual_nodes(item):
                _hollow(virtual)
            self.departed.add(item)
        super().discard(item)


class SessionStylesheet(Stylesheet):
    """An app's stylesheet, for the many apps of one process: Textual makes new
    virtual nodes each time a node is styled again (focus, hover, class changes);
    the ones it replaces are hollowed.

    Relies on ``Stylesheet._process_component_classes(node)`` (where it replaces
    a node's virtual nodes) and ``DOMNode._component_styles`` (RenderStyles of
    virtual nodes, each ``.node``)."""

    def _process_component_classes(self, node: Any) -> None:
        old = _virtual_nodes(node)
        super()._process_component_classes(node)
        kept = {id(new) for new in _virtual_nodes(node)}
        for virtual in old:
            if id(virtual) not in kept:
                _hollow(virtual)


# ------------------------------------------------------------ shared CSS rules
_RULES: dict[tuple[Any, ...], list[Any]] = {}
_RULES_MAX = 256
_ORIGINAL_PARSE_RULES = Stylesheet._parse_rules


def _parse_rules(self: Stylesheet, css: str, read_from: Any, is_default_rules: bool = False,
                 tie_breaker: int = 0, scope: str = "") -> list[Any]:
    """``Stylesheet._parse_rules`` with one cache for the process, not one per
    stylesheet: every session's App parsed the same CSS again (the app's, each
    widget's DEFAULT_CSS) when it started.  Keyed as Textual keys its own cache,
    plus the stylesheet's variables (a theme's colours are parsed into the rules)."""
    key = (css, read_from, is_default_rules, tie_breaker, scope,
           tuple(sorted(self._variables.items())))
    rules = _RULES.get(key)
    if rules is None:
        rules = _ORIGINAL_PARSE_RULES(self, css, read_from, is_default_rules, tie_breaker, scope)
        if len(_RULES) < _RULES_MAX:
            _RULES[key] = rules
    return rules


def shared_stylesheets() -> None:
    """Process-wide (one patch): ``_parse_rules`` in place of Textual's.  Not an
    app's own: Textual parses in stylesheets of its own making too
    (``Stylesheet.reparse`` parses into a fresh ``Stylesheet``, at every app's
    start when its theme is set): an app-level override missed those, and
    sessions coming and going cost 16 % more instructions (callgrind) and 2-3
    points more of a core in the churn scenario.

    Relies on ``Stylesheet._parse_rules(css, read_from, is_default_rules,
    tie_breaker, scope)`` returning rules that are only read afterwards (Textual
    itself reuses them from its per-stylesheet cache) and on
    ``Stylesheet._variables``.  Idempotent."""
    Stylesheet._parse_rules = _parse_rules  # type: ignore[method-assign]


class TeardownMixin(_AppBase):
    """What one App among many in a process needs.  Mix in before ``App``.

    * Its own stdio: Textual runs an app inside ``redirect_stdout`` and
      ``redirect_stderr`` to the app's print capture; with many apps in one
      process those swaps of the process's ``sys.stdout``/``sys.stderr`` unwind
      out of order, pin finished apps and send the process's own output to an
      app.  Here each app's targets are the process's streams as they are when
      it is made: every app swaps them for themselves.
    * Its own stylesheet (:class:`SessionStylesheet`).
    * A finished app goes by reference counting: every widget (and screen) that
      ends while the app runs, or when it shuts down, is remembered weakly in
      ``departed_nodes`` (``_Registry``); :meth:`break_cycles`, called once the
      app has ended, hollows each of them and the app (its stylesheet and
      virtual nodes too): the cycles between them and their styles, caches,
      timers, animator... end.  A hollowed app reads as ``ended``; nothing else
      may use it.

    Relies on ``App._capture_stdout`` and ``App._capture_stderr`` (the targets
    of the redirects), ``App._registry`` (the nodes mounted, a ``WeakSet`` a node
    is discarded from as it ends), ``MessagePump._task`` (a node's message
    loop: None or done once it has ended) and ``Stylesheet._variables`` (the
    variables the app's first stylesheet was made with)."""

    ended = True            # (class-wide: an app hollowed by break_cycles has ended)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ended = False
        # (Textual types them as its print capture; a stream is what redirect_* takes.)
        self._capture_stdout = sys.stdout  # type: ignore[assignment]
        self._capture_stderr = sys.stderr  # type: ignore[assignment]
        # Made with the variables Textual's own stylesheet was just made with (the
        # theme's), not worked out again: a theme's colour system, 2 % of a session.
        self.stylesheet = SessionStylesheet(variables=self.stylesheet._variables)
        self.departed_nodes: WeakSet[Widget] = WeakSet()
        self._registry = _Registry(self._registry, self.departed_nodes)

    def on_unmount(self) -> None:
        """Textual's shutdown has closed every node: nothing is drawn or posted now."""
        self.ended = True

    def break_cycles(self) -> None:
        """Hollow the app and every widget that ended.  Only once the app has
        ended; a node whose message loop still runs is left as it is."""
        if not self.ended or self._registry:
            return      # stopped half-way (cancelled): left to the collector
        animator = self.animator         # its timer calls it back: a cycle
        nodes: list[Any] = [*self.departed_nodes, self]
        for node in nodes:
            task = node._task
            if task is not None and not task.done():
                continue
            for virtual in _virtual_nodes(node):
                _hollow(virtual)
            _hollow(node)
        _hollow(animator)


# ------------------------------------------------------------------- text box
class ShapedInput(Input):
    """A text box that shows what is typed as the player's terminal needs it.

    Textual's ``Input`` draws its value as typed (reading order, letters unjoined): on
    a terminal without bidi support Arabic typed into the chat showed reversed and
    broken while it was typed, though every chat line is drawn shaped once sent. This
    one draws its value through the session's ``Speech.show`` (nothing changes for
    text without Arabic, or in logical mode); the value itself is what was typed. The
    cursor keeps its place in the value.

    Relies on ``Input._value`` (the value as the Text that ``render_line`` draws and
    measures), a property read at each render."""

    @property
    def _value(self) -> Text:
        text: Text = _input_value(self)
        if self.password or self.value.isascii():
            return text
        speech = getattr(self.app, "speech", None)
        shown = speech.show(self.value) if speech is not None else self.value
        if shown == self.value:
            return text
        return Text(shown, no_wrap=True, overflow="ignore", end="")


def _input_value(box: Input) -> Text:
    """Textual's own ``Input._value`` of ``box``."""
    getter = vars(Input)["_value"].fget
    return cast(Text, getter(box))


_RICH_STRIP = rich_control.strip_control_codes     # rich.control's own: never replaced


def _strip_control_codes(text: str, _translate_table: dict[int, None] | None = None) -> str:
    """Rich's ``strip_control_codes``, which removes BEL, BS, VT, FF and CR: a text
    with no unprintable character has none of them and comes back as it is.  Rich
    translates every text it makes a ``Text`` of, character by character through a
    dict (~10 % of the server's instructions a move at a table: ~100 lines a move
    are made)."""
    if text.isprintable():
        return text
    return _RICH_STRIP(text) if _translate_table is None else _RICH_STRIP(text, _translate_table)


def fast_control_strip() -> None:
    """Process-wide (one patch): ``_strip_control_codes`` in place of Rich's.  Rich
    makes a ``Text`` of every string in every app: no one app could do this for
    itself.  Relies on ``rich.text`` calling ``strip_control_codes`` as a module
    global (imported from ``rich.control``).  Idempotent."""
    rich_text.strip_control_codes = _strip_control_codes
