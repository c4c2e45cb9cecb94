"""Duplicate events in the table engine (engine/room/duplicate.py), one process, the
room's memory store: who sees which event and when, what an event's board lets
anyone do, entries (one per key, shared by its names; guests unranked), caps, and
every refusal leaving things as they were."""

from __future__ import annotations

import pytest
from eventplay import bot_move, contrary, play_here, quick

from engine.room import Registry, RoomError
from engine.room import Session as Member
from engine.room.duplicate import EventSettings
from engine.room.store import EventRow

DAY = 1_716_940_800.0           # 2024-05-29 00:00 UTC
NOW = DAY + 10 * 3600


class Clock:
    def __init__(self, t: float = NOW):
        self.t = t

    def __call__(self) -> float:
        return self.t


class Operators:
    """A moderator for whom the members named are operators."""

    def __init__(self, *names: str):
        self.names = set(names)

    def is_operator(self, member) -> bool:
        return member.name in self.names

    def command(self, member, line):
        raise RoomError("no commands here")


def key(name: str, fp: str | None = None) -> Member:
    return Member(name, f"key:{fp or 'fp-' + name}:{name}")


def guest(name: str) -> Member:
    return Member(name, f"guest:tok-{name}:{name}", guest=True)


@pytest.fixture
def reg():
    r = Registry(bot_pause=3600.0, trick_pause=0.0,
                 events=EventSettings(daily_boards=4, samples=8, per_key=2, per_room=3))
    r.events.clock = Clock()
    r.moderator = Operators("olga")
    yield r
    r.close()


def daily(reg, game: str = "estimation") -> int:
    rows = reg.events.listing(key("x"))
    return next(r["id"] for r in rows if r["game"] == game and r["name"].startswith("Daily"))


async def test_a_daily_event_per_game_and_day(reg):
    rows = reg.events.listing(key("ali"))
    assert sorted(r["game"] for r in rows) == ["estimation", "estimation-kotshina", "tarneeb41"]
    assert all(r["opens"] == "2024-05-29T00:00:00Z" and r["closes"] == "2024-05-30T00:00:00Z"
               and r["boards"] == 4 and r["status"] == "open" and r["you"] == "new"
               for r in rows)
    assert len(reg.events.listing(key("bea"))) == 3        # made once
    reg.events.clock.t = DAY + 86400 + 60                    # the next day
    rows = reg.events.listing(key("ali"))
    assert [r["status"] for r in rows].count("open") == 3
    assert [r["status"] for r in rows].count("closed") == 3     # yesterday's, listed after


async def test_a_private_event_shows_to_whoever_gave_its_code(reg):
    sam, bea, olga = key("sam"), key("bea"), key("olga")
    made = reg.events.create(sam, "tarneeb41", 4, 2, True)
    assert made.private and made.code
    assert any(r["id"] == made.id and r["code"] == made.code
               for r in reg.events.listing(sam))                 # its maker, with the code
    assert all(r["id"] != made.id for r in reg.events.listing(bea))
    with pytest.raises(RoomError, match="private: its code is needed"):
        reg.events.enter(bea, made.id)
    with pytest.raises(RoomError, match="No event has that code"):
        reg.events.enter(bea, code="WRONGCODE")
    assert all(r["id"] != made.id for r in reg.events.listing(bea))
    assert any(r["id"] == made.id for r in reg.events.listing(olga))   # an operator
    entered = reg.events.enter(bea, code=made.code.lower()[:4] + "-" + made.code[4:])
    assert entered.event == made.id and entered.board == 1
    assert any(r["id"] == made.id and "code" not in r for r in reg.events.listing(bea))
    # another session of bea's (the code given once is her entry now)
    assert any(r["id"] == made.id for r in reg.events.listing(key("bea")))


async def test_an_events_board_is_its_entrants_alone(reg):
    eid = daily(reg)
    ali, bea = key("ali"), key("bea")
    entered = reg.events.enter(ali, eid)
    entered.go()
    table = entered.table
    assert table.status == "playing" and table.seats[0].held_by(ali)
    assert [s.kind for s in table.seats] == ["human", "bot", "bot", "bot"]
    assert all(row["id"] != table.id for row in reg.listing(bea))       # never listed
    for refused in (lambda: table.watch(bea), lambda: table.sit(bea),
                    lambda: table.sit(bea, 1), lambda: table.take_seat(bea, 2),
                    lambda: table.say(ali, "hello")):
        with pytest.raises(RoomError):
            refused()
    assert table.ranked() is False and not table.leaving_ends_match()
    # leaving keeps the board where it was: entering again resumes it
    while table.match.to_act != 0:
        bot_move(table)
    log = list(table.match.log)
    table.detach(ali, keep_seat=False)
    assert table.status == "playing" and table.match.log == log
    assert reg.tables.get(table.id) is table
    again = reg.events.enter(ali, eid)
    assert again.resumed and again.table is table and ali.table is table and ali.seat == 0
    # another name of the same key shares the entry: its board is played as ali
    ali2 = key("ali2", "fp-ali")
    table.detach(ali, keep_seat=True)
    with pytest.raises(RoomError, match="under your other name ali"):
        reg.events.enter(ali2, eid)


