"""The JSON-lines interface as documented: every ``transcript`` example of
docs/protocol.md and every transcript in tests/transcripts/ is played against a real
server over SSH, line by line.

A transcript: ``→ LINE`` a program sends LINE (JSON, or any text); ``← PATTERN`` it
then gets a message matching PATTERN (an object matches when it has at least the
pattern's keys with matching values; a list matches item by item, of the same
length; anything else is equal). A ``view`` may come at any time: views that do not
match are passed over; any other message must match the next pattern. ``NAME →`` and
``NAME ←`` speak for another program (each a keyed player of its own; the first one
is ``ada``). ``"$legal"`` in a sent line is the first legal action of the last view
that program got. Lines starting with ``#`` are comments.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import LammaServer

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "protocol.md"
FOLDER = Path(__file__).resolve().parent / "transcripts"
LINE = re.compile(r"^(?:(?P<who>[a-z]+) )?(?P<dir>→|←) ?(?P<text>.*)$")


def doc_transcripts() -> list[tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```transcript\n(.*?)```", text, flags=re.S)
    return [(f"protocol.md#{i + 1}", b) for i, b in enumerate(blocks)]


def file_transcripts() -> list[tuple[str, str]]:
    return [(p.name, p.read_text(encoding="utf-8")) for p in sorted(FOLDER.glob("*.txt"))]


def matches(pattern: Any, value: Any) -> bool:
    if isinstance(pattern, dict):
        return isinstance(value, dict) and all(
            k in value and matches(v, value[k]) for k, v in pattern.items())
    if isinstance(pattern, list):
        return isinstance(value, list) and len(pattern) == len(value) and all(
            matches(p, v) for p, v in zip(pattern, value, strict=True))
    return bool(pattern == value)


class Program:
    def __init__(self, conn: Any, proc: Any):
        self.conn, self.proc = conn, proc
        self.view: dict[str, Any] | None = None
        self.seen: list[dict[str, Any]] = []

    async def next(self, timeout: float = 15.0) -> dict[str, Any]:
        try:
            line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        except TimeoutError:
            raise AssertionError(f"nothing within {timeout:.1f} s; the last messages: "
                                 f"{self.seen[-5:]}") from None
        assert line, "the connection ended"
        msg = json.loads(line)
        if msg.get("type") == "view":
            self.view = msg["view"]
        self.seen.append(msg)
        return dict(msg)

    def send(self, text: str) -> None:
        if "$legal" in text:
            assert self.view is not None and self.view.get("legal"), "no legal action yet"
            text = text.replace('"$legal"', json.dumps(self.view["legal"][0]))
        self.proc.stdin.write(text.encode() + b"\n")


async def play(srv: LammaServer, script: str) -> None:
    programs: dict[str, Program] = {}

    async def program(name: str) -> Program:
        if name not in programs:
            conn = await srv.connect(name, key=srv.key(name))
            programs[name] = Program(conn, await conn.create_process("play",
                                                                      encoding=None))
        return programs[name]

    await program("ada")
    for number, raw in enumerate(script.splitlines(), start=1):
        if not raw.strip() or raw.startswith("#"):
            continue
        m = LINE.match(raw)
        assert m, f"line {number}: not a transcript line: {raw!r}"
        who = await program(m["who"] or "ada")
        if m["dir"] == "→":
            who.send(m["text"])
            continue
        pattern = json.loads(m["text"])
        deadline = time.monotonic() + 15.0          # for this line, views passed over
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"line {number}: no {pattern} within 15 s"
            msg = await who.next(left)
            if matches(pattern, msg):
                break
            if msg.get("type") == "view" and pattern.get("type") != "hello":
                continue
            if msg.get("type") == "hello" and pattern.get("type") != "hello":
                continue            # said first to every program (the first line)
            raise AssertionError(f"line {number}: expected {pattern}, got {msg}")
    for p in programs.values():
        p.conn.close()


@pytest.mark.parametrize("name,script", doc_transcripts() + file_transcripts(),
                         ids=lambda v: v if isinstance(v, str) and len(v) < 40 else "")
async def test_transcript(lamma_server: LammaServer, name: str, script: str) -> None:
    await play(lamma_server, script)


def test_the_doc_has_examples_and_the_folder_transcripts() -> None:
    assert len(doc_transcripts()) >= 4 and len(file_transcripts()) >= 2


def test_the_matcher_is_not_blind() -> None:
    assert matches({"type": "view"}, {"type": "view", "view": {}})
    assert not matches({"type": "view", "view": {"seat": 0}}, {"type": "view", "view": {}})
    assert not matches([1], [1, 2]) and matches([{"a": 1}], [{"a": 1, "b": 2}])
    assert not matches({"type": "tables"}, {"type": "error"})
