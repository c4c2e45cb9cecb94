"""The screens read the engine's view by its own keys (issue 25, item 2): every key a
screen reads of a view (``v.get("phase")``, ``view["hand"]``, ``sc.view.get(...)``)
is a key of ``engine.View``. mypy checks the types the screens declare (``View``,
``Action`` from the engine); a ``.get`` of a key a TypedDict lacks is only an
``object`` to it, so this reads the source for them."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_type_hints

from engine import View

ROOT = Path(__file__).resolve().parents[1]
VIEW_NAMES = {"v", "view"}          # a view in a local or an attribute of these names


def view_keys_read(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        target, key = None, None
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get" and node.args
                and isinstance(node.args[0], ast.Constant)):
            target, key = node.func.value, node.args[0].value
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            target, key = node.value, node.slice.value
        if not isinstance(key, str) or target is None:
            continue
        name = (target.id if isinstance(target, ast.Name)
                else target.attr if isinstance(target, ast.Attribute) else None)
        # (sc.view or {}).get(...) too
        if isinstance(target, ast.BoolOp) and isinstance(target.values[0], ast.Attribute):
            name = target.values[0].attr
        if name in VIEW_NAMES:
            found.append((node.lineno, key))
    return found


def test_every_key_a_screen_reads_of_a_view_is_the_engines() -> None:
    keys = set(get_type_hints(View))
    read = {(str(p.relative_to(ROOT)), line, key)
            for p in sorted((ROOT / "tui").rglob("*.py")) for line, key in view_keys_read(p)}
    assert len(read) > 50, "the reader found almost nothing: is it still reading views?"
    unknown = sorted(f"{p}:{line}: {key!r}" for p, line, key in read if key not in keys)
    assert not unknown, "keys the engine's view does not have:\n" + "\n".join(unknown)


def test_the_reader_sees_a_wrong_key(tmp_path: Path) -> None:
    src = tmp_path / "x.py"
    src.write_text("def f(sc, v):\n    return v.get('trumps'), sc.view['hand']\n")
    assert view_keys_read(src) == [(2, "trumps"), (2, "hand")] or \
        sorted(view_keys_read(src)) == [(2, "hand"), (2, "trumps")]
