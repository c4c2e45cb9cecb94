"""What a screen or widget may ask of the session's app: a Protocol the app meets.

Screens and widgets name this, never ``tui.app``, so the app imports its screens and
nothing imports the app back (issue 42: no import circle in ``tui/``). The members are
the session's own (its member, speech, look, the room's registry) and the few of
Textual's App the screens use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console
    from textual.filter import LineFilter
    from textual.geometry import Size
    from textual.message import Message
    from textual.message_pump import MessagePump
    from textual.screen import Screen

    from engine.room import Registry, Session

    from .cards import Look
    from .i18n import Speech


class Host(Protocol):
    """One session's app, as its screens see it."""

    registry: Registry
    speech: Speech
    look: Look
    look_loaded: bool
    displayed_version: int
    console: Console

    @property
    def member(self) -> Session: ...
    @property
    def ended(self) -> bool: ...
    @property
    def is_running(self) -> bool: ...
    @property
    def size(self) -> Size: ...
    @property
    def screen(self) -> Screen[Any]: ...

    def open_table(self, notice: str | None = None) -> None: ...
    def open_standings(self, event: int, notice: str = "") -> None: ...
    def apply_language(self) -> None: ...
    def push_screen(self, screen: Any, callback: Any = None,
                    wait_for_dismiss: bool = False) -> Any: ...
    def pop_screen(self) -> Any: ...
    def post_message(self, message: Message) -> bool: ...
    def exit(self, result: Any = None, return_code: int = 0,
             message: Any = None) -> None: ...
    def get_line_filters(self) -> Sequence[LineFilter]: ...


def host(node: MessagePump) -> Host:
    """The session's app that ``node`` (a screen or widget) is mounted in."""
    return cast("Host", node.app)


class Hosted:
    """The player's language and look as a screen reads them from its session's app
    (mixed in before Textual's ``Screen``, whose ``app`` it reads)."""

    @property
    def speech(self) -> Speech:
        """The player's language (what the screen's parts say things in)."""
        return host(cast("MessagePump", self)).speech

    @property
    def look(self) -> Look:
        """The player's look: the cards' characters, the colours."""
        return host(cast("MessagePump", self)).look
