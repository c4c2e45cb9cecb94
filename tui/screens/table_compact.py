"""The table at a phone's size (issue 26): the compact layout, from 40×20 up to just
under the standard 80×24 (``sizes.layout``).

The same scene as the standard picture (``table_draw.Scene``: the view, the screen's
state, the table's facts, the look, the player's language), laid out for a window of
``width``×``height``, nothing a player needs cut:

- the info bar: the table, the round, trump and caller, the timer (two rows when one
  does not hold it);
- the scores: each player's line (tags, bid or declaration, tricks, total) with the
  card they played to the trick beside it (who played what); Tarneeb's team totals in
  its head; from 63 columns the latest events beside it, as in the standard picture;
- the middle: the trick as a cross where the rows allow (else its note: who leads, who
  takes it), the last round's summary, or the match's end;
- at the bottom, from the last row up: the keys (tappable, over as many rows as they
  need), the last chat line where it fits, the hand (as many rows of cards as the
  width needs; in the play phase each row has its raised and its low line), a
  refusal or a notice, and the phase's controls (numbers and suits to tap).

The bottom is drawn from the last row and the rest from the top, so a move changes the
rows it changes: a turn coming never moves the hand. What does not fit moves behind a
key, never off the screen: the whole narration, the chat and the last round's full
breakdown are behind ``e`` (the log), the score sheet behind ``r``.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text

from ..widgets.board import BLANK
from ..widgets.taps import line_taps
from .table_draw import (
    ACTING,
    ACTING_ELSE,
    BONUS_KEYS,
    BONUS_NAMES,
    KIND_WORDS,
    LENGTH_WORDS,
    REVERSE,
    Cell,
    Hit,
    Placed,
    Scene,
    Shown,
    Slot,
    W,
    auction_state,
    board_head,
    cells_row,
    fit,
    join,
    number_tokens,
    paid_words,
    result_head,
    right_align,
    rtl_fit,
    score_head,
    side_lines,
    suit_choice,
    summary_title,
    token_hits,
    trick_slots,
    units,
    wrap,  # (a sentence cut at spaces into lines: the standard table uses it too)
)
from .table_keys import KEY, footer

CARD_W = 4           # a card's cells ("10♥" right-aligned in 4)
CROSS_ROWS = 5       # the trick as a cross: top name, top card, the sides, bottom card, note
EVENTS_FROM = 20     # columns left beside the scores from which the events are shown


# ---------------------------------------------------------------- text tools
def said_lines(sc: Scene, text: Text, width: int, limit: int = 3) -> list[Text]:
    """A sentence as whole lines of ``width`` cells in the player's language (cut at
    spaces in reading order, then each laid out): at most ``limit`` lines; a sentence
    that needs more ends its last one after a whole word, with " …" (never inside a
    word or a number: issue 44)."""
    parts = wrap(text, width)
    if len(parts) > limit > 0:
        parts = parts[:limit]
        parts[-1] = ended(parts[-1], width)
    # (a no-break space holds words together for the wrapping only: laid out, a space)
    return [sc.line(Text(part.plain.replace("\u00a0", " "), style=part.style,
                         spans=part.spans, no_wrap=True) if "\u00a0" in part.plain else part,
                    width) for part in parts[:limit]]


def ended(part: Text, width: int) -> Text:
    """A line of a sentence that goes on where it cannot be shown: its words that hold
    with " …" after them (the ellipsis at its end in reading order)."""
    plain = part.plain.rstrip()
    while plain and cell_len(plain) + 2 > width:
        cut = plain.rstrip().rfind(" ")
        plain = plain[:cut].rstrip() if cut > 0 else ""
    out = part[:len(plain)] if plain else Text("", style=part.style)
    out.append(" …", style="dim")
    return out


def boxed(parts: list[tuple[str, str]], width: int, style: str = "bold reverse"
          ) -> list[Text]:
    """Keys in reversed boxes, each with what it does, packed into lines of ``width``
    cells (in reading order: an Arabic line is laid out by the caller)."""
    lines: list[Text] = []
    line = Text(no_wrap=True)
    for key, label in parts:
        item = Text(no_wrap=True)
        item.append(f" {key} ", style=style)
        item.append(label)
        gap = " " if line.plain else ""
        if line.plain and line.cell_len + len(gap) + item.cell_len > width:
            lines.append(line)
            line = Text(no_wrap=True)
            gap = ""
        line.append(gap)
        line.append_text(item)
    if line.plain:
        lines.append(line)
    return lines


def laid(sc: Scene, lines: list[Text], width: int) -> list[Text]:
    return [sc.line(line, width) for line in lines]


def key_hits(lines: list[Text], y0: int) -> list[Hit]:
    """A tap on a key's box presses it (``tui.widgets.taps``)."""
    out = []
    for i, line in enumerate(lines):
        out += [Hit(t.x, t.y, t.width, 1, tap=("key", t.key, t.char))
                for t in line_taps(line, y0 + i)]
    return out


