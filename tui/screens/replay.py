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
from textual import getters
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen

from server.room import replay_stored, seat_label, seat_labels, title

from ..cards import RANKS, SUIT_ORDER, Look
from ..widgets.lines import Block, KeyBar, Line, title_bar

if TYPE_CHECKING:
    from ..app import LammaApp

W = 80
LIST_ROWS = 18
SIDE = 26          # width of the left and right columns of the board
MID = W - 2 * SIDE  # the middle column (north, the trick, south)
BONUS_KEYS = ["caller", "with", "sole", "risk", "dash", "super"]
KIND_WORDS = {"auction": "auction round", "fast": "fast round", "fixed": "fixed round",
              "hand": "hand"}


def length_words(game: str, length) -> str:
    if game == "tarneeb41" or length is None:
        return "to 41"
    if game == "estimation":
        return f"{length} rounds"
    return str(length)


def result_words(result: Mapping[str, Any] | None, names: list[str]) -> str:
    if not result:
        return "unfinished"
    if result.get("abandoned"):
        return "abandoned"
    winners = result.get("winners") or []
    if result.get("draw"):
        return "draw: " + ", ".join(names[w] for w in winners)
    if len(winners) == 1:
        return f"{names[winners[0]]} wins"
    return " & ".join(names[w] for w in winners) + " win"


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

