"""Lamma's room: the asyncssh server, tables, identity and the JSON interface."""

from . import quiet as _quiet

# Before anything of the server imports asyncssh: its known deprecation warnings are not
# the room's output (issue 39; server/quiet.py says which and why).
_quiet.route_dependency_warnings()
