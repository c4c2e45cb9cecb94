"""The store's behaviours on a real, throwaway PostgreSQL (issue 6: several server
processes sharing players, statistics and finished matches through the same SQL).

The server is the run's throwaway PostgreSQL (tests/pg.py, the fixtures in conftest.py),
and every test gets a fresh database. Skipped, with the reason, when psycopg or the
binaries are missing.
"""

from __future__ import annotations

import pytest
from stacked import random_match

# The behaviours shared with SQLite: collected here again, with this module's `opener`.
from test_store import (  # noqa: F401
    stored,
    test_a_tables_events_are_numbered_once_written_by_its_driver_and_read_in_order,
    test_actions_survive_reopen_and_replay,
    test_badge_at_fifth_win,
    test_browser_links_codes_once_tokens_by_hash,
    test_computer_player_means_statistics_only,
    test_each_process_resumes_only_its_own_matches,
    test_leaderboard_orders_by_points,
    test_name_binding_first_key_wins,
    test_newer_schema_refused,
    test_processes_starting_together_migrate_once,
    test_result_recorded_once_with_points,
    test_reviews_are_kept_once_and_practice_counts_nothing,
    test_settings_and_profile_since,
    test_two_processes_finish_one_match_once,
    test_v2_database_opens_after_upgrade,
)
from test_store_events import (  # noqa: F401
    test_a_board_is_claimed_once_across_processes,
    test_a_guests_board_is_finished_and_ranked_nowhere,
    test_copies_of_a_board_from_before_claims_are_set_aside,
    test_events_entries_and_results,
    test_two_processes_make_the_daily_event_and_finish_a_board_once,
    test_two_processes_starting_one_board_at_once_make_one_row,
)

from server.store import Store, StoreError

pytestmark = pytest.mark.slow      # a PostgreSQL server


@pytest.fixture
def opener(pg_url):
    opened = []

    def open_(process=""):
        opened.append(Store(pg_url, process=process))
        return opened[-1]

    yield open_
    for s in opened:
        try:
            s.close()
        except Exception:
            pass


# ---- PostgreSQL's own ----------------------------------------------------------------

def test_postgres_schema_is_its_own_dialect(opener):
    s = opener()
    assert s.kind == "postgres" and s.path is None
    types = dict(s._x("SELECT column_name, data_type FROM information_schema.columns "
                      "WHERE table_name = 'matches'").fetchall())
    # REAL would be 4 bytes on PostgreSQL; ids are 64-bit serials.
    assert types["created"] == "double precision" and types["finished"] == "double precision"
    assert types["id"] == "bigint" and types["process"] == "text"


def test_backup_is_refused_with_pg_dump(opener, tmp_path):
    with pytest.raises(StoreError, match="pg_dump"):
        opener().backup(tmp_path / "copy.db")


def test_unreachable_database_is_a_clear_error_without_the_password(postgres):
    url, _ = postgres
    bad = url.format(db="no_such_db").replace("lamma@", "lamma:secret@")
    with pytest.raises(StoreError, match="cannot open the PostgreSQL database") as info:
        Store(bad)
    assert "secret" not in str(info.value) and "no_such_db" in str(info.value)


def test_room_restores_only_its_process_tables(pg_url, tmp_path):
    """The setting end to end: `RoomConfig(database=URL, process=NAME)` as `lamma serve
    --database URL --process-name NAME` builds it; each RoomService resumes its own table."""
    from server.service import RoomConfig, RoomService

    writer = Store(pg_url, process="east")
    m = random_match("estimation", 13, seed=8, until=25)
    mid = stored(writer, m)
    # Its table's row, as east wrote it before it stopped (at its first turn).
    assert writer.claim_new_table("t1", "east", None, 0, 0, 100, None) is None
    writer.close()
    rooms = []
    try:
        for name in ("east", "west"):
            rooms.append(RoomService(RoomConfig(data=tmp_path / name, keys=tmp_path / "keys",
                                         database=pg_url, process=name)))
        east, west = rooms
        assert east.restored == 1 and west.restored == 0
        [table] = east.registry.tables.values()
        assert table.match_id == mid and table.match.to_dict() == m.to_dict()
        # Claimed again at the start: a new turn, which fences the table's writes.
        assert table.epoch == 1
        assert west.registry.tables == {}
        assert not (tmp_path / "east" / "lamma.db").exists()     # nothing went to SQLite
    finally:
        for room in rooms:
            room.close()
