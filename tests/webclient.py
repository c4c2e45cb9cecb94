"""A browser's session without a browser: the room's websocket driven from Python (the
``websockets`` client), the terminal's bytes rendered with pyte as the SSH tests do."""

from __future__ import annotations

import asyncio
import json
import time
from urllib.parse import urlencode

import pyte
from websockets.asyncio.client import connect

KEYS = {"enter": b"\r", "left": b"\x1b[D", "right": b"\x1b[C", "up": b"\x1b[A",
        "down": b"\x1b[B", "escape": b"\x1b", "space": b" ", "tab": b"\t"}


def web_port(srv) -> int:
    return srv.room.web.port


class WebClient:
    def __init__(self, ws, size):
        self.ws = ws
        self.screen = pyte.Screen(*size)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.controls: list[dict] = []
        self.hello: dict | None = None
        self.refused: str | None = None
        self.close_code: int | None = None
        self.last_rx = time.monotonic()
        self._outgoing: asyncio.Queue = asyncio.Queue()
        self._task = asyncio.ensure_future(self._read())
        self._writer = asyncio.ensure_future(self._write())

    async def _write(self) -> None:
        """What the test sends, in order (a person's keys arrive as they are pressed)."""
        try:
            while True:
                await self.ws.send(await self._outgoing.get())
        except Exception:
            pass

    @classmethod
    async def open(cls, port: int, name: str | None = "wafa", size=(80, 24), *,
                   origin: str | None = "default", resume: str | None = None,
                   language: str | None = None, cookie: str | None = None,
                   query: dict | None = None, host: str = "127.0.0.1",
                   headers: dict | None = None, **kwargs) -> WebClient:
        q = {"cols": size[0], "rows": size[1]}
        if name is not None:
            q["name"] = name
        if resume:
            q["resume"] = resume
        q.update(query or {})
        headers = dict(headers or {})
        if language:
            headers["Accept-Language"] = language
        if cookie:
            headers["Cookie"] = cookie
        if origin == "default":
            origin = f"http://{host}:{port}"
        ws = await asyncio.wait_for(connect(
            f"ws://{host}:{port}/ws?{urlencode(q)}", origin=origin,
            additional_headers=headers, **kwargs), 10)
        return cls(ws, size)

    async def _read(self) -> None:
        try:
            async for message in self.ws:
                self.last_rx = time.monotonic()
                if isinstance(message, str):
                    m = json.loads(message)
                    self.controls.append(m)
                    if m.get("type") == "hello":
                        self.hello = m
                    elif m.get("type") == "refused":
                        self.refused = m["message"]
                    continue
                self.raw.extend(message)
                self.stream.feed(message)
        except Exception:
            pass
        finally:
            self.close_code = self.ws.close_code if self.ws.close_code is not None else -1

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def press(self, *keys: str | bytes) -> None:
        for k in keys:
            data = k if isinstance(k, bytes) else KEYS.get(k, k.encode())
            self._outgoing.put_nowait(data)

    def resize(self, cols: int, rows: int) -> None:
        self.screen.resize(rows, cols)
        self._outgoing.put_nowait(json.dumps({"type": "resize", "cols": cols,
                                              "rows": rows}))

    async def wait_for(self, text: str, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.text():
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not on screen:\n{self.text()}")
            if self.close_code is not None:
                raise AssertionError(f"closed ({self.close_code}, {self.refused!r}) before "
                                     f"{text!r}:\n{self.text()}")
            await asyncio.sleep(0.02)

    async def closed(self, timeout: float = 10.0) -> int:
        deadline = time.monotonic() + timeout
        while self.close_code is None:
            if time.monotonic() > deadline:
                raise AssertionError("the room did not close the websocket")
            await asyncio.sleep(0.02)
        return self.close_code

    async def quiet(self, period: float = 0.03, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() - self.last_rx < period and time.monotonic() < deadline:
            await asyncio.sleep(period / 3)

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self.ws.close(), 5)
        except Exception:
            pass
        self._task.cancel()
        self._writer.cancel()
