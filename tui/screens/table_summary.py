"""A round's summary (with every bonus), an event's board head and the match's result, as
the standard and the compact layouts show them.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text

from engine.catalogue import terms
from engine.duplicate import result_of, scored_round
from engine.types import Result, RoundRecord

from ..i18n import Speech
from .table_scene import Scene, said_lines
from .table_state import Empty, MaybeView
from .table_text import Cell, Shown, W, cells_row, fit, join, right_align, units, wrap

BONUS_KEYS = ["caller", "with", "sole", "risk", "dash", "super"]
BONUS_NAMES = {"caller": "caller", "with": "With", "sole": "sole", "risk": "risk",
               "dash": "dash", "super": "super"}


def summary_title(speech: Speech, game: str, n: object) -> str:
    """A round's summary's title: Tarneeb's rounds are hands (its info bar's word)."""
    if terms(game).hands:
        return speech._("Hand {n} summary").format(n=n)
    return speech._("Round {n} summary").format(n=n)


Figures = tuple[list[Any], list[int], list[int], list[Any], list[bool] | None, list[int]]


def round_figures(sc: Scene, rec: RoundRecord) -> Figures:
    """A round's record by seat: declarations, tricks taken, scores, their breakdowns,
    made or not, and the match's totals now."""
    return (rec.get("declarations") or [None] * 4, rec.get("tricks_taken") or [0] * 4,
            rec.get("scores") or [0] * 4, rec.get("breakdown") or [{}] * 4, rec.get("made"),
            sc.view["totals"] if sc.view else [0] * 4)


def round_labels(sc: Scene, rec: RoundRecord) -> list[str]:
    """Who played the round in each seat: its holder now, or whoever held the seat then
    (a computer player whose seat a person has taken since, or the reverse)."""
    n = rec.get("round")
    out = []
    for s in range(4):
        seat = sc.facts.seats[s]
        then = next((label for r, label in seat.before if isinstance(n, int) and n < r), None)
        out.append(sc.seat_label(s) if then is None else then)
    return out


def summary_head(sc: Scene, rec: RoundRecord, apart: bool) -> tuple[Text, bool]:
    """A round summary's head (its title, the multiplier, over or under, a Sa'ayda, all
    passed), and whether the round was void (then the head is all there is). ``apart``:
    "×2" a run of its own after the gap (kept whole, left to right, where the line is
    laid out whole), else one run with it."""
    _ = sc._
    head = Text(" " + summary_title(sc.speech, sc.facts.game, rec.get("round")),
                style="bold underline")
    if rec.get("void"):
        head.append("  " + _("hand void (declarations under 11): redeal"), style="bold")
        return head, True
    if (rec.get("multiplier") or 1) > 1:
        if apart:
            head.append("  ")
            head.append(f"×{rec['multiplier']}", style="bold")
        else:
            head.append(f"  ×{rec['multiplier']}", style="bold")
    if rec.get("over") is not None:
        head.append("  " + (_("over") if rec["over"] else _("under")), style="dim")
    if rec.get("saayda"):
        saayda = sc.term("saayda", "Sa'ayda")
        head.append("  " + _("{saayda}: all missed, next round ×2").format(saayda=saayda),
                    style="bold")
    if rec.get("all_pass"):
        head.append("  " + _("all passed"), style="dim")
    return head, False


