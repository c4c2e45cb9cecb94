"""Numbers an operator can watch (issue 12), kept in plain Python by whoever
measures them and read by ``server.metrics`` (the Prometheus endpoint and the
status line in the log).

Each figure has one writer (the loop, or the store's writer thread); readers
only take copies, so no lock is needed for what is an approximate, monotone
count.  Times are in seconds.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Sequence

# Prometheus-style upper bounds (seconds), one set for everything: from a
# fast commit (0.5 ms) to a collector pause worth a log line (over 1 s).
BUCKETS: tuple[float, ...] = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                              0.25, 0.5, 1.0, 2.5)


class Histogram:
    """Counts per bucket (not cumulative), a sum and a count."""

    def __init__(self, name: str, help: str, buckets: Sequence[float] = BUCKETS):
        self.name = name
        self.help = help
        self.buckets = tuple(buckets)
        self.counts = [0] * (len(self.buckets) + 1)     # the last: above every bound
        self.sum = 0.0
        self.count = 0

    def observe(self, seconds: float) -> None:
        self.counts[bisect_left(self.buckets, seconds)] += 1
        self.sum += seconds
        self.count += 1

    def snapshot(self) -> tuple[list[int], float, int]:
        return list(self.counts), self.sum, self.count

    def quantile(self, q: float, counts: Sequence[int] | None = None) -> float | None:
        """The bucket bound under which a fraction ``q`` of the observations (of
        ``counts``, e.g. a difference of two snapshots) fell; None if none."""
        counts = self.counts if counts is None else counts
        total = sum(counts)
        if not total:
            return None
        seen = 0
        for bound, n in zip((*self.buckets, float("inf")), counts, strict=True):
            seen += n
            if seen >= q * total:
                return bound
        return float("inf")


class Counter:
    def __init__(self, name: str, help: str):
        self.name = name
        self.help = help
        self.value = 0

    def inc(self, n: int = 1) -> None:
        self.value += n


class Stats:
    """Everything measured in this process."""

    def __init__(self) -> None:
        self.started = time.time()
        self.moves = Counter("lamma_moves_total", "Actions accepted at every table.")
        self.act_to_view = Histogram(
            "lamma_act_to_view_seconds",
            "From an accepted action to a screen (terminal) or event (program) sent "
            "showing it, per session.")
        self.loop_lag = Histogram(
            "lamma_loop_lag_seconds", "How late the event loop wakes a timer.")
        self.gc_pause = Histogram(
            "lamma_gc_pause_seconds", "Pauses of the cycle collector (every generation).")
        self.gc_full_pause = Histogram(
            "lamma_gc_full_pause_seconds", "Pauses of full (generation 2) collections.")
        self.store_commit = Histogram(
            "lamma_store_commit_seconds", "Time of one store write, committed.")
        # One room across processes (server/cluster.py, remote.py).
        self.cluster_requests = Counter(
            "lamma_cluster_requests_total",
            "Members' requests sent to a table driven by another process.")
        self.cluster_served = Counter(
            "lamma_cluster_served_total",
            "Requests of members on other processes run at a table driven here.")
        self.cluster_frames = Counter(
            "lamma_cluster_frames_total",
            "Frames written for members on other processes of tables driven here.")
        self.cluster_events = Counter(
            "lamma_cluster_events_total",
            "Events written for tables driven here (a table's changes, numbered in order).")
        self.cluster_event_reads = Counter(
            "lamma_cluster_event_reads_total",
            "Reads of a table's stored events: a gap, or events too long for a notice.")
        self.cluster_frame_reads = Counter(
            "lamma_cluster_frame_reads_total",
            "Reads of a table's whole frame: shown here first, or its events not kept.")
        self.cluster_takeovers = Counter(
            "lamma_cluster_takeovers_total",
            "Tables taken over here from a process that stopped answering.")
        self.cluster_lost = Counter(
            "lamma_cluster_lost_total",
            "Tables this process stopped driving because another took them over.")
        self.bot_decision = Histogram(
            "lamma_bot_decision_seconds",
            "A computer player's decision, from asking to the answer on the loop.")

    def counters(self) -> list[Counter]:
        return [self.moves, self.cluster_requests, self.cluster_served, self.cluster_frames,
                self.cluster_events, self.cluster_event_reads, self.cluster_frame_reads,
                self.cluster_takeovers, self.cluster_lost]

    def histograms(self) -> list[Histogram]:
        return [self.act_to_view, self.loop_lag, self.gc_pause, self.gc_full_pause,
                self.store_commit, self.bot_decision]


STATS = Stats()
