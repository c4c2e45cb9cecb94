"""A driven table's frame and lobby row as they cross processes (``remote.py``): made
by the driver (``frame_of``), read back exactly (``pack``/``unpack``) and checked whole
by every process that shows them (``checked_frame``, ``checked_row``): rows another
process wrote are input like any other.
"""

from __future__ import annotations

import asyncio
from typing import Any, NotRequired, TypedDict, TypeGuard, cast

from engine import Length, View
from engine.duplicate import BOARDS, plan

from .boards import EventBoard
from .catalogue import DEFAULT_LEVEL, parse_game, parse_length, parse_timer
from .errors import RoomError, Said
from .rows import LobbyRow, SeatRow
from .store import Points, SeatSettings
from .table import Table
from .text import clean_name


# ------------------------------------------------------------------ exact JSON
# Frames cross processes as JSON that comes back exactly: views have int-keyed dicts
# and the narration is Said (template and parameters, said in each player's language).
def pack(obj: Any) -> Any:
    if isinstance(obj, Said):
        return {"$said": obj.template, "p": {k: pack(v) for k, v in obj.params.items()}}
    if isinstance(obj, RoomError):
        return {"$said": obj.template, "p": {k: pack(v) for k, v in obj.params.items()}}
    if isinstance(obj, dict):
        if all(isinstance(k, str) and not k.startswith("$") for k in obj):
            return {k: pack(v) for k, v in obj.items()}
        return {"$d": [[pack(k), pack(v)] for k, v in obj.items()]}
    if isinstance(obj, tuple):
        return {"$t": [pack(v) for v in obj]}
    if isinstance(obj, list):
        return [pack(v) for v in obj]
    return obj


def unpack(obj: Any) -> Any:
    if isinstance(obj, list):
        return [unpack(v) for v in obj]
    if isinstance(obj, dict):
        if "$said" in obj:
            return Said(obj["$said"], **{k: unpack(v) for k, v in obj.get("p", {}).items()})
        if "$d" in obj:
            return {unpack(k): unpack(v) for k, v in obj["$d"]}
        if "$t" in obj:
            return tuple(unpack(v) for v in obj["$t"])
        return {k: unpack(v) for k, v in obj.items()}
    return obj


# ------------------------------------------------------------------ rows read
# What another process wrote is hostile input (another version, a bug, a hand in the
# database): its types are checked before anything here reads it, and a lobby row is
# built again from the checked fields only, its names cleaned as a restored match's.
class Damaged(ValueError):
    """A table's shared row or frame that cannot be shown here (the message says why)."""


STATUSES = ("waiting", "playing", "over")


