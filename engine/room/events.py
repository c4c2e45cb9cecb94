"""What a table tells its members when it changes (``TableChange``, defined with the
table in ``table.py``): named here for the screens and programs that draw from it."""

from .table import SeatShown, TableChange, TableShown, What

__all__ = ["SeatShown", "TableChange", "TableShown", "What"]
