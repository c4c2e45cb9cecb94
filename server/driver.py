"""A Textual Driver that talks to one SSH channel, in-process.

The App builds its driver as ``driver_class(app, debug=, mouse=, size=)``
(``App._build_driver``); the driver finds its SSH process through
``app.ssh_process``.  No threads, no signals, no tty of the server's own:
input is read by one asyncio task, output of a frame is buffered and written
to the channel in one write on ``flush``.

What a terminal sends is held to limits (issue 11) before Textual's parser
sees a byte, and a player whose input was held back is told so on the screen
(``tui.messages.InputLimited``, once per burst); the session lives on:

* a bracketed paste never reaches the parser (which would keep all of it,
  ~28 bytes of server per byte sent, until its end marker): :class:`PasteGate`
  takes it out of the byte stream, keeps at most ``PASTE_MAX_BYTES`` of it
  and only counts the rest; the driver posts the ``Paste`` itself;
* input bytes a second (``KEY_BYTES_RATE``, ``KEY_BYTES_BURST``), and key
  events (``KEY_RATE``, ``KEY_BURST``): a read beyond the bytes, or while no
  key event is left, is dropped whole (keys beyond them one by one); the
  parser is reset where a drop begins and the rest of an escape sequence
  cut by a drop is skipped where it ends, so no half sequence turns into
  keys; input thrown away (this, or the rest of a cut paste) is read all at
  once, so asyncssh's buffers stay bounded, and then the channel is paused:
  SSH flow control holds a flood at its client;
* window changes: at most ``RESIZE_RATE`` a second (``RESIZE_BURST`` at
  once) are applied; beyond that the latest size waits until the changes
  pause (or a second at most) and the others only replace it, so the last
  size always is applied and a flood costs a comparison a change.

Textual internals this module relies on (the driver's own; any other private
of Textual is reached through ``tui.textual_compat`` only), each checked by
``tests/test_textual_compat.py``:

* ``textual._xterm_parser.XTermParser``: the key/mouse/paste parser that
  Textual's own drivers use; there is no public one.
* ``XTermParser._parse_extended_key``: an ``lru_cache``-wrapped method whose
  undecorated function (``__wrapped__``) :class:`SessionParser` uses instead.
"""

from __future__ import annotations

import asyncio
import codecs
import logging
import re
from typing import TYPE_CHECKING, Any, cast

import asyncssh
from textual import constants, events
from textual._xterm_parser import XTermParser
from textual.driver import Driver
from textual.geometry import Size
from textual.messages import Message

from tui.messages import PASTE_CUT, TOO_FAST, InputLimited

from .limits import (
    KEY_BYTES_BURST,
    KEY_BYTES_RATE,
    PASTE_MAX_BYTES,
    RESIZE_BURST,
    RESIZE_RATE,
    Bucket,
)

if TYPE_CHECKING:
    from tui.app import LammaApp

log = logging.getLogger("lamma.driver")

MIN_COLS, MAX_COLS = 2, 400
MIN_ROWS, MAX_ROWS = 2, 200
MAX_WRITE_BACKLOG = 4 * 1024 * 1024   # a client that stops reading is dropped
READ_CHUNK = 512                      # a read is fed or dropped whole: far below KEY_BYTES_BURST
                                      # (and ~10 ms of parsing when it is all keys)
# While input is thrown away (a refused flood, the rest of a cut paste), a read takes all
# that asyncssh holds: it grants the client a new window (2 MB) when it moves buffered data
# on towards a read, not when the data is read, so reads that left data behind would let
# a flood pile up there without end; taking everything keeps its buffers under two windows.
# Then the channel is paused (no window is granted) for as long as reading what was thrown
# away at DROP_RATE would take: a flood reaches the server no faster than that.
DROP_CHUNK = 4 * 1024 * 1024
DROP_RATE = 8 * 1024 * 1024           # bytes a second
MAX_DROP_PAUSE = 0.5                  # seconds
KEY_BURST = 60                        # key events a client may send at once ...
KEY_RATE = 30.0                       # ... and per second after that; the rest are dropped
MAX_PENDING_EVENTS = 256              # stop reading while the App is this far behind
RESIZE_QUIET = 0.1                    # a window size held back waits for the changes to pause
RESIZE_MAX_WAIT = 1.0                 # ... this long at most (a flood: one a second)
NOTICE_QUIET = 2.0                    # one notice per burst: a burst ends after this long quiet
MAX_SEQUENCE = 32                     # XTermParser gives up on a longer escape sequence
ESC = 0x1B

