"""What the room says to a session, said in its player's language (issue 14).

The room's words to a person (a notice, why a seat request was dropped, why the
session is closed, a command's reply) are ``engine.room.Said`` strings: English,
with the template (marked for the catalogue where it is written) and parameters they
were made from; ``Speech.error`` says them again. A plain string is looked up as it is.
"""

from __future__ import annotations

from .i18n import N_, Speech

SEAT_YOURS = N_("Seat {seat} is yours now.")
# Coming back to a seat that waited (a new connection, or Enter on one's table in the
# lobby): one line, said on arrival.
BACK_AT_TABLE = N_("Back in your seat at table #{table}.")
BACK_AT_BOARD = N_("Back at board {board} of event {event}.")


def back_in_seat(speech: Speech, table: object) -> str:
    """Where a returning player is, in one line of ``speech``'s language."""
    board = getattr(table, "event", None)
    if board is not None:
        return speech._(BACK_AT_BOARD).format(board=board.board, event=board.event)
    return speech._(BACK_AT_TABLE).format(table=getattr(table, "id", "?"))


def say(speech: Speech, text: str) -> str:
    """``text`` (words the room said, a ``Said`` or plain English) in ``speech``'s
    language."""
    if speech.code == "en" or not text:
        return text
    return speech.error(text)        # type: ignore[arg-type]


def say_lines(speech: Speech, text: str) -> str:
    """Each line of ``text`` said again (a command's reply may have several)."""
    if speech.code == "en":
        return text
    if getattr(text, "template", None) is not None:
        return say(speech, text)
    return "\n".join(say(speech, line) for line in text.split("\n"))