async def test_nothing_of_the_others_shows_before_the_last_board(reg):
    eid = daily(reg)
    bea, cem, ali = key("bea"), key("cem"), key("ali")
    play_here(reg.events, bea, eid, quick)
    play_here(reg.events, cem, eid, contrary)
    # ali: two boards of four
    played = []
    play_here(reg.events, ali, eid, quick,
              stop=lambda t: played.append(t.event.board) or t.event.board == 3)
    with pytest.raises(RoomError, match="Finish every board"):
        reg.events.board(ali, eid, 1)
    _ev, rows = reg.events.standings(ali, eid)
    assert all("percent" not in r and r["rank"] is None for r in rows)
    assert {r["name"]: r["boards"] for r in rows} == {"bea": 4, "cem": 4, "ali": 2}
    # those who finished see everything
    _ev, rows = reg.events.standings(bea, eid)
    assert all("percent" in r and r["rank"] for r in rows)
    _, _k, results = reg.events.board(bea, eid, 1)
    assert {r["name"] for r in results} == {"bea", "cem", "ali"}
    # and so does everyone once the event has closed
    reg.events.clock.t = DAY + 86400
    _, _k, results = reg.events.board(ali, eid, 4)
    assert {r["name"] for r in results} == {"bea", "cem"}


async def test_one_entry_per_key_and_guests_unranked(reg):
    eid = daily(reg, "tarneeb41")
    ali = key("ali")
    scores = play_here(reg.events, ali, eid, quick)
    assert len(scores) == 4
    with pytest.raises(RoomError, match="played every board"):
        reg.events.enter(ali, eid)
    with pytest.raises(RoomError, match="played every board"):
        reg.events.enter(key("ali-phone", "fp-ali"), eid)       # the same key
    g = guest("dana")
    assert play_here(reg.events, g, eid, quick) == scores        # played alike: the same
    _, rows = reg.events.standings(ali, eid)
    assert [r["name"] for r in rows] == ["ali"]
    assert reg.events.you(g, reg.events.store.event(eid)) == "finished"
    with pytest.raises(RoomError, match="Guests cannot make events"):
        reg.events.create(g, "estimation", 8, 24, False)


@pytest.mark.parametrize("fields,words", [
    (("whist", 8, 24, False), "Unknown game"),
    (("estimation", 3, 24, False), "4 to 24 boards"),
    (("estimation", 25, 24, False), "4 to 24 boards"),
    (("estimation", "8", 24, False), "4 to 24 boards"),
    (("estimation", True, 24, False), "4 to 24 boards"),
    (("estimation", 8, 0, False), "1 to 72 hours"),
    (("estimation", 8, 73, False), "1 to 72 hours"),
    (("estimation", 8, 24, "yes"), "true or false"),
])
async def test_a_bad_event_is_refused_and_nothing_made(reg, fields, words):
    before = len(reg.events.store.events(0))
    with pytest.raises(RoomError, match=words):
        reg.events.create(key("sam"), *fields)
    assert len(reg.events.store.events(0)) == before


async def test_caps_per_key_and_per_room(reg):
    sam, bea = key("sam"), key("bea")
    reg.events.create(sam, "estimation", 4, 1, False)
    reg.events.create(sam, "estimation", 4, 1, False)
    with pytest.raises(RoomError, match=r"2 open events \(at most 2\)"):
        reg.events.create(sam, "estimation", 4, 1, False)
    reg.events.create(bea, "estimation", 4, 1, False)
    with pytest.raises(RoomError, match="as many open events as it holds"):
        reg.events.create(key("cem"), "estimation", 4, 1, False)
    reg.events.clock.t += 3601                      # they close: room again
    reg.events.create(sam, "estimation", 4, 1, False)


