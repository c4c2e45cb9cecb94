"""The room's one error: a refusal shown to the player as it is, and the other
words the room says to a person (a kick, a dropped request, a notice).

Each keeps the message it was made from — ``template`` (English, with named
``{placeholders}``) and ``params`` — beside its English text, so a screen says it in
its player's language (``tui.i18n.Speech.error``: the templates are entries of the
message catalogue, ``tui/locale``); the JSON interface sends the English text.
"""

from __future__ import annotations

import json
from typing import Any

from engine.errors import N_

__all__ = ["N_", "RoomError", "Said", "quoted"]


class RoomError(Exception):
    """A refusal that is shown to the player as is; nothing changed.

    ``RoomError(template, **params)``: ``str(e)`` is ``template.format(**params)``
    (``template`` itself without params: a message already made, braces and all, is
    taken as it is)."""

    def __init__(self, template: str, /, **params: object) -> None:
        super().__init__(template.format(**params) if params else template)
        self.template = template
        self.params = params

    def __reduce__(self) -> tuple[Any, ...]:
        return (_room_error, (type(self), self.template, self.params))


def _room_error(cls: type[RoomError], template: str, params: dict[str, object]) -> RoomError:
    return cls(template, **params)


class Said(str):
    """Words for a person that are not a refusal (a kick's reason, a dropped request,
    a notice): the English text, with the ``template`` and ``params`` it was made
    from (``Speech.error`` says it in the player's language). The template is
    marked where it is written: ``Said(N_("Seat {seat} is yours now."), seat=2)``."""

    template: str
    params: dict[str, object]

    def __new__(cls, template: str, /, **params: object) -> Said:
        self = super().__new__(cls, template.format(**params) if params else template)
        self.template = template
        self.params = params
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_said, (self.template, self.params))


def _said(template: str, params: dict[str, object]) -> Said:
    return Said(template, **params)


def quoted(obj: object) -> str:
    """A client's value inside a refusal: JSON, ASCII only, at most 60 characters."""
    try:
        text = json.dumps(obj, ensure_ascii=True)
    except (TypeError, ValueError):
        text = "?"
    return text if len(text) <= 60 else text[:57] + "..."
