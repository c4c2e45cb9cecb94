"""Messages another part of the room posts to one session's App.

Cross-session updates are only ever done by posting one of these to the
target App (never by touching its widgets: ``widget.app`` resolves through a
context variable, so that would act on the sender's own session)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from .i18n import N_

if TYPE_CHECKING:
    from engine.room.events import TableChange

    from .i18n import Speech


class TableChanged(Message):
    """The member's table changed (a move's view posted, not drawn at once: see
    ``LammaApp.table_changed_now``)."""

    def __init__(self, change: TableChange) -> None:
        self.change = change
        super().__init__()


class LobbyChanged(Message):
    pass


class Kicked(Message):
    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__()


class SeatNotice(Message):
    """What became of a request for a computer player's seat (granted or dropped)."""

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__()


class InputLimited(Message):
    """The session's driver held back some of what the terminal sent (input too fast,
    a paste too long): the player is told, once per burst. ``template`` is one of the
    sentences below, ``params`` its placeholders; ``text`` is the sentence in English,
    ``said`` in the player's language."""

    def __init__(self, template: str, **params: object) -> None:
        self.template = template
        self.params = params
        self.text = template.format(**params)
        super().__init__()

    def said(self, speech: Speech) -> str:
        try:
            return speech._(self.template).format(**self.params)
        except (KeyError, IndexError, ValueError):
            return self.text


# What the driver (server.driver) says when it holds input back.
TOO_FAST = N_("Too much input: some keys were ignored.")
PASTE_CUT = N_("Paste cut to {n} characters.")
