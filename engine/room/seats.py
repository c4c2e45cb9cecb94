"""A seat at a table (``Seat``, defined with the table in ``table.py``)."""

from .store import SeatKind
from .table import EMPTY, Seat

__all__ = ["EMPTY", "Seat", "SeatKind"]
