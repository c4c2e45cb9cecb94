"""A round's review (engine/bots/review.py through engine/room/reviews.py): the seat's
decisions in order with their marks; ← → go through them, each shown with the table
as it was then (the hand, the trick, the bids and declarations) and both choices with
their expected points. Opened from the table (``v``, once a round has ended) and from
a replay (``v``: the round shown, ``tab`` another seat)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, getters
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen

from engine import replay
from engine.room import RoomError

from ..cards import RANKS, SUIT_ORDER
from ..i18n import N_
from ..widgets.lines import Block, KeyBar, Line, title_bar
from .words import block, lay, said_keys, too_small_text

if TYPE_CHECKING:
    from ..app import LammaApp

MARK_WORDS = {"inaccuracy": N_("inaccuracy"), "mistake": N_("mistake"),
              "blunder": N_("blunder")}
MARK_STYLE = {"inaccuracy": "yellow", "mistake": "bold yellow", "blunder": "bold red"}
LIST_ROWS = 7
Loader = Callable[[int], "asyncio.Future[dict[str, Any]]"]    # seat -> the review


W = 80


class ReviewScreen(Screen[None]):
    """A title line, the review as one text block, the too-small notice, the keys
    (the frame of the profile's screens)."""

    if TYPE_CHECKING:
        app = getters.app(LammaApp)

    AUTO_FOCUS = ""
    BINDINGS = [
        Binding("right", "step(1)", show=False, id="review.next"),
        Binding("left", "step(-1)", show=False, id="review.previous"),
        Binding("home", "jump(0)", show=False, id="review.first"),
        Binding("end", "jump(-1)", show=False, id="review.last"),
        Binding("tab", "seat", show=False, id="review.seat"),
        Binding("escape", "back", show=False, id="review.back"),
        Binding("q", "back", show=False, id="review.back_q"),
    ]
    KEYS = [("← →", N_("decision")), ("Home End", N_("first/last")), ("esc", N_("back"))]
    BLOCK_ID = "review-text"

    def __init__(self, record: dict[str, Any], round_no: int, seat: int, names: list[str],
                 loader: Loader, any_seat: bool = False) -> None:
        super().__init__()
        self.record = record
        self.round_no = round_no
        self.seat = seat
        self.names = names
        self.loader = loader
        self.any_seat = any_seat          # a finished match: every seat may be reviewed
        if any_seat:
            self.KEYS = [*self.KEYS[:2], ("tab", N_("seat")), self.KEYS[2]]
        self.review: dict[str, Any] | None = None
        self.error: str | None = None
        self.pos = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="body"):
            yield Line(id="record-title")
            yield Block(id=self.BLOCK_ID, classes="record-block")
        yield Line(id="too-small")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.fetch()
        self.draw()

    def draw(self) -> None:
        speech = self.app.speech
        self.query_one("#too-small", Line).set(too_small_text(speech, *self.app.size))
        self.query_one("#keys", KeyBar).show(said_keys(speech, self.KEYS), speech)
        self.paint()

    def set_title(self, title: str, right: str) -> None:
        speech = self.app.speech
        self.query_one("#record-title", Line).set(
            lay(speech, title_bar(speech._(title), right), self.width))

    def set_block(self, lines: list[Text]) -> None:
        self.query_one(f"#{self.BLOCK_ID}", Block).set(block(self.app.speech, lines, self.width))

    @property
    def width(self) -> int:
        """The columns the screen draws in: 80 at most, the window's under it (a phone:
        a right-to-left line is then laid out from the window's right edge)."""
        return max(40, min(W, self.app.size.width))

    def on_resize(self, event: events.Resize) -> None:
        if self.is_mounted:
            self.draw()

    def action_back(self) -> None:
        self.app.pop_screen()

    def fetch(self) -> None:
        self.review, self.error, self.pos = None, None, 0
        try:
            fut = self.loader(self.seat)
        except RoomError as exc:
            self.error = self.app.speech.error(exc)
            return
        fut.add_done_callback(self._got)

    def _got(self, fut: asyncio.Future[dict[str, Any]]) -> None:
        if fut.cancelled():
            return
        exc = fut.exception()
        if exc is not None:
            self.error = (self.app.speech.error(exc) if isinstance(exc, RoomError)
                          else self.app.speech._("The review could not be made."))
        else:
            self.review = fut.result()
        if self.is_mounted:
            self.draw()

    # ---------------------------------------------------------------- keys
    def action_step(self, delta: int) -> None:
        self.go(self.pos + delta)

    def action_jump(self, where: int) -> None:
        if self.review and self.review["decisions"]:
            self.go(where % len(self.review["decisions"]))

    def action_seat(self) -> None:
        if self.any_seat:
            self.seat = (self.seat + 1) % 4
            self.fetch()
            self.draw()

    def go(self, pos: int) -> None:
        if not self.review or not self.review["decisions"]:
            return
        pos = max(0, min(len(self.review["decisions"]) - 1, pos))
        if pos != self.pos:
            self.pos = pos
            self.draw()

    # ------------------------------------------------------------- drawing
    def action_words(self, action: dict[str, Any]) -> str:
        """An action in the player's words, without the player's name: its card or bid
        as the table shows it (``table_draw.move_words``)."""
        from .table_draw import move_words
        return move_words(self.app.speech, self.app.look, action)

    def paint(self) -> None:
        _ = self.app.speech._
        who = self.names[self.seat] if self.seat < len(self.names) else str(self.seat)
        self.set_title(N_("Review"), _("round {round}").format(round=self.round_no)
                       + " · " + who)
        if self.error is not None:
            self.set_block([Text(""), Text(" " + self.error, style="bold")])
            return
        if self.review is None:
            self.set_block([Text(""), Text(" " + _("Working out the review…"), style="dim")])
            return
        self.set_block(self.lines())

    def ev(self, x: float | None) -> str:
        return "—" if x is None else f"{x:+.1f}"

    def lines(self) -> list[Text]:
        _ = self.app.speech._
        rv = self.review
        assert rv is not None
        out: list[Text] = []
        worth, declared = rv.get("worth"), rv.get("declared")
        head = Text(" ")
        if worth is not None:
            head.append(_("The hand was worth {x} tricks").format(x=f"{worth:.1f}"),
                        style="bold")
            if declared is not None:
                head.append(" · " + _("declared {n}").format(n=declared))
        else:
            head.append(_("No card was played in this round."), style="dim")
        out.append(head)
        decs = rv["decisions"]
        marks = sum(1 for d in decs if d.get("mark"))
        out.append(Text(" " + _("{n} decisions, {m} marked").format(n=len(decs), m=marks),
                        style="dim"))
        out.append(Text(""))
        first = max(0, min(self.pos - LIST_ROWS // 2, len(decs) - LIST_ROWS))
        for i in range(first, min(len(decs), first + LIST_ROWS)):
            d = decs[i]
            row = Text(("▶ " if i == self.pos else "  ") + f"{i + 1:>2}. ",
                       style="bold" if i == self.pos else "")
            row.append(self.action_words(d["chosen"]))
            if d.get("forced"):
                row.append("  " + _("forced"), style="dim")
            elif d["suggested"] != d["chosen"]:
                row.append("  → " + self.action_words(d["suggested"]), style="cyan")
            if d.get("mark"):
                row.append("  " + _(MARK_WORDS[d["mark"]]), style=MARK_STYLE[d["mark"]])
            out.append(row)
        out.append(Text(""))
        if decs:
            out.extend(self.detail(decs[self.pos]))
        return out

    def detail(self, d: dict[str, Any]) -> list[Text]:
        """The table as it was at decision ``d``, and both choices."""
        _ = self.app.speech._
        look = self.app.look
        rec = self.record
        m = replay({**rec, "log": rec["log"][:d["index"]]})
        v = m.view(self.seat)
        out: list[Text] = []
        hand = Text(" " + _("Hand") + ": ", style="bold")
        by_suit: dict[str, list[str]] = {s: [] for s in SUIT_ORDER}
        for c in v["hand"]:
            by_suit.setdefault(c[1], []).append(c)
        for s in SUIT_ORDER:
            held = sorted(by_suit.get(s, []), key=lambda c: RANKS.index(c[0]))
            if not held:
                continue
            hand.append(look.suit(s), style=look.suit_style(s))
            hand.append("".join(look.rank(c[0]) for c in held) + " ")
        out.append(hand)
        if v["trick"]:
            trick = Text(" " + _("Trick") + ": ")
            for e in v["trick"]:
                trick.append(f"{self.names[e['seat']]} {look.card_str(e['card'])}  ")
            out.append(trick)
        decl = v.get("declarations") or []
        if any(x is not None for x in decl):
            said = "  ".join(f"{self.names[s]} {x}" for s, x in enumerate(decl) if x is not None)
            out.append(Text(" " + _("Declared") + ": " + said))
        auction: dict[str, Any] = dict(v.get("auction") or {})
        b = auction.get("bid")
        if v["phase"] == "auction" and b:
            owner = auction.get("owner")
            out.append(Text(" " + _("Bid so far") + ": " + self.action_words(
                {"type": "bid", "n": b["n"], "suit": b["suit"]})
                + (f" ({self.names[owner]})" if owner is not None else "")))
        chosen = Text(" " + _("You chose") + ": ", style="bold")
        chosen.append(self.action_words(d["chosen"]) + "  " + self.ev(d.get("ev_chosen")))
        out.append(chosen)
        if d.get("forced"):
            out.append(Text(" " + _("The only legal choice."), style="dim"))
            return out
        sug = Text(" " + _("Strong player") + ": ", style="bold cyan")
        sug.append(self.action_words(d["suggested"]) + "  " + self.ev(d.get("ev_suggested")))
        out.append(sug)
        lost = (d.get("ev_suggested") or 0.0) - (d.get("ev_chosen") or 0.0)
        note = Text(" " + _("expected points lost {x} (noise ±{s}, {n} deals)").format(
            x=f"{max(0.0, lost):.1f}", s=f"{d.get('noise', 0.0):.1f}", n=d.get("samples", 0)),
            style="dim")
        if d.get("mark"):
            note.append("  " + _(MARK_WORDS[d["mark"]]), style=MARK_STYLE[d["mark"]])
        out.append(note)
        return out
