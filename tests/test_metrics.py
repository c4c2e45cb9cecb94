"""The operator's numbers (issue 12): a real server with ``metrics`` on, a program
session that plays, the Prometheus endpoint scraped over HTTP, and the status line."""

from __future__ import annotations

import asyncio
import re
import urllib.request

import pytest
from conftest import start_room, stop_room
from prometheus_client.parser import text_string_to_metric_families

from engine.room.stats import STATS
from server.build import version
from server.metrics import LoopLag, StatusLine, parse_listen

FAMILIES = {"lamma_sessions", "lamma_spectators", "lamma_tables", "lamma_moves",
            "lamma_act_to_view_seconds", "lamma_loop_lag_seconds", "lamma_gc_pause_seconds",
            "lamma_gc_full_pause_seconds", "lamma_store_commit_seconds",
            "lamma_bot_decision_seconds", "lamma_gc_frozen_objects", "lamma_build_info",
            "process_resident_memory_bytes"}


def scrape(port: int) -> dict[str, dict]:
    """family name -> {(sample name, labels as a sorted tuple): value}."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
        assert reply.status == 200
        assert reply.headers["Content-Type"].startswith("text/plain")
        text = reply.read().decode()
    return {f.name: {(s.name, tuple(sorted(s.labels.items()))): s.value for s in f.samples}
            for f in text_string_to_metric_families(text)}


async def fetch(port: int) -> dict[str, dict]:
    # In a thread, as a real scraper is another process: the loop keeps serving.
    return await asyncio.to_thread(scrape, port)


def sessions(figures: dict, kind: str) -> float:
    return figures["lamma_sessions"][("lamma_sessions", (("kind", kind),))]


@pytest.mark.parametrize("listen", ["127.0.0.1:9100", "9100", "[::1]:9100", "localhost:9100"])
def test_listen_forms(listen):
    host, port = parse_listen(listen)
    assert port == 9100 and host in ("127.0.0.1", "::1", "localhost")


@pytest.mark.parametrize("listen", ["host:port", "1.2.3.4:70000", ""])
def test_listen_refused(listen):
    with pytest.raises(ValueError):
        parse_listen(listen)


async def test_scrape_follows_a_session_and_its_moves(tmp_path):
    srv = await start_room(tmp_path, bot_pause=0.0, metrics="127.0.0.1:0")
    client = None
    try:
        port = srv.room.metrics.port
        before = await fetch(port)
        assert FAMILIES <= set(before)
        assert sessions(before, "program") == 0 and sessions(before, "terminal") == 0
        # lamma_build_info: the installed version, as `lamma --version` says it.
        (build, value), = before["lamma_build_info"].items()
        assert value == 1 and build[0] == "lamma_build_info"
        assert dict(build[1])["version"] == version() != "0+unknown"
        moves0 = before["lamma_moves"][("lamma_moves_total", ())]
        bots0 = before["lamma_bot_decision_seconds"][("lamma_bot_decision_seconds_count", ())]
        shown0 = before["lamma_act_to_view_seconds"][("lamma_act_to_view_seconds_count", ())]

        client = await srv.json_client("ops")
        client.send({"op": "create", "game": "estimation-kotshina", "computer": [1, 2, 3]})
        joined = await client.expect("joined")
        table = srv.registry.tables[joined["table"]]
        # Play until this seat's moves are in (a view since shows another seat to act)
        # and a computer player has decided.
        sent = accepted = False
        while not (accepted and STATS.bot_decision.count > bots0):
            view = (await client.expect("view"))["view"]
            if view["to_act"] == 0 and view["legal"]:
                client.send({"op": "act", "action": view["legal"][-1]})
                sent = True
            elif sent:
                accepted = True
        figures = await fetch(port)
    finally:
        if client is not None:
            await client.close()
        await stop_room(srv)

    assert sessions(figures, "program") == 1
    assert figures["lamma_tables"][("lamma_tables", (("status", "playing"),))] >= 1
    assert table.status in ("playing", "over")
    moves = figures["lamma_moves"][("lamma_moves_total", ())]
    assert moves >= moves0 + 2          # this seat's move and a computer player's
    # A histogram as Prometheus reads it: cumulative buckets ending in +Inf = count.
    bots = figures["lamma_bot_decision_seconds"]
    buckets = [v for (name, labels), v in bots.items() if name.endswith("_bucket")]
    assert buckets == sorted(buckets)
    count = bots[("lamma_bot_decision_seconds_count", ())]
    assert count > bots0
    assert bots[("lamma_bot_decision_seconds_bucket", (("le", "+Inf"),))] == count
    assert bots[("lamma_bot_decision_seconds_sum", ())] > 0
    # act → view: each accepted action this program was shown, timed once (its own
    # move at least; the computer player's may still be on its way to the store)
    shown = figures["lamma_act_to_view_seconds"][("lamma_act_to_view_seconds_count", ())]
    assert shown >= shown0 + 1
    # Stopped with the room: the port no longer answers.
    with pytest.raises(OSError):
        scrape(port)


async def test_status_line_tells_the_last_period(tmp_path):
    srv = await start_room(tmp_path)
    client = None
    lag = LoopLag()
    try:
        client = await srv.json_client("ops")
        client.send({"op": "create", "game": "tarneeb41"})
        await client.expect("joined")
        status = StatusLine(srv.room, lag=lag)
        # What the room's own writers would record over a minute.
        STATS.moves.inc(7)
        for ms in (1, 2, 2, 3, 40):
            STATS.act_to_view.observe(ms / 1000)
        STATS.gc_pause.observe(0.3)
        STATS.store_commit.observe(0.0004)
        lag_task = asyncio.create_task(lag.run(interval=0.01))
        await asyncio.sleep(0.05)
        lag_task.cancel()
        line = status.line()
        again = status.line()
    finally:
        if client is not None:
            await client.close()
        await stop_room(srv)

    assert line.startswith("status: 1 sessions (0 terminal, 1 program, 0 watching); "
                           "1 tables (1 waiting, 0 playing, 0 over); 7 moves in 0s; ")
    # p95 of five observations: the bucket holding the slowest (40 ms -> 50 ms).
    assert "act-to-view p95 <=50ms (5)" in line
    assert re.search(r"loop lag max \d+(\.\d+)?ms", line)
    # The collector and the store record their own too (server/runtime.py, store.py):
    # 300 ms is the slowest pause unless a real one was slower.
    assert re.search(r"slowest gc <=(500ms|1000ms|2500ms|over the top bucket) \(\d+\)", line)
    assert re.search(r"store commit p95 <=\S+ \([1-9]\d*\)", line)
    assert "bot decision p95 - (0)" in line
    assert re.search(r"rss \d+MB$", line)
    # The next line starts from where this one ended.
    assert "0 moves in" in again and "act-to-view p95 - (0)" in again


async def test_the_door_in_figures(tmp_path):
    """Issue 45: refusals by reason, failed logins, bans in force, the database up and
    connections by kind (one waiting for a handshake's place) on the endpoint."""
    import asyncssh
    from test_ceilings import idle

    from server.limits import Limits
    srv = await start_room(tmp_path, metrics="127.0.0.1:0",
                           limits=Limits(handshakes_per_address=1, handshake_queue_seconds=5))
    held = []
    try:
        port = srv.room.metrics.port
        opal = await srv.json_client("opal")
        # A name with another key: refused, a failed login.
        with pytest.raises(asyncssh.PermissionDenied):
            await srv.connect("opal", key=srv.key("mallory"))
        srv.room.moderation.named_operators([srv.key("opal").export_public_key().decode()])
        opal.send({"op": "command", "line": "/ban addr:198.51.100.7 1d spam"})
        await opal.expect("command")
        held.append(await idle(srv.port, "127.0.0.9"))
        await asyncio.sleep(0.1)
        held.append(await idle(srv.port, "127.0.0.9"))         # waits for a place
        await asyncio.sleep(0.2)
        figures = await fetch(port)
        conns = {dict(k[1])["kind"]: v for k, v in figures["lamma_connections"].items()}
        assert conns == {"waiting": 1, "authenticating": 1, "key": 1, "guest": 0}, conns
        refused = {dict(k[1])["reason"]: v for k, v in figures["lamma_refused"].items()}
        assert refused.get("auth-failed") == 1, refused
        assert figures["lamma_failed_logins"][("lamma_failed_logins_total", ())] == 1
        bans = {dict(k[1])["kind"]: v for k, v in figures["lamma_bans_in_force"].items()}
        assert bans == {"addr": 1, "key": 0, "name": 0}, bans
        assert figures["lamma_database_up"][("lamma_database_up", ())] == 1
        srv.room.table_store.down = True              # as the writer sets it, on the loop
        figures = await fetch(port)
        assert figures["lamma_database_up"][("lamma_database_up", ())] == 0
        srv.room.table_store.down = False
        await opal.close()
    finally:
        for _, writer in held:
            writer.close()
        await stop_room(srv)
