"""One browser's terminal as the SSH driver sees a session: ``WebProcess`` gives
``server.driver.SSHDriver`` and ``server.sessions.SessionHandler.run_tui`` the few
parts of an asyncssh server process they use, over one websocket. So a browser's
app reads its keys, is held to the input limits (bytes and keys a second, pastes,
window changes) and writes its frames exactly as an SSH session's does: one driver,
one app, one table engine.

The websocket carries binary messages both ways (the terminal's bytes: what xterm.js
sends for keys, taps and pastes; the app's output, one message a frame) and small
text messages for what SSH says out of band: a window size from the page
(``{"type": "resize", "cols": C, "rows": R}``), and from the room its hello and
refusals (server/web/listener.py).

What SSHDriver uses, and how it is done here:

* ``stdin.read(n)``: at most ``n`` bytes of what the browser sent, taken from the
  websocket when nothing is left; a window size raises
  ``asyncssh.TerminalSizeChanged`` as asyncssh does; ``b""`` at the end. Reading is
  pulled by the driver: while it holds a flood back it does not read, websockets'
  queue fills (``max_queue``) and TCP flow control stops the browser, as SSH's
  window does;
* ``stdout.write(bytes)``: a frame, sent by a task of this session's (``ws.send``
  waits for the socket to drain; a write never does), frames written meanwhile sent
  together;
* ``channel.get_write_buffer_size()``: what is still to send, so a browser that stops
  reading is dropped at the driver's ``MAX_WRITE_BACKLOG``, as an SSH client is;
  ``pause_reading``/``resume_reading``: nothing to do (reading is pulled);
* ``get_extra_info("connection").get_owner().limits``: the room's configured limits,
  which the driver applies (an SSH connection answers the same).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING, Any

import asyncssh
from websockets.exceptions import ConnectionClosed

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

    from ..limits import Limits

log = logging.getLogger("lamma.web")

FINISH_WAIT = 2.0           # seconds the last words of a session may take to go
CONTROL_MAX = 256           # characters of a text message from the page (a window size)


class _Stdin:
    def __init__(self, process: WebProcess):
        self._process = process

    async def read(self, n: int = -1) -> bytes:
        return await self._process.read(n)


class _Stdout:
    def __init__(self, process: WebProcess):
        self._process = process

    def write(self, data: bytes) -> None:
        self._process.send(data)


class WebProcess:
    """A browser's session, shaped as the asyncssh server process SSHDriver reads."""

    def __init__(self, ws: ServerConnection, limits: Limits, size: tuple[int, int],
                 env: dict[str, str]):
        self.ws = ws
        self.limits = limits
        self.env = env
        self._size = size
        self.stdin = _Stdin(self)
        self.stdout = _Stdout(self)
        self.channel = self
        self._inbox = bytearray()       # received, not read yet
        # Written, not sent yet: frames (bytes written together joined) and text
        # messages, in order; ``_queued`` counts the frames' bytes.
        self._outbox: list[bytearray | str] = []
        self._queued = 0
        self._wake = asyncio.Event()
        self._ended = False
        self._closing = False
        self.bytes_in = 0               # terminal bytes from the browser
        self.bytes_out = 0              # terminal bytes to it
        self.controls_refused = 0       # text messages that were not a window size
        self.kicked: str | None = None  # why the room closed the session (a template)
        self._sender = asyncio.get_running_loop().create_task(self._send_loop(),
                                                              name="lamma-web-send")

    # --------------------------------------------------------- what asyncssh has
    def get_terminal_type(self) -> str:
        return "xterm-256color"

    def get_terminal_size(self) -> tuple[int, int, int, int]:
        return self._size[0], self._size[1], 0, 0

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self if name == "connection" else default

    def get_owner(self) -> WebProcess:
        return self         # ``.limits``: the driver's

    def get_write_buffer_size(self) -> int:
        transport = self.ws.transport
        buffered = transport.get_write_buffer_size() if transport is not None else 0
        return self._queued + buffered

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def close(self) -> None:
        """The driver gives up on a browser that stopped reading: the socket goes."""
        self._ended = True
        transport = self.ws.transport
        if transport is not None:
            transport.abort()

    # ------------------------------------------------------------------ input
    async def read(self, n: int) -> bytes:
        while not self._inbox:
            if self._ended:
                return b""
            try:
                message = await self.ws.recv()
            except ConnectionClosed:
                self._ended = True
                return b""
            if isinstance(message, str):
                self._control(message)      # may raise TerminalSizeChanged
                continue
            self.bytes_in += len(message)
            self._inbox += message
        if n < 0 or n >= len(self._inbox):
            data = bytes(self._inbox)
            self._inbox.clear()
        else:
            data = bytes(self._inbox[:n])
            del self._inbox[:n]
        return data

    def _control(self, text: str) -> None:
        """A text message: the page's window size, or nothing (ignored, counted)."""
        size = parse_resize(text)
        if size is None:
            self.controls_refused += 1
            return
        self._size = size
        raise asyncssh.TerminalSizeChanged(size[0], size[1], 0, 0)

    # ----------------------------------------------------------------- output
    def send(self, data: bytes) -> None:
        if self._ended or not data:
            return
        box = self._outbox
        if box and isinstance(box[-1], bytearray):
            box[-1] += data                 # frames written meanwhile go together
        else:
            box.append(bytearray(data))
        self._queued += len(data)
        self._wake.set()

    def say(self, message: dict[str, Any]) -> None:
        """A text message to the page (its hello), in order with the frames."""
        if self._ended:
            return
        self._outbox.append(json.dumps(message, ensure_ascii=False))
        self._wake.set()

    async def _send_loop(self) -> None:
        box = self._outbox
        try:
            while True:
                if not box:
                    if self._closing:
                        return
                    await self._wake.wait()
                    self._wake.clear()
                    continue
                item = box.pop(0)
                if isinstance(item, bytearray):
                    self._queued -= len(item)
                    self.bytes_out += len(item)
                    await self.ws.send(bytes(item))
                else:
                    await self.ws.send(item)
        except (ConnectionClosed, RuntimeError):
            self._ended = True
            box.clear()
            self._queued = 0

    async def finish(self) -> None:
        """The session is over: what is written still goes (the last words, within
        ``FINISH_WAIT``), then the sending task ends."""
        self._closing = True
        self._wake.set()
        try:
            await asyncio.wait_for(asyncio.shield(self._sender), FINISH_WAIT)
        except Exception:
            self._sender.cancel()
        self._ended = True


def parse_resize(text: str) -> tuple[int, int] | None:
    """``{"type": "resize", "cols": C, "rows": R}`` → (C, R), as the page said them
    (the driver clamps them); None for anything else."""
    if len(text) > CONTROL_MAX:
        return None
    try:
        message = json.loads(text)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("type") != "resize":
        return None
    cols, rows = message.get("cols"), message.get("rows")
    if not isinstance(cols, int) or not isinstance(rows, int) or isinstance(cols, bool) \
            or isinstance(rows, bool):
        return None
    return cols, rows