# What the player is told (TOO_FAST, PASTE_CUT) lives with InputLimited in
# tui.messages, marked for the catalogue (N_) and said in the player's language.

PASTE_START = b"\x1b[200~"
PASTE_END = b"\x1b[201~"
# What a pasted text may not carry to a widget: C0 controls but tab and line ends, DEL, C1.
_PASTE_CONTROLS = dict.fromkeys([*range(0, 9), 11, 12, *range(14, 32), 127, *range(0x80, 0xA0)])
_CSI_BODY = re.compile(rb"[\x30-\x3f]*[\x20-\x2f]*")


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


# ------------------------------------------------------------ the byte stream
def sequence_length(seq: bytes) -> int | None:
    """How many bytes the escape sequence at the start of ``seq`` (``seq[0]`` is
    ESC) takes, as XTermParser reads it (CSI, SS3, Alt+key, a lone Esc before
    another); None while ``seq`` ends inside it."""
    if len(seq) < 2:
        return None
    second = seq[1]
    if second == ESC:
        return 1
    if second == 0x4F:                      # SS3: ESC O x
        if len(seq) >= 3:
            return 3
    elif second == 0x5B:                    # CSI: ESC [ params intermediates final
        match = _CSI_BODY.match(seq, 2)
        end = match.end() if match else 2
        if end < len(seq):
            return end + 1 if 0x40 <= seq[end] <= 0x7E else end
    else:
        return 2                            # Alt+key
    return None if len(seq) <= MAX_SEQUENCE else MAX_SEQUENCE + 1


def open_sequence(tail: bytes, chunk: bytes) -> bytes:
    """The escape sequence the byte stream ends inside after ``chunk`` (b"" if
    none), given the one it ended inside before (``tail``).  An ESC always
    starts a new sequence, so only the last one matters."""
    last = chunk.rfind(b"\x1b")
    if last >= 0:
        seq = chunk[last:last + MAX_SEQUENCE + 1]
    elif tail:
        seq = tail + chunk[:MAX_SEQUENCE + 1]
    else:
        return b""
    return seq if sequence_length(seq) is None else b""


def continuation(tail: bytes, chunk: bytes) -> int:
    """How many leading bytes of ``chunk`` finish the sequence ``tail`` began."""
    if not tail:
        return 0
    n = sequence_length(tail + chunk[:MAX_SEQUENCE + 1])
    return len(chunk) if n is None else max(0, min(len(chunk), n - len(tail)))


def partial_suffix(data: bytes, marker: bytes) -> int:
    """The length of the longest end of ``data`` that begins ``marker``."""
    for k in range(min(len(marker) - 1, len(data)), 0, -1):
        if data.endswith(marker[:k]):
            return k
    return 0


