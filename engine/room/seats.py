"""A seat at a table (``Seat``, defined with the table in ``table.py``)."""

from .table import EMPTY, Seat, SeatKind

__all__ = ["EMPTY", "Seat", "SeatKind"]
