"""Your profile and the room's leaderboard (the store's statistics, level points
and badges); both are plain text blocks: one widget each, drawn by ``render``."""

from __future__ import annotations

import textwrap
import time

from rich.text import Text
from textual.binding import Binding

from engine.records import BADGE_WINS
from engine.room import title
from engine.room.store import GameStats, LeaderRow

from ..host import host
from ..i18n import N_, Speech
from .frame import arrows
from .record import RecordScreen, W
from .words import columns, game_title, pad

BOARD_ROWS = 17
NO_RECORDS = N_("This room keeps no records (it runs without a data folder).")
# The statistics' columns: heading and width (the game's first, left-aligned).
STAT_COLUMNS = ((N_("game"), 18), (N_("matches"), 7), (N_("wins"), 6), (N_("draws"), 6),
                (N_("losses"), 7), (N_("rounds"), 7), (N_("decl. %"), 9),
                (N_("calls %"), 9), (N_("dash %"), 8))
PROFILE_KEYS = [("b", N_("leaderboard")), ("r", N_("replays")), ("esc", N_("back"))]
BOARD_KEYS = [("↑↓", N_("scroll")), ("r", N_("replays")), ("esc", N_("back"))]


def badge_title(speech: Speech, badge: str) -> str:
    """A badge as the profile names it: its game's title, the star, and the wins it
    took (the engine's rule, E-40)."""
    return speech.ngettext("{game} ★ ({n} win)", "{game} ★ ({n} wins)", BADGE_WINS).format(
        game=game_title(speech, badge), n=BADGE_WINS)


def pct(value) -> str:
    return "—" if value is None else f"{value:.0f}%"


class LinkedRecordScreen(RecordScreen):
    """The profile's and the leaderboard's frame, with their ways on: each other and
    the replays."""

    def action_leaderboard(self) -> None:
        host(self).push_screen(LeaderboardScreen())

    def action_replays(self) -> None:
        from .replay import ReplayListScreen
        host(self).push_screen(ReplayListScreen())


