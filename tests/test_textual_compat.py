"""The privates of Textual, Rich and asyncssh that Lamma relies on, fenced in
(issues 10 and 25).  The single list of them: ``PRIVATES`` below, one entry per
private (or per group of names that only make sense together), each with a check.

Three modules may touch one: ``tui/textual_compat.py`` and the SSH driver
``server/driver.py`` (Textual's and Rich's), ``server/wire.py`` (asyncssh's, and
asyncio's socket transport's one).

* ``test_private_still_there``: every private those rely on still exists with
  the shape they expect in the installed Textual, Rich and asyncssh; after an
  upgrade a failure names the private and the code to update.
* ``test_every_private_used_is_checked``: the list below is complete (a new
  private used in a fenced module must be added to it).
* ``test_no_private_textual_use_elsewhere``: no other module in ``engine/``,
  ``server/`` or ``tui/`` imports a private Textual/Rich module or name, reads
  a ``_private`` of an object that is obviously Textual's (``app._x``,
  ``screen._x``, ``self.app._x``, ``driver._x``, ``console._x``...), patches
  a Textual module, or (in a class built on a Textual class) uses, overrides
  or shadows one of that class's privates.
* ``test_no_private_asyncssh_use_elsewhere``: the same for asyncssh: no module
  but ``server/wire.py`` imports one of its inner modules, reads or writes a
  ``_private`` of a connection, channel, process or transport (``vars()`` and
  ``getattr`` by name included), swaps an object's class, or (in a class built
  on an asyncssh class) uses, overrides or shadows one of that class's privates.
* ``test_the_counts``: how many there are (docs/performance.md's table), so that
  one more is a decision, not an accident.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import contextvars
import importlib
import importlib.metadata
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import asyncssh
import pytest
import textual
import textual.app
from textual import events
from textual.app import App
from textual.binding import Binding
from textual.driver import Driver
from textual.screen import Screen
from textual.widget import Widget

ROOT = Path(__file__).resolve().parent.parent
COMPAT = "tui/textual_compat.py"
DRIVER = "server/driver.py"
WIRE = "server/wire.py"
FENCED = (COMPAT, DRIVER)
FENCED_ASYNCSSH = (WIRE,)
SCANNED = ("engine", "server", "tui")
VERSIONS = (f"Textual {textual.__version__}, Rich {importlib.metadata.version('rich')}, "
            f"asyncssh {importlib.metadata.version('asyncssh')}")


# --------------------------------------------------------------- the list
@dataclass(frozen=True)
class Private:
    what: str                   # the private, as the code uses it
    user: str                   # the module (and function) that relies on it
    names: tuple[str, ...]      # private identifiers covered (for the completeness check)
    check: Callable[[], Awaitable[None]]
    of: str = "textual"         # whose: "textual" (Textual and Rich) or "asyncssh"
    patches: int = 0            # attributes it replaces for the whole process


PRIVATES: list[Private] = []


def relied_on(what: str, user: str, *names: str, of: str = "textual", patches: int = 0,
              ) -> Callable[[Callable[[], Awaitable[None]]], Callable[[], Awaitable[None]]]:
    def register(check: Callable[[], Awaitable[None]]) -> Callable[[], Awaitable[None]]:
        PRIVATES.append(Private(what, user, names, check, of, patches))
        return check
    return register


@contextlib.asynccontextmanager
async def running_app(app: App[Any] | None = None) -> AsyncIterator[App[Any]]:
    app = app or App()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        yield app


def params(func: Callable[..., Any]) -> list[str]:
    return list(inspect.signature(func).parameters)


# ---- tui/textual_compat.py
@relied_on("App._capture_stdout / _capture_stderr: what App._process_messages redirects "
           "sys.stdout / sys.stderr to while the app runs",
           f"{COMPAT} TeardownMixin", "_capture_stdout", "_capture_stderr")
async def _check_stdio() -> None:
    import sys

    from tui.textual_compat import TeardownMixin

    source = inspect.getsource(App._process_messages)
    assert "redirect_stdout(self._capture_stdout)" in source, \
        "App._process_messages no longer redirects stdout to _capture_stdout"
    assert "redirect_stderr(self._capture_stderr)" in source, \
        "App._process_messages no longer redirects stderr to _capture_stderr"
    assert hasattr(App(), "_capture_stdout") and hasattr(App(), "_capture_stderr")

    class Probe(TeardownMixin, App[None]):
        pass

    before = sys.stdout, sys.stderr
    apps = [Probe(), Probe()]
    first = running_app(apps[0])
    await first.__aenter__()
    second = running_app(apps[1])
    await second.__aenter__()
    await first.__aexit__(None, None, None)          # out of order, as sessions end
    await second.__aexit__(None, None, None)
    assert (sys.stdout, sys.stderr) == before, "an app's run left the process's stdio swapped"


@relied_on("textual._context.active_app: set while an app handles a message, unset in a "
           "loop callback of another origin", f"{COMPAT} handling_app()", "textual._context")
async def _check_active_app() -> None:
    from textual._context import active_app
    seen: list[object] = []

    class Probe(App[None]):
        def on_key(self) -> None:
            seen.append(active_app.get(None))

    app = Probe()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.press("x")
        await pilot.pause()
        assert seen == [app], "active_app is not the app inside its own handler"
        outside: list[object] = []
        # a loop callback from a fresh context, as the store's writer thread schedules one
        asyncio.get_running_loop().call_soon(
            lambda: outside.append(active_app.get(None)), context=contextvars.Context())
        await asyncio.sleep(0.01)
        assert outside == [None], "active_app is set in a callback no app runs"


@relied_on("App._context() and MessagePump._context() (set active_app / active_message_pump "
           "for a block) and App._handle_exception(error) (the app exits, return code 1)",
           f"{COMPAT} run_as_app(), deliver_key()", "_context", "_handle_exception")
async def _check_app_context_and_exception() -> None:
    from textual._context import active_app, active_message_pump

    def inside(app: App[Any]) -> tuple[object, object]:
        with app._context():
            return active_app.get(None), active_message_pump.get(None)

    def inside_screen(app: App[Any]) -> tuple[object, object]:
        with app._context(), app.screen._context():
            return active_app.get(None), active_message_pump.get(None)

    app: App[Any] = App()
    with pytest.raises(RuntimeError, match="boom"):     # run_test raises what ended the app
        async with running_app(app):
            assert contextvars.Context().run(inside, app) == (app, app)
            assert contextvars.Context().run(inside_screen, app) == (app, app.screen)
            assert contextvars.Context().run(active_app.get, None) is None, "not reset"
            try:
                raise RuntimeError("boom")
            except RuntimeError as error:
                app._handle_exception(error)
            for _ in range(50):
                if app._exit:
                    break
                await asyncio.sleep(0.01)
            assert app._exit and app.return_code == 1


@relied_on("what App.on_event does with an unforwarded key (app_focus, priority bindings by "
           "App._check_bindings(key, priority=True), then Event._set_forwarded() and a post "
           "to the focused widget or the screen), MessagePump._dispatch_message(message), "
           "and a refresh prompting the screen's idle by itself",
           f"{COMPAT} deliver_key(), screen_for_key_now()",
           "_check_bindings", "_set_forwarded", "_dispatch_message")
async def _check_key_delivery() -> None:
    on_event = inspect.getsource(App.on_event)
    for step in ("self.app_focus = True", "await self._check_bindings(event.key, priority=True)",
                 "forward_target = self.focused or self.screen",
                 "forward_target._forward_event(event)"):
        assert step in on_event, f"App.on_event no longer does {step!r} with a key"
    forward = inspect.getsource(Screen._forward_event)
    assert "_set_forwarded()" in forward and "self.post_message(event)" in forward
    seen: list[tuple[str, bool]] = []
    ran: list[str] = []

    class KeyScreen(Screen[None]):
        def on_key(self, event: events.Key) -> None:
            seen.append((event.key, event.is_forwarded))

    class Probe(App[None]):
        BINDINGS = [Binding("z", "zed", priority=True)]

        def on_mount(self) -> None:
            self.push_screen(KeyScreen())

        def action_zed(self) -> None:
            ran.append("z")

    app = Probe()
    async with running_app(app):
        screen = app.screen
        assert isinstance(screen, KeyScreen)
        assert await app._check_bindings("z", priority=True) is True and ran == ["z"]
        assert await app._check_bindings("y", priority=True) is False
        event = events.Key("y", "y")
        assert not event.is_forwarded
        event._set_forwarded()
        assert event.is_forwarded
        await screen._dispatch_message(event)
        assert seen == [("y", True)], "the screen's handler did not run"
        assert screen.maximized is None and callable(screen.message_signal.publish)
        await asyncio.sleep(0.05)
        assert screen.message_queue_size == 0
        screen.refresh()        # (what a key's handler leaves for the idle handlers)
        assert screen.message_queue_size == 1, "a refresh no longer prompts the idle"


@relied_on("App._registry (the nodes mounted: a WeakSet a node is discarded from as it "
           "ends, just before Textual drops its virtual nodes); MessagePump._task (the "
           "message loop)", f"{COMPAT} TeardownMixin, _Registry", "_registry", "_task")
async def _check_registry() -> None:
    from weakref import WeakSet

    from textual.widgets import Static

    from tui.textual_compat import TeardownMixin

    assert isinstance(App()._registry, WeakSet)
    assert "self.app._registry.discard(self)" in inspect.getsource(Widget._message_loop_exit)

    class Probe(TeardownMixin, App[None]):
        pass

    app = Probe()
    async with running_app(app):
        gone = Static("x")
        await app.screen.mount(gone)
        assert isinstance(gone._task, asyncio.Task) and not gone._task.done()
        await gone.remove()
        assert gone in app.departed_nodes, "a removed widget was not recorded"
        assert gone._task is None or gone._task.done()
        assert gone not in app._registry and app.screen in app._registry
        app.break_cycles()              # still running: nothing is touched
        assert vars(app) and vars(gone)
    assert not app._registry, "nodes still registered after the app ended"
    assert app.ended
    screen = app.screen_stack[0] if app.screen_stack else None
    assert screen is None and len(app.departed_nodes) >= 2   # and the screen, at the end
    departed = list(app.departed_nodes)
    app.break_cycles()
    assert not vars(app) and not any(vars(node) for node in departed), "not hollowed"
    assert app.ended                    # (hollow: the class's answer)


@relied_on("Stylesheet._process_component_classes(node), DOMNode._component_styles "
           "(RenderStyles of virtual nodes, .node)",
           f"{COMPAT} SessionStylesheet, _Registry, TeardownMixin",
           "_process_component_classes", "_component_styles")
async def _check_component_styles() -> None:
    from textual.css.stylesheet import Stylesheet
    from textual.dom import DOMNode
    from textual.widgets import Input

    from tui.textual_compat import SessionStylesheet, TeardownMixin

    class Probe(TeardownMixin, App[None]):
        pass

    assert params(Stylesheet._process_component_classes) == ["self", "node"]
    assert "self._process_component_classes(node)" in inspect.getsource(Stylesheet.apply)
    app = Probe()
    async with running_app(app):
        assert isinstance(app.stylesheet, SessionStylesheet)
        field = Input()
        await app.screen.mount(field)
        styles = field._component_styles
        assert isinstance(styles, dict) and styles, "Input has no component styles"
        nodes = [s.node for s in styles.values()]
        assert all(type(n) is DOMNode for n in nodes)
        app.stylesheet._process_component_classes(field)    # a restyle: new virtual nodes
        assert all(s.node not in nodes for s in field._component_styles.values())
        assert all(not vars(n) for n in nodes), "replaced virtual nodes are not hollowed"
        current = [s.node for s in field._component_styles.values()]
        await field.remove()                # its virtual nodes go as it leaves
        assert all(not vars(n) for n in current), "a removed widget's virtual nodes are left"
    # an app of Textual's own is untouched
    async with running_app() as plain:
        assert type(plain.stylesheet) is Stylesheet


@relied_on("LRUCache._cache (key -> [prev, next, key, value] links)",
           f"{COMPAT} acyclic_textual() (LRUCache.clear)", "_cache", patches=1)
async def _check_lru_links() -> None:
    import gc

    from textual.cache import LRUCache

    from tui.textual_compat import acyclic_textual

    acyclic_textual()
    cache: LRUCache[str, int] = LRUCache(4)
    cache["a"], cache["b"] = 1, 2
    links = list(cache._cache.values())
    assert all(isinstance(link, list) and len(link) == 4 for link in links)
    assert [link[2:] for link in links] == [["a", 1], ["b", 2]]
    cache.clear()
    assert not cache and cache.get("a") is None
    assert all(link == [] for link in links), "LRUCache.clear left its ring linked"
    gc.collect()


@relied_on("Strip.divide(cuts), Strip.crop_extend(start, end, style) (caching self)",
           f"{COMPAT} acyclic_textual()", patches=2)
async def _check_strip_self_cache() -> None:
    from rich.segment import Segment
    from textual.strip import Strip

    from tui import textual_compat

    assert params(textual_compat._strip_divide) == ["self", "cuts"]
    assert params(textual_compat._strip_crop_extend) == ["self", "start", "end", "style"]
    textual_compat.acyclic_textual()
    strip = Strip([Segment("abcdef")], 6)
    for cuts in ([6], [2, 6], [2, 4, 6], [10]):
        assert ([s.text for s in strip.divide(cuts)]
                == [s.text for s in textual_compat._strip_divide(Strip([Segment("abcdef")], 6),
                                                                 cuts)])
    assert strip.divide([6]) == [strip]
    for args in ((0, 6), (1, 4), (0, 8), (-1, 6)):
        assert (strip.crop_extend(*args, None).text
                == textual_compat._strip_crop_extend(Strip([Segment("abcdef")], 6),
                                                     *args, None).text)
    assert strip.crop_extend(0, 6, None) is strip
    assert not reaches_itself(strip), "a strip still caches itself"


@relied_on("rich.text's module global strip_control_codes, called by Text() and its append",
           f"{COMPAT} fast_control_strip()", patches=1)
async def _check_strip_control_codes() -> None:
    from rich import control, text

    from tui import textual_compat

    assert "strip_control_codes" in text.Text.__init__.__code__.co_names
    assert "strip_control_codes" in text.Text.append.__code__.co_names
    assert textual_compat._RICH_STRIP is control.strip_control_codes
    textual_compat.fast_control_strip()
    assert text.strip_control_codes is textual_compat._strip_control_codes
    for s in ("plain", "a\rb\x07c\x08d\x0be\x0cf", "tab\there", "new\nline", "\x1b[31m",
              "♠ ١٠ عربي \u200f", "", "\r"):
        assert textual_compat._strip_control_codes(s) == control.strip_control_codes(s), s
    assert text.Text("a\rb\x07 ♠").plain == "ab ♠"
    t = text.Text("x")
    t.append("\x08y\rz")
    assert t.plain == "xyz"


def reaches_itself(obj: object, depth: int = 4) -> bool:
    import gc
    level = gc.get_referents(obj)
    for _ in range(depth):
        if any(o is obj for o in level):
            return True
        level = [r for o in level for r in gc.get_referents(o)]
    return False


@relied_on("Stylesheet._parse_rules(css, read_from, is_default_rules, tie_breaker, scope) "
           "and Stylesheet._variables; Stylesheet.reparse parsing into a Stylesheet of its own",
           f"{COMPAT} shared_stylesheets(), TeardownMixin", "_parse_rules", "_variables",
           patches=1)
async def _check_parse_rules() -> None:
    from textual.css.stylesheet import Stylesheet

    from tui import textual_compat

    params = list(inspect.signature(textual_compat._ORIGINAL_PARSE_RULES).parameters)
    assert params == ["self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"]
    assert Stylesheet(variables={"x": "red"})._variables == {"x": "red"}
    # Textual's own reads go through it (what the shared cache replaces), in the
    # stylesheets Textual makes too (why it is patched, not an app's override).
    assert "self._parse_rules(" in inspect.getsource(Stylesheet.parse)
    assert "stylesheet = Stylesheet(" in inspect.getsource(Stylesheet.reparse)
    textual_compat.shared_stylesheets()
    assert Stylesheet._parse_rules is textual_compat._parse_rules
    # TeardownMixin makes its SessionStylesheet with the variables App.__init__ just
    # worked out for its own (the theme's), not working them out again.
    assert "Stylesheet(variables=self.get_css_variables())" in inspect.getsource(App.__init__)

    class Probe(textual_compat.TeardownMixin, App[None]):
        pass

    probe = Probe()
    assert isinstance(probe.stylesheet, textual_compat.SessionStylesheet)
    assert probe.stylesheet._variables == probe.get_css_variables()


@relied_on("Input._value (a property render_line draws and measures)",
           f"{COMPAT} ShapedInput", "_value")
async def _check_input_value() -> None:
    from textual.widgets import Input
    assert isinstance(vars(Input)["_value"], property)
    assert "self._value" in inspect.getsource(Input.render_line)
    assert "self._value" in inspect.getsource(vars(Input)["content_width"].fget)


# ---- server/driver.py
@relied_on("textual._xterm_parser.XTermParser(debug=)", f"{DRIVER} SessionParser",
           "textual._xterm_parser")
async def _check_xterm_parser() -> None:
    from textual import events
    from textual._xterm_parser import XTermParser

    parser = XTermParser(debug=False)
    keys = [e for e in parser.feed("a") if isinstance(e, events.Key)]
    assert [k.key for k in keys] == ["a"]


@relied_on("XTermParser._parse_extended_key (lru_cache, __wrapped__)", f"{DRIVER} SessionParser",
           "_parse_extended_key")
async def _check_extended_key() -> None:
    from textual._xterm_parser import XTermParser

    from server.driver import SessionParser

    wrapped = XTermParser._parse_extended_key.__wrapped__
    assert params(wrapped) == ["self", "sequence"]
    assert SessionParser._parse_extended_key is wrapped
    keys = wrapped(SessionParser(), "\x1b[97;5u")        # kitty protocol: ctrl+a
    assert keys and keys[0].key == "ctrl+a"


# ---- server/wire.py (asyncssh's, and one of asyncio's)
@relied_on("SSHConnection._transport: set in connection_made, every packet written to it "
           "(SSHConnection._send)", f"{WIRE} transport_of(), QuietConnection",
           "_transport", of="asyncssh")
async def _check_asyncssh_transport() -> None:
    from asyncssh.connection import SSHConnection

    assert "self._transport = " in inspect.getsource(SSHConnection.connection_made)
    assert "self._transport.write(data)" in inspect.getsource(SSHConnection._send)


@relied_on("SSHConnection.send_packet(pkttype, *args, handler=None) putting an empty "
           "SSH_MSG_IGNORE before every packet once encrypted; SSHConnection._force_close(exc) "
           "aborting the transport a loop callback later; a server connection's class set to "
           "a subclass as it is made", f"{WIRE} QuietConnection, quiet()", "_force_close",
           of="asyncssh")
async def _check_quiet_connection() -> None:
    from asyncssh.connection import SSHConnection

    source = inspect.getsource(SSHConnection.send_packet)
    assert "self.send_packet(MSG_IGNORE, String(b''))" in source
    assert params(SSHConnection.send_packet) == ["self", "pkttype", "args", "handler"]
    assert params(SSHConnection._force_close) == ["self", "exc"]
    source = inspect.getsource(SSHConnection._force_close)
    assert "self._loop.call_soon(self._transport.abort)" in source
    assert "self._transport = None" in source


@relied_on("SSHConnection._process_userauth_request(pkttype, pktid, packet): a user "
           "name prepared with asyncssh.connection's saslprep within the call (before "
           "begin_auth), the handler found in the class's _packet_handlers by message number",
           f"{WIRE} QuietConnection, user_name_prep()", "_process_userauth_request",
           "_packet_handlers", of="asyncssh")
async def _check_userauth_name_prep() -> None:
    import asyncssh.connection
    from asyncssh.connection import SSHConnection
    from asyncssh.constants import MSG_USERAUTH_REQUEST
    from asyncssh.saslprep import saslprep

    from server.wire import QuietConnection

    handler = SSHConnection._process_userauth_request
    assert params(handler) == ["self", "_pkttype", "_pktid", "packet"]
    source = inspect.getsource(handler)
    assert "username = saslprep(username_bytes.decode('utf-8'))" in source
    assert "return self._finish_userauth(begin_auth, method, packet)" in source
    assert asyncssh.connection.saslprep is saslprep
    theirs = SSHConnection._packet_handlers
    assert theirs[MSG_USERAUTH_REQUEST] is handler
    ours = QuietConnection._packet_handlers
    assert ours[MSG_USERAUTH_REQUEST] is vars(QuietConnection)["_process_userauth_request"]
    assert {k: v for k, v in ours.items() if k != MSG_USERAUTH_REQUEST} == \
        {k: v for k, v in theirs.items() if k != MSG_USERAUTH_REQUEST}


@relied_on("SSHServerChannel._process_env_request(packet): how a channel handles an 'env' "
           "request (asyncssh.packet.SSHPacket, String); a channel's class set to a subclass "
           "as it is made", f"{WIRE} GuardedChannel, guard_channel()", "_process_env_request",
           of="asyncssh")
async def _check_env_request() -> None:
    from asyncssh.packet import SSHPacket, String

    from server.wire import GuardedChannel

    handler = vars(asyncssh.SSHServerChannel).get("_process_env_request")
    assert callable(handler) and params(handler) == ["self", "packet"]
    assert "_process_env_request" in vars(GuardedChannel)
    packet = SSHPacket(String(b"LANG") + String(b"C"))
    assert packet.get_string() == b"LANG" and packet.get_string() == b"C"
    packet.check_end()


@relied_on("SSHConnection._recv_handler (a bound method of the connection; asyncssh parks "
           "it on lambda: False itself)", f"{WIRE} unlink_asyncssh()", "_recv_handler",
           of="asyncssh")
async def _check_recv_handler() -> None:
    from asyncssh.connection import SSHConnection

    source = inspect.getsource(SSHConnection)
    assert "self._recv_handler = self._recv_version" in source
    assert "self._recv_handler = lambda: False" in source


@relied_on("SSHServerProcess._session_factory, _stdin, _stdout, _stderr (the process's own "
           "bound method and its streams, which point back at it)",
           f"{WIRE} unlink_process(), UNLINKED", "_session_factory", "_stdin", "_stdout",
           "_stderr", of="asyncssh")
async def _check_process_streams() -> None:
    from server.wire import UNLINKED, ServerProcess

    process = ServerProcess(lambda p: None)
    assert "_session_factory" in vars(process)
    source = inspect.getsource(asyncssh.SSHServerProcess._start_process)
    assert all(f"self.{name} = " in source for name in UNLINKED[1:])


@relied_on("asyncio's socket transport's _read_ready_cb (a bound method of its own, "
           "CPython 3.11)", f"{WIRE} drop_read_callback()", "_read_ready_cb", of="asyncssh")
async def _check_read_ready_cb() -> None:
    from asyncio import selector_events

    source = inspect.getsource(selector_events._SelectorSocketTransport)
    assert "self._read_ready_cb = self._read_ready__data_received" in source


@relied_on("SSHServerProcess(process_factory, sftp_factory, sftp_version, allow_scp) and "
           "asyncssh.sftp.MIN_SFTP_VERSION: a session made as asyncssh makes one",
           f"{WIRE} ServerProcess", of="asyncssh")
async def _check_server_process() -> None:
    from asyncssh.sftp import MIN_SFTP_VERSION

    assert params(asyncssh.SSHServerProcess.__init__) == [
        "self", "process_factory", "sftp_factory", "sftp_version", "allow_scp"]
    assert isinstance(MIN_SFTP_VERSION, int)


@relied_on("asyncssh.kex.get_default_kex_algs() (the key exchanges asyncssh offers, bytes, "
           "GSS ones named gss-...)", f"{WIRE} kex_algs()", of="asyncssh")
async def _check_kex_algs() -> None:
    from asyncssh.kex import get_default_kex_algs

    from server.wire import kex_algs

    names = get_default_kex_algs()
    assert names and all(isinstance(n, bytes) for n in names) and b"curve25519-sha256" in names
    assert kex_algs()[0] == "curve25519-sha256"


@pytest.mark.parametrize("private", PRIVATES,
                         ids=[p.check.__name__.removeprefix("_check_") for p in PRIVATES])
async def test_private_still_there(private: Private) -> None:
    try:
        await asyncio.wait_for(private.check(), 30)
    except (AssertionError, AttributeError, ImportError, TypeError, ValueError, KeyError) as exc:
        pytest.fail(f"{VERSIONS}: {private.what} is gone or changed shape ({exc!r}); "
                    f"update {private.user}", pytrace=False)


# ------------------------------------------------------------ ast helpers
def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def is_textual_module(module: str) -> bool:
    return module.split(".")[0] in ("textual", "rich")


def private_imports(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, what) for each import of a private Textual/Rich module or name."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if is_textual_module(alias.name) and any(map(is_private, alias.name.split("."))):
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not is_textual_module(node.module):
                continue
            if any(map(is_private, node.module.split("."))):
                yield node.lineno, node.module
            for alias in node.names:
                if is_private(alias.name):
                    yield node.lineno, f"{node.module}.{alias.name}"


def private_string_lookups(tree: ast.AST) -> Iterator[tuple[int, ast.expr, str]]:
    """getattr/setattr/hasattr(obj, "_name", ...)."""
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str) and is_private(node.args[1].value)):
            yield node.lineno, node.args[0], node.args[1].value


def is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def own_names(tree: ast.AST) -> set[str]:
    """Private names a module defines itself: module globals, class members,
    and ``self._x = ...`` stores."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
              and is_self(node.value)):
            names.add(node.attr)
    return {n for n in names if is_private(n)}


