"""The store: durable actions, replay after a restart, results recorded once,
statistics, level points (E-38, Tarneeb 20/−4), badges (E-40), migrations,
damaged files and backups."""

from __future__ import annotations

import sqlite3

import pytest

from engine import replay
from server.store import MIGRATIONS, Store, StoreError
from stacked import random_match


def stored(store, m, seats=("ana", "ben", "cat", "dee")):
    for name in seats:
        if name:
            store.bind(name, "fp-" + name)
    mid = store.create_match("t1", {**m.to_dict(), "log": []}, list(seats), {"timer": 30})
    for seq, (seat, action) in enumerate(m.log):
        store.append_action(mid, seq, seat, action)
    return mid


def test_actions_survive_reopen_and_replay(tmp_path):
    path = tmp_path / "lamma.db"
    m = random_match("estimation", 18, seed=3, until=150)
    s = Store(path)
    mid = stored(s, m)
    s.close()                       # as good as killed: every action was committed
    s = Store(path)
    [back] = s.unfinished()
    assert back.id == mid and back.settings == {"timer": 30}
    again = replay(back.record)
    assert again.to_dict() == m.to_dict()
    assert [again.view(x) for x in range(4)] == [m.view(x) for x in range(4)]


def test_name_binding_first_key_wins(tmp_path):
    s = Store(tmp_path / "d.db")
    assert s.bind("ana", "fp1")
    assert not s.bind("ana", "fp2")
    assert s.owner("ana") == "fp1"
    assert not s.bind("ANA", "fp2")          # names are unique case-folded
    assert s.may_use("Ana", "fp1") and not s.may_use("ana", "fp2") and s.may_use("bob", "fp2")
    assert s.bind("ana", "fp1")


@pytest.mark.parametrize("game,length,points", [("estimation", 13, 30),
                                                ("tarneeb41", None, 20),
                                                ("estimation-kotshina", "micro", 0)])
def test_result_recorded_once_with_points(tmp_path, game, length, points):
    s = Store(tmp_path / "d.db")
    m = random_match(game, length, seed=11)
    mid = stored(s, m)
    paid = s.finish_match(mid, m)
    assert paid is not None
    assert s.finish_match(mid, m) is None              # exactly once
    names = ["ana", "ben", "cat", "dee"]
    for seat, name in enumerate(names):
        prof = s.profile(name)
        st = prof["stats"][game]
        assert st["matches"] == 1
        if seat in m.result["winners"]:
            if m.result["draw"]:
                assert st["draws"] == 1 and prof["level_points"] == (10 if game == "estimation" else 0)
            else:
                assert st["wins"] == 1 and prof["level_points"] == points     # E-38 / Tarneeb
        else:
            assert st["losses"] == 1
            assert prof["level_points"] == (-4 if points else 0)            # E-38: −4
        assert st["rounds"] == len([r for r in m.history if not r.get("void")])
    assert s.unfinished() == []


def test_computer_player_means_statistics_only(tmp_path):
    s = Store(tmp_path / "d.db")
    m = random_match("estimation", 13, seed=5)
    mid = stored(s, m, seats=("ana", None, "cat", "dee"))
    s.finish_match(mid, m)
    assert all(s.profile(n)["level_points"] == 0 for n in ("ana", "cat", "dee"))
    assert s.profile("ana")["stats"]["estimation"]["matches"] == 1


def test_badge_at_fifth_win(tmp_path):
    """E-40: five Estimation wins (kotshina counts too) earn the badge, once."""
    s = Store(tmp_path / "d.db")
    wins = 0
    seed = 0
    earned = []
    while wins < 6:
        seed += 1
        m = random_match("estimation-kotshina", "micro", seed=seed)
        if m.result["draw"] or 0 not in m.result["winners"]:
            continue
        mid = stored(s, m)
        paid = s.finish_match(mid, m)
        wins += 1
        earned.append(paid[0]["badge"])
    assert earned == [None] * 4 + ["estimation", None]
    assert s.profile("ana")["badges"] == ["estimation"]


def test_leaderboard_orders_by_points(tmp_path):
    s = Store(tmp_path / "d.db")
    m = random_match("estimation", 13, seed=2)
    s.finish_match(stored(s, m), m)
    board = s.leaderboard()
    assert [r["level_points"] for r in board] == sorted((r["level_points"] for r in board), reverse=True)


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


def test_newer_schema_refused(tmp_path):
    path = tmp_path / "d.db"
    Store(path).db.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(StoreError, match="newer"):
        Store(path)
