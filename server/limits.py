"""What one client may ask of the one event loop (issue 11): every input has a limit.

A limit refuses with words (a JSON ``error``, a notice on the screen) and changes
nothing; a client that keeps pushing is cut off. The numbers are far above what a
person or a well-behaved program does, and far below what slows the others.
"""

from __future__ import annotations

import time


class Bucket:
    """A token bucket: ``rate`` a second on average, ``burst`` at once."""

    __slots__ = ("burst", "level", "rate", "stamp")

    def __init__(self, rate: float, burst: float):
        self.rate = rate
        self.burst = burst
        self.level = burst
        self.stamp = time.monotonic()

    def take(self, amount: float = 1.0) -> bool:
        """Spend ``amount`` if there is that much; False (nothing spent) if not."""
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.level < amount:
            return False
        self.level -= amount
        return True


# JSON lines, per session: requests a second (sustained, burst). A refused request gets
# an error; a session refused REQUEST_STRIKES times in a row is closed.
JSON_RATE, JSON_BURST = 20.0, 40.0
REQUEST_STRIKES = 200

# Terminal sessions: input bytes a second (typing is tens of bytes a second; a mouse click
# is a dozen), window changes a second (a drag of the window edge gives a few dozen).
KEY_BYTES_RATE, KEY_BYTES_BURST = 4096.0, 16384.0
RESIZE_RATE, RESIZE_BURST = 10.0, 20.0
PASTE_MAX_BYTES = 8192          # a paste is cut here (the chat line takes 200 characters)

# Connections.
SESSIONS_PER_CONNECTION = 3     # open at once (a terminal, a program, one to spare)
SESSION_OPENS_RATE, SESSION_OPENS_BURST = 0.2, 6.0   # per connection: a new one every 5 s
CONNECTIONS_PER_ADDRESS = 16    # open at once from one address
CONNECTS_RATE, CONNECTS_BURST = 1.0, 20.0            # per address: new connections a second

# The room.
TABLES_PER_IDENTITY = 3         # open tables one person (or guest connection) created
NAMES_PER_KEY = 5               # names one key may bind
