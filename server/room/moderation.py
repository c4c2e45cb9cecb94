"""Moderation as the room sees it: slash commands typed where chat is typed, mutes,
and each member's ignore list. Who may do what (operators, bans, the log) is the
transport's ``server.moderation.Moderation``, which implements ``Moderator``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol

from .errors import RoomError
from .text import name_key

if TYPE_CHECKING:
    from .members import Member


class Moderator(Protocol):
    def command(self, member: Member, line: str) -> str:
        """Run ``/cmd args`` typed by ``member``; the reply to show them. RoomError
        (nothing changed) when refused."""


class NoModerator:
    """A room without moderation (tests): only a member's own ignore list works."""

    def command(self, member: Member, line: str) -> str:
        return own_command(member, line) or _unknown(line)


def _unknown(line: str) -> str:
    raise RoomError(f"Unknown command {line.split()[0][:20]!r}: /help lists them.")


PLAYER_HELP = ("/ignore NAME hides their chat · /unignore NAME · /ignored lists them · "
               "/report NAME REASON tells the operators")


def own_command(member: Member, line: str) -> str | None:
    """The commands every player has that need nobody else: the ignore list (kept for
    this session). None if ``line`` is not one of them."""
    words = line.split()
    cmd = words[0].lower() if words else ""
    if cmd in ("/ignore", "/unignore"):
        if len(words) != 2:
            raise RoomError(f"Usage: {cmd} NAME")
        who = words[1].rstrip("°")
        if cmd == "/ignore":
            if name_key(who) == name_key(member.name):
                raise RoomError("You cannot ignore yourself.")
            member.ignoring.add(name_key(who))
            return f"You no longer see {who}'s chat."
        member.ignoring.discard(name_key(who))
        return f"You see {who}'s chat again."
    if cmd == "/ignored":
        return ("Ignored: " + ", ".join(sorted(member.ignoring))) if member.ignoring \
            else "You ignore nobody."
    return None


def ignores(member: Member, who: str) -> bool:
    """Does ``member`` ignore the chat of ``who`` (a name as shown, guest mark or not)?"""
    return bool(member.ignoring) and name_key(who.rstrip("°")) in member.ignoring


class Mutes:
    """Who may not chat, by name, until when (wall-clock seconds)."""

    def __init__(self) -> None:
        self.until: dict[str, float] = {}

    def mute(self, name: str, seconds: float) -> None:
        self.until[name_key(name)] = time.time() + seconds

    def unmute(self, name: str) -> bool:
        return self.until.pop(name_key(name), None) is not None

    def check(self, name: str) -> None:
        """RoomError if ``name`` is muted now."""
        end = self.until.get(name_key(name))
        if end is None:
            return
        left = end - time.time()
        if left <= 0:
            del self.until[name_key(name)]
            return
        raise RoomError(f"An operator has muted you for {max(1, round(left / 60))} more "
                        "minute(s).")
