"""What build of the room this is: ``lamma --version``, the start banner and the
``lamma_build_info`` metric (issue 39)."""

from __future__ import annotations

import platform
from functools import cache
from importlib import metadata


@cache
def version() -> str:
    """The installed distribution's version (pyproject.toml's), or ``0+unknown`` when the
    code runs from a tree that was never installed."""
    try:
        return metadata.version("lamma")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def info() -> dict[str, str]:
    """The labels of ``lamma_build_info``: the room's version and what it runs on."""
    def of(dist: str) -> str:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return ""
    return {"version": version(), "python": platform.python_version(),
            "asyncssh": of("asyncssh"), "textual": of("textual")}
