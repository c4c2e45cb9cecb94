"""A Textual Driver that talks to one SSH channel, in-process.

The App builds its driver as ``driver_class(app, debug=, mouse=, size=)``
(``App._build_driver``); the driver finds its SSH process through
``app.ssh_process``.  No threads, no signals, no tty of the server's own:
input is read by one asyncio task, output of a frame is buffered and written
to the channel in one write on ``flush``.

Textual internals this module relies on (the driver's own; any other private
of Textual is reached through ``tui.textual_compat`` only), each checked by
``tests/test_textual_compat.py``:

* ``textual._xterm_parser.XTermParser``: the key/mouse/paste parser that
  Textual's own drivers use; there is no public one.
* ``XTermParser._parse_extended_key``: an ``lru_cache``-wrapped method whose
  undecorated function (``__wrapped__``) :class:`SessionParser` uses instead.
* ``Parser._timeout_time`` and ``textual._time.get_time``: when a lone Esc
  resolves (the parser only does that when ``tick()`` is called after it).
* ``Driver._size``: the terminal size a driver holds; ``App.size`` reads it
  until the first Resize event, so a resize sets it.
"""

from __future__ import annotations

import asyncio
import codecs
import logging
from typing import TYPE_CHECKING, Any, cast

import asyncssh
from textual import events
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.driver import Driver
from textual.geometry import Size
from textual.messages import Message

if TYPE_CHECKING:
    from tui.app import LammaApp

log = logging.getLogger("lamma.driver")

MIN_COLS, MAX_COLS = 2, 400
MIN_ROWS, MAX_ROWS = 2, 200
MAX_WRITE_BACKLOG = 4 * 1024 * 1024   # a client that stops reading is dropped
READ_CHUNK = 1024
KEY_BURST = 60                        # keys a client may send at once ...
KEY_RATE = 30.0                       # ... and per second after that; the rest are dropped
MAX_PENDING_EVENTS = 256             # stop reading while the App is this far behind


def clamp_size(width: object, height: object) -> tuple[int, int]:
    """A hostile client may claim any window size."""
    try:
        w = int(cast(Any, width))    # whatever it is: int() raising is handled
        h = int(cast(Any, height))
    except (TypeError, ValueError):
        return 80, 24
    if w <= 0 or h <= 0:
        return 80, 24
    return max(MIN_COLS, min(MAX_COLS, w)), max(MIN_ROWS, min(MAX_ROWS, h))


class SessionParser(XTermParser):
    """XTermParser without the class-level ``lru_cache`` on
    ``_parse_extended_key``: that cache is keyed on ``self`` and would keep
    every finished session's parser (and through it nothing else, but it is
    a leak all the same) alive.  The undecorated function is used instead."""

    # The base declares the attribute as the lru_cache wrapper it is there.
    _parse_extended_key = XTermParser._parse_extended_key.__wrapped__  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__(debug=False)  # never debug=True: it opens keys.log


