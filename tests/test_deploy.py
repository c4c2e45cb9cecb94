"""What installs the room (issue 28): the systemd units (``systemd-analyze verify``
where the machine has it), the container file, and ``Type=notify``: a real ``lamma
serve`` tells systemd's socket when it listens and when it stops."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import signal
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from procs import LISTENING, stop_process, wait_line

from server.cli import main
from server.config import BY_KEY

ROOT = Path(__file__).resolve().parents[1]
UNITS = [ROOT / "deploy" / "lamma.service", ROOT / "deploy" / "lamma@.service"]
CONTAINERFILE = ROOT / "deploy" / "Containerfile"
HARDENING = ("ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
             "PrivateDevices=yes", "NoNewPrivileges=yes", "CapabilityBoundingSet=",
             "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX", "RestrictNamespaces=yes",
             "SystemCallFilter=@system-service", "UMask=0077", "DynamicUser=yes",
             "User=lamma", "Restart=on-failure", "RestartPreventExitStatus=2",
             "KillSignal=SIGTERM", "Type=notify", "ExecReload=/bin/kill -HUP $MAINPID")


def directives(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text().splitlines()
            if line.strip() and not line.lstrip().startswith(("#", "["))]


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_the_unit_holds_what_the_guide_says(unit):
    lines = directives(unit)
    for wanted in HARDENING:
        assert wanted in lines, wanted
    assert any(line.startswith("StateDirectory=lamma") for line in lines)
    stop = next(int(line.split("=")[1]) for line in lines if line.startswith("TimeoutStopSec="))
    assert stop > BY_KEY[("restart", "drain-seconds")].default + 10
    start = next(line for line in lines if line.startswith("ExecStart="))
    args = start.split("=", 1)[1].split()
    assert args[:2] == ["/opt/lamma/bin/lamma", "serve"] and "--config" in args
    # The options it passes are options of lamma serve.
    probe = [a.replace("%S", "/var/lib").replace("%i", "east") for a in args[2:]
             if not a.startswith("--config") and not a.endswith(".toml")]
    out = _printed("config", *probe)
    assert tomllib.loads(out)["serve"]["data"].startswith("/var/lib/lamma")
    # lamma check before every start (issue 45: a first start passes it), with the
    # same configuration, folders and port as the start itself.
    pre = next(line for line in lines if line.startswith("ExecStartPre="))
    assert pre.split("=", 1)[1].split() == ["/opt/lamma/bin/lamma", "check", *args[2:]]


def test_the_units_are_hardened_alike():
    a, b = (set(directives(u)) for u in UNITS)
    differ = {line.split("=")[0] for line in a ^ b}
    assert differ <= {"Description", "ExecStart", "ExecStartPre", "StateDirectory"}, differ


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_systemd_analyze_verify_is_clean(unit, tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("no systemd-analyze on this machine (Debian's package: systemd)")
    # The unit as installed, with this checkout's lamma where the guide puts /opt/lamma.
    lamma = Path(sys.executable).parent / "lamma"
    assert lamma.exists(), lamma
    text = unit.read_text().replace("/opt/lamma/bin/lamma", str(lamma))
    name = unit.name.replace("@.", "@east.")
    (tmp_path / name).write_text(text)
    run = subprocess.run([analyze, "verify", str(tmp_path / name)], capture_output=True,
                         text=True, timeout=60, cwd=tmp_path)
    said = (run.stdout + run.stderr).strip()
    # Only what concerns this unit (a container's own missing units are no concern).
    ours = [line for line in said.splitlines() if name in line or "lamma" in line]
    assert run.returncode == 0 and not ours, said


def test_the_container_file():
    text = CONTAINERFILE.read_text()
    copies = re.findall(r"^COPY (?!--from)(.+?) /src", text, re.M)
    copied = " ".join(copies).split()
    assert sorted(copied) == ["README.md", "engine", "lock/room.lock", "pyproject.toml",
                              "server", "tui"]
    # the room installed from the lock (exact versions, hash-checked), then itself alone
    assert "pip install --quiet -r /src/lock/room.lock" in text and "--no-deps" in text
    assert re.search(r"^USER lamma$", text, re.M)
    assert re.search(r'^VOLUME \["/data", "/keys"\]$', text, re.M)
    assert re.search(r"^STOPSIGNAL SIGTERM$", text, re.M)
    assert "python:3.12-slim" in text
    # Exec form: lamma is the container's first process and SIGTERM reaches it.
    entry = re.search(r"^ENTRYPOINT (\[.*?\])$", text, re.M | re.S)
    assert entry is not None
    argv = json.loads(entry.group(1).replace("\\\n", ""))
    assert argv[:2] == ["/opt/lamma/bin/lamma", "serve"]
    parsed = tomllib.loads(_printed("config", *argv[2:]))["serve"]
    assert (parsed["host"], parsed["data"], parsed["keys"], parsed["log-format"]) == \
        ("0.0.0.0", "/data", "/keys", "json")


def _printed(*argv: str) -> str:
    import io
    from contextlib import redirect_stdout
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


@pytest.mark.slow
async def test_lamma_serve_tells_systemd_when_it_listens_and_stops(tmp_path):
    where = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(where))
    sock.setblocking(False)
    loop = asyncio.get_running_loop()
    env = {"NOTIFY_SOCKET": str(where), "PATH": "/usr/bin:/bin"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", "--port", "0", "--data",
        str(tmp_path / "data"), "--keys", str(tmp_path / "keys"), cwd=ROOT, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        assert (await asyncio.wait_for(loop.sock_recv(sock, 100), 20)) == b"READY=1"
        assert proc.stdout is not None
        await wait_line(proc.stdout, LISTENING, 10)         # said before READY=1
        proc.send_signal(signal.SIGTERM)
        assert (await asyncio.wait_for(loop.sock_recv(sock, 100), 10)) == b"STOPPING=1"
        await asyncio.wait_for(proc.wait(), 10)
        assert proc.returncode == 0
    finally:
        sock.close()
        await stop_process(proc)
