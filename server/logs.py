"""``lamma serve --log-format json``: one JSON object a line, for a log collector.

Every line has ``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``message``; a line
about a session, a person, an address or a table also has the fields an operator
filters on — ``session``, ``name``, ``address``, ``key`` (a key's SHA256 fingerprint),
``table``, ``event``, ``reason`` (what refused a connection) — given as ``extra={...}``
where it is logged (``FIELDS``; a person's name as ``player``, since ``name`` is the
logger's on a record, and a key as ``fingerprint``).

``Refusals``: every connection or session the room refuses, counted by reason (the
metrics) and said in the log at INFO — the default level — with its address and key,
at most ``LINES`` lines every ``WINDOW`` seconds (a flood of thousands a second is one
line a while saying how many went unsaid)."""

from __future__ import annotations

import json
import logging
import time
from collections import Counter

# The field in the line, and the record's attribute it comes from.
FIELDS = (("session", "session"), ("name", "player"), ("address", "address"),
          ("key", "fingerprint"), ("table", "table"), ("event", "event"),
          ("reason", "reason"), ("changes", "changes"), ("stored", "stored"))


def line(message: str, level: str = "INFO", logger: str = "lamma", **fields: object) -> str:
    """One JSON line outside the logging machinery (the start banner, a refusal to start),
    in the same shape as a log record's, with ``fields`` beside the message."""
    now = time.time()
    out: dict[str, object] = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z",
        "level": level, "logger": logger, "message": message}
    out.update({k: v for k, v in fields.items() if v is not None})
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"))


def set_level(level: str) -> None:
    """The room's log level (``--log-level``; INFO by default: every session and refusal,
    as sshd logs every login). asyncssh's own lines (several per connection at INFO)
    stay at WARNING unless DEBUG is asked for: the room says what happened to a
    connection itself, once."""
    number = getattr(logging, level.upper(), logging.INFO)
    logging.getLogger().setLevel(number)
    logging.getLogger("asyncssh").setLevel(number if number <= logging.DEBUG
                                           else max(number, logging.WARNING))


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
                    + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, attr in FIELDS:
            value = getattr(record, attr, None)
            if value is not None and value != "":
                out[key] = value if isinstance(value, (int, float, list, dict)) else str(value)
        if record.exc_info:
            out["traceback"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, separators=(",", ":"))


class Refusals:
    """Refusals, by reason: counted (``counts``, ``lamma_refused_connections_total``) and
    logged, each at INFO with its address (and key, name) until ``LINES`` in ``WINDOW``
    seconds; then one WARNING line per window says how many more there were."""

    # A flood's refusals (thousands a second) are a few lines a minute: tests/
    # test_ceilings.py holds a 30 s flood of 64 addresses to under 40 lines in all.
    LINES = 20
    WINDOW = 60.0

    def __init__(self, logger: logging.Logger):
        self.log = logger
        self.counts: Counter[str] = Counter()
        self.failed_logins = 0          # connections that tried and proved nothing
        self._window = 0.0
        self._said = 0
        self._unsaid: Counter[str] = Counter()     # this window's, by reason

    def note(self, reason: str, message: str, address: str = "", fingerprint: str = "",
             name: str = "") -> None:
        """One refusal: ``reason`` a short word (its metric's label), ``message`` what
        happened (said with the address, and the key and name if known)."""
        self.counts[reason] += 1
        now = time.monotonic()
        if now - self._window >= self.WINDOW:
            self.flush()
            self._window, self._said = now, 0
        if self._said >= self.LINES:
            self._unsaid[reason] += 1
            return
        self._said += 1
        who = f" {name}" if name else ""
        where = f" from {address}" if address else ""
        key = f" (key {fingerprint})" if fingerprint else ""
        self.log.info("refused%s%s%s: %s", who, where, key, message,
                      extra={"event": "refused", "reason": reason, "address": address or None,
                             "fingerprint": fingerprint or None, "player": name or None})

    def flush(self) -> None:
        """The refusals not logged one by one since the last line, in one line."""
        if self._unsaid:
            total = sum(self._unsaid.values())
            self.log.warning("%d more refusal(s) not logged one by one (%s)", total,
                             ", ".join(f"{reason}: {n}" for reason, n
                                       in self._unsaid.most_common()),
                             extra={"event": "refused"})
            self._unsaid.clear()
