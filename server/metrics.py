"""Numbers an operator can watch (issue 12): a Prometheus endpoint, the loop's lag,
and a one-line status in the log every minute.

The figures live in ``engine.room.stats.STATS``, kept by whoever measures them; the
endpoint reads them at each scrape (a custom collector: no copy, no second set of
metrics to keep in step) and counts sessions and tables from the room itself.

The endpoint is a single HTTP thread of its own (``lamma serve --metrics HOST:PORT``,
off by default), so a scrape never waits for the event loop and a client never gets
onto it: one request at a time, each given ``REQUEST_TIMEOUT`` seconds. It has no
authentication: bind it to localhost or a private network.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Iterator
from typing import Protocol
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CollectorRegistry, make_wsgi_app
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.gc_collector import GCCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

from engine.room import Member, Registry
from engine.room.stats import STATS, Histogram, Stats

from .logs import Refusals
from .persistence import TableStore
from .runtime import frozen_count

log = logging.getLogger("lamma.metrics")
status_log = logging.getLogger("lamma.status")

LAG_INTERVAL = 0.25     # how often the loop's lag is sampled (s)
STATUS_EVERY = 60.0     # the status line's period (s)
REQUEST_TIMEOUT = 5.0   # a scraper that sends nothing is dropped after this (s)

# How a session's ``kind`` is named in the figures.
SESSION_KINDS = {"tui": "terminal", "json": "program"}
TABLE_STATUSES = ("waiting", "playing", "over")


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``[IPv6]:PORT`` or a bare ``PORT`` (then 127.0.0.1)."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    host = host.strip("[]") or "127.0.0.1"
    try:
        number = int(port)
    except ValueError:
        raise ValueError(f"not HOST:PORT: {text!r}") from None
    if not 0 <= number <= 65535:
        raise ValueError(f"no such port: {number}")
    return host, number


# ------------------------------------------------------------ what the room holds now
class Counted(Protocol):
    """The room as its figures read it (server/service.py's ``RoomService``): who is
    online, its tables, its connections by kind, its refusals, the bans in force (and
    counting them again), whether the database answers."""

    online: dict[str, Member]
    registry: Registry
    refusals: Refusals
    bans_in_force: dict[str, int]
    table_store: TableStore

    def connection_kinds(self) -> dict[str, int]: ...
    def count_bans(self) -> None: ...


def room_counts(room: Counted) -> tuple[dict[str, int], int, dict[str, int]]:
    """(sessions by kind, spectators, tables by status), read from any thread: each
    container is copied in one C-level call (atomic under the GIL) before it is walked."""
    sessions = dict.fromkeys(SESSION_KINDS.values(), 0)
    for member in list(room.online.values()):
        kind = SESSION_KINDS.get(getattr(member, "kind", ""), "other")
        sessions[kind] = sessions.get(kind, 0) + 1
    tables = dict.fromkeys(TABLE_STATUSES, 0)
    spectators = 0
    for table in list(room.registry.tables.values()):
        tables[table.status] = tables.get(table.status, 0) + 1
        spectators += len(table.watchers)
    return sessions, spectators, tables


def transport_counts(room: Counted) -> dict[str, int]:
    """Sessions by how they reach the room: ssh (terminals and programs) or web
    (browsers, server/web)."""
    counts = {"ssh": 0, "web": 0}
    for member in list(room.online.values()):
        transport = str(getattr(member, "transport", "ssh"))
        counts[transport] = counts.get(transport, 0) + 1
    return counts


class RoomCollector(Collector):
    """The room's figures at the moment of a scrape."""

    def __init__(self, room: Counted, stats: Stats = STATS):
        self.room = room
        self.stats = stats

    def collect(self) -> Iterator[Metric]:
        sessions, spectators, tables = room_counts(self.room)
        g = GaugeMetricFamily("lamma_sessions", "Sessions open now, by kind "
                              "(terminal: the card room; program: JSON lines).",
                              labels=["kind"])
        for kind, n in sessions.items():
            g.add_metric([kind], n)
        yield g
        g = GaugeMetricFamily("lamma_sessions_by_transport", "Sessions open now, by "
                              "transport (ssh: terminals and programs; web: browsers).",
                              labels=["transport"])
        for transport, n in transport_counts(self.room).items():
            g.add_metric([transport], n)
        yield g
        yield GaugeMetricFamily("lamma_spectators", "Sessions watching a table.",
                                value=spectators)
        g = GaugeMetricFamily("lamma_tables", "Tables, by status.", labels=["status"])
        for status, n in tables.items():
            g.add_metric([status], n)
        yield g
        for c in self.stats.counters():
            yield CounterMetricFamily(c.name, c.help, value=c.value)
        yield from self.door()
        side = self.room.registry.side
        if side is not None:
            yield GaugeMetricFamily(
                "lamma_tables_elsewhere",
                "Tables driven by another process of the room, shown to members here.",
                value=sum(1 for t in list(side.remote.values()) if t.local))
        from .build import info
        build = info()
        # Prometheus's *_info convention: a gauge of 1 whose labels say what runs.
        b = GaugeMetricFamily("lamma_build_info", "The room's version and what it runs on.",
                              labels=list(build))
        b.add_metric(list(build.values()), 1)
        yield b
        yield GaugeMetricFamily("lamma_start_time_seconds",
                                "When this process started (Unix time).",
                                value=self.stats.started)
        yield GaugeMetricFamily(
            "lamma_gc_frozen_objects",
            "Objects frozen out of the collector's scans (runtime.collect_and_freeze), "
            "counted as they were frozen (some may have died since); its growth is what "
            "only a whole collection can free.",
            value=frozen_count())
        for h in self.stats.histograms():
            yield histogram_family(h)


    def door(self) -> Iterator[Metric]:
        """Who gets in and who does not (issue 45): connections by kind, refusals by
        reason, failed logins, bans in force, the database up. Each read of the room's
        own counts: nothing here asks the store."""
        room = self.room
        g = GaugeMetricFamily("lamma_connections", "Connections now: waiting for a place "
                              "among their address's handshakes, authenticating, a key's, "
                              "a guest's.", labels=["kind"])
        for kind, n in room.connection_kinds().items():
            g.add_metric([kind], n)
        yield g
        c = CounterMetricFamily("lamma_refused_total", "Connections, logins and sessions "
                                "refused, by reason (docs/operations.md, Logs).",
                                labels=["reason"])
        for reason, n in sorted(room.refusals.counts.items()):
            c.add_metric([reason], n)
        yield c
        yield CounterMetricFamily("lamma_failed_logins_total", "Connections that tried "
                                  "to authenticate and never did.",
                                  value=room.refusals.failed_logins)
        g = GaugeMetricFamily("lamma_bans_in_force", "Bans in force now, by kind (name, "
                              "key, addr).", labels=["kind"])
        for kind, n in sorted(room.bans_in_force.items()):
            g.add_metric([kind], n)
        yield g
        yield GaugeMetricFamily("lamma_database_up", "1 while the database answers the "
                                "room's writes, 0 while it does not (moves wait).",
                                value=0 if room.table_store.down else 1)


def histogram_family(h: Histogram) -> HistogramMetricFamily:
    """``h`` as Prometheus sees a histogram: cumulative buckets, ``+Inf`` the count.
    The count is the buckets' total (not ``h.count``, which another thread may have
    moved since the copy), so the family is always consistent."""
    counts, total, _ = h.snapshot()
    buckets: list[tuple[str, float]] = []
    seen = 0
    for bound, n in zip(h.buckets, counts, strict=False):
        seen += n
        buckets.append((repr(float(bound)), seen))
    buckets.append(("+Inf", sum(counts)))
    return HistogramMetricFamily(h.name, h.help, buckets=buckets, sum_value=total)


# ------------------------------------------------------------------ the endpoint
class _Handler(WSGIRequestHandler):
    timeout = REQUEST_TIMEOUT       # a socket timeout: a silent client is let go

    def log_message(self, format: str, *args: object) -> None:
        pass                        # a scrape every few seconds is not news


class Exporter:
    """The HTTP endpoint: one thread, one request at a time (a scraper asks every
    few seconds; a flood of clients queues up on the socket, it gets no threads)."""

    def __init__(self, room: Counted, host: str, port: int):
        self.registry = CollectorRegistry(auto_describe=True)
        self.registry.register(RoomCollector(room))
        # process_resident_memory_bytes, process_cpu_seconds_total, python_gc_*.
        ProcessCollector(registry=self.registry)
        GCCollector(registry=self.registry)
        server_class = _server_class(host)
        self.httpd = make_server(host, port, make_wsgi_app(self.registry),
                                 server_class, handler_class=_Handler)
        self.host = host
        self.port = self.httpd.server_port
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.5},
                                       name="lamma-metrics", daemon=True)
        self.thread.start()
        log.info("metrics on http://%s:%d/metrics", host, self.port)

    def close(self) -> None:
        if not self.thread.is_alive():
            return
        # shutdown() waits for the request being answered: a client trickling its
        # request must not hold the room's stop (the thread is a daemon).
        stopper = threading.Thread(target=self.httpd.shutdown, daemon=True)
        stopper.start()
        stopper.join(2)
        self.httpd.server_close()
        self.thread.join(0.5)


