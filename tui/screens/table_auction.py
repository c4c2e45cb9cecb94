"""The phase's controls: the dash offer, the auction's and the call's numbers and suits,
the declarations, someone else's turn; and where their taps land. Its standard lines and
its compact rows.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from engine.match import call_keeps_trump
from engine.types import AuctionView, Contract

from ..i18n import N_
from ..widgets.board import BLANK
from .table_scene import Scene, laid, said_lines
from .table_state import Empty, MaybeView, standing_bid
from .table_text import (
    REVERSE,
    Hit,
    W,
    boxed,
    fit,
    join,
    key_hits,
    number_tokens,
    right_align,
    token_hits,
    units,
)

ACTING = {"dash": N_("{who} is answering the dash offer…"), "auction": N_("{who} is bidding…"),
          "call": N_("{who} is making the call…"), "declare": N_("{who} is declaring…"),
          "play": N_("{who} is playing…")}


ACTING_ELSE = N_("{who} is to act…")


# ---------------------------------------------------------------------- phase
def _same(text: Text) -> Text:
    return text


def seating_words(sc: Scene) -> str:
    """Before the match: who may fill the empty seats, and how to leave."""
    _ = sc._
    if sc.facts.may_fill:
        return _("b  fill the empty seats with computer players · q  leave")
    if sc.facts.host is not None:
        return _("The host, {host}, may add computer players · q  leave").format(
            host=sc.facts.host)
    return _("q  leave")


def over_words(sc: Scene) -> str:
    """The match is over: what ⏎ or r does now (an event's board: the footer's ⏎)."""
    _ = sc._
    board = sc.facts.board
    if board is not None:
        return (_("⏎  the event's results · q  back to the events") if board[1] >= board[2]
                else _("⏎  the next board · q  back to the events"))
    return _("The match is over. r  score sheet · q  back to the lobby")


def phase_lines(sc: Scene) -> list[Text]:
    v, look, state, _ = sc.view, sc.look, sc.state, sc._
    # An Arabic interface's lines are laid out where they are made; English ones fit below.
    ln = sc.line if sc.rtl else _same
    lines: list[Text] = [BLANK, BLANK, BLANK]
    mode = sc.keys.mode
    if v is None:                   # how many it waits for: the middle's note
        lines[0] = ln(Text(" " + seating_words(sc), style="dim"))
    elif v.get("phase") == "over":
        lines[0] = ln(Text(" " + over_words(sc), style="bold"))
    elif mode == "dash":
        lines[0] = ln(Text(" " + dash_offer(sc), style="bold"))
        lines[1] = ln(Text("   " + _("y  take the dash call      n  play normally")))
    elif mode in ("bid", "call"):
        lines = auction_lines(sc, mode)
    elif mode == "declare":
        lines = declare_lines(sc)
    elif mode == "play":
        # short: it comes and goes with every turn (bytes on every move)
        lines[0] = ln(Text(" " + _("Your turn"), style="bold"))
        if state.rank:
            lines[1] = ln(Text("   " + _("rank {rank} … now the suit: s h d c").format(
                rank=look.rank(state.rank))))
    else:
        lines = waiting_lines(sc)
    if state.message is not None and sc.now < state.message_until:
        lines[2] = ln(state.message)
    return [line if line is BLANK else fit(line, W) for line in lines[:3]]


def auction_state(sc: Scene) -> Text:
    v: MaybeView = sc.view or {}
    _ = sc._
    a: AuctionView | Empty = v.get("auction") or {}
    comma = sc.speech.pgettext("list", ", ")
    t = Text(" ")
    bid = a.get("bid")
    if bid:
        t.append(_("Standing bid") + " ")
        t.append_text(sc.bid(bid.get("n"), bid.get("suit")))
        t.append(f" {sc.name(a.get('owner'))}")
    else:
        t.append(_("No bid yet"))
    if a.get("with_players"):
        t.append(" · " + sc.speech.pgettext("key", "With") + " "
                 + comma.join(sc.name(s) for s in a["with_players"]))
    if a.get("passed"):
        t.append(" · " + _("passed") + " " + comma.join(sc.name(s) for s in a["passed"]),
                 style="dim")
    if a.get("dash_players"):
        t.append(" · " + _("dash") + " " + comma.join(sc.name(s) for s in a["dash_players"]))
    return t


def suit_choice(sc: Scene, kind: str, suits: Text) -> tuple[str | None, bool]:
    """The suits a bid or call may take, appended to ``suits``; and what is said of them
    (or None) and whether the suit is fixed (one shown, no choice). A fast round's call
    under 8 keeps the auction's trump (the engine's rule, E-18)."""
    v: MaybeView = sc.view or {}
    look, state, _ = sc.look, sc.state, sc._
    cells = sc.turn.suit_cells(kind, state.sel_n, state.sel_suit)
    if not cells:
        ft = v.get("fixed_trump") or v.get("trump")
        suits.append(" ")
        suits.append(look.suit(ft), style=look.suit_style(ft))
        if kind == "call" and call_keeps_trump(v.get("kind"), None):
            return _("(locked: raise to 8 or more to change it)"), True
        return _("(fixed this round)"), True
    for s, st in cells:
        cell = f" {look.suit(s)} "
        if st == "dim":
            suits.append(cell, style="dim")
        elif st == "sel":
            suits.append(cell, style=look.suit_style(s) + REVERSE)
        else:
            suits.append(cell, style=look.suit_style(s))
    if (kind == "call" and call_keeps_trump(v.get("kind"), state.sel_n)
            and any(st != "dim" for _s, st in cells)):
        return _("locked: raise to 8 or more to change the suit"), False
    return None, False


def auction_lines(sc: Scene, kind: str) -> list[Text]:
    v: MaybeView = sc.view or {}
    turn = sc.turn
    state = sc.state
    _ = sc._
    key = sc.speech.pgettext
    acts = turn.of(kind)
    row = Text(" " + (_("Bid") + " " if kind == "bid" else _("Call")) + " ", style="bold")
    # English: one line on a bold base; Arabic: the label said, the numbers kept as they are
    numbers = Text(style="bold") if sc.rtl else row
    for n, st in turn.number_cells(kind, state.sel_n):
        numbers.append(f" {n:>2} ",
                       style={"sel": "reverse bold", "ok": "bold", "dim": "dim"}[st])
    suit_row = Text(" " + _("Suit") + " ", style="bold")
    suits = Text(style="bold") if sc.rtl else suit_row
    note = Text(style="bold") if sc.rtl else suit_row
    said, fixed = suit_choice(sc, kind, suits)
    if said is not None:
        note.append((" " if fixed else "  ") + said, style="dim")
    hint = Text(" ")
    if acts:
        hint.append("Enter", style="bold")
        hint.append(" " + key("key", "bid" if kind == "bid" else "call") + " ")
        hint.append_text(sc.bid(state.sel_n, state.sel_suit))
        hint.append("  ")
    if turn.of("pass"):
        hint.append("p", style="bold")
        hint.append(" " + key("key", "pass") + "  ")
    if turn.of("with"):
        bid: Contract | Empty = standing_bid(v) or {}
        hint.append("w", style="bold")
        hint.append(" " + key("key", "With") + " ")
        hint.append_text(sc.bid(bid.get("n"), bid.get("suit")))
        hint.append("  ")
    hint.append_text(auction_state(sc))
    if sc.rtl:
        # the label at the right; the numbers and suits left to right, as they are
        return [units(sc.speech, [row, numbers], W),
                units(sc.speech, [suit_row, suits, note], W), sc.line(hint)]
    return [row, suit_row, hint]


def declare_lines(sc: Scene) -> list[Text]:
    v: MaybeView = sc.view or {}
    state = sc.state
    _ = sc._
    row = Text(" " + _("Declare") + " ", style="bold")
    numbers = Text(style="bold") if sc.rtl else row
    styles = {"sel": "reverse bold", "ok": "bold", "dim": "dim", "forbidden": "dim strike"}
    for n, st in sc.turn.declare_cells(state.sel_n):
        numbers.append(f" {n:>2} ", style=styles[st])
    info = Text(" ")
    forbidden = v.get("forbidden")
    if forbidden is not None:
        info.append(_("{n} is disabled: it would make the total 13 (you declare last).").format(
            n=forbidden) + " ", style="bold")
    decl = v.get("declarations") or []
    total = sum(d for d in decl if d is not None)
    so_far = _("Declared so far: {total}").format(total=total)
    hint = Text(" Enter", style="bold")
    if sc.rtl:              # the margin at the right, "Enter" a key kept as it is
        hint = Text(" ", style="bold")
        hint.append("Enter", style=Style(bold=True))
    hint.append(" " + _("declare {n}   digits choose (1 then 0–3 for 10–13)").format(
        n=state.sel_n))
    # the total beside the forbidden number's sentence where the row holds both, else
    # on the keys' row (neither is cut: issue 44; the scores show each declaration)
    if info.cell_len + cell_len(so_far) < W:
        info.append(so_far, style="dim")
    elif hint.cell_len + 3 + cell_len(so_far) < W:
        hint.append("   " + so_far, style="dim")
    if sc.rtl:
        return [units(sc.speech, [row, numbers], W), sc.line(hint), sc.line(info)]
    return [row, hint, info]


def acting_line(sc: Scene) -> Text:
    """Someone else's turn: who is acting (not in the play: the trick shows it), and
    that you are watching."""
    v: MaybeView = sc.view or {}
    _ = sc._
    who = v.get("to_act")
    t0 = Text(" ")
    if who is not None and v.get("phase") != "play":
        t0.append(_(ACTING.get(v.get("phase") or "", ACTING_ELSE)).format(who=sc.name(who)),
                  style="bold")
    if sc.facts.seat is None:
        t0.append("   " + _("(you are watching)"), style="dim")
    return t0


def waiting_lines(sc: Scene) -> list[Text]:
    v: MaybeView = sc.view or {}
    _ = sc._
    t0 = acting_line(sc)
    lines = [t0, BLANK, BLANK]
    if v.get("phase") in ("dash", "auction", "call"):
        lines[1] = auction_state(sc)
    elif v.get("phase") == "declare":
        decl = v.get("declarations") or []
        total = sum(d for d in decl if d is not None)
        lines[1] = Text(" " + _("Declared so far: {total}").format(total=total), style="dim")
    if sc.rtl:
        return [sc.line(line) for line in lines]
    return lines


def phase_hits(sc: Scene, lines: list[Text], y0: int) -> list[Hit]:
    """Taps on the phase's numbers and suits (rows from ``y0``): the standard picture's
    number row and suit row of a bid or a call, the number row of a declaration."""
    mode = sc.keys.mode
    if mode in ("bid", "call"):
        suits = {sc.look.suit(s): s for s in ("NT", "S", "H", "D", "C")}
        return (token_hits(lines[0], y0, "number", number_tokens())
                + token_hits(lines[1], y0 + 1, "suit", suits))
    if mode == "declare":
        return token_hits(lines[0], y0, "number", number_tokens())
    return []


def dash_offer(sc: Scene) -> str:
    """The dash offer's question: a fast round's trump is known already (its kind fixes
    it), so "before the trump is known" is said only where an auction is to come."""
    _ = sc._
    said = (_("{dash} call? Promise to win no trick at all.")
            if sc.view is not None and sc.view.get("fixed_trump")
            else _("{dash} call? Promise to win no trick at all, before the trump is known."))
    return said.format(dash=sc.term("dash", "Dash"))


# ---------------------------------------------------------------------- phase
def phase_rows(sc: Scene, cw: int) -> tuple[list[Text], list[Hit]]:
    """The phase's controls, in as many rows as the width needs, and their taps (rows
    from 0)."""
    v, state, _ = sc.view, sc.state, sc._
    mode = sc.keys.mode
    if v is None:                   # how many it waits for: the middle's note
        return said_lines(sc, Text(" " + seating_words(sc), style="dim"), cw), []
    if v.get("phase") == "over":
        return said_lines(sc, Text(" " + over_words(sc), style="bold"), cw), []
    if mode == "dash":
        lines = said_lines(sc, Text(" " + dash_offer(sc), style="bold"), cw)
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
    v: MaybeView = sc.view or {}
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
        bid: Contract | Empty = standing_bid(v) or {}
        parts.append(("w", key("key", "With") + " " + look.bid_str(bid.get("n"),
                                                                  bid.get("suit"))))
    keys = laid(sc, boxed(parts, cw - 1), cw)
    hits += key_hits(keys, len(rows))
    rows += keys
    rows += said_lines(sc, auction_state(sc), cw, 2)
    return rows, hits


def declare_rows(sc: Scene, cw: int) -> tuple[list[Text], list[Hit]]:
    v: MaybeView = sc.view or {}
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
    v: MaybeView = sc.view or {}
    _ = sc._
    lines: list[Text] = []
    t0 = acting_line(sc)
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
