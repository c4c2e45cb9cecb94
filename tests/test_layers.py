"""The layers, read from the source, bottom-up as the tree reads (issue 25): the rules
(``engine``) ← the computer players (``engine.bots``) ← the table engine
(``engine.room``) ← the screens (``tui``) ← the transport and its adapters
(``server``: SSH, the driver, JSON lines, the stores, the cluster, the CLI).

Every import counts, also one inside a function (a late import is still a
dependency); for the layers, imports under ``if TYPE_CHECKING:`` are left out, since
they never run; for the circles they count too (issue 42: a module that needs
another's types to be read is tied to it). A failure names the module and the import
that crosses a layer, or the circle.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "server", "tui")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(path: Path, for_types: bool = False) -> set[str]:
    """Absolute names of the modules ``path`` imports when it runs (``for_types``:
    and those it imports for the type checker only)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking_only(child) and not for_types:
                for sub in child.orelse:
                    visit(sub)
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[: len(base) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                found.add(target)
                # ``from . import bots`` imports a module, not a name
                for alias in child.names:
                    sub = f"{target}.{alias.name}"
                    if (ROOT / Path(*sub.split("."))).with_suffix(".py").exists() or \
                            (ROOT / Path(*sub.split(".")) / "__init__.py").exists():
                        found.add(sub)
            visit(child)

    visit(ast.parse(path.read_text(), str(path)))
    return found


def graph(for_types: bool = False) -> dict[str, set[str]]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            out[module_name(path)] = imports_of(path, for_types)
    return out


def layer(module: str) -> str:
    top, _, rest = module.partition(".")
    if top == "engine":
        sub = rest.partition(".")[0]
        return {"bots": "bots", "room": "room"}.get(sub, "rules")
    if top == "tui":
        return "tui"
    if top == "server":
        return "transport"
    return "outside"


# What each layer may import of ours, and third-party packages it must not need.
ALLOWED = {
    "rules": {"rules"},
    "bots": {"rules", "bots"},
    "room": {"rules", "bots", "room"},
    "tui": {"rules", "room", "tui"},
    "transport": {"rules", "bots", "room", "tui", "transport"},
}
# The rules are pure: no I/O, no asyncio, no threads (deterministic from a seed or deals).
FORBIDDEN_OUTSIDE = {
    "rules": ("textual", "rich", "asyncssh", "asyncio", "sqlite3", "psycopg", "socket",
              "threading", "multiprocessing", "subprocess"),
    "bots": ("textual", "rich", "asyncssh", "asyncio", "sqlite3", "psycopg", "socket"),
    "room": ("textual", "rich", "asyncssh", "sqlite3", "psycopg", "socket"),
    "tui": ("asyncssh", "sqlite3", "psycopg", "socket"),
}


def test_each_layer_imports_only_the_layers_below():
    crossings = []
    for module, targets in graph().items():
        mine = layer(module)
        for target in targets:
            theirs = layer(target)
            if theirs == "outside":
                top = target.split(".")[0]
                if top in FORBIDDEN_OUTSIDE.get(mine, ()):
                    crossings.append(f"{module} ({mine}) imports {target}")
            elif theirs not in ALLOWED[mine]:
                crossings.append(f"{module} ({mine}) imports {target} ({theirs})")
    assert not crossings, "imports across the layers:\n" + "\n".join(sorted(crossings))


def test_no_import_cycles():
    g = graph(for_types=True)
    ours = {m: {t for t in ts if t in g and t != m} for m, ts in g.items()}
    # A package's __init__ importing its own modules is how a package is built, not a
    # cycle: a module importing its package's __init__ only reaches the names it re-exports.
    for m in ours:
        ours[m] = {t for t in ours[m] if not m.startswith(t + ".")}
    cycles = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in sorted(ours[m]):
            if state.get(t) == 1:
                cycles.append(" -> ".join([*stack[stack.index(t):], t]))
            elif t not in state:
                walk(t)
        stack.pop()
        state[m] = 2

    for m in sorted(ours):
        if m not in state:
            walk(m)
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_the_check_sees_a_crossing(tmp_path, monkeypatch):
    """The reader is not blind: a late import inside a function is found, and an
    import under TYPE_CHECKING is not."""
    pkg = tmp_path / "engine" / "room"
    pkg.mkdir(parents=True)
    (tmp_path / "tui").mkdir()
    (tmp_path / "tui" / "app.py").write_text("")
    mod = pkg / "x.py"
    mod.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                   "    from server import ssh\n"
                   "def f():\n    from tui.app import LammaApp\n    from . import y\n")
    (pkg / "y.py").write_text("")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = imports_of(mod)
    assert "tui.app" in found and "engine.room.y" in found and "server" not in found
    assert "server" in imports_of(mod, for_types=True)      # a circle counts it


def test_the_rooms_stay_small():
    """Issue 42's limits, kept: no class in engine/room or tui over 40 methods or 500
    lines; no file in engine/room, tui or server over 900 lines (a method added to
    ``Table`` for a screen once took it to 42 unnoticed)."""
    import ast
    root = Path(__file__).resolve().parents[1]
    over = []
    for folder in ("engine/room", "tui", "server"):
        for f in sorted((root / folder).rglob("*.py")):
            text = f.read_text()
            if len(text.splitlines()) > 900:
                over.append(f"{f.relative_to(root)}: {len(text.splitlines())} lines")
            if folder == "server":
                continue
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.ClassDef):
                    methods = sum(isinstance(x, (ast.FunctionDef, ast.AsyncFunctionDef))
                                  for x in node.body)
                    lines = (node.end_lineno or node.lineno) - node.lineno + 1
                    if methods > 40 or lines > 500:
                        over.append(f"{f.relative_to(root)}: {node.name} {methods} methods, "
                                    f"{lines} lines")
    assert not over, over