class SSHDriver(Driver):
    def __init__(self, app: LammaApp, *, debug: bool = False, mouse: bool = True,
                 size: tuple[int, int] | None = None) -> None:
        super().__init__(app, debug=False, mouse=mouse, size=size)
        # Our own references (not the base class's private ``_app``,
        # ``_mouse`` and ``_loop``, which hold the same).
        self._session_app = app
        self._mouse_reports = mouse
        self._clock = asyncio.get_running_loop().time
        if app.ssh_process is None:
            raise RuntimeError("the server sets app.ssh_process before the app runs")
        self._process: asyncssh.SSHServerProcess[bytes] = app.ssh_process
        self._buffer: list[str] = []
        self._input_task: asyncio.Task[None] | None = None
        self._tick_handle: asyncio.TimerHandle | None = None
        self._parser: SessionParser | None = None
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._closed = False
        self.bytes_out = 0
        self._tokens = float(KEY_BURST)
        self._tokens_at = 0.0
        self.dropped_keys = 0

    # ---------------------------------------------------------------- output
    def write(self, data: str) -> None:
        if not self._closed:
            self._buffer.append(data)

    def flush(self) -> None:
        if not self._buffer:
            return
        data = "".join(self._buffer)
        self._buffer.clear()
        if self._closed:
            return
        chan = self._process.channel
        try:
            if chan.get_write_buffer_size() > MAX_WRITE_BACKLOG:
                log.info("dropping a session that stopped reading")
                self._closed = True
                self._process.close()
                return
            raw = data.encode("utf-8", "replace")
            self.bytes_out += len(raw)
            self._process.stdout.write(raw)
        except (OSError, asyncssh.Error, BrokenPipeError):
            self._closed = True
        except Exception:  # a closed channel raises assorted errors
            self._closed = True

    # ------------------------------------------------------------ lifecycle
    def send_message(self, message: Message) -> None:
        # Everything runs on the loop's thread: post directly.
        self._session_app.post_message(message)

    def process_message(self, message: Message) -> None:
        # Sizes come from the SSH channel only: an in-band resize report typed
        # by a hostile client could claim any size.  Huge pastes are dropped.
        if isinstance(message, events.Resize):
            return
        if isinstance(message, events.Paste) and len(message.text) > 2000:
            return
        if isinstance(message, events.Key):
            now = self._clock()
            self._tokens = min(KEY_BURST, self._tokens + (now - self._tokens_at) * KEY_RATE)
            self._tokens_at = now
            if self._tokens < 1:
                self.dropped_keys += 1
                return
            self._tokens -= 1
        if isinstance(message, events.MouseEvent):
            w, h = self._size or (80, 24)
            if not (0 <= message.x < w and 0 <= message.y < h):
                return
        super().process_message(message)

    def start_application_mode(self) -> None:
        width, height = self._size or (80, 24)
        size = Size(width, height)
        self._session_app.post_message(events.Resize(size, size))
        write = self.write
        write("\x1b[?1049h")   # alternate screen
        write("\x1b[?25l")     # hide the cursor (no blinking cursor anywhere)
        if self._mouse_reports:
            write("\x1b[?1000h")   # clicks only: no motion reports
            write("\x1b[?1006h")   # SGR coordinates
        write("\x1b[?2004h")   # bracketed paste
        write("\x1b[?7l")      # no line wrap
        write("\x1b[?2026$p")  # ask whether synchronized output is supported
        self.flush()
        self._parser = SessionParser()
        self._input_task = asyncio.get_running_loop().create_task(
            self._read_input(), name="lamma-input")

    def disable_input(self) -> None:
        if self._input_task is not None and self._input_task is not asyncio.current_task():
            self._input_task.cancel()
        self._input_task = None
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None

    def stop_application_mode(self) -> None:
        self.disable_input()
        write = self.write
        if self._mouse_reports:
            write("\x1b[?1000l\x1b[?1006l")
        write("\x1b[?2004l\x1b[?7h\x1b[?1049l\x1b[?25h")
        self.flush()

    def close(self) -> None:
        self.disable_input()
        self._closed = True
        self._buffer.clear()
        self._parser = None

    # ----------------------------------------------------------------- input
    async def _read_input(self) -> None:
        stdin = self._process.stdin
        try:
            while True:
                try:
                    data = await stdin.read(READ_CHUNK)
                except asyncssh.TerminalSizeChanged as exc:
                    self._resize(exc.width, exc.height)
                    continue
                except (asyncssh.BreakReceived, asyncssh.SignalReceived):
                    continue
                if not data:
                    break
                self._feed(data)
                # Back-pressure: a client typing (or pasting garbage) faster
                # than its App can handle waits here, and SSH flow control
                # then stops it; the other sessions are not starved.
                app = self._session_app
                # Polled: Textual signals nothing when its queue drains.
                while app.message_queue_size > MAX_PENDING_EVENTS:  # noqa: ASYNC110
                    await asyncio.sleep(0.02)
        except asyncio.CancelledError:
            raise
        except (asyncssh.Error, OSError, ConnectionError):
            pass
        except Exception:
            log.exception("session input failed")
        # EOF or a dropped connection: this session's App ends cleanly.
        self._input_task = None
        self._session_app.exit()

    def _resize(self, width: int, height: int) -> None:
        w, h = clamp_size(width, height)
        self._size = (w, h)
        size = Size(w, h)
        self._session_app.post_message(events.Resize(size, size))

    def _feed(self, data: bytes) -> None:
        parser = self._parser
        if parser is None:
            return
        text = self._decoder.decode(data)
        try:
            for event in parser.feed(text):
                self.process_message(event)
        except Exception:
            # Garbage that the parser cannot digest: start a fresh parser.
            log.debug("parser reset", exc_info=True)
            self._parser = SessionParser()
        self._schedule_tick()

    def _schedule_tick(self) -> None:
        """A lone Esc is only resolved by ``tick()`` after the escape delay."""
        parser = self._parser
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None
        if parser is None or parser._timeout_time is None:
            return
        delay = max(0.0, parser._timeout_time - get_time()) + 0.005
        self._tick_handle = asyncio.get_running_loop().call_later(delay, self._tick)

    def _tick(self) -> None:
        self._tick_handle = None
        parser = self._parser
        if parser is None:
            return
        try:
            for event in parser.tick():
                self.process_message(event)
        except Exception:
            self._parser = SessionParser()
        self._schedule_tick()
