"""A seat at a table (``Seat``, defined with the table in ``table.py``), and its
hand-over from one holder to the next in a match."""

from .store import HELD_BEFORE, SeatKind
from .table import EMPTY, Seat, Table


def handed_on(table: Table, old: Seat, new: Seat) -> Seat:
    """``new``, the seat's holder from now on, remembering ``old`` as the player of the
    match's rounds before the one being played (or about to be: between rounds the
    match's round is already the next) — a round's summary names who played it."""
    round_no = table.round_info()[0] if table.match is not None else None
    if round_no is not None and old.kind != "empty":
        new.before = (*old.before, (round_no, str(old.label)))[-HELD_BEFORE:]
    return new


__all__ = ["EMPTY", "Seat", "SeatKind", "handed_on"]
