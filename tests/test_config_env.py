"""Settings from the environment (issue 45): every setting as LAMMA_SECTION_KEY ([serve]'s
also as LAMMA_KEY), documented in ``lamma config``'s output; the order file <
environment < flags; secrets from a file, never printed."""

from __future__ import annotations

import asyncio
import io
import socket
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import asyncssh
import pytest
from procs import LISTENING, stop_process, wait_line

from server.cli import main
from server.config import (
    SETTINGS,
    Config,
    ConfigError,
    database_url,
    effective,
    env_name,
    read_file,
    reload,
)

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_every_kind_of_setting_from_its_variable():
    c = effective(None, {}, {
        "LAMMA_PORT": "2300", "LAMMA_SERVE_HOST": "0.0.0.0", "LAMMA_SERVE_GUESTS": "off",
        "LAMMA_LIMITS_GUESTS_PER_ADDRESS": "8", "LAMMA_PLAY_BOT_PAUSE": "0.25",
        "LAMMA_EVENTS_DAILY_GAMES": "estimation", "LAMMA_LIMITS_OP_COST": "hint = 40",
        "LAMMA_SERVE_PROXY_FROM": "10.0.0.0/8, 192.0.2.1", "LAMMA_SERVE_PROXY_PROTOCOL": "1",
        "LAMMA_RESTART_NOTICE": "Back in {seconds} s, promise",
        "LAMMA_CRASH_SEED": "7", "HOME": "/root"})       # not the room's: left alone
    assert c.serve("port") == 2300 and c.serve("host") == "0.0.0.0"
    assert c.serve("guests") is False and c.serve("proxy-protocol") is True
    assert [str(n) for n in c.serve("proxy-from")] == ["10.0.0.0/8", "192.0.2.1/32"]
    assert c[("limits", "guests-per-address")] == 8 and c[("play", "bot-pause")] == 0.25
    assert c[("events", "daily-games")] == ("estimation",)
    assert c[("limits", "op-cost")]["hint"] == 40
    assert c[("restart", "notice")] == "Back in {seconds} s, promise"
    assert c.from_env[("serve", "port")] == "LAMMA_PORT"


def test_file_then_environment_then_flags(tmp_path):
    path = tmp_path / "lamma.toml"
    path.write_text("[serve]\nport = 2201\nhost = \"10.1.1.1\"\n[limits]\nauth-tries = 5\n")
    env = {"LAMMA_SERVE_PORT": "2202", "LAMMA_LIMITS_AUTH_TRIES": "6"}
    assert effective(path, {}, env).serve("port") == 2202
    assert effective(path, {"port": 2203}, env).serve("port") == 2203
    c = effective(path, {}, env)
    assert c.serve("host") == "10.1.1.1" and c[("limits", "auth-tries")] == 6
    # The full name wins over the short one, in either order of the environment.
    assert effective(None, {}, {"LAMMA_PORT": "1", "LAMMA_SERVE_PORT": "2"}).serve("port") == 2
    # A reload reads the file again under the environment and the flags of the start.
    path.write_text("[serve]\nport = 2299\nhost = \"10.1.1.1\"\n[limits]\nauth-tries = 9\n"
                    "max-tables = 7\n")
    fresh, fixed = reload(c)
    assert fresh[("limits", "auth-tries")] == 6 and fresh.serve("port") == 2202
    assert fresh[("limits", "max-tables")] == 7 and not fixed


def test_a_variable_that_cannot_be_used_is_said_with_its_name():
    with pytest.raises(ConfigError, match=r"LAMMA_SERVE_PORT='70000': expected a port"):
        effective(None, {}, {"LAMMA_SERVE_PORT": "70000"})
    with pytest.raises(ConfigError, match=r"LAMMA_PLAY_BOT_PAUSE='soon': expected a number"):
        effective(None, {}, {"LAMMA_PLAY_BOT_PAUSE": "soon"})
    with pytest.raises(ConfigError, match=r"LAMMA_GUESTS='maybe': expected true or false"):
        effective(None, {}, {"LAMMA_GUESTS": "maybe"})
    with pytest.raises(ConfigError, match=r"LAMMA_PROT: not a setting \(did you mean "
                                          r"LAMMA_PORT\?\)"):
        effective(None, {}, {"LAMMA_PROT": "2222"})
    with pytest.raises(ConfigError, match=r"LAMMA_LIMITS_GUEST: not a setting"):
        effective(None, {}, {"LAMMA_LIMITS_GUEST": "2"})
    with pytest.raises(ConfigError, match=r"LAMMA_LIMITS_AUTH_TRIES_FILE=/nowhere: cannot "
                                          r"be read"):
        effective(None, {}, {"LAMMA_LIMITS_AUTH_TRIES_FILE": "/nowhere"})


def config_out(*argv: str, env: dict[str, str] | None = None) -> str:
    """``lamma config``'s output (and stderr) under ``env``."""
    run = subprocess.run([sys.executable, "-m", "server.cli", "config", *argv], cwd=ROOT,
                         capture_output=True, text=True, timeout=30,
                         env={"PATH": "/usr/bin:/bin", **(env or {})})
    assert run.returncode == 0, run.stderr
    return run.stdout + run.stderr


