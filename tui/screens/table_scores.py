"""The score panel: a row a seat (tags, bid or declaration, tricks, total), Tarneeb's
teams, and the latest events beside it. Its standard lines and its compact rows.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text

from ..i18n import N_
from .table_keys import pgettext
from .table_scene import Scene, said_lines
from .table_seats import seat_cells
from .table_text import Cell, W, cells_row, fit, join, right_align, wrap
from .table_trick import played

# The summary's bonus columns in the catalogue (context "column"; With, risk and
# dash are terms: ``tui.arabic``).
_COLUMNS = (pgettext("column", "caller"), pgettext("column", "sole"),
            pgettext("column", "super"))


# The score panel's tags: dealer, caller, With, dash, Tarneeb's teams (context "tag";
# drawn as English letters in English, looked up in the catalogue otherwise).
TAGS = {"D": pgettext("tag", "D"), "C": pgettext("tag", "C"), "W": pgettext("tag", "W"),
        "X": pgettext("tag", "X"), "a": pgettext("tag", "a"), "b": pgettext("tag", "b")}


# --------------------------------------------------------------------- scores
SCORE_HEAD = f"  {'player':<19}{'bid':>4}{'won':>4}{'total':>7}"
_SCORE_SEP = Text("│ ", style="dim")        # between the scores and the events


def score_head(sc: Scene) -> tuple[str, ...]:
    """The score panel's column names (player, bid, won, total) in the language."""
    sp = sc.speech
    return (sp.pgettext("column", "player"), sp.pgettext("column", "bid"),
            sp.pgettext("column", "won"), sp.pgettext("column", "total"))


def score_lines(sc: Scene) -> list[Text]:
    """Rows 2-6: the scores left, the latest events right.  Each row is keyed on
    its plain strings and the turn marker; its Text is built only when new.
    In an Arabic interface joined here the panel is mirrored: the scores at the
    right, their columns from the right, the events at the left; for a terminal
    that orders text itself it is sent in reading order (the scores first)."""
    v, rtl = sc.view, sc.rtl
    seats, rows, side = score_rows(sc)
    to_act = v.get("to_act") if v else None
    out = []
    drawn = sc.cache.scores         # rows, and their halves (English)
    if len(drawn) > 96:
        drawn.clear()
    marker = sc.look.style("bold yellow")
    lang = (sc.speech.code, sc.speech.mode)
    for i in range(5):
        # only the marker shows the turn: a move repaints two cells, not two rows
        turn = i > 0 and to_act == seats[i - 1]
        # the joined line is reused while its row and side text are unchanged
        key = (turn, rows[i], side[i], marker, lang)
        line = drawn.get(key)
        if line is None:
            plain = rows[i]
            text, style = side[i]
            if rtl and sc.speech.shaped:
                line = join(sc.line(Text(text, style=style), W - 38), Text(" │", style="dim"),
                            fit(score_row(sc, i, turn, plain, marker), 36))
            elif rtl:       # in reading order: the terminal lays it out
                line = join(fit(score_row(sc, i, turn, plain, marker), 36),
                            _SCORE_SEP, fit(Text(text, style=style), W - 38))
            else:
                # its two halves kept apart too: a trick taken scrolls the events (every
                # row's right half is the one below's), a turn moves the marker (left)
                left_key = ("left", i == 0, turn, plain, marker)
                left = drawn.get(left_key)
                if left is None:
                    if i == 0:
                        row = Text(plain, style="bold underline")
                    else:
                        row = Text(no_wrap=True)
                        row.append("▶ " if turn else "  ", style=marker)
                        row.append(plain)
                    left = drawn[left_key] = fit(row, 36)
                right_key = ("right", text, style)
                right = drawn.get(right_key)
                if right is None:
                    right = drawn[right_key] = fit(Text(text, style=style), W - 38)
                line = join(left, _SCORE_SEP, right)
            drawn[key] = line
        out.append(line)
    return out


# What the score panel shows of a view besides the turn (``score_rows``, ``side_lines``).
_SCORE_VIEW = ("dealer", "caller", "with_players", "dash_players", "teams", "declarations",
               "tricks_taken", "totals", "team_totals", "round")


def _tuple(x: Any) -> Any:
    """A view's list (of lists) as a key: tuples all the way down (a list of numbers,
    the usual one, at once)."""
    if not isinstance(x, list):
        return x
    t = tuple(x)
    try:
        hash(t)
    except TypeError:               # lists in it (Tarneeb's teams)
        return tuple(map(_tuple, x))
    return t


Rows = tuple[tuple[int, ...], tuple[Any, ...], list[tuple[str, str]]]


def score_rows(sc: Scene) -> Rows:
    """The seats from the viewer round (bottom, right, top, left), the panel's rows
    as plain strings (the head first) and the events beside them; kept by what
    they show, since building them cost ~0.1 ms a frame and a card played changes
    none of it (only the turn marker)."""
    facts, v = sc.facts, sc.view
    rnd = v.get("round") if v else None
    key = ("scores", sc.look_key, facts.game, facts.seat, facts.seats, shown_events(sc, rnd),
           None if not v else tuple(map(_tuple, map(v.get, _SCORE_VIEW))))
    hit = sc.cache.section(key)
    if hit is None:
        hit = sc.cache.keep(key, _score_rows(sc))
    return hit


