"""docs/rules/ is the rules the code implements: every rule id the code cites is there,
and the files are the room's own copy (../shared/rules/, where that folder is present)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "rules"
SHARED = ROOT.parent / "shared" / "rules"
RULE_ID = re.compile(r"\b[EKT]-\d+\b")
GAMES = ("estimation.md", "estimation-kotshina.md", "tarneeb41.md")


def ids_in(paths: list[Path]) -> set[str]:
    return {m for p in paths for m in RULE_ID.findall(p.read_text(encoding="utf-8"))}


def test_every_rule_id_the_code_cites_is_written_down() -> None:
    code = [p for top in ("engine", "server", "tui") for p in (ROOT / top).rglob("*.py")]
    cited = ids_in(code)
    written = ids_in([DOCS / g for g in GAMES])
    assert cited, "no rule id found in the code"
    assert cited <= written, sorted(cited - written)


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/rules is not beside the project")
@pytest.mark.parametrize("game", GAMES)
def test_the_rules_are_the_rooms_copy(game: str) -> None:
    """The same words, but for the paths (from the project's root here, from
    ../shared/rules there)."""
    ours = (DOCS / game).read_text(encoding="utf-8")
    theirs = (SHARED / game).read_text(encoding="utf-8")
    theirs = re.sub(r"`seeds/([0-9a-f_]+\.txt)`", r"`../shared/rules/seeds/\1` (beside the project)", theirs)
    theirs = theirs.replace("`../design/room.md`", "`../shared/design/room.md`")
    assert ours == theirs, f"docs/rules/{game} differs from ../shared/rules/{game}"