class ProfileScreen(LinkedRecordScreen):
    BINDINGS = [
        Binding("b", "leaderboard", show=False, id="profile.leaderboard"),
        Binding("r", "replays", show=False, id="profile.replays"),
        Binding("l", "link_browser", show=False, id="profile.link_browser"),
        Binding("u", "unlink_browsers", show=False, id="profile.unlink_browsers"),
    ]
    KEYS = PROFILE_KEYS
    BLOCK_ID = "profile-text"
    link_said = ""          # a link code just made (l), or what unlinking did (u)

    def browser_lines(self) -> list[Text]:
        """The browsers linked to this name (the room's web page, when it has one), and
        how to link or unlink them."""
        browsers = host(self).registry.browsers
        member = host(self).member
        if browsers is None or member.guest:
            return []
        _ = host(self).speech._
        links = browsers.linked(member)
        lines = [Text(""), self.field(N_("Browsers"), Text(str(len(links)), style="bold"))]
        for b in links[:5]:
            lines.append(Text(f"   {b.label} · "
                              + time.strftime("%Y-%m-%d", time.gmtime(b.last_used)),
                              style="dim"))
        lines += [Text(" " + line, style="dim") for line in self.note(_(
            "l  a code that links a browser to your name (the room's web page)    "
            "u  unlink every browser"))]
        if self.link_said:
            lines.append(Text(" " + self.link_said, style="bold"))
        return lines

    def action_link_browser(self) -> None:
        browsers = host(self).registry.browsers
        if browsers is None or host(self).member.guest:
            return
        code = browsers.new_code(host(self).member)
        self.link_said = host(self).speech._(
            "Your link code: {code}. Enter it on the room's web page; it works once, for "
            "a few minutes.").format(code=code)
        self.paint()

    def action_unlink_browsers(self) -> None:
        browsers = host(self).registry.browsers
        if browsers is None or host(self).member.guest:
            return
        n = browsers.unlink(host(self).member)
        self.link_said = host(self).speech._("Browsers unlinked: {n}.").format(n=n)
        self.paint()

    def paint(self) -> None:
        self.set_title(N_("Profile"), host(self).member.display_name)
        self.set_block(self.profile_lines())

    def profile_lines(self) -> list[Text]:
        app = host(self)
        speech = app.speech
        _ = speech._
        member = app.member
        if member.guest:
            return [Text(""),
                    Text(" " + _("You play as a guest: no profile is kept for you."), style="bold"),
                    Text(" " + _("Your matches count for no statistics, level points or "
                                 "badges."), style="dim"),
                    Text(" " + _("Connect with an SSH key (ssh -i KEY NAME@host) to keep a "
                                 "profile."), style="dim"),
                    Text(""),
                    Text(" " + _("b  the leaderboard    r  replays of finished matches"),
                         style="dim")]
        store = app.registry.records
        if store is None:
            return [Text(""), Text(" " + _(NO_RECORDS), style="bold")]
        prof = store.profile(member.name)
        if prof is None:
            return [Text(""),
                    Text(" " + _("{name}: nothing recorded yet.").format(name=member.name),
                         style="bold"),
                    Text(" " + _("Finish a match to see your statistics here."), style="dim"),
                    *self.browser_lines()]
        lines = [self.field(N_("Name"), Text(prof["name"], style="bold")),
                 self.field(N_("Level points"), Text(f"{prof['level_points']}", style="bold"))]
        if prof["badges"]:
            badges = Text(", ".join(badge_title(speech, b) for b in prof["badges"]),
                          style="bold yellow")
        else:
            badges = Text(_("none yet (five wins in matches held by people earn one)"))
        lines += self.field_lines(N_("Badges"), badges)
        since = prof.get("since")
        if since:
            lines.append(self.field(N_("Playing since"),
                                    Text(time.strftime("%Y-%m-%d", time.gmtime(since)))))
        lines.append(Text(""))
        if self.compact:
            if not prof["stats"]:
                lines.append(Text(" " + _("No finished matches yet."), style="dim"))
            for game, st in prof["stats"].items():
                lines += self.stats_lines(game, st)
        else:
            lines.append(self.stats_head())
            if not prof["stats"]:
                lines.append(Text(" " + _("No finished matches yet."), style="dim"))
            for game, st in prof["stats"].items():
                lines.append(self.stats_row(game, st))
        lines += [Text(""),
                  *(Text(" " + line, style="dim") for line in self.note(_(
                      "decl. %, calls %, dash %: how many of your declarations, calls (as "
                      "the caller) and dash calls you made exactly."))),
                  Text(""),
                  *(Text(" " + line, style="dim") for line in self.note(_(
                      "Level points: ranked matches only — 18-round Estimation (win +30, "
                      "draw +10, loss −4) and Tarneeb 41 (win +20, loss −4), held by people "
                      "from the first deal to the end; 13- and 24-round Estimation and the "
                      "calculator scoring count for statistics.")))]
        return lines + self.browser_lines()

    def note(self, text: str) -> list[str]:
        return textwrap.wrap(text, self.width - 6)

    def stats_lines(self, game: str, st: GameStats) -> list[Text]:
        """A game's statistics in the compact layout: its name, then each figure with
        its heading, as many to a line as the width holds."""
        speech = host(self).speech
        figures = [st["matches"], st["wins"], st["draws"], st["losses"], st["rounds"],
                   pct(st["declarations_made_pct"]), pct(st["calls_made_pct"]),
                   pct(st["dash_calls_made_pct"])]
        said = [f"{speech._(h)} {f}" for (h, _w), f in zip(STAT_COLUMNS[1:], figures,
                                                            strict=True)]
        out = [Text(" " + game_title(speech, game), style="bold underline")]
        line = ""
        for item in said:
            if line and len(line) + 3 + len(item) > self.width - 4:
                out.append(Text("   " + line))
                line = item
            else:
                line = f"{line} · {item}" if line else item
        if line:
            out.append(Text("   " + line))
        return out

    def field_lines(self, label: str, value: Text, width: int = 13) -> list[Text]:
        """``field``, its value wrapped under itself where the window is narrow."""
        from .table_compact import wrap
        room = self.width - width - 3
        parts = wrap(value, room, "") if value.cell_len > room else [value]
        out = [self.field(label, parts[0], width)]
        out += [Text(" " * (width + 2)) + part for part in parts[1:]]
        return out

    def field(self, label: str, value: Text, width: int = 13) -> Text:
        """`` Label  value``: the label in a column of its own (dim)."""
        t = Text()
        t.append(" " + pad(host(self).speech._(label), width) + " ", style="dim")
        t.append_text(value)
        return t

    def stats_head(self) -> Text:
        speech = host(self).speech
        if speech.rtl:
            return columns(speech, [(speech._(h), w) for h, w in STAT_COLUMNS], W,
                           style="bold underline")
        return Text(f" {'game':<18}{'matches':>7}{'wins':>6}{'draws':>6}{'losses':>7}"
                    f"{'rounds':>7}{'decl. %':>9}{'calls %':>9}{'dash %':>8}",
                    style="bold underline")

    def stats_row(self, game: str, st: GameStats) -> Text:
        speech = host(self).speech
        figures = [st["matches"], st["wins"], st["draws"], st["losses"], st["rounds"],
                   pct(st["declarations_made_pct"]), pct(st["calls_made_pct"]),
                   pct(st["dash_calls_made_pct"])]
        if speech.rtl:
            return columns(speech, [(game_title(speech, game), STAT_COLUMNS[0][1])]
                           + [(str(f), w) for f, (_h, w) in zip(figures, STAT_COLUMNS[1:],
                                                                 strict=True)], W)
        return Text(f" {title(game)[:17]:<18}{st['matches']:>7}{st['wins']:>6}"
                    f"{st['draws']:>6}{st['losses']:>7}{st['rounds']:>7}"
                    f"{figures[5]:>9}{figures[6]:>9}{figures[7]:>8}")


