"""A real browser for the tests: Debian's ``chromium``, headless, driven over the
Chrome DevTools Protocol (a websocket of JSON messages: the ``websockets`` client the
room already depends on; no other package). ``why_not()`` says why it cannot run here
(the test then skips, naming the package)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import shutil
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

BROWSERS = ("chromium", "chromium-browser")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--mute-audio", "--remote-debugging-port=0")
START_TIMEOUT = 30.0


def browser_path() -> str | None:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


def why_not() -> str | None:
    if browser_path() is None:
        return "no chromium here: apt-get install chromium (.ci/run installs it as root)"
    return None


# The keys tests press, as CDP's Input.dispatchKeyEvent says them.
SPECIAL = {"enter": ("Enter", "Enter", 13, "\r"), "escape": ("Escape", "Escape", 27, ""),
           "tab": ("Tab", "Tab", 9, "\t"), "left": ("ArrowLeft", "ArrowLeft", 37, ""),
           "up": ("ArrowUp", "ArrowUp", 38, ""), "right": ("ArrowRight", "ArrowRight", 39, ""),
           "down": ("ArrowDown", "ArrowDown", 40, ""), "space": (" ", "Space", 32, " ")}

# The terminal as the page holds it (xterm.js's buffer, read by window.term): each row's
# text and which of its cells are drawn reversed.
SNAPSHOT_JS = """(() => {
  const t = window.term; if (!t || !t.buffer) return null;
  const b = t.buffer.active, rows = [], inverse = [];
  for (let y = 0; y < t.rows; y++) {
    const line = b.getLine(b.viewportY + y); let text = "", inv = "";
    for (let x = 0; x < t.cols; x++) {
      const c = line.getCell(x); const ch = c.getChars() || (c.getWidth() ? " " : "");
      text += ch; inv += (c.isInverse() ? "1" : "0").repeat(ch.length);
    }
    rows.push(text); inverse.push(inv);
  }
  const r = t.element.querySelector(".xterm-screen").getBoundingClientRect();
  return {rows, inverse, cols: t.cols, lines: t.rows,
          box: [r.left, r.top, r.width, r.height]};
})()"""


class Chromium:
    def __init__(self, proc: asyncio.subprocess.Process, ws: Any):
        self.proc = proc
        self.ws = ws
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future] = {}
        self.events: list[dict] = []
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls, profile: Path) -> Chromium:
        path = browser_path()
        assert path is not None
        proc = await asyncio.create_subprocess_exec(
            path, *FLAGS, f"--user-data-dir={profile}", "about:blank",
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE)
        assert proc.stderr is not None
        deadline = time.monotonic() + START_TIMEOUT
        said = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                proc.kill()
                raise AssertionError("chromium did not start:\n" + "".join(said))
            line = (await asyncio.wait_for(proc.stderr.readline(), left)).decode("utf-8",
                                                                                 "replace")
            if not line and proc.returncode is not None:
                raise AssertionError("chromium ended:\n" + "".join(said))
            said.append(line)
            m = re.search(r"DevTools listening on (ws://\S+)", line)
            if m:
                break
        # The rest of its stderr is read and dropped (a full pipe would stop it).
        drain = asyncio.ensure_future(_drain(proc.stderr))
        ws = await asyncio.wait_for(connect(m.group(1), max_size=None), 10)
        browser = cls(proc, ws)
        browser._drain = drain
        return browser

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            async for raw in self.ws:
                msg = json.loads(raw)
                if "id" in msg and msg["id"] in self._waiting:
                    self._waiting.pop(msg["id"]).set_result(msg)
                else:
                    self.events.append(msg)
                    del self.events[:-200]

    async def send(self, method: str, params: dict | None = None,
                   session: str | None = None, timeout: float = 20.0) -> dict:
        n = next(self._ids)
        msg: dict[str, Any] = {"id": n, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        fut = asyncio.get_running_loop().create_future()
        self._waiting[n] = fut
        await self.ws.send(json.dumps(msg))
        reply = await asyncio.wait_for(fut, timeout)
        if "error" in reply:
            raise AssertionError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    async def page(self, width: int, height: int, phone: bool = False) -> Page:
        target = (await self.send("Target.createTarget", {"url": "about:blank"}))["targetId"]
        session = (await self.send("Target.attachToTarget",
                                   {"targetId": target, "flatten": True}))["sessionId"]
        page = Page(self, session)
        await page.send("Page.enable")
        await page.send("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 3 if phone else 1,
            "mobile": phone})
        if phone:
            await page.send("Emulation.setTouchEmulationEnabled",
                            {"enabled": True, "maxTouchPoints": 5})
        return page

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.send("Browser.close"), 5)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(), 5)
        self._reader.cancel()
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.proc.wait(), 10)
        self._drain.cancel()


async def _drain(stream: asyncio.StreamReader) -> None:
    with contextlib.suppress(Exception):
        while await stream.read(65536):
            pass


class Page:
    """One tab. ``screen`` is the terminal as the page shows it, shaped as the SSH
    tests read pyte's (``display``, ``buffer[y][x].reverse``/``.data``)."""

    def __init__(self, browser: Chromium, session: str):
        self.browser = browser
        self.session = session
        self.screen = _Screen()
        self.box = (0.0, 0.0, 0.0, 0.0)

    async def send(self, method: str, params: dict | None = None) -> dict:
        return await self.browser.send(method, params, self.session)

    async def goto(self, url: str) -> None:
        await self.send("Page.navigate", {"url": url})

    async def evaluate(self, expression: str) -> Any:
        got = await self.send("Runtime.evaluate", {"expression": expression,
                                                   "returnByValue": True,
                                                   "awaitPromise": True})
        if "exceptionDetails" in got:
            raise AssertionError(f"{expression[:60]}: {got['exceptionDetails']}")
        return got["result"].get("value")

    async def read(self) -> _Screen:
        snap = await self.evaluate(SNAPSHOT_JS)
        if snap is not None:
            self.screen.take(snap)
            self.box = tuple(snap["box"])
        return self.screen

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, text: str, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            await self.read()
            if text in self.text():
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not in the page's terminal:\n{self.text()}")
            await asyncio.sleep(0.02)

    async def quiet(self, period: float = 0.05, timeout: float = 5.0) -> None:
        """The terminal unchanged for ``period``."""
        deadline = time.monotonic() + timeout
        before = (await self.read()).display[:]
        still = time.monotonic()
        while time.monotonic() < deadline:
            await asyncio.sleep(period / 3)
            now = (await self.read()).display[:]
            if now != before:
                before, still = now, time.monotonic()
            elif time.monotonic() - still >= period:
                return

    async def key(self, name: str) -> None:
        """A key pressed on the keyboard, into the focused terminal."""
        if name in SPECIAL:
            key, code, vk, text = SPECIAL[name]
        else:
            key, text = name, name
            code = f"Key{name.upper()}" if name.isalpha() else f"Digit{name}"
            vk = ord(name.upper())
        down = {"type": "keyDown" if text else "rawKeyDown", "key": key, "code": code,
                "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk}
        if text:
            down["text"] = down["unmodifiedText"] = text
        await self.send("Input.dispatchKeyEvent", down)
        await self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code,
                                                   "windowsVirtualKeyCode": vk,
                                                   "nativeVirtualKeyCode": vk})

    async def press(self, *names: str) -> None:
        for name in names:
            await self.key(name)

    def cell_at(self, x: int, y: int) -> tuple[float, float]:
        """The middle of terminal cell (x, y), in CSS pixels."""
        left, top, width, height = self.box
        return (left + (x + 0.5) * width / self.screen.columns,
                top + (y + 0.5) * height / self.screen.lines)

    async def tap(self, x: int, y: int) -> None:
        """A finger's tap on cell (x, y): the browser's own touch gesture, which it turns
        into the mouse events xterm.js reports to the room."""
        px, py = self.cell_at(x, y)
        await self.send("Input.synthesizeTapGesture", {"x": px, "y": py,
                                                       "gestureSourceType": "touch"})

    async def tap_element(self, selector: str) -> None:
        rect = await self.evaluate(
            f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
            ".getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()")
        await self.send("Input.synthesizeTapGesture", {
            "x": rect[0] + rect[2] / 2, "y": rect[1] + rect[3] / 2,
            "gestureSourceType": "touch"})


class _Cell:
    __slots__ = ("data", "reverse")

    def __init__(self, data: str, reverse: bool):
        self.data = data
        self.reverse = reverse


class _Screen:
    def __init__(self) -> None:
        self.display: list[str] = []
        self.buffer: list[list[_Cell]] = []
        self.columns = self.lines = 0

    def take(self, snap: dict) -> None:
        self.columns, self.lines = snap["cols"], snap["lines"]
        self.display = [row.ljust(self.columns)[:self.columns] for row in snap["rows"]]
        self.buffer = [[_Cell(ch, flag == "1") for ch, flag in
                        zip(row, inv.ljust(len(row), "0"), strict=False)]
                       + [_Cell(" ", False)] * (self.columns - len(row))
                       for row, inv in zip(snap["rows"], snap["inverse"], strict=True)]
