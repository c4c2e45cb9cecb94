"""--allow-list (issue 11): authorized_keys options are honoured or the key is refused
with a log line, and the file is read again when it changes. Real SSH clients."""

from __future__ import annotations

import asyncio
import logging
import os

import asyncssh
import pytest
from conftest import LammaServer, start_room, stop_room


@pytest.fixture
async def room(tmp_path):
    srv = await start_room(tmp_path, allow_list=True, guests=False)
    try:
        yield srv
    finally:
        await stop_room(srv)


def line(srv: LammaServer, who: str, options: str = "") -> str:
    key = srv.key(who).export_public_key().decode().strip()
    return f"{options} {key}".strip() + "\n"


async def test_options_are_honoured_or_the_key_refused(room, caplog):
    srv = room
    path = srv.room.config.keys / "authorized_keys"
    path.write_text(
        line(srv, "far", 'from="10.0.0.0/8"')              # only from elsewhere
        + line(srv, "near", 'from="127.0.0.1,::1"')
        + line(srv, "forced", 'command="/bin/true"')       # cannot be honoured
        + line(srv, "prog", "no-pty")                       # programs only
        + line(srv, "plain"))
    with pytest.raises(asyncssh.PermissionDenied):
        await srv.connect("far")
    assert (await srv.first_reply("near"))["type"] == "tables"
    with caplog.at_level(logging.WARNING, logger="lamma.ssh"):
        with pytest.raises(asyncssh.PermissionDenied):
            await srv.connect("forced")
    assert any("command" in r.getMessage() and "refused" in r.getMessage()
               for r in caplog.records)
    assert (await srv.first_reply("prog"))["type"] == "tables"
    conn = await srv.connect("prog")
    proc = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
    said = await asyncio.wait_for(proc.stdout.read(200), 5)
    assert b"programs only" in said
    conn.close()
    assert (await srv.first_reply("plain"))["type"] == "tables"


async def test_the_list_is_read_again_when_it_changes(room):
    srv = room
    path = srv.room.config.keys / "authorized_keys"
    path.write_text(line(srv, "first"))
    with pytest.raises(asyncssh.PermissionDenied):
        await srv.connect("second")
    path.write_text(line(srv, "first") + line(srv, "second"))
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))   # a new stamp
    assert (await srv.first_reply("second"))["type"] == "tables"
    path.write_text(line(srv, "second"))                 # first is taken off the list
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000))
    with pytest.raises(asyncssh.PermissionDenied):
        await srv.connect("first")