def summary_lines(sc: Scene, rec: RoundRecord) -> list[Text]:
    look, _ = sc.look, sc._
    head, void = summary_head(sc, rec, apart=sc.rtl)
    if void:
        return [sc.line(head) if sc.rtl else head]
    hint = "  " + (_("(r: all hands)") if sc.terms.hands else _("(r: all rounds)"))
    if head.cell_len + cell_len(hint) <= W:     # a Sa'ayda round's line has no room
        head.append(hint, style="dim")
    decl, took, scores, bd, made, totals = round_figures(sc, rec)
    labels = round_labels(sc, rec)
    used = [k for k in BONUS_KEYS if any(isinstance(b, dict) and b.get(k) for b in bd)]
    if sc.rtl:
        return [sc.line(head), *summary_table(sc, used, decl, took, scores, bd, made, totals,
                                              labels)]
    names = {k: (sc.term(k, BONUS_NAMES[k]) if k in ("with", "risk", "dash")
                 else BONUS_NAMES[k]) for k in used}
    widths = {k: max(cell_len(names[k]), 4) + 1 for k in used}
    # Every column whole, the total last of all: a round with many bonuses (caller,
    # With, sole, risk) said its terms in both languages and cut the totals to
    # "tota" / "-1" at 80 columns. Then the terms in English alone, then a shorter name.
    fixed = 1 + 14 + 4 + 4 + 6 + (8 if made is not None else 0) + 6 + 7
    if fixed + sum(widths.values()) > W:
        names = {k: BONUS_NAMES[k] for k in used}
        widths = {k: max(len(names[k]), 4) + 1 for k in used}
    nw = max(6, 14 - max(0, fixed + sum(widths.values()) - W))
    hdr = Text(f" {'player':<{nw}}{'bid':>4}{'won':>4}{'base':>6}", style="bold")
    for k in used:
        hdr.append(names[k].rjust(widths[k]))
    if made is not None:
        hdr.append("  result")
    hdr.append(f"{'pts':>6}{'total':>7}")
    lines = [head, hdr]
    for s in range(4):
        b = bd[s] if s < len(bd) and isinstance(bd[s], dict) else {}
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(f" {sc.say(labels[s][:nw]):<{nw}}{'' if decl[s] is None else decl[s]:>4}"
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


def summary_table(sc: Scene, used: list[str], decl: list[Any], took: list[int],
                  scores: list[int], bd: list[Any], made: list[bool] | None,
                  totals: list[int], labels: list[str]) -> list[Text]:
    """The round summary's table for an Arabic interface: its columns mirrored."""
    sp, look = sc.speech, sc.look
    names = {k: (sc.term(k, BONUS_NAMES[k]) if k in ("with", "risk", "dash")
                 else sp.pgettext("column", BONUS_NAMES[k])) for k in used}
    widths = {k: max(cell_len(sp.show(names[k])), 4) + 1 for k in used}
    hdr = [Cell("", 1), Cell(sp.pgettext("column", "player"), 14), Cell(sp.pgettext("column", "bid"), 4, True),
           Cell(sp.pgettext("column", "won"), 4, True), Cell(sp.pgettext("column", "base"), 6, True)]
    hdr += [Cell(names[k], widths[k], True) for k in used]
    if made is not None:
        hdr.append(Cell(sp.pgettext("column", "result"), 8, True))
    hdr += [Cell(sp.pgettext("column", "pts"), 6, True), Cell(sp.pgettext("column", "total"), 7, True)]
    lines = [right_align(sp, cells_row(sp, hdr, style="bold"), W)]
    for s in range(4):
        b = bd[s] if s < len(bd) and isinstance(bd[s], dict) else {}
        row = [Cell("", 1), Cell(labels[s][:14], 14),
               Cell("" if decl[s] is None else str(decl[s]), 4, True),
               Cell(str(took[s]), 4, True),
               Cell(f"{b.get('base', 0):+d}" if "base" in b else "", 6, True)]
        for k in used:
            val = b.get(k)
            row.append(Cell(f"{val:+d}" if val else "·", widths[k], True,
                            "" if val else "dim"))
        if made is not None:
            row.append(Cell(sc._("made") if made[s] else sc._("failed"), 8, True,
                            look.style("green") if made[s] else look.style("red")))
        row += [Cell(f"{scores[s]:+d}", 6, True, "bold"), Cell(str(totals[s]), 7, True)]
        lines.append(right_align(sp, cells_row(sp, row), W))
    return lines[:5]


def board_head(sc: Scene) -> tuple[Text, RoundRecord] | None:
    """An event's board over: the entrant's score (the side's beside it in Tarneeb 41)
    as a sentence not yet laid out, and the round's record its summary shows."""
    facts, _ = sc.facts, sc._
    v: MaybeView = sc.view or {}
    seat = facts.seat if facts.seat is not None else 0
    history = v.get("history") or []
    try:
        mine = result_of(history, seat)
        rec = scored_round(history)
    except (ValueError, KeyError, IndexError):
        return None
    assert facts.board is not None
    head = Text(" " + _("Board {n} over: your score {score}").format(
        n=facts.board[1], score=f"{mine.score:+d}"), style="bold")
    if mine.side is not None:
        head.append("  " + _("(your side {side})").format(side=f"{mine.side:+d}"))
    return head, rec


def board_lines(sc: Scene) -> list[Text]:
    """An event's board over: its head, then the round as its summary shows it."""
    got = board_head(sc)
    if got is None:
        return []
    head, rec = got
    return [sc.line(head) if sc.rtl else head, *summary_lines(sc, rec)[1:]]


def result_head(sc: Scene) -> Text:
    """The match's end in a sentence (not yet laid out): who won, or the draw, and who
    left."""
    v: MaybeView = sc.view or {}
    _ = sc._
    res: Result | Empty = v.get("result") or {}
    winners = res.get("winners") or []
    comma = sc.speech.pgettext("list", ", ")
    head = Text(" " + _("Match over:") + " ", style="bold")
    if res.get("draw"):
        head.append(_("a draw between {names}").format(
            names=comma.join(sc.name(w) for w in winners)))
    elif winners:
        head.append(sc.speech.ngettext("{names} wins", "{names} win", len(winners)).format(
            names=comma.join(sc.name(w) for w in winners)))
    if v.get("left") is not None:
        head.append("  " + _("({who} left)").format(who=sc.name(v["left"])), style="dim")
    return head


def paid_words(sc: Scene, seat: int) -> tuple[str | None, str | None]:
    """What the match paid ``seat``, as the store paid it (E-38 … E-40, Tarneeb 20/−4):
    its level points and its new badge, in words (None: nothing)."""
    _ = sc._
    got = (sc.facts.points or {}).get(seat)
    points = _("{points} level points").format(points=f"{got['points']:+d}") \
        if got and got.get("points") else None
    badge = _("new badge: {badge}").format(badge=_(got["badge"])) \
        if got and got.get("badge") else None
    return points, badge


def result_lines(sc: Scene) -> list[Text]:
    facts = sc.facts
    v: MaybeView = sc.view or {}
    res: Result | Empty = v.get("result") or {}
    winners = res.get("winners") or []
    head = result_head(sc)
    lines = [sc.line(head) if sc.rtl else head]
    totals = v.get("totals") or [0] * 4
    for s in sorted(range(4), key=lambda s: -totals[s]):
        points, badge = paid_words(sc, s)
        style = "bold" if s in winners else ""
        if sc.rtl:
            row = cells_row(sc.speech, [Cell("", 1), Cell("★" if s in winners else "", 2),
                                        Cell(facts.seats[s].label + (
                                            sc.you if s == facts.seat else ""), 20),
                                        Cell(str(totals[s]), 6, True)], style=style)
            parts: list[Text | Shown] = [Shown(row)]
            if points:
                parts.append(Text("   " + points, style=style))
            if badge:
                parts.append(Text("   " + badge, style="bold"))
            lines.append(units(sc.speech, parts, W))
            continue
        mark = "★ " if s in winners else "  "
        line = Text(f" {mark}{sc.name(s):<20}{totals[s]:>6}", style=style)
        if points:
            line.append("   " + points)
        if badge:
            line.append("   " + badge, style="bold")
        lines.append(line)
    return lines


def column_heads(sc: Scene, cells: list[Cell], cw: int, style: str) -> Text:
    """The compact summary's column heads in ``cw`` columns (mirrored in Arabic)."""
    if sc.rtl:
        return right_align(sc.speech, cells_row(sc.speech, [Cell("", 1), *cells],
                                                style=style), cw)
    return fit(Text(" " + "".join(c.text.rjust(c.width) if c.right
                                  else c.text.ljust(c.width) for c in cells),
                    style=style), cw)


def summary_rows(sc: Scene, cw: int, room: int, rec: RoundRecord) -> list[Text]:
    """The last round's summary: its head, then a line a player (declared/taken, the
    points and every bonus, the new total), two where a line does not hold it and the
    rows allow; with fewer rows, the round's points in a sentence (``e``: all of it)."""
    _ = sc._
    head, void = summary_head(sc, rec, apart=True)
    if void:
        return said_lines(sc, head, cw, room)
    heads = said_lines(sc, head, cw, 2)
    decl, took, scores, bd, made, totals = round_figures(sc, rec)
    labels = round_labels(sc, rec)
    nw = max(6, min(14, cw - 32))
    players = []
    for s in range(4):
        b = bd[s] if s < len(bd) and isinstance(bd[s], dict) else {}
        items: list[tuple[str, int | None]] = []
        if "base" in b:
            items.append((sc.speech.pgettext("column", "base"), b["base"]))
        for k in BONUS_KEYS:
            if b.get(k):
                name = (sc.term(k, BONUS_NAMES[k]) if k in ("with", "risk", "dash")
                        else sc.speech.pgettext("column", BONUS_NAMES[k]))
                items.append((name, b[k]))
        if made is not None:
            items.append((_("made") if made[s] else _("failed"), None))
        figures = [Cell(labels[s][:nw], nw),
                   Cell(f"{'' if decl[s] is None else decl[s]}/{took[s]}", 8, True),
                   Cell(f"{scores[s]:+d}", 6, True, "bold"), Cell(str(totals[s]), 6, True)]
        players.append((figures, items))
    col = sc.speech.pgettext
    cells = [Cell(col("column", "player"), nw), Cell(col("column", "bid") + "/"
                                                     + col("column", "won"), 8, True),
             Cell(col("column", "pts"), 6, True), Cell(col("column", "total"), 6, True)]
    header = column_heads(sc, cells, cw, "dim")
    # The richest layout the rows hold, the figures always under their column heads
    # (issue 44: they went during the dash offer): each player's breakdown under their
    # figures, wrapped; else beside them where it holds whole (else it is behind e, the
    # log: never cut); else the round in a sentence.
    for two in (True, False):
        rows = [*heads, header, *(row for figures, items in players
                                  for row in _player_rows(sc, cw, nw, figures, items, two))]
        if len(rows) <= room:
            return rows
    if room >= 5:
        # the round's number heads its players' column (the title's row goes)
        label = (_("Hand {n}") if sc.terms.hands
                 else _("Round {n}")).format(n=rec.get("round"))
        cells = [Cell(label, nw), *cells[1:]]
        header = column_heads(sc, cells, cw, "bold")
        return [header, *(row for figures, items in players
                          for row in _player_rows(sc, cw, nw, figures, items, False))][:room]
    # each name with its points held together (a no-break space): never "cem" / "-2"
    said = ", ".join(f"{labels[s]}\u00a0{scores[s]:+d}" for s in range(4))
    text = Text(" " + summary_title(sc.speech, sc.facts.game, rec.get("round")) + ": " + said,
                style="bold")
    return said_lines(sc, text, cw, room)


def _player_rows(sc: Scene, cw: int, nw: int, figures: list[Cell],
                 items: list[tuple[str, int | None]], two: bool) -> list[Text]:
    """A player's rows in the round's summary: their figures, and their breakdown under
    them (``two``, wrapped at its items) or beside them where it holds whole."""
    if sc.rtl:
        row = cells_row(sc.speech, [Cell("", 1), *figures])
        if not items:
            return [right_align(sc.speech, row, cw)]
        bonuses = _rtl_words(sc, items)
        if not two:
            if row.cell_len + 2 + bonuses.cell_len > cw:
                return [right_align(sc.speech, row, cw)]
            return [right_align(sc.speech, join(bonuses, Text("  "), row)
                                if sc.speech.shaped else join(row, Text("  "), bonuses), cw)]
        out = [right_align(sc.speech, row, cw)]
        group: list[tuple[str, int | None]] = []
        for item in items:          # as many items a line as hold (each one whole)
            if group and _rtl_words(sc, [*group, item]).cell_len + 3 > cw:
                out.append(_rtl_bonus_row(sc, group, cw))
                group = []
            group.append(item)
        out.append(_rtl_bonus_row(sc, group, cw))
        return out
    words = "  ".join(word if n is None else f"{word}\u00a0{n:+d}" for word, n in items)
    who, dt, pts, total = figures
    row = Text(no_wrap=True)
    row.append(f" {sc.speech.show(who.text):<{nw}}{dt.text:>8}")
    row.append(f"{pts.text:>6}", style="bold")
    row.append(f"{total.text:>6}")
    if words and not two and row.cell_len + 2 + cell_len(words) <= cw:
        row.append("  " + words.replace("\u00a0", " "), style="dim")
    out = [fit(row, cw)]
    if words and two:
        out += [fit(Text(line.plain.replace("\u00a0", " "), style="dim"), cw)
                for line in wrap(Text("   " + words), cw, "   ")]
    return out


def _rtl_bonus_row(sc: Scene, items: list[tuple[str, int | None]], cw: int) -> Text:
    bonuses = _rtl_words(sc, items)
    return right_align(sc.speech, join(bonuses, Text("   ")) if sc.speech.shaped
                       else join(Text("   "), bonuses), cw)


def _rtl_words(sc: Scene, items: list[tuple[str, int | None]]) -> Text:
    """An Arabic summary's bonuses, each word with its signed number kept whole ("-7",
    not "7-"), the first at the right (``units``)."""
    parts: list[Text | Shown] = []
    for i, (word, n) in enumerate(items):
        parts.append(Text(("  " if i else "") + word + (" " if n is not None else ""),
                          style="dim"))
        if n is not None:
            parts.append(Text(f"{n:+d}", style="dim"))
    return units(sc.speech, parts, 0)


def result_rows(sc: Scene, cw: int, room: int) -> list[Text]:
    """The match's end: who won, then each player's total, level points and badge."""
    facts = sc.facts
    v: MaybeView = sc.view or {}
    res: Result | Empty = v.get("result") or {}
    winners = res.get("winners") or []
    rows = said_lines(sc, result_head(sc), cw, 2)
    totals = v.get("totals") or [0] * 4
    nw = max(6, min(16, cw - 12))
    # Every player's total first: each one's level points and badge under it only where
    # the rows hold them all (at 40x20 with chat on screen they pushed the last player
    # off the standings).
    ranked = sorted(range(4), key=lambda s: -totals[s])
    extras = {s: [w for w in paid_words(sc, s) if w] for s in ranked}
    told = sum(len(said_lines(sc, Text("     " + "  ".join(extras[s])), cw, 2))
               for s in ranked if extras[s])
    if len(rows) + 4 + told > room:
        extras = {s: [] for s in ranked}
    for s in ranked:
        extra = extras[s]
        style = "bold" if s in winners else ""
        label = facts.seats[s].label + (sc.you if s == facts.seat else "")
        if sc.rtl:
            row = cells_row(sc.speech, [Cell("", 1), Cell("★" if s in winners else "", 2),
                                        Cell(label[:nw], nw), Cell(str(totals[s]), 6, True)],
                            style=style)
            rows.append(right_align(sc.speech, row, cw))
        else:
            mark = "★ " if s in winners else "  "
            rows.append(fit(Text(f" {mark}{sc.speech.show(label[:nw]):<{nw}}{totals[s]:>6}",
                                 style=style), cw))
        if extra:
            rows += said_lines(sc, Text("     " + "  ".join(extra), style=style), cw, 2)
    return rows[:room]
