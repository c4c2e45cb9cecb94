"""``lamma serve --log-format json``: one JSON object a line, for a log collector.

Every line has ``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``message``; a line
about a session, a person, an address or a table also has the fields an operator
filters on — ``session``, ``name``, ``address``, ``table``, ``event`` — given as
``extra={...}`` where it is logged (``FIELDS``; a person's name as ``player``, since
``name`` is the logger's on a record)."""

from __future__ import annotations

import json
import logging
import time

# The field in the line, and the record's attribute it comes from.
FIELDS = (("session", "session"), ("name", "player"), ("address", "address"),
          ("table", "table"), ("event", "event"))


def line(message: str, level: str = "INFO", logger: str = "lamma", **fields: object) -> str:
    """One JSON line outside the logging machinery (the start banner, a refusal to start),
    in the same shape as a log record's, with ``fields`` beside the message."""
    now = time.time()
    out: dict[str, object] = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z",
        "level": level, "logger": logger, "message": message}
    out.update({k: v for k, v in fields.items() if v is not None})
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"))


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
                out[key] = value if isinstance(value, (int, float)) else str(value)
        if record.exc_info:
            out["traceback"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, separators=(",", ":"))