def shown_events(sc: Scene, rnd: int | None) -> tuple[tuple[str, Any], ...]:
    """The last five events of round ``rnd`` (or of none), each with the template it
    was said from: kept while the table's events are the same object (``narration``)."""
    events = sc.facts.events
    drew = sc.cache.events
    if drew is not None and drew[0] is events and drew[1] == rnd:
        return drew[2]
    shown = tuple((text, getattr(text, "template", None)) for text in
                  [text for r, text in events if r is None or r == rnd][-5:])
    sc.cache.events = (events, rnd, shown)
    return shown


def _score_rows(sc: Scene) -> Rows:
    facts, rtl = sc.facts, sc.rtl
    rows: list[Any] = [score_head(sc) if rtl else SCORE_HEAD]
    pos = facts.positions()
    seats = (pos["bottom"], pos["right"], pos["top"], pos["left"])
    for s in seats:
        label, suffix, tags, decl, tricks, total = seat_cells(sc, s, 14)
        name = sc.say(label) + suffix
        if rtl:
            # Arabic letters would join into a word: a space between two tags
            tags = " ".join(sc.speech.pgettext("tag", t) for t in tags)
            rows.append((name, tags, decl, tricks, total))
        else:
            rows.append(f"{name[:14]:<14} {tags:<4}{decl:>4}{tricks:>4}{total:>7}")
    return seats, tuple(rows), side_lines(sc)


def score_row(sc: Scene, i: int, turn: bool, cells: tuple[str, ...], marker: str) -> Text:
    """A row of the score panel, mirrored (an Arabic interface): 0 is the head."""
    if i == 0:
        player, bid, won, total = cells
        return cells_row(sc.speech, [Cell("", 2), Cell(player, 19), Cell(bid, 4, True),
                                     Cell(won, 4, True), Cell(total, 7, True)],
                         style="bold underline")
    name, tags, decl, tricks, total = cells
    return cells_row(sc.speech, [Cell("◀" if turn else "", 2, style=marker), Cell(name, 14),
                                 Cell("", 1), Cell(tags, 4), Cell(decl, 4, True),
                                 Cell(tricks, 4, True), Cell(total, 7, True)])


TEAMS_LINE = N_("Teams  a {a} ({first})  ·  b {b} ({second})")
TEAM_LINES = (N_("Team a  {total}  ({names})"), N_("Team b  {total}  ({names})"))
NAME_CUT = 8            # a name in the teams' line: at most its first 8 characters


def team_lines(sc: Scene, totals: list[int], teams: list[list[int]], width: int
               ) -> list[tuple[str, str]]:
    """Tarneeb's teams, their totals and who is in each (both teams named): one line
    if it fits ``width`` cells, else a line a team (names cut to fit)."""
    def names(team: list[int], limit: int) -> str:
        return "+".join(sc.name(seat, False, limit) for seat in team)

    one = sc._(TEAMS_LINE).format(a=totals[0], b=totals[1], first=names(teams[0], NAME_CUT),
                                   second=names(teams[1], NAME_CUT))
    if cell_len(one) <= width:
        return [(one, "bold")]
    out = []
    for template, total, team in zip(TEAM_LINES, totals, teams, strict=True):
        bare = cell_len(sc._(template).format(total=total, names="+"))
        limit = max(3, min(NAME_CUT, (width - bare) // 2))
        out.append((sc._(template).format(total=total, names=names(team, limit)), "bold"))
    return out


def side_lines(sc: Scene, width: int = W - 38) -> list[tuple[str, str]]:
    """Right of the scores, ``width`` cells: Tarneeb teams, then the latest events
    (text, style), the newest whole over the rows it needs (wrapped at its words: a
    line of scores is never cut in a number), the older above it as hold whole."""
    facts, v = sc.facts, sc.view
    out: list[tuple[str, str]] = []
    team_totals = v.get("team_totals") if v else None
    if v and team_totals:
        out += team_lines(sc, team_totals, v.get("teams") or [[0, 2], [1, 3]], width)
    rnd = v.get("round") if v else None
    evs = [text for r, text in facts.events if (r is None or r == rnd) and sc.told(text)]
    room = 5 - len(out)
    evs = evs[-room:]
    cache = sc.cache
    said: list[tuple[str, str]] = []
    for i, text in reversed(list(enumerate(evs))):
        key = ("pretty", text, getattr(text, "template", None), sc.look_key)
        shown = cache.section(key)
        if shown is None:
            shown = cache.keep(key, sc.narrate(text))
        style = "bold" if i == len(evs) - 1 else "dim"
        parts = [p.plain for p in wrap(Text(shown), width, "  ")] if width else [shown]
        if len(parts) > room - len(said):
            if said:
                break           # an older one that does not hold whole (all of it: e)
            parts = parts[:room]
            cut = parts[-1].rstrip()        # the newest itself: ends after a whole word
            while cut and cell_len(cut) + 2 > width:
                k = cut.rfind(" ")
                cut = cut[:k].rstrip() if k > 0 else ""
            parts[-1] = cut + " …"
        said = [(p, style) for p in parts] + said
        if len(said) >= room:
            break
    out += said
    return out + [("", "")] * (5 - len(out))


EVENTS_FROM = 20     # columns left beside the scores from which the events are shown


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
        label, suffix, tags, decl, tricks, total = seat_cells(sc, s, nw)
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
