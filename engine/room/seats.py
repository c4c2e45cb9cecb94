"""A seat at a table: empty, a person's (connected or away), or a computer player's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .catalogue import BOT_NAMES, DEFAULT_LEVEL, display_name
from .errors import N_, Said
from .text import clean_name

EMPTY = N_("(empty)")        # an empty seat's label (said in each player's language)

if TYPE_CHECKING:
    from .members import Member

SeatKind = Literal["empty", "human", "bot"]


@dataclass
class Seat:
    kind: SeatKind = "empty"
    name: str | None = None
    ident: str | None = None
    guest: bool = False
    member: Member | None = None   # the connected session, None while away
    replaced: str | None = None    # name of the human a bot replaced
    level: str = DEFAULT_LEVEL     # a computer player's level (issue 5: chosen per seat)
    # A guest who may come back to it all the same: a web page's, which holds a token
    # for its guest identity (server/web); held as a key's seat is.
    returns: bool = False

    @classmethod
    def person(cls, member: Member) -> Seat:
        return cls("human", member.name, member.ident, member.guest,
                   returns=bool(getattr(member, "returns", False)))

    @classmethod
    def computer(cls, seat: int, level: str = DEFAULT_LEVEL,
                 replaced: str | None = None) -> Seat:
        return cls("bot", BOT_NAMES[seat], level=level, replaced=replaced)

    def held_by(self, who: Member | str) -> bool:
        """Is this a person's seat held by ``who`` (a member, or an identity)?"""
        ident = who if isinstance(who, str) else who.ident
        return self.kind == "human" and self.ident == ident

    def held_for_return(self) -> bool:
        """A person's seat that its holder may come back to: a key's always (a new
        connection under the same key lands here); a guest's only while connected (a
        guest is its connection: gone, nobody can ever return to the seat — unless it
        ``returns``)."""
        return self.kind == "human" and (not self.guest or self.returns
                                         or self.member is not None)

    @property
    def label(self) -> str:
        """The holder's name as drawn: cleaned (``display_name``), a guest's marked."""
        if self.kind == "empty":
            return Said(EMPTY)
        return display_name(self.name or "?", self.guest)

    def public(self) -> dict[str, Any]:
        """What anyone may see of the seat; the name cleaned (a restored match's seats
        come from the database, which may hold what no client could send)."""
        name = None if self.name is None else clean_name(self.name)
        return {"kind": self.kind, "name": name, "guest": self.guest,
                "connected": self.kind != "human" or self.member is not None}

    def settings(self) -> dict[str, Any]:
        """What a restart needs to seat the same holder again."""
        return {"kind": self.kind, "name": self.name, "ident": self.ident, "guest": self.guest,
                "level": self.level, "replaced": self.replaced}

    @classmethod
    def from_settings(cls, info: dict[str, Any]) -> Seat:
        kind = info.get("kind", "empty")
        if kind not in ("empty", "human", "bot"):
            raise ValueError(f"unknown seat kind {kind!r}")
        return cls(kind, info.get("name"), info.get("ident"), bool(info.get("guest")),
                   replaced=info.get("replaced"), level=info.get("level", DEFAULT_LEVEL))
