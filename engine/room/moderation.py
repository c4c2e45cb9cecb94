"""Moderation as the room sees it: slash commands typed where chat is typed, mutes,
and each member's ignore list. Who may do what (operators, bans, the log) is the
transport's ``server.moderation.Moderation``, which implements ``Moderator``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .catalogue import GUEST_MARK
from .errors import N_, RoomError, Said
from .people import Person
from .text import check_name, clean_name, name_key


class NoModerator:
    """A room without moderation (tests): only a member's own ignore list works."""

    def command(self, member: Person, line: str) -> str:
        return own_command(member, line) or _unknown(line)

    def is_operator(self, member: Person) -> bool:
        return False


def _unknown(line: str) -> str:
    raise RoomError("Unknown command {command}: /help lists them.",
                    command=repr(line.split()[0][:20]))


IGNORE_MAX = 100        # names one session may ignore


def bare_name(word: str) -> str:
    """A name as typed, without the guest mark a screen shows after a guest's."""
    return word.rstrip(GUEST_MARK)


PLAYER_HELP = N_("/ignore NAME hides their chat · /unignore NAME · /ignored lists them · "
                 "/report NAME REASON tells the operators · /key add gives a code to add "
                 "another device's key, /key list your keys")


def own_command(member: Person, line: str,
                known: Callable[[str], bool] | None = None) -> str | None:
    """The commands every player has that need nobody else: the ignore list (kept for
    this session). None if ``line`` is not one of them.

    ``known``: whether a name is one the room knows (a name a key owns, anybody here
    now), where the room can tell (``server.moderation``): ``/ignore`` of a name nobody
    has says so rather than "You no longer see …'s chat"."""
    words = line.split()
    cmd = words[0].lower() if words else ""
    if cmd in ("/ignore", "/unignore"):
        if len(words) != 2:
            raise RoomError("Usage: {command} NAME", command=cmd)
        who = bare_name(words[1])
        if cmd == "/ignore":
            if check_name(who)[0] is None:
                raise RoomError("That is not a player's name.")
            if name_key(who) == name_key(member.name):
                raise RoomError("You cannot ignore yourself.")
            if known is not None and name_key(who) not in member.ignoring \
                    and not known(who):
                raise RoomError("Nobody is called {name}: no player owns that name and "
                                "nobody here has it.", name=who)
            if len(member.ignoring) >= IGNORE_MAX:
                raise RoomError("You ignore {n} names already; /unignore one first.",
                                n=IGNORE_MAX)
            member.ignoring.add(name_key(who))
            return Said(N_("You no longer see {name}'s chat."), name=who)
        member.ignoring.discard(name_key(who))
        return Said(N_("You see {name}'s chat again."), name=who)
    if cmd == "/ignored":
        if not member.ignoring:
            return Said(N_("You ignore nobody."))
        return Said(N_("Ignored: {names}"),
                    names=", ".join(clean_name(n) for n in sorted(member.ignoring)))
    return None


def ignores(member: Person, who: str) -> bool:
    """Does ``member`` ignore the chat of ``who`` (a name as shown, guest mark or not)?"""
    return bool(member.ignoring) and name_key(bare_name(who)) in member.ignoring


class Mutes:
    """Who may not chat, until when (wall-clock seconds). A mute holds the name and, when
    the person is here, what is behind it — their key, or a guest's connection and
    address — so another of the key's names or a guest's new name is muted too."""

    def __init__(self) -> None:
        self.until: dict[str, float] = {}
        self.marks_of: dict[str, list[str]] = {}     # name key -> the marks its mute set

    @staticmethod
    def marks(member: Person) -> list[str]:
        root = member.ident.rpartition(":")[0]       # "key:<fp>" or "guest:<token>"
        out = [f"name:{name_key(member.name)}", f"who:{root}"]
        if member.guest and member.address:
            out.append(f"addr:{member.address}")
        return out

    def mute(self, name: str, seconds: float, member: Person | None = None
             ) -> tuple[list[str], float]:
        """The marks muted and until when (a room of several processes stores them:
        ``load`` there)."""
        # (the member's own marks begin with their name's, most often this one: once)
        marks = list(dict.fromkeys([f"name:{name_key(name)}",
                                    *(self.marks(member) if member else [])]))
        end = time.time() + seconds
        for mark in marks:
            self.until[mark] = end
        self.marks_of[name_key(name)] = marks
        return marks, end

    def load(self, rows: list[tuple[str, str, float]]) -> None:
        """The room's mutes as stored, (mark, name key, until) each, in place of
        these (every process of a room enforces the one stored state)."""
        until: dict[str, float] = {}
        marks_of: dict[str, list[str]] = {}
        for mark, nk, end in rows:
            until[mark] = max(end, until.get(mark, end))
            marks_of.setdefault(nk, []).append(mark)
        self.until, self.marks_of = until, marks_of

    def unmute(self, name: str) -> bool:
        marks = self.marks_of.pop(name_key(name), [f"name:{name_key(name)}"])
        found = [m for m in marks if self.until.pop(m, None) is not None]
        return bool(found)

    def check(self, member: Person) -> None:
        """RoomError if ``member`` is muted now."""
        now = time.time()
        for mark in self.marks(member):
            end = self.until.get(mark)
            if end is None:
                continue
            if end <= now:
                del self.until[mark]
                continue
            raise RoomError("An operator has muted you for {minutes} more minute(s).",
                            minutes=max(1, round((end - now) / 60)))
