"""A damaged stored row never stops the room (issue 11): it is reported with its match
id and skipped; the data folder and the database are the owner's alone."""

from __future__ import annotations

import logging
import stat

from engine.room import Registry, Session
from server.persistence import TableStore, restore
from server.store import Store

SLOW = 3600.0


def started_table(reg: Registry, name: str):
    t = reg.create("estimation", 13)
    owner = Session(name, f"key:fp-{name}:{name}")
    t.sit(owner, 0)
    t.fill_with_bots(owner, [1, 2, 3], "easy")
    assert t.status == "playing" and t.match_id is not None
    return t


async def test_damaged_rows_are_reported_and_skipped(tmp_path, caplog):
    store = Store(tmp_path / "lamma.db")
    reg = Registry(store=TableStore(store), bot_pause=SLOW)
    good, bad_json, bad_seat, bad_shape = (started_table(reg, n) for n in ("ana", "ben", "cat", "dee"))
    store._x("UPDATE matches SET settings = ? WHERE id = ?", ("{not json", bad_json.match_id))
    store._x("UPDATE matches SET settings = ? WHERE id = ?",
             ('{"seats": [{"kind": "alien"}]}', bad_seat.match_id))
    store._x("UPDATE matches SET settings = ? WHERE id = ?", ("[1, 2]", bad_shape.match_id))
    again = Registry(store=TableStore(store), bot_pause=SLOW)
    with caplog.at_level(logging.ERROR):
        assert restore(again, store) == 1
    assert list(again.tables) == [good.id]
    assert again.tables[good.id].seats[0].name == "ana"
    for t in (bad_json, bad_seat, bad_shape):
        assert any(f"match {t.match_id}" in r.getMessage() for r in caplog.records), t.match_id
    assert not any(r.exc_info for r in caplog.records)      # a line each, no traceback
    # nothing was changed or lost: the rows are still there for the operator to mend
    assert {m.id for m in store.unfinished()} == {good.match_id, bad_seat.match_id,
                                                   bad_shape.match_id}
    store.close()


def test_database_and_data_folder_are_private(tmp_path):
    from server.service import RoomConfig, RoomService
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    room = RoomService(RoomConfig(data=data, keys=tmp_path / "keys"))
    try:
        assert stat.S_IMODE(data.stat().st_mode) == 0o700
        for f in data.iterdir():                               # lamma.db, -wal, -shm
            assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
        room.store.backup(tmp_path / "copy.db")
        assert stat.S_IMODE((tmp_path / "copy.db").stat().st_mode) == 0o600
    finally:
        room.close()
