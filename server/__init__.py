"""Lamma's room: the asyncssh server, tables, identity and the JSON interface."""