# ---------------------------------------------------------------- the frame
def draw_compact(sc: Scene, width: int, height: int) -> Placed:
    """The compact table on a board of ``width``×``height`` (at least 40×18: the chat
    box open at 40×20), its lines ``min(width, 80)`` wide, centred."""
    cw = min(width, W)
    x0 = (width - cw) // 2
    sc.keys = sc.keys._replace(compact=True)
    scores = compact_scores(sc, cw)
    top = info_rows(sc, cw) + scores
    phase, phase_hits = phase_rows(sc, cw)
    message = message_rows(sc, cw)
    hand, hand_hits = hand_rows(sc, cw)
    keys = footer_rows(sc, cw)
    keys += [BLANK] * max(0, turn_footer_rows(sc, cw) - len(keys))
    room = height - len(top) - len(phase) - len(message) - len(hand) - len(keys)
    chat: list[Text] = []
    if room >= 3:
        chat = chat_rows(sc, cw, min(2, room - 2))
        room -= len(chat)
    middle = middle_rows(sc, cw, room)
    n_middle = len(middle)          # (the trick, a summary: the events come under it)
    room -= len(middle)
    if room >= 1 and name_width(cw) + 27 + EVENTS_FROM > cw:
        # the latest things said at the table under the middle, as many as fit (all of
        # them: e); the events column beside the scores has them from 63 columns
        gap = 1 if middle and room >= 3 else 0
        said = recent_events(sc, cw, min(5, room - gap))
        if said:
            middle += [BLANK] * gap + said
            room -= len(said) + gap
    gap_top = [BLANK] if room > 0 and len(middle) > 0 else []
    room -= len(gap_top)
    gap_hand = [BLANK] if room > 0 and phase else []
    room -= len(gap_hand)
    lines = top + gap_top + middle
    bottom = phase + message + gap_hand + hand + chat + keys
    lines += [BLANK] * max(0, height - len(lines) - len(bottom))
    y_bottom = len(lines)
    lines += bottom
    lines = lines[:height] if len(lines) > height else lines
    hits: list[Hit] = []
    y = y_bottom
    hits += [h.moved(0, y) for h in phase_hits]
    y += len(phase) + len(message) + len(gap_hand)
    hits += [h.moved(0, y) for h in hand_hits]
    y += len(hand) + len(chat)
    hits += key_hits(keys, y)
    if x0:
        hits = [h.moved(x0) for h in hits]
    # A move's own echo first, most important first: the scores (whose turn, the card
    # put in the trick, the totals), the trick or summary, the hand, the phase's
    # controls; then the events and the keys.
    n_info = len(top) - len(scores)
    y_middle = len(top) + len(gap_top)
    y_hand = y_bottom + len(phase) + len(message) + len(gap_hand)
    focus = (*range(n_info, len(top)), *range(y_middle, y_middle + n_middle),
             *range(y_hand, y_hand + len(hand)), *range(y_bottom, y_bottom + len(phase)))
    return Placed(lines, tuple(h for h in hits if h.y < height), x=x0, compact=True,
                  focus=tuple(y for y in focus if y < height))


# ----------------------------------------------------------------------- info
def info_rows(sc: Scene, cw: int) -> list[Text]:
    """The info bar: the table and the round, the timer at its end; trump, the call,
    the multiplier and Tarneeb's shown card after them, on a second row when one row
    does not hold them all."""
    key = ("c-info", cw, sc.look_key, sc.facts.id, sc.facts.title, sc.facts.length,
           sc.facts.game, sc.facts.practice, sc.facts.board, sc.facts.code_label, sc.facts.seat,
           sc.facts.deadline_seat, _secs(sc), tuple(s.label for s in sc.facts.seats),
           None if sc.view is None else tuple(map(repr, (
               sc.view.get(k) for k in ("rounds", "round", "kind", "fixed_trump", "trump",
                                        "call", "caller", "multiplier", "shown_card")))))
    hit = sc.cache.section(key)
    if hit is None:
        hit = sc.cache.keep(key, _info_rows(sc, cw))
    return list(hit)


def _secs(sc: Scene) -> int | None:
    left = sc.facts.seconds_left
    return None if left is None else int(left + 0.999)


