"""README's examples run (as python-chess's do): its Python blocks are executed, and
every doc it points to is there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


def test_every_doc_it_points_to_is_there() -> None:
    links = re.findall(r"\]\(([^)#]+)\)", README)
    assert links
    missing = [link for link in links if not (ROOT / link).exists()]
    assert not missing, missing


def test_readme_is_what_a_newcomer_reads_first() -> None:
    assert len(README.splitlines()) <= 300
    assert ".ci/run" in README and 'pytest -q -m "not slow"' in README