def is_int(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _seat_no(v: object, none: bool = False) -> bool:
    """A seat number 0–3 (or None, if ``none``)."""
    return (none and v is None) or (is_int(v) and 0 <= v < 4)


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise Damaged(what)


def _checked_seat(pub: object) -> SeatRow:
    _need(isinstance(pub, dict), "a seat is not an object")
    assert isinstance(pub, dict)
    kind, name = pub.get("kind"), pub.get("name")
    _need(kind in ("empty", "human", "bot"), f"a seat's kind is {kind!r}")
    _need(name is None or isinstance(name, str), "a seat's name is not text")
    _need(isinstance(pub.get("guest"), bool), "a seat's guest mark is not true or false")
    _need(isinstance(pub.get("connected", True), bool), "a seat's connected is not true "
                                                         "or false")
    return {"kind": pub["kind"], "name": None if name is None else clean_name(name),
            "guest": pub["guest"], "connected": pub.get("connected", True)}


def checked_lobby_row(tid: str, row: object) -> LobbyRow:
    """``row`` (a table's lobby row, ``Table.summary``) built again from its checked
    fields; Damaged if one is missing or of another type."""
    _need(isinstance(row, dict), "its row is not an object")
    assert isinstance(row, dict)
    _need(row.get("id") == tid, f"its row names table {row.get('id')!r}")
    try:
        game = parse_game(row.get("game"))
        length = parse_length(game, row.get("length"))
        timer = parse_timer(row.get("timer"))
    except RoomError as e:
        raise Damaged(f"{e} (game {row.get('game')!r}, length {row.get('length')!r}, "
                      f"timer {row.get('timer')!r})") from None
    _need(isinstance(row.get("private"), bool), "its private is not true or false")
    _need(row.get("status") in STATUSES, f"its status is {row.get('status')!r}")
    for key in ("round", "rounds"):
        _need(row.get(key) is None or is_int(row.get(key)), f"its {key} is not a number")
    spectators = row.get("spectators")
    _need(is_int(spectators) and spectators >= 0, "its spectators are not a count")
    seats = row.get("seats")
    _need(isinstance(seats, list) and len(seats) == 4, "it has not four seats")
    assert isinstance(seats, list)
    out: LobbyRow = {"id": tid, "game": game, "length": length, "timer": timer,
                     "private": row["private"], "status": row["status"],
                     "round": row.get("round"), "rounds": row.get("rounds"),
                     "seats": [_checked_seat(p) for p in seats], "spectators": row["spectators"]}
    if "code" in row:
        _need(row["code"] is None or isinstance(row["code"], str), "its code is not text")
        out["code"] = row["code"]
    if "practice" in row:
        _need(isinstance(row["practice"], bool), "its practice is not true or false")
        out["practice"] = row["practice"]
    if "ranked" in row:         # the lobby marks a ranked table, wherever it plays
        _need(isinstance(row["ranked"], bool), "its ranked is not true or false")
        out["ranked"] = row["ranked"]
    if "event" in row:
        ev = row["event"]
        _need(isinstance(ev, dict) and all(is_int(ev.get(k)) for k in ("id", "board", "boards"))
              and 1 <= ev["board"] <= ev["boards"] <= BOARDS[1],
              "its event is not an event's board")
        out["event"] = {"id": ev["id"], "board": ev["board"], "boards": ev["boards"]}
    return out


def shown_board(game: str, row: LobbyRow) -> EventBoard | None:
    """An event's board as another process's row shows it: which event and board (its
    seed and entrant stay with its driver)."""
    ev = row.get("event")
    if ev is None:
        return None
    return EventBoard(ev["id"], ev["board"], ev["boards"], plan(game, ev["boards"], ev["board"]),
                      0, 0, "")


# A table's shared row as read (``Cluster.fetch_rows``, or a notice that carried it):
# its fields are JSON as another process wrote them, checked by ``checked_row``; one
# that could not be read as JSON is marked "$damaged" (why).
RowRead = TypedDict("RowRead", {"id": str, "driver": str, "row": object, "holders": object,
                                "code": object, "creator": object, "$damaged": str},
                    total=False)


class SharedRow(TypedDict):
    """A table as every process lists it (``checked_row``): its lobby row, its seats'
    holders (their identities) and its private code, and who made it."""
    id: str
    row: LobbyRow
    holders: list[str | None]
    code: str | None
    creator: str | None


def checked_row(info: RowRead) -> SharedRow:
    """A table's shared row as ``Cluster.fetch_rows`` read it, checked (Damaged if not
    whole): its lobby row, seat holders and code."""
    _need("$damaged" not in info, str(info.get("$damaged")))
    tid = info.get("id")
    _need(isinstance(tid, str), "its id is not text")
    assert isinstance(tid, str)
    holders = info.get("holders")
    _need(isinstance(holders, list) and len(holders) == 4
          and all(h is None or isinstance(h, str) for h in holders),
          "its seat holders are not four identities")
    assert isinstance(holders, list)
    code = info.get("code")
    _need(code is None or isinstance(code, str), "its code is not text")
    assert code is None or isinstance(code, str)
    creator = info.get("creator")
    _need(creator is None or (isinstance(creator, str) and len(creator) <= 400),
          "its creator is not an identity")
    assert creator is None or isinstance(creator, str)
    return {"id": tid, "row": checked_lobby_row(tid, info.get("row")), "holders": holders,
            "code": code, "creator": creator}


class ShownFrame(TypedDict):
    """A driver's frame as ``checked_frame`` gives it (unpacked, every field read here
    of its type): what a process that shows the table shows (``Replica.apply_frame``)."""
    id: str
    driver: str             # the process that drives the table
    epoch: int              # its turn at driving it (a takeover begins another)
    game: str
    length: Length
    timer: int
    private: bool
    code: str | None
    status: str
    version: int
    views: dict[int | None, View] | None    # by seat (None: a watcher's)
    events: list[list[Any]]     # the narration: [seat, action, text, round]
    chat: list[list[str]]       # [name, line]
    said: NotRequired[object]   # lines said in all (an older driver's frame has none)
    seats: list[SeatSettings]
    deadline_in: float | None   # seconds left on the turn timer
    deadline_seat: int | None
    points: Points | None
    between: bool
    match_id: NotRequired[int | None]
    takeovers: dict[str, str]   # seat (its number as text) -> the identity it waits for
    row: LobbyRow
    creator: NotRequired[str | None]    # (as written: not checked)
    seq: NotRequired[int]       # the last of its events it holds


FRAME_KEYS = ("code", "views", "events", "chat", "seats", "deadline_in", "deadline_seat",
              "points", "match_id", "takeovers", "between", "row", "status", "version")


def checked_frame(tid: str, f: object) -> ShownFrame:
    """A frame (unpacked) whose every field this process reads is of its type; Damaged
    if not. A seat's view is filed under that seat (``view_of`` gives it by seat)."""
    _need(isinstance(f, dict), "its frame is not an object")
    assert isinstance(f, dict)
    _need("$damaged" not in f, f"its frame is not JSON ({f.get('$damaged')})")
    # What the replica reads with [] is there (a frame without it is damaged, said as
    # such, not a KeyError in the log).
    missing = [k for k in FRAME_KEYS if k not in f]
    _need(not missing, f"its frame has no {', '.join(missing)[:80]}")
    _need(f.get("id") == tid, f"its frame names table {f.get('id')!r}")
    _need(isinstance(f.get("driver"), str) and is_int(f.get("epoch")),
          "its frame's driver is not named")
    try:
        parse_length(parse_game(f.get("game")), f.get("length"))
        parse_timer(f.get("timer"))
    except RoomError as e:
        raise Damaged(f"its frame: {e}") from None
    _need(isinstance(f.get("private"), bool), "its frame's private is not true or false")
    _need(f.get("code") is None or isinstance(f.get("code"), str),
          "its frame's code is not text")
    _need(f.get("status") in STATUSES, f"its frame's status is {f.get('status')!r}")
    _need(is_int(f.get("version")), "its frame's version is not a number")
    views = f.get("views")
    if views is not None:
        _need(isinstance(views, dict), "its frame's views are not an object")
        assert isinstance(views, dict)
        for seat, view in views.items():
            _need(_seat_no(seat, none=True) and isinstance(view, dict)
                  and view.get("seat") == seat, "a view in its frame is not its seat's")
            hand = view.get("hand", [])
            _need(isinstance(hand, list) and all(isinstance(c, str) for c in hand),
                  "a hand in its frame is not cards")
    events = f.get("events")
    _need(isinstance(events, list) and all(
        isinstance(e, list) and len(e) == 4 and _seat_no(e[0], none=True)
        and (e[1] is None or isinstance(e[1], dict)) and isinstance(e[2], str)
        and (e[3] is None or is_int(e[3])) for e in events),
        "its frame's narration is not events")
    chat = f.get("chat")
    _need(isinstance(chat, list) and all(
        isinstance(c, list) and len(c) == 2 and all(isinstance(x, str) for x in c)
        for c in chat), "its frame's chat is not lines")
    seats = f.get("seats")
    _need(isinstance(seats, list) and len(seats) == 4 and all(
        isinstance(x, dict) and x.get("kind") in ("empty", "human", "bot")
        and all(x.get(k) is None or isinstance(x.get(k), str)
                for k in ("name", "ident", "replaced"))
        and isinstance(x.get("level", DEFAULT_LEVEL), str) for x in seats),
        "its frame's seats are not four seats")
    deadline = f.get("deadline_in")
    _need(deadline is None or (isinstance(deadline, (int, float))
                               and not isinstance(deadline, bool)),
          "its frame's turn timer is not a number")
    _need(_seat_no(f.get("deadline_seat"), none=True), "its frame's timed seat is no seat")
    points = f.get("points")
    _need(points is None or (isinstance(points, dict) and all(
        _seat_no(k) and isinstance(v, dict) and is_int(v.get("points"))
        and (v.get("badge") is None or isinstance(v.get("badge"), str))
        for k, v in points.items())), "its frame's level points are not points")
    _need(isinstance(f.get("between"), bool), "its frame's between is not true or false")
    _need(f.get("match_id") is None or is_int(f.get("match_id")),
          "its frame's match is not a number")
    takeovers = f.get("takeovers")
    _need(isinstance(takeovers, dict) and all(
        isinstance(k, str) and k in ("0", "1", "2", "3") and isinstance(v, str)
        for k, v in takeovers.items()), "its frame's promised seats are not seats")
    creator = f.get("creator")
    _need(creator is None or (isinstance(creator, str) and len(creator) <= 400),
          "its frame's creator is not an identity")
    return cast("ShownFrame", {**f, "row": checked_lobby_row(tid, f.get("row"))})


def frame_of(table: Table, driver: str, epoch: int) -> dict[str, Any]:
    """What ``table`` shows now, for the processes that show it elsewhere."""
    loop = asyncio.get_running_loop()
    # Seconds left, not a time: another machine's clock may differ.
    deadline_in = None if table.deadline is None else table.deadline - loop.time()
    seats = []
    for s in table.seats:
        info = s.settings()
        info["connected"] = s.kind != "human" or s.member is not None
        seats.append(info)
    frame: dict[str, Any] = pack({
        "id": table.id, "driver": driver, "epoch": epoch,
        "game": table.game, "length": table.length, "timer": table.timer,
        "private": table.private, "code": table.code, "status": table.shown_status,
        "version": table.version, "views": shared_history(table.views),
        "events": [[e.seat, e.action, e.text, e.round] for e in table.events],
        "chat": [list(c) for c in table.chat], "said": table.chat_said, "seats": seats,
        "deadline_in": deadline_in, "deadline_seat": table.deadline_seat,
        "points": table.points, "match_id": table.match_id,
        "takeovers": {str(seat): m.ident for seat, m in table.takeovers.items()},
        "between": table.between_rounds(), "row": table.summary(),
        "creator": table.creator,       # who decides before the start (docs/roles.md)
    })
    return frame


# ------------------------------------------------------------------ events
# A table's changes cross processes as the events that made them (issue 41), numbered
# in the table's order: a line of chat is its lines (only the new ones, never merged
# into a snapshot), any other change ("state": an action, its narration, the turn timer;
# "seats": a seat taken or left) is the frame's part that is not chat. A process that
# shows the table applies them in order to the frame it holds (``merged``); a gap in the
# numbers is filled from the stored events (``Cluster.fetch_events``).
EVENT_KINDS = ("state", "seats", "chat")
CHAT_PARTS = ("chat", "said")


class TableEvent(TypedDict):
    """One of a table's changes as its driver writes it (``events_of``)."""
    seq: int                # its number in the table's order
    kind: str               # one of EVENT_KINDS
    driver: str
    epoch: int
    version: int            # the frame's version once it is applied
    lines: NotRequired[list[Any]]       # "chat": the new lines (packed)
    said: NotRequired[int]              # "chat": lines said in all
    part: NotRequired[dict[str, Any]]   # else: the frame's part that is not chat, packed


def _watcher_view(views: object) -> dict[str, Any] | None:
    """The watcher's view in packed views (it holds the match's history once)."""
    if isinstance(views, dict) and isinstance(views.get("$d"), list):
        for pair in views["$d"]:
            if isinstance(pair, list) and len(pair) == 2 and pair[0] is None \
                    and isinstance(pair[1], dict):
                return pair[1]
    return None


def watcher_history(frame: dict[str, Any]) -> list[Any] | None:
    """The match's history a packed frame holds (the watcher's view's), if any."""
    view = _watcher_view(frame.get("views"))
    history = view.get("history") if view is not None else None
    return history if isinstance(history, list) else None


def _with_history(views: dict[str, Any], history: object) -> dict[str, Any]:
    """Packed ``views`` whose watcher's view holds ``history`` instead."""
    return {"$d": [[k, {**v, "history": history} if k is None else v]
                   for k, v in views["$d"]]}


def events_of(frame: dict[str, Any], tells: list[str], seq: int, said_before: int,
              version_before: int, history_before: list[Any] | None = None
              ) -> list[TableEvent]:
    """The events a driver's ``frame`` (``frame_of``, packed) is written with, for the
    changes its members are told (``tells``, in order), numbered from ``seq``: one a
    kind, in the order first told ("state" stands for "seats" too: it holds them). A
    line said before the state changed carries the version before it (screens redraw
    on a version: it is the state's). The match's history, when it only grew since the
    last event (``history_before``), is only what it gained: ``{"$from": n, "$add":
    [...]}`` (late in a match the history is most of a frame's bytes)."""
    kinds: list[str] = []
    for what in tells:
        kind = "state" if what == "seats" and "state" in tells else what
        if kind in EVENT_KINDS and kind not in kinds:
            kinds.append(kind)
    out: list[TableEvent] = []
    said = frame.get("said", 0)
    version = version_before
    for kind in kinds:
        if kind != "chat":
            version = frame["version"]
        ev: TableEvent = {"seq": seq, "kind": kind, "driver": frame["driver"],
                          "epoch": frame["epoch"], "version": version}
        if kind == "chat":
            new = max(0, min(said - said_before, len(frame["chat"])))
            if new == 0:
                continue
            ev["lines"] = frame["chat"][len(frame["chat"]) - new:]
            ev["said"] = said
        else:
            part = {k: v for k, v in frame.items() if k not in CHAT_PARTS}
            view = _watcher_view(part.get("views"))
            history = view.get("history") if view is not None else None
            n = len(history_before) if history_before is not None else -1
            if isinstance(history, list) and 0 < n <= len(history) \
                    and history[n - 1] == history_before[n - 1]:       # type: ignore[index]
                part["views"] = _with_history(part["views"],
                                              {"$from": n, "$add": history[n:]})
            ev["part"] = part
        out.append(ev)
        seq += 1
    if out:
        out[-1]["version"] = frame["version"]   # the last one leaves it where the frame is
    return out


def merged(frame: dict[str, Any], ev: object, keep: int) -> dict[str, Any]:
    """``frame`` (packed, as read) with the event ``ev`` (as read: hostile, checked
    here; the frame made is checked whole by ``checked_frame``) applied; Damaged, and
    nothing else, if it cannot be."""
    try:
        return _merged(frame, ev, keep)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as e:
        raise Damaged(f"its event cannot be applied ({type(e).__name__})") from None


def _merged(frame: dict[str, Any], ev: object, keep: int) -> dict[str, Any]:
    _need(isinstance(ev, dict), "its event is not an object")
    assert isinstance(ev, dict)
    kind = ev.get("kind")
    _need(kind in EVENT_KINDS, f"its event's kind is {str(kind)[:40]!r}")
    _need(is_int(ev.get("seq")) and is_int(ev.get("epoch")) and is_int(ev.get("version"))
          and isinstance(ev.get("driver"), str), "its event is not numbered")
    f = dict(frame)
    if kind == "chat":
        lines, said = ev.get("lines"), ev.get("said")
        _need(isinstance(lines, list) and is_int(said), "its chat event is not lines")
        assert isinstance(lines, list) and isinstance(said, int)
        chat = frame.get("chat")
        # By the count of lines said: a whole frame written while this event was due
        # holds its lines already (they are not said twice).
        had = frame.get("said")
        new = len(lines) if not is_int(had) else max(0, min(len(lines), said - had))
        if new:
            f["chat"] = ((list(chat) if isinstance(chat, list) else [])
                         + lines[len(lines) - new:])[-keep:]
        f["said"] = max(said, had) if is_int(had) else said
    else:
        part = ev.get("part")
        _need(isinstance(part, dict) and not any(k in part for k in CHAT_PARTS),
              "its event's state is not an object")
        assert isinstance(part, dict)
        view = _watcher_view(part.get("views"))
        grown = view.get("history") if view is not None else None
        if isinstance(grown, dict):
            # Only what the history gained since the last event: added to the one held.
            held = _watcher_view(frame.get("views"))
            old = held.get("history") if held is not None else None
            n, add = grown.get("$from"), grown.get("$add")
            _need(isinstance(old, list) and is_int(n) and 0 <= n <= len(old)
                  and isinstance(add, list), "its event's history does not follow on")
            assert isinstance(old, list) and isinstance(n, int) and isinstance(add, list)
            part = {**part, "views": _with_history(part["views"], old[:n] + add)}
        f.update(part)
    f.update(driver=ev["driver"], epoch=ev["epoch"], version=ev["version"], seq=ev["seq"])
    return f


# What is the same in every seat's view and is most of their bytes (the match's finished
# rounds; the round's tricks so far): said once in a frame, under the watcher's view.
SAID_ONCE = ("history", "tricks")


def shared_history(views: dict[int | None, Any] | None) -> dict[Any, Any] | None:
    """The views with what is the same in all of them (``SAID_ONCE``) said once, under
    the watcher's view (a seat's view says ``"$history"``, ``"$tricks"``)."""
    if views is None:
        return None
    pub = views.get(None)
    if pub is None:
        return dict(views)
    shared = [(key, pub.get(key)) for key in SAID_ONCE if pub.get(key)]
    if not shared:
        return dict(views)
    out: dict[Any, Any] = {}
    for seat, view in views.items():
        if seat is not None:
            same = [key for key, value in shared if view.get(key) == value]
            if same:
                view = dict(view)
                for key in same:
                    view[key] = "$" + key
        out[seat] = view
    return out


def whole_history(views: dict[Any, Any] | None) -> dict[Any, Any] | None:
    """Views as ``shared_history`` made them, whole again."""
    if views is None or None not in views:
        return views
    pub = views[None]
    for view in views.values():
        for key in SAID_ONCE:
            if view.get(key) == "$" + key:
                view[key] = pub.get(key)
    return views