def _info_rows(sc: Scene, cw: int) -> list[Text]:
    facts, v, look, _ = sc.facts, sc.view, sc.look, sc._
    bar = look.style("bold reverse") if not look.colour else "bold white on blue"
    first = f"#{facts.id} " + sc.game_title()
    if facts.board is None and facts.length is not None and sc.terms.counted:
        length = facts.length
        first += f" {_(LENGTH_WORDS[length]) if length in LENGTH_WORDS else length}"
    parts: list[Text] = [Text(first)]
    if facts.practice:
        parts.append(Text(_("Practice")))
    if facts.board is not None and v is not None:
        # An event's board: which, in place of the match's length and round (as the
        # standard picture says it)
        parts.append(Text(_("Event {event}, board {n} of {total}").format(
            event=facts.board[0], n=facts.board[1], total=facts.board[2])))
    if v is None:
        parts.append(Text(_("waiting for players")))
        if facts.code_label:
            parts.append(Text(_("private, code {code}").format(code=facts.code_label)))
    else:
        if facts.board is not None:
            said = ""
        elif v.get("rounds"):
            said = _("Round {n} of {total}").format(n=v["round"], total=v["rounds"])
        else:
            said = _("Hand {n}").format(n=v["round"])
        kind = v.get("kind")
        if kind in ("fast", "fixed"):
            said += (" (" if said else "(") + _(KIND_WORDS[kind]) + \
                f" {look.suit(v.get('fixed_trump'))})"
        if said:
            parts.append(Text(said))
        trump = v.get("trump")
        parts.append(Text(sc.game_word("Trump") + " " + (look.suit(trump) if trump else "—")))
        call = v.get("call")
        if call and v.get("caller") is not None:
            parts.append(Text(_("Call") + f" {look.bid_str(call.get('n'), call.get('suit'))} "
                              f"{sc.name(v['caller'], you=False)}"))
        if (v.get("multiplier") or 1) > 1:
            parts.append(Text(f"×{v['multiplier']}", style="bold"))
        shown = v.get("shown_card")
        if shown:
            parts.append(Text(_("Shown") + f" {look.card_str(shown)}"))
    timer = Text("", style=bar)
    secs = _secs(sc)
    if secs is not None:
        if sc.rtl:
            timer = Text(f" {sc.speech.show(_('{n}s').format(n=secs))} ", style=bar)
        else:
            timer = Text(f" {secs}s ", style=bar)
        if facts.deadline_seat == facts.seat and secs <= 10:
            timer.stylize(look.style("bold red on white"))
    rows: list[Text] = []
    room = cw - timer.cell_len - 1
    line = Text(" ")
    for part in parts:
        gap = " · " if line.plain.strip() else ""
        if line.plain.strip() and line.cell_len + len(gap) + part.cell_len > room:
            rows.append(line)
            line = Text(" ")
            room = cw - 1
            gap = ""
        line.append(gap)
        line.append_text(part)
    rows.append(line)
    out = []
    for i, row in enumerate(rows[:2]):
        row.style = bar
        width = cw - timer.cell_len if i == 0 else cw
        if sc.rtl:
            laid_row = rtl_fit(sc.speech, row, width)
            laid_row.style = bar
            if i == 0:
                laid_row = join(timer, laid_row) if sc.speech.shaped else join(laid_row, timer)
        else:
            laid_row = fit(row, width)
            laid_row.style = bar
            if i == 0:
                laid_row = join(laid_row, timer)
        laid_row.style = bar
        out.append(laid_row)
    return out


# --------------------------------------------------------------------- scores
def name_width(cw: int) -> int:
    return max(8, min(18, cw - 25))


def compact_teams(sc: Scene) -> str | None:
    v = sc.view
    team_totals = v.get("team_totals") if v else None
    if not team_totals:
        return None
    a, b = team_totals
    return sc._("Teams a {a} · b {b}").format(a=a, b=b)


def played(sc: Scene) -> dict[int, Slot]:
    """The card each seat has in the trick (the finished one while it is still shown)."""
    v = sc.view
    if v is None or v.get("phase") != "play":
        return {}
    slots, _note = trick_slots(sc)
    return {s: slot for s, slot in slots.items() if slot[0] == "card"}


