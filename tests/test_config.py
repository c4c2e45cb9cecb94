"""The room's configuration file (issue 28): every setting, its round trip through
``lamma config``, a bad file stopping ``lamma serve`` with its line, flags over the
file, and SIGHUP changing a limit in a running room."""

from __future__ import annotations

import asyncio
import io
import signal
import sys
import tomllib
from contextlib import redirect_stdout
from dataclasses import fields
from pathlib import Path

import asyncssh
import pytest
from procs import LISTENING, stop_process, wait_line

from server.cli import main
from server.config import (
    NETWORK_KEYS,
    SETTINGS,
    Config,
    ConfigError,
    effective,
    read_file,
)
from server.limits import OP_COST, Limits
from server.service import RoomConfig

ROOT = Path(__file__).resolve().parents[1]
KEY_LINE = ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9"
            "GKJl op@example")


def other_value(s):
    """A value for setting ``s`` that is not its default, and valid."""
    d = s.default
    special = {"host": "0.0.0.0", "log-level": "WARNING", "log-format": "json",
               "quick-play-level": "easy", "metrics": "127.0.0.1:9109",
               "proxy-from": ["10.0.0.5/32", "10.0.1.0/24"], "operators": [KEY_LINE],
               "notice": "Back in {seconds} s", "database": "/srv/lamma/room.db",
               "daily-games": ["tarneeb41", "estimation"], "daily-hours": 12.5,
               "listen": "127.0.0.1:8022", "origins": ["https://cards.example.org"],
               "proxies": ["127.0.0.1/32"]}
    if s.key in special:
        return special[s.key]
    if s.key == "op-cost":
        return {op: cost + 1 for op, cost in OP_COST.items()}
    if isinstance(d, bool):
        return not d
    if isinstance(d, int):
        return d + 3
    if isinstance(d, float):
        return d + 1.5
    if isinstance(d, str):
        return d + "x" if d else "x"
    raise AssertionError(f"no other value for {s.key}")


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return repr(v)


def full_file() -> tuple[str, dict]:
    """A file setting every key to a value other than its default."""
    values: dict = {}
    lines = []
    for section in dict.fromkeys(s.section for s in SETTINGS):
        lines.append(f"[{section}]")
        for s in SETTINGS:
            if s.section == section and s.key != "op-cost":
                values[(section, s.key)] = other_value(s)
                lines.append(f"{s.key} = {toml_value(values[(section, s.key)])}")
        lines.append("")
    costs = other_value(next(s for s in SETTINGS if s.key == "op-cost"))
    values[("limits", "op-cost")] = costs
    lines.append("[limits.op-cost]")
    lines += [f"{op} = {c}" for op, c in costs.items()]
    lines += ["", "[[limits.networks]]", 'name = "school"', 'cidr = ["192.0.2.0/24"]']
    lines += [f"{k} = {i + 10}" for i, k in enumerate(NETWORK_KEYS)]
    return "\n".join(lines) + "\n", values


