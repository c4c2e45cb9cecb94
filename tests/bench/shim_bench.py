"""What each shim buys: the server benchmark with shims turned off (a benchmark, not a test).

Timing, any scenario of ``server_bench.py`` (its own arguments after ``--``)::

    .venv/bin/python tests/bench/shim_bench.py [--without NAME,...] -- --only one --repeat 3

Instructions a move at one table of four terminals, a fixed deal, counted by
callgrind over the whole server process (the clients run natively in a child
process) between two moves only (``--from``, ``--to``), through callgrind's
client requests (a tiny C library built at run time with the system's
``valgrind/callgrind.h``; without valgrind they do nothing)::

    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/cg.%p \\
        .venv/bin/python tests/bench/shim_bench.py --instructions [--without NAME,...]

It prints ``instructions a move: N`` from the dump callgrind writes at ``--to``.  The
clients wait ``--quiet`` times longer than ``server_bench``'s for the server to fall
silent after each key (the server is ~50 times slower under callgrind): every frame of
a key is drawn before the next key is pressed, so two runs of the same code count
within ~1 % of each other.

``--without`` turns shims off by monkeypatching the code under test back to the path
without them (see ``TOGGLES``; a toggle whose target does not exist in the code under
test is reported and skipped, so the same script measures an older checkout too).
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import server_bench as sb  # noqa: E402

SEED = 20261203


# ------------------------------------------------------------------ toggles
def _noop_in(module: str, name: str) -> Callable[[], bool]:
    def off() -> bool:
        import importlib
        mod = importlib.import_module(module)
        if not hasattr(mod, name):
            return False
        setattr(mod, name, lambda *a, **k: None)
        return True
    return off


def _method(module: str, cls: str, name: str, replacement: Callable[..., object] | None,
            ) -> Callable[[], bool]:
    """``cls.name`` replaced (None: deleted, so a base class's is used)."""
    def off() -> bool:
        import importlib
        mod = importlib.import_module(module)
        klass = getattr(mod, cls, None)
        if klass is None or name not in vars(klass):
            return False
        if replacement is None:
            delattr(klass, name)
        else:
            setattr(klass, name, replacement)
        return True
    return off


async def _false_async(*args: object, **kwargs: object) -> bool:
    return False


def _false(*args: object, **kwargs: object) -> bool:
    return False


TOGGLES: dict[str, Callable[[], bool]] = {
    # tui/textual_compat.py's shims (the code before issue 25's item 5 had more of them;
    # a toggle whose target is gone says so)
    "disable_stdio_redirect": _noop_in("tui.textual_compat", "disable_stdio_redirect"),
    "acyclic_textual": _noop_in("tui.textual_compat", "acyclic_textual"),
    "fast_callbacks": _noop_in("tui.textual_compat", "fast_callbacks"),
    "fast_dispatch": _noop_in("tui.textual_compat", "fast_dispatch"),
    "fast_control_strip": _noop_in("tui.textual_compat", "fast_control_strip"),
    "cheap_key_str": _noop_in("tui.textual_compat", "cheap_key_str"),
    "shared_stylesheets": _noop_in("tui.textual_compat", "shared_stylesheets"),
    # Textual privates behind a path of ours
    "prompt_paint": _method("tui.textual_compat", "PromptScreenMixin", "_on_idle", None),
    "frame_hook": _method("tui.textual_compat", "FrameHookMixin", "_display", None),
    "direct": _method("tui.widgets.board", "Board", "_write_direct", _false),
    "key_now": _method("tui.app", "LammaApp", "key_now", _false_async),
    "table_now": _method("tui.app", "LammaApp", "table_changed_now", _false),
    # asyncssh (server/wire.py)
    "coalesce": _noop_in("server.wire", "coalesce"),     # (gone since)
    "quiet": _noop_in("server.wire", "quiet"),
    "hold": _noop_in("server.wire", "hold"),
}


def turn_off(names: list[str]) -> None:
    for name in names:
        if name not in TOGGLES:
            raise SystemExit(f"no toggle {name!r}: {', '.join(TOGGLES)}")
        done = TOGGLES[name]()
        print(f"without {name}" + ("" if done else " (not in this code: nothing to turn off)"),
              flush=True)


# --------------------------------------------------------- callgrind's requests
_C = r"""
#include <valgrind/callgrind.h>
void lamma_cg_start(void) { CALLGRIND_START_INSTRUMENTATION; CALLGRIND_ZERO_STATS; }
void lamma_cg_stop(void) { CALLGRIND_DUMP_STATS_AT("moves"); CALLGRIND_STOP_INSTRUMENTATION; }
int lamma_cg_on(void) { return RUNNING_ON_VALGRIND; }
"""


def callgrind() -> ctypes.CDLL:
    out = Path(tempfile.mkdtemp()) / "cg.so"
    src = out.with_suffix(".c")
    src.write_text(_C)
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", str(out), str(src)], check=True)
    return ctypes.CDLL(str(out))


# ------------------------------------------------------------------ the agent
class SlowAgent(sb.RemoteAgent):
    """``server_bench``'s client process, waiting ``quiet`` times longer for silence."""

    def __init__(self, quiet: float):
        self.quiet = quiet

    async def start(self):
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--agent", "--quiet", str(self.quiet),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=str(ROOT), limit=2**26)
        self.ids = 0
        self.waiting = {}
        self.reader = asyncio.ensure_future(self._read())
        return self


def slow_quiet(scale: float) -> None:
    quiet = sb.Client.quiet

    async def slower(self, period=0.05, timeout=5):
        await quiet(self, period * scale, timeout * scale)
    sb.Client.quiet = slower          # type: ignore[method-assign]
    real_wait_for = asyncio.wait_for

    async def wait_for(fut, timeout):
        return await real_wait_for(fut, None if timeout is None else timeout * scale)
    sb.asyncio.wait_for = wait_for    # (the agent's per-key timeouts; its own process)


# ------------------------------------------------------------- instructions
def seeded() -> None:
    """Every table made from now on deals from ``SEED``."""
    from engine.room.registry import Registry
    create = Registry.create

    def create_seeded(self, *args, **kwargs):
        table = create(self, *args, **kwargs)
        table.seed = SEED
        return table
    Registry.create = create_seeded   # type: ignore[method-assign]


def trick_hold_always() -> None:
    """The finished trick moves to its winner after ``TRICK_HOLD`` (0.7 s) unless the
    next card comes first: under callgrind a move takes about that long, so whether it
    fired varied with the machine's load (+-2 % of the count).  Held 0.05 s, it always
    fires before the next key (as between people, who take longer than 0.7 s a card)."""
    from tui.screens import table
    table.TRICK_HOLD = 0.05


async def instructions(args) -> int:
    cg = callgrind()
    trick_hold_always()
    on_valgrind = bool(cg.lamma_cg_on())
    from server import runtime
    runtime.patch_textual()
    seeded()
    server, room, port = await sb.start_inprocess()
    agent = sb.Agents([await SlowAgent(args.quiet).start()])
    table, names = await sb.table_of_four(room, agent, port, "one")
    own, other, per_move = [], [], []
    n = 0
    cpu0 = 0.0
    print(f"one table, fixed deal; valgrind: {on_valgrind}; {sb.load()}", flush=True)
    while table.match.to_act is not None and n < args.to:
        if n == args.start:
            cpu0 = time.process_time()
            cg.lamma_cg_start()
        await sb.one_move(table, agent, names, own, other, per_move)
        n += 1
    cg.lamma_cg_stop()
    moves = n - args.start
    print(f"moves {args.start}..{n} ({moves}); this process's CPU per move "
          f"{(time.process_time() - cpu0) * 1000 / max(1, moves):.2f} ms; "
          f"the match's phase at the end: {table.match.phase}", flush=True)
    await agent.stop()
    server.close()
    return moves if on_valgrind else 0


async def session_instructions(args) -> int:
    """``--sessions N``: sessions that come and go one at a time (connect, first
    screen, close, gone), as the churn scenario's; counted from the 10th to the
    10+N-th (returns N, what the dump's totals are divided by).  Without the
    collector's task (its collections come with wall time, which callgrind
    stretches)."""
    cg = callgrind()
    on_valgrind = bool(cg.lamma_cg_on())
    from server import runtime
    runtime.patch_textual()
    server, room, port = await sb.start_inprocess()
    agent = sb.Agents([await SlowAgent(args.quiet).start()])

    async def one(i: int) -> None:
        name = f"s{i}"
        await agent.call(op="connect", port=port, names=[name])
        await agent.call(op="quiet", names=[name], period=0.05)
        await agent.call(op="close", names=[name])
        while room.online or room.session_tasks:
            await asyncio.sleep(0.01)
    for i in range(10):
        await one(i)
    print(f"sessions coming and going; valgrind: {on_valgrind}; {sb.load()}", flush=True)
    cpu0 = time.process_time()
    cg.lamma_cg_start()
    for i in range(args.sessions):
        await one(10 + i)
    cg.lamma_cg_stop()
    print(f"sessions 10..{10 + args.sessions}; this process's CPU a session "
          f"{(time.process_time() - cpu0) * 1000 / args.sessions:.1f} ms", flush=True)
    await agent.stop()
    sb.stop_inprocess(server)
    return args.sessions if on_valgrind else 0


def read_dump(out_dir: str, moves: int) -> None:
    """The totals of the dump callgrind wrote at ``--to`` (named <out-file>.1)."""
    pid = os.getpid()
    for p in Path(out_dir).glob(f"*{pid}*"):
        for line in p.read_text(errors="replace").splitlines():
            if line.startswith(("summary:", "totals:")):
                total = int(line.split()[1])
                print(f"{p.name}: instructions a move (or session): {total / moves / 1e6:.3f} M "
                      f"({total} over {moves})", flush=True)
                break


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--agent", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--without", default="", help="comma-separated: " + ",".join(TOGGLES))
    p.add_argument("--instructions", action="store_true")
    p.add_argument("--sessions", type=int, default=0,
                   help="with --instructions: count N sessions coming and going instead")
    p.add_argument("--from", dest="start", type=int, default=40)
    p.add_argument("--to", type=int, default=120)
    p.add_argument("--quiet", type=float, default=10.0,
                   help="the clients' waits for silence, times server_bench's")
    p.add_argument("--out-dir", default="/tmp", help="where callgrind writes its dumps")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    a = p.parse_args()
    if a.agent:
        slow_quiet(a.quiet)
        asyncio.run(sb.agent_main())
        return
    turn_off([n for n in a.without.split(",") if n])
    if a.instructions:
        moves = asyncio.run(session_instructions(a) if a.sessions else instructions(a))
        if moves:
            read_dump(a.out_dir, moves)
        return
    rest = [r for r in a.rest if r != "--"]
    sys.argv = [str(HERE / "server_bench.py"), *rest]
    import runpy
    runpy.run_path(str(HERE / "server_bench.py"), run_name="__main__")


if __name__ == "__main__":
    main()