def compact_scores(sc: Scene, cw: int) -> list[Text]:
    """The head and a line a player: from the viewer round (bottom, right, top, left)."""
    facts, v, look = sc.facts, sc.view, sc.look
    nw = name_width(cw)
    side_w = cw - 27 - nw           # beside the scores and their separator
    events = side_lines(sc, side_w) if side_w >= EVENTS_FROM else None
    pos = facts.positions()
    seats = (pos["bottom"], pos["right"], pos["top"], pos["left"])
    to_act = v.get("to_act") if v else None
    cards = played(sc)
    marker = look.style("bold yellow")
    head_words = score_head(sc)
    teams = compact_teams(sc)
    key = ("c-scores", cw, sc.look_key, facts.game, facts.seat, facts.seats, to_act,
           tuple(sorted((s, c[1]) for s, c in cards.items())),
           None if not v else tuple(repr(v.get(k)) for k in (
               "dealer", "caller", "with_players", "dash_players", "teams", "declarations",
               "tricks_taken", "totals", "team_totals")),
           tuple(events) if events else None)
    hit = sc.cache.section(key)
    if hit is not None:
        return list(hit)
    rows: list[Text] = []
    if sc.rtl:
        heading = cells_row(sc.speech, [Cell("", 2), Cell(teams or head_words[0], nw + 4),
                                        Cell(head_words[1], 4, True),
                                        Cell(head_words[2], 4, True),
                                        Cell(head_words[3], 6, True), Cell("", 5)],
                            style="bold underline")
        rows.append(right_align(sc.speech, heading, cw - (side_w + 2 if events else 0)))
    else:
        rows.append(Text(f"  {(teams or 'player')[:nw + 3]:<{nw + 4}}{'bid':>4}{'won':>4}"
                         f"{'total':>6}{'':5}", style="bold underline"))
    for s in seats:
        label = sc.seat_label(s)
        suffix = sc.you if s == facts.seat else ""
        if facts.seats[s].away:
            suffix += " " + sc._("away")
        label, suffix = label[:nw], suffix[:max(0, nw - len(label))]
        tags = ""
        decl = tricks = total = ""
        if v:
            if v.get("dealer") == s:
                tags += "D"
            if v.get("caller") == s:
                tags += "C"
            if s in (v.get("with_players") or []):
                tags += "W"
            if s in (v.get("dash_players") or []):
                tags += "X"
            teams_of = v.get("teams")
            if sc.terms.teams and teams_of:
                tags += "ab"[0 if s in teams_of[0] else 1]
            d = (v.get("declarations") or [None] * 4)[s]
            decl = "" if d is None else str(d)
            tricks = str((v.get("tricks_taken") or [0] * 4)[s])
            total = str((v.get("totals") or [0] * 4)[s])
        card = cards.get(s)
        card_text = look.card_str(card[1]) if card else ""
        card_style = look.suit_style(card[1][1]) if card else ""
        turn = to_act == s
        if sc.rtl:
            tags = " ".join(sc.speech.pgettext("tag", t) for t in tags)
            row = cells_row(sc.speech, [
                Cell("◀" if turn else "", 2, style=marker), Cell(label + suffix, nw),
                Cell("", 1), Cell(tags, 3), Cell(decl, 4, True), Cell(tricks, 4, True),
                Cell(total, 6, True), Cell(card_text, 5, True, card_style)])
            rows.append(right_align(sc.speech, row, cw - (side_w + 2 if events else 0)))
            continue
        row = Text(no_wrap=True)
        row.append("▶ " if turn else "  ", style=marker if turn else "")
        row.append(f"{sc.speech.show(label) + suffix:<{nw}} {tags:<3}{decl:>4}{tricks:>4}"
                   f"{total:>6}")
        row.append(f"{card_text:>5}", style=card_style)
        rows.append(row)
    if events:
        out = []
        for i, row in enumerate(rows):
            text, style = events[i]
            if sc.rtl and sc.speech.shaped:
                out.append(join(sc.line(Text(text, style=style), side_w), Text(" │", style="dim"),
                                fit(row, cw - side_w - 2)))
            elif sc.rtl:
                out.append(join(fit(row, cw - side_w - 2), Text("│ ", style="dim"),
                                fit(Text(text, style=style), side_w)))
            else:
                out.append(join(fit(row, cw - side_w - 2), Text("│ ", style="dim"),
                                fit(Text(text, style=style), side_w)))
        rows = out
    rows = [fit(row, cw) for row in rows]
    return list(sc.cache.keep(key, tuple(rows)))


# --------------------------------------------------------------------- middle
def middle_rows(sc: Scene, cw: int, room: int) -> list[Text]:
    """What the middle shows in ``room`` rows at most: the match's end, the last
    round's summary, or the trick (a cross where it fits, else its note)."""
    v = sc.view
    if room <= 0:
        return []
    if v is not None and v.get("phase") == "over":
        got = board_head(sc) if sc.facts.board is not None else None
        if got is not None:             # an event's board: its score, then the round
            head, rec = got
            top = said_lines(sc, head, cw, 2)
            return (top + summary_rows(sc, cw, room - len(top), rec)[1:])[:room]
        return result_rows(sc, cw, room)
    if v is not None and v.get("phase") != "play" and v.get("history") and not v.get("tricks"):
        return summary_rows(sc, cw, room, v["history"][-1])
    slots, note = trick_slots(sc)
    if v is None:
        return said_lines(sc, Text(" " + note[0], style=note[1]), cw, min(2, room))
    if v.get("phase") != "play":
        return []
    noted = note_row(sc, cw, note)
    if room >= CROSS_ROWS + 1:
        return [*cross_rows(sc, cw, slots), noted]
    return [noted]


def recent_events(sc: Scene, cw: int, n: int) -> list[Text]:
    """The last ``n`` things said at the table this round (the newest in bold)."""
    v = sc.view
    rnd = v.get("round") if v else None
    said = [text for r, text in sc.facts.events if (r is None or r == rnd) and sc.told(text)][-n:]
    out: list[Text] = []
    # the newest first to be given its rows: each whole, over the rows it needs (a line
    # of scores is never cut in a number: issue 44), the older ones above it as fit
    for i, text in reversed(list(enumerate(said))):
        key = ("pretty", text, getattr(text, "template", None), sc.look_key)
        shown = sc.cache.section(key)
        if shown is None:
            shown = sc.cache.keep(key, sc.narrate(text))
        style = "bold" if i == len(said) - 1 else "dim"
        lines = said_lines(sc, Text(" " + shown, style=style), cw, n - len(out))
        if out and len(wrap(Text(" " + shown), cw)) > n - len(out):
            break               # an older one that does not hold whole: left to e
        out = lines + out
        if len(out) >= n:
            break
    return out