def test_lamma_config_names_every_variable_and_where_a_value_came_from():
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["config"]) == 0
    text = out.getvalue()
    for s in SETTINGS:
        assert env_name(s) in text, env_name(s)
    assert "LAMMA_SERVE_PORT or LAMMA_PORT" in text
    assert "file, the environment" in text.replace("\n# ", " ")
    said = config_out(env={"LAMMA_PORT": "2345"})
    assert "port = 2345  # from LAMMA_PORT" in said


def test_the_database_password_comes_from_a_file_and_is_never_printed(tmp_path):
    secret = "s3cr3t-Pa55"
    (tmp_path / "pw").write_text(secret + "\n")
    (tmp_path / "url").write_text(f"postgresql://lamma:{secret}@127.0.0.1:1/room\n")
    # database-password-file: the URL carries it when the room connects.
    c = effective(None, {}, {"LAMMA_SERVE_DATABASE": "postgresql://lamma@127.0.0.1:1/room",
                             "LAMMA_SERVE_DATABASE_PASSWORD_FILE": str(tmp_path / "pw")})
    assert database_url(c).endswith(f"?password={secret}")
    # A whole URL from a _FILE variable (a container's secret).
    c2 = effective(None, {}, {"LAMMA_SERVE_DATABASE_FILE": str(tmp_path / "url")})
    assert c2.serve("database") == f"postgresql://lamma:{secret}@127.0.0.1:1/room"
    for env, shown in (({"LAMMA_SERVE_DATABASE": "postgresql://lamma@127.0.0.1:1/room",
                         "LAMMA_SERVE_DATABASE_PASSWORD_FILE": str(tmp_path / "pw")},
                        'database = "postgresql://lamma@127.0.0.1:1/room"'),
                       ({"LAMMA_SERVE_DATABASE_FILE": str(tmp_path / "url")},
                        'database = "postgresql://lamma:***@127.0.0.1:1/room"')):
        said = config_out(env=env)
        assert secret not in said and shown in said, said
        # lamma check reaches for it (nobody answers on port 1) and says so without it.
        run = subprocess.run([sys.executable, "-m", "server.cli", "check", "--port", "0",
                              "--data", str(tmp_path / "data"), "--keys",
                              str(tmp_path / "keys")], cwd=ROOT, capture_output=True,
                             text=True, timeout=60, env={"PATH": "/usr/bin:/bin", **env})
        assert run.returncode == 1 and "not reachable" in run.stdout, run
        assert secret not in run.stdout + run.stderr, run
    # A bad value in a secret's variable is not said back.
    err = io.StringIO()
    with pytest.raises(ConfigError) as e, redirect_stderr(err):
        effective(None, {}, {"LAMMA_SERVE_DATABASE": 5 * "x" + secret + 5000 * "y"})
    assert secret not in str(e.value)
    # A reload's account of a changed URL hides the password too.
    from server.config import changes
    a, b = Config(), Config()
    a.values[("serve", "database")] = "postgresql://u:one@h/db"
    b.values[("serve", "database")] = "postgresql://u:two@h/db"
    assert changes(a, b) == [("[serve] database", '"postgresql://u:***@h/db"',
                              '"postgresql://u:***@h/db"')]


def test_a_file_named_by_lamma_config(tmp_path):
    path = tmp_path / "room.toml"
    path.write_text("[limits]\nauth-tries = 4\n")
    assert "auth-tries = 4" in config_out(env={"LAMMA_CONFIG": str(path)})
    assert read_file(path)[("limits", "auth-tries")] == 4


@pytest.mark.slow
async def test_lamma_port_moves_the_port(tmp_path):
    """From outside: LAMMA_PORT (and LAMMA_DATA, LAMMA_KEYS) with no flag; the room
    listens there and a player connects."""
    port = free_port()
    env = {"PATH": "/usr/bin:/bin", "LAMMA_PORT": str(port),
           "LAMMA_DATA": str(tmp_path / "data"), "LAMMA_KEYS": str(tmp_path / "keys"),
           "LAMMA_SERVE_STATUS_EVERY": "0"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        assert proc.stdout is not None
        said = await wait_line(proc.stdout, LISTENING, 20)
        assert f":{port} " in said.decode(), said
        conn = await asyncssh.connect("127.0.0.1", port, username="ana", known_hosts=None,
                                      client_keys=[asyncssh.generate_private_key(
                                          "ssh-ed25519")], agent_path=None)
        p = await conn.create_process("play", encoding=None)
        assert b"hello" in await asyncio.wait_for(p.stdout.readline(), 10)
        conn.close()
        assert (tmp_path / "data" / "lamma.db").exists()
    finally:
        await stop_process(proc)


def test_a_variable_that_stops_the_start_is_said_in_json_when_json_logs_are_asked():
    run = subprocess.run([sys.executable, "-m", "server.cli", "serve"], cwd=ROOT,
                         capture_output=True, text=True, timeout=30,
                         env={"PATH": "/usr/bin:/bin", "LAMMA_LOG_FORMAT": "json",
                              "LAMMA_PORT": "99999"})
    assert run.returncode == 2 and run.stdout == ""
    import json
    (line,) = [json.loads(x) for x in run.stderr.splitlines()]
    assert line["level"] == "ERROR" and "LAMMA_PORT='99999'" in line["message"]