class LeaderboardScreen(LinkedRecordScreen):
    BINDINGS = [
        *arrows("leaderboard", "move", 10),
        Binding("r", "replays", show=False, id="leaderboard.replays"),
    ]
    KEYS = BOARD_KEYS
    BLOCK_ID = "board-text"

    def __init__(self) -> None:
        super().__init__()
        self.board: list[LeaderRow] | None = None     # the leaderboard's rows
        self.first = 0

    @property
    def board_rows(self) -> int:
        """The players a page shows: 17, or what the compact block holds."""
        return max(3, self.block_rows - 3) if self.compact else BOARD_ROWS

    def paint(self) -> None:
        store = host(self).registry.records
        self.board = store.leaderboard(limit=100) if store is not None else None
        me = host(self).member
        self.set_title(N_("Leaderboard"), host(self).speech._("level points"))
        page = self.board_rows
        if self.board and not me.guest:
            mine = [i for i, r in enumerate(self.board)
                    if r["name"].casefold() == me.name.casefold()]
            if mine and not self.first <= mine[0] < self.first + page:
                self.first = max(0, mine[0] - page // 2)
        self.show_rows()

    def action_move(self, delta: int) -> None:
        if not self.board:
            return
        top = max(0, len(self.board) - self.board_rows)
        self.first = max(0, min(top, self.first + delta))
        self.show_rows()

    def show_rows(self) -> None:
        me = host(self).member
        speech = host(self).speech
        _ = speech._
        rtl = speech.rtl
        width = self.width
        page = self.board_rows
        name_w = min(32, width - 32)
        lines: list[Text] = []
        if self.board is None:
            lines += [Text(""), Text(" " + _(NO_RECORDS), style="bold")]
        elif not self.board:
            lines += [Text(""), Text(" " + _("Nobody has finished a match yet."), style="dim")]
        else:
            if rtl:
                lines.append(columns(speech, [(_("rank"), 8), (_("name"), name_w),
                                              (_("level points"), 14)], width,
                                     style="bold underline"))
            else:
                lines.append(Text(f" {'rank':>5}   {'name':<{name_w}}{'level points':>13}",
                                  style="bold underline"))
            for row in self.board[self.first:self.first + page]:
                mine = not me.guest and row["name"].casefold() == me.name.casefold()
                style = "bold reverse" if mine else ""
                if rtl:
                    lines.append(columns(speech, [
                        (str(row["rank"]), 8), (row["name"], name_w),
                        (str(row["level_points"]), 14),
                        ("→ " + _("you") if mine else "", 10)], width, style=style))
                    continue
                lines.append(Text(f" {row['rank']:>5}   {row['name'][:name_w - 1]:<{name_w}}"
                                  f"{row['level_points']:>13}" + ("  ← you" if mine else ""),
                                  style=style))
            if len(self.board) > page:
                last = min(len(self.board), self.first + page)
                lines.append(Text(" " + _("{first}–{last} of {total}").format(
                    first=self.first + 1, last=last, total=len(self.board)), style="dim"))
        self.set_block(lines)
