"""Third-party warnings are not the room's output (issue 39).

asyncssh 2.24 names cryptography's DSA key types in its annotations, and cryptography 48
and later warn (``CryptographyDeprecationWarning: DSA is deprecated``) at every such
access: ten lines on stderr at every start of ``lamma``, which a log collector, a unit's
journal and a test reading the first line all took for the room's own. The room never
offers DSA (its host key is Ed25519 and asyncssh's DSA support stays off by default), so
the warning says nothing to an operator.

Each known warning is matched by its category, its message and the module that raises it,
and routed to the ``lamma.dependencies`` log at DEBUG, once per place (so ``--log-level
DEBUG`` still shows it); any other warning, of any library, is left to Python's usual
filters, and ``lamma serve`` sends those to its log (``logging.captureWarnings``), so that
with ``--log-format json`` they arrive as JSON lines too.
"""

from __future__ import annotations

import logging
import warnings
from types import TracebackType
from typing import TextIO

log = logging.getLogger("lamma.dependencies")

# (module that raises it, as a regular expression; the message's start): the known ones.
KNOWN = (
    (r"asyncssh(\..*)?$", "DSA is deprecated"),
)

_seen: set[tuple[str, int]] = set()


def _category() -> type[Warning]:
    try:
        from cryptography.utils import CryptographyDeprecationWarning
    except ImportError:                                 # pragma: no cover - a dependency
        return DeprecationWarning
    return CryptographyDeprecationWarning


def route_dependency_warnings() -> None:
    """Turn the known warnings into DEBUG log lines (once per place) before the module
    that raises them is imported. Call it again after anything else takes over
    ``warnings.showwarning`` (``logging.captureWarnings``): it wraps whatever shows
    warnings now, once."""
    known = _category()
    shown = warnings.showwarning
    if getattr(shown, "_lamma_routes", False):
        return

    def showwarning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                    file: TextIO | None = None, line: str | None = None) -> None:
        if issubclass(category, known) and any(start in str(message) for _, start in KNOWN) \
                and "asyncssh" in filename.replace("\\", "/"):
            if (filename, lineno) not in _seen:
                _seen.add((filename, lineno))
                log.debug("%s:%s: %s: %s", filename, lineno, category.__name__, message)
            return
        shown(message, category, filename, lineno, file, line)

    showwarning._lamma_routes = True        # type: ignore[attr-defined]
    # The filter says "always" for exactly these, so that they reach showwarning (and are
    # logged once per place there) whatever -W or PYTHONWARNINGS says; Python's own
    # ``module`` match is on the raising module's name, as in KNOWN.
    for where, start in KNOWN:
        warnings.filterwarnings("always", message=start, category=known, module=where)
    warnings.showwarning = showwarning


def excepthook_to_log(logger: logging.Logger) -> None:
    """Uncaught exceptions as a log record (a JSON line with its traceback as a field):
    the main thread's, any other thread's (the store's writer, the metrics endpoint)
    and those Python can only report (in a destructor, a finalizer), which it would
    otherwise print as plain text on stderr."""
    import sys
    import threading

    def in_thread(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        where = args.thread.name if args.thread is not None else "a thread"
        logger.critical("uncaught %s in %s: %s", args.exc_type.__name__, where,
                        args.exc_value,
                        exc_info=(args.exc_type, args.exc_value, args.exc_traceback)
                        if args.exc_value is not None else None)

    def unraisable(u: sys.UnraisableHookArgs) -> None:
        what = u.err_msg or "Exception ignored in"
        logger.error("%s %r: %s: %s", what, u.object, u.exc_type.__name__, u.exc_value,
                     exc_info=(u.exc_type, u.exc_value, u.exc_traceback)
                     if u.exc_value is not None else None)

    threading.excepthook = in_thread
    sys.unraisablehook = unraisable

    def hook(kind: type[BaseException], value: BaseException,
             tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, value, tb)
            return
        logger.critical("uncaught %s: %s", kind.__name__, value, exc_info=(kind, value, tb))

    sys.excepthook = hook
