"""The room's app as a browser gets it: LammaApp, with what a browser's terminal is
known to be (xterm.js does no bidi: Arabic is always joined and ordered by the app,
``shaped``, and the question of how a terminal draws it is not asked), and why the
session was ended, which the page needs to know (to come back by itself, or not):
kept on its ``WebProcess``."""

from __future__ import annotations

from pathlib import Path

import tui.app
from engine.room.errors import N_
from tui import settings
from tui.app import LammaApp
from tui.messages import Kicked

from .channel import WebProcess

# The reason another terminal (or tab) of the same person gives when it takes over:
# that page must not take it back by itself (two tabs would take turns for ever).
TAKEN_OVER = N_("You connected from another terminal; this one is closed.")


class WebLammaApp(LammaApp):
    """(Textual calls each class's ``on_*`` handler down the MRO, this one's first:
    these do their part only, and LammaApp's then run as for any session.)"""

    # LammaApp's stylesheet (a relative CSS_PATH is read beside the class's module).
    CSS_PATH = str(Path(tui.app.__file__).with_name("lamma.tcss"))
    def on_mount(self) -> None:
        settings.load(self)
        # Shown so here whatever was kept for the player's terminal (kept only if the
        # player saves options from the browser).
        self.look.text_mode = "shaped"

    def on_kicked(self, message: Kicked) -> None:
        # Kept on the session's process (the app is hollowed once it ends).
        process = self.ssh_process
        if isinstance(process, WebProcess):
            process.kicked = getattr(message.reason, "template", str(message.reason))