class PasteGate:
    """Bracketed pastes, taken out of the raw byte stream before the parser.

    ``split(data)`` cuts a read into key bytes (for the parser), paste starts,
    paste content and paste ends, in order.  Of each paste at most ``limit``
    bytes of content are passed on (cut on a UTF-8 character boundary); the
    rest is only counted.  The markers may be split over reads: outside a
    paste the last bytes seen are kept to find a start marker that began in
    an earlier read (those bytes went to the parser: the START item carries
    them so the parser can be reset); inside a paste a partial end marker is
    held back until the next read.  Memory stays within ``limit`` and a few
    bytes however long a paste is."""

    KEYS, START, CONTENT, END = range(4)

    def __init__(self, limit: int = PASTE_MAX_BYTES) -> None:
        self.limit = limit
        self.in_paste = False
        self.kept = 0           # content bytes of the current paste passed on
        self.cut = False        # ... and whether any was left out
        self._tail = b""

    @property
    def discarding(self) -> bool:
        """Inside a paste that is already cut: whatever comes is thrown away."""
        return self.in_paste and self.cut

    def split(self, data: bytes) -> tuple[list[tuple[int, bytes]], int]:
        """The items of ``data`` and how many of its bytes were thrown away."""
        items: list[tuple[int, bytes]] = []
        thrown = 0
        while data:
            tail = self._tail
            buf = tail + data if tail else data
            if not self.in_paste:
                i = buf.find(PASTE_START)
                if i < 0:
                    items.append((self.KEYS, data))
                    self._tail = buf[-(len(PASTE_START) - 1):]
                    break
                start = i - len(tail)           # < 0: the marker began in an earlier read
                if start > 0:
                    items.append((self.KEYS, data[:start]))
                items.append((self.START, buf[i:len(tail)] if start < 0 else b""))
                data = data[start + len(PASTE_START):]
                self.in_paste, self.kept, self.cut, self._tail = True, 0, False, b""
            else:
                j = buf.find(PASTE_END)
                if j < 0:
                    k = partial_suffix(buf, PASTE_END)
                    thrown += self._content(items, buf, len(buf) - k)
                    self._tail = buf[len(buf) - k:]
                    break
                thrown += self._content(items, buf, j)
                items.append((self.END, b"cut" if self.cut else b""))
                data = buf[j + len(PASTE_END):]
                self.in_paste, self._tail = False, b""
        return items, thrown

    def _content(self, items: list[tuple[int, bytes]], buf: bytes, n: int) -> int:
        """Pass on what fits of ``buf[:n]``; return how much did not."""
        room = 0 if self.cut else self.limit - self.kept
        if n <= room:
            if n:
                items.append((self.CONTENT, buf[:n]))
                self.kept += n
            return 0
        take = room
        for _ in range(3):                      # never half a UTF-8 character
            if take and 0x80 <= buf[take] < 0xC0:
                take -= 1
        if take:
            items.append((self.CONTENT, buf[:take]))
            self.kept += take
        self.cut = True
        return n - take


class SessionParser(XTermParser):
    """XTermParser without the class-level ``lru_cache`` on
    ``_parse_extended_key``: that cache is keyed on ``self`` and would keep
    every finished session's parser (and through it nothing else, but it is
    a leak all the same) alive.  The undecorated function is used instead."""

    # The base declares the attribute as the lru_cache wrapper it is there.
    _parse_extended_key = XTermParser._parse_extended_key.__wrapped__  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__(debug=False)  # never debug=True: it opens keys.log


def end_parser(parser: XTermParser | None) -> None:
    """A parser holds its own running generator, which holds it: a reference
    cycle (and in it the last events parsed, which hold their app).  Ending
    the generator (end of input: ``feed("")``) breaks it, so a parser dropped
    at a reset or at the session's end goes at once, not in a collection."""
    if parser is None or parser.is_eof:
        return
    try:
        for _ in parser.feed(""):
            pass
    except Exception:       # whatever it makes of a half sequence: it is dropped
        pass


