"""No module reaches another module's privates (issue 42): ``obj._name`` where ``obj`` is
not ``self``/``cls`` is allowed only for a name that the same file defines (its own
classes and functions, the attributes it sets) or a framework private that
tests/test_textual_compat.py's registry checks (``relied_on``). What a module needs of
another is public there: ``Match.legal_play_mask``, ``Match.rounds_done``, ``Match.fork``,
``Table.turns.schedule``, ``Table.runner.changed``, ``Table.views`` …"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "server", "tui")
# Framework privates behind their named shims, each checked by test_textual_compat.py.
COMPAT = ROOT / "tests" / "test_textual_compat.py"


def registered_privates() -> set[str]:
    """The private names the compatibility registry checks (``relied_on(...)``)."""
    text = COMPAT.read_text()
    return set(re.findall(r"\b(_[a-z][a-z0-9_]*)\b", " ".join(
        re.findall(r"@relied_on\((.*?)\)\n", text, re.S))))


def defined_here(tree: ast.AST) -> set[str]:
    """Private names this file defines: functions, classes, and attributes or names it
    assigns (``x._y = ...``, ``self._y: T``, ``_y = ...``), and ``__slots__`` entries."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Attribute):
                        out.add(sub.attr)
                    elif isinstance(sub, ast.Name):
                        out.add(sub.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.add(node.value)         # __slots__ = ("_x", ...), setattr(obj, "_x", ...)
    return {n for n in out if n.startswith("_") and not n.startswith("__")}


@pytest.mark.slow      # a scan of every module (3 s): the full suite (the fast tier's 90 s)
def test_no_module_reaches_another_modules_privates():
    # "_": the translation function screens and messages are given (gettext's name).
    allowed = registered_privates() | {"_", "_replace", "_asdict", "_fields", "_exit"}
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            own = defined_here(tree)
            for node in ast.walk(tree):
                if not isinstance(node, ast.Attribute):
                    continue
                name = node.attr
                if not name.startswith("_") or name.startswith("__"):
                    continue
                base = node.value
                if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                    continue
                if isinstance(base, ast.Call) and isinstance(base.func, ast.Name) \
                        and base.func.id == "super":
                    continue
                if name in own or name in allowed:
                    continue
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{name}")
    assert not found, "privates of another module:\n" + "\n".join(found)


def test_the_check_sees_a_reach():
    """The scan itself: a file reaching another's private is found, its own is not."""
    tree = ast.parse("class A:\n    _mine = 1\n\ndef f(a, m):\n    a._mine\n    m._theirs\n")
    own = defined_here(tree)
    assert "_mine" in own and "_theirs" not in own
