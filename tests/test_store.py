"""The store: durable actions, replay after a restart, results recorded once,
statistics, level points (E-38, Tarneeb 20/−4), badges (E-40), migrations,
several processes on one database, damaged files and backups.

The tests that take ``opener`` are the store's behaviours on any database:
tests/test_store_postgres.py collects the same functions with an ``opener`` that
points at a real PostgreSQL. The rest are SQLite's own (files, backups, PRAGMAs).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time

import pytest
from stacked import random_match

import server.store.database as store_module
from engine import replay
from engine.room.store import finished, people_throughout
from server.store import MIGRATIONS, Store, StoreError


def finish(store, mid, m):
    """``m`` recorded as finished, paid as the rules say for the stored seats."""
    return store.finish_match(mid, finished(m, people_throughout(store.match(mid))))



@pytest.fixture
def opener(tmp_path):
    """opener(process='') -> a new Store on the same (SQLite) database."""
    path = tmp_path / "lamma.db"
    return lambda process="": Store(path, process=process)


def stored(store, m, seats=("ana", "ben", "cat", "dee")):
    for name in seats:
        if name:
            store.bind(name, "fp-" + name)
    mid = store.create_match("t1", {**m.to_dict(), "log": []}, list(seats), {"timer": 30})
    for seq, (seat, action) in enumerate(m.log):
        store.append_action(mid, seq, seat, action)
    return mid


def test_actions_survive_reopen_and_replay(opener):
    m = random_match("estimation", 18, seed=3, until=150)
    s = opener()
    mid = stored(s, m)
    s.close()                       # as good as killed: every action was committed
    s = opener()
    [back] = s.unfinished()
    assert back.id == mid and back.settings == {"timer": 30}
    again = replay(back.record)
    assert again.to_dict() == m.to_dict()
    assert [again.view(x) for x in range(4)] == [m.view(x) for x in range(4)]


def test_name_binding_first_key_wins(opener):
    s = opener()
    assert s.bind("ana", "fp1")
    assert not s.bind("ana", "fp2")
    assert s.owner("ana") == "fp1"
    assert not s.bind("ANA", "fp2")          # names are unique case-folded
    assert s.may_use("Ana", "fp1") and not s.may_use("ana", "fp2") and s.may_use("bob", "fp2")
    assert s.bind("ana", "fp1")


@pytest.mark.parametrize("game,length,points", [("estimation", 18, 30),
                                                ("estimation", 13, 0),
                                                ("estimation", 24, 0),
                                                ("tarneeb41", None, 20),
                                                ("estimation-kotshina", "micro", 0)])
def test_result_recorded_once_with_points(opener, game, length, points):
    """Ranked play pays (E-38 at 18 rounds only, issue 33; Tarneeb's Decision); the
    other matches count for statistics alone."""
    s = opener()
    m = random_match(game, length, seed=11)
    mid = stored(s, m)
    paid = finish(s, mid, m)
    assert paid is not None
    assert finish(s, mid, m) is None              # exactly once
    names = ["ana", "ben", "cat", "dee"]
    for seat, name in enumerate(names):
        prof = s.profile(name)
        st = prof["stats"][game]
        assert st["matches"] == 1
        if seat in m.result["winners"]:
            if m.result["draw"]:
                assert st["draws"] == 1 and prof["level_points"] == (10 if points == 30 else 0)
            else:
                assert st["wins"] == 1 and prof["level_points"] == points     # E-38 / Tarneeb
        else:
            assert st["losses"] == 1
            assert prof["level_points"] == (-4 if points else 0)            # E-38: −4
        assert st["rounds"] == len([r for r in m.history if not r.get("void")])
    assert s.unfinished() == []


def test_computer_player_means_statistics_only(opener):
    s = opener()
    m = random_match("estimation", 13, seed=5)
    mid = stored(s, m, seats=("ana", None, "cat", "dee"))
    finish(s, mid, m)
    assert all(s.profile(n)["level_points"] == 0 for n in ("ana", "cat", "dee"))
    assert s.profile("ana")["stats"]["estimation"]["matches"] == 1


def test_reviews_are_kept_once_and_practice_counts_nothing(opener):
    s = opener()
    m = random_match("estimation", 13, seed=5)
    mid = stored(s, m)
    assert s.review(mid, 1, 0) is None
    body = {"type": "review", "round": 1, "seat": 0, "worth": 3.5, "decisions": []}
    s.save_review(mid, 1, 0, body)
    s.save_review(mid, 1, 0, {**body, "worth": 9.0})       # the first one stays
    s.close()
    s = opener()
    assert s.review(mid, 1, 0) == body and s.review(mid, 1, 1) is None
    assert not s.match(mid).finished
    paid = s.finish_match(mid, finished(m, True, practice=True))
    assert paid is None and s.match(mid).finished
    assert all(s.profile(n) is None or not s.profile(n)["stats"] for n in ("ana", "ben"))
    assert all(s.profile(n) is None or s.profile(n)["level_points"] == 0
               for n in ("ana", "ben", "cat", "dee"))


def test_badge_at_fifth_win(opener):
    """E-40: five Estimation wins (kotshina counts too) earn the badge, once."""
    s = opener()
    wins = 0
    seed = 0
    earned = []
    while wins < 6:
        seed += 1
        m = random_match("estimation-kotshina", "micro", seed=seed)
        if m.result["draw"] or 0 not in m.result["winners"]:
            continue
        mid = stored(s, m)
        paid = finish(s, mid, m)
        wins += 1
        earned.append(paid[0]["badge"])
    assert earned == [None] * 4 + ["estimation", None]
    assert s.profile("ana")["badges"] == ["estimation"]


def test_wins_before_the_counted_wins_column_still_count_for_the_badge(opener):
    """Migration 4 counts the wins recorded before it: four wins under schema 3, the
    fifth after the upgrade earns the badge (E-40)."""
    def win(s, seed):
        while True:
            seed += 1
            m = random_match("estimation-kotshina", "micro", seed=seed)
            if not m.result["draw"] and 0 in m.result["winners"]:
                return seed, finish(s, stored(s, m), m)
    seed = 0
    old = opener()
    for _ in range(4):
        seed, paid = win(old, seed)
        assert paid[0]["badge"] is None
    m = random_match("estimation", 13, seed=5)     # a computer player: not counted
    finish(old, stored(old, m, seats=("ana", None, "cat", "dee")), m)
    # Back to what schema 3 wrote: the same rows without the column.
    with old._tx():
        old.db.execute("ALTER TABLE stats DROP COLUMN counted_wins")
        old.db.execute("UPDATE schema_version SET version = 3")
    old.close()
    s = opener()
    assert s.version() == len(MIGRATIONS)
    counted = s._x("SELECT game, counted_wins FROM stats WHERE name = 'ana' "
                   "ORDER BY game").fetchall()
    assert [tuple(r) for r in counted] == [("estimation", 0), ("estimation-kotshina", 4)]
    seed, paid = win(s, seed)
    assert paid[0]["badge"] == "estimation"


def test_leaderboard_orders_by_points(opener):
    s = opener()
    m = random_match("estimation", 18, seed=2)
    paid = finish(s, stored(s, m), m)
    s.bind("zed", "fp-zed")                          # no match: 0 points
    board = s.leaderboard()
    assert [r["level_points"] for r in board] == sorted((r["level_points"] for r in board), reverse=True)
    assert [r["rank"] for r in board] == [1, 2, 3, 4, 5]
    want = {n: paid[i]["points"] for i, n in enumerate(["ana", "ben", "cat", "dee"])}
    assert {r["name"]: r["level_points"] for r in board} == {**want, "zed": 0}
    assert len(s.leaderboard(limit=2)) == 2


def test_settings_and_profile_since(opener):
    s = opener()
    assert s.settings("ana") == {} and s.profile("ana") is None
    s.bind("Ana", "fp")
    s.save_settings("ana", {"ascii": True, "terms": "en"})
    s.close()
    s = opener()
    assert s.settings("ANA") == {"ascii": True, "terms": "en"}
    prof = s.profile("ana")
    assert prof["name"] == "Ana" and prof["level_points"] == 0 and prof["badges"] == []
    # A timestamp keeps its seconds (PostgreSQL's 4-byte REAL would round it to minutes).
    assert abs(prof["since"] - time.time()) < 5


def test_each_process_resumes_only_its_own_matches(opener):
    """Migration 3: processes sharing one database each get back their own tables;
    players, statistics and finished matches are shared."""
    a, b = opener("alpha:2222"), opener("beta:2222")
    ma = random_match("estimation", 13, seed=3, until=40)
    mb = random_match("tarneeb41", seed=4, until=30)
    ida, idb = stored(a, ma), stored(b, mb)
    assert ida != idb
    assert [x.id for x in a.unfinished()] == [ida]
    assert [x.id for x in b.unfinished()] == [idb]
    assert opener("gamma:2222").unfinished() == []
    assert replay(b.unfinished()[0].record).to_dict() == mb.to_dict()
    # A player bound through one process owns the name in the other.
    assert b.owner("ana") == "fp-ana" and not b.bind("ana", "other")
    whole = random_match("estimation", 13, seed=2)
    paid = finish(a, stored(a, whole), whole)
    assert b.profile("ana")["level_points"] == paid[0]["points"]
    assert [f["id"] for f in b.finished_matches()] == [a.finished_matches()[0]["id"]]
    b.abandon(idb)
    assert b.unfinished() == [] and [x.id for x in a.unfinished()] == [ida]


def together(n, work):
    """``work(i)`` for i in 0..n-1 on n threads released at once; the results in order.
    Any exception in a thread fails the test."""
    results, errors = [None] * n, []
    go = threading.Barrier(n)

    def run(i):
        try:
            go.wait(30)
            results[i] = work(i)
        except BaseException as e:          # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    return results


def test_two_processes_finish_one_match_once(opener):
    """Two connections race to record the same result: one pays, the other gets None."""
    m = random_match("estimation", 13, seed=2)
    first = opener("a")
    mid = stored(first, m)
    stores = [first, opener("b")]
    results = together(2, lambda i: finish(stores[i], mid, m))
    assert sum(r is not None for r in results) == 1
    for name in ("ana", "ben", "cat", "dee"):
        assert stores[1].profile(name)["stats"]["estimation"]["matches"] == 1


def test_processes_starting_together_migrate_once(opener):
    stores = together(3, lambda i: opener(f"p{i}"))
    assert all(s.version() == len(MIGRATIONS) for s in stores)
    [row] = stores[0]._x("SELECT version FROM schema_version").fetchall()
    assert row[0] == len(MIGRATIONS)


def test_v2_database_opens_after_upgrade(opener, monkeypatch):
    """A database written before migration 3 (by the released code's migrations 1–2)
    opens; its unfinished match belongs to the unnamed process."""
    m = random_match("estimation", 13, seed=5, until=30)
    with monkeypatch.context() as mp:
        mp.setattr(store_module, "MIGRATIONS", MIGRATIONS[:2])
        old = opener()
        assert old.version() == 2
        old.bind("ana", "fp-ana")
        rows = old._x("INSERT INTO matches (table_id, game, length, seed, deals, seats, "
                      "settings, humans_throughout, created) VALUES "
                      "('7', ?, ?, ?, 'null', '[\"ana\", null, null, null]', '{}', 0, 0) "
                      "RETURNING id",
                      (m.game, "13", str(m.seed))).fetchall()
        for seq, (seat, action) in enumerate(m.log):
            old.append_action(rows[0][0], seq, seat, action)
        old.close()
    s = opener()
    assert s.version() == len(MIGRATIONS)
    [back] = s.unfinished()
    assert back.id == rows[0][0] and back.table_id == "7" and back.seats[0] == "ana"
    assert replay(back.record).to_dict() == m.to_dict()
    assert opener("elsewhere").unfinished() == []
    assert s.owner("ana") == "fp-ana"


def test_newer_schema_refused(opener):
    opener()._x("UPDATE schema_version SET version = 99")
    with pytest.raises(StoreError, match="newer"):
        opener()


def test_old_schema_migrates(tmp_path):
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for stmt in MIGRATIONS[0]:
        db.execute(stmt.format(serial="INTEGER PRIMARY KEY"))
    db.execute("INSERT INTO schema_version VALUES (1)")
    db.execute("INSERT INTO players (name_key, name, fingerprint, created, last_seen) "
               "VALUES ('ana', 'Ana', 'fp', 0, 0)")
    db.commit()
    db.close()
    s = Store(path)
    assert s.version() == len(MIGRATIONS)
    assert s.owner("ana") == "fp"
    assert s.profile("ana")["stats"] == {}


@pytest.mark.parametrize("damage", ["garbage", "truncate"])
def test_damaged_file_is_a_clear_error(tmp_path, damage):
    path = tmp_path / "d.db"
    s = Store(path)
    m = random_match("estimation", 13, seed=2)
    stored(s, m)
    s.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    s.close()
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"this is not a database at all" * 100)
    else:
        path.write_bytes(data[: len(data) // 3])
    with pytest.raises(StoreError, match="backup"):
        Store(path)


def test_backup_is_a_working_copy(tmp_path):
    s = Store(tmp_path / "d.db")
    m = random_match("tarneeb41", seed=4, until=60)
    mid = stored(s, m)
    s.backup(tmp_path / "copy.db")
    copy = Store(tmp_path / "copy.db")
    assert replay(copy.match(mid).record).to_dict() == m.to_dict()


def test_v2_file_from_released_sql_opens(tmp_path):
    """The same as above with a file written by plain sqlite3 and the released SQL."""
    path = tmp_path / "v2.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for stmt in MIGRATIONS[0] + MIGRATIONS[1]:
        db.execute(stmt.format(serial="INTEGER PRIMARY KEY"))
    db.execute("INSERT INTO schema_version VALUES (2)")
    db.execute("INSERT INTO matches (table_id, game, length, seed, deals, seats, settings, "
               "humans_throughout, created) VALUES ('3', 'tarneeb41', 'null', '4', 'null', "
               "'[null, null, null, null]', '{}', 0, 0)")
    db.commit()
    db.close()
    s = Store(path)
    assert s.version() == len(MIGRATIONS)
    assert [(m.id, m.table_id) for m in s.unfinished()] == [(1, "3")]
    assert Store(path, process="other").unfinished() == []


def test_postgres_url_without_psycopg_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg", None)      # import psycopg -> ImportError
    with pytest.raises(StoreError, match=r"pip install 'lamma\[postgres\]'"):
        Store("postgresql://lamma@127.0.0.1:1/lamma")


def test_unknown_url_is_refused(tmp_path):
    with pytest.raises(StoreError, match="postgresql://"):
        Store("mysql://u:secret@localhost/db")


def test_backup_command_refuses_postgres_and_hides_the_password():
    out = subprocess.run([sys.executable, "-m", "server.cli", "backup", "x.db",
                          "--database", "postgresql://u:secret@h/db"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert "pg_dump" in out.stderr and "SQLite" in out.stderr and "secret" not in out.stderr


def test_serve_reports_an_unreachable_postgres(tmp_path):
    pytest.importorskip("psycopg", reason="psycopg not installed (pip install 'lamma[postgres]')")
    out = subprocess.run([sys.executable, "-m", "server.cli", "serve", "--port", "0",
                          "--data", str(tmp_path / "data"), "--keys", str(tmp_path / "keys"),
                          "--database", "postgresql://u:secret@127.0.0.1:1/db"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert "cannot start" in out.stderr and "PostgreSQL" in out.stderr
    assert "secret" not in out.stderr


def test_the_store_implements_every_interface_of_the_table_engine() -> None:
    """server.store.Store answers each typed interface engine.room.store names."""
    import inspect

    from engine.room import store as interfaces

    protocols = [interfaces.IdentityStore, interfaces.MatchStore, interfaces.Records,
                 interfaces.ModerationStore]
    for proto in protocols:
        for name, member in vars(proto).items():
            if name.startswith("_") or not callable(member):
                continue
            mine = getattr(Store, name, None)
            assert mine is not None, f"Store has no {name} ({proto.__name__})"
            assert list(inspect.signature(member).parameters) == \
                list(inspect.signature(mine).parameters), f"{proto.__name__}.{name}"


def test_browser_links_codes_once_tokens_by_hash(opener):
    """The web page's rows (server/store/web.py): one signing key for every process, a
    link code used once (and not after it expires), browsers linked and unlinked."""
    import time
    s, t = opener("a"), opener("b")
    assert s.web_secret() == t.web_secret() and len(s.web_secret()) == 64
    s.bind("ana", "fp1")
    s.add_link_code("h1", "ana", "fp1", time.time() + 60)
    s.add_link_code("h2", "ana", "fp1", time.time() + 60)     # a new code: the old goes
    assert t.take_link_code("h1") is None
    assert t.take_link_code("h2") == ("ana", "fp1")
    assert s.take_link_code("h2") is None                    # once
    s.add_link_code("h3", "ana", "fp1", time.time() - 1)
    assert s.take_link_code("h3") is None                    # too old
    s.add_link("L1", "ana", "fp1", "sh1", "Chrome on Android")
    s.add_link("L2", "Ana", "fp1", "sh2", "Firefox on Linux")
    assert t.link("L1")[:3] == ("ana", "fp1", "sh1")
    assert {b.id for b in t.links_of("ANA")} == {"L1", "L2"}
    assert s.remove_links("ana", "L1") == 1 and t.link("L1") is None
    assert s.remove_links("bob", "L2") == 0                  # not bob's
    assert s.remove_links("ana") == 1 and t.links_of("ana") == []


def test_a_tables_events_are_numbered_once_written_by_its_driver_and_read_in_order(opener):
    """Issue 41: the event log of a table driven by one process of a room (the store's
    side of ``server.cluster``): only the table's driver writes its events, each number
    once; they are read back in order after a number; older ones are pruned; they go
    with the table."""
    a, b = opener("a"), opener("b")
    a.publish_table("7", "a", None, "waiting", 0, None, "{}", "[]", None)
    assert a.append_table_events("7", "a", [(1, "chat", '{"seq":1}'),
                                            (2, "state", '{"seq":2}')]) == 2
    # another process (one whose lease was taken, or never had it) writes nothing
    assert b.append_table_events("7", "b", [(3, "chat", '{"seq":3,"b":1}')]) == 0
    # a number written once is not written again
    assert a.append_table_events("7", "a", [(2, "chat", '{"again":1}'),
                                            (3, "seats", '{"seq":3}')]) == 1
    assert b.table_events("7", 0) == [(1, "a", 0, "chat", '{"seq":1}'),
                                      (2, "a", 0, "state", '{"seq":2}'),
                                      (3, "a", 0, "seats", '{"seq":3}')]
    assert [e[0] for e in b.table_events("7", 1)] == [2, 3]
    assert [e[0] for e in b.table_events("7", 0, limit=2)] == [1, 2]
    assert b.last_table_event("7") == 3 and b.last_table_event("8") == 0
    a.prune_table_events("7", 2)
    assert [e[0] for e in b.table_events("7", 0)] == [3]
    assert a.drop_table("7", "a")
    assert b.table_events("7", 0) == [] and b.last_table_event("7") == 0