class SSHDriver(Driver):
    """The driver of one SSH session's App; also the app's ``Surface``
    (``tui.widgets.board``): ``write``, ``flush`` and ``frames``."""

    def __init__(self, app: LammaApp, *, debug: bool = False, mouse: bool = True,
                 size: tuple[int, int] | None = None) -> None:
        super().__init__(app, debug=False, mouse=mouse, size=size)
        # Our own references (not the base class's private ``_app``,
        # ``_mouse`` and ``_loop``, which hold the same).
        self._session_app = app
        self._mouse_reports = mouse
        self._clock = asyncio.get_running_loop().time
        # The client's window size: our own (App.size reads the base class's copy only
        # until the first Resize event, which start_application_mode posts with it).
        self.term_size: tuple[int, int] | None = size
        if app.ssh_process is None:
            raise RuntimeError("the server sets app.ssh_process before the app runs")
        self._process: asyncssh.SSHServerProcess[bytes] = app.ssh_process
        self._buffer: list[str] = []
        self._read_events: list[Message] | None = None   # the events of the read being parsed
        self._input_task: asyncio.Task[None] | None = None
        self._tick_handle: asyncio.TimerHandle | None = None
        self._escape_fed = False            # the key bytes just fed held an Esc
        self._parser: SessionParser | None = None
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._closed = False
        self.bytes_out = 0
        self.frames = 0                     # flushes that sent something (``Surface``)
        # Input limits (issue 11), the room's (its configuration) where there is one:
        # the connection's owner names them, an SSH connection's or a browser's alike.
        info = getattr(app.ssh_process, "get_extra_info", None)      # (tests give a stub)
        conn = info("connection") if info is not None else None
        get_owner = getattr(conn, "get_owner", None)
        owner = get_owner() if callable(get_owner) else None
        lim = getattr(owner, "limits", None)
        paste_max = getattr(lim, "paste_max_bytes", PASTE_MAX_BYTES)
        key_rate = getattr(lim, "key_bytes_rate", KEY_BYTES_RATE)
        key_burst = getattr(lim, "key_bytes_burst", KEY_BYTES_BURST)
        resize_rate = getattr(lim, "resize_rate", RESIZE_RATE)
        resize_burst = getattr(lim, "resize_burst", RESIZE_BURST)
        self._gate = PasteGate(paste_max)
        self._paste = bytearray()           # the current paste's content kept so far
        self._key_bytes = Bucket(key_rate, key_burst)
        self._keys = Bucket(KEY_RATE, KEY_BURST)
        self._refusing = False              # the last read was dropped
        self._resync = False                # the next key bytes fed may finish a dropped sequence
        self._seq_tail = b""                # the escape sequence the key bytes end inside
        self._resizes = Bucket(resize_rate, resize_burst)
        self._pending_size: tuple[object, object] | None = None
        self._pending_since = 0.0
        self._changes = 0                   # window changes received ...
        self._changes_seen = 0              # ... and when the waiting size was last looked at
        self._resize_handle: asyncio.TimerHandle | None = None
        self._limited_at: dict[str, float] = {}
        # What came in and what was held back (tests and operators read these).
        self.bytes_in = 0
        self.dropped_keys = 0
        self.dropped_bytes = 0
        self.pastes_cut = 0
        self.resizes_applied = 0
        self.notices = 0

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
            self.frames += 1
            self._process.stdout.write(raw)     # sent at once: one SSH packet (up to 32 KB)
        except (OSError, asyncssh.Error, BrokenPipeError):
            self._closed = True
        except Exception:  # a closed channel raises assorted errors
            self._closed = True

    # ------------------------------------------------------------ lifecycle
    def send_message(self, message: Message) -> None:
        # Everything runs on the loop's thread: post directly, unless a read is
        # being parsed: its events are delivered in order after it (``_deliver``).
        if self._read_events is not None:
            self._read_events.append(message)
        else:
            self._session_app.post_message(message)

    async def _deliver(self, messages: list[Message]) -> None:
        """A read's events in order: a key the app can take at once is handled
        now, in this task (``LammaApp.key_now``); the others, and everything
        after one posted, go through the app's queue.  Between two keys handled
        here the loop runs the other sessions: a read may hold up to ``KEY_BURST``
        keys, each a frame at the table (Textual's queues ran them all in one go)."""
        app = self._session_app
        last = len(messages) - 1
        for i, message in enumerate(messages):
            if isinstance(message, events.Key) and await app.key_now(message):
                if i < last:
                    await asyncio.sleep(0)
                continue
            app.post_message(message)

    def process_message(self, message: Message) -> None:
        # Sizes come from the SSH channel only: an in-band resize report typed
        # by a hostile client could claim any size.
        if isinstance(message, events.Resize):
            return
        if isinstance(message, events.Key):
            if not self._keys.take():
                self.dropped_keys += 1
                self._limited("keys", TOO_FAST)
                return
        if isinstance(message, events.MouseEvent):
            w, h = self.term_size or (80, 24)
            if not (0 <= message.x < w and 0 <= message.y < h):
                return
        super().process_message(message)

    def _limited(self, kind: str, text: str, **params: object) -> None:
        """Tell the player, once per burst of ``kind``: ``text`` is a sentence of
        ``tui.messages`` (said in the player's language), ``params`` its placeholders."""
        now = self._clock()
        last = self._limited_at.get(kind)
        self._limited_at[kind] = now
        if last is not None and now - last < NOTICE_QUIET:
            return
        self.notices += 1
        self._session_app.post_message(InputLimited(text, **params))

    def start_application_mode(self) -> None:
        width, height = self.term_size or (80, 24)
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
        # From now the app's boards may write their changed cells here at once
        # (tui.widgets.board.Surface), until input is disabled: Textual's shutdown
        # begins there, and after it nothing may be drawn past Textual.
        self._session_app.surface = self

    def disable_input(self) -> None:
        if getattr(self._session_app, "surface", None) is self:
            self._session_app.surface = None
        if self._input_task is not None and self._input_task is not asyncio.current_task():
            self._input_task.cancel()
        self._input_task = None
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None
        if self._resize_handle is not None:
            self._resize_handle.cancel()
            self._resize_handle = None

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
        end_parser(self._parser)
        self._parser = None
        self._paste = bytearray()

    # ----------------------------------------------------------------- input
    async def _read_input(self) -> None:
        stdin = self._process.stdin
        try:
            while True:
                big = self._refusing or self._gate.discarding
                try:
                    data = await stdin.read(DROP_CHUNK if big else READ_CHUNK)
                except asyncssh.TerminalSizeChanged as exc:
                    # Its traceback holds asyncssh's frame, which holds it: a cycle
                    # per window change for the collector, unless broken here.
                    exc.__traceback__ = None
                    self._window_changed(exc.width, exc.height)
                    if self._changes % 64 == 0:
                        # Queued window changes do not wait for the loop: let it run.
                        await asyncio.sleep(0)
                    continue
                except (asyncssh.BreakReceived, asyncssh.SignalReceived):
                    continue
                if not data:
                    break
                self._read_events = []
                try:
                    thrown = self._on_input(data)
                finally:
                    read, self._read_events = self._read_events, None
                if read:
                    await self._deliver(read)
                if thrown >= READ_CHUNK:
                    await self._hold_back(thrown)
                    continue
                if len(data) >= READ_CHUNK:
                    await asyncio.sleep(0)      # more is waiting: the others first
                await self._app_catches_up()
        except asyncio.CancelledError:
            raise
        except (asyncssh.Error, OSError, ConnectionError):
            pass
        except Exception:
            log.exception("session input failed")
        # EOF or a dropped connection: this session's App ends cleanly.
        self._input_task = None
        self._session_app.exit()

    async def _app_catches_up(self) -> None:
        """Back-pressure: a client typing (or pasting garbage) faster than its
        App can handle waits here, and SSH flow control then stops it; the
        other sessions are not starved."""
        app = self._session_app
        # Polled: Textual signals nothing when its queue drains.
        while app.message_queue_size > MAX_PENDING_EVENTS:  # noqa: ASYNC110
            await asyncio.sleep(0.02)

    async def _hold_back(self, thrown: int) -> None:
        """After input was thrown away: no window for the client for a while.
        The next read follows the resume at once (asyncssh's stream may hold
        its own pause, which only its next read lifts in step)."""
        channel = self._process.channel
        channel.pause_reading()
        try:
            await asyncio.sleep(min(MAX_DROP_PAUSE, thrown / DROP_RATE))
            await self._app_catches_up()
        finally:
            channel.resume_reading()

    def _on_input(self, data: bytes) -> int:
        """One read: pastes out, the rate applied, keys to the parser.
        Returns how many bytes were thrown away."""
        self.bytes_in += len(data)
        items, thrown = self._gate.split(data)
        cost = len(data) - thrown
        # A read is refused while the key events it may hold would all be dropped
        # anyway (parsing a read full of keys costs ~20 us a key), and beyond the
        # bytes a second.
        fed = cost == 0 or (self._keys.take(0) and self._keys.level >= 1
                            and self._key_bytes.take(cost))
        if not fed:
            self.dropped_bytes += cost
            thrown += cost
            if not self._refusing:
                # A drop begins: whatever the parser holds of a sequence is
                # discarded with the rest.
                self._reset_parser()
                self._resync = True
            self._limited("keys", TOO_FAST)
        self._refusing = not fed
        gate = self._gate
        refused_paste = False                # content of the paste under way refused here
        for kind, chunk in items:
            if kind == gate.KEYS:
                self._keys_in(chunk, fed)
            elif kind == gate.CONTENT:
                if fed:
                    self._paste += chunk
                else:
                    refused_paste = True
            elif kind == gate.START:
                # The parser never sees a paste.  It may have seen the first
                # bytes of this marker (split over reads), or hold the start
                # of a sequence the marker's ESC would have ended: afresh.
                self._paste.clear()
                self._seq_tail = b""
                self._reset_parser()
                refused_paste = not fed
            else:
                self._end_paste(bool(chunk) or refused_paste)
                refused_paste = False
        if not fed and gate.in_paste:
            gate.cut = True                  # the rest of this paste is thrown away
        if self._parser is not None:
            self._schedule_tick()
        return thrown

    def _keys_in(self, chunk: bytes, fed: bool) -> None:
        tail = self._seq_tail
        self._seq_tail = open_sequence(tail, chunk)
        if not fed:
            return
        if self._resync:
            # The first bytes after a drop: skip the end of a sequence whose
            # start was dropped, and of a UTF-8 character.
            skip = continuation(tail, chunk)
            for _ in range(3):
                if skip < len(chunk) and 0x80 <= chunk[skip] < 0xC0:
                    skip += 1
            self._resync = skip >= len(chunk)
            chunk = chunk[skip:]
            if not chunk:
                return
        self._feed(chunk)

    def _end_paste(self, cut: bool) -> None:
        data = bytes(self._paste)
        self._paste = bytearray()
        text = data.decode("utf-8", "replace").translate(_PASTE_CONTROLS)
        if text:
            self.process_message(events.Paste(text))
        if cut:
            self.pastes_cut += 1
            self._limited("paste", PASTE_CUT, n=len(text))

    def _reset_parser(self) -> None:
        if self._parser is not None:
            end_parser(self._parser)
            self._parser = SessionParser()
        self._decoder.reset()
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None

    def _window_changed(self, width: object, height: object) -> None:
        """Applied at once while the resize bucket allows.  Beyond it (a drag of
        the window edge, a flood) the latest size waits: it is applied once the
        changes pause for RESIZE_QUIET, or after RESIZE_MAX_WAIT at the latest,
        and a change meanwhile only replaces it."""
        self._changes += 1
        if self._resize_handle is not None:
            self._pending_size = (width, height)
            return
        size = clamp_size(width, height)
        if size == self.term_size:
            return
        if self._resizes.take():
            self._resize(*size)
            return
        self._pending_size = (width, height)
        self._pending_since = self._clock()
        self._wait_for_quiet()

    def _wait_for_quiet(self) -> None:
        self._changes_seen = self._changes
        self._resize_handle = asyncio.get_running_loop().call_later(
            RESIZE_QUIET, self._resize_pending)

    def _resize_pending(self) -> None:
        self._resize_handle = None
        changing = self._changes != self._changes_seen
        if changing and self._clock() - self._pending_since < RESIZE_MAX_WAIT:
            self._wait_for_quiet()                # still changing: wait on
            return
        pending, self._pending_size = self._pending_size, None
        if pending is not None:
            size = clamp_size(*pending)
            if size != self.term_size:
                if not self._resizes.take():
                    self._pending_size = pending
                    self._wait_for_quiet()
                    return
                self._resize(*size)
        if changing:
            # Still changing after RESIZE_MAX_WAIT: a flood, whose next size waits too.
            self._pending_since = self._clock()
            self._wait_for_quiet()

    def _resize(self, w: int, h: int) -> None:
        self.term_size = (w, h)
        self.resizes_applied += 1
        size = Size(w, h)
        self._session_app.post_message(events.Resize(size, size))

    def _feed(self, data: bytes) -> None:
        parser = self._parser
        if parser is None:
            return
        if b"\x1b" in data:
            self._escape_fed = True
        text = self._decoder.decode(data)
        try:
            held: events.Key | None = None
            for event in parser.feed(text):
                # The Arabic layout's "لا" key sends two characters at once: one key
                # press (tui.i18n.ARABIC_KEYS), as typed text and as a key alike.
                if held is not None:
                    if isinstance(event, events.Key) and event.character == "\u0627":
                        event = events.Key("\u0644\u0627", "\u0644\u0627")
                    else:
                        self.process_message(held)
                    held = None
                if isinstance(event, events.Key) and event.character == "\u0644":
                    held = event
                    continue
                self.process_message(event)
            if held is not None:
                self.process_message(held)
        except Exception:
            # Garbage that the parser cannot digest: start a fresh parser.
            log.debug("parser reset", exc_info=True)
            self._parser = SessionParser()

    def _schedule_tick(self) -> None:
        """A lone Esc (or an escape sequence cut short) is resolved only by the parser's
        ``tick()``, once ``ESCAPE_DELAY`` has passed since the last character it read.
        After a read that fed an Esc, and after every read while a tick is waiting, the
        tick is (re)armed that long after the read: a tick with nothing waiting does
        nothing, and the parser's own deadline is never after ours."""
        if not self._escape_fed and self._tick_handle is None:
            return
        self._escape_fed = False
        if self._tick_handle is not None:
            self._tick_handle.cancel()
        self._tick_handle = asyncio.get_running_loop().call_later(
            constants.ESCAPE_DELAY + 0.005, self._tick)

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
