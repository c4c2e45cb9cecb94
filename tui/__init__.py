"""Lamma's terminal interface: a Textual app per SSH session."""
