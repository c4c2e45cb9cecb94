"""An event's board survives its server: a real ``lamma serve`` killed with SIGKILL in
the middle of a board comes back with the board where it was; the entrant reconnects
into it, finishes it, and its result is recorded once; killed again just after a
board's end, the next board is dealt on entering again."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import time

import asyncssh
import pytest
from test_crash import ServerProcess, consistent

pytestmark = pytest.mark.slow      # real servers killed and started again


class Entrant:
    def __init__(self, port: int, key, name: str = "ana"):
        self.port, self.key, self.name = port, key, name
        self.view: dict | None = None
        self.joined: dict | None = None
        self.over: list[dict] = []

    async def connect(self) -> None:
        self.conn = await asyncssh.connect("127.0.0.1", self.port, username=self.name,
                                           client_keys=[self.key], known_hosts=None,
                                           agent_path=None, preferred_auth="publickey")
        self.proc = await self.conn.create_process("play", encoding=None)

    def send(self, obj) -> None:
        self.proc.stdin.write(json.dumps(obj).encode() + b"\n")

    async def next(self, timeout: float = 60.0) -> dict:
        while True:
            line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
            assert line, "the connection ended"
            msg = json.loads(line)
            if msg["type"] == "hello":
                continue
            if msg["type"] == "view":
                self.view = msg["view"]
            elif msg["type"] == "joined":
                self.joined = msg
            elif msg["type"] == "board_over":
                self.over.append(msg)
            return msg

    async def wait_for(self, kind: str, timeout: float = 60.0) -> dict:
        """The next message of this kind, those before passed over: one deadline."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no {kind!r} message within {timeout} s"
            msg = await self.next(left)
            if msg["type"] == kind:
                return msg

    async def play(self, rnd: random.Random, moves: int | None) -> dict | None:
        """Up to ``moves`` moves (None: to the board's end); returns the board_over that
        ended the board, if it did."""
        made = 0
        while moves is None or made < moves:
            v = self.view
            if v is not None and v["phase"] != "over" and v["to_act"] == v["seat"] \
                    and v["legal"]:
                self.send({"op": "act", "action": rnd.choice(v["legal"])})
                made += 1
                while True:
                    msg = await self.next()
                    if msg["type"] in ("view", "error", "board_over"):
                        break
                if msg["type"] == "board_over":
                    return msg
                continue
            msg = await self.next()
            if msg["type"] == "board_over":
                return msg
        return None

    def close(self) -> None:
        self.conn.close()


async def daily(p: Entrant, game: str) -> int:
    p.send({"op": "events"})
    msg = await p.wait_for("events")
    row = next(e for e in msg["events"] if e["game"] == game
               and e["name"].startswith("Daily"))
    assert row["boards"] == 2                       # as configured
    return row["id"]


@pytest.mark.parametrize("game", ["estimation", "estimation-kotshina", "tarneeb41"])
async def test_sigkill_in_the_middle_of_a_board(tmp_path, game):
    srv = ServerProcess(tmp_path)
    # A small daily event through the configuration file (docs/events.md): 2 boards,
    # computer players of a small budget, so the test stays short.
    config = tmp_path / "lamma.toml"
    config.write_text("[events]\ndaily-boards = 2\nsamples = 16\n")
    srv.pauses += ["--config", str(config)]
    rnd = random.Random(27)
    key = asyncssh.generate_private_key("ssh-ed25519")
    srv.start()
    try:
        p = Entrant(srv.port, key)
        await p.connect()
        eid = await daily(p, game)
        p.send({"op": "enter", "event": eid})
        joined = await p.wait_for("joined")
        assert (joined["event"], joined["board"]) == (eid, 1)
        table = joined["table"]
        for _crash in range(2):
            while p.view is None:
                await p.next()
            assert await p.play(rnd, rnd.randint(2, 6)) is None, "the board ended early"
            await asyncio.sleep(rnd.random() * 0.2)
            seen = p.view
            srv.kill()
            p.close()
            srv.start()
            p = Entrant(srv.port, key)
            await p.connect()
            # back at the board: joined (with its event and board) and the whole view
            again = await p.wait_for("joined")
            assert (again["table"], again["event"], again["board"]) == (table, eid, 1)
            await p.wait_for("view")
            consistent(seen, p.view)
        over = await p.play(rnd, None)
        assert over is not None and over["board"] == 1
        nxt = await p.wait_for("joined")
        assert (nxt["event"], nxt["board"]) == (eid, 2)
        # killed as board 2 is dealt: entering again resumes board 2, not board 1
        srv.kill()
        p.close()
        srv.start()
        p = Entrant(srv.port, key)
        await p.connect()
        p.send({"op": "enter", "event": eid})
        back = await p.wait_for("joined")
        assert (back["event"], back["board"]) == (eid, 2)
        await p.wait_for("view")        # its deal shown: stored before (killed below)
        p.close()
    finally:
        if srv.proc and srv.proc.poll() is None:
            srv.kill()
    db = sqlite3.connect(srv.data / "lamma.db")
    rows = db.execute("SELECT board, score FROM event_results WHERE event_id = ?",
                      (eid,)).fetchall()
    assert rows == [(1, over["score"])]             # recorded once
    boards = db.execute("SELECT event_board, finished IS NOT NULL FROM matches "
                        "WHERE event_id = ? ORDER BY event_board", (eid,)).fetchall()
    assert boards == [(1, 1), (2, 0)]
    assert db.execute("SELECT COUNT(*) FROM stats").fetchone()[0] == 0  # a board pays none
