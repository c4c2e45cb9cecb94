"""The info bar and the note under it: the table, the round, trump and caller, the timer; a
notice or a refusal. Its standard line and its compact rows.
"""

from __future__ import annotations

from rich.text import Text

from ..i18n import N_
from ..widgets.board import BLANK
from .table_scene import Scene, said_in, said_lines
from .table_text import W, fit, join, rtl_fit, wrap

KIND_WORDS = {"fast": N_("fast"), "fixed": N_("fixed")}
LENGTH_WORDS = {"micro": N_("micro"), "mini": N_("mini"), "full": N_("full")}


# ----------------------------------------------------------------------- info
def info_line(sc: Scene) -> Text:
    facts, v = sc.facts, sc.view
    left = facts.seconds_left
    secs = None if left is None else int(left + 0.999)
    call = v.get("call") if v else None
    key = ("info", sc.look_key, facts.id, facts.title, facts.length, facts.game,
           facts.practice, facts.code_label, facts.seat, facts.deadline_seat, secs, facts.board,
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
    facts, v, look, _ = sc.facts, sc.view, sc.look, sc._
    bar = look.style("bold reverse") if not look.colour else "bold white on blue"
    t = Text(no_wrap=True, overflow="ellipsis", style=bar)
    t.append(f" #{facts.id} ")
    t.append(sc.game_title())
    if facts.board is not None and v is not None:
        # An event's board: which, in place of the match's length and round.
        t.append(" · " + _("Event {event}, board {n} of {total}").format(
            event=facts.board[0], n=facts.board[1], total=facts.board[2]))
    elif facts.length is not None and sc.terms.counted:
        length = facts.length
        t.append(f" {sc._(LENGTH_WORDS[length]) if length in LENGTH_WORDS else length}")
    if facts.practice:
        t.append(" · " + _("Practice"))
    if v is None:
        t.append(" · " + _("waiting for players"))
        if facts.code_label:
            t.append(" · " + _("private, code {code}").format(code=facts.code_label))
    else:
        if facts.board is not None:
            pass
        elif v.get("rounds"):
            t.append(" · " + _("Round {n} of {total}").format(n=v["round"], total=v["rounds"]))
        else:
            t.append(" · " + _("Hand {n}").format(n=v["round"]))
        kind = v.get("kind")
        if kind in ("fast", "fixed"):
            ft = v.get("fixed_trump")
            t.append(" (" + _(KIND_WORDS[kind]) + f" {look.suit(ft)})")
        trump = v.get("trump")
        t.append(" · " + sc.game_word("Trump") + " ")
        t.append(look.suit(trump) if trump else "—")
        call = v.get("call")
        if call and v.get("caller") is not None:
            t.append(" · " + _("Call") + f" {look.bid_str(call.get('n'), call.get('suit'))} "
                     f"{sc.name(v['caller'], you=False)}")
        if (v.get("multiplier") or 1) > 1:
            if sc.rtl:      # the dot with the words: "×2" is kept whole, left to right
                t.append(" · ")
                t.append(f"×{v['multiplier']}", style="bold")
            else:
                t.append(f" · ×{v['multiplier']}", style="bold")
        shown = v.get("shown_card")
        if shown:
            t.append(" · " + _("Shown") + f" {look.card_str(shown)}")
    right = Text(" " * 6, style=bar)
    left = facts.seconds_left
    if left is not None:
        secs = int(left + 0.999)
        mine = facts.deadline_seat == facts.seat
        if sc.rtl:
            shown = sc.speech.show(_("{n}s").format(n=secs))
            right = Text(f" {shown:>4} ", style=bar)
        else:
            right = Text(f" {secs:>3}s ", style=bar)
        if mine and secs <= 10:
            right.stylize(look.style("bold red on white"))
    if sc.rtl:          # the timer at the left, the line read from the right
        line = rtl_fit(sc.speech, t, W - 6)
        line.style = bar
        # (in reading order, the timer last, for a terminal that orders text itself)
        return join(right, line) if sc.speech.shaped else join(line, right)
    t.append(" " * max(0, W - 6 - t.cell_len))
    return join(fit(t, W - 6), right)


def note_lines(sc: Scene) -> list[Text]:
    """Row 1 (``note_line``); a notice too long for it (a hint) whole, in as many
    lines as it needs (three at most: a hint takes two at 80 columns)."""
    state = sc.state
    if state.notice and sc.now < state.notice_until:
        said = Text(" " + sc.say(sc._(state.notice)), style=sc.look.style("bold"))
        return [sc.line(part) for part in wrap(said, W - 1)]
    return [note_line(sc)]


def over_under(sc: Scene) -> list[str]:
    """Once every declaration is in, as the table says it aloud: "Under by 1", "Over
    by 3" and, when the last declarer is in risk, "dua at risk" (the engine's view
    decides both: E-22, E-23, K-9). Nothing before, nor in Tarneeb."""
    said = sc.view.get("over_under") if sc.view is not None else None
    if not said:
        return []
    _ = sc._
    parts = [(_("Over by {n}") if said["over"] else _("Under by {n}")).format(n=said["by"])]
    if said["at_risk"] is not None:
        parts.append(_("{name} at {risk}").format(name=sc.name(said["at_risk"]),
                                                  risk=sc.term("risk", "risk")))
    return parts


def note_line(sc: Scene) -> Text:
    """Row 1: where you landed, the seat you wait for, or, while a round is played,
    over or under and who is at risk (a private table's code after them)."""
    facts, look, state = sc.facts, sc.look, sc.state
    if state.notice and sc.now < state.notice_until:
        return sc.line(Text(" " + sc.say(sc._(state.notice)), style=look.style("bold")))
    if facts.request is not None:
        return sc.line(Text(" " + said_in(sc.speech, facts.request), style=look.style("bold")))
    tally = over_under(sc)
    if tally:
        # (the code said short: four players are seated, nobody is waiting to come in)
        said = Text(" " + " · ".join(tally), style=look.style("bold"))
        if facts.code_label:
            said.append(" · " + sc._("private, code {code}").format(code=facts.code_label),
                        style=look.style("dim"))
        return sc.line(said)
    if facts.code_label and sc.view is not None:
        return sc.line(Text(" " + sc._("Private table · code {code} · friends press j in the "
                                       "lobby and type it").format(code=facts.code_label),
                            style=look.style("dim")))
    return BLANK


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
                                        "call", "caller", "multiplier", "shown_card",
                                        "over_under")))))
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
        parts += [Text(said) for said in over_under(sc)]
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
    # Two rows, a third only for over or under when the two are full (40 columns)
    for i, row in enumerate(rows[:3 if over_under(sc) else 2]):
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


def message_rows(sc: Scene, cw: int) -> list[Text]:
    """A refusal while it is shown, else where you landed, your wait for a seat, or the
    private table's code."""
    state, facts, look = sc.state, sc.facts, sc.look
    from .table_scene import said_in
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
