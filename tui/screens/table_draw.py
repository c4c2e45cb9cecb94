"""The table screen's picture, as a pure function of what it shows.

``draw_table(view, state, facts, look, now)`` gives the 80×24 table: 23 lines,
the footer and where the hand's cards are (``Hit``); ``place`` puts it on a
board of any size (centred, the footer on the last row) or asks for a larger
window.  Everything comes in as arguments: the engine's ``view`` of the seat,
the screen's ``TableState``, the table's ``TableFacts`` and the player's
``Look``; ``now`` decides whether a notice or a refusal is still shown.  No
App, room or clock is read, so the picture can be tested without Pilot.

The hand rows, the footer and the score rows are the lines that come back
frame after frame: ``DrawCache`` keeps them, keyed on what they show, so a
redraw with nothing changed builds little.  The cache never changes the
result; callers must not modify the lines they get.

Layout (rows of the 80×24 table): 0 info bar, 1 note, 2–6 scores and events,
7–12 the trick (or a round summary, or the match result), 14–16 the phase
controls, 18–19 the hand, 21–22 chat, the footer on the board's last row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rich.style import Style
from rich.text import Text

from ..arabic import term
from ..cards import Look
from .table_keys import KeyContext, footer
from .table_state import TableFacts, TableState, Turn, View

W = 80
H = 24
HAND_X = 10          # the hand's first column
HAND_Y = 18          # the hand's upper row (the cards that cannot be played sit one lower)
CARD_W = 4           # a card's cells ("10♥" right-aligned in 4)
_CARD_RE = re.compile(r"\b[AKQJT2-9][SHDC]\b")
_BID_RE = re.compile(r"\b(\d{1,2})(NT|S|H|D|C)\b")
REVERSE = Style(reverse=True)
ACTING_WORDS = {"dash": "answering the dash offer", "auction": "bidding",
                "call": "making the call", "declare": "declaring", "play": "playing"}
BONUS_KEYS = ["caller", "with", "sole", "risk", "dash", "super"]
BONUS_NAMES = {"caller": "caller", "with": "With", "sole": "sole", "risk": "risk",
               "dash": "dash", "super": "super"}


# ----------------------------------------------------------------- text tools
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


# ---------------------------------------------------------------- the results
@dataclass(frozen=True)
class Hit:
    """A clickable area of the picture: ``card`` drawn at columns x … x+width-1,
    rows y … y+height-1."""
    x: int
    y: int
    width: int
    height: int
    card: str

    def contains(self, x: int, y: int) -> bool:
        return self.x <= x < self.x + self.width and self.y <= y < self.y + self.height

    def moved(self, dx: int) -> Hit:
        return Hit(self.x + dx, self.y, self.width, self.height, self.card)


@dataclass(frozen=True)
class Frame:
    """The 80×24 table: 23 lines, the footer, the clickable cards."""
    lines: list[Text]
    footer: Text
    hits: tuple[Hit, ...]


@dataclass(frozen=True)
class Placed:
    """What a board of ``width``×``height`` shows, and where its cards are."""
    lines: list[Text]
    hits: tuple[Hit, ...] = ()
    small: bool = False          # too small: a request to enlarge the window


@dataclass
class DrawCache:
    """Lines that come back frame after frame, by what they show (one per screen)."""
    hand: tuple[Any, tuple[Text, Text], tuple[Hit, ...]] | None = None
    footer: tuple[tuple[tuple[str, str], ...], Text] | None = None
    scores: dict[tuple[Any, ...], Text] = field(default_factory=dict)
    # Whole sections (info bar, middle) by what they show: a move changes a few
    # of the frame's parts, and the others come back as the same Text objects,
    # which the board then skips without comparing them (``Board.set_lines``).
    sections: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    _turn: Turn | None = None

    def section(self, key: tuple[Any, ...]) -> Any:
        return self.sections.get(key)

    def keep(self, key: tuple[Any, ...], value: Any) -> Any:
        if len(self.sections) > 64:
            self.sections.clear()
        self.sections[key] = value
        return value

    def turn(self, view: View | None, seat: int | None) -> Turn:
        """The viewer's legal actions grouped once per view (a new view is a new dict),
        not once per key press and again per frame."""
        t = self._turn
        if t is None or t.view is not view or t.seat != seat:
            t = self._turn = Turn(view, seat)
        return t


class Scene:
    """One frame's arguments, and what is derived from them once."""

    __slots__ = ("cache", "facts", "keys", "look", "look_key", "now", "state", "turn", "view")

    def __init__(self, view: View | None, state: TableState, facts: TableFacts, look: Look,
                 now: float, cache: DrawCache | None = None) -> None:
        self.view = view
        self.state = state
        self.facts = facts
        self.look = look
        self.look_key = (look.unicode, look.colour, look.english_only, look.reduce_motion)
        self.now = now
        self.cache = cache if cache is not None else DrawCache()
        self.turn = self.cache.turn(view, facts.seat)
        self.keys = KeyContext.of(view, self.turn, state.rank)

    def term(self, key: str, english: str) -> str:
        return term(key, english, self.look.english_only)

    def pretty(self, text: str) -> str:
        """Event texts use card codes (QS) and bids (5H); show suit symbols."""
        look = self.look
        text = _CARD_RE.sub(lambda m: look.card_str(m.group(0)), text)
        return _BID_RE.sub(lambda m: m.group(1) + look.suit(m.group(2)), text)


