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
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen

from engine.room import replay_stored, seat_label, seat_labels, title

from ..cards import RANKS, SUIT_ORDER, Look
from ..host import host
from ..i18n import N_, Speech
from ..widgets.lines import Block, KeyBar, Line, TapLinesMixin, title_bar
from .sizes import ENLARGE, MIN_W, STD_H, STD_W
from .table_draw import summary_title, wrap
from .words import length_word, pad, too_small_text

if TYPE_CHECKING:
    pass

W = 80
LIST_ROWS = 18
SIDE = 26          # width of the left and right columns of the board
MID = W - 2 * SIDE  # the middle column (north, the trick, south)
BONUS_KEYS = ["caller", "with", "sole", "risk", "dash", "super"]
# The words of a round's breakdown (``scoring``'s keys), said in the player's language.
BONUS_WORDS = {"base": N_("base"), "caller": N_("caller"), "with": N_("with"),
               "sole": N_("sole"), "risk": N_("risk"), "dash": N_("dash"),
               "super": N_("super")}
KIND_WORDS = {"auction": N_("auction round"), "fast": N_("fast round"),
              "fixed": N_("fixed round")}
ENGLISH = Speech("en")
# A left-to-right embedding: a signed number inside Arabic words kept whole ("-10",
# not "10-") when the server orders the line (``Speech.show`` drops the marks after).
LRE, PDF = "\u202a", "\u202c"
TOO_SMALL = ENLARGE     # said with the size it needs (sizes.MIN_W × MIN_H)


def too_small(speech: Speech, width: int = 0, height: int = 0) -> Text:
    return too_small_text(speech, width, height)


def compact_size(screen: Screen[Any]) -> bool:
    """The window is under 80×24: the compact layout (lamma.tcss)."""
    size = screen.app.size
    return size.width < STD_W or size.height < STD_H


def window_width(screen: Screen[Any]) -> int:
    return max(MIN_W, min(W, screen.app.size.width))


def kind_words(speech: Speech, kind: str) -> str:
    if kind == "hand":                       # Tarneeb's: a deal
        return speech.pgettext("tarneeb", "hand")
    return speech._(KIND_WORDS[kind]) if kind in KIND_WORDS else kind


def length_words(game: str, length, speech: Speech = ENGLISH) -> str:
    if game == "tarneeb41" or length is None:
        return speech._("to 41")
    if game == "estimation":
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


def cells_line(speech: Speech, cells: list[tuple[str, int]], width: int = W,
               style: str = "") -> Text:
    """One row of a table for a right-to-left language: ``cells`` (text, columns) in
    reading order. The columns are mirrored (the first at the right, each cell's text
    against its right edge) and, in shaped mode, each cell is shaped on its own; in
    logical mode the row is sent in reading order, right-aligned, for the terminal to
    order."""
    if not speech.shaped:
        row = "".join(_cut(text, n).rjust(n) for text, n in cells)
        return speech.line(Text(row.rstrip() + " ", style=style), width)
    shown = "".join(_cut(speech.show(_cut(text, n)), n).rjust(n) for text, n in reversed(cells))
    return Text(shown.rjust(width - 1) + " ", style=style)


def _cut(text: str, n: int) -> str:
    """``text`` in at most ``n - 1`` cells (a column keeps one space; the embedding
    marks take none)."""
    if len(text) - text.count(LRE) - text.count(PDF) < n:
        return text
    out, room = [], n - 1
    for ch in text:
        if ch not in (LRE, PDF):
            if room == 0:
                break
            room -= 1
        out.append(ch)
    return "".join(out)


# --------------------------------------------------------------------- the model