def parse(rel: str) -> ast.Module:
    return ast.parse((ROOT / rel).read_text(encoding="utf-8"), filename=rel)


def scanned_files() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for top in SCANNED for p in (ROOT / top).rglob("*.py"))


# ---------------------------------------------------- the list is complete
def private_strings(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """String constants that are a private identifier (``vars(x)["_name"]``, a tuple of
    names to unlink...)."""
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and node.value.isidentifier() and is_private(node.value)):
            yield node.lineno, node.value


def test_every_private_used_is_checked() -> None:
    known = {name for p in PRIVATES for name in p.names}
    unlisted: list[str] = []
    for rel in (*FENCED, *FENCED_ASYNCSSH):
        tree = parse(rel)
        own = own_names(tree)
        used: list[tuple[int, str]] = list(private_imports(tree))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and is_private(node.attr):
                if node.attr not in own:
                    used.append((node.lineno, node.attr))
            elif isinstance(node, ast.keyword) and node.arg and is_private(node.arg):
                used.append((getattr(node, "lineno", 0), node.arg))
        used += [(line, name) for line, _obj, name in private_string_lookups(tree)]
        used += [(line, name) for line, name in private_strings(tree) if name not in own]
        unlisted += [f"{rel}:{line}: {name}" for line, name in used if name not in known]
        if rel in FENCED_ASYNCSSH:
            unlisted += [f"{v} (not in PRIVATES)" for v in asyncssh_class_violations(
                rel, tree, frozenset(known))]
    assert not unlisted, (
        "these privates are used but not checked: add them to PRIVATES in "
        "tests/test_textual_compat.py\n  " + "\n  ".join(unlisted))


