"""The table: score panel, trick, phase controls, hand, chat; keyboard first.

Everything shown is derived from the engine's ``view(seat)`` and its
``legal`` list, so the same screen plays all three games.
"""

from __future__ import annotations

import re
import time

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input

from server.tables import GAME_TITLES, RoomError

from ..cards import BID_SUITS, Look, parse_rank_key, sort_hand
from ..widgets.lines import KeyBar, Line, Lines

W = 80
_CARD_RE = re.compile(r"\b[AKQJT2-9][SHDC]\b")
_BID_RE = re.compile(r"\b(\d{1,2})(NT|S|H|D|C)\b")
REVERSE = Style(reverse=True)
SUIT_KEYS = {"n": "NT", "s": "S", "h": "H", "d": "D", "c": "C"}
CARD_SUIT_KEYS = {"s": "S", "h": "H", "d": "D", "c": "C"}
PHASE_WORDS = {"dash": "dash offer", "auction": "auction", "call": "call",
               "declare": "declarations", "play": "play", "over": "match over"}
ACTING_WORDS = {"dash": "answering the dash offer", "auction": "bidding",
                "call": "making the call", "declare": "declaring", "play": "playing"}
BONUS_KEYS = ["caller", "with", "sole", "risk", "dash", "super"]


def center(text: Text, width: int = W) -> Text:
    pad = max(0, (width - text.cell_len) // 2)
    out = Text(" " * pad)
    out.append_text(text)
    return out


class TableScreen(Screen):
    AUTO_FOCUS = ""

    def __init__(self) -> None:
        super().__init__()
        self.view: dict | None = None
        self.sel_n: int | None = None
        self.sel_suit: str | None = None
        self.sel_card: str | None = None
        self._phase_key = None
        self._rank: str | None = None
        self._one_at = 0.0
        self._countdown = None
        self._message: Text | None = None
        self._message_until = 0.0
        self.rendered_version = -1

    # ------------------------------------------------------------- compose
    def compose(self) -> ComposeResult:
        with Vertical(id="body"):
            with Horizontal(id="info-row"):
                yield Lines(id="info")
                yield Lines(id="timer")
            with Horizontal(id="top"):
                yield Lines(5, id="markers")
                yield Lines(5, id="scores")
                yield Lines(5, id="events")
            yield Lines(5, id="trick")
            with Vertical(id="cards"):
                yield Line(id="t-top-name")
                with Horizontal(classes="cardrow"):
                    yield Line(id="t-top", classes="card")
                with Horizontal(id="t-mid"):
                    yield Line(id="t-left-name")
                    yield Line(id="t-left", classes="card")
                    yield Line(id="t-gap")
                    yield Line(id="t-right", classes="card")
                    yield Line(id="t-right-name")
                with Horizontal(classes="cardrow"):
                    yield Line(id="t-bottom", classes="card")
                yield Line(id="t-note")
            yield Lines(3, id="phase")
            yield Lines(2, id="hand")
            yield Lines(2, id="chat")
        yield Lines(id="too-small")
        yield Input(id="chat-input", max_length=200, placeholder="say something, Enter sends, Esc cancels")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.query_one("#too-small", Lines).set(
            "Please enlarge the window to at least 80×24.")
        self.query_one("#chat-input", Input).display = False
        self.table_changed("state")

    # ---------------------------------------------------------------- state
    @property
    def look(self) -> Look:
        return self.app.look

    @property
    def table(self):
        return self.app.member.table

    @property
    def seat(self) -> int | None:
        return self.app.member.seat

    def my_turn(self) -> bool:
        v = self.view
        return bool(v and self.seat is not None and v.get("to_act") == self.seat
                    and v.get("legal"))

    def legal(self, kind: str) -> list[dict]:
        if not self.my_turn():
            return []
        return [a for a in self.view["legal"] if a.get("type") == kind]

    def legal_types(self) -> set[str]:
        if not self.my_turn():
            return set()
        return {a.get("type") for a in self.view["legal"]}

    def pname(self, seat: int | None, you: bool = True) -> str:
        if seat is None:
            return "—"
        table = self.table
        if table is None:
            return "?"
        label = table.seats[seat].label
        if you and seat == self.seat:
            label += " (you)"
        return label

    def positions(self) -> dict[str, int]:
        base = self.seat if self.seat is not None else 0
        return {"bottom": base, "right": (base + 1) % 4, "top": (base + 2) % 4,
                "left": (base + 3) % 4}

    # -------------------------------------------------------------- updates
    def table_changed(self, what: str) -> None:
        if not self.is_mounted:
            return          # on_mount draws the state of the moment
        table = self.table
        if table is None or what == "closed":
            if self.app.screen is self:
                self.app.pop_screen()
                lobby = self.app.screen
                if hasattr(lobby, "set_status"):
                    lobby.set_status("The table was closed.")
            return
        if what == "chat":
            self.draw_chat()
            return
        self.view = table.view(self.seat)
        self.rendered_version = table.version
        key = None
        if self.view is not None:
            key = (self.view.get("round"), self.view.get("phase"), len(self.view.get("tricks") or []),
                   len(self.view.get("trick") or []), self.view.get("to_act"))
        if key != self._phase_key:
            self._phase_key = key
            self.reset_selection()
        self.draw()

    def reset_selection(self) -> None:
        self.sel_n = self.sel_suit = self.sel_card = None
        self._rank = None
        types = self.legal_types()
        v = self.view
        if "bid" in types:
            bids = self.legal("bid")
            low = min(bids, key=lambda a: (a["n"], -BID_SUITS.index(a["suit"]) if a.get("suit") in BID_SUITS else 0))
            self.sel_n, self.sel_suit = low["n"], low.get("suit")
        elif "call" in types:
            calls = self.legal("call")
            want = (v.get("auction") or {}).get("bid") or v.get("call") or {}
            pick = next((a for a in calls if a["n"] == want.get("n") and a.get("suit") == want.get("suit")), None)
            if pick is None and v.get("fixed_trump"):
                pick = next((a for a in calls if a.get("suit") == v.get("fixed_trump")), None)
            pick = pick or calls[0]
            self.sel_n, self.sel_suit = pick["n"], pick.get("suit")
        elif "declare" in types:
            self.sel_n = self.legal("declare")[0]["n"]
        elif "play" in types:
            playable = self.playable_in_order()
            self.sel_card = playable[0] if playable else None

    def draw(self) -> None:
        self.draw_info()
        self.draw_scores()
        self.draw_events()
        self.draw_trick()
        self.draw_phase()
        self.draw_hand()
        self.draw_chat()
        self.draw_keys()
        self.update_countdown()

    # ----------------------------------------------------------------- info
    def draw_info(self) -> None:
        table, v, look = self.table, self.view, self.look
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(f" #{table.id} ", style="bold reverse")
        t.append(f" {GAME_TITLES.get(table.game, table.game)}")
        if table.length is not None and table.game != "tarneeb41":
            t.append(f" {table.length}")
        if v is None:
            t.append(" · waiting for players")
            if table.private and table.code:
                t.append(f" · private, code {table.code}")
        else:
            if v.get("rounds"):
                t.append(f" · Round {v['round']}/{v['rounds']}")
            else:
                t.append(f" · Hand {v['round']}")
            kind = v.get("kind")
            if kind in ("fast", "fixed"):
                t.append(f" ({kind} ")
                ft = v.get("fixed_trump")
                t.append(look.suit(ft), style=look.suit_style(ft))
                t.append(")")
            t.append(" · ")
            t.append(PHASE_WORDS.get(v.get("phase"), v.get("phase") or ""))
            trump = v.get("trump")
            if trump:
                t.append(" · Trump ")
                t.append(look.suit(trump), style=look.suit_style(trump))
            call = v.get("call")
            if call and v.get("caller") is not None:
                t.append(" · Call ")
                t.append_text(look.bid(call.get("n"), call.get("suit")))
                t.append(f" {self.pname(v['caller'], you=False)}")
            if (v.get("multiplier") or 1) > 1:
                t.append(f" · ×{v['multiplier']}", style="bold yellow")
            if v.get("shown_card"):
                t.append(" · Shown ")
                t.append_text(look.card(v["shown_card"]))
            if v.get("team_totals"):
                a, b = v["team_totals"]
                t.append(f" · Teams {a}:{b}")
        self.query_one("#info", Lines).set(t)

    def update_countdown(self) -> None:
        table = self.table
        left = table.seconds_left() if table is not None else None
        t = Text(no_wrap=True)
        if left is not None:
            secs = int(left + 0.999)
            who = table.deadline_seat
            mine = who == self.seat
            t.append(f"⏱ {secs:>2}s", style="bold red" if mine and secs <= 10 else "bold")
            if self._countdown is None:
                self._countdown = self.set_interval(1.0, self.update_countdown)
        else:
            if self._countdown is not None:
                self._countdown.stop()
                self._countdown = None
        self.query_one("#timer", Lines).set(t)

    # --------------------------------------------------------------- scores
    def draw_scores(self) -> None:
        table, v = self.table, self.view
        t = Text(no_wrap=True, overflow="ellipsis")
        tarneeb = table.game == "tarneeb41"
        t.append(f"{'player':<19}{'bid':>4}{'won':>4}{'total':>7}\n", style="bold underline")
        marks = Text("\n")
        pos = self.positions()
        order = [pos["bottom"], pos["right"], pos["top"], pos["left"]]
        for s in order:
            seat = table.seats[s]
            marker = "▶" if v and v.get("to_act") == s else " "
            name = self.pname(s)
            if seat.kind == "human" and seat.member is None and seat.kind != "empty":
                name += " away"
            tags = ""
            if v:
                if v.get("dealer") == s:
                    tags += "D"
                if v.get("caller") == s:
                    tags += "C"
                if s in (v.get("with_players") or []):
                    tags += "W"
                if s in (v.get("dash_players") or []):
                    tags += "X"
                if tarneeb and v.get("teams"):
                    tags += "ab"[0 if s in v["teams"][0] else 1]
            decl = tricks = total = ""
            if v:
                d = (v.get("declarations") or [None] * 4)[s]
                decl = "" if d is None else str(d)
                tricks = str((v.get("tricks_taken") or [0] * 4)[s])
                total = str((v.get("totals") or [0] * 4)[s])
            # The turn marker has its own column: a move repaints two cells,
            # not two rows.
            marks.append(f"{marker}\n", style="bold yellow")
            t.append(f"{name[:15]:<15}{tags:>4}{decl:>4}{tricks:>4}{total:>7}\n")
        self.query_one("#markers", Lines).set(marks)
        self.query_one("#scores", Lines).set(t)

    def draw_events(self) -> None:
        table = self.table
        t = Text(no_wrap=True, overflow="ellipsis")
        rnd = self.view.get("round") if self.view else None
        # Only this round's events: cards played in earlier rounds are back in
        # hands now, and a screen shows no card that is not public this round.
        # Card plays are on the table already: listing them too would cost a
        # repaint of the whole list for every card.
        evs = [e for e in table.events if (e.round is None or e.round == rnd)
               and not (e.action and e.action.get("type") == "play")][-5:]
        for i, e in enumerate(evs):
            t.append(" " + self.pretty(e.text) + ("\n" if i < len(evs) - 1 else ""),
                     style="bold" if i == len(evs) - 1 else "dim")
        self.query_one("#events", Lines).set(t)

    def pretty(self, text: str) -> str:
        """Event texts use card codes (QS) and bids (5H); show suit symbols."""
        look = self.look

        def card(m):
            return look.card_str(m.group(0))

        def bid(m):
            return m.group(1) + look.suit(m.group(2))
        text = _CARD_RE.sub(card, text)
        return _BID_RE.sub(bid, text)

    # ---------------------------------------------------------------- trick
    def draw_trick(self) -> None:
        table, v, look = self.table, self.view, self.look
        text_mode: list[Text] | None = None
        cards: dict[int, Text] = {}
        note = Text("")
        if v is None:
            cards = {s: Text("empty" if table.seats[s].kind == "empty" else " ✓ ",
                             style="dim") for s in range(4)}
            note = Text("Waiting for players · b: computer players fill the empty seats",
                        style="bold")
        elif v.get("phase") == "over":
            text_mode = self.result_lines()
        elif v.get("phase") != "play" and v.get("history") and not v.get("tricks"):
            text_mode = self.summary_lines(v["history"][-1])
        else:
            trick = v.get("trick") or []
            dim = False
            if not trick and v.get("tricks"):
                last = v["tricks"][-1]
                trick = last["cards"]
                dim = True
                note = Text(f"{self.pname(last['winner'])} took the trick", style="bold")
            for c in trick:
                cards[c["seat"]] = look.card(c["card"], dim=dim)
            if not note.plain and v.get("phase") == "play":
                lead = v.get("leader")
                if not trick and lead is not None:
                    note = Text(f"{self.pname(lead)} leads", style="dim")
        box = self.query_one("#trick", Lines)
        grid = self.query_one("#cards", Vertical)
        if text_mode is not None:
            t = Text(no_wrap=True, overflow="crop")
            for i, line in enumerate(text_mode[:5]):
                t.append_text(line)
                if i < 4:
                    t.append("\n")
            box.set(t)
            if grid.display:
                grid.display = False
                box.display = True
            return
        if not grid.display:
            box.display = False
            grid.display = True
        pos = self.positions()
        q = self.query_one
        q("#t-top-name", Line).set(Text(self.pname(pos["top"], you=False), style="bold"))
        q("#t-left-name", Line).set(Text(self.pname(pos["left"], you=False)[:16], style="bold"))
        q("#t-right-name", Line).set(Text(self.pname(pos["right"], you=False)[:16], style="bold"))
        for where in ("top", "left", "right", "bottom"):
            q(f"#t-{where}", Line).set(cards.get(pos[where], Text("")))
        q("#t-note", Line).set(note)

    def summary_lines(self, rec: dict) -> list[Text]:
        table = self.table
        lines = []
        head = Text(f" Round {rec.get('round')} summary", style="bold underline")
        if rec.get("void"):
            head.append("  hand void (declarations under 11): redeal", style="bold")
            return [head]
        if rec.get("multiplier", 1) and rec.get("multiplier", 1) > 1:
            head.append(f"  ×{rec['multiplier']}", style="bold yellow")
        if rec.get("over") is not None:
            head.append("  over" if rec["over"] else "  under", style="dim")
        if rec.get("saayda"):
            head.append("  Sa'ayda (all missed): next round counts double", style="bold")
        if rec.get("all_pass"):
            head.append("  all passed", style="dim")
        lines.append(head)
        decl = rec.get("declarations") or [None] * 4
        took = rec.get("tricks_taken") or [0] * 4
        scores = rec.get("scores") or [0] * 4
        bd = rec.get("breakdown") or [{}] * 4
        made = rec.get("made")
        totals = (self.view or {}).get("totals") or [0] * 4
        for s in range(4):
            t = Text(no_wrap=True, overflow="ellipsis")
            t.append(f" {self.pname(s)[:14]:<14} {'' if decl[s] is None else decl[s]:>2}/{took[s]:<2}")
            parts = []
            b = bd[s] if s < len(bd) and isinstance(bd[s], dict) else {}
            if "base" in b:
                parts.append(f"base {b['base']:+d}")
            for k in BONUS_KEYS:
                if b.get(k):
                    parts.append(f"{k} {b[k]:+d}")
            if made is not None:
                parts.append("made" if made[s] else "failed")
            t.append("  " + " ".join(parts)[:40].ljust(40), style="dim")
            t.append(f" = {scores[s]:+d}".ljust(8), style="bold")
            t.append(f" total {totals[s]}")
            lines.append(t)
        return lines

    def result_lines(self) -> list[Text]:
        v, table = self.view, self.table
        res = v.get("result") or {}
        winners = res.get("winners") or []
        head = Text(" Match over: ", style="bold")
        if res.get("draw"):
            head.append("a draw between " + ", ".join(self.pname(w) for w in winners))
        elif winners:
            head.append(", ".join(self.pname(w) for w in winners) + " win" +
                        ("s" if len(winners) == 1 else ""))
        if v.get("left") is not None:
            head.append(f"  ({self.pname(v['left'])} left)", style="dim")
        lines = [head]
        totals = v.get("totals") or [0] * 4
        for s in sorted(range(4), key=lambda s: -totals[s]):
            mark = "★ " if s in winners else "  "
            lines.append(Text(f" {mark}{self.pname(s):<20}{totals[s]:>6}",
                              style="bold" if s in winners else ""))
        return lines

    # ---------------------------------------------------------------- phase
    def draw_phase(self) -> None:
        v, look = self.view, self.look
        lines: list[Text] = [Text(""), Text(""), Text("")]
        types = self.legal_types()
        if v is None:
            lines[0] = Text(" Waiting for four players.", style="bold")
            lines[1] = Text(" b  fill the empty seats with computer players · q  leave", style="dim")
        elif v.get("phase") == "over":
            lines[0] = Text(" The match is over. q  back to the lobby", style="bold")
        elif "dash" in types:
            lines[0] = Text(" Dash call? Promise to win no trick at all, before the trump is known.",
                            style="bold")
            lines[1] = Text("   y  take the dash call      n  play normally")
        elif types & {"bid", "pass", "with"}:
            lines = self.auction_lines("bid")
        elif "call" in types:
            lines = self.auction_lines("call")
        elif "declare" in types:
            lines = self.declare_lines()
        elif "play" in types:
            lines[0] = Text(" Your turn: ← → choose a card, Enter plays; or type it (qs, th, 10h)",
                            style="bold")
            if self._rank:
                lines[1] = Text(f"   rank {look.rank(self._rank)} … now the suit: s h d c")
        else:
            lines = self.waiting_lines()
        if self._message is not None and time.monotonic() < self._message_until:
            lines[2] = self._message
        t = Text(no_wrap=True, overflow="ellipsis")
        for i, l in enumerate(lines[:3]):
            t.append_text(l)
            if i < 2:
                t.append("\n")
        self.query_one("#phase", Lines).set(t)

    def auction_state(self) -> Text:
        v, look = self.view, self.look
        a = v.get("auction") or {}
        t = Text(" ")
        bid = a.get("bid")
        if bid:
            t.append("Standing bid ")
            t.append_text(look.bid(bid.get("n"), bid.get("suit")))
            t.append(f" {self.pname(a.get('owner'))}")
        else:
            t.append("No bid yet")
        if a.get("with_players"):
            t.append(" · With " + ", ".join(self.pname(s) for s in a["with_players"]))
        if a.get("passed"):
            t.append(" · passed " + ", ".join(self.pname(s) for s in a["passed"]), style="dim")
        if a.get("dash_players"):
            t.append(" · dash " + ", ".join(self.pname(s) for s in a["dash_players"]))
        return t

    def auction_lines(self, kind: str) -> list[Text]:
        v, look = self.view, self.look
        acts = self.legal(kind)
        numbers = sorted({a["n"] for a in acts})
        lo = 4 if kind == "bid" else (min(numbers) if numbers else 4)
        row = Text(" Bid  " if kind == "bid" else " Call ", style="bold")
        for n in range(min([lo] + numbers), 14):
            style = ("reverse bold" if n == self.sel_n else "bold") if n in numbers else "dim"
            row.append(f" {n:>2} ", style=style)
        suits = Text(" Suit ", style="bold")
        fixed = all(a.get("suit") is None for a in acts)
        if fixed:
            ft = v.get("fixed_trump") or v.get("trump")
            suits.append(" ")
            suits.append(look.suit(ft), style=look.suit_style(ft))
            suits.append(" (fixed this round)", style="dim")
        else:
            ok = {a.get("suit") for a in acts if a["n"] == self.sel_n}
            for s in BID_SUITS:
                label = f" {look.suit(s)} "
                if s not in ok:
                    suits.append(label, style="dim")
                elif s == self.sel_suit:
                    suits.append(label, style=look.suit_style(s) + REVERSE)
                else:
                    suits.append(label, style=look.suit_style(s))
        hint = Text(" ")
        if kind == "bid" and acts:
            hint.append("Enter", style="bold")
            hint.append(" bid ")
            hint.append_text(look.bid(self.sel_n, self.sel_suit))
            hint.append("  ")
        if kind == "call":
            hint.append("Enter", style="bold")
            hint.append(" call ")
            hint.append_text(look.bid(self.sel_n, self.sel_suit))
            hint.append("  ")
        if self.legal("pass"):
            hint.append("p", style="bold")
            hint.append(" pass  ")
        if self.legal("with"):
            bid = (v.get("auction") or {}).get("bid") or {}
            hint.append("w", style="bold")
            hint.append(" With ")
            hint.append_text(look.bid(bid.get("n"), bid.get("suit")))
            hint.append("  ")
        state = self.auction_state()
        hint.append_text(state)
        return [row, suits, hint]

    def declare_lines(self) -> list[Text]:
        v = self.view
        acts = self.legal("declare")
        numbers = {a["n"] for a in acts}
        lo = min(numbers) if numbers else 0
        hi = max(numbers) if numbers else 13
        row = Text(" Declare ", style="bold")
        forbidden = v.get("forbidden")
        for n in range(lo, hi + 1):
            if n in numbers:
                row.append(f" {n:>2} ", style="reverse bold" if n == self.sel_n else "bold")
            else:
                row.append(f" {n:>2} ", style="dim strike" if n == forbidden else "dim")
        info = Text(" ")
        if forbidden is not None:
            info.append(f"{forbidden} is not allowed: it would make the total 13. ", style="dim")
        decl = v.get("declarations") or []
        total = sum(d for d in decl if d is not None)
        info.append(f"Declared so far: {total}", style="dim")
        hint = Text(" Enter", style="bold")
        hint.append(f" declare {self.sel_n}   digits choose (1 then 0–3 for 10–13)")
        return [row, hint, info]

    def waiting_lines(self) -> list[Text]:
        v = self.view
        who = v.get("to_act")
        t0 = Text(" ")
        if who is not None:
            t0.append(f"{self.pname(who)} is {ACTING_WORDS.get(v.get('phase'), 'to act')}…",
                      style="bold")
        if self.seat is None:
            t0.append("   (you are watching)", style="dim")
        if v.get("phase") == "play":
            # whose turn it is shows in the score panel (▶) and the timer; a
            # line that changed with every card would cost bytes on every move
            t0 = Text(" (you are watching)" if self.seat is None else "", style="dim")
        lines = [t0, Text(""), Text("")]
        if v.get("phase") in ("dash", "auction", "call"):
            lines[1] = self.auction_state()
        elif v.get("phase") == "declare":
            decl = v.get("declarations") or []
            total = sum(d for d in decl if d is not None)
            lines[1] = Text(f" Declared so far: {total}", style="dim")
        return lines

    # ----------------------------------------------------------------- hand
    def hand_cards(self) -> list[str]:
        v = self.view
        if not v:
            return []
        return sort_hand(list(v.get("hand") or []), v.get("trump") or v.get("fixed_trump"))

    def playable(self) -> set[str]:
        return {a["card"] for a in self.legal("play")}

    def playable_in_order(self) -> list[str]:
        ok = self.playable()
        return [c for c in self.hand_cards() if c in ok]

    def draw_hand(self) -> None:
        look = self.look
        cards = self.hand_cards()
        ok = self.playable()
        playing = "play" in self.legal_types()
        up = Text(no_wrap=True, overflow="crop")
        down = Text(no_wrap=True, overflow="crop")
        prev_suit = None
        for c in cards:
            gap = "  " if prev_suit is not None and c[1] != prev_suit else ""
            prev_suit = c[1]
            label = look.card_str(c).rjust(4)
            up.append(gap)
            down.append(gap)
            # Cards sit on the upper row; on our turn the ones that cannot be
            # played drop to the lower row, dim.  (Only those move, so the
            # start and end of a turn repaint little.)
            if not playing or c in ok:
                style = look.suit_style(c[1])
                if playing and c == self.sel_card:
                    style = style + REVERSE
                up.append(label, style=style)
                down.append(" " * len(label))
            else:
                up.append(" " * len(label))
                down.append(label, style=look.suit_style(c[1], dim=True))
        t = Text(no_wrap=True, overflow="crop")
        t.append_text(up)
        t.append("\n")
        t.append_text(down)
        self.query_one("#hand", Lines).set(t)

    def card_at(self, x: int) -> str | None:
        """Which card is drawn at column ``x`` of the hand widget (mouse)."""
        pos = 0
        prev = None
        for c in self.hand_cards():
            if prev is not None and c[1] != prev:
                pos += 2
            prev = c[1]
            if pos <= x < pos + 4:
                return c
            pos += 4
        return None

    # ----------------------------------------------------------------- chat
    def draw_chat(self) -> None:
        table = self.table
        if table is None:
            return
        t = Text(no_wrap=True, overflow="ellipsis")
        lines = list(table.chat)[-2:]
        for i, (who, text) in enumerate(lines):
            t.append(f" {who}: ", style="bold cyan")
            t.append(text)
            if i < len(lines) - 1:
                t.append("\n")
        self.query_one("#chat", Lines).set(t)

    # ----------------------------------------------------------------- keys
    def key_list(self) -> list[tuple[str, str]]:
        types = self.legal_types()
        v = self.view
        keys: list[tuple[str, str]] = []
        if v is None:
            keys += [("b", "computer players")]
        elif "dash" in types:
            keys += [("y", "take dash"), ("n", "normal")]
        elif "bid" in types or "pass" in types:
            keys += [("←→", "number"), ("nshdc", "suit"), ("enter", "bid")]
            if "pass" in types:
                keys.append(("p", "pass"))
            if "with" in types:
                keys.append(("w", "With"))
        elif "call" in types:
            keys += [("←→", "number"), ("nshdc", "suit"), ("enter", "call")]
        elif "declare" in types:
            keys += [("←→/0-9", "number"), ("enter", "declare")]
        elif "play" in types:
            keys += [("←→", "card"), ("enter", "play"), ("qs…", "type card")]
        keys += [("/", "chat"), ("?", "help")]
        keys.append(("x" if "play" in types else "q", "leave"))
        return keys

    def draw_keys(self) -> None:
        self.query_one("#keys", KeyBar).show(self.key_list())

    def flash(self, text: str) -> None:
        self._message = Text(" " + text, style="bold red")
        self._message_until = time.monotonic() + 4
        self.draw_phase()

    # -------------------------------------------------------------- actions
    def act(self, action: dict) -> None:
        table = self.table
        if table is None:
            return
        try:
            table.act(self.app.member, action)
        except RoomError as exc:
            self.flash(str(exc))

    def choose_number(self, kind: str, n: int) -> bool:
        acts = self.legal(kind)
        if kind in ("bid", "call"):
            ok = [a for a in acts if a["n"] == n]
            if not ok:
                return False
            self.sel_n = n
            if not any(a.get("suit") == self.sel_suit for a in ok):
                # keep the suit if possible, else the lowest legal one
                ranked = sorted(ok, key=lambda a: -BID_SUITS.index(a["suit"]) if a.get("suit") in BID_SUITS else 0)
                self.sel_suit = ranked[0].get("suit")
            return True
        if any(a["n"] == n for a in acts):
            self.sel_n = n
            return True
        return False

    def step_number(self, kind: str, d: int) -> None:
        numbers = sorted({a["n"] for a in self.legal(kind)})
        if not numbers:
            return
        if self.sel_n not in numbers:
            self.choose_number(kind, numbers[0])
            return
        i = numbers.index(self.sel_n)
        self.choose_number(kind, numbers[(i + d) % len(numbers)])

    def step_suit(self, kind: str, d: int) -> None:
        ok = [s for s in BID_SUITS if any(a["n"] == self.sel_n and a.get("suit") == s
                                          for a in self.legal(kind))]
        if not ok:
            return
        i = ok.index(self.sel_suit) if self.sel_suit in ok else 0
        self.sel_suit = ok[(i + d) % len(ok)]

    def step_card(self, d: int) -> None:
        cards = self.playable_in_order()
        if not cards:
            return
        i = cards.index(self.sel_card) if self.sel_card in cards else 0
        self.sel_card = cards[(i + d) % len(cards)]

    def digit(self, kind: str, d: int) -> None:
        now = time.monotonic()
        if self._one_at and now - self._one_at <= 1.0 and d <= 3:
            self._one_at = 0.0
            if self.choose_number(kind, 10 + d):
                return
        self._one_at = 0.0
        numbers = {a["n"] for a in self.legal(kind)}
        if d == 1 and numbers & {10, 11, 12, 13}:
            self._one_at = now
        if not self.choose_number(kind, d) and not (d == 1 and self._one_at):
            self.flash(f"{d} is not possible now.")

    def submit(self, kind: str) -> None:
        for a in self.legal(kind):
            if a["n"] == self.sel_n and a.get("suit") == self.sel_suit:
                self.act(a)
                return
        self.flash("Choose a number and suit that can be played.")

    def on_key(self, event: events.Key) -> None:
        chat = self.query_one("#chat-input", Input)
        if chat.has_focus:
            if event.key == "escape":
                chat.value = ""
                chat.display = False
                event.stop()
            return
        table = self.table
        if table is not None and table.version != self.rendered_version:
            self.table_changed("state")   # never act on a stale view
        key = event.key
        char = event.character or ""
        handled = self.route_key(key, char)
        if handled:
            event.stop()
            event.prevent_default()
            table = self.table
            if table is not None and self.app.screen is self:
                if table.version != self.rendered_version:
                    self.table_changed("state")   # our own move: draw the new state
                else:
                    self.draw_phase()
                    self.draw_hand()
                    self.draw_keys()

    def route_key(self, key: str, char: str) -> bool:
        types = self.legal_types()
        v = self.view
        if key == "question_mark":
            from .help import HelpScreen
            self.app.push_screen(HelpScreen(self.table.game if self.table else None))
            return True
        if key == "slash":
            chat = self.query_one("#chat-input", Input)
            chat.display = True
            chat.focus()
            return True
        if "play" in types:
            return self.play_key(key, char)
        if key in ("x",) or (key == "q"):
            self.leave()
            return True
        if key == "escape":
            return True
        if v is None:
            if key == "b":
                try:
                    self.table.fill_with_bots()
                except RoomError as exc:
                    self.flash(str(exc))
                return True
            return False
        if "dash" in types:
            if key == "y":
                self.act({"type": "dash", "take": True})
                return True
            if key == "n":
                self.act({"type": "dash", "take": False})
                return True
            return False
        kind = "bid" if types & {"bid", "pass", "with"} else ("call" if "call" in types
                                                              else ("declare" if "declare" in types else None))
        if kind is None:
            return False
        if kind == "bid" and key == "p" and self.legal("pass"):
            self.act({"type": "pass"})
            return True
        if kind == "bid" and key == "w" and self.legal("with"):
            self.act({"type": "with"})
            return True
        if key in ("left", "right"):
            self.step_number(kind, -1 if key == "left" else 1)
            return True
        if key in ("up", "down") and kind != "declare":
            self.step_suit(kind, -1 if key == "up" else 1)
            return True
        if len(char) == 1 and char.isdigit():
            self.digit(kind, int(char))
            return True
        if kind != "declare" and char in SUIT_KEYS:
            suit = SUIT_KEYS[char]
            if any(a["n"] == self.sel_n and a.get("suit") == suit for a in self.legal(kind)):
                self.sel_suit = suit
            elif any(a.get("suit") == suit for a in self.legal(kind)):
                n = min(a["n"] for a in self.legal(kind) if a.get("suit") == suit)
                self.sel_n, self.sel_suit = n, suit
            else:
                self.flash("That suit cannot be chosen now.")
            return True
        if key in ("enter", "space"):
            if kind == "declare":
                for a in self.legal("declare"):
                    if a["n"] == self.sel_n:
                        self.act(a)
                        return True
                self.flash("Choose a number first.")
                return True
            self.submit(kind)
            return True
        return False

    def play_key(self, key: str, char: str) -> bool:
        if key in ("left", "right"):
            self.step_card(-1 if key == "left" else 1)
            self._rank = None
            return True
        if key in ("enter", "space"):
            if self.sel_card in self.playable():
                self.act({"type": "play", "card": self.sel_card})
            return True
        if key == "x":
            self.leave()
            return True
        if key == "escape":
            self._rank = None
            return True
        if self._rank == "1" and char == "0":
            self._rank = "T"
            return True
        if self._rank and self._rank != "1" and char in CARD_SUIT_KEYS:
            card = self._rank + CARD_SUIT_KEYS[char]
            self._rank = None
            if card in self.playable():
                self.sel_card = card
                self.act({"type": "play", "card": card})
            elif card in (self.view.get("hand") or []):
                self.flash(f"{self.look.card_str(card)} cannot be played now (follow suit).")
            else:
                self.flash(f"You do not hold {self.look.card_str(card)}.")
            return True
        if char == "1":
            self._rank = "1"
            return True
        rank = parse_rank_key(char) if len(char) == 1 else None
        if rank:
            self._rank = rank
            return True
        if key == "q":
            self.leave()
            return True
        return False

    def on_click(self, event: events.Click) -> None:
        hand = self.query_one("#hand", Lines)
        if hand.region.contains(event.screen_x, event.screen_y) and "play" in self.legal_types():
            card = self.card_at(event.screen_x - hand.region.x)
            if card in self.playable():
                if card == self.sel_card:
                    self.act({"type": "play", "card": card})
                else:
                    self.sel_card = card
                    self.draw_hand()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        chat = self.query_one("#chat-input", Input)
        text = event.value
        chat.value = ""
        chat.display = False
        self.set_focus(None)
        if self.table is not None and text.strip():
            try:
                self.table.say(self.app.member, text)
            except RoomError as exc:
                self.flash(str(exc))

    def leave(self) -> None:
        table = self.table
        if table is None:
            self.app.pop_screen()
            return
        if table.status == "playing" and self.seat is not None:
            from .confirm import ConfirmScreen
            if table.game.startswith("estimation"):
                q = ("Leave the match? In Estimation leaving ends the match for everyone "
                     "and counts as your loss.  y / n")
            else:
                q = "Leave the match? A computer player takes your seat.  y / n"

            def done(yes: bool | None) -> None:
                if yes:
                    self.do_leave()
            self.app.push_screen(ConfirmScreen(q), done)
        else:
            self.do_leave()

    def do_leave(self) -> None:
        table = self.table
        if table is not None:
            table.detach(self.app.member, keep_seat=False)
        if self._countdown is not None:
            self._countdown.stop()
            self._countdown = None
        if self.app.screen is self:
            self.app.pop_screen()
