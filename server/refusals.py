"""How the room speaks to a connection before (or without) its app: refusals in the
language its locale asks for, and the refusal of a look-alike name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from engine.room import Said
from engine.room.errors import N_

if TYPE_CHECKING:
    from tui.i18n import Speech


def looks_like(name: str, other: str, what: str) -> Said:
    """``what``: words marked ``N_`` (said in the person's language too)."""
    return Said(N_("The name '{name}' looks like '{other}', {what}; choose another name "
                   "(ssh -p PORT OTHERNAME@HOST)."), name=name, other=other, what=what)


def speech_for(env: Mapping[str, object]) -> Speech:
    """How to speak to a connection before (or without) its app: the language its
    locale variables ask for (English otherwise), Arabic shaped for the terminal."""
    from tui.i18n import Speech, language_from_env

    return Speech(language_from_env(env) or "en")


def said_to(speech: Speech, text: str) -> str:
    """``text`` (a refusal, a kick's reason: a ``Said``, or plain English) in that
    language, ready for a terminal."""
    return speech.show(speech.error(text))  # type: ignore[arg-type]


STORE_DOWN_NOTICE = N_("The room's database does not answer: no move can be made until it "
                       "does (nothing already shown is lost).")
STORE_BACK_NOTICE = N_("The room's database answers again: play on.")