# ------------------------------------------------------------------ the frame
def draw_table(view: View | None, state: TableState, facts: TableFacts, look: Look,
               now: float, cache: DrawCache | None = None) -> Frame:
    """The 80×24 table for ``view`` as seen from ``facts.seat``."""
    sc = Scene(view, state, facts, look, now, cache)
    hand, hits = hand_rows(sc)
    lines: list[Text] = [info_line(sc), note_line(sc)]
    lines += score_lines(sc)                # 5 lines (rows 2-6)
    lines += middle_lines(sc)               # 6 lines (rows 7-12)
    lines.append(Text(""))                  # 13
    lines += phase_lines(sc)                # 3 lines (14-16)
    lines.append(Text(""))                  # 17
    lines += hand                           # 2 lines (18-19)
    lines.append(Text(""))                  # 20
    lines += chat_lines(sc)                 # 2 lines (21-22)
    return Frame(lines[:H - 1], footer_line(sc), hits)


def enlarge_lines(width: int, height: int) -> list[Text]:
    msg = [Text("")] * (height // 2 - 1)
    msg.append(center(Text("Please enlarge the window to at least 80×24.", style="bold"), width))
    msg.append(center(Text(f"(now {width}×{height})", style="dim"), width))
    return msg


def place(frame: Frame, width: int, height: int) -> Placed:
    """``frame`` on a board of ``width``×``height`` (at least 80×24): centred
    across, the table at the top, the footer on the last row."""
    lines = list(frame.lines)
    lines += [Text("")] * (height - 1 - len(lines))
    lines.append(frame.footer)
    x = (width - W) // 2
    hits = frame.hits
    if x:
        lines = [Text(" " * x) + line for line in lines]
        hits = tuple(h.moved(x) for h in hits)
    return Placed(lines, hits)


def draw_screen(view: View | None, state: TableState, facts: TableFacts, look: Look,
                width: int, height: int, now: float, cache: DrawCache | None = None) -> Placed:
    """The board's lines at ``width``×``height``: the table, or a request to enlarge."""
    if width < W or height < H:
        return Placed(enlarge_lines(width, height), small=True)
    return place(draw_table(view, state, facts, look, now, cache), width, height)


# ----------------------------------------------------------------------- info
def info_line(sc: Scene) -> Text:
    facts, v = sc.facts, sc.view
    left = facts.seconds_left
    secs = None if left is None else int(left + 0.999)
    call = v.get("call") if v else None
    key = ("info", sc.look_key, facts.id, facts.title, facts.length, facts.game,
           facts.code_label, facts.seat, facts.deadline_seat, secs,
           tuple(s.label for s in facts.seats),
           None if v is None else (v.get("rounds"), v.get("round"), v.get("kind"),
                                   v.get("fixed_trump"), v.get("trump"),
                                   call and (call.get("n"), call.get("suit")),
                                   v.get("caller"), v.get("multiplier"),
                                   v.get("shown_card")))
    hit = sc.cache.section(key)
    if hit is None:
        hit = sc.cache.keep(key, _info_line(sc))
    return hit


def _info_line(sc: Scene) -> Text:
    facts, v, look = sc.facts, sc.view, sc.look
    bar = look.style("bold reverse") if not look.colour else "bold white on blue"
    t = Text(no_wrap=True, overflow="ellipsis", style=bar)
    t.append(f" #{facts.id} ")
    t.append(f"{facts.title}")
    if facts.length is not None and facts.game != "tarneeb41":
        t.append(f" {facts.length}")
    if v is None:
        t.append(" · waiting for players")
        if facts.code_label:
            t.append(f" · private, code {facts.code_label}")
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
                     f"{facts.name(v['caller'], you=False)}")
        if (v.get("multiplier") or 1) > 1:
            t.append(f" · ×{v['multiplier']}", style="bold")
        if v.get("shown_card"):
            t.append(f" · Shown {look.card_str(v['shown_card'])}")
    right = Text(" " * 6, style=bar)
    left = facts.seconds_left
    if left is not None:
        secs = int(left + 0.999)
        mine = facts.deadline_seat == facts.seat
        right = Text(f" {secs:>3}s ", style=bar)
        if mine and secs <= 10:
            right.stylize(look.style("bold red on white"))
    t.append(" " * max(0, W - 6 - t.cell_len))
    return join(fit(t, W - 6), right)