def test_the_counts() -> None:
    """docs/performance.md's table: Textual's and Rich's privates (13, from 27 in
    issue 25), their process-wide patches (5, from 12), asyncssh's privates (9, all in
    server/wire.py).  Change these with that table."""
    textual_ones = [p for p in PRIVATES if p.of == "textual"]
    asyncssh_ones = [p for p in PRIVATES if p.of == "asyncssh"]
    assert len(textual_ones) == 13
    assert sum(p.patches for p in PRIVATES) == 5
    assert len(asyncssh_ones) == 9
    assert all(p.user.startswith(WIRE) for p in asyncssh_ones)
    assert all(p.user.startswith(FENCED) for p in textual_ones)


# ------------------------------------------------ nobody else touches them
HOLDERS = {"app", "screen", "driver", "console", "_driver"}
"""Names that, in our code, always hold a Textual App, Screen, Driver or a Rich Console."""

BASES = (App, Screen, Widget, Driver)
"""Textual classes whose privates a mixin might reach through ``super()``."""


def obviously_textual(node: ast.expr, textual_names: Collection[str] = ()) -> bool:
    """``app``, ``screen``, ``driver``, ``console``, ``<anything>.app`` etc.,
    or a name imported from Textual/Rich (``App``, a module...)."""
    if isinstance(node, ast.Name):
        return node.id in HOLDERS or node.id in textual_names
    return isinstance(node, ast.Attribute) and node.attr in HOLDERS