def replay_rounds(match) -> list[dict]:
    """One entry per finished round (voided Tarneeb hands too): the record, each
    seat's thirteen cards as dealt, and the totals before the round."""
    rounds = []
    totals = [0, 0, 0, 0]
    for rec in match.history:
        hands: list[list[str]] | None = None
        tricks: list[dict] = []
        if not rec.get("void"):
            tricks = rec.get("tricks") or []
            hands = [[], [], [], []]
            for trick in tricks:
                for c in trick["cards"]:
                    hands[c["seat"]].append(c["card"])
        rounds.append({"rec": rec, "hands": hands, "tricks": tricks, "before": list(totals)})
        if rec.get("totals"):
            totals = list(rec["totals"])
    return rounds


def suit_order(trump: str | None) -> list[str]:
    order = list(SUIT_ORDER)
    if trump in order:
        order.remove(trump)
        order.insert(0, trump)
    return order


def fit(text: Text, width: int) -> Text:
    """``text`` cut or padded to exactly ``width`` cells."""
    t = text.copy()
    t.truncate(width, overflow="ellipsis", pad=True)
    return t


def centred(text: Text, width: int) -> Text:
    pad = max(0, (width - text.cell_len) // 2)
    t = Text(" " * pad)
    t.append_text(text)
    return fit(t, width)


class ReplayModel:
    """Positions: for each round, 0 (the deal, every hand full) then one per
    trick (the hands before that trick, its four cards shown in the middle)."""

    def __init__(self, match, names: list[str]):
        self.match = match
        self.names = names
        self.rounds = replay_rounds(match)
        self.positions = [(r, k) for r, rd in enumerate(self.rounds)
                          for k in range(len(rd["tricks"]) + 1)]

    def hands_at(self, r: int, k: int) -> tuple[list[list[str]], set[str]]:
        """Each seat's cards before trick ``k`` (1-based) and that trick's cards."""
        rd = self.rounds[r]
        if rd["hands"] is None:
            return [[], [], [], []], set()
        gone = {c["card"] for t in rd["tricks"][:max(0, k - 1)] for c in t["cards"]}
        now = {c["card"] for c in rd["tricks"][k - 1]["cards"]} if k else set()
        return [[c for c in h if c not in gone] for h in rd["hands"]], now

    def taken_at(self, r: int, k: int) -> list[int]:
        taken = [0, 0, 0, 0]
        for t in self.rounds[r]["tricks"][:k]:
            taken[t["winner"]] += 1
        return taken


# --------------------------------------------------------------------- screens

class ReplayListScreen(TapLinesMixin, Screen[None]):
    """The finished matches, newest first; Enter watches one."""


    AUTO_FOCUS = ""
    BINDINGS = [
        Binding("up", "move(-1)", show=False, id="replays.up"),
        Binding("down", "move(1)", show=False, id="replays.down"),
        Binding("pageup", "move(-10)", show=False, id="replays.page_up"),
        Binding("pagedown", "move(10)", show=False, id="replays.page_down"),
        Binding("enter", "open", show=False, id="replays.open"),
        Binding("escape", "back", show=False, id="replays.back"),
        Binding("q", "back", show=False, id="replays.back_q"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.cursor = 0
        self.rows: list[dict] | None = None

    @property
    def speech(self) -> Speech:
        return host(self).speech

    def compose(self) -> ComposeResult:
        with Vertical(id="body"):
            yield Line(id="record-title")
            yield Block(id="replays-list", classes="record-block")
        yield Line(id="too-small")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        speech = self.speech
        _ = speech._
        store = host(self).registry.records
        self.rows = store.finished_matches(limit=200) if store is not None else None
        self.draw()

    def on_resize(self, event: events.Resize) -> None:
        self.draw()

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
            from .table_compact import wrap
            t.append("\n")
            for part in wrap(said, width - 1):
                t.append_text(speech.line(part, width))
                t.append("\n")
        elif not speech.rtl:
            t.append(f" {'#':>4}  {'game':<17}{'length':<10}{'players':<23}{'result':<17}"
                     f"{'date':<6}\n", style="bold underline")
            for i, row in self.shown_rows():
                names = [speech.show(seat_label(s)[:7]) for s in row["seats"]]
                when = time.strftime("%m-%d", time.localtime(row["finished"]))
                line = (f" {row['id']:>4}  {title(row['game'])[:16]:<17}"
                        f"{length_words(row['game'], row['length']):<10}"
                        f"{', '.join(names)[:22]:<23}"
                        f"{result_words(row['result'], names)[:16]:<17}{when}")
                t.append(line + "\n", style="reverse" if i == self.cursor else "")
        else:
            t.append_text(cells_line(speech, [
                ("#", 6), (_("game"), 17), (_("length"), 10), (_("players"), 22),
                (_("result"), 17), (_("date"), 7)], style="bold underline"))
            t.append("\n")
            for i, row in self.shown_rows():
                names = [(speech.pgettext("seat", "computer") if s is None
                          else seat_label(s))[:7] for s in row["seats"]]
                when = time.strftime("%m-%d", time.localtime(row["finished"]))
                t.append_text(cells_line(speech, [
                    (str(row["id"]), 6), (_(title(row["game"])), 17),
                    (length_words(row["game"], row["length"], speech), 10),
                    ("، ".join(names), 22),
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
            names = [speech.pgettext("seat", "computer") if s is None and speech.rtl
                     else seat_label(s) for s in row["seats"]]
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

    def shown_rows(self, page: int = LIST_ROWS) -> list[tuple[int, dict]]:
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

    def action_back(self) -> None:
        host(self).pop_screen()


class ReplayScreen(TapLinesMixin, Screen[None]):
    """One finished match, trick by trick, every hand open.

    For Arabic the words are the player's and each line reads right to left (the
    board keeps the table's geometry: seat 0 at the bottom, 1 at the right …)."""


    AUTO_FOCUS = ""
    BINDINGS = [
        Binding("right", "step(1)", show=False, id="replay.next"),
        Binding("n", "step(1)", show=False, id="replay.next_n"),
        Binding("space", "step(1)", show=False, id="replay.next_space"),
        Binding("left", "step(-1)", show=False, id="replay.previous"),
        Binding("p", "step(-1)", show=False, id="replay.previous_p"),
        Binding("home", "jump(0)", show=False, id="replay.first"),
        Binding("end", "jump(-1)", show=False, id="replay.last"),
        Binding("pagedown", "round(1)", show=False, id="replay.next_round"),
        Binding("pageup", "round(-1)", show=False, id="replay.previous_round"),
        Binding("v", "review", show=False, id="replay.review"),
        Binding("escape", "back", show=False, id="replay.back"),
        Binding("q", "back", show=False, id="replay.back_q"),
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

    def compose(self) -> ComposeResult:
        with Vertical(id="body"):
            yield Block(id="rp-head")
            yield Block(id="rp-board")
            yield Block(id="rp-round")
        yield Line(id="too-small")
        yield KeyBar(id="keys")

    @property
    def look(self) -> Look:
        return host(self).look

    @property
    def speech(self) -> Speech:
        return host(self).speech

    def on_mount(self) -> None:
        self.load()
        self.draw()

    def on_resize(self, event: events.Resize) -> None:
        self.draw()

    def draw_keys(self) -> None:
        speech = self.speech
        _ = speech._
        self.query_one("#too-small", Line).set(too_small(speech, *host(self).size))
        keys = [("← →", N_("trick")), ("PgUp PgDn", N_("round")),
                ("Home End", N_("first/last")), ("v", N_("review")), ("esc", N_("back"))]
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

    def action_back(self) -> None:
        host(self).pop_screen()

    def action_review(self) -> None:
        """The shown round's review: of the player's own seat if they held one, else of
        seat 0 (tab in the review goes through the others)."""
        if not self.model:
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
        """A line (or a part of one ``width`` cells wide) laid out for the language:
        as it is in English; right-aligned and mirrored for Arabic."""
        return self.speech.line(text, width) if self.speech.rtl else text

    def laid(self, text: Text, width: int) -> Text:
        """``say`` to exactly ``width`` cells: a line too long loses its end in reading
        order (in Arabic its left once mirrored: the start of the line is kept)."""
        if not self.speech.rtl:
            return fit(text, width)
        from .table_draw import rtl_fit
        return rtl_fit(self.speech, text, width)

    def seat_name(self, seat: int) -> str:
        """A player's name as drawn on its own (Arabic names shaped if need be); inside
        a line that ``say`` lays out, the name as it is."""
        name = self.shown.names[seat]
        return name if self.speech.rtl else self.speech.show(name)

    def signed(self, n: int, plus: bool = True) -> str:
        """``n`` with its sign, kept whole inside Arabic words in shaped mode."""
        text = f"{n:+d}" if plus else str(n)
        if self.speech.rtl and self.speech.shaped and text[:1] in "+-":
            return LRE + text + PDF
        return text

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
            lines = [*self.title_rows(width)[1:], *self.compact_board(r, k, width)]
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
        q("#rp-board", Block).set(self.board(r, k))
        q("#rp-round", Block).set(self.round_panel(r, k))

    def head(self, r: int, k: int, width: int = W) -> Text:
        _ = self.speech._
        model = self.shown
        rec = model.rounds[r]["rec"]
        t = fit(self.title_line(width), width)
        t.append("\n")
        where = " " + (_("Hand {round} ({i} of {n})") if self.game == "tarneeb41"
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

    def compact_board(self, r: int, k: int, width: int) -> list[Text]:
        """The board in the compact layout, one column: the round's facts, the trick
        (its cards in order, who led and who won it), each player's cards (the trick's
        reversed) by suit, then the round's table. ↑↓ scroll it."""
        model = self.shown
        rd = model.rounds[r]
        rec = rd["rec"]
        hands, now = model.hands_at(r, k)
        taken = model.taken_at(r, k)
        trump = rec.get("trump")
        decl = rec.get("declarations") or [None] * 4
        lines = [self.laid(x, width) for x in self.round_info(rec)]
        if rd["hands"] is None:
            lines.append(self.laid(Text(" " + self.speech._(
                "The declarations came to less than 11: the hand was void and dealt again."),
                style="bold"), width))
        else:
            lines.append(Text(""))
            trick = self.trick_lines(rd, k)
            if k == 0:
                lines.append(self.laid(Text(" " + self.speech._("dealt: → to play"),
                                            style="dim"), width))
            for corner in trick["corner"]:
                if corner.plain.strip():
                    lines.append(self.laid(corner, width))
            for seat in range(4):
                hand = self.hand_lines(seat, hands[seat], now, trump, width - 2, decl[seat],
                                       taken[seat], rec.get("dealer"), rec.get("caller"))
                lines.append(fit(Text(" ") + hand[0], width))
                # the four suits on one line where it holds them, else two a line
                suits = [line for line in hand[1:] if line.plain.strip()]
                suits = [Text(x.plain.rstrip(), spans=x.spans) for x in suits]
                whole = Text("   ").join(suits)
                if whole.cell_len <= width - 3:
                    lines.append(fit(Text("   ") + whole, width))
                else:
                    for i in range(0, len(suits), 2):
                        lines.append(fit(Text("   ") + Text("   ").join(suits[i:i + 2]), width))
        lines.append(Text(""))
        if width >= W:
            lines += [fit(line, width) for line in self.round_panel(r, k).split("\n")]
        else:
            lines += self.round_panel_narrow(r, k, width)
        return lines

    def round_panel_narrow(self, r: int, k: int, width: int) -> list[Text]:
        """The round's table for a phone (issue 44: nothing cut): the columns the width
        holds (the name's narrower); at the round's end a player's figures on one line
        and their points' breakdown under it, wrapped at its words."""
        speech = self.speech
        _ = speech._
        model = self.shown
        rd = model.rounds[r]
        rec = rd["rec"]
        names = model.names
        decl = rec.get("declarations") or [None] * 4
        taken = model.taken_at(r, k)
        nw = max(6, min(16, width - 30))

        def row(cells: list[tuple[str, int]], style: str = "") -> Text:
            if speech.rtl:
                return cells_line(speech, cells, width, style=style)
            out = " " + "".join(pad(text, n) if i == 0 else text.rjust(n - 1) + " "
                                for i, (text, n) in enumerate(cells))
            return fit(Text(out.rstrip(), style=style), width)

        if rec.get("void") or k < len(rd["tricks"]):
            heads = [(_("player"), nw), (_("declared"), 9)]
            if not rec.get("void"):
                heads += [(_("taken"), 7), (_("total before"), 13)]
            out = [row(heads, "bold underline")]
            for s in range(4):
                d = (_("dash") if s in (rec.get("dash_players") or []) else decl[s])
                cells = [(names[s] if speech.rtl else self.seat_name(s), nw),
                         ("—" if d is None else str(d), 9)]
                if not rec.get("void"):
                    cells += [(str(taken[s]), 7), (str(rd["before"][s]), 13)]
                out.append(row(cells))
            return out
        head = " " + summary_title(speech, self.game, rec.get("round"))
        if rec.get("over") is not None:
            head += "  " + (_("over") if rec["over"] else _("under"))
        if rec.get("saayda"):
            head += "  " + _("Sa'ayda: nobody scores, next round counts double")
        out = [self.laid(part, width) for part in wrap(Text(head, style="bold underline"),
                                                       width - 1)]
        scores = rec.get("scores") or [0] * 4
        made = rec.get("made")
        bd = rec.get("breakdown") or [{}] * 4
        totals = rec.get("totals") or [0] * 4
        for s in range(4):
            out.append(row([(names[s] if speech.rtl else self.seat_name(s), nw),
                            (f"{'' if decl[s] is None else decl[s]}/{taken[s]}", 6),
                            (f"{scores[s]:+d}", 6),
                            (_("total {n}").format(n=totals[s]), 13)]))
            parts = []
            b = bd[s] if s < len(bd) and isinstance(bd[s], dict) else {}
            if "base" in b:
                parts.append(f"{_(BONUS_WORDS['base'])}\u00a0{b['base']:+d}")
            for key in BONUS_KEYS:
                if b.get(key):
                    word = (speech.pgettext("bonus", "caller") if key == "caller"
                            else _(BONUS_WORDS[key]))
                    parts.append(f"{word}\u00a0{b[key]:+d}")
            if made is not None:
                parts.append(_("made") if made[s] else _("failed"))
            if parts:
                # each word with its number held together (a no-break space)
                said = Text("   " + "  ".join(parts), style="dim")
                out += [self.laid(Text(part.plain.replace("\u00a0", " "), style="dim"),
                                  width) for part in wrap(said, width - 1, "   ")]
        return out

    def hand_lines(self, seat: int, cards: list[str], now: set[str], trump, width: int,
                   decl, taken: int, dealer: int | None, caller: int | None) -> list[Text]:
        look = self.look
        _ = self.speech._
        if self.speech.rtl:             # runs of their own: mirrored, spaces stay between
            name = Text()
            name.append(self.seat_name(seat), style="bold")
        else:
            name = Text(self.seat_name(seat), style="bold")
        if seat == dealer:
            name.append(" " + _("(D)"), style="dim")
        if seat == caller:
            name.append(" " + _("caller"), style="bold yellow")
        if decl is not None and self.speech.rtl:
            name.append("  ")                       # a run of its own: it stays between
            name.append(f"{decl}/{taken}", style="bold")
        elif decl is not None:
            name.append(f"  {decl}/{taken}", style="bold")
        lines = [fit(self.speech.line(name, 0) if self.speech.rtl else name, width)]
        by_suit: dict[str, list[str]] = {s: [] for s in SUIT_ORDER}
        for c in cards:
            by_suit.setdefault(c[1], []).append(c)
        for s in suit_order(trump):
            t = Text(look.suit(s), style=look.suit_style(s))
            t.append(" ")
            held = sorted(by_suit.get(s, []), key=lambda c: RANKS.index(c[0]))
            if not held:
                t.append("—", style="dim")
            for i, c in enumerate(held):
                if i:
                    t.append(" ")
                t.append(look.rank(c[0]), style="reverse bold" if c in now else "")
            lines.append(fit(t, width))
        return lines

    def board(self, r: int, k: int) -> Text:
        model = self.shown
        rd = model.rounds[r]
        rec = rd["rec"]
        hands, now = model.hands_at(r, k)
        taken = model.taken_at(r, k)
        trump = rec.get("trump")
        decl = rec.get("declarations") or [None] * 4
        dealer, caller = rec.get("dealer"), rec.get("caller")

        def block(seat, width):
            return self.hand_lines(seat, hands[seat], now, trump, width, decl[seat],
                                   taken[seat], dealer, caller)

        blank = Text(" " * SIDE)
        # positions as at the table: seat 0 at the bottom, 1 right, 2 top, 3 left
        north = [centred(x, MID) for x in block(2, MID)] if rd["hands"] else []
        south = [centred(x, MID) for x in block(0, MID)] if rd["hands"] else []
        west = block(3, SIDE - 1)
        east = block(1, SIDE - 2)
        info = self.round_info(rec)
        trick = self.trick_lines(rd, k)
        out = Text(no_wrap=True, overflow="crop")
        rows: list[Text] = []
        if rd["hands"] is None:
            rows.append(Text(""))
            rows.extend(self.say(x, W) for x in info)
            rows.append(Text(""))
            rows.append(self.say(Text(" " + self.speech._(
                "The declarations came to less than 11: the hand was void and dealt again."),
                style="bold"), W))
        else:
            for i in range(5):
                line = fit(self.laid(info[i], SIDE - 1) if i < len(info) else Text(""), SIDE)
                line.append_text(north[i])
                line.append_text(fit(self.laid(trick["corner"][i], SIDE - 1), SIDE))
                rows.append(line)
            for i in range(5):
                line = Text(" ")
                line.append_text(west[i])
                line.append_text(trick["mid"][i])
                line.append("  ")
                line.append_text(east[i])
                rows.append(line)
            for i in range(5):
                line = blank.copy()
                line.append_text(south[i])
                rows.append(line)
        for i, row in enumerate(rows):
            if i:
                out.append("\n")
            out.append_text(row)
        return out

    def round_info(self, rec: dict) -> list[Text]:
        look = self.look
        speech = self.speech
        _ = speech._
        lines = []
        kind = kind_words(speech, str(rec.get("kind") or ""))
        if rec.get("void"):
            kind = _("void hand")
        lines.append(Text(f" {kind}", style="dim"))
        if rec.get("dealer") is not None:
            lines.append(Text(" " + _("dealer {name}").format(name=self.seat_name(rec["dealer"]))))
        if rec.get("shown_card"):
            t = Text(" " + _("shown") + " ")
            t.append_text(look.card(rec["shown_card"]))
            t.append(" · " + speech.pgettext("tarneeb", "trump") + " ")
            t.append_text(Text(look.suit(rec.get("trump")), style=look.suit_style(rec.get("trump"))))
            lines.append(t)
        else:
            if rec.get("all_pass"):
                lines.append(Text(" " + _("all passed"), style="bold"))
            elif rec.get("call"):
                t = Text(" " + _("call") + " ")
                n, suit = rec["call"]["n"], rec["call"]["suit"]
                if speech.rtl:              # one run: a bid is read left to right
                    t.append(look.bid_str(n, suit), style=look.suit_style(suit))
                else:
                    t.append_text(look.bid(n, suit))
                if rec.get("caller") is not None:
                    t.append(" " + _("by {name}").format(name=self.seat_name(rec["caller"])))
                lines.append(t)
            t = Text(" " + speech.pgettext("estimation", "trump") + " ")
            tr = rec.get("trump")
            t.append_text(Text(look.suit(tr) if tr else _("none (NT)"),
                               style=look.suit_style(tr) if tr else ""))
            if rec.get("multiplier", 1) > 1 and speech.rtl:
                t.append(" · ")
                t.append(f"×{rec['multiplier']}", style="bold yellow")
            elif rec.get("multiplier", 1) > 1:
                t.append(f" · ×{rec['multiplier']}", style="bold yellow")
            lines.append(t)
            extra = []
            sep = ", " if not speech.rtl else "، "
            if rec.get("with_players"):
                extra.append(_("with {names}").format(
                    names=sep.join(self.seat_name(s) for s in rec["with_players"])))
            if rec.get("dash_players"):
                extra.append(_("dash {names}").format(
                    names=sep.join(self.seat_name(s) for s in rec["dash_players"])))
            if extra:
                lines.append(Text(" " + " · ".join(extra), style="dim"))
        return lines

    def trick_lines(self, rd: dict, k: int) -> dict:
        """The trick in the middle (a cross of four cards) and its words."""
        look = self.look
        _ = self.speech._
        corner = [Text("") for _i in range(5)]
        mid = [Text(" " * MID) for _i in range(5)]
        if k == 0:
            mid[2] = centred(self.say(Text(_("dealt: → to play"), style="dim"), 0), MID)
            return {"corner": corner, "mid": mid}
        trick = rd["tricks"][k - 1]
        cards = {c["seat"]: c["card"] for c in trick["cards"]}
        order = [c["seat"] for c in trick["cards"]]
        win = trick["winner"]

        def card(seat):
            t = look.card(cards[seat])
            if seat == win:
                t.stylize("reverse")
            return t

        # top card, left and right, bottom card
        mid[1] = centred(card(2), MID)
        row = Text("   ")
        row.append_text(fit(card(3), 4))
        row.append_text(centred(Text(f"#{k}", style="dim"), MID - 14))
        row.append_text(fit(Text(" " * max(0, 4 - card(1).cell_len)) + card(1), 4))
        row.append("   ")
        mid[2] = fit(row, MID)
        mid[3] = centred(card(0), MID)
        n = len(rd["tricks"])
        corner[0] = Text("  " + _("Trick {k} of {n}").format(k=k, n=n), style="bold")
        corner[1] = Text("  " + _("led by {name}").format(name=self.seat_name(trick["leader"])))
        corner[2] = Text("  " + _("won by {name}").format(name=self.seat_name(win)), style="bold")
        corner[3] = Text("  " + _("order") + " ", style="dim")
        corner[3].append(" ".join(look.card_str(cards[s]) for s in order), style="dim")
        return {"corner": corner, "mid": mid}

    def round_panel(self, r: int, k: int) -> Text:
        if self.speech.rtl:
            return self.round_panel_rtl(r, k)
        model = self.shown
        rd = model.rounds[r]
        rec = rd["rec"]
        names = [self.seat_name(s) for s in range(4)]
        decl = rec.get("declarations") or [None] * 4
        last = k == len(rd["tricks"])
        t = Text(no_wrap=True, overflow="ellipsis")
        if rec.get("void"):
            t.append(f" {'player':<16}{'declared':>9}", style="bold underline")
            for s in range(4):
                t.append(f"\n {names[s][:15]:<16}{decl[s] if decl[s] is not None else '—':>9}")
            return t
        taken = model.taken_at(r, k)
        if not last:
            t.append(f" {'player':<16}{'declared':>9}{'taken':>7}{'total before':>15}",
                     style="bold underline")
            for s in range(4):
                d = "dash" if s in (rec.get("dash_players") or []) else decl[s]
                t.append(f"\n {names[s][:15]:<16}{'' if d is None else d:>9}{taken[s]:>7}"
                         f"{rd['before'][s]:>15}")
            return t
        head = f" Round {rec.get('round')} summary"
        if rec.get("over") is not None:
            head += "  over" if rec["over"] else "  under"
        if rec.get("saayda"):
            head += "  Sa'ayda: nobody scores, next round counts double"
        t.append(head, style="bold underline")
        scores = rec.get("scores") or [0] * 4
        made = rec.get("made")
        bd = rec.get("breakdown") or [{}] * 4
        totals = rec.get("totals") or [0] * 4
        for s in range(4):
            t.append("\n")
            t.append(f" {names[s][:15]:<16}{'' if decl[s] is None else decl[s]:>2}/{taken[s]:<2}")
            parts = []
            b = bd[s] if s < len(bd) and isinstance(bd[s], dict) else {}
            if "base" in b:
                parts.append(f"base {b['base']:+d}")
            for key in BONUS_KEYS:
                if b.get(key):
                    parts.append(f"{key} {b[key]:+d}")
            if made is not None:
                parts.append("made" if made[s] else "failed")
            t.append("  " + " ".join(parts)[:36].ljust(36), style="dim")
            t.append(f" = {scores[s]:+d}".ljust(8), style="bold")
            t.append(f" total {totals[s]}")
        return t

    def round_panel_rtl(self, r: int, k: int) -> Text:
        """``round_panel`` for a right-to-left language: the same columns, mirrored."""
        speech = self.speech
        _ = speech._
        model = self.shown
        rd = model.rounds[r]
        rec = rd["rec"]
        names = model.names
        decl = rec.get("declarations") or [None] * 4
        last = k == len(rd["tricks"])
        t = Text(no_wrap=True, overflow="ellipsis")
        if rec.get("void"):
            t.append_text(cells_line(speech, [(_("player"), 16), (_("declared"), 9)],
                                     style="bold underline"))
            for s in range(4):
                t.append("\n")
                t.append_text(cells_line(speech, [
                    (names[s], 16), ("—" if decl[s] is None else str(decl[s]), 9)]))
            return t
        taken = model.taken_at(r, k)
        if not last:
            t.append_text(cells_line(speech, [
                (_("player"), 16), (_("declared"), 9), (_("taken"), 7),
                (_("total before"), 15)], style="bold underline"))
            for s in range(4):
                d = _("dash") if s in (rec.get("dash_players") or []) else decl[s]
                t.append("\n")
                t.append_text(cells_line(speech, [
                    (names[s], 16), ("" if d is None else str(d), 9), (str(taken[s]), 7),
                    (str(rd["before"][s]), 15)]))
            return t
        head = " " + summary_title(self.speech, self.game, rec.get("round"))
        if rec.get("over") is not None:
            head += "  " + (_("over") if rec["over"] else _("under"))
        if rec.get("saayda"):
            head += "  " + _("Sa'ayda: nobody scores, next round counts double")
        t.append_text(speech.line(Text(head, style="bold underline"), W))
        scores = rec.get("scores") or [0] * 4
        made = rec.get("made")
        bd = rec.get("breakdown") or [{}] * 4
        totals = rec.get("totals") or [0] * 4
        for s in range(4):
            parts = []
            b = bd[s] if s < len(bd) and isinstance(bd[s], dict) else {}
            if "base" in b:
                parts.append(f"{_(BONUS_WORDS['base'])} {self.signed(b['base'])}")
            for key in BONUS_KEYS:
                if b.get(key):
                    word = (speech.pgettext("bonus", "caller") if key == "caller"
                            else _(BONUS_WORDS[key]))
                    parts.append(f"{word} {self.signed(b[key])}")
            if made is not None:
                parts.append(_("made") if made[s] else _("failed"))
            t.append("\n")
            t.append_text(cells_line(speech, [
                (names[s], 16), (f"{'' if decl[s] is None else decl[s]}/{taken[s]}", 6),
                (" ".join(parts), 36), (f"= {scores[s]:+d}", 8),
                (_("total {n}").format(n=self.signed(totals[s], plus=False)), 13)]))
        return t