def printed(*argv: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


def test_every_limit_is_a_setting():
    keys = {s.attr for s in SETTINGS if s.section == "limits"}
    assert {f.name for f in fields(Limits)} - {"networks"} == keys


def test_a_file_with_every_key_round_trips_through_lamma_config(tmp_path):
    text, values = full_file()
    path = tmp_path / "full.toml"
    path.write_text(text)
    out = printed("config", "--config", str(path))
    again = tomllib.loads(out)
    for (section, key), value in values.items():
        got = again[section][key]
        if isinstance(value, list):
            value = list(value)
        assert got == value, (section, key, got, value)
    (net,) = again["limits"]["networks"]
    assert net["name"] == "school" and net["cidr"] == ["192.0.2.0/24"]
    assert {k: net[k] for k in NETWORK_KEYS} == {k: i + 10 for i, k in enumerate(NETWORK_KEYS)}
    # What lamma config printed reads back to the same configuration.
    printed_path = tmp_path / "printed.toml"
    printed_path.write_text(out)
    a, b = read_file(path), read_file(printed_path)
    assert a.values == b.values
    assert [(n.cidrs, n.limits, n.name) for n in a.networks] == \
        [(n.cidrs, n.limits, n.name) for n in b.networks]
    # ... and the limits it sets are the room's.
    lim = a.limits()
    assert lim.guests_per_address == values[("limits", "guests-per-address")]
    assert lim.for_address("192.0.2.7").guests_per_address == 11
    assert lim.for_address("198.51.100.1").guests_per_address == lim.guests_per_address
    # ... and so are the duplicate events' settings.
    ev = RoomConfig.of(a).events
    assert (ev.daily_boards, ev.daily_hours, ev.daily_games, ev.samples, ev.per_key,
            ev.per_room) == (11, 12.5, ("tarneeb41", "estimation"), 259, 6, 53)


def test_the_defaults_printed_are_a_file_to_start_from(tmp_path):
    out = printed("config")
    path = tmp_path / "defaults.toml"
    path.write_text(out)
    assert read_file(path).values == Config().values
    # Every setting is there with its default, its unit and what it does.
    for s in SETTINGS:
        if s.key != "op-cost":
            assert f"\n{s.key} = " in out, s.key
    assert "(tokens a second)" in out and "(reload)" in out
    assert "[[limits.networks]]" in out and "[events]" in out


def test_flags_override_the_file(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[serve]\nport = 2300\nhost = "0.0.0.0"\n[play]\nbot-pause = 2.0\n')
    config = effective(path, {"port": 2400, "bot-pause": 0.1})
    assert config.serve("port") == 2400 and config.serve("host") == "0.0.0.0"
    assert config[("play", "bot-pause")] == 0.1
    out = printed("config", "--config", str(path), "--port", "2500", "--guests", "off")
    parsed = tomllib.loads(out)
    assert parsed["serve"]["port"] == 2500 and parsed["serve"]["guests"] is False
    assert parsed["serve"]["host"] == "0.0.0.0"


BAD = [
    ('[serve]\nport = 2300\nprot = 2\n', 3, "has no setting 'prot' (did you mean 'port'?)"),
    ('[serve]\nport = "twenty"\n', 2, "expected a whole number"),
    ('[serve]\nport = 70000\n', 2, "expected a port"),
    ('\n[limits]\njson-rate = -1\n', 3, "expected at least 0"),
    ('[play]\nquick-play-level = "expert"\n', 2, "expected one of"),
    ('[servr]\nport = 1\n', 1, "unknown section [servr]"),
    ('[serve]\nport = 1\nport = 2\n', 3, "not TOML"),
    ('[limits]\n\n[[limits.networks]]\ncidr = ["10.0.0.0/33"]\n', 4, "not an address"),
    ('[[limits.networks]]\n', 0, "needs cidr"),
    ('[[limits.networks]]\ncidr = ["10.0.0.0/8"]\nnames-per-key = 9\n', 3,
     "no such setting here"),
    ('[limits.op-cost]\nteleport = 3\n', 1, "no op 'teleport'"),
    ('[moderation]\noperators = ["ssh-rsa nonsense"]\n', 2, "not an OpenSSH public key"),
    ('[events]\ndaily-boards = 25\n', 2, "expected 1 to 24"),
    ('[events]\ndaily-hours = 0.5\n', 2, "expected at least 1"),
    ('[events]\ndaily-games = ["whist"]\n', 2, "expected a list of games"),
    ('[events]\nper-key = 0\n', 2, "expected at least 1"),
]


@pytest.mark.parametrize(("text", "line", "said"), BAD)
def test_a_bad_file_is_refused_with_its_line(tmp_path, text, line, said):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        read_file(path)
    message = str(err.value)
    assert message.startswith(f"{path}, line {line}:" if line else f"{path}"), message
    assert said in message, message


def test_a_bad_file_stops_lamma_serve_with_its_line(tmp_path):
    import subprocess
    path = tmp_path / "bad.toml"
    path.write_text('[serve]\nport = 2300\n\n[limits]\nguests-per-address = "many"\n')
    run = subprocess.run([sys.executable, "-m", "server.cli", "serve", "--config",
                          str(path), "--data", str(tmp_path / "data")], cwd=ROOT,
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 2, run
    # Its one line of its own (a third-party warning before it is not its to say).
    said = [line for line in run.stderr.splitlines() if line.startswith("lamma: ")]
    assert said == [f"lamma: {path}, line 5: [limits] guests-per-address = "
                    "'many': expected a whole number"], run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    assert not (tmp_path / "data").exists()          # stopped before anything was made
    missing = subprocess.run([sys.executable, "-m", "server.cli", "serve", "--config",
                              str(tmp_path / "nowhere.toml")], cwd=ROOT,
                             capture_output=True, text=True, timeout=30)
    assert missing.returncode == 2 and "cannot be read" in missing.stderr


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def guest(port: int, name: str) -> asyncssh.SSHClientConnection:
    return await asyncssh.connect("127.0.0.1", port, username=name, known_hosts=None,
                                  client_keys=None, agent_path=None, password="x",
                                  preferred_auth="keyboard-interactive")


@pytest.mark.slow
async def test_sighup_changes_a_limit_in_a_running_room(tmp_path):
    port = free_port()
    path = tmp_path / "lamma.toml"
    path.write_text(f"[serve]\nport = {port}\ndata = \"{tmp_path / 'data'}\"\n"
                    f"keys = \"{tmp_path / 'keys'}\"\n\n[limits]\nguests-per-address = 16\n")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", "--config", str(path), cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    held = []
    logged: list[bytes] = []            # its log (stderr), as read so far
    try:
        assert proc.stdout is not None and proc.stderr is not None
        await wait_line(proc.stdout, LISTENING, 20)
        held += [await guest(port, "g1"), await guest(port, "g2")]
        # One guest an address from now on; the port cannot move while running.
        path.write_text(path.read_text().replace("guests-per-address = 16",
                                                 "guests-per-address = 1")
                        .replace(f"port = {port}", f"port = {port + 1}"))
        proc.send_signal(signal.SIGHUP)
        said = (await wait_line(proc.stderr, "again: applied", 10, logged)).decode()
        assert "[limits] guests-per-address 16 → 1" in said, said
        assert f"Not applied until a restart: [serve] port {port} → {port + 1}" in said, said
        with pytest.raises((asyncssh.DisconnectError, ConnectionError)) as err:
            await guest(port, "g3")
        assert "at most 1 guests at once" in str(err.value)
        # A file that cannot be used changes nothing, and says why.
        path.write_text(path.read_text().replace("guests-per-address = 1",
                                                 "guests-per-address = -4"))
        proc.send_signal(signal.SIGHUP)
        said = (await wait_line(proc.stderr, "not reloaded", 10, logged)).decode()
        assert "not reloaded" in said and "line 7" in said, said
        # lamma admin reload does the same, and answers.
        path.write_text(path.read_text().replace("guests-per-address = -4",
                                                 "guests-per-address = 5"))
        out = io.StringIO()
        with redirect_stdout(out):
            assert main(["admin", "reload", "--config", str(path)]) == 0
        assert "applied" in out.getvalue()
        held.append(await guest(port, "g3"))
    finally:
        for conn in held:
            conn.close()
        await stop_process(proc, grace=10)


async def test_operators_named_in_the_file_and_on_a_reload(tmp_path):
    from conftest import start_room, stop_room

    from server.config import Config
    key = asyncssh.generate_private_key("ssh-ed25519")
    line = key.export_public_key().decode().strip()
    srv = await start_room(tmp_path, operators=(line,))
    try:
        op = await srv.json_client("olga", key=key)
        op.send({"op": "command", "line": "/who"})
        assert "olga" in (await op.expect("command"))["reply"]
        # The file read again without her: no longer an operator.
        srv.room.apply(Config())
        op.send({"op": "command", "line": "/who"})
        assert "Unknown command" in (await op.expect("error"))["message"]
        await op.close()
    finally:
        await stop_room(srv)


async def test_a_reload_applies_the_events_caps(tmp_path):
    """[events] on a reload: the cap per key at once; the daily events already made keep
    their boards (a new daily-boards is for the next day's)."""
    from conftest import start_room, stop_room
    srv = await start_room(tmp_path)
    try:
        ada = await srv.json_client("ada")
        ada.send({"op": "events"})
        before = (await ada.expect("events"))["events"]
        assert before and all(e["boards"] == 8 for e in before)
        path = tmp_path / "lamma.toml"
        path.write_text("[events]\nper-key = 1\ndaily-boards = 4\n")
        srv.room.apply(read_file(path))
        op = {"op": "create_event", "game": "estimation", "boards": 4, "hours": 1,
              "private": False}
        ada.send(op)
        assert (await ada.expect_any(("event", "error")))["type"] == "event"
        ada.send(op)
        refused = await ada.expect_any(("event", "error"))
        assert refused["type"] == "error" and "(at most 1)" in refused["message"]
        ada.send({"op": "events"})
        after = (await ada.expect("events"))["events"]
        assert [e for e in after if e["id"] in {b["id"] for b in before}] == before
        await ada.close()
    finally:
        await stop_room(srv)
