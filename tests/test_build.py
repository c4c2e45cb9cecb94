"""Two commands on any fresh machine, any day (issue 39): the lock the commands install
from, the version, the room's streams free of third-party warnings (plain or JSON), and a
suite-wide per-test timeout."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement

from server.build import version

ROOT = Path(__file__).resolve().parent.parent
LOCKS = {"room": ROOT / "lock" / "room.lock", "test": ROOT / "lock" / "test.lock"}
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")
WARNED = re.compile(r"Warning\b|DSA is deprecated")


def pins(path: Path) -> dict[str, tuple[str, str | None]]:
    """name -> (version, marker) for every requirement line of a lock."""
    out: dict[str, tuple[str, str | None]] = {}
    for line in path.read_text().splitlines():
        m = PIN.match(line)
        if m:
            out[m.group(1).lower().replace("_", "-")] = (m.group(2), m.group(3))
    return out


def applies(marker: str | None) -> bool:
    return marker is None or Marker(marker).evaluate()


# ---------------------------------------------------------------------------- the lock
@pytest.mark.parametrize("which", sorted(LOCKS))
def test_the_lock_pins_every_package_with_hashes(which):
    text = LOCKS[which].read_text()
    pinned = pins(LOCKS[which])
    assert len(pinned) >= 15
    requirement_lines = [ln for ln in text.splitlines() if ln and not ln.startswith((" ", "#"))]
    assert len(requirement_lines) == len(pinned), "a requirement that is not name==version"
    # every pin carries its hashes (pip's --require-hashes mode is then on for it)
    blocks = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
    for block in blocks:
        if PIN.match(block.splitlines()[0]):
            assert "--hash=sha256:" in block, block.splitlines()[0]


def test_the_locks_satisfy_the_ranges_and_agree():
    """The ranges stay in pyproject.toml; each lock is inside them, and the room's lock is
    the test lock's subset at the same versions."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    room, test = pins(LOCKS["room"]), pins(LOCKS["test"])
    wanted = [*project["dependencies"], *project["optional-dependencies"]["postgres"]]
    for spec in wanted:
        req = Requirement(spec)
        name = req.name.lower().replace("_", "-")
        assert name in room, f"{name} not in the room's lock"
        assert req.specifier.contains(room[name][0], prereleases=True), (spec, room[name])
    for spec in project["optional-dependencies"]["test"]:
        req = Requirement(spec)
        name = req.name.lower().replace("_", "-")
        assert req.specifier.contains(test[name][0], prereleases=True), (spec, test[name])
    for name, (ver, _) in room.items():
        assert test.get(name, (ver,))[0] == ver, f"{name}: room {ver}, test {test[name][0]}"


@pytest.mark.skipif(os.environ.get("LAMMA_UNLOCKED") == "1",
                    reason="installed without the lock on purpose (.ci/latest)")
def test_installed_exactly_what_the_lock_says():
    """The suite runs on the lock's versions: what README's test command installed."""
    wrong = []
    for name, (ver, marker) in pins(LOCKS["test"]).items():
        if not applies(marker) or name == "setuptools":
            continue                    # the build backend: used, not necessarily kept
        try:
            have = metadata.version(name)
        except metadata.PackageNotFoundError:
            wrong.append(f"{name} missing (lock: {ver})")
            continue
        if have != ver:
            wrong.append(f"{name} {have} (lock: {ver})")
    assert not wrong, "installed other than the lock: " + ", ".join(wrong)


def test_the_commands_install_from_the_lock():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -q -r lock/room.lock" in readme
    assert "pip install -q -r lock/test.lock" in readme
    assert "pip install -q -r lock/test.lock" in ci
    assert "--no-deps" in ci and "--no-deps" in readme
    latest = (ROOT / ".ci" / "latest").read_text()
    assert "LAMMA_UNLOCKED=1" in latest and "lock/" not in latest.replace("lock/test.lock)", "")


