"""A clean restart (issue 28): SIGTERM (or ``lamma admin drain``) stops new
connections, tells everyone on their screen and as a JSON ``notice`` how long to wait,
lets the tricks under way finish while every other table holds as it is, stops the
computer players between moves, stores everything and closes with the notice's words;
after the restart everyone lands in their seat with the same view."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sqlite3
import sys
import time
from pathlib import Path

import asyncssh
import pytest
from conftest import JsonClient, PtyClient, start_room, stop_room
from procs import LISTENING, stop_process, wait_line

ROOT = Path(__file__).resolve().parents[1]


class Player:
    """A JSON player that plays the first legal action whenever it is its turn, until
    told to stop; it keeps every view and what the server said."""

    def __init__(self, client: JsonClient, seat: int):
        self.client = client
        self.seat = seat
        self.playing = True
        self.views: list[dict] = []
        self.said: list[dict] = []
        self.task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while True:
            msg = await self.client.messages.get()
            if msg is None:
                return
            self.said.append(msg)
            if msg.get("type") != "view":
                continue
            view = msg["view"]
            self.views.append(view)
            if self.playing and view.get("to_act") == self.seat and view.get("legal"):
                self.client.send({"op": "act", "action": view["legal"][0]})

    def kinds(self) -> list[str]:
        return [m.get("type", "") for m in self.said]


async def until(check, timeout: float = 20.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        await asyncio.sleep(0.01)


def stable(view: dict) -> dict:
    """A view without what moves by the clock."""
    return {k: v for k, v in view.items() if k not in ("deadline", "seconds_left")}


async def test_a_drain_finishes_the_trick_then_holds_and_everyone_comes_back(tmp_path):
    srv = await start_room(tmp_path, bot_pause=0.0, trick_pause=0.0)
    restarted = None
    try:
        ana = Player(await srv.json_client("ana"), 0)
        ana.client.send({"op": "create", "game": "estimation", "length": 13,
                         "computer": [1, 2, 3], "level": "easy"})
        table = None
        await until(lambda: srv.registry.tables, what="a table")
        table = next(iter(srv.registry.tables.values()))
        # Into the play phase, and then in the middle of a trick.
        await until(lambda: table.match is not None and table.match.view(None)["phase"]
                    == "play" and len(table.match.view(None)["trick"]) in (1, 2),
                    what="the middle of a trick")
        ana.playing = False
        said = srv.room.start_drain(1.5)
        assert "1 s" in said or "2 s" in said, said
        # The trick under way is played out (ana plays her card if one is hers), then
        # the table holds as it is: no computer player or timer moves, nobody leads.
        ana.playing = True
        await until(lambda: not table.match.view(None)["trick"], 5, "the trick finished")
        moves = len(table.match.log)
        await asyncio.sleep(0.5)
        assert len(table.match.log) == moves, "the table moved on after its trick"
        # The notice, as a JSON notice, with how long to wait.
        notices = [m["text"] for m in ana.said if m.get("type") == "notice"]
        assert any("restarts in" in n and "back in your seat" in n for n in notices), notices
        # No new connection meanwhile.
        with pytest.raises((OSError, asyncssh.Error)):
            await srv.json_client("late")
        await asyncio.wait_for(srv.room.finished.wait(), 5)
        await until(lambda: "bye" in ana.kinds(), 5, "the closing words")
        bye = next(m for m in ana.said if m.get("type") == "bye")
        assert "restarting" in bye["message"], bye
        before = stable(ana.views[-1])
        srv.room.close()
        # Everything stored: the match's log is the table's.
        db = sqlite3.connect(tmp_path / "data" / "lamma.db")
        stored = db.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
        db.close()
        assert stored == moves

        restarted = await start_room(tmp_path, bot_pause=3600.0, trick_pause=0.0)
        again = await restarted.json_client("ana", key=srv.key("ana"))
        joined = await again.expect("joined")
        assert joined["seat"] == 0
        view = (await again.expect("view"))["view"]
        assert stable(view) == before
        await again.close()
        await ana.client.close()
    finally:
        if restarted is not None:
            await stop_room(restarted)
        with contextlib.suppress(Exception):
            await stop_room(srv)


async def test_nobody_here_stops_at_once(tmp_path):
    srv = await start_room(tmp_path)
    try:
        started = time.monotonic()
        srv.room.start_drain(30)
        await asyncio.wait_for(srv.room.finished.wait(), 5)
        assert time.monotonic() - started < 2
    finally:
        await stop_room(srv)


# ------------------------------------------------------------ a real lamma serve
def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def serve(tmp: Path, port: int, *extra: str) -> asyncio.subprocess.Process:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", "--port", str(port),
        "--data", str(tmp / "data"), "--keys", str(tmp / "keys"), *extra,
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    assert proc.stdout is not None
    try:
        await wait_line(proc.stdout, LISTENING, 20)
    except BaseException:
        await stop_process(proc)
        raise
    return proc


async def connect(port: int, name: str, key) -> asyncssh.SSHClientConnection:
    return await asyncssh.connect("127.0.0.1", port, username=name, known_hosts=None,
                                  client_keys=[key], agent_path=None,
                                  preferred_auth="publickey")


@pytest.mark.slow
async def test_sigterm_tells_terminal_and_program_waits_stores_and_they_come_back(tmp_path):
    port = free_port()
    config = tmp_path / "lamma.toml"
    config.write_text("[play]\nbot-pause = 0.05\ntrick-pause = 0.0\n\n"
                      "[restart]\ndrain-seconds = 2.0\n")
    keys = {n: asyncssh.generate_private_key("ssh-ed25519") for n in ("ana", "bo")}
    proc = await serve(tmp_path, port, "--config", str(config))
    procs = [proc]
    try:
        ana = Player(JsonClient(c := await connect(port, "ana", keys["ana"]),
                                await c.create_process("play", encoding=None)), 0)
        ana.client.send({"op": "create", "game": "estimation", "length": 13,
                         "computer": [2, 3], "level": "easy"})
        await until(lambda: "joined" in ana.kinds(), what="ana's table")
        bo_conn = await connect(port, "bo", keys["bo"])
        bo = PtyClient(bo_conn, await bo_conn.create_process(
            term_type="xterm-256color", term_size=(100, 30), encoding=None), (100, 30))
        await bo.wait_for(" #  game")
        await bo.wait_for("ana")
        bo.press("enter")                       # sits at the only table: seat 1
        await until(lambda: ana.views, what="the match's first view")
        await asyncio.sleep(1.0)                # ana and the computer players move on
        await bo.quiet(0.2)
        screen_before = bo.text()
        view_before = stable(ana.views[-1])
        ana.playing = False
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        await until(lambda: "notice" in ana.kinds(), 5, "the JSON notice")
        notice = next(m["text"] for m in ana.said if m.get("type") == "notice")
        assert "restarts in 2 s" in notice, notice
        await bo.wait_for("restarts in 2 s", 5)
        # The port takes no new connection meanwhile.
        with pytest.raises((OSError, asyncssh.Error)):
            await connect(port, "cy", asyncssh.generate_private_key("ssh-ed25519"))
        out = (await asyncio.wait_for(proc.communicate(), 20))[0].decode()
        took = time.monotonic() - started
        assert proc.returncode == 0, out
        assert took < 10, took          # (at most the 2 s wait, less once tables hold)
        await until(lambda: "bye" in ana.kinds(), 5, "ana's closing words")
        await until(lambda: bo.closed, 5, "bo's session closed")
        assert "restarting" in bo.plain_since(0)
        view_seen = stable(ana.views[-1])     # what she saw last (a trick may have ended)
        assert view_seen["round"] == view_before["round"]
        await ana.client.close()
        await bo.close()

        # The same room again: both land in their seats, each with the view they had.
        proc = await serve(tmp_path, port, "--config", str(config))
        procs.append(proc)
        again = JsonClient(c := await connect(port, "ana", keys["ana"]),
                           await c.create_process("play", encoding=None))
        assert (await again.expect("joined"))["seat"] == 0
        assert stable((await again.expect("view"))["view"]) == view_seen
        bo_conn = await connect(port, "bo", keys["bo"])
        bo = PtyClient(bo_conn, await bo_conn.create_process(
            term_type="xterm-256color", term_size=(100, 30), encoding=None), (100, 30))
        await bo.wait_for("ana", 10)
        await bo.quiet(0.3)
        # bo's screen is the table's as it was: its hand row the same (the narration
        # and the timer may differ).
        hand = [line for line in screen_before.splitlines() if "♠" in line or "♥" in line]
        after = bo.text()
        assert hand and any(line.strip() in after for line in hand[-1:]), (screen_before, after)
        await again.close()
        await bo.close()
    finally:
        for p in procs:
            await stop_process(p)


@pytest.mark.slow
async def test_sigterm_ends_as_soon_as_the_trick_does_and_the_program_comes_back(tmp_path):
    """Issue 45, from outside: one program seated at a table of computer players, a
    SIGTERM in the middle of a trick, drain-seconds 30: the trick is played out, and the
    process exits within 5 s of its end (it waited the whole 30 before), logging
    "stopped"; after the restart the program is back in its seat with its view."""
    port = free_port()
    key = asyncssh.generate_private_key("ssh-ed25519")
    options = ("--bot-pause", "0.2", "--trick-pause", "0.3", "--drain-seconds", "30")
    proc = await serve(tmp_path, port, *options)
    procs = [proc]
    try:
        ana = Player(JsonClient(c := await connect(port, "ana", key),
                                await c.create_process("play", encoding=None)), 0)
        ana.client.send({"op": "create", "game": "estimation", "length": 13,
                         "computer": [1, 2, 3], "level": "easy"})
        await until(lambda: any(v.get("phase") == "play" and 1 <= len(v.get("trick") or [])
                                <= 2 for v in ana.views), 60, "the middle of a trick")
        seen = len(ana.views)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        # The trick under way is played out (ana plays her card if one is hers).
        await until(lambda: any(not v.get("trick") for v in ana.views[seen:]), 10,
                    "the trick's end")
        trick_over = time.monotonic()
        out = (await asyncio.wait_for(proc.communicate(), 20))[0].decode()
        exited = time.monotonic()
        print(f"\nSIGTERM mid-trick: trick over after {trick_over - started:.2f} s, "
              f"exit {exited - trick_over:.2f} s after it (drain-seconds 30)")
        assert proc.returncode == 0, out
        assert exited - trick_over < 5, out
        assert "a clean restart: stopping once every table is between tricks" in out, out
        assert "stopped: 1 table(s) kept as they are (1 match(es) under way" in out, out
        await until(lambda: "bye" in ana.kinds(), 5, "ana's closing words")
        view_seen = stable(ana.views[-1])
        await ana.client.close()

        proc = await serve(tmp_path, port, *options)
        procs.append(proc)
        again = JsonClient(c := await connect(port, "ana", key),
                           await c.create_process("play", encoding=None))
        assert (await again.expect("joined"))["seat"] == 0
        assert stable((await again.expect("view"))["view"]) == view_seen
        await again.close()
    finally:
        for p in procs:
            await stop_process(p)


class Waiter(Player):
    """Plays until it is its turn in the middle of a trick, then waits there: a drain
    then waits for its card (or its whole time)."""

    def __init__(self, client: JsonClient, seat: int):
        self.waiting = asyncio.Event()
        super().__init__(client, seat)

    async def _run(self) -> None:
        while True:
            msg = await self.client.messages.get()
            if msg is None:
                return
            self.said.append(msg)
            if msg.get("type") != "view" or self.waiting.is_set():
                continue
            view = msg["view"]
            if view.get("to_act") == self.seat and view.get("legal"):
                if view.get("phase") == "play" and view.get("trick"):
                    self.waiting.set()
                else:
                    self.client.send({"op": "act", "action": view["legal"][0]})


@pytest.mark.slow
async def test_a_second_sigint_stops_at_once(tmp_path):
    port = free_port()
    proc = await serve(tmp_path, port, "--drain-seconds", "30", "--bot-pause", "0.05",
                       "--trick-pause", "0")
    try:
        key = asyncssh.generate_private_key("ssh-ed25519")
        conn = await connect(port, "ana", key)
        client = JsonClient(conn, await conn.create_process("play", encoding=None))
        ana = Waiter(client, 0)
        client.send({"op": "create", "game": "estimation", "length": 13,
                     "computer": [1, 2, 3], "level": "easy"})
        # Ana's turn in the middle of a trick, and she does not play: the drain would
        # wait its whole 30 s for her card.
        await asyncio.wait_for(ana.waiting.wait(), 60)
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)
        await until(lambda: "notice" in ana.kinds(), 5, "the notice")
        notice = next(m for m in ana.said if m.get("type") == "notice")
        assert "restarts in 30 s" in notice["text"]
        await asyncio.sleep(0.5)
        assert proc.returncode is None              # waiting for ana's card
        proc.send_signal(signal.SIGINT)
        await asyncio.wait_for(proc.wait(), 10)
        assert time.monotonic() - started < 5
        await client.close()
        # The room's end is not its output's: its bot worker and multiprocessing's
        # resource tracker hold the same stdout a moment longer, and wait() returns at
        # once when the exit was seen before it ran. Read the output to its end, so the
        # process's transport is closed here, not left for the collector after this
        # test's loop has closed (ResourceWarning, "Event loop is closed").
        await asyncio.wait_for(proc.communicate(), 10)
    finally:
        await stop_process(proc)


@pytest.mark.slow
async def test_lamma_admin_drain(tmp_path):
    port = free_port()
    proc = await serve(tmp_path, port)
    try:
        key = asyncssh.generate_private_key("ssh-ed25519")
        conn = await connect(port, "ana", key)
        client = JsonClient(conn, await conn.create_process("play", encoding=None))
        admin = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server.cli", "admin", "drain", "1",
            "--data", str(tmp_path / "data"), cwd=ROOT, stdout=asyncio.subprocess.PIPE)
        try:
            said = (await asyncio.wait_for(admin.communicate(), 10))[0].decode()
        finally:
            await stop_process(admin)
        assert admin.returncode == 0 and "restarts in 1 s" in said, said
        notice = await client.expect("notice")
        assert "restarts in 1 s" in notice["text"]
        bye = await client.expect("bye", timeout=10)
        assert "restarting" in bye["message"]
        await asyncio.wait_for(proc.wait(), 10)
        assert proc.returncode == 0
        await client.close()
    finally:
        await stop_process(proc)


def test_the_notice_s_words_are_the_operator_s_when_set(tmp_path):
    from server.service import RoomService

    class Room:
        config = type("C", (), {"drain_notice": "Back at {seconds}s past the hour"})()
        cluster = None
    assert RoomService.restart_notice(Room(), 30) == "Back at 30s past the hour"  # type: ignore[arg-type]
    json.dumps(RoomService.restart_notice(Room(), 0))
