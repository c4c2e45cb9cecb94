"""Playing duplicate events as a program does (docs/protocol.md, docs/events.md): enter,
act on every view that is one's turn, collect each board's score, and the hand-worked
matchpoints the room's answers are checked against."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from stacked import quick_choice


def quick(view: dict) -> dict:
    """Declines the dash, passes, declares near 3, plays the first legal card."""
    return quick_choice(view["legal"])


def contrary(view: dict) -> dict:
    """Declines the dash, passes, declares near 5, plays the last legal card."""
    legal = view["legal"]
    for a in legal:
        if (a["type"] == "dash" and not a["take"]) or a["type"] == "pass":
            return a
    decl = [a for a in legal if a["type"] == "declare"]
    if decl:
        return min(decl, key=lambda a: abs(a["n"] - 5))
    return legal[-1]


def middle(view: dict) -> dict:
    """Declines the dash, passes, declares near 4, plays the middle legal card."""
    legal = view["legal"]
    for a in legal:
        if (a["type"] == "dash" and not a["take"]) or a["type"] == "pass":
            return a
    decl = [a for a in legal if a["type"] == "declare"]
    if decl:
        return min(decl, key=lambda a: abs(a["n"] - 4))
    return legal[len(legal) // 2]


class Entrant:
    """One JSON client playing an event's boards with a policy."""

    def __init__(self, client, policy: Callable[[dict], dict] = quick):
        self.client = client
        self.policy = policy
        self.scores: dict[int, int] = {}       # board -> score said by board_over
        self.boards: list[int] = []             # boards joined, in order
        self.done = False
        self.acted_on: object = None
        self.errors: list[str] = []
        self.last: dict[str, dict] = {}         # the last message of each type
        self.rounds: dict[int, tuple] = {}     # board -> (kind, trump, dealer, ×) first seen
        self.sides: dict[int, int | None] = {}  # board -> the side's score (Tarneeb 41)

    async def step(self, timeout: float = 60.0) -> dict:
        """Read one message and do what it asks; returns it."""
        msg = await self.client.expect_any(("view", "joined", "board_over", "event_done",
                                            "error", "left"), timeout)
        kind = msg["type"]
        self.last[kind] = msg
        if kind == "joined":
            if not self.boards or self.boards[-1] != msg.get("board"):
                self.boards.append(msg.get("board"))
        elif kind == "board_over":
            self.scores[msg["board"]] = msg["score"]
            self.sides[msg["board"]] = msg.get("side")
        elif kind == "event_done":
            self.done = True
        elif kind == "error":
            self.errors.append(msg["message"])
        elif kind == "view":
            v = msg["view"]
            if self.boards and self.boards[-1] not in self.rounds:
                self.rounds[self.boards[-1]] = (v.get("kind"), v.get("fixed_trump"),
                                                v.get("dealer"), v.get("multiplier"))
            if v.get("to_act") == v.get("seat") and v.get("legal") and v is not self.acted_on:
                self.acted_on = v
                self.client.send({"op": "act", "action": self.policy(v)})
        return msg

    async def play(self, until: Callable[[dict], bool] | None = None,
                   timeout: float = 300.0) -> None:
        """Play until the entry is done (or ``until(message)``)."""
        deadline = time.monotonic() + timeout
        while not self.done:
            left = deadline - time.monotonic()
            assert left > 0, f"still playing after {timeout} s: boards {self.boards}"
            msg = await self.step(min(left, 60.0))
            if until is not None and until(msg):
                return


async def event_id(client, game: str) -> int:
    """The open daily event of ``game`` as the listing shows it."""
    client.send({"op": "events"})
    msg = await client.expect("events")
    daily = [e for e in msg["events"] if e["game"] == game and e["status"] == "open"
             and e["name"].startswith("Daily")]
    assert len(daily) == 1, msg
    return daily[0]["id"]


async def ask(client, op: dict, kinds: tuple[str, ...] = ("standings", "board", "error",
                                                          "events", "event")) -> dict:
    client.drain()
    client.send(op)
    return await client.expect_any(kinds)


def stored_results(db_path: Path, event: int) -> list[tuple[str, str, int, int, int]]:
    """(entrant's key, name, board, seat, score) of every stored result of the event."""
    db = sqlite3.connect(db_path)
    try:
        return db.execute("SELECT entrant, name, board, seat, score FROM event_results "
                          "WHERE event_id = ? ORDER BY board, name", (event,)).fetchall()
    finally:
        db.close()


def by_hand(results: list[tuple[str, int, int, int]], boards: int
            ) -> tuple[dict[tuple[str, int], float], dict[str, float]]:
    """Matchpoints worked out here, not by the engine: for each board and seat, 2 for
    each result below, 1 for each other equal one, over 2 for each other result (50 %
    alone); an entrant's event result is the sum over every board divided by the
    number of boards. ``results``: (name, board, seat, score)."""
    pct: dict[tuple[str, int], float] = {}
    for name, board, seat, score in results:
        field = [s for n, b, st, s in results if b == board and st == seat]
        others = len(field) - 1
        if others == 0:
            pct[(name, board)] = 50.0
            continue
        below = sum(1 for s in field if s < score)
        ties = sum(1 for s in field if s == score) - 1
        pct[(name, board)] = 100.0 * (2 * below + ties) / (2 * others)
    total: dict[str, float] = {}
    for (name, _board), p in pct.items():
        total[name] = total.get(name, 0.0) + p
    return pct, {n: t / boards for n, t in total.items()}


async def wait_until(cond, timeout: float = 20.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out: {what}"
        await asyncio.sleep(0.05)


def dumps(obj) -> str:
    return json.dumps(obj, sort_keys=True)


# ---------------------------------------------------------------- in one process
def bot_move(table) -> None:
    """The computer player to act moves now, as the room's would (the board's seed and
    its samples: ``engine.duplicate``), without waiting for the worker."""
    import random

    from engine.bots import choose
    m, ev = table.match, table.event
    seat = m.to_act
    action = choose(m.view(seat), "strong", 100, random.Random(ev.decision_seed(m.log)),
                    samples=ev.samples)
    table.runner.apply(seat, action, "bot")


def play_here(events, member, event: int, policy=quick, stop=None) -> list[int]:
    """``member`` plays their entry's boards in this process (computer players moved
    here: ``bot_move``) until the entry is done or ``stop(table)``; the scores."""
    entered = events.enter(member, event)
    entered.go()
    scores = []
    table = entered.table
    while True:
        m = table.match
        while m.to_act is not None:
            if stop is not None and stop(table):
                return scores
            if m.to_act == member.seat:
                table.act(member, policy(m.view(member.seat)))
            else:
                bot_move(table)
        over = events.board_over(member, table)
        scores.append(over.score)
        if over.next is None:
            return scores
        over.next.go()
        table = over.next.table
