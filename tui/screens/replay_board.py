"""A replay's board: one position of a finished match (the four hands, the trick in
the middle, the round's facts and its table), drawn for the wide layout (the table's
geometry, 80 columns) and for a phone (one column). The replay screen
(``replay.ReplayScreen``) goes through the positions and shows what this draws.

For Arabic the words are the player's and each line reads right to left (the board
keeps the table's geometry: seat 0 at the bottom, 1 at the right …)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypedDict

from rich.text import Text

from engine import Match, RoundRecord, TrickView
from engine.catalogue import terms

from ..cards import RANKS, SUIT_ORDER, Look
from ..i18n import N_, Speech
from .table_draw import rtl_fit, summary_title, wrap
from .words import pad

W = 80
SIDE = 26          # width of the left and right columns of the board
MID = W - 2 * SIDE  # the middle column (north, the trick, south)
BONUS_KEYS = ["caller", "with", "sole", "risk", "dash", "super"]
# The words of a round's breakdown (``scoring``'s keys), said in the player's language.
BONUS_WORDS = {"base": N_("base"), "caller": N_("caller"), "with": N_("with"),
               "sole": N_("sole"), "risk": N_("risk"), "dash": N_("dash"),
               "super": N_("super")}
KIND_WORDS = {"auction": N_("auction round"), "fast": N_("fast round"),
              "fixed": N_("fixed round")}
TRUMP = "trump"      # said in the game's own context (marked: engine.catalogue.GAME_WORDS)
# A left-to-right embedding: a signed number inside Arabic words kept whole ("-10",
# not "10-") when the server orders the line (``Speech.show`` drops the marks after).
LRE, PDF = "\u202a", "\u202c"


def kind_words(speech: Speech, kind: str) -> str:
    if kind == "hand":                       # Tarneeb's: a deal
        return speech.pgettext("tarneeb", "hand")
    return speech._(KIND_WORDS[kind]) if kind in KIND_WORDS else kind



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

class ReplayRound(TypedDict):
    """A finished round as the replay goes through it."""
    rec: RoundRecord
    hands: list[list[str]] | None   # each seat's thirteen cards as dealt (None: void)
    tricks: list[TrickView]
    before: list[int]               # the totals before the round


def replay_rounds(match: Match) -> list[ReplayRound]:
    """One entry per finished round (voided Tarneeb hands too): the record, each
    seat's thirteen cards as dealt, and the totals before the round."""
    rounds: list[ReplayRound] = []
    totals = [0, 0, 0, 0]
    for rec in match.history:
        hands: list[list[str]] | None = None
        tricks: list[TrickView] = []
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

    def __init__(self, match: Match, names: list[str]):
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


def said(speech: Speech, text: Text, width: int) -> Text:
    """A line (or a part of one ``width`` cells wide) laid out for the language:
    as it is in English; right-aligned and mirrored for Arabic."""
    return speech.line(text, width) if speech.rtl else text


def laid(speech: Speech, text: Text, width: int) -> Text:
    """``said`` to exactly ``width`` cells: a line too long loses its end in reading
    order (in Arabic its left once mirrored: the start of the line is kept)."""
    if not speech.rtl:
        return fit(text, width)
    return rtl_fit(speech, text, width)