def note_row(sc: Scene, cw: int, note: tuple[str, str]) -> Text:
    """The trick's note: who leads, who takes it."""
    text, style = note
    if not text:
        return BLANK
    return sc.line(Text(" " + text, style=style), cw)


def cross_rows(sc: Scene, cw: int, slots: dict[int, Slot]) -> list[Text]:
    """The trick as a cross: the top player's name and card, the left and right ones'
    beside their cards, the viewer's card."""
    look, facts = sc.look, sc.facts
    pos = facts.positions()
    side = (cw - 2 * CARD_W - 6) // 2

    def shown(d: Slot | None) -> Text:
        if d is None:
            return Text("")
        kind, what = d
        if kind == "card":
            return look.card(what)
        if kind == "pile":
            return Text(" ".join(look.card_str(c) for c in what), style="dim")
        return Text(what, style="dim")

    def name(w: str) -> Text:
        return Text(sc.speech.show(sc.seat_label(pos[w])[:side]), style="bold")

    def centred(text: Text) -> Text:
        pad = max(0, (cw - text.cell_len) // 2)
        return fit(Text(" " * pad) + text, cw)

    left, right = slots.get(pos["left"]), slots.get(pos["right"])
    middle = join(fit(name("left"), side), fit(shown(left), CARD_W + 1, right=True),
                  " " * (cw - 2 * side - 2 * CARD_W - 2), fit(shown(right), CARD_W + 1),
                  fit(name("right"), side, right=True))
    return [centred(name("top")), centred(shown(slots.get(pos["top"]))), fit(middle, cw),
            centred(shown(slots.get(pos["bottom"])))]


def summary_rows(sc: Scene, cw: int, room: int, rec: dict[str, Any]) -> list[Text]:
    """The last round's summary: its head, then a line a player (declared/taken, the
    points and every bonus, the new total), two where a line does not hold it and the
    rows allow; with fewer rows, the round's points in a sentence (``e``: all of it)."""
    _ = sc._
    head = Text(" " + summary_title(sc.speech, sc.facts.game, rec.get("round")),
                style="bold underline")
    if rec.get("void"):
        head.append("  " + _("hand void (declarations under 11): redeal"), style="bold")
        return said_lines(sc, head, cw, room)
    if (rec.get("multiplier") or 1) > 1:
        head.append("  ")
        head.append(f"×{rec['multiplier']}", style="bold")
    if rec.get("over") is not None:
        head.append("  " + (_("over") if rec["over"] else _("under")), style="dim")
    if rec.get("saayda"):
        saayda = sc.term("saayda", "Sa'ayda")
        head.append("  " + _("{saayda}: all missed, next round ×2").format(saayda=saayda),
                    style="bold")
    if rec.get("all_pass"):
        head.append("  " + _("all passed"), style="dim")
    heads = said_lines(sc, head, cw, 2)
    decl = rec.get("declarations") or [None] * 4
    took = rec.get("tricks_taken") or [0] * 4
    scores = rec.get("scores") or [0] * 4
    bd = rec.get("breakdown") or [{}] * 4
    made = rec.get("made")
    totals = sc.view["totals"] if sc.view else [0] * 4
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
        figures = [Cell(sc.facts.seats[s].label[:nw], nw),
                   Cell(f"{'' if decl[s] is None else decl[s]}/{took[s]}", 8, True),
                   Cell(f"{scores[s]:+d}", 6, True, "bold"), Cell(str(totals[s]), 6, True)]
        players.append((figures, items))
    col = sc.speech.pgettext
    cells = [Cell(col("column", "player"), nw), Cell(col("column", "bid") + "/"
                                                     + col("column", "won"), 8, True),
             Cell(col("column", "pts"), 6, True), Cell(col("column", "total"), 6, True)]
    if sc.rtl:
        header = right_align(sc.speech, cells_row(sc.speech, [Cell("", 1), *cells],
                                                  style="dim"), cw)
    else:
        header = fit(Text(" " + "".join(c.text.rjust(c.width) if c.right
                                        else c.text.ljust(c.width) for c in cells),
                          style="dim"), cw)
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
        if sc.rtl:
            header = right_align(sc.speech, cells_row(sc.speech, [Cell("", 1), *cells],
                                                      style="bold"), cw)
        else:
            header = fit(Text(" " + "".join(c.text.rjust(c.width) if c.right
                                            else c.text.ljust(c.width) for c in cells),
                              style="bold"), cw)
        return [header, *(row for figures, items in players
                          for row in _player_rows(sc, cw, nw, figures, items, False))][:room]
    # each name with its points held together (a no-break space): never "cem" / "-2"
    said = ", ".join(f"{sc.facts.seats[s].label}\u00a0{scores[s]:+d}" for s in range(4))
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
    v: Any = sc.view or {}
    winners = (v.get("result") or {}).get("winners") or []
    rows = said_lines(sc, result_head(sc), cw, 2)
    totals = v.get("totals") or [0] * 4
    nw = max(6, min(16, cw - 12))
    for s in sorted(range(4), key=lambda s: -totals[s]):
        extra = [w for w in paid_words(sc, s) if w]
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


# ---------------------------------------------------------------------- phase
def phase_rows(sc: Scene, cw: int) -> tuple[list[Text], list[Hit]]:
    """The phase's controls, in as many rows as the width needs, and their taps (rows
    from 0)."""
    v, state, _ = sc.view, sc.state, sc._
    mode = sc.keys.mode
    if v is None:
        lines = said_lines(sc, Text(" " + _("Waiting for four players."), style="bold"), cw)
        if sc.facts.may_fill:
            hint = _("b  fill the empty seats with computer players · q  leave")
        elif sc.facts.host is not None:
            hint = _("The host, {host}, may add computer players · q  leave").format(
                host=sc.facts.host)
        else:
            hint = _("q  leave")
        return lines + said_lines(sc, Text(" " + hint, style="dim"), cw), []
    if v.get("phase") == "over":
        board = sc.facts.board
        if board is not None:       # an event's board: what its footer's ⏎ does
            said = (_("⏎  the event's results · q  back to the events") if board[1] >= board[2]
                    else _("⏎  the next board · q  back to the events"))
        else:
            said = _("The match is over. r  score sheet · q  back to the lobby")
        return said_lines(sc, Text(" " + said, style="bold"), cw), []
    if mode == "dash":
        lines = said_lines(sc, Text(" " + _("{dash} call? Promise to win no trick at all, "
                                            "before the trump is known.").format(
                                                dash=sc.term("dash", "Dash")), style="bold"), cw)
        say = sc.speech.pgettext
        keys = laid(sc, boxed([("y", say("key", "take dash")), ("n", say("key", "normal"))],
                              cw - 1), cw)
        return lines + keys, key_hits(keys, len(lines))
    if mode in ("bid", "call"):
        return auction_rows(sc, cw, mode)
    if mode == "declare":
        return declare_rows(sc, cw)
    if mode == "play":
        lines = [sc.line(Text(" " + _("Your turn"), style="bold"), cw)]
        if state.rank:
            lines.append(sc.line(Text("   " + _("rank {rank} … now the suit: s h d c").format(
                rank=sc.look.rank(state.rank))), cw))
        else:
            lines.append(BLANK)
        return lines, []
    return waiting_rows(sc, cw), []


def numbers_rows(sc: Scene, cw: int, label: str, cells: list[tuple[int, str]],
                 styles: dict[str, str]) -> list[Text]:
    """A label, then numbers in cells of three, in as many rows as the width needs."""
    per_row = max(1, (cw - cell_len(label) - 3) // 3)
    if len(cells) > per_row:
        per_row = (len(cells) + 1) // 2
    rows = []
    for i in range(0, len(cells), per_row):
        head = Text(" " + (label if i == 0 else " " * cell_len(label)) + " ", style="bold")
        numbers = Text(style="bold")
        for n, st in cells[i:i + per_row]:
            numbers.append(f"{n:>2} ", style=styles[st])
        if sc.rtl:
            rows.append(sc.line(join(head, numbers), cw) if not sc.speech.shaped else
                        right_align(sc.speech, join(numbers, sc.speech.line(head, 0)), cw))
        else:
            rows.append(fit(join(head, numbers), cw))
    return rows


def auction_rows(sc: Scene, cw: int, kind: str) -> tuple[list[Text], list[Hit]]:
    v: Any = sc.view or {}
    look, turn, state, _ = sc.look, sc.turn, sc.state, sc._
    key = sc.speech.pgettext
    rows = numbers_rows(sc, cw, _("Bid") if kind == "bid" else _("Call"),
                        turn.number_cells(kind, state.sel_n),
                        {"sel": "reverse bold", "ok": "bold", "dim": "dim"})
    hits = [h for i, row in enumerate(rows) for h in token_hits(row, i, "number",
                                                                 number_tokens())]
    suit_label = Text(" " + _("Suit") + " ", style="bold")
    suits = Text(style="bold")
    note, _fixed = suit_choice(sc, kind, suits)
    if sc.rtl and sc.speech.shaped:
        suit_row = right_align(sc.speech, join(suits, sc.speech.line(suit_label, 0)), cw)
    elif sc.rtl:
        suit_row = sc.line(join(suit_label, suits), cw)
    else:
        suit_row = fit(join(suit_label, suits), cw)
    tokens = {look.suit(s): s for s in ("NT", "S", "H", "D", "C")}
    hits += token_hits(suit_row, len(rows), "suit", tokens)
    rows.append(suit_row)
    if note:
        rows += said_lines(sc, Text("   " + note, style="dim"), cw, 2)
    parts = []
    if turn.of(kind):
        parts.append(("⏎", key("key", "bid" if kind == "bid" else "call") + " "
                      + look.bid_str(state.sel_n, state.sel_suit)))
    if turn.of("pass"):
        parts.append(("p", key("key", "pass")))
    if turn.of("with"):
        bid = (v.get("auction") or {}).get("bid") or {}
        parts.append(("w", key("key", "With") + " " + look.bid_str(bid.get("n"),
                                                                  bid.get("suit"))))
    keys = laid(sc, boxed(parts, cw - 1), cw)
    hits += key_hits(keys, len(rows))
    rows += keys
    rows += said_lines(sc, auction_state(sc), cw, 2)
    return rows, hits


def declare_rows(sc: Scene, cw: int) -> tuple[list[Text], list[Hit]]:
    v: Any = sc.view or {}
    state, _ = sc.state, sc._
    styles = {"sel": "reverse bold", "ok": "bold", "dim": "dim", "forbidden": "dim strike"}
    rows = numbers_rows(sc, cw, _("Declare"), sc.turn.declare_cells(state.sel_n), styles)
    hits = [h for i, row in enumerate(rows) for h in token_hits(row, i, "number",
                                                                 number_tokens())]
    decl = v.get("declarations") or []
    total = sum(d for d in decl if d is not None)
    keys = boxed([("⏎", sc.speech.pgettext("key", "declare") + f" {state.sel_n}")], cw - 1)
    line = keys[0]
    so_far = _("Declared so far: {total}").format(total=total)
    if line.cell_len + 3 + cell_len(so_far) <= cw - 1:
        line.append("   " + so_far, style="dim")
        keys = laid(sc, [line], cw)
    else:
        keys = [*laid(sc, [line], cw), sc.line(Text(" " + so_far, style="dim"), cw)]
    hits += key_hits(keys[:1], len(rows))
    rows += keys
    forbidden = v.get("forbidden")
    if forbidden is not None:
        rows += said_lines(sc, Text(" " + _("{n} is disabled: it would make the total 13 "
                                            "(you declare last).").format(n=forbidden),
                                    style="bold"), cw, 2)
    return rows, hits


def waiting_rows(sc: Scene, cw: int) -> list[Text]:
    """Someone else's turn: who is acting, and how the auction or the declarations
    stand (or that you are watching)."""
    facts = sc.facts
    v: Any = sc.view or {}
    _ = sc._
    who = v.get("to_act")
    lines: list[Text] = []
    t0 = Text(" ")
    if who is not None and v.get("phase") != "play":
        t0.append(_(ACTING.get(v.get("phase") or "", ACTING_ELSE)).format(who=sc.name(who)),
                  style="bold")
    if facts.seat is None:
        t0.append("   " + _("(you are watching)"), style="dim")
    if t0.plain.strip():
        lines += said_lines(sc, t0, cw, 2)
    if v.get("phase") in ("dash", "auction", "call"):
        lines += said_lines(sc, auction_state(sc), cw, 2)
    elif v.get("phase") == "declare":
        decl = v.get("declarations") or []
        total = sum(d for d in decl if d is not None)
        lines.append(sc.line(Text(" " + _("Declared so far: {total}").format(total=total),
                                  style="dim"), cw))
    if v.get("phase") == "play":
        lines = [*lines, BLANK, BLANK][:2]
    return lines


def message_rows(sc: Scene, cw: int) -> list[Text]:
    """A refusal while it is shown, else where you landed, your wait for a seat, or the
    private table's code."""
    state, facts, look = sc.state, sc.facts, sc.look
    from .table_draw import said_in
    if state.message is not None and sc.now < state.message_until:
        return said_lines(sc, state.message, cw, 2)
    if state.notice and sc.now < state.notice_until:
        # (whole, in the lines it needs: a hint is read to the end)
        return said_lines(sc, Text(" " + sc.say(sc._(state.notice)), style=look.style("bold")),
                          cw, 9)
    if facts.request is not None:
        return said_lines(sc, Text(" " + said_in(sc.speech, facts.request),
                                   style=look.style("bold")), cw, 2)
    if facts.code_label and sc.view is None:
        return said_lines(sc, Text(" " + sc._("Private table · code {code} · friends press j "
                                              "in the lobby and type it").format(
                                                  code=facts.code_label),
                                   style=look.style("dim")), cw, 2)
    return []


# ----------------------------------------------------------------------- hand
def hand_split(cards: list[str], per_row: int) -> list[list[str]]:
    """The hand in rows of at most ``per_row`` cards: one row if it holds them, else
    whole suits to a row, as many as fit (so that a card played moves no suit to
    another row, most of the time), if that needs no more rows than the count of
    cards does; else split where a suit ends if both rows then hold, else in the
    middle."""
    if len(cards) <= per_row:
        return [cards] if cards else []
    need = -(-len(cards) // per_row)
    rows: list[list[str]] = [[]]
    for i, c in enumerate(cards):
        if i and c[1] != cards[i - 1][1]:
            suit_len = sum(1 for d in cards[i:] if d[1] == c[1])
            if len(rows[-1]) + suit_len > per_row:
                rows.append([])
        if len(rows[-1]) == per_row:
            rows.append([])
        rows[-1].append(c)
    if len(rows) <= need:
        return rows
    rows = []
    rest = cards
    while len(rest) > per_row:
        n_rows = -(-len(rest) // per_row)
        want = -(-len(rest) // n_rows)
        ends = [i for i in range(1, len(rest)) if rest[i][1] != rest[i - 1][1]]
        fits = [i for i in ends if i <= per_row and len(rest) - i <= per_row * (n_rows - 1)
                and abs(i - want) <= 2]
        cut = min(fits, key=lambda i: abs(i - want)) if fits else want
        rows.append(rest[:cut])
        rest = rest[cut:]
    rows.append(rest)
    return rows


def hand_rows(sc: Scene, cw: int) -> tuple[list[Text], list[Hit]]:
    """The hand, trump first, in as many rows as the width needs; in the play phase each
    row of cards has two lines: the cards that can be played stand on the upper, the
    others sit low and dim (whose turn it is does not move the rows)."""
    look, v, turn = sc.look, sc.view, sc.turn
    cards = turn.hand()
    if not cards:
        return [], []
    in_play = v is not None and v.get("phase") == "play"
    playing = sc.keys.mode == "play"
    ok = turn.playable()
    sel = sc.state.sel_card
    per_row = max(1, (cw - 4) // CARD_W)
    rows = hand_split(cards, per_row)
    key = ("c-hand", cw, tuple(cards), in_play, playing, frozenset(ok) if playing else None,
           sel if playing else None, look.unicode, look.colour)
    hit = sc.cache.section(key)
    if hit is not None:
        return list(hit[0]), list(hit[1])
    lines: list[Text] = []
    hits: list[Hit] = []
    height = 2 if in_play else 1
    # Every row starts at one column, the one that centres a full row (a whole hand
    # where one row holds it): a card played moves only the cards after it in its row,
    # not the rows under the player's finger, and redraws less on a slow link.
    full = min(per_row, 13)
    left = max(0, (cw - full * CARD_W - 3) // 2)
    for row in rows:
        x = left
        up = Text(" " * x, no_wrap=True)
        down = Text(" " * x, no_wrap=True)
        prev = None
        for c in row:
            if prev is not None and c[1] != prev:
                up.append(" ")
                down.append(" ")
                x += 1
            prev = c[1]
            label = look.card_str(c).rjust(CARD_W)
            hits.append(Hit(x, len(lines), CARD_W, height, c))
            x += CARD_W
            if not playing or c in ok:
                style = look.suit_style(c[1])
                if playing and c == sel:
                    style = style + REVERSE
                up.append(label, style=style)
                down.append(" " * len(label))
            else:
                up.append(" " * len(label))
                down.append(label, style=look.suit_style(c[1], dim=True))
        lines.append(fit(up, cw))
        if in_play:
            lines.append(fit(down, cw) if down.plain.strip() else BLANK)
    sc.cache.keep(key, (tuple(lines), tuple(hits)))
    return lines, hits


# ----------------------------------------------------------------------- chat
def chat_rows(sc: Scene, cw: int, room: int) -> list[Text]:
    """The last chat lines that fit (all of it: ``e``)."""
    out = []
    for who, text in sc.facts.chat[-room:]:
        t = Text(no_wrap=True)
        t.append(f" {sc.say(who)}: ", style=sc.look.style("bold cyan"))
        t.append(sc.say(text))
        out.append(sc.line(t, cw) if sc.rtl else fit(t, cw))
    return out


# --------------------------------------------------------------------- footer
# The modes of a seated player's turns, by phase: the phases before the play share
# one footer height, the play has its own (its hand has two lines a row anyway).
BIDDING = ("dash", "bid", "call", "declare")
TURN_MODES = {"dash": BIDDING, "auction": BIDDING, "call": BIDDING, "declare": BIDDING,
              "play": ("play",)}


def turn_footer_rows(sc: Scene, cw: int) -> int:
    """The most rows the footer takes on a seated player's turn from this phase to the
    play (the auction's phases together), with every key they may offer (0 when not
    seated, or between rounds). The footer keeps them that long, the keys that are
    there at the top and blank rows under them: a turn coming or going, or the
    auction ending, moves neither the hand nor the footer's first row, and a move's
    own echo redraws only the rows that changed (a slow link)."""
    v = sc.view
    modes = TURN_MODES.get(v.get("phase") or "") if v is not None else None
    if not modes or sc.facts.seat is None:
        return 0
    mine = sc.keys
    most = 0
    try:
        for mode in modes:
            sc.keys = mine._replace(mode=mode, rank=None, can_pass=True, suit_open=True,
                                    can_with=mode == "bid" and sc.terms.with_call)
            most = max(most, len(footer_rows(sc, cw)))
    finally:
        sc.keys = mine
    return most


def footer_rows(sc: Scene, cw: int) -> list[Text]:
    """The keys that do something now (``table_keys``), over as many rows as they
    need at this width; each box a tap (``key_hits``)."""
    keys = footer(sc.keys)
    key = ("c-footer", cw, keys, sc.speech.code, sc.speech.mode)
    hit = sc.cache.section(key)
    if hit is not None:
        return list(hit)
    say = sc.speech.pgettext
    rows = laid(sc, boxed([(k, say(KEY, label)) for k, label in keys], cw - 1), cw)
    return list(sc.cache.keep(key, tuple(rows)))