def imported_textual_names(tree: ast.AST) -> set[str]:
    """Names a module binds to Textual/Rich modules, classes and functions."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update((a.asname or a.name).split(".")[0]
                         for a in node.names if is_textual_module(a.name))
        elif (isinstance(node, ast.ImportFrom) and node.module and node.level == 0
              and is_textual_module(node.module)):
            names.update(a.asname or a.name for a in node.names)
    return names


def root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def is_super_call(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "super")


def source_violations(rel: str, tree: ast.Module) -> Iterator[str]:
    """What the source alone shows (no import needed)."""
    for line, what in private_imports(tree):
        yield f"{rel}:{line}: imports {what}"
    textual_names = imported_textual_names(tree)
    modules = {a.asname or a.name.split(".")[0]
               for n in ast.walk(tree) if isinstance(n, ast.Import)
               for a in n.names if is_textual_module(a.name)}
    base_privates = set().union(*(textual_privates(k) for k in BASES))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if is_private(node.attr) and obviously_textual(node.value, textual_names):
                yield f"{rel}:{node.lineno}: {ast.unparse(node)}"
            elif is_private(node.attr) and is_super_call(node.value) \
                    and node.attr in base_privates:
                yield f"{rel}:{node.lineno}: super().{node.attr} (a Textual private)"
            elif isinstance(node.ctx, ast.Store) and root_name(node) in modules:
                yield f"{rel}:{node.lineno}: patches {ast.unparse(node)}"
        elif isinstance(node, ast.Call) and root_name(node.func) in textual_names:
            for kw in node.keywords:
                if kw.arg and is_private(kw.arg):
                    yield f"{rel}:{node.lineno}: {ast.unparse(node.func)}({kw.arg}=...)"
    for line, obj, name in private_string_lookups(tree):
        if obviously_textual(obj, textual_names):
            yield f"{rel}:{line}: looks up {name!r} on {ast.unparse(obj)}"


@cache
def textual_privates(cls: type) -> frozenset[str]:
    """Private names of a Textual/Rich class: its members and the
    ``self._x`` attributes its source sets, over its MRO."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if not is_textual_module(klass.__module__):
            continue
        names.update(n for n in vars(klass) if is_private(n))
        try:
            source = inspect.getsource(klass)
        except (OSError, TypeError):
            continue
        for node in ast.walk(ast.parse(inspect.cleandoc("\n" + source))):
            if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                    and is_self(node.value) and is_private(node.attr)):
                names.add(node.attr)
    return frozenset(names)