def note_line(sc: Scene) -> Text:
    """Row 1: where you landed, the seat you wait for, or the private code."""
    facts, look, state = sc.facts, sc.look, sc.state
    if state.notice and sc.now < state.notice_until:
        return fit(Text(" " + state.notice, style=look.style("bold")), W)
    if facts.request is not None:
        return fit(Text(" " + facts.request, style=look.style("bold")), W)
    if facts.code_label and sc.view is not None:
        return fit(Text(f" Private table · code {facts.code_label} · friends press j "
                        "in the lobby and type it", style=look.style("dim")), W)
    return Text("")


# --------------------------------------------------------------------- scores
SCORE_HEAD = f"  {'player':<19}{'bid':>4}{'won':>4}{'total':>7}"


def score_lines(sc: Scene) -> list[Text]:
    """Rows 2-6: the scores left, the latest events right.  Each row is keyed on
    its plain strings (built first, cheaply); its Text is built only when new."""
    facts, v, look = sc.facts, sc.view, sc.look
    tarneeb = facts.game == "tarneeb41"
    rows: list[tuple[bool, str]] = [(False, SCORE_HEAD)]
    pos = facts.positions()
    for s in [pos["bottom"], pos["right"], pos["top"], pos["left"]]:
        turn = bool(v and v.get("to_act") == s)
        name = facts.name(s)
        if facts.seats[s].away:
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
        rows.append((turn, f"{name[:14]:<14} {tags:<4}{decl:>4}{tricks:>4}{total:>7}"))
    side = side_lines(sc)
    out = []
    drawn = sc.cache.scores
    if len(drawn) > 64:
        drawn.clear()
    marker = look.style("bold yellow")
    for i in range(5):
        # the joined line is reused while its row and side text are unchanged
        key = (rows[i], side[i], marker)
        line = drawn.get(key)
        if line is None:
            turn, plain = rows[i]
            if i == 0:
                row = Text(plain, style="bold underline")
            else:
                row = Text(no_wrap=True)
                row.append("▶ " if turn else "  ", style=marker)
                row.append(plain)
            text, style = side[i]
            line = drawn[key] = join(fit(row, 36), Text("│ ", style="dim"),
                                     fit(Text(text, style=style), W - 38))
        out.append(line)
    return out