class ReplayBoard:
    """One position of ``shown`` (a loaded match) drawn in ``speech``'s words with
    ``look``'s cards; ``game`` says which words are the game's own."""

    def __init__(self, speech: Speech, look: Look, shown: ReplayModel, game: str) -> None:
        self.speech = speech
        self.look = look
        self.shown = shown
        self.game = game

    def say(self, text: Text, width: int) -> Text:
        return said(self.speech, text, width)

    def laid(self, text: Text, width: int) -> Text:
        return laid(self.speech, text, width)

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

    def compact_board(self, r: int, k: int, width: int) -> list[Text]:
        """The board in the compact layout, one column: the round's facts, the trick
        (its cards in order, who led and who won it), each player's cards (the trick's
        reversed) by suit, then the round's table. ↑↓ scroll it."""
        rd = self.shown.rounds[r]
        rec = rd["rec"]
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
                hand = self.seat_lines(r, k, seat, width - 2)
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

    def round_at(self, r: int) -> tuple[ReplayRound, RoundRecord, Sequence[int | None]]:
        """Round ``r`` as the round panels read it: its entry (``replay_rounds``), its
        record, and what each seat declared (None: nothing)."""
        rd = self.shown.rounds[r]
        rec = rd["rec"]
        return rd, rec, rec.get("declarations") or [None] * 4

    def round_panel_narrow(self, r: int, k: int, width: int) -> list[Text]:
        """The round's table for a phone (issue 44: nothing cut): the columns the width
        holds (the name's narrower); at the round's end a player's figures on one line
        and their points' breakdown under it, wrapped at its words."""
        speech = self.speech
        _ = speech._
        model = self.shown
        rd, rec, decl = self.round_at(r)
        names = model.names
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
        head = self.summary_head(rec)
        out = [self.laid(part, width) for part in wrap(Text(head, style="bold underline"),
                                                       width - 1)]
        scores = rec.get("scores") or [0] * 4
        totals = rec.get("totals") or [0] * 4
        for s in range(4):
            out.append(row([(names[s] if speech.rtl else self.seat_name(s), nw),
                            (f"{'' if decl[s] is None else decl[s]}/{taken[s]}", 6),
                            (f"{scores[s]:+d}", 6),
                            (_("total {n}").format(n=totals[s]), 13)]))
            parts = self.breakdown(rec, s, lambda n: f"\u00a0{n:+d}")
            if parts:
                # each word with its number held together (a no-break space)
                said = Text("   " + "  ".join(parts), style="dim")
                out += [self.laid(Text(part.plain.replace("\u00a0", " "), style="dim"),
                                  width) for part in wrap(said, width - 1, "   ")]
        return out

    def summary_head(self, rec: RoundRecord) -> str:
        """The head of a round's summary in the player's words: the round, over or
        under, and Sa'ayda where all four missed."""
        _ = self.speech._
        head = " " + summary_title(self.speech, self.game, rec.get("round"))
        if rec.get("over") is not None:
            head += "  " + (_("over") if rec["over"] else _("under"))
        if rec.get("saayda"):
            head += "  " + _("Sa'ayda: nobody scores, next round counts double")
        return head

    def breakdown(self, rec: RoundRecord, s: int, number: Callable[[int], str]) -> list[str]:
        """Seat ``s``'s points of the round in the player's words: each part (base,
        caller's bonus …) with its number as ``number`` writes it, then made or failed."""
        speech = self.speech
        _ = speech._
        bd = rec.get("breakdown") or [{}] * 4
        b = bd[s] if s < len(bd) and isinstance(bd[s], dict) else {}
        parts = []
        if "base" in b:
            parts.append(_(BONUS_WORDS["base"]) + number(b["base"]))
        for key in BONUS_KEYS:
            if b.get(key):
                word = (speech.pgettext("bonus", "caller") if key == "caller"
                        else _(BONUS_WORDS[key]))
                parts.append(word + number(b[key]))
        made = rec.get("made")
        if made is not None:
            parts.append(_("made") if made[s] else _("failed"))
        return parts

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

    def seat_lines(self, r: int, k: int, seat: int, width: int) -> list[Text]:
        """A seat at position (``r``, ``k``): its name (dealer, caller, declared/taken),
        then its cards by suit, the trick's reversed (``hand_lines``)."""
        _rd, rec, decl = self.round_at(r)
        hands, now = self.shown.hands_at(r, k)
        return self.hand_lines(seat, hands[seat], now, rec.get("trump"), width, decl[seat],
                               self.shown.taken_at(r, k)[seat], rec.get("dealer"),
                               rec.get("caller"))

    def board(self, r: int, k: int) -> Text:
        rd = self.shown.rounds[r]
        rec = rd["rec"]

        def block(seat, width):
            return self.seat_lines(r, k, seat, width)

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

    def round_info(self, rec: RoundRecord) -> list[Text]:
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
            t.append(" · " + speech.pgettext(terms(self.game).context, TRUMP) + " ")
            t.append_text(Text(look.suit(rec.get("trump")), style=look.suit_style(rec.get("trump"))))
            lines.append(t)
        else:
            if rec.get("all_pass"):
                lines.append(Text(" " + _("all passed"), style="bold"))
            elif call := rec.get("call"):
                t = Text(" " + _("call") + " ")
                n, suit = call["n"], call["suit"]
                if speech.rtl:              # one run: a bid is read left to right
                    t.append(look.bid_str(n, suit), style=look.suit_style(suit))
                else:
                    t.append_text(look.bid(n, suit))
                if (caller := rec.get("caller")) is not None:
                    t.append(" " + _("by {name}").format(name=self.seat_name(caller)))
                lines.append(t)
            t = Text(" " + speech.pgettext(terms(self.game).context, TRUMP) + " ")
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

    def trick_lines(self, rd: ReplayRound, k: int) -> dict[str, list[Text]]:
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
        rd, rec, decl = self.round_at(r)
        names = [self.seat_name(s) for s in range(4)]
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
        t.append(self.summary_head(rec), style="bold underline")
        scores = rec.get("scores") or [0] * 4
        totals = rec.get("totals") or [0] * 4
        for s in range(4):
            t.append("\n")
            t.append(f" {names[s][:15]:<16}{'' if decl[s] is None else decl[s]:>2}/{taken[s]:<2}")
            parts = self.breakdown(rec, s, lambda n: f" {n:+d}")
            t.append("  " + " ".join(parts)[:36].ljust(36), style="dim")
            t.append(f" = {scores[s]:+d}".ljust(8), style="bold")
            t.append(f" total {totals[s]}")
        return t

    def round_panel_rtl(self, r: int, k: int) -> Text:
        """``round_panel`` for a right-to-left language: the same columns, mirrored."""
        speech = self.speech
        _ = speech._
        model = self.shown
        rd, rec, decl = self.round_at(r)
        names = model.names
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
        head = self.summary_head(rec)
        t.append_text(speech.line(Text(head, style="bold underline"), W))
        scores = rec.get("scores") or [0] * 4
        totals = rec.get("totals") or [0] * 4
        for s in range(4):
            parts = self.breakdown(rec, s, lambda n: " " + self.signed(n))
            t.append("\n")
            t.append_text(cells_line(speech, [
                (names[s], 16), (f"{'' if decl[s] is None else decl[s]}/{taken[s]}", 6),
                (" ".join(parts), 36), (f"= {scores[s]:+d}", 8),
                (_("total {n}").format(n=self.signed(totals[s], plus=False)), 13)]))
        return t