def textual_bases(cls: type) -> list[type]:
    return [k for k in cls.__mro__[1:] if is_textual_module(k.__module__)]


def module_name(rel: str) -> str:
    return rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def class_violations(rel: str, tree: ast.Module, allowed: frozenset[str]) -> Iterator[str]:
    """In a class built on a Textual class: ``self._x``, ``def _x`` or
    ``super()._x`` where ``_x`` is one of that class's privates (a use, an
    override, or an accidental shadowing)."""
    if not imported_textual_names(tree):
        return
    module = importlib.import_module(module_name(rel))
    for top in tree.body:
        if not isinstance(top, ast.ClassDef):
            continue
        cls = getattr(module, top.name, None)
        if not isinstance(cls, type) or not textual_bases(cls):
            continue
        bases = textual_bases(cls)
        theirs = set().union(*(textual_privates(k) for k in bases)) - allowed
        found: list[tuple[int, str]] = []
        for node in ast.walk(top):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node in top.body:
                found.append((node.lineno, node.name))
            elif isinstance(node, ast.Attribute) and (is_self(node.value)
                                                       or is_super_call(node.value)):
                found.append((node.lineno, node.attr))
        for line, name in found:
            if name in theirs:
                yield (f"{rel}:{line}: {top.name}.{name} is a private of its "
                       f"Textual base {bases[0].__name__}")


