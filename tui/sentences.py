"""Sentences the room says to a session in English, said again in its player's
language (issue 14).

The room (``server``) tells a session things through plain strings: a notice, why a
seat request was dropped, why the session is closed, a command's reply. Those that
reach a player are listed here as templates; ``say`` finds the one a sentence was
made from, reads its ``{placeholders}`` back out of it and says the sentence with the
catalogue's words (a placeholder that is itself one of these sentences, such as a
mute's "for 2 h", is said again too). A sentence not listed is shown as it came.
"""

from __future__ import annotations

import re
from functools import cache

from .i18n import N_, Speech

SEAT_YOURS = N_("Seat {seat} is yours now.")

TEMPLATES = (
    # TuiMember (tui.app): a computer player's seat and requests for it.
    SEAT_YOURS,
    N_("You take seat {seat} ({name}) when this round ends."),
    N_("The match at table {table} ended before the seat came free."),
    # Operators (server.moderation, server.room.registry): notices.
    N_("An operator closed this table."),
    N_("Announcement: {text}"),
    N_("An operator has muted you {time}."),
    N_("for good"),
    N_("for {n} d"),
    N_("for {n} h"),
    N_("for {n} min"),
    # Why a session is closed (server.ssh, server.cli, server.moderation).
    N_("The server is stopping."),
    N_("You connected from another terminal; this one is closed."),
    N_("The name '{name}' belongs to its key's owner, who has just arrived; "
       "connect again under another name."),
    N_("An operator closed your session ({reason})."),
    N_("no reason given"),
    N_("An operator has banned you from this room."),
    # Every player's commands (server.room.moderation, server.moderation).
    N_("/ignore NAME hides their chat · /unignore NAME · /ignored lists them · "
       "/report NAME REASON tells the operators"),
    N_("You no longer see {name}'s chat."),
    N_("You see {name}'s chat again."),
    N_("Ignored: {names}"),
    N_("You ignore nobody."),
    N_("Thank you: the operators will see your report about {name}."),
)

_FIELD = re.compile(r"\{(\w+)\}")


@cache
def _patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    found = []
    for template in TEMPLATES:
        if "{" not in template:
            continue
        pattern = ""
        last = 0
        for m in _FIELD.finditer(template):
            pattern += re.escape(template[last:m.start()]) + f"(?P<{m.group(1)}>.+?)"
            last = m.end()
        pattern += re.escape(template[last:])
        found.append((re.compile(pattern, re.DOTALL), template))
    return tuple(found)


_PLAIN = frozenset(t for t in TEMPLATES if "{" not in t)


def say(speech: Speech, text: str, _depth: int = 0) -> str:
    """``text`` (a sentence the room said in English) in ``speech``'s language."""
    if speech.code == "en" or not text:
        return text
    if text in _PLAIN:
        return speech._(text)
    if _depth < 2:
        for pattern, template in _patterns():
            m = pattern.fullmatch(text)
            if m is None:
                continue
            params = {k: say(speech, v, _depth + 1) for k, v in m.groupdict().items()}
            try:
                return speech._(template).format(**params)
            except (KeyError, IndexError, ValueError):
                return text
    return speech._(text)


def say_lines(speech: Speech, text: str) -> str:
    """Each line of ``text`` said again (a command's reply may have several)."""
    if speech.code == "en":
        return text
    return "\n".join(say(speech, line) for line in text.split("\n"))