def side_lines(sc: Scene) -> list[tuple[str, str]]:
    """Right of the scores: Tarneeb teams, then the latest events (text, style)."""
    facts, v = sc.facts, sc.view
    out: list[tuple[str, str]] = []
    if v and v.get("team_totals"):
        a, b = v["team_totals"]
        teams = v.get("teams") or [[0, 2], [1, 3]]
        out.append((f"Teams  a {a}  ·  b {b}   ({facts.name(teams[0][0], False)[:8]}+"
                    f"{facts.name(teams[0][1], False)[:8]} vs …)", "bold"))
    rnd = v.get("round") if v else None
    evs = [text for r, text in facts.events if r is None or r == rnd]
    evs = evs[-(5 - len(out)):]
    cache = sc.cache
    for i, text in enumerate(evs):
        key = ("pretty", text, sc.look_key)
        shown = cache.section(key)
        if shown is None:
            shown = cache.keep(key, sc.pretty(text))
        out.append((shown, "bold" if i == len(evs) - 1 else "dim"))
    return out + [("", "")] * (5 - len(out))


# --------------------------------------------------------------------- middle
def middle_lines(sc: Scene) -> list[Text]:
    v, anim = sc.view, sc.state.anim
    if v is not None and (v.get("phase") == "over"
                          or (v.get("phase") != "play" and v.get("history")
                              and not v.get("tricks"))):
        return _middle_lines(sc)
    facts = sc.facts
    tricks = v.get("tricks") if v else None
    key = ("middle", sc.look_key, facts.seat, facts.seats,
           None if v is None else (
               v.get("phase"), v.get("leader"),
               tuple((c["seat"], c["card"]) for c in v.get("trick") or ()),
               tricks[-1]["winner"] if tricks else None),
           None if anim is None else (
               tuple((c["seat"], c["card"]) for c in anim.cards), anim.winner, anim.moved))
    hit = sc.cache.section(key)
    if hit is None:
        hit = sc.cache.keep(key, _middle_lines(sc))
    return list(hit)


def _middle_lines(sc: Scene) -> list[Text]:
    facts, v, look, anim = sc.facts, sc.view, sc.look, sc.state.anim
    cards: dict[int, Text] = {}
    note = Text("")
    pile: tuple[int, Text] | None = None
    if v is None:
        cards = {s: Text("empty" if facts.seats[s].kind == "empty" else " ✓ ", style="dim")
                 for s in range(4)}
        note = Text("Waiting for players · b: computer players fill the empty seats",
                    style="bold")
    elif v.get("phase") == "over":
        return ([Text(""), *result_lines(sc)] + [Text("")] * 6)[:6]
    elif v.get("phase") != "play" and v.get("history") and not v.get("tricks"):
        return (summary_lines(sc, v["history"][-1]) + [Text("")] * 6)[:6]
    else:
        trick = v.get("trick") or []
        if not trick and anim is not None:
            who = facts.name(anim.winner)
            if not anim.moved:
                for c in anim.cards:
                    cards[c["seat"]] = look.card(c["card"])
                note = Text(f"{who} takes the trick", style="bold")
            else:
                note = Text(f"{who} took the trick", style="bold")
                if not look.reduce_motion:
                    p = Text()
                    for c in anim.cards:
                        p.append_text(look.card(c["card"], dim=True))
                        p.append(" ")
                    pile = (anim.winner, p)
        elif not trick and v.get("tricks"):
            last = v["tricks"][-1]
            note = Text(f"{facts.name(last['winner'])} took the last trick", style="dim")
        for c in trick:
            cards[c["seat"]] = look.card(c["card"])
        if not note.plain and v.get("phase") == "play":
            lead = v.get("leader")
            if not trick and lead is not None:
                note = Text(f"{facts.name(lead)} leads", style="dim")
    pos = facts.positions()

    def slot(w: str) -> Text:
        s = pos[w]
        if pile is not None and pile[0] == s:
            return pile[1]
        return cards.get(s, Text(""))

    def name(w: str) -> Text:
        return Text(facts.name(pos[w], you=False)[:16], style="bold")

    mid = join(fit(name("left"), 18), fit(slot("left"), 13, right=True), " " * 18,
               fit(slot("right"), 13), fit(name("right"), 18, right=True))
    return [Text(""), center(name("top")), center(slot("top")), mid, center(slot("bottom")),
            center(note)]


