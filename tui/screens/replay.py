"""Replays: the finished matches, and a viewer that steps through one trick by
trick with every hand open (the match is over).

The viewer rebuilds the match from the stored log through ``engine.replay``;
each round's four hands are the cards its thirteen tricks hold (all 52 cards
are played every round). Four widgets: head, board, round panel, keys; each is
one ``Block`` of Rich text that repaints only when its text changed.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen

from engine.catalogue import terms
from engine.room import listed_labels, replay_stored, seat_labels, title
from engine.room.store import FinishedRow

from ..host import host
from ..i18n import N_, Speech
from ..widgets.lines import Block, KeyBar, Line, title_bar
from .frame import PageScreen, arrows, steps
from .replay_board import ReplayBoard, ReplayModel, W, cells_line, fit, laid, said
from .sizes import ENLARGE, MIN_W, STD_H, STD_W
from .table_draw import wrap
from .words import length_word, people_first, too_small_text

if TYPE_CHECKING:
    pass

LIST_ROWS = 18
ENGLISH = Speech("en")
TOO_SMALL = ENLARGE     # said with the size it needs (sizes.MIN_W × MIN_H)


def too_small(speech: Speech, width: int = 0, height: int = 0) -> Text:
    return too_small_text(speech, width, height)


def compact_size(screen: Screen[Any]) -> bool:
    """The window is under 80×24: the compact layout (lamma.tcss)."""
    size = screen.app.size
    return size.width < STD_W or size.height < STD_H


def window_width(screen: Screen[Any]) -> int:
    return max(MIN_W, min(W, screen.app.size.width))


def length_words(game: str, length, speech: Speech = ENGLISH) -> str:
    said = terms(game)
    if not said.counted or length is None:
        return speech._("to 41")
    if said.length_in_rounds:
        return speech.ngettext("{n} round", "{n} rounds", length).format(n=length)
    return length_word(speech, length)


def result_words(result: Mapping[str, Any] | None, names: list[str],
                 speech: Speech = ENGLISH) -> str:
    _ = speech._
    if not result:
        return _("unfinished")
    if result.get("abandoned"):
        return _("abandoned")
    winners = result.get("winners") or []
    if result.get("draw"):
        return _("draw: {names}").format(names=", ".join(names[w] for w in winners))
    if len(winners) == 1:
        return _("{name} wins").format(name=names[winners[0]])
    return _("{names} win").format(names=" & ".join(names[w] for w in winners))


def players_in(speech: Speech, row: FinishedRow, names: list[str], width: int,
               sep: str = ", ") -> list[str]:
    """A listed match's players (``names``, each whole) in ``width`` cells: where not
    all hold, its computer players counted before any person is left out."""
    return people_first(names, [s is None for s in row["seats"]], width,
                        lambda n: speech.ngettext("+{n} bot", "+{n} bots", n).format(n=n),
                        sep)


# --------------------------------------------------------------------- screens

class ReplayListScreen(PageScreen):
    """The finished matches, newest first; Enter watches one."""

    BINDINGS = [
        *arrows("replays", "move", 10),
        Binding("enter", "open", show=False, id="replays.open"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.cursor = 0
        self.rows: list[FinishedRow] | None = None

    def parts(self) -> ComposeResult:
        yield Line(id="record-title")
        yield Block(id="replays-list", classes="record-block")

    def on_mount(self) -> None:
        store = host(self).registry.records
        self.rows = store.finished_matches(limit=200) if store is not None else None
        # (then the frame's on_mount draws)

    def draw(self) -> None:
        speech = self.speech
        _ = speech._
        self.query_one("#too-small", Line).set(too_small(speech, *host(self).size))
        keys = [("↑↓", N_("select")), ("enter", N_("watch")), ("esc", N_("back"))]
        self.query_one("#keys", KeyBar).show(keys, speech)
        if speech.code == "en":
            self.query_one("#record-title", Line).set(title_bar("Replays", "finished matches"))
        else:
            self.query_one("#record-title", Line).set(
                speech.line(title_bar(_("Replays"), _("finished matches")),
                            window_width(self)))
        self.paint()

    def paint(self) -> None:
        if compact_size(self) and self.rows:
            self.paint_compact()
            return
        speech = self.speech
        _ = speech._
        t = Text(no_wrap=True, overflow="ellipsis")
        width = window_width(self)
        if not self.rows:
            said = (Text(" " + _("This room keeps no records (it runs without a data folder)."),
                         style="bold") if self.rows is None
                    else Text(" " + _("No finished matches yet."), style="dim"))
            t.append("\n")
            for part in wrap(said, width - 1):
                t.append_text(speech.line(part, width))
                t.append("\n")
        elif not speech.rtl:
            t.append(f" {'#':>4}  {'game':<17}{'length':<10}{'players':<23}{'result':<17}"
                     f"{'date':<6}\n", style="bold underline")
            for i, row in self.shown_rows():
                names = [speech.show(n) for n in listed_labels(row["seats"])]
                when = time.strftime("%m-%d", time.localtime(row["finished"]))
                line = (f" {row['id']:>4}  {title(row['game'])[:16]:<17}"
                        f"{length_words(row['game'], row['length']):<10}"
                        f"{', '.join(players_in(speech, row, names, 22)):<23}"
                        f"{result_words(row['result'], names)[:16]:<17}{when}")
                t.append(line + "\n", style="reverse" if i == self.cursor else "")
        else:
            t.append_text(cells_line(speech, [
                ("#", 6), (_("game"), 17), (_("length"), 10), (_("players"), 22),
                (_("result"), 17), (_("date"), 7)], style="bold underline"))
            t.append("\n")
            for i, row in self.shown_rows():
                names = listed_labels(row["seats"])
                when = time.strftime("%m-%d", time.localtime(row["finished"]))
                t.append_text(cells_line(speech, [
                    (str(row["id"]), 6), (_(title(row["game"])), 17),
                    (length_words(row["game"], row["length"], speech), 10),
                    ("، ".join(players_in(speech, row, names, 21, "، ")), 22),
                    (result_words(row["result"], names, speech), 17), (when, 7)],
                    style="reverse" if i == self.cursor else ""))
                t.append("\n")
        self.query_one("#replays-list", Block).set(t)

    def paint_compact(self) -> None:
        """Under 80×24: three rows a match (its number, game, length and date; its
        players; its result), as many as the window holds, the cursor's among them."""
        speech = self.speech
        width = window_width(self)
        t = Text(no_wrap=True, overflow="ellipsis")
        for n, (i, row) in enumerate(self.shown_rows(max(1, (host(self).size.height - 4) // 3))):
            names = listed_labels(row["seats"])
            when = time.strftime("%m-%d", time.localtime(row["finished"]))
            one = (f"{row['id']:>4}  {speech._(title(row['game']))} · "
                   f"{length_words(row['game'], row['length'], speech)} · {when}")
            comma = speech.pgettext("list", ", ")
            two = f"      {comma.join(names)}"
            three = f"      {result_words(row['result'], names, speech)}"
            style = "reverse" if i == self.cursor else ""
            for j, line in enumerate((one, two, three)):
                if n or j:
                    t.append("\n")
                laid = speech.line(Text(line, style=style), width) if speech.rtl else \
                    Text(speech.show(line), style=style)
                t.append_text(fit(laid, width))
        self.query_one("#replays-list", Block).set(t)

    def shown_rows(self, page: int = LIST_ROWS) -> list[tuple[int, FinishedRow]]:
        """The rows in view (``page`` of them, the cursor's among them) by index."""
        rows = self.rows or []
        n = len(rows)
        first = max(0, min(self.cursor - page // 2, n - page))
        return list(enumerate(rows[first:first + page], start=first))

    def action_move(self, delta: int) -> None:
        if self.rows:
            self.cursor = max(0, min(len(self.rows) - 1, self.cursor + delta))
            self.paint()

    def action_open(self) -> None:
        if self.rows:
            host(self).push_screen(ReplayScreen(self.rows[self.cursor]["id"]))


class ReplayScreen(PageScreen):
    """One finished match, trick by trick, every hand open.

    For Arabic the words are the player's and each line reads right to left (the
    board keeps the table's geometry: seat 0 at the bottom, 1 at the right …)."""

    BINDINGS = [
        *steps("replay"),
        Binding("n", "step(1)", show=False, id="replay.next_n"),
        Binding("space", "step(1)", show=False, id="replay.next_space"),
        Binding("p", "step(-1)", show=False, id="replay.previous_p"),
        Binding("pagedown", "round(1)", show=False, id="replay.next_round"),
        Binding("pageup", "round(-1)", show=False, id="replay.previous_round"),
        Binding("v", "review", show=False, id="replay.review"),
        Binding("up", "scroll(-1)", show=False, id="replay.scroll_up"),
        Binding("down", "scroll(1)", show=False, id="replay.scroll_down"),
    ]

    def __init__(self, match_id: int) -> None:
        super().__init__()
        self.match_id = match_id
        self.model: ReplayModel | None = None
        self.error: str | None = None
        self.pos = 0
        self.heading = ""
        self.game = ""
        self.top = 0            # the compact layout: the first row of the board shown
        # the viewer played it under their name: its rounds' reviews are theirs to open
        # (``v``); else the key is not offered (the review would be refused)
        self.reviewable = False

    def parts(self) -> ComposeResult:
        yield Block(id="rp-head")
        yield Block(id="rp-board")
        yield Block(id="rp-round")

    def on_mount(self) -> None:
        self.load()                 # then the frame's on_mount draws

    def draw_keys(self) -> None:
        speech = self.speech
        _ = speech._
        self.query_one("#too-small", Line).set(too_small(speech, *host(self).size))
        keys = [("← →", N_("trick")), ("PgUp PgDn", N_("round")),
                ("Home End", N_("first/last")), ("v", N_("review")), ("esc", N_("back"))]
        if not self.reviewable:
            keys.remove(("v", N_("review")))
        if compact_size(self):
            keys.insert(3, ("↑↓", N_("scroll")))
        self.query_one("#keys", KeyBar).show(keys, speech)

    def load(self) -> None:
        _ = self.speech._
        store = host(self).registry.records
        stored = store.match(self.match_id) if store is not None else None
        if stored is None:
            self.error = _("Match {id} is not in the record.").format(id=self.match_id)
            return
        from engine.room import reviews
        self.reviewable = reviews.may_review(stored, host(self).member)
        try:
            m = replay_stored(stored)
        except Exception as exc:          # a log this version cannot replay
            self.error = _("Match {id} cannot be replayed: {why}").format(
                id=self.match_id, why=self.speech.error(exc))
            return
        names = seat_labels(stored.seats, stored.settings)
        if self.speech.rtl:
            names = [self.speech.pgettext("seat", "computer") if n == "computer" else n
                     for n in names]
        self.model = ReplayModel(m, names)
        game = stored.record["game"]
        self.game = game
        self.heading = (f"#{self.match_id} {_(title(game))} · "
                        f"{length_words(game, stored.record['length'], self.speech)} · "
                        f"{result_words(m.result or {'abandoned': True}, names, self.speech)}")
        if m.left is not None:
            self.heading += " " + _("({name} left)").format(name=names[m.left])
        if not self.model.positions:
            self.error = _("No complete round was played in this match.")

    # ---------------------------------------------------------------- moves
    def action_step(self, delta: int) -> None:
        self.go(self.pos + delta)

    def action_jump(self, where: int) -> None:
        if self.model:
            self.go(where % len(self.model.positions))

    def action_round(self, delta: int) -> None:
        if not self.model:
            return
        r, k = self.model.positions[self.pos]
        if delta < 0 and k > 0:
            target = r                      # back to the deal of this round
        else:
            target = max(0, min(len(self.model.rounds) - 1, r + delta))
        self.go(self.model.positions.index((target, 0)))

    def go(self, pos: int) -> None:
        if not self.model:
            return
        pos = max(0, min(len(self.model.positions) - 1, pos))
        if pos != self.pos:
            self.pos = pos
            self.draw()

    def action_review(self) -> None:
        """The shown round's review: of the player's own seat if they held one, else of
        seat 0 (tab in the review goes through the others)."""
        if not self.model or not self.reviewable:
            return
        from engine.room import reviews

        from .review import ReviewScreen
        store = host(self).registry.records
        stored = store.match(self.match_id) if store is not None else None
        if stored is None:
            return
        member = host(self).member
        seat = stored.seats.index(member.name) if member.name in stored.seats else 0
        r, _k = self.model.positions[self.pos]
        mid = self.match_id
        host(self).push_screen(ReviewScreen(
            stored.record, r + 1, seat, self.model.names,
            lambda s: reviews.match_review(store, member, mid, r + 1, s), any_seat=True))

    @property
    def shown(self) -> ReplayModel:
        """The model being drawn (``draw`` only draws once one is loaded)."""
        assert self.model is not None
        return self.model

    # ---------------------------------------------------------------- drawing
    def say(self, text: Text, width: int) -> Text:
        return said(self.speech, text, width)

    def laid(self, text: Text, width: int) -> Text:
        return laid(self.speech, text, width)

    def picture(self) -> ReplayBoard:
        """The board of the match shown, in the player's words and cards."""
        return ReplayBoard(self.speech, self.look, self.shown, self.game)

    def title_line(self, width: int = W) -> Text:
        return self.title_rows(width)[0]

    def title_rows(self, width: int = W) -> list[Text]:
        """The title bar and the match it shows; where one row does not hold the
        match's words (a phone), the bar takes those that fit and the rest follow on
        rows of their own, wrapped at words (issue 44: never cut)."""
        speech = self.speech
        said = "Replay" if not speech.rtl else speech._("Replay")
        bar = title_bar(said, self.heading)
        if bar.cell_len <= width:
            return [self.laid(bar, width) if speech.rtl else
                    title_bar(said, speech.show(self.heading))]
        room = width - bar.cell_len + len(self.heading)     # (the heading's own cells)
        words = wrap(Text(self.heading), room, "") if room >= 8 else []
        first = words[0].plain if words and words[0].cell_len <= room else ""
        rest = self.heading[len(first):].strip() if first else self.heading
        head = title_bar(said, first if speech.rtl else speech.show(first))
        rows = [self.laid(head, width) if speech.rtl else fit(head, width)]
        rows += [self.laid(Text(" " + part.plain, style="bold"), width)
                 for part in wrap(Text(rest), width - 2, "")]
        return rows

    def action_scroll(self, delta: int) -> None:
        if compact_size(self):
            self.top = max(0, self.top + delta)
            self.draw()

    def draw(self) -> None:
        self.draw_keys()
        q = self.query_one
        if compact_size(self) and self.model is not None and not self.error:
            r, k = self.model.positions[self.pos]
            width = window_width(self)
            q("#rp-head", Block).set(self.head(r, k, width))
            # the title's words the bar did not hold go first (they scroll with it)
            lines = [*self.title_rows(width)[1:], *self.picture().compact_board(r, k, width)]
            # the board's rows: the window's less the head, the keys (as many rows as
            # they take) and the empty round panel's row
            keys = len(q("#keys", KeyBar).rows(host(self).size.width))
            room = max(1, host(self).size.height - 3 - keys)
            self.top = max(0, min(self.top, len(lines) - room))
            out = Text(no_wrap=True, overflow="ellipsis")
            for i, line in enumerate(lines[self.top:self.top + room]):
                if i:
                    out.append("\n")
                out.append_text(line)
            q("#rp-board", Block).set(out)
            q("#rp-round", Block).set("")
            return
        if self.model is None or self.error:
            q("#rp-head", Block).set(self.title_line())
            q("#rp-board", Block).set(Text("\n") + self.say(
                Text(" " + (self.error or ""), style="bold"), W))
            q("#rp-round", Block).set("")
            return
        r, k = self.model.positions[self.pos]
        q("#rp-head", Block).set(self.head(r, k))
        picture = self.picture()
        q("#rp-board", Block).set(picture.board(r, k))
        q("#rp-round", Block).set(picture.round_panel(r, k))

    def head(self, r: int, k: int, width: int = W) -> Text:
        _ = self.speech._
        model = self.shown
        rec = model.rounds[r]["rec"]
        t = fit(self.title_line(width), width)
        t.append("\n")
        where = " " + (_("Hand {round} ({i} of {n})") if terms(self.game).hands
                       else _("Round {round} ({i} of {n})")).format(
            round=rec.get("round"), i=r + 1, n=len(model.rounds))
        if rec.get("void"):
            where += " · " + _("void hand")
        elif k == 0:
            where += " · " + _("the deal")
        else:
            where += " · " + _("trick {k} of {n}").format(k=k, n=len(model.rounds[r]["tricks"]))
        line = Text(where, style="bold")
        step = _("step {i}/{n}").format(i=self.pos + 1, n=len(model.positions))
        if line.cell_len + 3 + len(step) <= width or width >= W:
            line.append("   " + step, style="dim")
        t.append_text(self.laid(line, width))
        return t
