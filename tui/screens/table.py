"""The table: score panel, trick, phase controls, hand, chat; keyboard first.

Everything shown is derived from the engine's ``view(seat)`` and its
``legal`` list, so the same screen plays all three games: the screen never
decides what is legal, it dims what the engine did not list.

The whole screen is one ``Board`` widget drawing a list of lines: no
containers and no layout per move; the board repaints only the cells that
changed (a card played by someone else costs a few dozen bytes).
"""

from __future__ import annotations

import re
import time

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Input

from server.room import RoomError, code_label, title

from ..arabic import term
from ..cards import BID_SUITS, Look, parse_rank_key, sort_hand
from ..widgets.board import Board, PromptScreenMixin

W = 80
H = 24
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
BONUS_NAMES = {"caller": "caller", "with": "With", "sole": "sole", "risk": "risk",
               "dash": "dash", "super": "super"}
TRICK_HOLD = 0.7     # the finished trick stays, then moves to the winner
NOTICE_SECONDS = 8.0


def center(text: Text, width: int = W) -> Text:
    pad = max(0, (width - text.cell_len) // 2)
    out = Text(" " * pad, no_wrap=True)
    out.append_text(text)
    return out


def fit(text: Text | str, width: int, right: bool = False) -> Text:
    """``text`` cut or padded to exactly ``width`` cells."""
    if isinstance(text, str):
        text = Text(text)
    n = text.cell_len
    if n == width:
        return text         # nothing to change (callers never modify the result)
    t = text.copy()
    if n > width:
        t.truncate(width, overflow="ellipsis")
        n = t.cell_len
    pad = width - n
    if pad > 0:
        if right:
            t = Text(" " * pad) + t
        else:
            t.append(" " * pad)
    return t


def join(*parts: Text | str) -> Text:
    out = Text(no_wrap=True)
    for p in parts:
        if isinstance(p, str):
            out.append(p)
        else:
            out.append_text(p)
    return out


class TableScreen(PromptScreenMixin, Screen):
    AUTO_FOCUS = ""
    DEFAULT_CSS = """
    TableScreen { align: left top; }
    TableScreen #chat-input { dock: bottom; margin-bottom: 1; width: 80; border: none;
                              height: 1; padding: 0 1; display: none; }
    """

    def __init__(self, notice: str | None = None) -> None:
        super().__init__()
        # Where the person landed ("you sit in seat 2", "you are watching"), shown a while.
        self._notice = notice
        self._notice_until = time.monotonic() + NOTICE_SECONDS if notice else 0.0
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
        self._seen = (None, 0)           # (round, finished tricks) last drawn
        self._anim: dict | None = None   # the finished trick on its way to the winner
        self.rendered_version = -1

    # ------------------------------------------------------------- compose
    def compose(self) -> ComposeResult:
        yield Board(id="board")
        chat = Input(id="chat-input", max_length=200,
                     placeholder="say something, Enter sends, Esc cancels")
        chat.cursor_blink = False
        yield chat

    def on_mount(self) -> None:
        from .. import settings
        settings.load(self.app)
        if self._notice:
            self.set_timer(NOTICE_SECONDS + 0.05, self.draw)
        self.table_changed("state")

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.draw)

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

    def term(self, key: str, english: str) -> str:
        return term(key, english, self.look.english_only)

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
            self.draw()
            return
        if self.view is not None and table.version == self.rendered_version and what == "state":
            return          # already drawn (our own move is drawn at the key press)
        self.view = table.view(self.seat)
        self.rendered_version = table.version
        key = None
        v = self.view
        if v is not None:
            key = (v.get("round"), v.get("phase"), len(v.get("tricks") or []),
                   len(v.get("trick") or []), v.get("to_act"))
            seen = (v.get("round"), len(v.get("tricks") or []))
            if (v.get("phase") == "play" and not v.get("trick") and seen[0] == self._seen[0]
                    and seen[1] == self._seen[1] + 1):
                last = v["tricks"][-1]
                self._anim = {"cards": last["cards"], "winner": last["winner"], "moved": False}
                self.set_timer(TRICK_HOLD, self._move_trick)
            elif v.get("trick") or seen != self._seen:
                self._anim = None
            self._seen = seen
        if key != self._phase_key:
            self._phase_key = key
            self.reset_selection()
        self.draw()

    def _move_trick(self) -> None:
        if self._anim is not None and not self._anim["moved"]:
            self._anim["moved"] = True
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
                pick = next((a for a in calls if a.get("suit") == v.get("fixed_trump")
                             and a["n"] == want.get("n")), None)
                pick = pick or next((a for a in calls if a.get("suit") == v.get("fixed_trump")), None)
            pick = pick or calls[0]
            self.sel_n, self.sel_suit = pick["n"], pick.get("suit")
        elif "declare" in types:
            self.sel_n = self.legal("declare")[0]["n"]
        elif "play" in types:
            playable = self.playable_in_order()
            self.sel_card = playable[0] if playable else None

    # ------------------------------------------------------------- drawing
    def draw(self) -> None:
        try:
            board = self.query_one(Board)
        except NoMatches:       # a table update racing the app's shutdown
            return
        width, height = board.size.width, board.size.height
        if width <= 0 or height <= 0:
            return
        if width < W or height < H:
            msg = [Text("")] * (height // 2 - 1)
            msg.append(center(Text("Please enlarge the window to at least 80×24.", style="bold"), width))
            msg.append(center(Text(f"(now {width}×{height})", style="dim"), width))
            board.set_lines(msg)
            return
        lines = self.compose_lines()
        keys = lines.pop()
        lines = lines[:H - 1]
        lines += [Text("")] * (height - 1 - len(lines))
        lines.append(keys)
        x = (width - W) // 2
        if x:
            lines = [Text(" " * x) + l for l in lines]
        board.set_lines(lines)
        self.update_countdown(draw=False)

    def compose_lines(self) -> list[Text]:
        """23 lines of the table plus the footer (last)."""
        lines: list[Text] = [self.info_line()]
        lines.append(self.note_line())
        lines += self.score_lines()                # 5 lines (rows 2-6)
        lines += self.middle_lines()               # 6 lines (rows 7-12)
        lines.append(Text(""))                     # 13
        lines += self.phase_lines()                # 3 lines (14-16)
        lines.append(Text(""))                     # 17
        lines += self.hand_lines()                 # 2 lines (18-19)
        lines.append(Text(""))                     # 20
        lines += self.chat_lines()                 # 2 lines (21-22)
        lines.append(self.keys_line())
        return lines

    # ----------------------------------------------------------------- info
    def info_line(self) -> Text:
        table, v, look = self.table, self.view, self.look
        bar = look.style("bold reverse") if not look.colour else "bold white on blue"
        t = Text(no_wrap=True, overflow="ellipsis", style=bar)
        t.append(f" #{table.id} ")
        t.append(f"{title(table.game)}")
        if table.length is not None and table.game != "tarneeb41":
            t.append(f" {table.length}")
        if v is None:
            t.append(" · waiting for players")
            if table.private and table.code:
                t.append(f" · private, code {code_label(table.code)}")
        else:
            if v.get("rounds"):
                t.append(f" · Round {v['round']} of {v['rounds']}")
            else:
                t.append(f" · Hand {v['round']}")
            kind = v.get("kind")
            if kind in ("fast", "fixed"):
                ft = v.get("fixed_trump")
                t.append(f" ({kind} {look.suit(ft)})")
            trump = v.get("trump")
            t.append(" · Trump ")
            t.append(look.suit(trump) if trump else "—")
            call = v.get("call")
            if call and v.get("caller") is not None:
                t.append(f" · Call {look.bid_str(call.get('n'), call.get('suit'))} "
                         f"{self.pname(v['caller'], you=False)}")
            if (v.get("multiplier") or 1) > 1:
                t.append(f" · ×{v['multiplier']}", style="bold")
            if v.get("shown_card"):
                t.append(f" · Shown {look.card_str(v['shown_card'])}")
        right = Text(" " * 6, style=bar)
        table_left = table.seconds_left() if table is not None else None
        if table_left is not None:
            secs = int(table_left + 0.999)
            mine = table.deadline_seat == self.seat
            right = Text(f" {secs:>3}s ", style=bar)
            if mine and secs <= 10:
                right.stylize(look.style("bold red on white"))
        t.append(" " * max(0, W - 6 - t.cell_len))
        return join(fit(t, W - 6), right)

    def note_line(self) -> Text:
        """Row 1: where you landed, the seat you wait for, or the private code."""
        table, look = self.table, self.look
        waiting = table.request_of(self.app.member)
        if self._notice and time.monotonic() < self._notice_until:
            return fit(Text(" " + self._notice, style=look.style("bold")), W)
        if waiting is not None:
            return fit(Text(" " + table.request_text(waiting), style=look.style("bold")), W)
        if table.private and table.code and self.view is not None:
            return fit(Text(f" Private table · code {code_label(table.code)} · friends press j "
                            "in the lobby and type it", style=look.style("dim")), W)
        return Text("")

    def notice(self, text: str) -> None:
        """The table's word on our request for a computer player's seat (SeatNotice)."""
        self._notice = text
        self._notice_until = time.monotonic() + NOTICE_SECONDS
        if self.is_mounted:
            self.set_timer(NOTICE_SECONDS + 0.05, self.draw)
            self.draw()

    def update_countdown(self, draw: bool = True) -> None:
        table = self.table
        left = table.seconds_left() if table is not None else None
        if left is not None:
            if self._countdown is None:
                self._countdown = self.set_interval(1.0, self.update_countdown)
        elif self._countdown is not None:
            self._countdown.stop()
            self._countdown = None
        if draw:
            self.draw()

    # --------------------------------------------------------------- scores
    _score_drawn: dict | None = None     # joined score rows, by what they show

    def score_lines(self) -> list[Text]:
        table, v, look = self.table, self.view, self.look
        tarneeb = table.game == "tarneeb41"
        head = Text(f"  {'player':<19}{'bid':>4}{'won':>4}{'total':>7}", style="bold underline")
        rows = [head]
        pos = self.positions()
        for s in [pos["bottom"], pos["right"], pos["top"], pos["left"]]:
            seat = table.seats[s]
            t = Text(no_wrap=True)
            turn = bool(v and v.get("to_act") == s)
            t.append("▶ " if turn else "  ", style=look.style("bold yellow"))
            name = self.pname(s)
            if seat.kind == "human" and seat.member is None:
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
            # only the marker shows the turn: a move repaints two cells, not two rows
            t.append(f"{name[:14]:<14} {tags:<4}{decl:>4}{tricks:>4}{total:>7}")
            rows.append(t)
        side = self.side_lines()
        out = []
        drawn = self._score_drawn
        if drawn is None or len(drawn) > 64:
            drawn = self._score_drawn = {}
        for i in range(5):
            # a row and its side text are plain strings with one style each (the
            # marker's depends on the colour setting): the joined line is reused
            key = (rows[i].plain, side[i].plain, str(side[i].style), look.colour)
            line = drawn.get(key)
            if line is None:
                line = drawn[key] = join(fit(rows[i], 36), Text("│ ", style="dim"),
                                         fit(side[i], W - 38))
            out.append(line)
        return out

    def side_lines(self) -> list[Text]:
        """Right of the scores: Tarneeb teams, then the latest events."""
        table, v = self.table, self.view
        out: list[Text] = []
        if v and v.get("team_totals"):
            a, b = v["team_totals"]
            teams = v.get("teams") or [[0, 2], [1, 3]]
            out.append(Text(f"Teams  a {a}  ·  b {b}   ({self.pname(teams[0][0], False)[:8]}+"
                            f"{self.pname(teams[0][1], False)[:8]} vs …)", style="bold"))
        rnd = v.get("round") if v else None
        evs = [e for e in table.events if (e.round is None or e.round == rnd)
               and not (e.action and e.action.get("type") == "play")]
        evs = evs[-(5 - len(out)):]
        for i, e in enumerate(evs):
            out.append(Text(self.pretty(e.text), style="bold" if i == len(evs) - 1 else "dim"))
        return out + [Text("")] * (5 - len(out))

    def pretty(self, text: str) -> str:
        """Event texts use card codes (QS) and bids (5H); show suit symbols."""
        look = self.look
        text = _CARD_RE.sub(lambda m: look.card_str(m.group(0)), text)
        return _BID_RE.sub(lambda m: m.group(1) + look.suit(m.group(2)), text)

    # ---------------------------------------------------------------- middle
    def middle_lines(self) -> list[Text]:
        table, v, look = self.table, self.view, self.look
        cards: dict[int, Text] = {}
        note = Text("")
        pile: tuple[int, Text] | None = None
        if v is None:
            cards = {s: Text("empty" if table.seats[s].kind == "empty" else " ✓ ",
                             style="dim") for s in range(4)}
            note = Text("Waiting for players · b: computer players fill the empty seats",
                        style="bold")
        elif v.get("phase") == "over":
            return ([Text("")] + self.result_lines() + [Text("")] * 6)[:6]
        elif v.get("phase") != "play" and v.get("history") and not v.get("tricks"):
            return (self.summary_lines(v["history"][-1]) + [Text("")] * 6)[:6]
        else:
            trick = v.get("trick") or []
            anim = self._anim
            if not trick and anim is not None:
                who = self.pname(anim["winner"])
                if not anim["moved"]:
                    for c in anim["cards"]:
                        cards[c["seat"]] = look.card(c["card"])
                    note = Text(f"{who} takes the trick", style="bold")
                else:
                    note = Text(f"{who} took the trick", style="bold")
                    if not look.reduce_motion:
                        p = Text()
                        for c in anim["cards"]:
                            p.append_text(look.card(c["card"], dim=True))
                            p.append(" ")
                        pile = (anim["winner"], p)
            elif not trick and v.get("tricks"):
                last = v["tricks"][-1]
                note = Text(f"{self.pname(last['winner'])} took the last trick", style="dim")
            for c in trick:
                cards[c["seat"]] = look.card(c["card"])
            if not note.plain and v.get("phase") == "play":
                lead = v.get("leader")
                if not trick and lead is not None:
                    note = Text(f"{self.pname(lead)} leads", style="dim")
        pos = self.positions()
        where = {s: w for w, s in pos.items()}

        def slot(w: str) -> Text:
            s = pos[w]
            if pile is not None and pile[0] == s:
                return pile[1]
            return cards.get(s, Text(""))
        name = lambda w: Text(self.pname(pos[w], you=False)[:16], style="bold")
        top = [center(name("top")), center(fit(slot("top"), 12 if where else 4))]
        mid = join(fit(name("left"), 18), fit(slot("left"), 13, right=True), " " * 18,
                   fit(slot("right"), 13), fit(name("right"), 18, right=True))
        bottom = center(slot("bottom"))
        return [Text(""), top[0], center(slot("top")), mid, bottom, center(note)]

    def summary_lines(self, rec: dict) -> list[Text]:
        look = self.look
        head = Text(f" Round {rec.get('round')} summary", style="bold underline")
        if rec.get("void"):
            head.append("  hand void (declarations under 11): redeal", style="bold")
            return [head]
        if (rec.get("multiplier") or 1) > 1:
            head.append(f"  ×{rec['multiplier']}", style="bold")
        if rec.get("over") is not None:
            head.append("  over" if rec["over"] else "  under", style="dim")
        if rec.get("saayda"):
            saayda = self.term("saayda", "Sa'ayda")
            head.append(f"  {saayda}: all missed, next round ×2", style="bold")
        if rec.get("all_pass"):
            head.append("  all passed", style="dim")
        head.append("  (r: all rounds)", style="dim")
        decl = rec.get("declarations") or [None] * 4
        took = rec.get("tricks_taken") or [0] * 4
        scores = rec.get("scores") or [0] * 4
        bd = rec.get("breakdown") or [{}] * 4
        made = rec.get("made")
        totals = (self.view or {}).get("totals") or [0] * 4
        used = [k for k in BONUS_KEYS if any(isinstance(b, dict) and b.get(k) for b in bd)]
        names = {k: (self.term(k, BONUS_NAMES[k]) if k in ("with", "risk", "dash")
                     else BONUS_NAMES[k]) for k in used}
        widths = {k: max(len(names[k]), 4) + 1 for k in used}
        hdr = Text(f" {'player':<14}{'bid':>4}{'won':>4}{'base':>6}", style="bold")
        for k in used:
            hdr.append(names[k].rjust(widths[k]))
        if made is not None:
            hdr.append("  result")
        hdr.append(f"{'pts':>6}{'total':>7}")
        lines = [head, hdr]
        for s in range(4):
            b = bd[s] if s < len(bd) and isinstance(bd[s], dict) else {}
            t = Text(no_wrap=True, overflow="ellipsis")
            t.append(f" {self.pname(s, you=False)[:14]:<14}{'' if decl[s] is None else decl[s]:>4}"
                     f"{took[s]:>4}")
            t.append(f"{b.get('base', 0):>+6d}" if "base" in b else f"{'':>6}")
            for k in used:
                val = b.get(k)
                t.append((f"{val:+d}" if val else "·").rjust(widths[k]), style="" if val else "dim")
            if made is not None:
                t.append("  made  " if made[s] else "  failed",
                         style=look.style("green") if made[s] else look.style("red"))
            t.append(f"{scores[s]:>+6d}", style="bold")
            t.append(f"{totals[s]:>7}")
            lines.append(t)
        return lines[:6]

    def result_lines(self) -> list[Text]:
        v = self.view
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
        # Level points and badges (E-38 … E-40, Tarneeb 20/−4), as the store paid them.
        paid = getattr(self.table, "points", None) or {}
        for s in sorted(range(4), key=lambda s: -totals[s]):
            mark = "★ " if s in winners else "  "
            line = Text(f" {mark}{self.pname(s):<20}{totals[s]:>6}",
                        style="bold" if s in winners else "")
            got = paid.get(s)
            if got and got.get("points"):
                line.append(f"   {got['points']:+d} level points")
            if got and got.get("badge"):
                line.append(f"   new badge: {got['badge']}", style="bold")
            lines.append(line)
        return lines

    # ---------------------------------------------------------------- phase
    def phase_lines(self) -> list[Text]:
        v, look = self.view, self.look
        lines: list[Text] = [Text(""), Text(""), Text("")]
        types = self.legal_types()
        if v is None:
            lines[0] = Text(" Waiting for four players.", style="bold")
            lines[1] = Text(" b  fill the empty seats with computer players · q  leave", style="dim")
        elif v.get("phase") == "over":
            lines[0] = Text(" The match is over. r  score sheet · q  back to the lobby", style="bold")
        elif "dash" in types:
            lines[0] = Text(f" {self.term('dash', 'Dash')} call? Promise to win no trick at all, "
                            "before the trump is known.", style="bold")
            lines[1] = Text("   y  take the dash call      n  play normally")
        elif types & {"bid", "pass", "with"}:
            lines = self.auction_lines("bid")
        elif "call" in types:
            lines = self.auction_lines("call")
        elif "declare" in types:
            lines = self.declare_lines()
        elif "play" in types:
            # short: it comes and goes with every turn (bytes on every move)
            lines[0] = Text(" Your turn", style="bold")
            if self._rank:
                lines[1] = Text(f"   rank {look.rank(self._rank)} … now the suit: s h d c")
        else:
            lines = self.waiting_lines()
        if self._message is not None and time.monotonic() < self._message_until:
            lines[2] = self._message
        return [fit(l, W) for l in lines[:3]]

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

    def number_cells(self, kind: str) -> list[tuple[int, str]]:
        """(number, state) for the number row: "sel", "ok", "dim" (cannot be chosen)."""
        acts = self.legal(kind)
        numbers = sorted({a["n"] for a in acts})
        lo = 4 if kind == "bid" else (min(numbers) if numbers else 4)
        return [(n, ("sel" if n == self.sel_n else "ok") if n in numbers else "dim")
                for n in range(min([lo] + numbers), 14)]

    def suit_cells(self, kind: str) -> list[tuple[str, str]]:
        """(suit, state) for the suit row; [] when the suit is fixed."""
        acts = self.legal(kind)
        if all(a.get("suit") is None for a in acts):
            return []
        ok = {a.get("suit") for a in acts if a["n"] == self.sel_n}
        return [(s, "dim" if s not in ok else ("sel" if s == self.sel_suit else "ok"))
                for s in BID_SUITS]

    def auction_lines(self, kind: str) -> list[Text]:
        v, look = self.view, self.look
        acts = self.legal(kind)
        row = Text(" Bid  " if kind == "bid" else " Call ", style="bold")
        for n, state in self.number_cells(kind):
            row.append(f" {n:>2} ", style={"sel": "reverse bold", "ok": "bold", "dim": "dim"}[state])
        suits = Text(" Suit ", style="bold")
        cells = self.suit_cells(kind)
        if not cells:
            ft = v.get("fixed_trump") or v.get("trump")
            suits.append(" ")
            suits.append(look.suit(ft), style=look.suit_style(ft))
            if kind == "call" and v.get("kind") == "fast":
                suits.append(" (locked: raise to 8 or more to change it)", style="dim")
            else:
                suits.append(" (fixed this round)", style="dim")
        else:
            locked = (kind == "call" and v.get("kind") == "fast"
                      and len([c for c in cells if c[1] != "dim"]) == 1)
            for s, state in cells:
                label = f" {look.suit(s)} "
                if state == "dim":
                    suits.append(label, style="dim")
                elif state == "sel":
                    suits.append(label, style=look.suit_style(s) + REVERSE)
                else:
                    suits.append(label, style=look.suit_style(s))
            if locked:
                suits.append("  locked: raise to 8 or more to change the suit", style="dim")
        hint = Text(" ")
        if acts:
            hint.append("Enter", style="bold")
            hint.append(" bid " if kind == "bid" else " call ")
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
        hint.append_text(self.auction_state())
        return [row, suits, hint]

    def declare_cells(self) -> list[tuple[int, str]]:
        v = self.view
        numbers = {a["n"] for a in self.legal("declare")}
        forbidden = v.get("forbidden")
        cand = numbers | ({forbidden} if forbidden is not None else set())
        lo, hi = (min(cand), max(cand)) if cand else (0, 13)
        out = []
        for n in range(lo, hi + 1):
            if n in numbers:
                out.append((n, "sel" if n == self.sel_n else "ok"))
            else:
                out.append((n, "forbidden" if n == forbidden else "dim"))
        return out

    def declare_lines(self) -> list[Text]:
        v = self.view
        row = Text(" Declare ", style="bold")
        styles = {"sel": "reverse bold", "ok": "bold", "dim": "dim", "forbidden": "dim strike"}
        for n, state in self.declare_cells():
            row.append(f" {n:>2} ", style=styles[state])
        info = Text(" ")
        forbidden = v.get("forbidden")
        if forbidden is not None:
            info.append(f"{forbidden} is disabled: it would make the total 13 (you declare last). ",
                        style="bold")
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
        if who is not None and v.get("phase") != "play":
            t0.append(f"{self.pname(who)} is {ACTING_WORDS.get(v.get('phase'), 'to act')}…",
                      style="bold")
        if self.seat is None:
            t0.append("   (you are watching)", style="dim")
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

    _hand_drawn: tuple = (None, None)    # (what the hand rows show, the rows)

    def hand_lines(self) -> list[Text]:
        look = self.look
        v = self.view
        playing = "play" in self.legal_types()
        ok = self.playable()
        key = (tuple(v.get("hand") or ()) if v else (),
               (v.get("trump") or v.get("fixed_trump")) if v else None,
               playing, frozenset(ok) if playing else None,
               self.sel_card if playing else None, look.unicode, look.colour)
        if self._hand_drawn[0] == key:
            return list(self._hand_drawn[1])
        cards = self.hand_cards()
        up = Text(" " * 10, no_wrap=True)
        down = Text(" " * 10, no_wrap=True)
        prev_suit = None
        for c in cards:
            gap = "  " if prev_suit is not None and c[1] != prev_suit else ""
            prev_suit = c[1]
            label = look.card_str(c).rjust(4)
            up.append(gap)
            down.append(gap)
            # Legal cards stand raised on the upper row; on our turn the ones
            # that cannot be played drop to the lower row, dim.
            if not playing or c in ok:
                style = look.suit_style(c[1])
                if playing and c == self.sel_card:
                    style = style + REVERSE
                up.append(label, style=style)
                down.append(" " * len(label))
            else:
                up.append(" " * len(label))
                down.append(label, style=look.suit_style(c[1], dim=True))
        self._hand_drawn = (key, (up, down))
        return [up, down]

    HAND_X = 10

    def card_at(self, x: int) -> str | None:
        """Which card is drawn at column ``x`` of the board (mouse)."""
        pos = self.HAND_X
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
    def chat_lines(self) -> list[Text]:
        table = self.table
        out = []
        for who, text in list(table.chat)[-2:]:
            t = Text(no_wrap=True, overflow="ellipsis")
            t.append(f" {who}: ", style=self.look.style("bold cyan"))
            t.append(text)
            out.append(fit(t, W))
        return (out + [Text(""), Text("")])[:2]

    # ----------------------------------------------------------------- keys
    def key_list(self) -> list[tuple[str, str]]:
        """The keys that do something now.  The ones that are always there
        come first, so a turn starting or ending repaints only the tail."""
        types = self.legal_types()
        v = self.view
        keys: list[tuple[str, str]] = [("/", "chat"), ("o", "opts"), ("?", "help")]
        playing = v is not None and v.get("phase") == "play"
        keys.append(("x" if playing else "q", "leave"))
        if v is not None and v.get("history"):
            keys.append(("r", "rounds"))
        if v is None:
            keys += [("b", "computer players")]
        elif "dash" in types:
            keys += [("y", "take dash"), ("n", "normal")]
        elif "bid" in types or "pass" in types:
            keys += [("←→", "num"), ("nshdc", "suit"), ("⏎", "bid")]
            if "pass" in types:
                keys.append(("p", "pass"))
            if "with" in types:
                keys.append(("w", "With"))
        elif "call" in types:
            fixed = not self.suit_cells("call")
            keys += [("←→", "num")] + ([] if fixed else [("nshdc", "suit")]) + [("⏎", "call")]
        elif "declare" in types:
            keys += [("←→/0-9", "number"), ("⏎", "declare")]
        elif "play" in types:
            keys += [("←→", "card"), ("⏎", "play"), ("qs…", "type")]
        return keys

    _keys_drawn: tuple = ((), None)     # (key list, its line): reused while the keys stay

    def keys_line(self) -> Text:
        keys = tuple(self.key_list())
        if self._keys_drawn[0] == keys:
            return self._keys_drawn[1]
        t = Text(no_wrap=True, overflow="ellipsis")
        for i, (k, label) in enumerate(keys):
            # the reversed key box separates entries; no extra gap (80 columns)
            t.append(f" {k} ", style="bold reverse")
            t.append(label)
        line = fit(t, W)
        self._keys_drawn = (keys, line)
        return line

    def flash(self, text: str) -> None:
        self._message = Text(" " + text, style=self.look.style("bold red"))
        self._message_until = time.monotonic() + 4
        self.set_timer(4.05, self.draw)
        self.draw()

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
                self.query_one(Board).direct = True
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
                    self.draw()

    def route_key(self, key: str, char: str) -> bool:
        types = self.legal_types()
        v = self.view
        if key == "question_mark":
            from .help import HelpScreen
            self.app.push_screen(HelpScreen(self.table.game if self.table else None))
            return True
        if key == "r" and self.view is not None and self.view.get("history"):
            from .sheet import SheetScreen
            self.app.push_screen(SheetScreen(self))
            return True
        if key == "o":
            from .options import OptionsScreen

            def done(_=None) -> None:
                self._anim = None
                self.draw()
            self.app.push_screen(OptionsScreen(), done)
            return True
        if key == "slash":
            chat = self.query_one("#chat-input", Input)
            self.query_one(Board).direct = False
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
        board = self.query_one(Board)
        x0 = (board.size.width - W) // 2
        if event.screen_y in (18, 19) and "play" in self.legal_types():
            card = self.card_at(event.screen_x - x0)
            if card in self.playable():
                if card == self.sel_card:
                    self.act({"type": "play", "card": card})
                else:
                    self.sel_card = card
                    self.draw()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        chat = self.query_one("#chat-input", Input)
        text = event.value
        chat.value = ""
        chat.display = False
        self.query_one(Board).direct = True
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