def summary_lines(sc: Scene, rec: dict[str, Any]) -> list[Text]:
    facts, look = sc.facts, sc.look
    head = Text(f" Round {rec.get('round')} summary", style="bold underline")
    if rec.get("void"):
        head.append("  hand void (declarations under 11): redeal", style="bold")
        return [head]
    if (rec.get("multiplier") or 1) > 1:
        head.append(f"  ×{rec['multiplier']}", style="bold")
    if rec.get("over") is not None:
        head.append("  over" if rec["over"] else "  under", style="dim")
    if rec.get("saayda"):
        saayda = sc.term("saayda", "Sa'ayda")
        head.append(f"  {saayda}: all missed, next round ×2", style="bold")
    if rec.get("all_pass"):
        head.append("  all passed", style="dim")
    head.append("  (r: all rounds)", style="dim")
    decl = rec.get("declarations") or [None] * 4
    took = rec.get("tricks_taken") or [0] * 4
    scores = rec.get("scores") or [0] * 4
    bd = rec.get("breakdown") or [{}] * 4
    made = rec.get("made")
    totals = (sc.view or {}).get("totals") or [0] * 4
    used = [k for k in BONUS_KEYS if any(isinstance(b, dict) and b.get(k) for b in bd)]
    names = {k: (sc.term(k, BONUS_NAMES[k]) if k in ("with", "risk", "dash")
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
        t.append(f" {facts.name(s, you=False)[:14]:<14}{'' if decl[s] is None else decl[s]:>4}"
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


def result_lines(sc: Scene) -> list[Text]:
    facts, v = sc.facts, sc.view or {}
    res = v.get("result") or {}
    winners = res.get("winners") or []
    head = Text(" Match over: ", style="bold")
    if res.get("draw"):
        head.append("a draw between " + ", ".join(facts.name(w) for w in winners))
    elif winners:
        head.append(", ".join(facts.name(w) for w in winners) + " win" +
                    ("s" if len(winners) == 1 else ""))
    if v.get("left") is not None:
        head.append(f"  ({facts.name(v['left'])} left)", style="dim")
    lines = [head]
    totals = v.get("totals") or [0] * 4
    # Level points and badges (E-38 … E-40, Tarneeb 20/−4), as the store paid them.
    paid = facts.points or {}
    for s in sorted(range(4), key=lambda s: -totals[s]):
        mark = "★ " if s in winners else "  "
        line = Text(f" {mark}{facts.name(s):<20}{totals[s]:>6}",
                    style="bold" if s in winners else "")
        got = paid.get(s)
        if got and got.get("points"):
            line.append(f"   {got['points']:+d} level points")
        if got and got.get("badge"):
            line.append(f"   new badge: {got['badge']}", style="bold")
        lines.append(line)
    return lines


# ---------------------------------------------------------------------- phase
def phase_lines(sc: Scene) -> list[Text]:
    v, look, state = sc.view, sc.look, sc.state
    lines: list[Text] = [Text(""), Text(""), Text("")]
    mode = sc.keys.mode
    if v is None:
        lines[0] = Text(" Waiting for four players.", style="bold")
        lines[1] = Text(" b  fill the empty seats with computer players · q  leave", style="dim")
    elif v.get("phase") == "over":
        lines[0] = Text(" The match is over. r  score sheet · q  back to the lobby", style="bold")
    elif mode == "dash":
        lines[0] = Text(f" {sc.term('dash', 'Dash')} call? Promise to win no trick at all, "
                        "before the trump is known.", style="bold")
        lines[1] = Text("   y  take the dash call      n  play normally")
    elif mode in ("bid", "call"):
        lines = auction_lines(sc, mode)
    elif mode == "declare":
        lines = declare_lines(sc)
    elif mode == "play":
        # short: it comes and goes with every turn (bytes on every move)
        lines[0] = Text(" Your turn", style="bold")
        if state.rank:
            lines[1] = Text(f"   rank {look.rank(state.rank)} … now the suit: s h d c")
    else:
        lines = waiting_lines(sc)
    if state.message is not None and sc.now < state.message_until:
        lines[2] = state.message
    return [fit(line, W) for line in lines[:3]]


def auction_state(sc: Scene) -> Text:
    facts, v, look = sc.facts, sc.view or {}, sc.look
    a = v.get("auction") or {}
    t = Text(" ")
    bid = a.get("bid")
    if bid:
        t.append("Standing bid ")
        t.append_text(look.bid(bid.get("n"), bid.get("suit")))
        t.append(f" {facts.name(a.get('owner'))}")
    else:
        t.append("No bid yet")
    if a.get("with_players"):
        t.append(" · With " + ", ".join(facts.name(s) for s in a["with_players"]))
    if a.get("passed"):
        t.append(" · passed " + ", ".join(facts.name(s) for s in a["passed"]), style="dim")
    if a.get("dash_players"):
        t.append(" · dash " + ", ".join(facts.name(s) for s in a["dash_players"]))
    return t


def auction_lines(sc: Scene, kind: str) -> list[Text]:
    v, look, turn, state = sc.view or {}, sc.look, sc.turn, sc.state
    acts = turn.of(kind)
    row = Text(" Bid  " if kind == "bid" else " Call ", style="bold")
    for n, st in turn.number_cells(kind, state.sel_n):
        row.append(f" {n:>2} ", style={"sel": "reverse bold", "ok": "bold", "dim": "dim"}[st])
    suits = Text(" Suit ", style="bold")
    cells = turn.suit_cells(kind, state.sel_n, state.sel_suit)
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
        for s, st in cells:
            label = f" {look.suit(s)} "
            if st == "dim":
                suits.append(label, style="dim")
            elif st == "sel":
                suits.append(label, style=look.suit_style(s) + REVERSE)
            else:
                suits.append(label, style=look.suit_style(s))
        if locked:
            suits.append("  locked: raise to 8 or more to change the suit", style="dim")
    hint = Text(" ")
    if acts:
        hint.append("Enter", style="bold")
        hint.append(" bid " if kind == "bid" else " call ")
        hint.append_text(look.bid(state.sel_n, state.sel_suit))
        hint.append("  ")
    if turn.of("pass"):
        hint.append("p", style="bold")
        hint.append(" pass  ")
    if turn.of("with"):
        bid = (v.get("auction") or {}).get("bid") or {}
        hint.append("w", style="bold")
        hint.append(" With ")
        hint.append_text(look.bid(bid.get("n"), bid.get("suit")))
        hint.append("  ")
    hint.append_text(auction_state(sc))
    return [row, suits, hint]


def declare_lines(sc: Scene) -> list[Text]:
    v, state = sc.view or {}, sc.state
    row = Text(" Declare ", style="bold")
    styles = {"sel": "reverse bold", "ok": "bold", "dim": "dim", "forbidden": "dim strike"}
    for n, st in sc.turn.declare_cells(state.sel_n):
        row.append(f" {n:>2} ", style=styles[st])
    info = Text(" ")
    forbidden = v.get("forbidden")
    if forbidden is not None:
        info.append(f"{forbidden} is disabled: it would make the total 13 (you declare last). ",
                    style="bold")
    decl = v.get("declarations") or []
    total = sum(d for d in decl if d is not None)
    info.append(f"Declared so far: {total}", style="dim")
    hint = Text(" Enter", style="bold")
    hint.append(f" declare {state.sel_n}   digits choose (1 then 0–3 for 10–13)")
    return [row, hint, info]


def waiting_lines(sc: Scene) -> list[Text]:
    facts, v = sc.facts, sc.view or {}
    who = v.get("to_act")
    t0 = Text(" ")
    if who is not None and v.get("phase") != "play":
        t0.append(f"{facts.name(who)} is {ACTING_WORDS.get(v.get('phase') or '', 'to act')}…",
                  style="bold")
    if facts.seat is None:
        t0.append("   (you are watching)", style="dim")
    lines = [t0, Text(""), Text("")]
    if v.get("phase") in ("dash", "auction", "call"):
        lines[1] = auction_state(sc)
    elif v.get("phase") == "declare":
        decl = v.get("declarations") or []
        total = sum(d for d in decl if d is not None)
        lines[1] = Text(f" Declared so far: {total}", style="dim")
    return lines


# ----------------------------------------------------------------------- hand
def hand_rows(sc: Scene) -> tuple[list[Text], tuple[Hit, ...]]:
    """The hand's two rows and where each card is drawn (both rows of its columns)."""
    look, v, turn, cache = sc.look, sc.view, sc.turn, sc.cache
    playing = sc.keys.mode == "play"
    ok = turn.playable()
    sel = sc.state.sel_card
    key = (tuple(v.get("hand") or ()) if v else (),
           (v.get("trump") or v.get("fixed_trump")) if v else None,
           playing, frozenset(ok) if playing else None,
           sel if playing else None, look.unicode, look.colour)
    if cache.hand is not None and cache.hand[0] == key:
        return list(cache.hand[1]), cache.hand[2]
    up = Text(" " * HAND_X, no_wrap=True)
    down = Text(" " * HAND_X, no_wrap=True)
    hits: list[Hit] = []
    x = HAND_X
    prev_suit = None
    for c in turn.hand():
        gap = "  " if prev_suit is not None and c[1] != prev_suit else ""
        prev_suit = c[1]
        label = look.card_str(c).rjust(CARD_W)
        up.append(gap)
        down.append(gap)
        x += len(gap)
        hits.append(Hit(x, HAND_Y, CARD_W, 2, c))
        x += CARD_W
        # Legal cards stand raised on the upper row; on our turn the ones
        # that cannot be played drop to the lower row, dim.
        if not playing or c in ok:
            style = look.suit_style(c[1])
            if playing and c == sel:
                style = style + REVERSE
            up.append(label, style=style)
            down.append(" " * len(label))
        else:
            up.append(" " * len(label))
            down.append(label, style=look.suit_style(c[1], dim=True))
    cache.hand = (key, (up, down), tuple(hits))
    return [up, down], cache.hand[2]


# ----------------------------------------------------------------------- chat
def chat_lines(sc: Scene) -> list[Text]:
    out = []
    for who, text in sc.facts.chat[-2:]:
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(f" {who}: ", style=sc.look.style("bold cyan"))
        t.append(text)
        out.append(fit(t, W))
    return [*out, Text(""), Text("")][:2]


# --------------------------------------------------------------------- footer
def footer_line(sc: Scene) -> Text:
    """The keys that do something now (``table_keys``), each in a reversed box."""
    keys = footer(sc.keys)
    cache = sc.cache
    if cache.footer is not None and cache.footer[0] == keys:
        return cache.footer[1]
    t = Text(no_wrap=True, overflow="ellipsis")
    for k, label in keys:
        # the reversed key box separates entries; no extra gap (80 columns)
        t.append(f" {k} ", style="bold reverse")
        t.append(label)
    line = fit(t, W)
    cache.footer = (keys, line)
    return line