def _server_class(host: str) -> type[WSGIServer]:
    import socket

    family = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM,
                                flags=socket.AI_PASSIVE)[0][0]

    class Server(WSGIServer):
        address_family = family

    return Server


def start_exporter(room: Counted, listen: str) -> Exporter:
    host, port = parse_listen(listen)
    return Exporter(room, host, port)


# -------------------------------------------------------------------- loop lag
class LoopLag:
    """How late the loop wakes a timer: into ``STATS.loop_lag``, and the worst since
    the last status line (a histogram only knows its bucket)."""

    def __init__(self) -> None:
        self.worst = 0.0

    async def run(self, interval: float = LAG_INTERVAL, stats: Stats = STATS) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + interval
            await asyncio.sleep(interval)
            late = max(0.0, loop.time() - due)
            stats.loop_lag.observe(late)
            self.worst = max(self.worst, late)

    def take_worst(self) -> float:
        worst, self.worst = self.worst, 0.0
        return worst


LOOP_LAG = LoopLag()


# ----------------------------------------------------------------- status line
def resident_bytes() -> int | None:
    """Resident memory now (Linux: /proc/self/statm); None where not known."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds == float("inf"):
        return "over the top bucket"
    ms = seconds * 1000
    return f"{ms:.1f}ms" if ms < 10 else f"{ms:.0f}ms"


class StatusLine:
    """The minute's one line: each call tells what happened since the previous one
    (the histograms' difference), and what the room holds now."""

    def __init__(self, room: Counted, stats: Stats = STATS, lag: LoopLag = LOOP_LAG):
        self.room = room
        self.stats = stats
        self.lag = lag
        self._since = time.monotonic()
        self._moves = stats.moves.value
        self._counts = {h.name: h.snapshot()[0] for h in stats.histograms()}

    def _delta(self, h: Histogram) -> list[int]:
        now = h.snapshot()[0]
        before = self._counts.get(h.name, [0] * len(now))
        self._counts[h.name] = now
        return [a - b for a, b in zip(now, before, strict=True)]

    def _p95(self, h: Histogram) -> str:
        d = self._delta(h)
        q = h.quantile(0.95, d)
        return f"<={_ms(q)} ({sum(d)})" if q is not None else "- (0)"

    def _slowest(self, h: Histogram) -> str:
        d = self._delta(h)
        top = max((i for i, n in enumerate(d) if n), default=None)
        if top is None:
            return "none"
        bound = h.buckets[top] if top < len(h.buckets) else float("inf")
        return f"<={_ms(bound)} ({sum(d)})"

    def _cluster(self) -> str:
        """A room across processes: its tables shown here and its takeovers so far."""
        side = self.room.registry.side
        if side is None:
            return ""
        shown = sum(1 for t in list(side.remote.values()) if t.local)
        s = self.stats
        return (f"{shown} tables of other processes shown here, "
                f"{s.cluster_requests.value} requests sent, {s.cluster_served.value} served, "
                f"{s.cluster_takeovers.value} taken over, {s.cluster_lost.value} lost; ")

    def line(self) -> str:
        s = self.stats
        now = time.monotonic()
        elapsed, self._since = now - self._since, now
        moves, self._moves = s.moves.value - self._moves, s.moves.value
        sessions, spectators, tables = room_counts(self.room)
        who = ", ".join(f"{n} {kind}" for kind, n in sessions.items())
        what = ", ".join(f"{n} {status}" for status, n in tables.items())
        self._delta(s.loop_lag)     # the exact worst is kept by LoopLag
        worst = self.lag.take_worst()
        rss = resident_bytes()
        return (f"status: {sum(sessions.values())} sessions ({who}, {spectators} watching); "
                f"{sum(tables.values())} tables ({what}); "
                f"{moves} moves in {elapsed:.0f}s; "
                f"act-to-view p95 {self._p95(s.act_to_view)}; "
                f"loop lag max {_ms(worst)}; "
                f"slowest gc {self._slowest(s.gc_pause)}, full {self._slowest(s.gc_full_pause)}; "
                f"store commit p95 {self._p95(s.store_commit)}; "
                f"bot decision p95 {self._p95(s.bot_decision)}; "
                f"{self._cluster()}"
                f"rss {'-' if rss is None else f'{rss / 2**20:.0f}MB'}")


REFRESH = 30.0          # how often what the metrics show from the store is counted (s)


async def refresh_task(room: Counted, every: float = REFRESH) -> None:
    """What the metrics show from the store, counted on the loop (bans end by
    themselves): the endpoint's thread never asks the store."""
    while True:
        await asyncio.sleep(every)
        room.count_bans()


async def status_task(room: Counted, every: float = STATUS_EVERY) -> None:
    """The status line in the log every ``every`` seconds (logger ``lamma.status``)."""
    status = StatusLine(room)
    while True:
        await asyncio.sleep(every)
        try:
            status_log.info("%s", status.line())
        except Exception:               # a figure gone wrong must not stop the room
            log.exception("status line failed")
