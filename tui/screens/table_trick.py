"""The trick: the cards played around the table (a cross in the compact layout), or in its
place the round's summary or the match's result.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from ..widgets.board import BLANK
from .table_scene import Scene, said_lines
from .table_summary import (
    board_head,
    board_lines,
    result_lines,
    result_rows,
    summary_lines,
    summary_rows,
)
from .table_text import CARD_W, center, fit, join


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


Slot = tuple[str, Any]


def waiting_words(sc: Scene) -> str:
    """Before the match: how many players it waits for (its empty seats)."""
    empty = sum(1 for seat in sc.facts.seats if seat.kind == "empty")
    if not empty:                       # the last seat taken: it starts at once
        return sc._("The match begins")
    return sc.speech.ngettext("Waiting for {n} more player", "Waiting for {n} more players",
                              empty).format(n=empty)


def trick_slots(sc: Scene) -> tuple[dict[int, Slot], tuple[str, str]]:
    """What each seat's place at the middle shows, as plain values ("card", code) /
    ("pile", codes), and the note under it (text, style): the trick as it is played,
    the finished one on its way to its winner; before the match, only the note."""
    v, look, anim = sc.view, sc.look, sc.state.anim
    slots: dict[int, Slot] = {}
    note: tuple[str, str] = ("", "")            # (text, style)
    if v is None:
        # Before the match the places stay blank: each seat's name (or "(empty)") is
        # beside its place already; a mark there said it twice ("empty", or a ✓ for a
        # seat taken). The note says, once, how many are still to come (what the viewer
        # may do meanwhile, b or q, is the phase panel's: seating_words).
        note = (waiting_words(sc), "bold")
        return slots, note
    trick = v.get("trick") or []
    if not trick and anim is not None:
        who = sc.name(anim.winner)
        if not anim.moved:
            for c in anim.cards:
                slots[c["seat"]] = ("card", c["card"])
            note = (sc._("{who} takes the trick").format(who=who), "bold")
        else:
            note = (sc._("{who} took the trick").format(who=who), "bold")
            if not look.reduce_motion:
                slots[anim.winner] = ("pile", tuple(c["card"] for c in anim.cards))
    elif not trick and v.get("tricks"):
        last = v["tricks"][-1]
        note = (sc._("{who} took the last trick").format(who=sc.name(last["winner"])), "dim")
    for c in trick:
        slots[c["seat"]] = ("card", c["card"])
    if not note[0] and v.get("phase") == "play":
        lead = v.get("leader")
        if not trick and lead is not None:
            note = (sc._("{who} leads").format(who=sc.name(lead)), "dim")
    return slots, note


def _middle_lines(sc: Scene) -> list[Text]:
    facts, v, look = sc.facts, sc.view, sc.look
    # What each seat's slot shows: a row is built from it only when it changed (``kept``).
    if v is not None and v.get("phase") == "over":
        if facts.board is not None:
            return (board_lines(sc) + [Text("")] * 6)[:6]
        return ([Text(""), *result_lines(sc)] + [Text("")] * 6)[:6]
    if v is not None and v.get("phase") != "play" and v.get("history") and not v.get("tricks"):
        return (summary_lines(sc, v["history"][-1]) + [Text("")] * 6)[:6]
    slots, note = trick_slots(sc)
    pos = facts.positions()

    def slot(w: str) -> Slot | None:
        return slots.get(pos[w])

    def shown(d: Slot | None) -> Text:
        if d is None:
            return BLANK
        kind, what = d
        if kind == "card":
            return look.card(what)
        if kind == "pile":
            p = Text()
            for code in what:
                p.append_text(look.card(code, dim=True))
                p.append(" ")
            return p
        return Text(what, style="dim")

    def name(w: str) -> str:
        return sc.speech.show(sc.seat_label(pos[w])[:16])

    def named(label: str) -> Text:
        return Text(label, style="bold")

    def noted() -> Text:
        t = Text(note[0], style=note[1])
        return center(sc.speech.line(t, 0) if sc.rtl else t)

    kept, lk = sc.cache.kept, sc.look_key
    top, left, right = name("top"), name("left"), name("right")
    tslot, lslot, rslot, bslot = slot("top"), slot("left"), slot("right"), slot("bottom")
    return [BLANK,
            kept("top name", (lk, top), lambda: center(named(top))),
            kept("top card", (lk, tslot), lambda: center(shown(tslot))),
            kept("sides", (lk, left, lslot, rslot, right),
                 lambda: join(fit(named(left), 18), fit(shown(lslot), 13, right=True),
                              " " * 18, fit(shown(rslot), 13),
                              fit(named(right), 18, right=True))),
            kept("bottom card", (lk, bslot), lambda: center(shown(bslot))),
            kept("note", (lk, note), noted)]


CROSS_ROWS = 5       # the trick as a cross: top name, top card, the sides, bottom card, note


def played(sc: Scene) -> dict[int, Slot]:
    """The card each seat has in the trick (the finished one while it is still shown)."""
    v = sc.view
    if v is None or v.get("phase") != "play":
        return {}
    slots, _note = trick_slots(sc)
    return {s: slot for s, slot in slots.items() if slot[0] == "card"}


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
