"""A round's review (engine/bots/review.py through engine/room/reviews.py): the seat's
decisions in order with their marks; ← → go through them, each shown with the table
as it was then (the hand, the trick, the bids and declarations) and both choices with
their expected points. Opened from the table (``v``, once a round has ended) and from
a replay (``v``: the round shown, ``tab`` another seat).

Laid out for the window as the profile's screens are (the frame of
``record.RecordScreen``): 80 columns at most; under 80×24 the compact layout, which
fills the window.
Every line too long for it goes on under itself (nothing is cut), the decision shown
is always whole, and the list of decisions around it has the rows that are left."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual.binding import Binding

from engine import Action, MatchRecord, replay
from engine.catalogue import terms
from engine.room import RoomError

from ..cards import RANKS, SUIT_ORDER
from ..host import host
from ..i18n import N_
from .frame import steps
from .record import RecordScreen

if TYPE_CHECKING:
    from engine.bots.review import ReviewedDecision, RoundReview

MARK_WORDS = {"inaccuracy": N_("inaccuracy"), "mistake": N_("mistake"),
              "blunder": N_("blunder")}
MARK_STYLE = {"inaccuracy": "yellow", "mistake": "bold yellow", "blunder": "bold red"}
Loader = Callable[[int], "asyncio.Future[RoundReview]"]    # seat -> the review


class ReviewScreen(RecordScreen):
    """A title line, the review as one text block, the too-small notice, the keys
    (the record screens' frame)."""

    BINDINGS = [
        *steps("review"),
        Binding("tab", "seat", show=False, id="review.seat"),
    ]
    KEYS = [("← →", N_("decision")), ("Home End", N_("first/last")), ("esc", N_("back"))]
    BLOCK_ID = "review-text"

    def __init__(self, record: MatchRecord, round_no: int, seat: int, names: list[str],
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
        self.review: RoundReview | None = None
        self.error: str | None = None
        self.pos = 0

    def on_mount(self) -> None:
        self.fetch()                # then the frame's on_mount draws

    def fetch(self) -> None:
        self.review, self.error, self.pos = None, None, 0
        try:
            fut = self.loader(self.seat)
        except RoomError as exc:
            self.error = host(self).speech.error(exc)
            return
        fut.add_done_callback(self._got)

    def _got(self, fut: asyncio.Future[RoundReview]) -> None:
        if fut.cancelled():
            return
        exc = fut.exception()
        if exc is not None:
            self.error = (host(self).speech.error(exc) if isinstance(exc, RoomError)
                          else host(self).speech._("The review could not be made."))
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
    def action_words(self, action: Action) -> str:
        """An action in the player's words, without the player's name: its card or bid
        as the table shows it (``table_draw.move_words``)."""
        from .table_draw import move_words
        return move_words(host(self).speech, host(self).look, action)

    def paint(self) -> None:
        _ = host(self).speech._
        who = self.names[self.seat] if self.seat < len(self.names) else str(self.seat)
        word = _("hand {round}") if terms(self.record["game"]).hands else _("round {round}")
        self.set_title(N_("Review"), word.format(round=self.round_no) + " · " + who)
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
        """The head, the decisions around the one shown (as many as the rows left hold)
        and that one's table and choices; blank lines between them where there is room."""
        _ = host(self).speech._
        rv = self.review
        assert rv is not None
        worth, declared = rv.get("worth"), rv.get("declared")
        head = Text(" ")
        if worth is not None:
            head.append(_("The hand was worth {x} tricks").format(x=f"{worth:.1f}"),
                        style="bold")
            if declared is not None:
                head.append(" · " + _("declared {n}").format(n=declared))
        else:
            head.append(_("No card was played in this round."), style="dim")
        decs = rv["decisions"]
        marks = sum(1 for d in decs if d.get("mark"))
        top = self.fold([head, Text(" " + _("{n} decisions, {m} marked").format(
            n=len(decs), m=marks), style="dim")])
        if not decs:
            return top
        detail = self.fold(self.detail(decs[self.pos]))
        rows = self.block_rows
        room = rows - len(top) - len(detail) - 2
        gap = [Text("")]
        if room < min(3, len(decs)):        # a small window: no blank lines
            room, gap = room + 2, []
        listed = self.listed(decs, max(1, room))
        return [*top, *gap, *listed, *gap, *detail]

    def listed(self, decs: list[ReviewedDecision], room: int) -> list[Text]:
        """The rows of the decisions around the one shown, within ``room`` lines (a
        decision's row may take two on a narrow window)."""
        rows = {i: self.fold([self.row(i, decs[i])]) for i in range(len(decs))}
        first = last = self.pos
        used = len(rows[self.pos])
        grew = True
        while grew:
            grew = False
            # below first (the next decisions), then above, as a centred list does
            for i in ((last + 1, first - 1) if self.pos - first >= last - self.pos
                      else (first - 1, last + 1)):
                if 0 <= i < len(decs) and used + len(rows[i]) <= room:
                    used += len(rows[i])
                    first, last = min(first, i), max(last, i)
                    grew = True
        return [part for i in range(first, last + 1) for part in rows[i]]

    def row(self, i: int, d: ReviewedDecision) -> Text:
        """Decision ``i`` in the list: its number, the choice, the strong player's where
        it differs, its mark. In Arabic the marker and the arrow point the other way,
        and the number is a run of its own (it stays at the row's start, the right)."""
        speech = host(self).speech
        _ = speech._
        rtl = speech.rtl
        now = i == self.pos
        row = Text()
        row.append(("◀ " if rtl else "▶ ") if now else "  ", style="bold")
        row.append(f"{i + 1:>2}" if rtl else f"{i + 1:>2}.", style="bold" if now else "dim")
        row.append("  " if rtl else " ")
        row.append(self.action_words(d["chosen"]))
        if d.get("forced"):
            row.append("  " + _("forced"), style="dim")
        elif d["suggested"] != d["chosen"]:
            # The strong player's other choice in cyan where the chosen one lost points
            # against it, dim where the rollouts rate the chosen one as well or better
            # (a bid's suggestion is the strong player's own: it need not score more).
            style = "cyan" if self.points_lost(d) > 0 else "dim"
            if rtl:
                # the arrow a run of its own, so that it stays between the two choices
                # and points on in reading order (a card's run kept it at the card's far
                # side)
                row.append("  ")
                row.append("←", style="bold " + style)
                row.append(" " + self.action_words(d["suggested"]), style=style)
            else:
                row.append("  → " + self.action_words(d["suggested"]), style=style)
        if d.get("mark"):
            row.append("  " + _(MARK_WORDS[d["mark"]]), style=MARK_STYLE[d["mark"]])
        return row

    @staticmethod
    def points_lost(d: ReviewedDecision) -> float:
        """The expected points the chosen action lost against the strong player's (below
        zero where the rollouts rate the chosen one higher)."""
        return (d.get("ev_suggested") or 0.0) - (d.get("ev_chosen") or 0.0)

    def detail(self, d: ReviewedDecision) -> list[Text]:
        """The table as it was at decision ``d``, and both choices."""
        from .table_draw import pretty
        _ = host(self).speech._
        look = host(self).look
        rec = self.record
        m = replay({**rec, "log": rec["log"][:d["index"]]})
        v = m.view(self.seat)
        out: list[Text] = []
        hand = Text(" " + _("Hand") + ":", style="bold")
        by_suit: dict[str, list[str]] = {s: [] for s in SUIT_ORDER}
        for c in v["hand"]:
            by_suit.setdefault(c[1], []).append(c)
        for s in SUIT_ORDER:
            held = sorted(by_suit.get(s, []), key=lambda c: RANKS.index(c[0]))
            if held:
                # A suit's cards one run (it stays left to right in an Arabic line).
                hand.append(" ")
                hand.append(look.suit(s) + "".join(look.rank(c[0]) for c in held),
                            style=look.suit_style(s))
        out.append(hand)
        if v["trick"]:
            trick = Text(" " + _("Trick") + ":")
            for e in v["trick"]:
                trick.append(("  " if trick.plain[-1] != ":" else " ")
                             + f"{self.names[e['seat']]} ")
                trick.append(look.card_str(e["card"]), style=look.suit_style(e["card"][1]))
            out.append(trick)
        decl = v.get("declarations") or []
        if any(x is not None for x in decl):
            said = Text(" " + _("Declared") + ":")
            for who, x in enumerate(decl):
                if x is not None:       # each name and number a run (Arabic: in order)
                    said.append(("  " if said.plain[-1] != ":" else " ")
                                + f"{self.names[who]} ")
                    said.append(str(x), style="bold")
            out.append(said)
        auction = v.get("auction")
        b = auction.get("bid") if auction else None
        if v["phase"] == "auction" and auction and b:
            owner = auction.get("owner")
            out.append(Text(" " + _("Bid so far") + ": "
                            + pretty(look, f"{b['n']}{b['suit']}")
                            + (f" ({self.names[owner]})" if owner is not None else "")))
        chosen = Text(" " + _("You chose") + ": ", style="bold")
        chosen.append(self.action_words(d["chosen"]) + "  ")
        chosen.append(self.ev(d.get("ev_chosen")), style="bold")
        out.append(chosen)
        if d.get("forced"):
            out.append(Text(" " + _("The only legal choice."), style="dim"))
            return out
        sug = Text(" " + _("Strong player") + ": ", style="bold cyan")
        sug.append(self.action_words(d["suggested"]) + "  ")
        sug.append(self.ev(d.get("ev_suggested")), style="bold cyan")
        out.append(sug)
        lost = self.points_lost(d)
        note = Text(" " + _("expected points lost {x} (noise ±{s}, {n} deals)").format(
            x=f"{max(0.0, lost):.1f}", s=f"{d.get('noise', 0.0):.1f}", n=d.get("samples", 0)),
            style="dim")
        if d.get("mark"):
            note.append("  " + _(MARK_WORDS[d["mark"]]), style=MARK_STYLE[d["mark"]])
        out.append(note)
        return out