class ReplayListScreen(Screen[None]):
    """The finished matches, newest first; Enter watches one."""

    if TYPE_CHECKING:
        app = getters.app(LammaApp)

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

    def compose(self) -> ComposeResult:
        with Vertical(id="body"):
            yield Line(id="record-title")
            yield Block(id="replays-list", classes="record-block")
        yield Line(id="too-small")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.query_one("#too-small", Line).set("Please enlarge the window to at least 80×24.")
        self.query_one("#keys", KeyBar).show([("↑↓", "select"), ("enter", "watch"),
                                              ("esc", "back")])
        self.query_one("#record-title", Line).set(title_bar("Replays", "finished matches"))
        store = self.app.registry.records
        self.rows = store.finished_matches(limit=200) if store is not None else None
        self.paint()

    def paint(self) -> None:
        t = Text(no_wrap=True, overflow="ellipsis")
        if self.rows is None:
            t.append("\n This room keeps no records (it runs without a data folder).\n",
                     style="bold")
        elif not self.rows:
            t.append("\n No finished matches yet.\n", style="dim")
        else:
            t.append(f" {'#':>4}  {'game':<17}{'length':<10}{'players':<23}{'result':<17}"
                     f"{'date':<6}\n", style="bold underline")
            n = len(self.rows)
            first = max(0, min(self.cursor - LIST_ROWS // 2, n - LIST_ROWS))
            for i, row in enumerate(self.rows[first:first + LIST_ROWS], start=first):
                names = [seat_label(s)[:7] for s in row["seats"]]
                when = time.strftime("%m-%d", time.localtime(row["finished"]))
                line = (f" {row['id']:>4}  {title(row['game'])[:16]:<17}"
                        f"{length_words(row['game'], row['length']):<10}"
                        f"{', '.join(names)[:22]:<23}"
                        f"{result_words(row['result'], names)[:16]:<17}{when}")
                t.append(line + "\n", style="reverse" if i == self.cursor else "")
        self.query_one("#replays-list", Block).set(t)

    def action_move(self, delta: int) -> None:
        if self.rows:
            self.cursor = max(0, min(len(self.rows) - 1, self.cursor + delta))
            self.paint()

    def action_open(self) -> None:
        if self.rows:
            self.app.push_screen(ReplayScreen(self.rows[self.cursor]["id"]))

    def action_back(self) -> None:
        self.app.pop_screen()


class ReplayScreen(Screen[None]):
    """One finished match, trick by trick, every hand open."""

    if TYPE_CHECKING:
        app = getters.app(LammaApp)

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
        Binding("escape", "back", show=False, id="replay.back"),
        Binding("q", "back", show=False, id="replay.back_q"),
    ]

    def __init__(self, match_id: int) -> None:
        super().__init__()
        self.match_id = match_id
        self.model: ReplayModel | None = None
        self.error: str | None = None
        self.pos = 0
        self.heading = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="body"):
            yield Block(id="rp-head")
            yield Block(id="rp-board")
            yield Block(id="rp-round")
        yield Line(id="too-small")
        yield KeyBar(id="keys")

    @property
    def look(self) -> Look:
        return self.app.look

    def on_mount(self) -> None:
        self.query_one("#too-small", Line).set("Please enlarge the window to at least 80×24.")
        self.query_one("#keys", KeyBar).show([("← →", "trick"), ("PgUp PgDn", "round"),
                                              ("Home End", "first/last"), ("esc", "back")])
        self.load()
        self.draw()

    def load(self) -> None:
        store = self.app.registry.records
        stored = store.match(self.match_id) if store is not None else None
        if stored is None:
            self.error = f"Match {self.match_id} is not in the record."
            return
        try:
            m = replay_stored(stored)
        except Exception as exc:          # a log this version cannot replay
            self.error = f"Match {self.match_id} cannot be replayed: {exc}"
            return
        names = seat_labels(stored.seats, stored.settings)
        self.model = ReplayModel(m, names)
        game = stored.record["game"]
        self.heading = (f"#{self.match_id} {title(game)} · "
                      f"{length_words(game, stored.record['length'])} · "
                      f"{result_words(m.result or {'abandoned': True}, names)}")
        if m.left is not None:
            self.heading += f" ({names[m.left]} left)"
        if not self.model.positions:
            self.error = "No complete round was played in this match."

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
        self.app.pop_screen()

    @property
    def shown(self) -> ReplayModel:
        """The model being drawn (``draw`` only draws once one is loaded)."""
        assert self.model is not None
        return self.model

    # ---------------------------------------------------------------- drawing
    def draw(self) -> None:
        q = self.query_one
        if self.model is None or self.error:
            q("#rp-head", Block).set(title_bar("Replay", self.heading))
            q("#rp-board", Block).set(Text("\n " + (self.error or ""), style="bold"))
            q("#rp-round", Block).set("")
            return
        r, k = self.model.positions[self.pos]
        q("#rp-head", Block).set(self.head(r, k))
        q("#rp-board", Block).set(self.board(r, k))
        q("#rp-round", Block).set(self.round_panel(r, k))

    def head(self, r: int, k: int) -> Text:
        model = self.shown
        rec = model.rounds[r]["rec"]
        t = title_bar("Replay", self.heading)
        t = fit(t, W)
        t.append("\n")
        where = f" Round {rec.get('round')} ({r + 1} of {len(model.rounds)})"
        if rec.get("void"):
            where += " · void hand"
        elif k == 0:
            where += " · the deal"
        else:
            where += f" · trick {k} of {len(model.rounds[r]['tricks'])}"
        t.append(where, style="bold")
        t.append(f"   step {self.pos + 1}/{len(model.positions)}", style="dim")
        return t

    def hand_lines(self, seat: int, cards: list[str], now: set[str], trump, width: int,
                   decl, taken: int, dealer: int | None, caller: int | None) -> list[Text]:
        look = self.look
        name = Text(self.shown.names[seat], style="bold")
        if seat == dealer:
            name.append(" (D)", style="dim")
        if seat == caller:
            name.append(" caller", style="bold yellow")
        if decl is not None:
            name.append(f"  {decl}/{taken}", style="bold")
        lines = [fit(name, width)]
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
            rows.extend(info)
            rows.append(Text(""))
            rows.append(Text(" The declarations came to less than 11: the hand was void "
                             "and dealt again.", style="bold"))
        else:
            for i in range(5):
                line = fit(info[i] if i < len(info) else Text(""), SIDE)
                line.append_text(north[i])
                line.append_text(fit(trick["corner"][i], SIDE))
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
        names = self.shown.names
        lines = []
        kind = str(rec.get("kind") or "")
        kind = KIND_WORDS.get(kind, kind)
        if rec.get("void"):
            kind = "void hand"
        lines.append(Text(f" {kind}", style="dim"))
        if rec.get("dealer") is not None:
            lines.append(Text(f" dealer {names[rec['dealer']]}"))
        if rec.get("shown_card"):
            t = Text(" shown ")
            t.append_text(look.card(rec["shown_card"]))
            t.append(" · trump ")
            t.append_text(Text(look.suit(rec.get("trump")), style=look.suit_style(rec.get("trump"))))
            lines.append(t)
        else:
            if rec.get("all_pass"):
                lines.append(Text(" all passed", style="bold"))
            elif rec.get("call"):
                t = Text(" call ")
                t.append_text(look.bid(rec["call"]["n"], rec["call"]["suit"]))
                if rec.get("caller") is not None:
                    t.append(f" by {names[rec['caller']]}")
                lines.append(t)
            t = Text(" trump ")
            tr = rec.get("trump")
            t.append_text(Text(look.suit(tr) if tr else "none (NT)",
                               style=look.suit_style(tr) if tr else ""))
            if rec.get("multiplier", 1) > 1:
                t.append(f" · ×{rec['multiplier']}", style="bold yellow")
            lines.append(t)
            extra = []
            if rec.get("with_players"):
                extra.append("with " + ", ".join(names[s] for s in rec["with_players"]))
            if rec.get("dash_players"):
                extra.append("dash " + ", ".join(names[s] for s in rec["dash_players"]))
            if extra:
                lines.append(Text(" " + " · ".join(extra), style="dim"))
        return lines

    def trick_lines(self, rd: dict, k: int) -> dict:
        """The trick in the middle (a cross of four cards) and its words."""
        look, names = self.look, self.shown.names
        corner = [Text("") for _ in range(5)]
        mid = [Text(" " * MID) for _ in range(5)]
        if k == 0:
            mid[2] = centred(Text("dealt: → to play", style="dim"), MID)
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
        corner[0] = Text(f"  Trick {k} of {len(rd['tricks'])}", style="bold")
        corner[1] = Text(f"  led by {names[trick['leader']]}")
        corner[2] = Text(f"  won by {names[win]}", style="bold")
        corner[3] = Text("  order " + " ".join(look.card_str(cards[s]) for s in order),
                         style="dim")
        return {"corner": corner, "mid": mid}

    def round_panel(self, r: int, k: int) -> Text:
        model = self.shown
        rd = model.rounds[r]
        rec = rd["rec"]
        names = model.names
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