@pytest.mark.slow       # the full suite's (the fast tier's 90 s)
def test_no_private_textual_use_elsewhere() -> None:
    known = frozenset(name for p in PRIVATES for name in p.names)
    problems: list[str] = []
    for rel in scanned_files():
        tree = parse(rel)
        if rel in FENCED:
            # The driver may use its base's privates (each checked above);
            # its own attributes must not shadow any other.
            problems += [f"{v} (not in PRIVATES)" for v in class_violations(rel, tree, known)]
            continue
        problems += source_violations(rel, tree)
        problems += class_violations(rel, tree, frozenset())
    assert not problems, (
        "Textual/Rich privates used outside tui/textual_compat.py and server/driver.py "
        "(reach them through a function in tui/textual_compat.py, checked in "
        "tests/test_textual_compat.py):\n  " + "\n  ".join(problems))


# ------------------------------------------------ asyncssh's, the same way
ASYNCSSH_HOLDERS = {"conn", "connection", "process", "chan", "channel", "transport",
                    "_conn", "_process", "_chan", "_transport"}
"""Names that, in our code, hold an asyncssh connection, channel or process, or the
transport under one."""


def obviously_asyncssh(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in ASYNCSSH_HOLDERS
    return isinstance(node, ast.Attribute) and node.attr in ASYNCSSH_HOLDERS


@cache
def asyncssh_privates(cls: type) -> frozenset[str]:
    """Private names of an asyncssh class: its members and the ``self._x``
    attributes its source sets, over its MRO."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass.__module__.split(".")[0] != "asyncssh":
            continue
        names.update(n for n in vars(klass) if is_private(n))
        try:
            source = inspect.getsource(klass)
        except (OSError, TypeError):
            continue
        for node in ast.walk(ast.parse(inspect.cleandoc("\n" + source))):
            if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                    and is_self(node.value) and is_private(node.attr)):
                names.add(node.attr)
    return frozenset(names)


def asyncssh_class_violations(rel: str, tree: ast.Module,
                              allowed: frozenset[str]) -> Iterator[str]:
    """In a class built on an asyncssh class: ``self._x``, ``def _x`` or
    ``super()._x`` where ``_x`` is one of that class's privates."""
    module = importlib.import_module(module_name(rel))
    for top in tree.body:
        if not isinstance(top, ast.ClassDef):
            continue
        cls = getattr(module, top.name, None)
        if not isinstance(cls, type):
            continue
        bases = [k for k in cls.__mro__[1:] if k.__module__.split(".")[0] == "asyncssh"]
        if not bases:
            continue
        theirs = set().union(*(asyncssh_privates(k) for k in bases)) - allowed
        for node in ast.walk(top):
            name = None
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node in top.body:
                name = node.name
            elif isinstance(node, ast.Attribute) and (is_self(node.value)
                                                       or is_super_call(node.value)):
                name = node.attr
            if name in theirs:
                yield (f"{rel}:{node.lineno}: {top.name}.{name} is a private of its "
                       f"asyncssh base {bases[0].__name__}")


def asyncssh_violations(rel: str, tree: ast.Module) -> Iterator[str]:
    """What the source alone shows: an inner module of asyncssh imported, a private
    of a connection, channel, process or transport read or written (by attribute,
    ``vars()`` or name), an object's class swapped."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("asyncssh."):
                yield f"{rel}:{node.lineno}: imports {node.module}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("asyncssh."):
                    yield f"{rel}:{node.lineno}: imports {alias.name}"
        elif isinstance(node, ast.Attribute):
            if is_private(node.attr) and obviously_asyncssh(node.value):
                yield f"{rel}:{node.lineno}: {ast.unparse(node)}"
            elif node.attr == "__class__" and isinstance(node.ctx, ast.Store):
                yield f"{rel}:{node.lineno}: swaps the class of {ast.unparse(node.value)}"
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "vars" and node.args and obviously_asyncssh(node.args[0])):
            yield f"{rel}:{node.lineno}: vars({ast.unparse(node.args[0])})"
    for line, obj, name in private_string_lookups(tree):
        if obviously_asyncssh(obj):
            yield f"{rel}:{line}: looks up {name!r} on {ast.unparse(obj)}"


@pytest.mark.slow      # a scan of every module (2.6 s): the full suite (the fast tier's 90 s)
def test_no_private_asyncssh_use_elsewhere() -> None:
    problems: list[str] = []
    for rel in scanned_files():
        if rel in FENCED_ASYNCSSH:
            continue
        tree = parse(rel)
        problems += asyncssh_violations(rel, tree)
        problems += asyncssh_class_violations(rel, tree, frozenset())
    assert not problems, (
        "asyncssh privates used outside server/wire.py (reach them through a function "
        "there, checked in tests/test_textual_compat.py):\n  " + "\n  ".join(problems))


BAD_ASYNCSSH = """
from asyncssh.sftp import MIN_SFTP_VERSION

def f(conn, process, self):
    conn._transport = None
    vars(process).get("_stdin")
    getattr(self.channel, "_window")
    conn.__class__ = object
    self.conn._recv_handler()
    table._mine
"""


def test_the_asyncssh_scanner_catches_the_known_patterns() -> None:
    found = [v.split(": ", 1)[1] for v in asyncssh_violations("bad.py", ast.parse(BAD_ASYNCSSH))]
    assert sorted(found) == sorted([
        "imports asyncssh.sftp",
        "conn._transport",
        "vars(process)",
        "looks up '_window' on self.channel",
        "swaps the class of conn",
        "self.conn._recv_handler",
    ])


# ------------------------------------------------- the scanner finds them
BAD = """
import textual.app as textual_app
from rich.console import Console
from textual._time import get_time
from textual.app import App, _NullFile

class Mixin:
    def _display(self, screen, renderable):
        super()._display(screen, renderable)
        self._own = 1
        return super()._own_helper()

def f(app, screen, console, table):
    textual_app.redirect_stdout = None
    getattr(app, "_closing")
    Console(_environ={})
    table._private_of_ours
    return (app._driver, screen._layout_required, console._color_system,
            app.console._x, self.app._batch_count, App._display, self._mine)
"""


def test_scanner_catches_the_known_patterns() -> None:
    found = [v.split(": ", 1)[1] for v in source_violations("bad.py", ast.parse(BAD))]
    assert sorted(found) == sorted([
        "imports textual._time",
        "imports textual.app._NullFile",
        "super()._display (a Textual private)",
        "patches textual_app.redirect_stdout",
        "looks up '_closing' on app",
        "Console(_environ=...)",
        "app._driver",
        "screen._layout_required",
        "console._color_system",
        "app.console._x",
        "self.app._batch_count",
        "App._display",
    ])


def test_every_app_shares_the_parsed_css() -> None:
    """``shared_stylesheets``: the same CSS (with the same variables) is parsed once
    for the process, not once per session's App (nor per stylesheet Textual makes
    to reparse); other variables parse again."""
    from textual.css.stylesheet import Stylesheet

    from tui.textual_compat import shared_stylesheets

    shared_stylesheets()
    css = "Label { color: $accent; width: 12; }"
    first, second = Stylesheet(variables={"accent": "red"}), Stylesheet(variables={"accent": "red"})
    rules = first._parse_rules(css, ("test", "shared"))
    assert second._parse_rules(css, ("test", "shared")) is rules
    other = Stylesheet(variables={"accent": "blue"})._parse_rules(css, ("test", "shared"))
    assert other is not rules and str(other[0].styles.color) != str(rules[0].styles.color)