async def test_unknown_and_closed_events_and_boards(reg):
    ali = key("ali")
    for bad in (999, "x", None, True, [1]):
        with pytest.raises(RoomError, match="No event"):
            reg.events.enter(ali, bad if bad is not None else 999)
    eid = daily(reg)
    for bad in (0, 5, "one", None):
        with pytest.raises(RoomError, match="has boards 1 to 4"):
            reg.events.board(ali, eid, bad)
    made = reg.events.make("estimation", 4, 1)
    entered = reg.events.enter(ali, made.id)
    entered.go()
    table = entered.table
    reg.events.close_event(made.id)                 # an operator closes it
    assert table.closed and reg.tables.get(table.id) is None and ali.table is None
    with pytest.raises(RoomError, match="is closed"):
        reg.events.enter(ali, made.id)
    with pytest.raises(RoomError, match="closed already"):
        reg.events.close_event(made.id)


async def test_a_board_that_runs_past_the_close_ends(reg):
    made = reg.events.make("estimation-kotshina", 4, 1)
    ali = key("ali")
    entered = reg.events.enter(ali, made.id)
    entered.go()
    reg.events.clock.t += 3600
    reg.events.sweep()
    assert entered.table.closed and ali.table is None
    assert reg.events.listing(ali)[-1]["status"] == "closed"


async def test_the_event_store_in_memory_as_the_database_keeps_it(reg):
    store = reg.events.store
    row = EventRow(0, "estimation", 8, 5, 16, DAY, DAY + 86400, daily="estimation:x")
    first = store.create_event(row)
    assert first is not None and first.id > 0
    assert store.create_event(row) is None              # a daily event once
    assert store.add_entry(first.id, "fp", "ali", NOW)
    assert not store.add_entry(first.id, "fp", "ali2", NOW)
    assert store.entry(first.id, "fp").name == "ali"
    assert store.close_event(first.id, NOW) and not store.close_event(first.id, NOW)


async def test_no_new_board_during_a_clean_restart(reg):
    eid = daily(reg)
    ali, bea = key("ali"), key("bea")
    entered = reg.events.enter(ali, eid)
    entered.go()
    table = entered.table
    table.detach(ali, keep_seat=False)
    reg.draining = True
    tables = dict(reg.tables)
    with pytest.raises(RoomError, match="no new board now"):
        reg.events.enter(bea, eid)
    assert reg.tables == tables and reg.events.store.entry(eid, "fp-bea") is None
    again = reg.events.enter(ali, eid)              # a board in play: back to it
    assert again.resumed and again.table is table


class Heard(Member):
    """A member whose notices from the room are kept."""

    def __init__(self, name: str, ident: str):
        super().__init__(name, ident)
        self.heard: list[str] = []

    def notice(self, text) -> None:
        self.heard.append(str(text))


async def test_one_key_through_two_sessions_is_dealt_each_board_once(reg):
    """One entry, one deal (issue 41): the key's other session is not dealt the board
    in play; a board claimed elsewhere (another process dealing it this moment) is not
    dealt here, at entering or after the board before."""
    eid = daily(reg)
    ali, phone = Heard("ali", "key:fp-ali:ali"), key("ali-phone", "fp-ali")
    entered = reg.events.enter(ali, eid)
    entered.go()
    with pytest.raises(RoomError, match="under your other name ali"):
        reg.events.enter(phone, eid)
    store = reg.events.store
    assert [b.board for b in store.boards_started(eid, "fp-ali")] == [1]
    assert store.claim_board(eid, "fp-ali", 2, NOW, 60.0)      # elsewhere, just now
    table = entered.table
    while table.match.to_act is not None:
        if table.match.to_act == ali.seat:
            table.act(ali, quick(table.match.view(ali.seat)))
        else:
            bot_move(table)
    over = reg.events.board_over(ali, table)
    assert over is not None and over.next is None
    assert any("already being played" in h for h in ali.heard), ali.heard
    with pytest.raises(RoomError, match="already being played in another session"):
        reg.events.enter(phone, eid)
    assert [b.board for b in store.boards_started(eid, "fp-ali")] == [1]
    assert reg.events.you(ali, store.event(eid)) == "playing"


async def test_copies_of_a_board_are_one_board(reg, monkeypatch):
    """An entry holding two copies of a board (dealt twice before boards were claimed)
    has not finished the event until each of its boards is played: nothing of the
    others shows yet, and the listing says "playing"."""
    from engine.room.store import BoardStarted
    eid = daily(reg)
    ali = key("ali")
    store = reg.events.store
    copies = [BoardStarted(k, f"t{i}", i, True) for i, k in enumerate((1, 1, 2, 2))]
    monkeypatch.setattr(store, "boards_started", lambda event, entrant: copies)
    ev = store.event(eid)
    assert ev.boards == 4
    assert reg.events.you(ali, ev) == "playing"
    assert not reg.events.finished(ev, "fp-ali") and not reg.events.may_see(ali, ev)
