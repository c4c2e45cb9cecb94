"""Settings validated (issue 40): finite numbers within documented bounds, text and files
of bounded size, nesting bounded — refused with the key's line by ``lamma check``, at the
start and by a reload, which then changes nothing."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from server.config import DEPTH_MAX, FILE_MAX, ConfigError, effective, read_file

ROOT = Path(__file__).resolve().parent.parent

BAD = [
    ("[play]\nbot-pause = nan\n", 2, "expected a finite number"),
    ("[play]\ntrick-pause = inf\n", 2, "expected a finite number"),
    ("[play]\ntrick-pause = -inf\n", 2, "expected a finite number"),
    ("[play]\nbot-pause = 61\n", 2, "expected at most 60"),
    ("[play]\nabsent-timeout = 1e12\n", 2, "expected at most 3600"),
    ("[restart]\ndrain-seconds = 1e9\n", 2, "expected at most 3600"),
    ("[serve]\nstatus-every = nan\n", 2, "expected a finite number"),
    ("\n[limits]\njson-rate = inf\n", 3, "expected a finite number"),
    ("[limits]\nmax-tables = 9223372036854775807\n", 2, "expected at most"),
    ("[play]\nbot-workers = 100000\n", 2, "expected at most 256"),
    ('[restart]\nnotice = "' + "x" * 5000 + '"\n', 2, "at most 4096 characters"),
]


@pytest.mark.parametrize(("text", "line", "said"), BAD, ids=[b[2][:20] + str(i) for i, b in enumerate(BAD)])
def test_a_value_out_of_bounds_is_refused_with_its_line(tmp_path, text, line, said):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        read_file(path)
    assert str(err.value).startswith(f"{path}, line {line}:"), err.value
    assert said in str(err.value)


@pytest.mark.parametrize("flag", ["nan", "inf", "1e300", "-1"])
def test_a_flag_out_of_bounds_is_refused(flag):
    with pytest.raises(ConfigError) as err:
        effective(None, {"bot-pause": float(flag)})
    assert str(err.value).startswith("--bot-pause")


def test_deep_nesting_is_a_line_not_a_traceback(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text("[restart]\nnotice = " + "[" * 20000 + "]" * 20000 + "\n")
    with pytest.raises(ConfigError) as err:
        read_file(path)
    assert str(err.value) == f"{path}, line 2: nested more than {DEPTH_MAX} deep: no setting is"
    # the same depth inside strings and comments is text, not nesting
    ok = tmp_path / "ok.toml"
    ok.write_text('# ' + "[" * 50 + '\n[restart]\nnotice = "' + "{" * 50 + '"\n')
    assert read_file(ok).values[("restart", "notice")] == "{" * 50
    # an inline table in an array, as [[limits.networks]] may be written, is fine
    fine = tmp_path / "fine.toml"
    fine.write_text('[limits]\nnetworks = [{cidr = ["10.0.0.0/8"], guests-per-address = 50}]\n')
    assert read_file(fine).networks


def test_a_huge_file_is_refused_unread(tmp_path):
    path = tmp_path / "huge.toml"
    path.write_text("# " + "x" * (FILE_MAX + 10) + "\n")
    with pytest.raises(ConfigError) as err:
        read_file(path)
    assert "larger than" in str(err.value)


def test_lamma_check_says_a_line_for_nan_and_deep_nesting(tmp_path):
    for text in ("[play]\ntrick-pause = nan\n",
                 "[restart]\nnotice = " + "[" * 20000 + "]" * 20000 + "\n"):
        path = tmp_path / "bad.toml"
        path.write_text(text)
        run = subprocess.run([sys.executable, "-m", "server.cli", "check", "--config",
                              str(path), "--port", "0"], cwd=ROOT, capture_output=True,
                             text=True, timeout=60)
        assert run.returncode != 0
        said = (run.stdout + run.stderr).strip()
        assert "Traceback" not in said and "line 2" in said, said


async def test_a_reload_with_nan_changes_nothing_and_play_goes_on(tmp_path):
    """The room started from a good file; the file then says nan: the reload is refused
    and the pauses stay as they were (the tables keep moving)."""
    from conftest import start_room, stop_room
    good = tmp_path / "lamma.toml"
    good.write_text("[play]\nbot-pause = 0.0\ntrick-pause = 0.0\n")
    srv = await start_room(tmp_path, bot_pause=0.0, trick_pause=0.0)
    try:
        srv.room.config.settings = read_file(good)
        good.write_text("[play]\nbot-pause = 0.0\ntrick-pause = nan\n")
        with pytest.raises(ConfigError):
            srv.room.reload()
        assert srv.room.config.trick_pause == 0.0
        client = await srv.json_client("ana")
        client.send({"op": "create", "game": "estimation-kotshina", "computer": [1, 2, 3]})
        await client.expect("joined")
        moved = 0
        while moved < 4:                        # the table plays on
            view = (await client.expect("view"))["view"]
            if view["to_act"] == 0 and view["legal"]:
                client.send({"op": "act", "action": view["legal"][0]})
                moved += 1
        await client.close()
    finally:
        await stop_room(srv)
    await asyncio.sleep(0)
