"""Your profile and the room's leaderboard (the store's statistics, level points
and badges); both are plain text blocks: one widget each, drawn by ``render``."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual import getters
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen

from server.room import title

from ..widgets.lines import Block, KeyBar, Line, title_bar

if TYPE_CHECKING:
    from ..app import LammaApp

W = 80
BADGE_TITLES = {"estimation": "Estimation ★ (5 wins)", "tarneeb41": "Tarneeb 41 ★ (5 wins)"}
BOARD_ROWS = 17


def pct(value) -> str:
    return "—" if value is None else f"{value:.0f}%"


class RecordScreen(Screen[None]):
    """Shared frame: a title line, a text block, the too-small notice, the keys."""

    if TYPE_CHECKING:
        app = getters.app(LammaApp)

    AUTO_FOCUS = ""
    KEYS: list[tuple[str, str]] = [("esc", "back")]
    BLOCK_ID = "record-text"

    def compose(self) -> ComposeResult:
        with Vertical(id="body"):
            yield Line(id="record-title")
            yield Block(id=self.BLOCK_ID, classes="record-block")
        yield Line(id="too-small")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.query_one("#too-small", Line).set("Please enlarge the window to at least 80×24.")
        self.query_one("#keys", KeyBar).show(self.KEYS)
        self.draw()

    def on_screen_resume(self) -> None:
        if self.is_mounted:
            self.draw()

    def draw(self) -> None:  # pragma: no cover - overridden
        pass

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_leaderboard(self) -> None:
        self.app.push_screen(LeaderboardScreen())

    def action_replays(self) -> None:
        from .replay import ReplayListScreen
        self.app.push_screen(ReplayListScreen())


class ProfileScreen(RecordScreen):
    BINDINGS = [
        Binding("escape", "back", show=False, id="profile.back"),
        Binding("q", "back", show=False, id="profile.back_q"),
        Binding("b", "leaderboard", show=False, id="profile.leaderboard"),
        Binding("r", "replays", show=False, id="profile.replays"),
    ]
    KEYS = [("b", "leaderboard"), ("r", "replays"), ("esc", "back")]
    BLOCK_ID = "profile-text"

    def draw(self) -> None:
        app = self.app
        member = app.member
        self.query_one("#record-title", Line).set(title_bar("Profile", member.display_name))
        self.query_one("#profile-text", Block).set(self.profile_text())

    def profile_text(self) -> Text:
        app = self.app
        member = app.member
        t = Text(no_wrap=True, overflow="ellipsis")
        if member.guest:
            t.append("\n You play as a guest: guests are not kept.\n", style="bold")
            t.append(" Nothing you play is recorded: no statistics, level points or badges.\n"
                     " Connect with an SSH key (ssh -i KEY NAME@host) to keep a profile.\n",
                     style="dim")
            t.append("\n b  the leaderboard    r  replays of finished matches\n", style="dim")
            return t
        store = app.registry.records
        if store is None:
            t.append("\n This room keeps no records (it runs without a data folder).\n",
                     style="bold")
            return t
        prof = store.profile(member.name)
        if prof is None:
            t.append(f"\n {member.name}: nothing recorded yet.\n", style="bold")
            t.append(" Finish a match to see your statistics here.\n", style="dim")
            return t
        t.append(" Name          ", style="dim")
        t.append(prof["name"] + "\n", style="bold")
        t.append(" Level points  ", style="dim")
        t.append(f"{prof['level_points']}\n", style="bold")
        t.append(" Badges        ", style="dim")
        if prof["badges"]:
            t.append(", ".join(BADGE_TITLES.get(b, b) for b in prof["badges"]) + "\n",
                     style="bold yellow")
        else:
            t.append("none yet (five wins in matches held by people earn one)\n")
        since = prof.get("since")
        if since:
            t.append(" Playing since ", style="dim")
            t.append(time.strftime("%Y-%m-%d", time.gmtime(since)) + "\n")
        t.append("\n")
        t.append(f" {'game':<18}{'matches':>7}{'wins':>6}{'draws':>6}{'losses':>7}"
                 f"{'rounds':>7}{'decl. %':>9}{'calls %':>9}{'dash %':>8}\n",
                 style="bold underline")
        if not prof["stats"]:
            t.append(" No finished matches yet.\n", style="dim")
        for game, st in prof["stats"].items():
            t.append(f" {title(game)[:17]:<18}{st['matches']:>7}{st['wins']:>6}"
                     f"{st['draws']:>6}{st['losses']:>7}{st['rounds']:>7}"
                     f"{pct(st['declarations_made_pct']):>9}{pct(st['calls_made_pct']):>9}"
                     f"{pct(st['dash_calls_made_pct']):>8}\n")
        t.append("\n decl. %, calls %, dash %: how many of your declarations, calls (as the\n"
                 " caller) and dash calls you made exactly.\n", style="dim")
        t.append("\n Level points: Estimation win +30, draw +10, loss −4; Tarneeb 41 win +20,\n"
                 " loss −4; only matches held by people from the first deal to the end.\n",
                 style="dim")
        return t


class LeaderboardScreen(RecordScreen):
    BINDINGS = [
        Binding("escape", "back", show=False, id="leaderboard.back"),
        Binding("q", "back", show=False, id="leaderboard.back_q"),
        Binding("up", "move(-1)", show=False, id="leaderboard.up"),
        Binding("down", "move(1)", show=False, id="leaderboard.down"),
        Binding("pageup", "move(-10)", show=False, id="leaderboard.page_up"),
        Binding("pagedown", "move(10)", show=False, id="leaderboard.page_down"),
        Binding("r", "replays", show=False, id="leaderboard.replays"),
    ]
    KEYS = [("↑↓", "scroll"), ("r", "replays"), ("esc", "back")]
    BLOCK_ID = "board-text"

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict] | None = None
        self.first = 0

    def draw(self) -> None:
        store = self.app.registry.records
        self.rows = store.leaderboard(limit=100) if store is not None else None
        me = self.app.member
        self.query_one("#record-title", Line).set(title_bar("Leaderboard", "level points"))
        if self.rows and not me.guest:
            mine = [i for i, r in enumerate(self.rows) if r["name"].casefold() == me.name.casefold()]
            if mine and not self.first <= mine[0] < self.first + BOARD_ROWS:
                self.first = max(0, mine[0] - BOARD_ROWS // 2)
        self.paint()

    def action_move(self, delta: int) -> None:
        if not self.rows:
            return
        top = max(0, len(self.rows) - BOARD_ROWS)
        self.first = max(0, min(top, self.first + delta))
        self.paint()

    def paint(self) -> None:
        me = self.app.member
        t = Text(no_wrap=True, overflow="ellipsis")
        if self.rows is None:
            t.append("\n This room keeps no records (it runs without a data folder).\n",
                     style="bold")
        elif not self.rows:
            t.append("\n Nobody has finished a match yet.\n", style="dim")
        else:
            t.append(f" {'rank':>5}   {'name':<32}{'level points':>13}\n", style="bold underline")
            for row in self.rows[self.first:self.first + BOARD_ROWS]:
                mine = not me.guest and row["name"].casefold() == me.name.casefold()
                t.append(f" {row['rank']:>5}   {row['name'][:31]:<32}{row['level_points']:>13}"
                         + ("  ← you" if mine else "") + "\n",
                         style="bold reverse" if mine else "")
            if len(self.rows) > BOARD_ROWS:
                last = min(len(self.rows), self.first + BOARD_ROWS)
                t.append(f" {self.first + 1}–{last} of {len(self.rows)}", style="dim")
        self.query_one("#board-text", Block).set(t)
