"""The lobby: tables, quick play, create, sit, watch, help, quit."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen

from server.tables import GAME_TITLES, RoomError

from ..widgets.lines import KeyBar, Lines

LIST_ROWS = 16
# 80 columns hold seven keys: ↑↓ is left to the help screen; b and r are
# shown on the profile screen (and the help screen).
LOBBY_KEYS = [("enter", "sit"), ("w", "watch"), ("p", "quick play"), ("n", "new"),
              ("i", "profile"), ("?", "help"), ("q", "quit")]


def length_label(game: str, length) -> str:
    if length is None:
        return "to 41"
    if game == "estimation":
        return f"{length} rds"
    return str(length)


def seats_label(summary: dict) -> str:
    names = []
    for s in summary["seats"]:
        if s["kind"] == "empty":
            names.append("·")
        else:
            n = s["name"] or "?"
            if s.get("guest"):
                n += "°"
            if s["kind"] == "human" and not s.get("connected", True):
                n += "(away)"
            names.append(n)
    return ", ".join(names)


def status_label(summary: dict) -> str:
    if summary["status"] == "waiting":
        free = sum(1 for s in summary["seats"] if s["kind"] == "empty")
        return f"waiting ({free} free)"
    if summary["status"] == "over":
        return "finished"
    r, rr = summary.get("round"), summary.get("rounds")
    return f"round {r} of {rr}" if rr else f"hand {r}"


class LobbyScreen(Screen):
    BINDINGS = [
        Binding("up", "move(-1)", show=False),
        Binding("down", "move(1)", show=False),
        Binding("enter", "sit", show=False),
        Binding("w", "watch", show=False),
        Binding("p", "quick", show=False),
        Binding("n", "new", show=False),
        Binding("question_mark", "help", show=False),
        Binding("q", "quit", show=False),
        Binding("i", "profile", show=False, id="lobby.profile"),
        Binding("b", "leaderboard", show=False, id="lobby.leaderboard"),
        Binding("r", "replays", show=False, id="lobby.replays"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.cursor = 0
        self.rows: list[dict] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="body"):
            yield Lines(id="lobby-title")
            yield Lines(LIST_ROWS + 1, id="lobby-list")
            yield Lines(id="lobby-status")
        yield Lines(id="too-small")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        app = self.app
        app.registry.lobby.add(app.member)
        self.query_one("#too-small", Lines).set(
            "Please enlarge the window to at least 80×24.")
        self.query_one("#keys", KeyBar).show(LOBBY_KEYS)
        self.lobby_changed()

    def on_screen_resume(self) -> None:
        self.app.registry.lobby.add(self.app.member)
        self.lobby_changed()

    def on_screen_suspend(self) -> None:
        self.app.registry.lobby.discard(self.app.member)

    # ------------------------------------------------------------------ draw
    def lobby_changed(self) -> None:
        if not self.is_mounted:
            return
        app = self.app
        self.rows = app.registry.listing(app.member)
        if self.rows:
            self.cursor = max(0, min(self.cursor, len(self.rows) - 1))
        else:
            self.cursor = 0
        who = app.member.display_name
        title = Text()
        title.append(" Lamma ", style="bold reverse")
        title.append("  card room · Estimation · Tarneeb 41", style="bold")
        title.append(f"    you: {who}")
        if app.member.guest:
            title.append("  (guest: nothing is kept)", style="dim")
        self.query_one("#lobby-title", Lines).set(title)
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(f" {'#':>3}  {'game':<19}{'length':<8}{'seats':<26}status\n",
                 style="bold underline")
        if not self.rows:
            t.append("\n  No tables yet: press p for quick play or n for a new table.\n",
                     style="dim")
        first = max(0, min(self.cursor - LIST_ROWS // 2, len(self.rows) - LIST_ROWS))
        for i, row in enumerate(self.rows):
            if not first <= i < first + LIST_ROWS:
                continue
            line = (f" {row['id']:>3}  {GAME_TITLES.get(row['game'], row['game'])[:18]:<19}"
                    f"{length_label(row['game'], row['length']):<8}"
                    f"{seats_label(row)[:25]:<26}{status_label(row)}")
            if row["spectators"]:
                line += f" · {row['spectators']} watching"
            t.append(line + "\n", style="reverse" if i == self.cursor else "")
        self.query_one("#lobby-list", Lines).set(t)

    def set_status(self, text: str, error: bool = False) -> None:
        self.query_one("#lobby-status", Lines).set(
            Text(" " + text, style="bold red" if error else "dim"))

    # --------------------------------------------------------------- actions
    def action_move(self, delta: int) -> None:
        if self.rows:
            self.cursor = (self.cursor + delta) % len(self.rows)
            self.lobby_changed()

    def _selected(self):
        if not self.rows:
            return None
        tid = self.rows[self.cursor]["id"]
        return self.app.registry.tables.get(tid)

    def action_sit(self) -> None:
        table = self._selected()
        if table is None:
            self.set_status("No table selected.", error=True)
            return
        try:
            table.sit(self.app.member)
        except RoomError as exc:
            self.set_status(str(exc), error=True)
            return
        self.app.open_table()

    def action_watch(self) -> None:
        table = self._selected()
        if table is None:
            return
        try:
            table.watch(self.app.member)
        except RoomError as exc:
            self.set_status(str(exc), error=True)
            return
        self.app.open_table()

    def action_quick(self) -> None:
        app = self.app
        for row in app.registry.listing(app.member):
            if row["status"] == "waiting" and not row["private"]:
                table = app.registry.tables.get(row["id"])
                try:
                    table.sit(app.member)
                except RoomError:
                    continue
                app.open_table()
                return
        try:
            table = app.registry.create("estimation")
            table.sit(app.member, 0)
            table.fill_with_bots()
        except RoomError as exc:
            self.set_status(str(exc), error=True)
            return
        app.open_table()

    def action_new(self) -> None:
        from .create import CreateScreen
        self.app.push_screen(CreateScreen())

    def action_help(self) -> None:
        from .help import HelpScreen
        self.app.push_screen(HelpScreen(None))

    def action_quit(self) -> None:
        self.app.exit()

    def action_profile(self) -> None:
        from .profile import ProfileScreen
        self.app.push_screen(ProfileScreen())

    def action_leaderboard(self) -> None:
        from .profile import LeaderboardScreen
        self.app.push_screen(LeaderboardScreen())

    def action_replays(self) -> None:
        from .replay import ReplayListScreen
        self.app.push_screen(ReplayListScreen())

    def on_click(self, event: events.Click) -> None:
        lst = self.query_one("#lobby-list", Lines)
        if lst.region.contains(event.screen_x, event.screen_y):
            first = max(0, min(self.cursor - LIST_ROWS // 2, len(self.rows) - LIST_ROWS))
            row = event.screen_y - lst.region.y - 1 + first
            if 0 <= row < len(self.rows):
                self.cursor = row
                self.lobby_changed()