# ------------------------------------------------------------------------- the version
def test_version_flag():
    out = subprocess.run([sys.executable, "-m", "server.cli", "--version"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"lamma {version()}"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert version() == project["version"]


# ------------------------------------------------------------ no warning as the output
def test_known_dependency_warning_is_a_debug_line_and_others_still_show():
    """The filter is narrow: asyncssh's DSA warning is routed to the log at DEBUG, once a
    place; the same category from another module, or another warning, is still shown."""
    code = (
        "import logging, sys, warnings\n"
        "logging.basicConfig(level=logging.DEBUG, stream=sys.stdout, format='LOG %(name)s %(message)s')\n"
        "import server\n"
        "from cryptography.utils import CryptographyDeprecationWarning as C\n"
        "for _ in range(3):\n"
        "    warnings.warn_explicit('DSA is deprecated and support will be removed', C,\n"
        "                           '/x/asyncssh/crypto/misc.py', 32, module='asyncssh.crypto.misc')\n"
        "warnings.warn_explicit('DSA is deprecated and support will be removed', C,\n"
        "                       '/x/other/mod.py', 7, module='other.mod')\n"
        "warnings.warn_explicit('something else', UserWarning, '/x/asyncssh/a.py', 1,\n"
        "                       module='asyncssh.a')\n")
    out = subprocess.run([sys.executable, "-W", "default", "-c", code], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    logged = [ln for ln in out.stdout.splitlines() if ln.startswith("LOG lamma.dependencies")]
    assert len(logged) == 1 and "misc.py:32" in logged[0]
    assert "other/mod.py:7" in out.stderr and "something else" in out.stderr
    assert "misc.py" not in out.stderr


async def _serve_lines(tmp_path: Path, *flags: str) -> tuple[list[str], list[str]]:
    """Every line ``lamma serve`` writes on stdout and stderr from its start to its stop
    (SIGTERM once listening, with nobody connected), read with one deadline."""
    env = dict(os.environ, PYTHONWARNINGS="default")     # as a fresh shell's python
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", "--port", "0", "--data",
        str(tmp_path / "data"), "--keys", str(tmp_path / "keys"), "--drain-seconds", "0",
        *flags, cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    out: list[str] = []
    err: list[str] = []

    async def pump(stream: asyncio.StreamReader, into: list[str]) -> None:
        async for raw in stream:
            into.append(raw.decode(errors="replace").rstrip("\n"))

    pumps = [asyncio.ensure_future(pump(proc.stdout, out)),
             asyncio.ensure_future(pump(proc.stderr, err))]
    try:
        async with asyncio.timeout(60):
            while not any("listening" in ln for ln in out):
                if proc.returncode is not None:
                    break
                await asyncio.sleep(0.05)
            assert any("listening" in ln for ln in out), (out, err)
            proc.send_signal(signal.SIGTERM)
            await proc.wait()
            await asyncio.gather(*pumps)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        for p in pumps:
            p.cancel()
    assert proc.returncode == 0, (out, err)
    return out, err


async def test_no_third_party_warning_on_the_rooms_streams(tmp_path):
    out, err = await _serve_lines(tmp_path)
    assert out[0].startswith("Lamma is listening on 127.0.0.1:")
    assert f"version {version()}" in out[0]
    for line in out + err:
        assert not WARNED.search(line), f"a warning on the room's streams: {line}"


async def test_json_logs_are_json_on_both_streams_from_start_to_stop(tmp_path):
    out, err = await _serve_lines(tmp_path, "--log-format", "json", "--log-level", "DEBUG")
    assert out and err
    for line in out + err:
        parsed = json.loads(line)               # every line, banner and warnings included
        assert {"time", "level", "logger", "message"} <= set(parsed), line
    banner = [json.loads(ln) for ln in out]
    assert banner[0]["version"] == version() and banner[0]["listen"].startswith("127.0.0.1:")
    assert any("fingerprint" in b for b in banner)
    # at DEBUG the known dependency warning is there, once a place, as a JSON line
    dsa = [json.loads(ln) for ln in err if "DSA is deprecated" in ln]
    places = [d["message"].split(": ")[0] for d in dsa]
    assert len(places) == len(set(places))
    assert all(d["logger"] == "lamma.dependencies" and d["level"] == "DEBUG" for d in dsa)


# ----------------------------------------------------------------------------- hangs
def test_the_timeout_is_suite_wide(pytestconfig):
    """pytest-timeout is on for every test, from pyproject.toml (not a command-line flag a
    run could forget); a test that needs more says so with @pytest.mark.timeout."""
    assert pytestconfig.pluginmanager.hasplugin("timeout")
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert 0 < float(ini["timeout"]) <= 600
    assert float(pytestconfig.getini("timeout")) == float(ini["timeout"])


@pytest.mark.slow          # a real pytest run waiting for its timeout
def test_a_hanging_test_is_stopped(tmp_path):
    """A test that would wait for ever fails at its timeout instead (a real pytest run)."""
    (tmp_path / "test_hang.py").write_text(
        "import time\n"
        "import pytest\n"
        "@pytest.mark.timeout(2)\n"
        "def test_hangs():\n"
        "    time.sleep(600)\n")
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n0", "-p", "no:cacheprovider",
                          "--rootdir", str(tmp_path), str(tmp_path / "test_hang.py")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, out.stdout
    assert "Timeout" in out.stdout and "1 failed" in out.stdout
