"""One typed error per kind of failure.

A refusal a person may read (``IllegalAction``) keeps the message it was made from:
``template`` (English, with named ``{placeholders}``) and ``params``; ``str(e)`` is
the English message. The engine translates nothing: a screen says ``template`` and
``params`` in its player's language through the room's message catalogue
(``tui/locale``), where each template is an entry. A parameter that is itself words
(a phase's, for instance) is an English string marked with ``N_`` so that it is an
entry of the catalogue too.
"""

from __future__ import annotations

from typing import Any


def N_(message: str) -> str:
    """Mark ``message`` for the message catalogue; it is used as it is (English)."""
    return message


def pgettext(context: str, message: str) -> str:
    """Mark ``message``, said in ``context``, for the message catalogue (``N_`` with a
    context: a screen says it through ``Speech.pgettext``)."""
    return message


class IllegalAction(ValueError):
    """An action the rules refuse now. The message is for a player; nothing changed.

    ``IllegalAction(template, **params)``: ``str(e)`` is ``template.format(**params)``
    (``template`` itself without params, so a message with braces and no params is
    taken as it is)."""

    def __init__(self, template: str, /, **params: object) -> None:
        super().__init__(template.format(**params) if params else template)
        self.template = template
        self.params = params

    def __reduce__(self) -> tuple[Any, ...]:   # pickled as its template and params
        return (_illegal, (type(self), self.template, self.params))


def _illegal(cls: type[IllegalAction], template: str, params: dict[str, object]) -> IllegalAction:
    return cls(template, **params)


class BadDeal(ValueError):
    """A stacked deal that is not four hands of 13 distinct cards."""
